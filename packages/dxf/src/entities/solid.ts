// SOLID: AcDbTrace (ezdxf entities/solid.py; SOLID uses the AcDbTrace marker). Vertices in OCS,
// in the zig-zag order 0, 1, 3, 2 when drawn.
import { registerDef } from '../defs/registry.js';
import type { AttrDef, RecordDef } from '../types.js';

/** Shared by SOLID and TRACE. */
export const ACDB_TRACE_ATTRS: AttrDef[] = [
  { name: 'vtx0', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
  { name: 'vtx1', code: 11, kind: 'point3', default: [0, 0, 0], required: true },
  { name: 'vtx2', code: 12, kind: 'point3', default: [0, 0, 0], required: true },
  { name: 'vtx3', code: 13, kind: 'point3', default: [0, 0, 0] },
  { name: 'thickness', code: 39, kind: 'float', default: 0 },
  { name: 'extrusion', code: 210, kind: 'vec3', default: [0, 0, 1] },
  { name: 'elevation', code: 38, kind: 'float', default: 0 },
];

export const SOLID: RecordDef = registerDef({
  type: 'SOLID',
  subclasses: [{ marker: 'AcDbTrace', attrs: ACDB_TRACE_ATTRS }],
});
