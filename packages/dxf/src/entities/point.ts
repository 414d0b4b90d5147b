// POINT: AcDbPoint (ezdxf entities/point.py). Location in WCS.
import { registerDef } from '../defs/registry.js';
import type { RecordDef } from '../types.js';

export const POINT: RecordDef = registerDef({
  type: 'POINT',
  subclasses: [
    {
      marker: 'AcDbPoint',
      attrs: [
        { name: 'location', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
        { name: 'thickness', code: 39, kind: 'float', default: 0 },
        { name: 'extrusion', code: 210, kind: 'vec3', default: [0, 0, 1] },
        { name: 'angle', code: 50, kind: 'float', default: 0 },
      ],
    },
  ],
});
