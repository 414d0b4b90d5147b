// ELLIPSE: AcDbEllipse (ezdxf entities/ellipse.py). Center and major axis in WCS.
import { registerDef } from '../defs/registry.js';
import type { RecordDef } from '../types.js';

export const ELLIPSE: RecordDef = registerDef({
  type: 'ELLIPSE',
  minVersion: 'AC1012',
  subclasses: [
    {
      marker: 'AcDbEllipse',
      attrs: [
        { name: 'center', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
        { name: 'major_axis', code: 11, kind: 'vec3', default: [1, 0, 0], required: true },
        { name: 'extrusion', code: 210, kind: 'vec3', default: [0, 0, 1] },
        { name: 'ratio', code: 40, kind: 'float', default: 1, required: true },
        { name: 'start_param', code: 41, kind: 'float', default: 0, required: true },
        { name: 'end_param', code: 42, kind: 'float', default: 2 * Math.PI, required: true },
      ],
    },
  ],
});
