// INSERT: AcDbBlockReference, or AcDbMInsertBlock for MINSERT arrays (column/row count > 1)
// (ezdxf entities/insert.py). ATTRIBs are the record's `children`, closed by `seqend`.
import { registerDef } from '../defs/registry.js';
import type { AttrDef, RecordDef } from '../types.js';

export const INSERT_ATTRS: AttrDef[] = [
  { name: 'attribs_follow', code: 66, kind: 'int', default: 0 },
  { name: 'name', code: 2, kind: 'str', default: '', required: true },
  { name: 'insert', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
  { name: 'xscale', code: 41, kind: 'float', default: 1 },
  { name: 'yscale', code: 42, kind: 'float', default: 1 },
  { name: 'zscale', code: 43, kind: 'float', default: 1 },
  { name: 'rotation', code: 50, kind: 'float', default: 0 },
  { name: 'column_count', code: 70, kind: 'int', default: 1 },
  { name: 'row_count', code: 71, kind: 'int', default: 1 },
  { name: 'column_spacing', code: 44, kind: 'float', default: 0 },
  { name: 'row_spacing', code: 45, kind: 'float', default: 0 },
  { name: 'extrusion', code: 210, kind: 'vec3', default: [0, 0, 1] },
  // not exported by ezdxf (the insert point's z is the elevation), kept when a file has it
  { name: 'elevation', code: 38, kind: 'float', default: 0 },
];

export const INSERT: RecordDef = registerDef({
  type: 'INSERT',
  subclasses: [
    { marker: 'AcDbBlockReference', attrs: INSERT_ATTRS },
    { marker: 'AcDbMInsertBlock', attrs: INSERT_ATTRS },
  ],
});
