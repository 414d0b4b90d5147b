// CIRCLE: AcDbCircle (ezdxf entities/circle.py). Center is in OCS.
import { registerDef } from '../defs/registry.js';
import type { AttrDef, RecordDef } from '../types.js';

/** Shared by CIRCLE and ARC. */
export const ACDB_CIRCLE_ATTRS: AttrDef[] = [
  { name: 'center', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
  { name: 'radius', code: 40, kind: 'float', default: 1, required: true },
  { name: 'thickness', code: 39, kind: 'float', default: 0 },
  { name: 'extrusion', code: 210, kind: 'vec3', default: [0, 0, 1] },
  // Not exported by ezdxf (the center's z is the elevation), kept when a file has it.
  { name: 'elevation', code: 38, kind: 'float', default: 0 },
];

export const CIRCLE: RecordDef = registerDef({
  type: 'CIRCLE',
  subclasses: [{ marker: 'AcDbCircle', attrs: ACDB_CIRCLE_ATTRS }],
});
