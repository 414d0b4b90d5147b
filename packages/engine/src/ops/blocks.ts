// Block definitions: define, delete, rename, purge. Delete, rename and purge share ONE validation
// (checkBlockChange) and one error shape, used by the ops and by the command line (PURGE, -RENAME).
import { z } from 'zod';
import { OpError } from '../protocol.js';
import type { Block, DocumentApi, Entity } from '../dxf.js';
import type { DocStore, Transaction } from '../store/document-store.js';
import { blockOfEntity, entitiesOrThrow, findEntry, isLayoutBlock, tableEntries } from '../model.js';
import { dictEntries } from '../store/objects.js';
import { point, to3 } from '../entities/create.js';
import { copyOf, eraseEntities } from './entities.js';
import { defineOp, q } from './types.js';
import { handlesOut, pointOut } from './output-parts.js';

export type BlockAction = 'delete' | 'rename' | 'purge' | 'redefine';

/** Why a block cannot be deleted or renamed, or null. */
export function blockProtection(doc: DocumentApi, store: DocStore | null, b: Block): string | null {
  const name = b.name;
  const flags = Number(b.block.attrs.flags ?? 0);
  if (isLayoutBlock(doc, name)) return 'it is a layout block';
  if (flags & (4 | 8 | 16 | 32) || name.includes('|')) return 'it is an external reference (xref) or depends on one';
  if (name.startsWith('*') || flags & 1) return 'it is an anonymous block';
  if (isDynamic(doc, b)) return 'it is a dynamic block';
  if (store && [...store.blocksInEditor].some((n) => n.toLowerCase() === name.toLowerCase())) return 'it is open in the block editor';
  return null;
}

function isDynamic(doc: DocumentApi, b: Block): boolean {
  const rec = doc.getTableEntry('BLOCK_RECORD', b.name);
  const apps = [...(rec?.xdata ?? []), ...(b.block.xdata ?? [])].map((x) => x.app);
  if (apps.some((a) => /^AcDbDynamicBlock|^AcDbBlockRep/i.test(a))) return true;
  const xd = rec?.appData?.find((g) => g.name === 'ACAD_XDICTIONARY');
  const h = xd?.tags.find((t) => t[0] === 360)?.[1];
  if (h) {
    const d = doc.get(h);
    if (d && [...dictEntries(d).keys()].includes('ACAD_ENHANCEDBLOCK')) return true;
  }
  return false;
}

/** Every INSERT (in any space or block definition) of a block. */
export function blockReferences(doc: DocumentApi, name: string): Entity[] {
  const lower = name.toLowerCase();
  const out: Entity[] = [];
  for (const b of doc.blocks.values()) {
    for (const e of b.entities) if (e.type === 'INSERT' && String(e.attrs.name ?? '').toLowerCase() === lower) out.push(e);
  }
  return out;
}

/** The one validation of delete, rename and purge (ops, command line, GUI). */
export function checkBlockChange(doc: DocumentApi, store: DocStore | null, name: string, action: BlockAction, force = false): { block: Block; references: Entity[] } {
  const block = doc.getBlock(name) ?? [...doc.blocks.values()].find((b) => b.name.toLowerCase() === name.toLowerCase());
  if (!block) throw blockError('unknown_block', action, name, 'no such block definition');
  const why = blockProtection(doc, store, block);
  if (why) throw blockError('block_protected', action, block.name, why);
  const references = blockReferences(doc, block.name);
  if (references.length && (action === 'purge' || (action === 'delete' && !force))) {
    throw blockError('block_referenced', action, block.name, `${references.length} insert${references.length > 1 ? 's reference' : ' references'} it${action === 'delete' ? '; use force to erase them with it' : ''}`, { references: references.length, handles: references.slice(0, 100).map((e) => e.handle) });
  }
  return { block, references };
}

export function blockError(code: string, action: BlockAction, name: string, why: string, details: Record<string, unknown> = {}): OpError {
  return new OpError(code, `cannot ${action} block ${name}: ${why}`, { block: name, action, ...details });
}

export function validBlockName(name: string): boolean {
  return !!name && name.length <= 255 && !/[<>/\\":;?*|,=`]/.test(name);
}

/** Deletes a definition (erasing its inserts with force) inside tx; one undo step with the request. */
export function deleteBlock(tx: Transaction, store: DocStore, name: string, force: boolean): { name: string; references: number; erased: number } {
  const { block, references } = checkBlockChange(tx.doc, store, name, 'delete', force);
  const erased = references.length ? eraseEntities(tx, store, references.map((e) => e.handle)) : 0;
  tx.removeBlock(block.name);
  return { name: block.name, references: references.length, erased };
}

export function renameBlock(tx: Transaction, store: DocStore, name: string, newName: string): { name: string; new_name: string; references: number } {
  const { block, references } = checkBlockChange(tx.doc, store, name, 'rename');
  if (!validBlockName(newName)) throw blockError('invalid_request', 'rename', block.name, `${JSON.stringify(newName)} is not a valid block name`);
  const clash = tx.doc.getBlock(newName);
  if (clash && clash !== block) throw blockError('block_exists', 'rename', block.name, `a block named ${newName} exists`);
  const doc = tx.doc;
  const oldName = block.name;
  const rec = doc.getTableEntry('BLOCK_RECORD', oldName);
  if (rec) tx.touch(rec).attrs.name = newName;
  tx.touch(block.block).attrs.name = newName;
  if (block.block.attrs.name2 !== undefined) block.block.attrs.name2 = newName;
  for (const e of references) tx.touch(e).attrs.name = newName;
  const rekey = (from: string, to: string) => {
    const b = doc.blocks.get(from);
    if (!b) return;
    doc.blocks.delete(from);
    b.name = to;
    doc.blocks.set(to, b);
  };
  tx.custom('rename block', () => rekey(oldName, newName), () => rekey(newName, oldName));
  return { name: oldName, new_name: newName, references: references.length };
}

export const blockDefine = defineOp({
  name: 'block_define',
  summary: 'Defines a block from entities (moved into the definition, as AutoCAD\'s BLOCK) at a base point; `replace` puts an insert in their place.',
  input: z.object({
    name: z.string().min(1).max(255),
    base: point.optional().describe('base point [x, y, z] (default 0,0,0)'),
    handles: z.array(z.string()).min(1),
    replace: z.boolean().optional().describe('replace the entities by an insert of the new block at the base point (AutoCAD: Convert to block)'),
    redefine: z.boolean().optional().describe('redefine an existing block of that name (its inserts follow)'),
    description: z.string().optional(),
  }),
  mutates: true,
  effect: 'change',
  permissions: ['blocks:write'],
  needsDocument: true,
  output: z.object({ name: z.string(), count: z.number().int(), handles: handlesOut, base: pointOut, insert: z.string().nullable().describe('handle of the INSERT that replaced the entities (replace: true)'), redefined: z.boolean() }),
  mcpGroup: 'blocks',
  example: { name: 'DOOR', base: [0, 0], handles: ['2F', '30'], replace: true },
  http: [{ method: 'POST', path: '/blocks', status: 201, wrapper: true }],
  errors: ['entity_absent', 'block_exists', 'block_protected', 'invalid_block', 'budget_exceeded'],
  handler: (ctx, input) => {
    const tx = ctx.tx!;
    const store = ctx.store!;
    const doc = tx.doc;
    const name = input.name.trim();
    if (!validBlockName(name)) throw new OpError('invalid_request', `name: ${JSON.stringify(input.name)} is not a valid block name`);
    const list = entitiesOrThrow(doc, input.handles);
    const spaces = new Set<Block>();
    for (const e of list) {
      const b = blockOfEntity(doc, e)!;
      if (!isLayoutBlock(doc, b.name)) throw new OpError('invalid_block', `entity ${e.handle} is inside block ${b.name}, not in a layout`, { handle: e.handle });
      if (e.type === 'INSERT' && String(e.attrs.name ?? '').toLowerCase() === name.toLowerCase()) {
        throw new OpError('invalid_block', `entity ${e.handle} inserts ${name} itself`, { handle: e.handle });
      }
      spaces.add(b);
    }
    if (input.replace && spaces.size > 1) throw new OpError('invalid_block', 'with replace, the entities must be in one layout');
    const base = to3(input.base ?? [0, 0, 0]);
    let block = doc.getBlock(name);
    if (block) {
      if (!input.redefine) throw new OpError('block_exists', `a block named ${name} exists; send redefine: true to redefine it`, { block: name });
      checkBlockChange(doc, store, name, 'redefine');
      if (list.some((e) => e.type === 'INSERT' && nests(doc, String(e.attrs.name ?? ''), name))) {
        throw new OpError('invalid_block', `the entities insert blocks that contain ${name}`);
      }
      for (const e of [...block.entities]) tx.removeEntity(e.handle);
      tx.touch(block.block).attrs.base_point = base;
      if (input.description !== undefined) block.block.attrs.description = input.description;
    } else {
      block = tx.addBlock(name, base, input.description ? { description: input.description } : undefined);
    }
    const space = [...spaces][0]!;
    const moved: string[] = [];
    for (const e of list) {
      const removed = tx.removeEntity(e.handle);
      if (!removed) continue;
      const rec = copyOf(removed);
      rec.handle = removed.handle;
      for (let i = 0; i < (rec.children?.length ?? 0); i++) rec.children![i]!.handle = removed.children![i]!.handle;
      if (rec.seqend && removed.seqend) rec.seqend.handle = removed.seqend.handle;
      rec.attrs.paperspace = undefined;
      delete rec.attrs.paperspace;
      moved.push(tx.addEntity(rec, block.name).handle);
    }
    store.selection = store.selection.filter((h) => !moved.includes(h));
    let insert: string | null = null;
    if (input.replace) {
      insert = tx.addEntity({ kind: 'entity', type: 'INSERT', handle: '', owner: '', attrs: { layer: '0', name, insert: base } }, space.name).handle;
    }
    return { name, count: moved.length, handles: moved, base, insert, redefined: input.redefine === true && moved.length > 0 };
  },
});

function nests(doc: DocumentApi, outer: string, target: string, seen = new Set<string>()): boolean {
  if (outer.toLowerCase() === target.toLowerCase()) return true;
  if (seen.has(outer.toLowerCase())) return false;
  seen.add(outer.toLowerCase());
  const b = doc.getBlock(outer);
  return !!b?.entities.some((e) => e.type === 'INSERT' && nests(doc, String(e.attrs.name ?? ''), target, seen));
}

export const blockDelete = defineOp({
  name: 'block_delete',
  summary: 'Deletes a block definition; referenced blocks need force (their inserts are erased in the same undo step).',
  input: z.object({ name: z.string().min(1), force: z.boolean().optional() }),
  mutates: true,
  effect: 'change',
  permissions: ['blocks:write'],
  needsDocument: true,
  output: z.object({ name: z.string(), references: z.number().int(), erased: z.number().int(), deleted: z.literal(true) }),
  mcpGroup: 'blocks',
  http: [{
    method: 'DELETE', path: '/blocks/{name}', status: 200, wrapper: true,
    fromHttp: ({ params, query }) => ({ name: params.name, force: q.bool(query.force) }),
  }],
  errors: ['unknown_block', 'block_referenced', 'block_protected'],
  handler: (ctx, input) => ({ ...deleteBlock(ctx.tx!, ctx.store!, input.name, input.force ?? false), deleted: true }),
});

export const blockRename = defineOp({
  name: 'block_rename',
  summary: 'Renames a block definition and its inserts (same validation as delete and purge).',
  input: z.object({ name: z.string().min(1), new_name: z.string().min(1) }),
  mutates: true,
  effect: 'change',
  permissions: ['blocks:write'],
  needsDocument: true,
  output: z.object({ name: z.string(), new_name: z.string(), references: z.number().int() }),
  mcpGroup: 'blocks',
  http: [],
  errors: ['unknown_block', 'block_protected', 'block_exists'],
  handler: (ctx, input) => renameBlock(ctx.tx!, ctx.store!, input.name, input.new_name.trim()),
});

export const blocksList = defineOp({
  name: 'block_list',
  summary: 'Block definitions (not layouts) with base point, entity and reference counts.',
  input: z.object({}),
  mutates: false,
  effect: 'read',
  permissions: ['blocks:read'],
  needsDocument: true,
  output: z.object({ count: z.number().int(), blocks: z.array(z.looseObject({ name: z.string(), base: pointOut, entities: z.number().int(), references: z.number().int() })) }),
  mcpGroup: 'blocks',
  http: [],
  handler: (ctx) => {
    const doc = ctx.store!.doc;
    const list = [...doc.blocks.values()].filter((b) => !isLayoutBlock(doc, b.name)).map((b) => ({
      name: b.name, base: b.block.attrs.base_point ?? [0, 0, 0], entities: b.entities.length,
      references: blockReferences(doc, b.name).length, protected: blockProtection(doc, ctx.store, b),
    }));
    return { count: list.length, blocks: list };
  },
});

// ---- purge -----------------------------------------------------------------------------------

export const PURGE_KINDS = ['blocks', 'layers', 'linetypes', 'styles'] as const;
export type PurgeKind = (typeof PURGE_KINDS)[number];

function wildcard(patterns: string[] | undefined): (n: string) => boolean {
  if (!patterns?.length) return () => true;
  const res = patterns.map((p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i'));
  return (n) => res.some((r) => r.test(n));
}

/** Removes unreferenced blocks, layers, linetypes and text styles (nested blocks until none is left). */
export function purge(tx: Transaction, store: DocStore, kinds: readonly PurgeKind[], names?: string[]): Record<PurgeKind, string[]> {
  const doc = tx.doc;
  const match = wildcard(names);
  const out: Record<PurgeKind, string[]> = { blocks: [], layers: [], linetypes: [], styles: [] };
  if (kinds.includes('blocks')) {
    for (let again = true; again;) {
      again = false;
      for (const b of [...doc.blocks.values()]) {
        if (!match(b.name)) continue;
        try {
          checkBlockChange(doc, store, b.name, 'purge');
        } catch {
          continue; // protected or referenced: kept, as AutoCAD's PURGE does
        }
        tx.removeBlock(b.name);
        out.blocks.push(b.name);
        again = true;
      }
    }
  }
  const used = { layers: new Set<string>(), linetypes: new Set<string>(), styles: new Set<string>() };
  const note = (e: Entity) => {
    used.layers.add(String(e.attrs.layer ?? '0').toLowerCase());
    if (e.attrs.linetype) used.linetypes.add(String(e.attrs.linetype).toLowerCase());
    if (e.attrs.style) used.styles.add(String(e.attrs.style).toLowerCase());
    for (const c of e.children ?? []) note(c);
  };
  for (const b of doc.blocks.values()) { note(b.block); for (const e of b.entities) note(e); }
  for (const l of tableEntries(doc, 'LAYER')) if (l.attrs.linetype) used.linetypes.add(String(l.attrs.linetype).toLowerCase());
  for (const d of tableEntries(doc, 'DIMSTYLE')) for (const [k, v] of Object.entries(d.attrs)) if (/txsty|style/i.test(k) && typeof v === 'string') used.styles.add(v.toLowerCase());
  const cur = (n: string) => String(doc.getHeader(n) ?? '').toLowerCase();
  if (kinds.includes('layers')) {
    for (const l of [...tableEntries(doc, 'LAYER')]) {
      const n = String(l.attrs.name ?? '');
      const ln = n.toLowerCase();
      if (ln === '0' || ln === 'defpoints' || ln === cur('$CLAYER') || n.includes('|') || used.layers.has(ln) || !match(n)) continue;
      tx.removeTableEntry('LAYER', l);
      out.layers.push(n);
    }
  }
  if (kinds.includes('linetypes')) {
    for (const l of [...tableEntries(doc, 'LTYPE')]) {
      const n = String(l.attrs.name ?? '');
      const ln = n.toLowerCase();
      if (['bylayer', 'byblock', 'continuous'].includes(ln) || ln === cur('$CELTYPE') || n.includes('|') || used.linetypes.has(ln) || !match(n)) continue;
      tx.removeTableEntry('LTYPE', l);
      out.linetypes.push(n);
    }
  }
  if (kinds.includes('styles')) {
    for (const s of [...tableEntries(doc, 'STYLE')]) {
      const n = String(s.attrs.name ?? '');
      const ln = n.toLowerCase();
      if (!n || ln === 'standard' || ln === cur('$TEXTSTYLE') || n.includes('|') || used.styles.has(ln) || !match(n)) continue;
      if (Number(s.attrs.flags ?? 0) & 1) continue; // shape files
      tx.removeTableEntry('STYLE', s);
      out.styles.push(n);
    }
  }
  return out;
}

export const purgeOp = defineOp({
  name: 'purge',
  summary: 'Removes unreferenced blocks, layers, linetypes and text styles (one undo step).',
  input: z.object({
    types: z.array(z.enum(PURGE_KINDS)).optional().describe('default: all'),
    names: z.array(z.string()).optional().describe('name patterns with * and ?'),
  }),
  mutates: true,
  effect: 'change',
  // It removes blocks and layers as well as linetypes and styles: a key needs every one of them.
  permissions: ['drawings:write', 'blocks:write', 'layers:write'],
  needsDocument: true,
  output: z.object({ purged: z.record(z.string(), z.array(z.string())), count: z.number().int() }),
  mcpGroup: 'blocks',
  http: [],
  handler: (ctx, input) => {
    const r = purge(ctx.tx!, ctx.store!, input.types ?? PURGE_KINDS, input.names);
    return { purged: r, count: Object.values(r).reduce((n, l) => n + l.length, 0) };
  },
});

export const BLOCK_OPS = [blockDefine, blockDelete, blockRename, blocksList, purgeOp];
export { findEntry };
