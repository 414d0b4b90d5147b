// TRACE: AcDbTrace (ezdxf entities/solid.py), same layout as SOLID.
import { registerDef } from '../defs/registry.js';
import type { RecordDef } from '../types.js';
import { ACDB_TRACE_ATTRS } from './solid.js';

export const TRACE: RecordDef = registerDef({
  type: 'TRACE',
  subclasses: [{ marker: 'AcDbTrace', attrs: ACDB_TRACE_ATTRS }],
});
