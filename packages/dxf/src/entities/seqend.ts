// SEQEND: ends the VERTEX list of a POLYLINE or the ATTRIB list of an INSERT; only AcDbEntity data.
import { registerDef } from '../defs/registry.js';
import type { RecordDef } from '../types.js';

export const SEQEND: RecordDef = registerDef({ type: 'SEQEND', subclasses: [] });
