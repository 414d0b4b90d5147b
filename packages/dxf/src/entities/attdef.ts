// ATTDEF: AcDbText + AcDbAttributeDefinition (ezdxf entities/attrib.py). Lives in block definitions.
import { registerDef } from '../defs/registry.js';
import type { RecordDef } from '../types.js';
import { ACDB_ATTDEF_ATTRS, ATTDEF_CODEC } from './attrib-common.js';
import { ACDB_TEXT_ATTRS } from './text.js';

export const ATTDEF: RecordDef = registerDef({
  type: 'ATTDEF',
  subclasses: [
    { marker: 'AcDbText', attrs: ACDB_TEXT_ATTRS },
    { marker: 'AcDbAttributeDefinition', attrs: ACDB_ATTDEF_ATTRS, codec: ATTDEF_CODEC },
  ],
});
