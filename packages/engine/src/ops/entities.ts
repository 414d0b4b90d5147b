// Entities: create, list, get, delete, transform, copy to another document, properties, view focus.
import { z } from 'zod';
import { OpError } from '../protocol.js';
import { dxf, type DocumentApi, type Entity, type Transform2D } from '../dxf.js';
import { LIMITS } from '../limits.js';
import type { DocStore, Transaction } from '../store/document-store.js';
import { safeBox } from '../store/document-store.js';
import { deepClone } from '../store/clone.js';
import { copyEntities } from '../store/closure.js';
import { entityIndex } from '../store/access.js';
import { buildEntity, createItem, point, to3, type CreateContext, type CreateItem } from '../entities/create.js';
import { queryEntities } from '../query/entities.js';
import { PICK_FIELDS, entitiesInBox, pickAt } from '../query/picks.js';
import { parseWhere } from '../query/where.js';
import { attrDefs, attrValue, boundsJson, COMMON_ATTRS, entityJson, textOf } from '../query/serialize.js';
import { blockOfEntity, entitiesOrThrow, entityOrThrow, findEntry } from '../model.js';
import { defineOp, q, Reply, type OpContext } from './types.js';
import { dictEntries, groupDictionary, groupHandles, groups, namedDictionary, newGroup, setDictEntry, setGroupHandles } from '../store/objects.js';
import { boxOut, entityOut, handlesOut, pointOut, selectedEntityOut } from './output-parts.js';

// ---- create ----------------------------------------------------------------------------------

export const entitiesCreate = defineOp({
  name: 'entities_create',
  summary: 'Creates entities (Line, Circle, Arc, Ellipse, Point, Text, MText, LWPolyline, Polyline, Spline, Insert, Hatch, Solid, Ray, XLine, Leader); `result.handles` in order.',
  input: z.object({
    entities: z.array(createItem).min(1).max(LIMITS.maxCreate),
    create_layers: z.boolean().optional().describe('(create missing layers; default: unknown_layer)'),
    layout: z.string().optional().describe('(the layout to draw in; default Model)'),
    select: z.boolean().optional().describe('select the new entities'),
  }),
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  needsDocument: true,
  output: z.object({ handles: handlesOut.describe('handles of the new entities, in the order given'), count: z.number().int() }),
  mcpGroup: 'entities',
  example: { entities: [{ type: 'Line', start: [0, 0], end: [100, 0], layer: 'walls' }, { type: 'Text', position: [0, 10], value: 'Kitchen', height: 2.5 }], create_layers: true },
  http: [{ method: 'POST', path: '/entities', status: 201, wrapper: false }],
  errors: ['unknown_layer', 'unknown_linetype', 'unknown_style', 'unknown_block', 'invalid_entity', 'unknown_layout', 'invalid_xdata', 'budget_exceeded'],
  handler: (ctx, input) => {
    const tx = ctx.tx!;
    const store = ctx.store!;
    const blockName = input.layout && input.layout.toLowerCase() !== 'model' ? layoutBlock(tx.doc, input.layout) : undefined;
    const cctx = createContext(tx, input.create_layers ?? false);
    const handles: string[] = new Array(input.entities.length);
    for (let i = 0; i < input.entities.length; i++) {
      const item = input.entities[i] as CreateItem;
      let e: Entity;
      try {
        e = buildEntity(cctx, item);
        if (item.xdata) e.xdata = xdataGroups(tx, item.xdata as Record<string, { code: number; value: unknown }[]>);
      } catch (err) {
        if (err instanceof OpError) throw new OpError(err.code, `entities[${i}]: ${err.message}`, { index: i, ...(err.details as object ?? {}) });
        throw err;
      }
      handles[i] = tx.addEntity(e, blockName).handle;
    }
    if (input.select) store.selection = [...handles];
    return { handles, count: handles.length };
  },
});

export function createContext(tx: Transaction, createLayers: boolean): CreateContext {
  return {
    doc: tx.doc,
    createLayers,
    seenLayers: new Map(),
    addLayer: (name) => { tx.addTableEntry('LAYER', name, { color: 7, linetype: 'Continuous' }); },
  };
}

export function layoutBlock(doc: DocumentApi, name: string): string {
  if (name.toLowerCase() === 'model') return doc.modelSpace().name;
  const l = doc.layouts().find((x) => x.name.toLowerCase() === name.toLowerCase());
  if (!l) throw new OpError('unknown_layout', `no layout named ${name}`, { layout: name });
  return l.block.name;
}

// ---- list / get -------------------------------------------------------------------------------

const listInput = z.object({
  type: z.union([z.string(), z.array(z.string())]).optional().describe('entity type (Line, LINE, ...)'),
  layer: z.union([z.string(), z.array(z.string())]).optional(),
  detail: z.enum(['summary', 'geometry', 'full']).optional().describe('summary (default): handle, type, layer; geometry: + attributes, bounds; full: all'),
  offset: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).optional().describe(`(the page size; default ${LIMITS.defaultLimit}, larger values are clamped to ${LIMITS.maxLimit})`),
  fields: z.array(z.string()).optional(),
  handles: z.array(z.string()).optional(),
  bounds: z.array(z.number()).optional().describe('[x1, y1, x2, y2] (entities whose box meets it; exactly four numbers, else ignored)'),
  bounds_mode: z.enum(['intersects', 'inside']).optional(),
  near: z.array(z.number()).optional().describe('[x, y, radius?] (entities within radius, default 0, nearest first, with distance)'),
  contains_point: z.array(z.number()).optional().describe('closed entities containing [x, y]'),
  intersections: z.array(z.string()).optional().describe('entities crossing any of these handles (with the points)'),
  where: z.unknown().optional().describe('JSON array of {path, op, value}; ops eq ne gt gte lt lte in contains startsWith exists'),
  layout: z.string().optional().describe('(the layout to query; default Model)'),
});

function listFromHttp({ query }: { query: Record<string, string> }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (query.where !== undefined && query.where !== '') out.where = parseWhere(query.where);
  for (const k of ['type', 'layer', 'detail', 'offset', 'limit', 'bounds_mode', 'layout']) if (query[k] !== undefined && query[k] !== '') out[k] = query[k];
  if (query.fields !== undefined) out.fields = q.list(query.fields);
  if (query.handles !== undefined) out.handles = q.list(query.handles);
  if (query.intersections !== undefined) out.intersections = q.list(query.intersections);
  if (query.bounds !== undefined) {
    const parts = q.list(query.bounds).map(Number);
    if (parts.length === 4 && parts.every(Number.isFinite)) out.bounds = parts;
  }
  if (query.near !== undefined) out.near = q.numbers(query.near);
  if (query.contains_point !== undefined) out.contains_point = q.numbers(query.contains_point);
  return out;
}

/**
 * The HTTP body of a listing: `{count, entities}` at the top level as the spec shows; `result` keeps
 * the paging fields but not the entities, which would otherwise travel twice.
 */
function hoist(res: import('../protocol.js').ProtocolResponse): Record<string, unknown> {
  if (!res.ok) return { ...res };
  const { entities, ...paging } = res.result as Record<string, unknown>;
  return { ...res, ...paging, entities, result: paging };
}

export const entitiesList = defineOp({
  name: 'entities_list',
  summary: 'Lists entities with filters (type, layer, handles, bounds, near, contains_point, intersections, where) and paging.',
  input: listInput,
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ count: z.number().int(), total: z.number().int(), offset: z.number().int(), limit: z.number().int(), next_offset: z.number().int().nullable(), entities: z.array(entityOut) }),
  mcpGroup: 'query',
  http: [{ method: 'GET', path: '/entities', status: 200, wrapper: false, fromHttp: listFromHttp, toHttp: hoist }],
  errors: ['invalid_where', 'entity_absent', 'unknown_layout', 'budget_exceeded'],
  handler: (ctx, input) => {
    const where = input.where === undefined || input.where === null ? [] : parseWhere(input.where);
    const bounds = input.bounds && input.bounds.length === 4 ? input.bounds : undefined;
    return queryEntities(ctx.store!, { ...input, bounds, where });
  },
});

export const entityGet = defineOp({
  name: 'entity_get',
  summary: 'One entity by handle with detail full (same shape as the list).',
  input: z.object({ handle: z.string().min(1), detail: z.enum(['summary', 'geometry', 'full']).optional(), fields: z.array(z.string()).optional() }),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ count: z.literal(1), entities: z.array(entityOut).length(1) }),
  mcpGroup: 'query',
  http: [{
    method: 'GET', path: '/entities/{handle}', status: 200, wrapper: false, toHttp: hoist,
    fromHttp: ({ params, query }) => ({ handle: params.handle, ...(query.detail ? { detail: query.detail } : {}), ...(query.fields ? { fields: q.list(query.fields) } : {}) }),
  }],
  errors: ['entity_absent'],
  handler: (ctx, input) => {
    const s = ctx.store!;
    const e = entityOrThrow(s.doc, input.handle);
    const box = s.index.box(e.handle);
    const bounds = box ? { min: [box.minX, box.minY], max: [box.maxX, box.maxY] } : safeBox(e, s.doc);
    const j = entityJson(e, input.detail ?? 'full', { fields: input.fields ?? null, bounds });
    return { count: 1, entities: [j] };
  },
});

// ---- delete ----------------------------------------------------------------------------------

export function eraseEntities(tx: Transaction, store: DocStore, handles: string[]): number {
  const list = [...new Set(entitiesOrThrow(tx.doc, handles))];
  const gone = new Set(tx.removeEntities(list).map((e) => e.handle));
  const n = gone.size;
  if (gone.size) {
    store.selection = store.selection.filter((h) => !gone.has(h));
    // Erased entities leave their groups (as AutoCAD does).
    const gd = namedDictionary(tx.doc, 'ACAD_GROUP');
    if (gd) for (const g of groups(tx.doc)) {
      if (!g.handles.some((h) => gone.has(h))) continue;
      const rec = tx.doc.get(g.handle);
      if (rec) setGroupHandles(tx.touch(rec), groupHandles(rec).filter((h) => !gone.has(h)));
    }
  }
  return n;
}

export const entitiesDelete = defineOp({
  name: 'entities_delete',
  summary: 'Erases entities by handle (one undo step).',
  input: z.object({ handles: z.array(z.string()).min(1) }),
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  needsDocument: true,
  output: z.object({ deleted: z.number().int(), handles: handlesOut }),
  mcpGroup: 'entities',
  example: { handles: ['2F', '30'] },
  http: [{
    method: 'DELETE', path: '/entities', status: 200, wrapper: true,
    fromHttp: ({ query, body }) => (query.handles !== undefined ? { handles: q.list(query.handles) } : { handles: q.body(body).handles }),
  }],
  errors: ['entity_absent'],
  handler: (ctx, input) => ({ deleted: eraseEntities(ctx.tx!, ctx.store!, input.handles), handles: input.handles }),
});

// ---- transform -------------------------------------------------------------------------------

/** Applies a transform to an entity in place (or replaces it when its type changes). */
export function transformInPlace(tx: Transaction, e: Entity, t: Transform2D): Entity {
  tx.touch(e);
  const out = dxf.transform(e, t, tx.doc);
  if (out && out !== e) {
    const block = blockOfEntity(tx.doc, e)!;
    const index = entityIndex(block, e);
    const handle = e.handle;
    tx.removeEntity(handle);
    out.handle = handle;
    const added = tx.addEntity(out, block.name);
    const list = block.entities;
    const at = list.indexOf(added);
    if (at >= 0 && index >= 0 && at !== index) { list.splice(at, 1); list.splice(index, 0, added); }
    return added;
  }
  return e;
}

/** A copy of an entity without handles (children and SEQEND too). */
export function copyOf(e: Entity): Entity {
  const c = deepClone(e);
  c.handle = '';
  c.owner = '';
  for (const ch of c.children ?? []) { ch.handle = ''; ch.owner = ''; }
  if (c.seqend) { c.seqend.handle = ''; c.seqend.owner = ''; }
  // Reactors and extension dictionaries belong to the original.
  if (c.appData) c.appData = c.appData.filter((g) => g.name !== 'ACAD_REACTORS' && g.name !== 'ACAD_XDICTIONARY');
  return c;
}

export function transformFields(input: { action: string; vector?: number[]; base?: number[]; angle?: number; factor?: number; start?: number[]; end?: number[] }): Transform2D {
  const bad = (m: string) => new OpError('invalid_transform', `${input.action}: ${m}`);
  switch (input.action) {
    case 'move':
    case 'copy':
      if (!input.vector) throw bad('field `vector` [dx, dy] is required');
      return { kind: 'move', vector: input.vector };
    case 'rotate':
      if (input.angle === undefined) throw bad('field `angle` (degrees) is required');
      return { kind: 'rotate', base: input.base ?? [0, 0], angle: input.angle };
    case 'scale':
      if (input.factor === undefined) throw bad('field `factor` is required');
      if (!(input.factor > 0)) throw bad('`factor` must be greater than 0');
      return { kind: 'scale', base: input.base ?? [0, 0], factor: input.factor };
    case 'mirror': {
      if (!input.start || !input.end) throw bad('fields `start` and `end` (the mirror line) are required');
      if (input.start[0] === input.end[0] && input.start[1] === input.end[1]) throw bad('`start` and `end` must differ');
      return { kind: 'mirror', start: input.start, end: input.end };
    }
  }
  throw bad('unknown action');
}

export const entitiesTransform = defineOp({
  name: 'entities_transform',
  summary: 'Transforms entities: move (vector), copy (vector), rotate (base, angle in degrees), scale (base, factor), mirror (start, end).',
  input: z.object({
    handles: z.array(z.string()).min(1),
    action: z.enum(['move', 'copy', 'rotate', 'scale', 'mirror']),
    vector: point.optional(),
    base: point.optional().describe('rotate/scale base point (default 0,0)'),
    angle: z.number().optional().describe('degrees, counter-clockwise'),
    factor: z.number().optional(),
    start: point.optional(),
    end: point.optional(),
    copy: z.boolean().optional().describe('rotate/scale/mirror a copy (keeping the originals)'),
  }),
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  needsDocument: true,
  output: z.object({ action: z.string(), count: z.number().int(), handles: handlesOut, copies: handlesOut.optional().describe('with copy: the new copies') }),
  mcpGroup: 'modify',
  example: { handles: ['2F'], action: 'move', vector: [10, 0] },
  http: [{ method: 'POST', path: '/entities/transform', status: 200, wrapper: true }],
  errors: ['entity_absent', 'invalid_transform', 'budget_exceeded'],
  handler: (ctx, input) => {
    const tx = ctx.tx!;
    const t = transformFields(input);
    const list = entitiesOrThrow(tx.doc, input.handles);
    const copying = input.action === 'copy' || input.copy === true;
    const out: string[] = [];
    for (const e of list) {
      if (copying) {
        const block = blockOfEntity(tx.doc, e)!;
        const c = tx.addEntity(copyOf(e), block.name);
        out.push(transformInPlace(tx, c, t).handle);
      } else {
        out.push(transformInPlace(tx, e, t).handle);
      }
    }
    return { action: input.action, count: out.length, handles: out, ...(copying ? { copies: out } : {}) };
  },
});

// ---- copy to another document ------------------------------------------------------------------

export const entitiesCopyTo = defineOp({
  name: 'entities_copy_to',
  summary: 'Copies entities into document_id with what they depend on (from the active document or source_document_id; blocks, layers, linetypes, styles, APPIDs, image definitions ...); what the target already has keeps the target\'s definition, anonymous blocks get new names. `result.dependencies` lists what was brought, `result.kept_from_target` what the target kept.',
  input: z.object({
    handles: z.array(z.string()).min(1),
    document_id: z.number().int().describe('target document'),
    source_document_id: z.number().int().optional().describe('default: the active document'),
    layout: z.string().optional().describe('layout of the target to copy into (default: model space, or the layout of the same name for entities of a paper-space layout)'),
  }),
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  tx: 'none',
  addressing: 'active',
  needsDocument: true,
  output: z.object({ count: z.number().int(), handles: handlesOut.describe('handles of the copies in the target document'), document_id: z.number().int(), source_document_id: z.number().int() }),
  mcpGroup: 'modify',
  http: [{ method: 'POST', path: '/entities/copy-to', status: 201, wrapper: false }],
  errors: ['entity_absent', 'unknown_document', 'document_closed', 'unknown_layout'],
  handler: async (ctx, input) => {
    const engine = ctx.engine;
    const source = input.source_document_id !== undefined ? docById(ctx, input.source_document_id) : ctx.store!;
    const target = docById(ctx, input.document_id);
    const list = entitiesOrThrow(source.doc, input.handles);
    const into = input.layout !== undefined ? layoutBlock(target.doc, input.layout) : undefined;
    const r = await engine.withTransaction(target, 'entities_copy_to', ctx.requestId, (tx) => copyEntities(source.doc, list, tx, { into }));
    return new Reply({
      count: r.handles.length, handles: r.handles, document_id: target.id, source_document_id: source.id,
      dependencies: r.dependencies, kept_from_target: r.kept_from_target, renamed_blocks: r.renamed_blocks, undefined_in_source: r.undefined_in_source,
      ...(r.converted ? { converted: r.converted, dropped: r.dropped } : {}),
    }, { document_id: engine.activeId ?? undefined });
  },
});

function docById(ctx: OpContext, id: number): DocStore {
  const s = ctx.engine.documents.get(id);
  if (s) return s;
  if (ctx.engine.closedIds.has(id)) throw new OpError('document_closed', `document ${id} was closed`);
  throw new OpError('unknown_document', `no document ${id} is open`);
}

// ---- properties ------------------------------------------------------------------------------

const ALIASES: Record<string, Record<string, string>> = {
  TEXT: { value: 'text', position: 'insert' }, MTEXT: { value: 'text', position: 'insert', height: 'char_height' },
  ATTRIB: { value: 'text', position: 'insert' }, ATTDEF: { value: 'text', position: 'insert' },
  INSERT: { position: 'insert', block: 'name' }, POINT: { position: 'location' },
};

export function attrName(type: string, name: string): string {
  return ALIASES[type]?.[name] ?? name;
}

/** Checks a value against the attribute's declared kind; returns the value to store. */
export function checkAttr(doc: DocumentApi, e: Entity, name: string, value: unknown): unknown {
  const bad = (why: string) => new OpError('invalid_property', `${name} of ${e.type} ${e.handle}: ${why}`, { handle: e.handle, name, value });
  switch (name) {
    case 'layer': {
      if (typeof value !== 'string' || !value) throw bad('expected a layer name');
      const l = findEntry(doc, 'LAYER', value);
      if (!l) throw new OpError('unknown_layer', `layer ${value} does not exist`, { layer: value });
      return String(l.attrs.name ?? value);
    }
    case 'color': {
      if (typeof value === 'string') {
        const m: Record<string, number> = { bylayer: 256, byblock: 0, red: 1, yellow: 2, green: 3, cyan: 4, blue: 5, magenta: 6, white: 7 };
        const v = m[value.toLowerCase()];
        if (v === undefined) throw bad('expected ACI 0-257, BYLAYER, BYBLOCK or a colour name');
        return v;
      }
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 257) throw bad('expected an integer 0-257');
      return value;
    }
    case 'linetype': {
      if (typeof value !== 'string' || !value) throw bad('expected a linetype name');
      const u = value.toUpperCase();
      if (u === 'BYLAYER' || u === 'BYBLOCK') return u;
      const lt = findEntry(doc, 'LTYPE', value);
      if (!lt) throw new OpError('unknown_linetype', `linetype ${value} does not exist`, { linetype: value });
      return String(lt.attrs.name ?? value);
    }
    case 'lineweight':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < -3 || value > 211) throw bad('expected an integer -3..211');
      return value;
    case 'ltscale':
      if (typeof value !== 'number' || !(value > 0)) throw bad('expected a number > 0');
      return value;
    case 'style': {
      if (typeof value !== 'string' || !value) throw bad('expected a text style name');
      const st = findEntry(doc, 'STYLE', value);
      if (!st) throw new OpError('unknown_style', `text style ${value} does not exist`, { style: value });
      return String(st.attrs.name ?? value);
    }
  }
  let kind = attrDefs(e.type).get(name)?.kind;
  if (!kind && !COMMON_ATTRS.has(name)) {
    if (!(name in e.attrs)) throw new OpError('unknown_property', `${e.type} has no attribute ${name}`, { handle: e.handle, name });
    // Undeclared type: the value it holds gives the kind.
    const cur = e.attrs[name];
    kind = typeof cur === 'number' ? (Number.isInteger(cur) && name !== 'radius' ? 'int' : 'float') : typeof cur === 'string' ? 'str'
      : typeof cur === 'boolean' ? 'bool' : Array.isArray(cur) && cur.length === 3 && cur.every((x) => typeof x === 'number') ? 'point3' : undefined;
    if (kind === 'int' && typeof value === 'number' && !Number.isInteger(value)) kind = 'float';
  }
  switch (kind) {
    case 'float':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw bad('expected a number');
      if ((name === 'radius' || name === 'height' || name === 'char_height') && !(value > 0)) throw bad('must be greater than 0');
      return value;
    case 'int':
      if (typeof value === 'boolean') return value ? 1 : 0;
      if (typeof value !== 'number' || !Number.isInteger(value)) throw bad('expected an integer');
      return value;
    case 'bool':
      if (typeof value === 'boolean') return value;
      if (value === 0 || value === 1) return value === 1;
      throw bad('expected a boolean');
    case 'str':
      if (typeof value !== 'string') throw bad('expected a string');
      return value;
    case 'handle':
      if (typeof value !== 'string' || !/^[0-9A-Fa-f]+$/.test(value)) throw bad('expected a hex handle');
      return value.toUpperCase();
    case 'point2':
      if (!Array.isArray(value) || value.length !== 2 || !value.every((x) => typeof x === 'number' && Number.isFinite(x))) throw bad('expected [x, y]');
      return value;
    case 'point3':
    case 'vec3':
      if (!Array.isArray(value) || value.length < 2 || value.length > 3 || !value.every((x) => typeof x === 'number' && Number.isFinite(x))) throw bad('expected [x, y] or [x, y, z]');
      return to3(value as number[]);
    default:
      return value;
  }
}

export const setProperties = defineOp({
  name: 'set_properties',
  summary: 'Sets properties of entities: layer, color, linetype, lineweight, ltscale, and type attributes by name (type-checked).',
  input: z.object({
    handles: z.array(z.string()).min(1),
    properties: z.record(z.string(), z.unknown()).optional().describe('name -> value'),
    layer: z.string().optional(),
    color: z.union([z.number(), z.string()]).optional(),
    linetype: z.string().optional(),
    lineweight: z.number().optional(),
    ltscale: z.number().optional(),
    each: z.record(z.string(), z.record(z.string(), z.unknown())).optional()
      .describe('handle -> properties of that entity alone, in the same undo step (a Start X typed for lines whose Start Y differ)'),
  }),
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  needsDocument: true,
  output: z.object({ count: z.number().int(), handles: handlesOut, properties: z.array(z.string()) }),
  mcpGroup: 'entities',
  example: { handles: ['2F'], layer: 'doors', color: 3 },
  http: [],
  errors: ['entity_absent', 'unknown_property', 'invalid_property', 'unknown_layer', 'unknown_linetype', 'unknown_style', 'budget_exceeded'],
  handler: (ctx, input) => {
    const tx = ctx.tx!;
    const props: Record<string, unknown> = { ...(input.properties ?? {}) };
    for (const k of ['layer', 'color', 'linetype', 'lineweight', 'ltscale'] as const) if (input[k] !== undefined) props[k] = input[k];
    const each = input.each ?? {};
    const eachNames = new Set(Object.values(each).flatMap((p) => Object.keys(p)));
    if (!Object.keys(props).length && !eachNames.size) throw new OpError('invalid_request', 'set_properties: field `properties`: give at least one property');
    const stray = Object.keys(each).filter((h) => !input.handles.some((x) => x.toUpperCase() === h.toUpperCase()));
    if (stray.length) throw new OpError('invalid_request', `set_properties: field \`each\`: ${stray.join(', ')} not among \`handles\``);
    const list = entitiesOrThrow(tx.doc, input.handles);
    const eachOf = (h: string): Record<string, unknown> => each[h] ?? Object.entries(each).find(([k]) => k.toUpperCase() === h)?.[1] ?? {};
    // every value checked before any is written: a refused one leaves all entities as they were
    const planned = list.map((e) => ({
      e,
      vals: Object.entries({ ...props, ...eachOf(e.handle) }).map(([k, v]): [string, unknown] => {
        const name = attrName(e.type, k);
        return [name, checkAttr(tx.doc, e, name, v)];
      }),
    }));
    for (const { e, vals } of planned) {
      tx.touch(e);
      for (const [k, v] of vals) {
        if (k === 'color' && e.attrs.true_color !== undefined) delete e.attrs.true_color;
        e.attrs[k] = v;
      }
    }
    return { count: list.length, handles: list.map((e) => e.handle), properties: [...new Set([...Object.keys(props), ...eachNames])] };
  },
});

export const property = defineOp({
  name: 'property',
  summary: 'Reads one attribute of an entity (by name or JSON pointer into its full record).',
  input: z.object({ handle: z.string().min(1), name: z.string().min(1) }),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ handle: z.string(), type: z.string(), name: z.string(), value: z.unknown() }),
  mcpGroup: 'query',
  http: [],
  errors: ['entity_absent', 'unknown_property'],
  handler: (ctx, input) => {
    const e = entityOrThrow(ctx.store!.doc, input.handle);
    const full = entityJson(e, 'full');
    let v: unknown;
    if (input.name.startsWith('/')) {
      v = full;
      for (const s of input.name.slice(1).split('/').map((x) => x.replace(/~1/g, '/').replace(/~0/g, '~'))) {
        v = v && typeof v === 'object' ? (v as Record<string, unknown>)[s] : undefined;
      }
    } else {
      const name = attrName(e.type, input.name);
      v = input.name in full ? full[input.name] : attrValue(e, name);
    }
    if (v === undefined) throw new OpError('unknown_property', `${e.type} ${e.handle} has no property ${input.name}`, { handle: e.handle, name: input.name });
    return { handle: e.handle, type: full.type, name: input.name, value: v };
  },
});

// ---- view ------------------------------------------------------------------------------------

export const viewFocus = defineOp({
  name: 'view_focus',
  summary: 'Sets the view to entities (handles), a box (bounds) or the drawing extents; the graphical mode follows it.',
  input: z.object({
    handles: z.array(z.string()).optional(),
    bounds: z.array(z.number()).length(4).optional(),
    margin: z.number().min(0).max(10).optional().describe('extra space around, as a fraction of the size (default 0.05)'),
  }),
  mutates: false,
  effect: 'change',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.looseObject({ center: pointOut, width: z.number(), height: z.number(), bounds: boxOut }),
  mcpGroup: 'session',
  http: [],
  errors: ['entity_absent'],
  handler: (ctx, input) => {
    const s = ctx.store!;
    let box: number[] | null = null;
    const grow = (b: { min: number[]; max: number[] } | null) => {
      if (!b) return;
      box = box ? [Math.min(box[0]!, b.min[0]!), Math.min(box[1]!, b.min[1]!), Math.max(box[2]!, b.max[0]!), Math.max(box[3]!, b.max[1]!)] : [b.min[0]!, b.min[1]!, b.max[0]!, b.max[1]!];
    };
    if (input.handles?.length) for (const e of entitiesOrThrow(s.doc, input.handles)) grow(safeBox(e, s.doc));
    else if (input.bounds) grow({ min: [Math.min(input.bounds[0]!, input.bounds[2]!), Math.min(input.bounds[1]!, input.bounds[3]!)], max: [Math.max(input.bounds[0]!, input.bounds[2]!), Math.max(input.bounds[1]!, input.bounds[3]!)] });
    else grow(s.index.extents());
    return focusView(ctx, s, box, input.margin ?? 0.05);
  },
});

/** Sets the document's view to a box with a margin (fraction of its size) and tells the screens. */
export function focusView(ctx: OpContext, s: DocStore, box: number[] | null, margin: number) {
  const b = box ?? [0, 0, 100, 100];
  const w = Math.max(b[2]! - b[0]!, 1e-9), h = Math.max(b[3]! - b[1]!, 1e-9);
  const view = { center: [(b[0]! + b[2]!) / 2, (b[1]! + b[3]!) / 2] as [number, number], width: w * (1 + 2 * margin), height: h * (1 + 2 * margin) };
  s.view = view;
  ctx.engine.emit('view_changed', s, { view });
  return { ...view, bounds: { min: [b[0], b[1]], max: [b[2], b[3]] } };
}

// ---- selection -------------------------------------------------------------------------------

export function selectionEntry(s: DocStore, h: string) {
  const e = s.doc.get(h) as Entity | undefined;
  if (!e) return null;
  const box = s.index.box(h);
  const b = box ? { min: [box.minX, box.minY], max: [box.maxX, box.maxY] } : safeBox(e, s.doc);
  const text = textOf(e);
  return { handle: e.handle, type: entityJson(e, 'summary').type, layer: e.attrs.layer ?? '0', text, value: text, bounds: b ? boundsJson(b) : null };
}

export const getSelection = defineOp({
  name: 'get_selection',
  summary: 'The current selection, passively, in selection order: {count, entities[]} with handle, type, text, value, bounds.',
  input: z.object({}),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ count: z.number().int(), entities: z.array(selectedEntityOut) }),
  mcpGroup: 'session',
  http: [],
  handler: (ctx) => {
    const s = ctx.store!;
    const entities = s.selection.map((h) => selectionEntry(s, h)).filter((x) => x !== null);
    return { count: entities.length, entities };
  },
});

export const select = defineOp({
  name: 'select',
  summary: 'Sets the current selection (replace, add, remove or clear) from handles, a pick at a point, or a window / crossing box, as a CAD user selects on screen.',
  input: z.object({
    handles: z.array(z.string()).optional(),
    mode: z.enum(['replace', 'add', 'remove', 'clear']).optional(),
    pick: point.optional().describe('the visible entity nearest this point within `aperture`'),
    ...PICK_FIELDS,
  }),
  mutates: false,
  effect: 'change',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ count: z.number().int(), handles: handlesOut, picked: handlesOut }),
  mcpGroup: 'session',
  http: [],
  errors: ['entity_absent'],
  handler: (ctx, input) => {
    const s = ctx.store!;
    const mode = input.mode ?? 'replace';
    let hs: string[];
    if (mode === 'clear') hs = [];
    else if (input.pick) {
      const e = pickAt(s, input.pick as number[], input.aperture ?? 0, input.layout);
      hs = e ? [e.handle] : [];
    } else if (input.window) hs = entitiesInBox(s, input.window, input.crossing ?? false, input.layout).map((e) => e.handle);
    else hs = entitiesOrThrow(s.doc, input.handles ?? []).map((e) => e.handle);
    setSelection(ctx, s, mode, hs);
    return { count: s.selection.length, handles: s.selection, picked: hs };
  },
});

export function setSelection(ctx: OpContext, s: DocStore, mode: 'replace' | 'add' | 'remove' | 'clear', hs: string[]): void {
  if (mode === 'replace' || mode === 'clear') s.selection = [...new Set(hs)];
  else if (mode === 'add') s.selection = [...new Set([...s.selection, ...hs])];
  else { const rm = new Set(hs); s.selection = s.selection.filter((h) => !rm.has(h)); }
  ctx.engine.emit('selection_changed', s, { count: s.selection.length });
}

export const selectionSetCreate = defineOp({
  name: 'selection_set_create',
  summary: 'Stores a named selection set (name, handles) for the session.',
  input: z.object({ name: z.string().min(1), handles: z.array(z.string()) }),
  mutates: false,
  effect: 'change',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ name: z.string(), count: z.number().int(), handles: handlesOut }),
  mcpGroup: 'session',
  http: [{ method: 'POST', path: '/selection-sets', status: 201, wrapper: true }],
  errors: ['entity_absent'],
  handler: (ctx, input) => {
    const s = ctx.store!;
    const hs = entitiesOrThrow(s.doc, input.handles).map((e) => e.handle);
    s.selectionSets.set(input.name, hs);
    return { name: input.name, count: hs.length, handles: hs };
  },
});

export const selectionSetRecall = defineOp({
  name: 'selection_set_recall',
  summary: 'A named selection set\'s handles (erased ones dropped); `select` makes it the current selection.',
  input: z.object({ name: z.string().min(1), select: z.boolean().optional() }),
  mutates: false,
  effect: 'change',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ name: z.string(), handles: handlesOut, count: z.number().int(), selected: z.number().int() }),
  mcpGroup: 'session',
  http: [{
    method: 'GET', path: '/selection-sets/{name}', status: 200, wrapper: false,
    fromHttp: ({ params, query }) => ({ name: params.name, select: q.bool(query.select) }),
  }],
  errors: ['unknown_selection_set'],
  handler: (ctx, input) => {
    const s = ctx.store!;
    const set = s.selectionSets.get(input.name);
    if (!set) throw new OpError('unknown_selection_set', `no selection set named ${input.name}`, { name: input.name });
    const live = set.filter((h) => { const r = s.doc.get(h) as Entity | undefined; return !!r && r.kind === 'entity' && !!blockOfEntity(s.doc, r); });
    if (input.select) setSelection(ctx, s, 'replace', live);
    return { name: input.name, handles: live, count: live.length, selected: input.select ? live.length : 0 };
  },
});

export const groupCreate = defineOp({
  name: 'group_create',
  summary: 'Creates a named group (GROUP object in ACAD_GROUP) of entities.',
  input: z.object({ name: z.string().min(1).max(255), handles: z.array(z.string()).min(1), description: z.string().optional(), selectable: z.boolean().optional() }),
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  needsDocument: true,
  output: z.object({ name: z.string(), handle: z.string(), count: z.number().int(), handles: handlesOut }),
  mcpGroup: 'entities',
  http: [{ method: 'POST', path: '/groups', status: 201, wrapper: true }],
  errors: ['entity_absent', 'group_exists'],
  handler: (ctx, input) => {
    const tx = ctx.tx!;
    const list = entitiesOrThrow(tx.doc, input.handles);
    const dict = groupDictionary(tx);
    if (!dict) throw new OpError('read_only', 'the drawing has no root dictionary to hold groups');
    const name = input.name.trim();
    if (/[<>/\\":;?*|,=`]/.test(name) || !name) throw new OpError('invalid_request', `name: ${JSON.stringify(input.name)} is not a valid group name`);
    if ([...dictEntries(dict).keys()].some((k) => k.toLowerCase() === name.toLowerCase())) throw new OpError('group_exists', `a group named ${name} exists`, { name });
    const g = tx.addObject(newGroup(dict.handle, input.description ?? '', list.map((e) => e.handle), input.selectable ?? true));
    tx.touch(dict);
    setDictEntry(dict, name, g.handle, true);
    return { name, handle: g.handle, count: list.length, handles: list.map((e) => e.handle) };
  },
});

export const ENTITY_OPS = [
  entitiesCreate, entitiesList, entityGet, entitiesDelete, entitiesTransform, entitiesCopyTo, setProperties, property,
  viewFocus, getSelection, select, selectionSetCreate, selectionSetRecall, groupCreate,
];

// ---- xdata -----------------------------------------------------------------------------------

/** Xdata items -> tags; registers the APPIDs that do not exist. */
export function xdataGroups(tx: Transaction, data: Record<string, { code: number; value: unknown }[]>) {
  return Object.entries(data).map(([app, items]) => ({ app: registerApp(tx, app), tags: xdataTags(items) }));
}

export function registerApp(tx: Transaction, app: string): string {
  if (!app || app.length > 255 || /[<>/\\":;?*|,=`\s]/.test(app)) throw new OpError('unknown_app', `${JSON.stringify(app)} is not a valid application name`);
  const e = findEntry(tx.doc, 'APPID', app);
  if (e) return String(e.attrs.name ?? app);
  tx.addTableEntry('APPID', app, { flags: 0 });
  return app;
}

export function xdataTags(items: { code: number; value: unknown }[]): [number, string][] {
  const tags: [number, string][] = [];
  items.forEach((it, i) => {
    const bad = (why: string) => new OpError('invalid_xdata', `xdata item ${i} (code ${it.code}): ${why}`, { index: i });
    const c = it.code, v = it.value;
    if (c === 1000 || c === 1003) {
      if (typeof v !== 'string') throw bad('expected a string');
      if (v.length > 255) throw bad('strings hold at most 255 characters');
      tags.push([c, v]);
    } else if (c === 1002) {
      if (v !== '{' && v !== '}') throw bad('control string is "{" or "}"');
      tags.push([c, v]);
    } else if (c === 1004) {
      if (typeof v !== 'string' || !/^([0-9A-Fa-f]{2})*$/.test(v)) throw bad('expected hex bytes');
      tags.push([c, v.toUpperCase()]);
    } else if (c === 1005) {
      if (typeof v !== 'string' || !/^[0-9A-Fa-f]+$/.test(v)) throw bad('expected a hex handle');
      tags.push([c, v.toUpperCase()]);
    } else if (c >= 1010 && c <= 1013) {
      if (!Array.isArray(v) || v.length < 2 || v.length > 3 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) throw bad('expected [x, y] or [x, y, z]');
      tags.push([c, String(v[0])], [c + 10, String(v[1])], [c + 20, String(v[2] ?? 0)]);
    } else if (c >= 1040 && c <= 1042) {
      if (typeof v !== 'number' || !Number.isFinite(v)) throw bad('expected a number');
      tags.push([c, String(v)]);
    } else if (c === 1070) {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < -32768 || v > 32767) throw bad('expected a 16-bit integer');
      tags.push([c, String(v)]);
    } else if (c === 1071) {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < -2147483648 || v > 2147483647) throw bad('expected a 32-bit integer');
      tags.push([c, String(v)]);
    } else {
      throw bad('not an xdata group code (1000, 1002-1005, 1010-1013, 1040-1042, 1070, 1071)');
    }
  });
  return tags;
}
