// XLINE: AcDbXline (ezdxf entities/xline.py), an infinite construction line.
import { registerDef } from '../defs/registry.js';
import type { AttrDef, RecordDef } from '../types.js';

/** Shared by XLINE (AcDbXline) and RAY (AcDbRay). */
export const XLINE_ATTRS: AttrDef[] = [
  { name: 'start', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
  { name: 'unit_vector', code: 11, kind: 'vec3', default: [1, 0, 0], required: true },
];

export const XLINE: RecordDef = registerDef({
  type: 'XLINE',
  minVersion: 'AC1012',
  subclasses: [{ marker: 'AcDbXline', attrs: XLINE_ATTRS }],
});
