// BLOCK and ENDBLK, the entities that open and close a block definition.
import type { RecordDef } from '../types.js';
import { registerDef } from './registry.js';

export const BLOCK_DEF: RecordDef = registerDef({
  type: 'BLOCK',
  subclasses: [
    {
      marker: 'AcDbBlockBegin',
      attrs: [
        { name: 'name', code: 2, kind: 'str', required: true, default: '' },
        { name: 'flags', code: 70, kind: 'int', default: 0, required: true },
        { name: 'base_point', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
        { name: 'name2', code: 3, kind: 'str' },
        { name: 'xref_path', code: 1, kind: 'str' },
        { name: 'description', code: 4, kind: 'str' },
      ],
    },
  ],
});

export const ENDBLK_DEF: RecordDef = registerDef({
  type: 'ENDBLK',
  subclasses: [{ marker: 'AcDbBlockEnd', attrs: [] }],
});
