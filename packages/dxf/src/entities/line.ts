// LINE: AcDbLine (ezdxf entities/line.py).
import { registerDef } from '../defs/registry.js';
import type { RecordDef } from '../types.js';

export const LINE: RecordDef = registerDef({
  type: 'LINE',
  subclasses: [
    {
      marker: 'AcDbLine',
      attrs: [
        { name: 'start', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
        { name: 'end', code: 11, kind: 'point3', default: [0, 0, 0], required: true },
        { name: 'thickness', code: 39, kind: 'float', default: 0 },
        { name: 'extrusion', code: 210, kind: 'vec3', default: [0, 0, 1] },
      ],
    },
  ],
});
