// ATTRIB: AcDbText + AcDbAttribute (ezdxf entities/attrib.py). Child of an INSERT.
import { registerDef } from '../defs/registry.js';
import type { RecordDef } from '../types.js';
import { ACDB_ATTRIB_ATTRS, ATTRIB_CODEC } from './attrib-common.js';
import { ACDB_ATTRIB_TEXT_ATTRS } from './text.js';

export const ATTRIB: RecordDef = registerDef({
  type: 'ATTRIB',
  subclasses: [
    { marker: 'AcDbText', attrs: ACDB_ATTRIB_TEXT_ATTRS },
    { marker: 'AcDbAttribute', attrs: ACDB_ATTRIB_ATTRS, codec: ATTRIB_CODEC },
  ],
});
