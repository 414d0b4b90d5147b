// The construct/modify ops of this module set, for the catalogue, and their preview.
import { z } from 'zod';
import { OpError } from '../protocol.js';
import type { Entity } from '../dxf.js';
import { entityJson } from '../query/serialize.js';
import { offsetOp } from './modify-offset.js';
import { extendOp, trimOp } from './modify-trim.js';
import { chamferOp, filletOp } from './modify-corner.js';
import { breakOp, joinOp } from './modify-break-join.js';
import { hatch } from '../construct-more/ops.js';
import { defineOp, type EngineOp } from './types.js';
import type { EditResult } from './edit-result.js';

const PREVIEWED: EngineOp[] = [offsetOp, trimOp, extendOp, filletOp, chamferOp, hatch];

/**
 * What an edit would give, without making it: the op runs in a transaction that is rolled back,
 * and the entities it would create or change come back as records (the editor's hover preview of
 * FILLET and CHAMFER draws them, HATCH the boundaries found so far). The drawing, its version and its history stay as they were.
 */
export const modifyPreview = defineOp({
  name: 'modify_preview',
  summary: 'The result an offset, trim, extend, fillet, chamfer or hatch would have, made and rolled back: `entities` (full records of what it would create or change) and `erased`; nothing changes.',
  input: z.object({
    edit: z.enum(['offset', 'trim', 'extend', 'fillet', 'chamfer', 'hatch']).describe('the op to preview'),
    fields: z.record(z.string(), z.unknown()).describe('the op\'s own fields'),
  }),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ entities: z.array(z.looseObject({ handle: z.string(), type: z.string() })), created: z.array(z.string()), modified: z.array(z.string()), erased: z.array(z.string()) }),
  mcpGroup: 'session',
  http: [],
  // the editor's: an agent asks the op itself and undoes
  mcp: false,
  errors: ['invalid_request'],
  handler: (ctx, input) => {
    const store = ctx.store!;
    const op = PREVIEWED.find((o) => o.name === input.edit)!;
    const parsed = op.input.safeParse(input.fields);
    if (!parsed.success) throw new OpError('invalid_request', `modify_preview: ${input.edit}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    const tx = store.begin(`${input.edit} (preview)`, ctx.requestId);
    try {
      const r = op.handler({ ...ctx, tx }, parsed.data) as EditResult;
      const entities = [...r.created, ...r.modified].map((h) => tx.doc.get(h) as Entity | undefined).filter((e): e is Entity => !!e).map((e) => entityJson(e, 'full'));
      return { entities, created: r.created, modified: r.modified, erased: r.erased };
    } finally {
      store.rollback(tx);
    }
  },
});

export const MODIFY_GEOMETRY_OPS = [offsetOp, trimOp, extendOp, filletOp, chamferOp, breakOp, joinOp, modifyPreview];
