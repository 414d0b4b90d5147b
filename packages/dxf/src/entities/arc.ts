// ARC: AcDbCircle + AcDbArc (ezdxf entities/arc.py). Angles in degrees, counter-clockwise in OCS.
import { registerDef } from '../defs/registry.js';
import type { RecordDef } from '../types.js';
import { ACDB_CIRCLE_ATTRS } from './circle.js';

export const ARC: RecordDef = registerDef({
  type: 'ARC',
  subclasses: [
    { marker: 'AcDbCircle', attrs: ACDB_CIRCLE_ATTRS },
    {
      marker: 'AcDbArc',
      attrs: [
        { name: 'start_angle', code: 50, kind: 'float', default: 0, required: true },
        { name: 'end_angle', code: 51, kind: 'float', default: 360, required: true },
      ],
    },
  ],
});
