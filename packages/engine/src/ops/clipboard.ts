// The session's clipboard (AutoCAD's COPYCLIP, CUTCLIP, PASTECLIP). As AutoCAD writes the
// selection to a clipboard drawing, copy and cut copy the entities with their dependency closure
// (store/closure.ts) into a scratch drawing the session holds, not into any open document; cut
// then erases them. Paste copies from that drawing into the addressed one through the same
// closure and moves the copies to the point, in one transaction: one undo step. So a paste needs
// nothing of the source any more: it works after the source was cut from, changed or closed, and
// the same way into any drawing (within the source, names are kept and anonymous blocks copied
// anew, as for a paste into another drawing).
import { z } from 'zod';
import { OpError } from '../protocol.js';
import { dxf, type DocumentApi, type DxfVersion, type Entity } from '../dxf.js';
import type { Engine } from '../engine.js';
import type { DocStore } from '../store/document-store.js';
import { copyEntities, directSink, DEPENDENCY_KINDS, type CopyResult } from '../store/closure.js';
import { entitiesOrThrow } from '../model.js';
import { point } from '../entities/create.js';
import { eraseEntities, layoutBlock, selectionEntry, transformInPlace } from './entities.js';
import { defineOp } from './types.js';
import { handlesOut, pointOut } from './output-parts.js';

interface Clipboard {
  /** The scratch drawing holding the copies and what they depend on. */
  doc: DocumentApi;
  /** The copies in that drawing, in the order they were given. */
  handles: string[];
  /** The point that lands on a paste's `point` (the lower left of the entities' extents by default). */
  base: [number, number];
  source: { document_id: number; name: string };
  cut: boolean;
}

/** One clipboard per session (engine), as one per user in AutoCAD. */
const CLIPBOARDS = new WeakMap<Engine, Clipboard>();

/**
 * The clipboard drawing's version: the source's, so nothing is converted on the way in (R13/R14,
 * which new drawings cannot be, become R2000 as a save of them would).
 */
function scratchVersion(v: DxfVersion): DxfVersion {
  if (v <= 'AC1009') return 'AC1009';
  return v < 'AC1015' ? 'AC1015' : v;
}

/** The lower left of the entities' extents (the origin when none has any). */
function lowerLeft(store: DocStore, list: Entity[]): [number, number] {
  let x = Infinity, y = Infinity;
  for (const e of list) {
    const b = selectionEntry(store, e.handle)?.bounds;
    if (!b) continue;
    x = Math.min(x, b.min[0]!);
    y = Math.min(y, b.min[1]!);
  }
  return Number.isFinite(x) ? [x, y] : [0, 0];
}

/** The clipboard of `handles` (each entity once), and the handles as given, resolved. */
function fill(store: DocStore, handles: string[], base: number[] | undefined, cut: boolean): { clip: Clipboard; copied: CopyResult; given: string[] } {
  const given = entitiesOrThrow(store.doc, handles);
  const list = [...new Set(given)];
  const doc = dxf.newDocument(scratchVersion(store.doc.version));
  const copied = copyEntities(store.doc, list, directSink(doc));
  const clip: Clipboard = {
    doc, handles: copied.handles, base: base ? [base[0]!, base[1]!] : lowerLeft(store, list),
    source: { document_id: store.id, name: store.name }, cut,
  };
  return { clip, copied, given: given.map((e) => e.handle) };
}

const clipInput = z.object({
  handles: z.array(z.string()).min(1),
  base: point.optional().describe('the point that lands on the paste point (default: the lower left of the entities\' extents)'),
});

const clipOutput = z.object({
  count: z.number().int(),
  handles: handlesOut.describe('the entities put on the clipboard'),
  base: pointOut,
  dependencies: z.record(z.string(), z.array(z.string())).describe('what the clipboard holds besides the entities (blocks, layers, styles ...)'),
});

function clipAnswer(handles: string[], clip: Clipboard, copied: CopyResult) {
  // the clipboard drawing starts with the standard symbols: what it kept of those came along too
  const held = Object.fromEntries(DEPENDENCY_KINDS.map((k) => [k, [...copied.kept_from_target[k], ...copied.dependencies[k]]]));
  return { count: clip.handles.length, handles, base: clip.base, dependencies: held };
}

export const clipboardCopy = defineOp({
  name: 'clipboard_copy',
  summary: 'Copies entities with what they depend on (blocks, layers, styles ...) to the session\'s clipboard (AutoCAD\'s COPYCLIP), replacing what it held; clipboard_paste puts them into any drawing.',
  input: clipInput,
  mutates: false,
  effect: 'change',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: clipOutput,
  mcpGroup: 'session',
  example: { handles: ['2F', '30'] },
  http: [],
  errors: ['entity_absent'],
  handler: (ctx, input) => {
    const { clip, copied, given } = fill(ctx.store!, input.handles, input.base, false);
    CLIPBOARDS.set(ctx.engine, clip);
    return clipAnswer(given, clip, copied);
  },
});

export const clipboardCut = defineOp({
  name: 'clipboard_cut',
  summary: 'Copies entities with what they depend on to the session\'s clipboard and erases them (AutoCAD\'s CUTCLIP; one undo step, which brings them back and leaves the clipboard as it is).',
  input: clipInput,
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  needsDocument: true,
  output: clipOutput,
  mcpGroup: 'session',
  example: { handles: ['2F'] },
  http: [],
  errors: ['entity_absent'],
  handler: (ctx, input) => {
    const store = ctx.store!;
    const { clip, copied, given: handles } = fill(store, input.handles, input.base, true);
    eraseEntities(ctx.tx!, store, handles);
    // held only once the erase went through: a refused cut leaves the clipboard as it was
    CLIPBOARDS.set(ctx.engine, clip);
    return clipAnswer(handles, clip, copied);
  },
});

const dependenciesOut = z.record(z.string(), z.array(z.string()));

export const clipboardPaste = defineOp({
  name: 'clipboard_paste',
  summary: 'Pastes the session\'s clipboard into the addressed drawing (AutoCAD\'s PASTECLIP): copies with what they depend on, as entities_copy_to does, the clipboard\'s base point moved to `point` (default: where they were); one undo step.',
  input: z.object({
    point: point.optional().describe('where the clipboard\'s base point lands (default: the entities keep their coordinates, as PASTEORIG)'),
    layout: z.string().optional().describe('layout to paste into (default: model space, or the layout of the same name for entities of a paper-space layout)'),
  }),
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  needsDocument: true,
  output: z.object({
    count: z.number().int(), handles: handlesOut.describe('the pasted entities'), vector: pointOut,
    source: z.object({ document_id: z.number().int(), name: z.string() }), cut: z.boolean(),
    dependencies: dependenciesOut, kept_from_target: dependenciesOut, renamed_blocks: z.record(z.string(), z.string()),
  }),
  mcpGroup: 'session',
  example: { point: [100, 50] },
  http: [],
  errors: ['clipboard_empty', 'unknown_layout'],
  handler: (ctx, input) => {
    const clip = CLIPBOARDS.get(ctx.engine);
    if (!clip) throw new OpError('clipboard_empty', 'the clipboard is empty: clipboard_copy or clipboard_cut first');
    const tx = ctx.tx!;
    const into = input.layout !== undefined ? layoutBlock(tx.doc, input.layout) : undefined;
    let list = clip.handles.map((h) => clip.doc.get(h) as Entity);
    // a viewport belongs to paper space: into model space it is left out, and the answer says so
    const skipped = into !== undefined && into === tx.doc.modelSpace().name ? list.filter((e) => e.type === 'VIEWPORT').length : 0;
    if (skipped) list = list.filter((e) => e.type !== 'VIEWPORT');
    if (!list.length) throw new OpError('invalid_request', `the clipboard holds only viewports, which model space cannot take (${skipped})`);
    const r = copyEntities(clip.doc, list, tx, { into });
    const vector = input.point ? [input.point[0]! - clip.base[0], input.point[1]! - clip.base[1]] : [0, 0];
    let handles = r.handles;
    if (vector[0] !== 0 || vector[1] !== 0) {
      handles = handles.map((h) => transformInPlace(tx, tx.doc.get(h) as Entity, { kind: 'move', vector }).handle);
    }
    return {
      count: handles.length, handles, vector, source: clip.source, cut: clip.cut,
      dependencies: r.dependencies, kept_from_target: r.kept_from_target, renamed_blocks: r.renamed_blocks, undefined_in_source: r.undefined_in_source,
      ...(r.converted ? { converted: r.converted, dropped: r.dropped } : {}),
      ...(skipped ? { skipped: { VIEWPORT: skipped } } : {}),
    };
  },
});

export const CLIPBOARD_OPS = [clipboardCopy, clipboardCut, clipboardPaste];
