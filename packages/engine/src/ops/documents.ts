// Documents: open, new, close, save, undo, redo, file identity; header, layers, records.
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { OpError } from '../protocol.js';
import { DXF_VERSIONS, LazyEntity, RELEASE_NAMES, dxf, type DocumentApi, type DxfRecord, type DxfVersion } from '../dxf.js';
import { documentDetails, documentSummary } from '../state.js';
import { UNIT_NAMES, currentLayer, entryName, hdrName, tableEntries } from '../model.js';
import { Reply, defineOp, q, type OpContext } from './types.js';
import { recordJson } from '../query/serialize.js';
import type { Engine } from '../engine.js';
import { deadline, quote, type Workspace } from '../workspace.js';
import { currentMeter } from '../budgets.js';
import { checkSessionRoom, noteDocumentBytes } from '../session-budget.js';
import { layerOut, openedDocumentOut, undoStateOut } from './output-parts.js';

/** A DXF version from a release name (R12, R2018) or $ACADVER (AC1009). */
export function parseVersion(v: string): DxfVersion {
  const u = v.trim().toUpperCase();
  if (RELEASE_NAMES[u]) return RELEASE_NAMES[u]!;
  if ((DXF_VERSIONS as readonly string[]).includes(u)) return u as DxfVersion;
  throw new OpError('invalid_version', `${v} is not a DXF version; use R12, R13, R14, R2000, R2004, R2007, R2010, R2013, R2018 or AC1009 ... AC1032`);
}

/**
 * Reads a drawing a client named: inside the workspace, a regular file, read within a deadline
 * that grows with its size (a backstop: local disks read hundreds of MB/s). Returns the document
 * and the file's real path. A file that is not DXF fails with `invalid_dxf`, whose message says
 * where and why without quoting the file (it may be anything).
 */
export async function readDocument(workspace: Workspace, named: string, room?: (bytes: number) => void, lazy = false, acceptDamagedValues = false): Promise<{ doc: DocumentApi; path: string; size: number }> {
  const path = await workspace.forRead(named, 'drawing');
  const { size } = await stat(path);
  room?.(size);
  try {
    const doc = await deadline(dxf.readDxf(path, lazy), `reading ${quote(named)}`, 30_000 + size / 2_000);
    // a value that is not a number where one must be: damaged input, refused as the CLI refuses it
    // (an opened drawing would be saved with the reader's stand-in values, and nothing said so)
    const invalid = doc.diagnostics.filter((d) => d.code === 'invalid-number');
    if (invalid.length && !acceptDamagedValues) {
      const first = invalid[0]!;
      throw new OpError('invalid_dxf', `cannot read ${quote(named)} as a DXF drawing: it is damaged: ${first.line ? `line ${first.line}: ` : ''}${first.message}${invalid.length > 1 ? ` (and ${invalid.length - 1} more)` : ''}; \`linework convert --recover\` writes a repaired copy`, { path: named.slice(0, 200) });
    }
    // reading is one step the deadline cannot enter: judged once it is done, before the document is added
    currentMeter().checkNow();
    return { doc, path, size };
  } catch (err) {
    if (err instanceof OpError) throw err;
    const e = err as NodeJS.ErrnoException;
    // DWG: no converter installed, or the converter's own words about the file
    if (e.name === 'DwgError') {
      const code = e.code === 'dwg_reader_missing' ? 'dwg_reader_missing' : 'invalid_dwg';
      throw new OpError(code, `cannot read ${quote(named)} as a DWG drawing: ${e.message}`, { path: named.slice(0, 200) });
    }
    const why = e.name === 'DxfError' ? e.message : e.code ?? 'the file cannot be read';
    throw new OpError('invalid_dxf', `cannot read ${quote(named)} as a DXF drawing: ${why}`, { path: named.slice(0, 200) });
  }
}

export function newDocument(version?: string): DocumentApi {
  return dxf.newDocument(version ? parseVersion(version) : undefined);
}

function opened(engine: Engine, store: ReturnType<Engine['addDocument']>, kind: 'document_opened' | 'document_created') {
  engine.activate(store.id);
  engine.emit(kind, store, { name: store.name, path: store.path });
  // what reading had to repair (a missing layer 0 added, broken handles renumbered ...)
  const repairs = store.doc.diagnostics.filter((d) => d.level !== 'info').map((d) => ({ code: d.code, message: d.message }));
  return new Reply(
    { document_id: store.id, name: store.name, path: store.path, created: kind === 'document_created', ...documentDetails(store), ...(repairs.length ? { repairs } : {}) },
    { document_id: store.id, state: true },
  );
}

export const documentOpen = defineOp({
  name: 'document_open',
  summary: 'Opens a drawing (`path`; or creates one from a `template` drawing, or a new untitled drawing when neither is given); it becomes active.',
  input: z.object({
    path: z.string().min(1).optional().describe('DXF or DWG (the file to open; DWG through a converter: docs/files.md)'),
    template: z.string().min(1).optional().describe('DXF file to start an untitled drawing from (or a DXF version, R12 ... R2018, for an empty one)'),
    version: z.string().optional().describe('DXF version of a new drawing (default R2018)'),
  }),
  mutates: false,
  effect: 'change',
  // Opening (even a blank drawing) changes no file and no open drawing: reading a drawing starts here.
  permissions: ['drawings:read'],
  needsDocument: false,
  output: openedDocumentOut,
  mcpGroup: 'documents',
  example: { path: 'plans/site.dxf' },
  http: [{
    method: 'POST', path: '/documents', status: 201, wrapper: false,
    summary: 'New document from `template`, else open `path`, else a new untitled drawing.',
    fromHttp: ({ body }) => {
      const b = q.body(body);
      const out: Record<string, unknown> = {};
      if (typeof b.template === 'string' && b.template) out.template = b.template;
      else if (typeof b.path === 'string' && b.path) out.path = b.path;
      if (typeof b.version === 'string') out.version = b.version;
      if (b.document_id !== undefined) out.document_id = b.document_id;
      return out;
    },
  }],
  errors: ['file_not_found', 'invalid_dxf', 'invalid_dwg', 'dwg_reader_missing', 'invalid_version', 'path_outside_root', 'not_a_file', 'invalid_path', 'io_timeout', 'session_full'],
  handler: async (ctx, input) => {
    const engine = ctx.engine;
    const room = (bytes: number): void => checkSessionRoom(engine, bytes);
    if (input.template) {
      const t = input.template;
      let doc: DocumentApi;
      if (/^(R\d+|AC\d{4})$/i.test(t.trim())) {
        room(0);
        doc = newDocument(t);
      } else doc = (await readDocument(engine.workspace, t, room, true)).doc;
      const store = engine.addDocument(doc, null);
      return opened(engine, store, 'document_created');
    }
    if (input.path) {
      // entities kept as their bytes until after the open (store/lazy.ts)
      const { doc, path, size } = await readDocument(engine.workspace, input.path, room, true, engine.acceptDamagedValues);
      // checked again: another request may have opened one while this file was read
      room(size);
      const store = engine.addDocument(doc, path);
      noteDocumentBytes(engine, store.id, size);
      return opened(engine, store, 'document_opened');
    }
    room(0);
    const store = engine.addDocument(newDocument(input.version), null);
    return opened(engine, store, 'document_created');
  },
});

export const documentNew = defineOp({
  name: 'document_new',
  summary: 'Creates a new untitled drawing (optionally of a DXF `version`); it becomes active.',
  input: z.object({ version: z.string().optional().describe('R12 ... R2018 (default R2018)') }),
  mutates: false,
  effect: 'change',
  permissions: ['drawings:read'],
  needsDocument: false,
  output: openedDocumentOut,
  mcpGroup: 'documents',
  http: [],
  errors: ['invalid_version', 'session_full'],
  handler: (ctx, input) => {
    checkSessionRoom(ctx.engine, 0);
    return opened(ctx.engine, ctx.engine.addDocument(newDocument(input.version), null), 'document_created');
  },
});

export const documentClose = defineOp({
  name: 'document_close',
  summary: 'Closes the addressed document; a modified one needs `discard` true.',
  input: z.object({
    document_id: z.number().int().optional(),
    discard: z.boolean().optional().describe('close even with unsaved changes'),
  }),
  mutates: false,
  effect: 'discard',
  permissions: ['drawings:delete'],
  needsDocument: true,
  output: z.object({ closed: z.literal(true), document_id: z.number().int(), active_document_id: z.number().int().nullable() }),
  mcpGroup: 'documents',
  http: [{
    method: 'DELETE', path: '/documents/{id}', status: 200, wrapper: false,
    fromHttp: ({ params, query }) => ({ document_id: Number(params.id), discard: q.bool(query.discard) }),
  }],
  errors: ['document_modified'],
  handler: (ctx, input) => {
    const s = ctx.store!;
    if (s.modified && !input.discard) {
      throw new OpError('document_modified', `document ${s.id} (${s.name}) has unsaved changes; save it or close with discard=true`, { document_id: s.id });
    }
    for (const id of ctx.engine.pendingIds()) {
      const rec = ctx.engine.operations.get(id);
      if (rec?.document_id === s.id) ctx.engine.cancelPending(id, 'the document was closed');
    }
    ctx.engine.closeDocument(s.id);
    ctx.engine.emit('document_closed', null, { closed_document_id: s.id, name: s.name, document_id: s.id, version: s.version });
    const active = ctx.engine.activeId;
    return new Reply({ closed: true, document_id: s.id, active_document_id: active }, { document_id: active ?? undefined, state: true });
  },
});

export const save = defineOp({
  name: 'save',
  summary: 'Saves the document (atomically) to its path or to `path` (optionally in another DXF `version` or as binary DXF, `binary`); the result says what a conversion made of what (converted) and left out (dropped).',
  input: z.object({
    path: z.string().min(1).optional().describe('(the file to write; default: the document\'s path)'),
    version: z.string().optional().describe('R12 ... R2018 or AC1009 ... AC1032 (default: the document\'s)'),
    binary: z.boolean().optional().describe('binary DXF (true) or ASCII (false; default: the form the drawing was read in)'),
  }),
  mutates: false,
  effect: 'write_files',
  permissions: ['drawings:write'],
  needsDocument: true,
  output: z.object({ path: z.string(), name: z.string(), dxf_version: z.string(), saved: z.literal(true), converted: z.record(z.string(), z.unknown()), dropped: z.record(z.string(), z.unknown()), warnings: z.array(z.unknown()) }),
  mcpGroup: 'documents',
  example: { path: 'plans/site-v2.dxf', version: 'R2018' },
  http: [{ method: 'POST', path: '/save', status: 200, wrapper: false }],
  errors: ['path_required', 'save_failed', 'invalid_version', 'path_outside_root', 'not_a_file', 'invalid_path', 'folder_not_found', 'io_timeout'],
  handler: async (ctx, input) => {
    const s = ctx.store!;
    const named = input.path ?? s.path;
    if (!named) throw new OpError('path_required', `document ${s.id} (${s.name}) is untitled; give a path`);
    // a drawing opened from DWG keeps the DWG's path: saving there would put DXF in a .dwg file
    if (/\.dwg$/i.test(named)) throw new OpError('save_failed', `cannot save ${quote(named)}: DWG is read, not written; save to a path ending in .dxf`, { path: named.slice(0, 200) });
    const target = await ctx.engine.workspace.forWrite(named, 'drawing');
    const version = input.version ? parseVersion(input.version) : s.doc.version;
    let report: Awaited<ReturnType<typeof dxf.saveDxf>>;
    try {
      // Another version writes a converted copy; the open drawing keeps its own version.
      report = await dxf.saveDxf(s.doc, target, version !== s.doc.version ? version : undefined, input.binary);
    } catch (err) {
      if (err instanceof OpError) throw err;
      const e = err as NodeJS.ErrnoException;
      throw new OpError('save_failed', `cannot save ${quote(named)}: ${e.code ?? e.message}`, { path: named.slice(0, 200) });
    }
    s.path = target;
    s.name = target.split(/[\\/]/).pop() || target;
    s.modified = false;
    ctx.engine.emit('document_saved', s, { path: target, dxf_version: version });
    // every conversion (what became what) and every drop of a save in another version
    const warnings = report.diagnostics.filter((d) => d.level !== 'info').map((d) => d.message);
    return { path: target, name: s.name, dxf_version: version, saved: true, converted: report.converted, dropped: report.dropped, warnings };
  },
});

const stepsInput = z.object({ steps: z.number().int().min(1).max(1000).optional().describe('(number of steps; default 1)') });

export const undo = defineOp({
  name: 'undo',
  summary: 'Undoes the last change(s) of the document; each earlier request is one step.',
  input: stepsInput,
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  tx: 'none',
  needsDocument: true,
  output: z.object({ undone: z.number().int(), ...undoStateOut }),
  mcpGroup: 'documents',
  http: [{ method: 'POST', path: '/undo', status: 200, wrapper: false }],
  handler: (ctx, input) => undoRedo(ctx, 'undo', input.steps ?? 1),
});

export const redo = defineOp({
  name: 'redo',
  summary: 'Redoes what undo took back.',
  input: stepsInput,
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  tx: 'none',
  needsDocument: true,
  output: z.object({ redone: z.number().int(), ...undoStateOut }),
  mcpGroup: 'documents',
  http: [{ method: 'POST', path: '/redo', status: 200, wrapper: false }],
  handler: (ctx, input) => undoRedo(ctx, 'redo', input.steps ?? 1),
});

export function undoRedo(ctx: OpContext, dir: 'undo' | 'redo', steps: number) {
  const s = ctx.store!;
  const ops: string[] = [];
  for (let i = 0; i < steps; i++) {
    const diff = dir === 'undo' ? s.undo() : s.redo();
    if (!diff) break;
    ops.push(diff.op);
    ctx.engine.emitDiff(dir === 'undo' ? 'undone' : 'redone', s, diff, ctx.requestId);
  }
  return {
    [dir === 'undo' ? 'undone' : 'redone']: ops.length,
    ops,
    can_undo: s.undoStack.length > 0,
    can_redo: s.redoStack.length > 0,
  };
}

/** The drawing's identity: $FINGERPRINTGUID without braces (36 characters), generated when absent. */
export const fileIdentity = defineOp({
  name: 'file_identity',
  summary: 'The drawing\'s identity ($FINGERPRINTGUID, 36 characters; generated and stored when absent).',
  input: z.object({ regenerate: z.boolean().optional().describe('assign a new identity (a copy of a drawing becomes a distinct file)') }),
  mutates: false,
  effect: 'change',
  permissions: ['drawings:write'],
  needsDocument: true,
  output: z.object({ identity: z.string(), generated: z.boolean() }),
  mcpGroup: 'data',
  http: [{ method: 'POST', path: '/file-identity', status: 200, wrapper: false }],
  handler: (ctx, input) => {
    const s = ctx.store!;
    const cur = s.doc.getHeader('$FINGERPRINTGUID');
    let id = typeof cur === 'string' ? cur.replace(/[{}]/g, '').trim() : '';
    let generated = false;
    if (input.regenerate || !/^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/.test(id)) {
      id = randomUUID().toUpperCase();
      // Metadata, not an edit: not an undo step, but the document version moves and it must be saved.
      s.doc.setHeader('$FINGERPRINTGUID', `{${id}}`);
      s.touchVersion();
      generated = true;
      ctx.engine.emit('changed', s, { op: 'file_identity', request_id: ctx.requestId, added: 0, updated: 0, removed: 0, header: ['$FINGERPRINTGUID'] });
    }
    return { identity: id, generated };
  },
});

export const header = defineOp({
  name: 'header',
  summary: 'The drawing header: every header variable with its value.',
  input: z.object({ names: z.union([z.string(), z.array(z.string())]).optional().describe('only these variables') }),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ header: z.record(z.string(), z.unknown()), count: z.number().int(), dxf_version: z.string(), encoding: z.string() }),
  mcpGroup: 'data',
  http: [{ method: 'GET', path: '/header', status: 200, wrapper: false, fromHttp: ({ query }) => (query.names ? { names: q.list(query.names) } : {}) }],
  handler: (ctx, input) => {
    const doc = ctx.store!.doc;
    const want = input.names === undefined ? null : new Set((Array.isArray(input.names) ? input.names : q.list(input.names)).map(hdrName));
    const vars: Record<string, unknown> = {};
    for (const name of doc.header.keys()) {
      if (want && !want.has(name.toUpperCase())) continue;
      vars[name] = doc.getHeader(name) ?? null;
    }
    return { header: vars, count: Object.keys(vars).length, dxf_version: doc.version, encoding: doc.encoding };
  },
});

export const layers = defineOp({
  name: 'layers',
  summary: 'The layers with their properties and entity counts.',
  input: z.object({}),
  mutates: false,
  effect: 'read',
  permissions: ['layers:read'],
  needsDocument: true,
  output: z.object({ count: z.number().int(), current: z.string(), layers: z.array(layerOut) }),
  mcpGroup: 'layers',
  http: [{ method: 'GET', path: '/layers', status: 200, wrapper: false }],
  handler: (ctx) => {
    const doc = ctx.store!.doc;
    const counts = new Map<string, number>();
    for (const l of doc.layouts()) for (const e of l.block.entities) {
      // an entity an open kept as its bytes: its layer read from them, nothing decoded and kept
      const layer = e instanceof LazyEntity ? e.peekLayer() ?? e.attrs.layer : e.attrs.layer;
      const n = String(layer ?? '0').toLowerCase();
      counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    const cur = currentLayer(doc).toLowerCase();
    const list = tableEntries(doc, 'LAYER').map((l) => layerJson(l, counts, cur));
    return { count: list.length, current: currentLayer(doc), layers: list };
  },
});

export function layerJson(l: DxfRecord, counts: Map<string, number>, cur: string) {
  const a = l.attrs;
  const name = String(a.name ?? '');
  const color = Number(a.color ?? 7);
  const flags = Number(a.flags ?? 0);
  return {
    name,
    handle: l.handle,
    color: Math.abs(color) || 7,
    on: color >= 0,
    frozen: (flags & 1) !== 0,
    locked: (flags & 4) !== 0,
    plot: a.plot === undefined ? true : Boolean(Number(a.plot)),
    linetype: String(a.linetype ?? 'Continuous'),
    lineweight: Number(a.lineweight ?? -3),
    true_color: a.true_color ?? null,
    current: name.toLowerCase() === cur,
    entities: counts.get(name.toLowerCase()) ?? 0,
  };
}

const COLLECTIONS = ['entities', 'blocks', 'layers', 'linetypes', 'styles', 'dimstyles', 'layouts', 'objects', 'appids', 'ucs', 'views', 'vports', 'block_records'] as const;

export const records = defineOp({
  name: 'records',
  summary: 'Raw records of a collection (entities, blocks, layers, linetypes, styles, dimstyles, layouts, objects ...) with paging.',
  input: z.object({
    collection: z.enum(COLLECTIONS).default('entities'),
    type: z.string().optional().describe('only records of this DXF type'),
    offset: z.coerce.number().int().min(0).optional(),
    limit: z.coerce.number().int().min(1).max(100000).optional().describe('default 1000'),
  }),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ collection: z.string(), total: z.number().int(), count: z.number().int(), offset: z.number().int(), limit: z.number().int(), records: z.array(z.looseObject({ handle: z.string().optional(), type: z.string().optional() })) }),
  mcpGroup: 'data',
  http: [{
    method: 'GET', path: '/records', status: 200, wrapper: false,
    fromHttp: ({ query }) => {
      const out: Record<string, unknown> = {};
      for (const k of ['collection', 'type', 'offset', 'limit']) if (query[k] !== undefined && query[k] !== '') out[k] = query[k];
      return out;
    },
  }],
  handler: (ctx, input) => {
    const doc = ctx.store!.doc;
    let list: Record<string, unknown>[] | DxfRecord[];
    const tableOf: Record<string, Parameters<DocumentApi['getTableEntry']>[0]> = {
      layers: 'LAYER', linetypes: 'LTYPE', styles: 'STYLE', dimstyles: 'DIMSTYLE', appids: 'APPID', ucs: 'UCS',
      views: 'VIEW', vports: 'VPORT', block_records: 'BLOCK_RECORD',
    };
    switch (input.collection) {
      case 'entities': list = [...doc.layouts()].flatMap((l) => l.block.entities); break;
      case 'blocks':
        list = [...doc.blocks.values()].map((b) => ({
          name: b.name, handle: b.block.handle, type: 'BLOCK', base_point: b.block.attrs.base_point ?? [0, 0, 0],
          flags: b.block.attrs.flags ?? 0, entities: b.entities.length, record: recordJson(b.block),
        }));
        break;
      case 'layouts': list = doc.layouts().map((l) => ({ name: l.name, handle: l.handle, block: l.block.name, entities: l.block.entities.length, record: doc.get(l.handle) ? recordJson(doc.get(l.handle)!) : null })); break;
      case 'objects': list = doc.objects; break;
      default: list = tableEntries(doc, tableOf[input.collection]!); break;
    }
    let items = list as (Record<string, unknown> | DxfRecord)[];
    if (input.type) {
      const t = input.type.toUpperCase();
      items = items.filter((r) => String((r as DxfRecord).type ?? '').toUpperCase() === t);
    }
    const offset = input.offset ?? 0, limit = input.limit ?? 1000;
    const page = items.slice(offset, offset + limit).map((r) => ('attrs' in r && 'handle' in r ? recordJson(r as DxfRecord) : r));
    return { collection: input.collection, total: items.length, count: page.length, offset, limit, records: page };
  },
});

export const DOCUMENT_OPS = [documentOpen, documentNew, documentClose, save, undo, redo, fileIdentity, header, layers, records];
export { documentSummary, UNIT_NAMES, entryName };
