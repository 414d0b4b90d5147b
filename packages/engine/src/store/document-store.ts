// One open drawing in a session: the DXF document, its version, undo history, spatial index and
// the session-side state around it (selection, named selection sets, view, blocks in the editor).
// Every change goes through a Transaction, which records a diff; commit turns it into one undo
// step, bumps the version, refreshes the spatial index and notifies listeners.
import { entityOverBudget, overBudgetError } from '../entity-budget.js';
import { currentMeter } from '../budgets.js';
import type {
  Block, DocumentApi, DxfObject, DxfRecord, Entity, Tag, TableEntry, TableName,
} from '../dxf.js';
import { BoxMemo, LazyEntity, dxf } from '../dxf.js';
import { assignInPlace, deepClone } from './clone.js';
import { blockOfEntity } from '../model.js';
import {
  entityIndex, insertBlock, insertEntityAt, insertObjectAt, insertTableEntryAt, removeTableEntryRecord,
} from './access.js';
import { SpatialIndex } from './spatial.js';
import { OpError } from '../protocol.js';
import { DrawnBoxes, drawnBox } from './drawn-box.js';
import { hasLazyRecords } from './lazy.js';
import type { LazyMaterializer } from '../dxf.js';

/** Milliseconds of making entities plain records in one turn of the event loop (after an open). */
const PLAIN_SLICE_MS = 15;
/**
 * How long after an open the work it leaves for later starts (the spatial index's items, tree and
 * handle map, then the plain records): a screen's first display part, asked for just after the
 * open's answer, is built without it (the items made in those slices are garbage collector work
 * that held the first part back by some 300 ms on the 1M drawing).
 */
const OPEN_LATER_MS = 1000;

/**
 * The largest coordinate a changed entity's box may reach. Far below the doubles' range on
 * purpose: sizes, centres, margins and transforms computed from boxes (max - min, a view's width)
 * must stay finite, and a circle of radius 1e308 at 1e308 has no finite box at all.
 */
export const MAX_COORDINATE = 1e100;

/** One recorded change. Records held here are deep clones taken when the change happened. */
export type Change =
  | { k: 'ent+'; block: string; index: number; rec: Entity }
  | { k: 'ent-'; block: string; index: number; rec: Entity }
  | { k: 'rec~'; live: DxfRecord; from: DxfRecord; to: DxfRecord | null }
  | { k: 'tab+'; table: TableName; index: number; rec: TableEntry }
  | { k: 'tab-'; table: TableName; index: number; rec: TableEntry }
  | { k: 'blk+'; block: Block; record: TableEntry | undefined; recordIndex: number }
  | { k: 'blk-'; block: Block; record: TableEntry | undefined; recordIndex: number }
  | { k: 'obj+'; index: number; rec: DxfObject }
  | { k: 'obj-'; index: number; rec: DxfObject }
  | { k: 'hdr'; name: string; from: Tag[] | undefined; to: Tag[] | undefined }
  /** A change of structure outside records (a block's name as map key): replayed by closures. */
  | { k: 'fn'; undo: () => void; redo: () => void; label: string };

export interface Diff {
  changes: Change[];
  /** Op name and request id that made it (for events and history listings). */
  op: string;
  request_id?: string;
}

export interface ChangeSummary {
  added: string[];
  updated: string[];
  removed: string[];
}

const MAX_UNDO = 1000;

export class DocStore {
  version = 0;
  modified = false;
  readonly undoStack: Diff[] = [];
  readonly redoStack: Diff[] = [];
  readonly index = new SpatialIndex();
  /** The current selection, in selection order. */
  selection: string[] = [];
  /** Named selection sets (session-side, like AutoCAD's named selections). */
  readonly selectionSets = new Map<string, string[]>();
  /** Block names open in the block editor (the graphical mode reports them). */
  readonly blocksInEditor = new Set<string>();
  /** The last view asked for by view_focus. */
  view: { center: [number, number]; width: number; height: number } | null = null;
  /** The last entity created (command line `L`ast). */
  lastCreated: string | null = null;
  /** The command line's last point (AutoCAD's LASTPOINT). */
  lastPoint: [number, number, number] | null = null;
  /** The previous selection of the command line (`P`). */
  previousSelection: string[] = [];
  private tx: Transaction | null = null;
  private msName: string;
  /** Boxes computed by the range check of a commit, reused by the index refresh that follows. */
  private checkedBoxes = new Map<string, { min: number[]; max: number[] } | null>();
  /** What is left of making an opened drawing's lazy entities plain records (store/lazy.ts). */
  private materializer: LazyMaterializer | null = null;

  constructor(
    readonly id: number,
    public doc: DocumentApi,
    public name: string,
    public path: string | null,
  ) {
    this.msName = doc.modelSpace().name;
    this.rebuildIndex(OPEN_LATER_MS);
    if (hasLazyRecords(doc)) this.materializeLater(dxf.materializer(doc));
  }

  /** Whether entities kept as their bytes are left (made plain records in slices after the open). */
  get lazy(): boolean {
    return this.materializer !== null;
  }

  /** Makes every entity still kept as its bytes a plain record now (before an op that may copy records). */
  materialize(): void {
    const m = this.materializer;
    if (!m) return;
    this.materializer = null;
    while (!m.step(100_000));
  }

  /**
   * Makes the lazy entities plain records a slice at a time, each after the I/O waiting, once the
   * spatial index's slices are done: one kind of slice at a time delays a request (the editor's
   * display stream waits for the event loop between its writes) by one slice, not two.
   */
  private materializeLater(m: LazyMaterializer): void {
    this.materializer = m;
    const step = (): void => {
      if (this.materializer !== m) return;
      if (this.index.working) {
        setTimeout(step, 20);
        return;
      }
      const t0 = performance.now();
      do {
        if (m.step(2000)) {
          this.materializer = null;
          return;
        }
      } while (performance.now() - t0 < PLAIN_SLICE_MS);
      setImmediate(step);
    };
    setImmediate(step);
  }

  /** The document was closed: the work left for later stops (see SpatialIndex.stopLater). */
  stopLater(): void {
    this.index.stopLater();
    this.materializer = null;
  }

  get modelSpaceName(): string {
    return this.msName;
  }

  get inTransaction(): boolean {
    return this.tx !== null;
  }

  /** Recomputes every model-space box (on open, and after structural changes; `laterAfterMs`: SpatialIndex.loadFrom's). */
  rebuildIndex(laterAfterMs = 0): void {
    const ms = this.doc.modelSpace();
    this.msName = ms.name;
    // past the request's deadline this throws before the index is replaced (an open then adds nothing)
    const meter = currentMeter();
    // the drawing does not change during the pass: each block's content is made once, not once per INSERT
    const pass: BoxPass = { memo: new BoxMemo(), drawn: new DrawnBoxes(this.doc) };
    this.index.loadFrom(ms.entities, (e) => e.handle, (e) => {
      meter.tick();
      // an entity kept as its bytes is read for its box alone (its geometry only, when that is all the box needs)
      return safeBox(e instanceof LazyEntity ? e.peekGeometry() ?? e.peek() : e, this.doc, pass);
    }, laterAfterMs);
  }

  begin(op: string, requestId?: string): Transaction {
    if (this.tx) throw new Error('a transaction is already open');
    this.tx = new Transaction(this, op, requestId);
    return this.tx;
  }

  /**
   * Ends the open transaction: an empty diff changes nothing, otherwise one undo step. Throws
   * (leaving the transaction open for rollback) when a changed entity lies out of range.
   */
  commit(tx: Transaction): Diff | null {
    if (this.tx !== tx) throw new Error('not the open transaction');
    this.checkRange(tx.changes);
    this.tx = null;
    const diff = tx.finish();
    if (!diff.changes.length) return null;
    this.undoStack.push(diff);
    if (this.undoStack.length > MAX_UNDO) this.undoStack.shift();
    this.redoStack.length = 0;
    this.afterChange(diff.changes);
    return diff;
  }

  /** Undoes what an open transaction did so far and closes it. */
  rollback(tx: Transaction): void {
    if (this.tx !== tx) return;
    this.tx = null;
    const diff = tx.finish();
    applyChanges(this.doc, diff.changes, 'undo');
    this.refreshIndex(diff.changes);
  }

  /** Undoes the last step; returns its diff or null when there is nothing to undo. */
  undo(): Diff | null {
    const diff = this.undoStack.pop();
    if (!diff) return null;
    applyChanges(this.doc, diff.changes, 'undo');
    this.redoStack.push(diff);
    this.afterChange(diff.changes);
    return diff;
  }

  redo(): Diff | null {
    const diff = this.redoStack.pop();
    if (!diff) return null;
    applyChanges(this.doc, diff.changes, 'redo');
    this.undoStack.push(diff);
    this.afterChange(diff.changes);
    return diff;
  }

  /** A change made outside the undo history (file identity, save-as version): bumps the version. */
  touchVersion(): void {
    this.version++;
    this.modified = true;
  }

  private afterChange(changes: Change[]): void {
    this.version++;
    this.modified = true;
    this.refreshIndex(changes);
    const live = new Set<string>();
    for (const h of this.selection) if (this.doc.get(h)) live.add(h);
    if (live.size !== this.selection.length) this.selection = this.selection.filter((h) => live.has(h));
  }

  /** Refuses entities over a work budget (budget_exceeded) or whose box is not finite or passes MAX_COORDINATE (out_of_range). */
  private checkRange(changes: Change[]): void {
    this.checkedBoxes.clear();
    // each block's expansion counted once for all the changed references
    const expansions = new Map<string, number>();
    // a large change past the request's deadline stops here, and the dispatcher rolls it back
    const meter = currentMeter();
    for (const c of changes) {
      meter.tick();
      const e = c.k === 'ent+' ? c.rec : c.k === 'rec~' && (c.live as Entity).kind === 'entity' && this.doc.get(c.live.handle) ? (c.live as Entity) : null;
      if (!e) continue;
      const over = entityOverBudget(e, this.doc, expansions);
      if (over) {
        this.checkedBoxes.clear();
        throw overBudgetError(e, over);
      }
      const box = safeBox(e, this.doc);
      this.checkedBoxes.set(e.handle, box);
      if (!box) continue;
      for (const v of [...box.min, ...box.max]) {
        if (!(Math.abs(v) <= MAX_COORDINATE)) {
          this.checkedBoxes.clear();
          throw new OpError(
            'out_of_range',
            `${e.type} ${e.handle} would reach ${v} (coordinates and sizes must stay within ±${MAX_COORDINATE}); nothing changed`,
            { handle: e.handle, type: e.type, limit: MAX_COORDINATE },
          );
        }
      }
    }
  }

  /** Updates the spatial index from a list of changes. */
  refreshIndex(changes: Change[]): void {
    const touched = new Set<string>();
    let blocksChanged = false;
    for (const c of changes) {
      switch (c.k) {
        case 'ent+':
        case 'ent-':
          if (c.block === this.msName) touched.add(c.rec.handle);
          else blocksChanged = true;
          break;
        case 'rec~':
          if ((c.live as Entity).kind === 'entity') {
            if (this.index.has(c.live.handle) || this.isModelSpace(c.live as Entity)) touched.add(c.live.handle);
            else blocksChanged = true;
          }
          break;
        case 'blk+':
        case 'blk-':
          blocksChanged = true;
          break;
        default:
          break;
      }
    }
    const ms = this.doc.getBlock(this.msName);
    const msOwner = ms?.block.owner ?? '';
    const adds: { handle: string; box: { min: number[]; max: number[] } | null }[] = [];
    const gone: string[] = [];
    for (const h of touched) {
      const e = this.doc.get(h) as Entity | undefined;
      const inMs = !!e && e.kind === 'entity' && (msOwner && e.owner ? e.owner === msOwner : this.isModelSpace(e));
      if (inMs) adds.push({ handle: h, box: this.checkedBoxes.has(h) ? this.checkedBoxes.get(h)! : safeBox(e, this.doc) });
      else gone.push(h);
    }
    this.checkedBoxes.clear();
    if (gone.length) this.index.removeMany(gone);
    if (adds.length > 2000) this.index.addMany(adds);
    else for (const a of adds) this.index.set(a.handle, a.box);
    if (blocksChanged && ms) {
      // Block definitions changed: the boxes of inserts depend on them.
      for (const e of ms.entities) {
        if (e.type === 'INSERT' && !touched.has(e.handle)) this.index.set(e.handle, safeBox(e, this.doc));
      }
    }
  }

  isModelSpace(e: Entity): boolean {
    const ms = this.doc.getBlock(this.msName);
    if (!ms) return false;
    if (e.owner && ms.block.owner) return e.owner === ms.block.owner && Number(e.attrs.paperspace ?? 0) === 0;
    return this.doc.blockOf(e.handle) === ms;
  }
}

/** What the boxes of one pass over many entities share while the drawing does not change. */
export interface BoxPass {
  memo: BoxMemo;
  drawn: DrawnBoxes;
}

/** The box of an entity, or null when it has none or geometry fails on it. */
export function safeBox(e: Entity, doc: DocumentApi, pass?: BoxPass): { min: number[]; max: number[] } | null {
  try {
    return dxf.boundingBox(e, doc, pass?.memo) ?? (pass ? pass.drawn.box(e) : drawnBox(e, doc));
  } catch {
    return null;
  }
}

/**
 * The recorder of one request's changes. Handlers change the document through its methods only;
 * `touch(rec)` must be called before changing a record's fields in place.
 */
export class Transaction {
  readonly changes: Change[] = [];
  private touched = new Map<DxfRecord, Extract<Change, { k: 'rec~' }>>();
  private addedHere = new Set<DxfRecord>();

  constructor(
    readonly store: DocStore,
    readonly op: string,
    readonly requestId?: string,
  ) {}

  get doc(): DocumentApi {
    return this.store.doc;
  }

  /** Records the state of a record before it is changed in place (once per transaction). */
  touch<R extends DxfRecord>(rec: R): R {
    if (this.addedHere.has(rec) || this.touched.has(rec)) return rec;
    const c: Extract<Change, { k: 'rec~' }> = { k: 'rec~', live: rec, from: deepClone(rec), to: null };
    this.touched.set(rec, c);
    this.changes.push(c);
    return rec;
  }

  /** Adds an entity at the end of a block, or at position `at` of its entity list (a record replaced in place). */
  addEntity(e: Entity, blockName?: string, at?: number): Entity {
    const block = blockName ?? this.store.modelSpaceName;
    let added = e;
    if (at === undefined) added = this.doc.addEntity(e, block);
    else insertEntityAt(this.doc, block, at, e);
    const b = this.doc.getBlock(block);
    const index = b ? entityIndex(b, added) : -1;
    this.addedHere.add(added);
    this.changes.push({ k: 'ent+', block: b?.name ?? block, index, rec: added });
    this.store.lastCreated = added.handle;
    return added;
  }

  removeEntity(handle: string): Entity | undefined {
    const rec = this.doc.get(handle) as Entity | undefined;
    const b = rec ? blockOfEntity(this.doc, rec) : undefined;
    if (!b || !rec) return undefined;
    const index = entityIndex(b, rec);
    const removed = this.doc.removeEntity(handle);
    if (!removed) return undefined;
    // Removed entities are kept as they are (nothing changes them once out of the drawing);
    // undo puts the same record back.
    this.changes.push({ k: 'ent-', block: b.name, index, rec: removed });
    return removed;
  }

  /** Removes many entities with one pass per block (the diff keeps each one's position). */
  removeEntities(list: Entity[]): Entity[] {
    if (list.length < 32) return list.map((e) => this.removeEntity(e.handle)).filter((e): e is Entity => e !== undefined);
    const byBlock = new Map<Block, Set<Entity>>();
    for (const e of list) {
      const b = blockOfEntity(this.doc, e);
      if (!b) continue;
      let set = byBlock.get(b);
      if (!set) byBlock.set(b, (set = new Set()));
      set.add(e);
    }
    const removed: Entity[] = [];
    for (const [b, set] of byBlock) {
      const positions: [number, Entity][] = [];
      b.entities.forEach((e, i) => { if (set.has(e)) positions.push([i, e]); });
      // Recorded from the highest position down: undo re-inserts lowest first, each at its place.
      for (let k = positions.length - 1; k >= 0; k--) {
        const [index, e] = positions[k]!;
        this.changes.push({ k: 'ent-', block: b.name, index, rec: e });
        removed.push(e);
      }
      removeMany(this.doc, b, positions.map((p) => p[1]));
    }
    return removed;
  }

  addTableEntry(table: TableName, name: string, attrs?: Record<string, unknown>): TableEntry {
    const rec = this.doc.addTableEntry(table, name, attrs);
    const t = this.doc.tables.get(table);
    this.addedHere.add(rec);
    this.changes.push({ k: 'tab+', table, index: t ? t.entries.indexOf(rec) : -1, rec });
    return rec;
  }

  removeTableEntry(table: TableName, rec: TableEntry): void {
    const snapshot = this.addedHere.has(rec) ? rec : deepClone(rec);
    const index = removeTableEntryRecord(this.doc, table, rec);
    this.changes.push({ k: 'tab-', table, index, rec: snapshot });
  }

  addBlock(name: string, base: [number, number, number], attrs?: Record<string, unknown>): Block {
    const block = this.doc.addBlock(name, base, attrs);
    const record = this.blockRecord(block.name);
    const t = this.doc.tables.get('BLOCK_RECORD');
    this.addedHere.add(block.block);
    if (record) this.addedHere.add(record);
    this.changes.push({ k: 'blk+', block, record, recordIndex: record && t ? t.entries.indexOf(record) : -1 });
    return block;
  }

  /** Removes a block definition with its record and entities (reference checks are the caller's). */
  removeBlock(name: string): void {
    const block = this.doc.getBlock(name);
    if (!block) return;
    const record = this.blockRecord(block.name);
    const t = this.doc.tables.get('BLOCK_RECORD');
    const recordIndex = record && t ? t.entries.indexOf(record) : -1;
    const snap = { block: deepClone(block), record: record ? deepClone(record) : undefined };
    this.doc.removeBlock(block.name);
    this.changes.push({ k: 'blk-', block: snap.block, record: snap.record, recordIndex });
  }

  /** Runs a document method that creates several records (a layout): records what appeared. */
  structural<T>(fn: () => T): T {
    const before = captureStructure(this.doc);
    // Objects and table heads may gain entries (dictionaries): keep their prior state.
    for (const o of this.doc.objects) this.touch(o);
    for (const t of this.doc.tables.values()) this.touch(t.head);
    const hdr = new Map([...this.doc.header].map(([k, v]) => [k, deepClone(v)]));
    const result = fn();
    const after = captureStructure(this.doc);
    for (const [table, recs] of after.entries) {
      const prev = before.entries.get(table) ?? new Set();
      const t = this.doc.tables.get(table)!;
      for (const r of recs) if (!prev.has(r)) {
        if (table === 'BLOCK_RECORD') continue; // recorded with its block
        this.addedHere.add(r);
        this.changes.push({ k: 'tab+', table, index: t.entries.indexOf(r), rec: r });
      }
    }
    for (const [name, b] of after.blocks) if (!before.blocks.has(name)) {
      const record = this.blockRecord(name);
      const t = this.doc.tables.get('BLOCK_RECORD');
      this.addedHere.add(b.block);
      this.changes.push({ k: 'blk+', block: b, record, recordIndex: record && t ? t.entries.indexOf(record) : -1 });
    }
    for (const o of this.doc.objects) if (!before.objects.has(o)) {
      this.addedHere.add(o);
      this.changes.push({ k: 'obj+', index: this.doc.objects.indexOf(o), rec: o });
    }
    for (const [k, v] of this.doc.header) {
      const prev = hdr.get(k);
      if (!prev || JSON.stringify(prev) !== JSON.stringify(v)) this.changes.push({ k: 'hdr', name: k, from: prev, to: deepClone(v) });
    }
    return result;
  }

  addObject(obj: DxfObject): DxfObject {
    const added = this.doc.addObject(obj);
    this.addedHere.add(added);
    this.changes.push({ k: 'obj+', index: this.doc.objects.indexOf(added), rec: added });
    return added;
  }

  removeObject(handle: string): DxfObject | undefined {
    const rec = this.doc.get(handle) as DxfObject | undefined;
    if (!rec) return undefined;
    const index = this.doc.objects.indexOf(rec);
    const removed = this.doc.removeObject(handle);
    if (removed) this.changes.push({ k: 'obj-', index, rec: this.addedHere.has(removed) ? removed : deepClone(removed) });
    return removed;
  }

  setHeader(name: string, value: string | number | number[]): void {
    const key = name.startsWith('$') ? name : `$${name}`;
    const from = this.doc.header.get(key);
    const fromCopy = from ? deepClone(from) : undefined;
    this.doc.setHeader(key, value);
    const to = this.doc.header.get(key);
    this.changes.push({ k: 'hdr', name: key, from: fromCopy, to: to ? deepClone(to) : undefined });
  }

  /** Runs a change that records cannot express; `undo` must reverse it exactly. */
  custom(label: string, redo: () => void, undo: () => void): void {
    redo();
    this.changes.push({ k: 'fn', undo, redo, label });
  }

  blockRecord(name: string): TableEntry | undefined {
    return this.doc.getTableEntry('BLOCK_RECORD', name);
  }

  /** Closes the diff: takes the `to` snapshots of records changed in place. */
  finish(): Diff {
    for (const c of this.touched.values()) {
      c.to = deepClone(c.live);
    }
    // Drop in-place changes that changed nothing.
    const changes = this.changes.filter((c) => c.k !== 'rec~' || !sameRecord(c.from, c.to!));
    // Added table entries and objects are snapshot now; added entities stay the live records:
    // undo and redo move the very same record out of and back into the drawing, and in-place
    // changes of later steps are undone before it is taken out, so it is always in this step's state.
    for (let i = 0; i < changes.length; i++) {
      const c = changes[i]!;
      if (c.k === 'tab+' || c.k === 'obj+') changes[i] = { ...c, rec: deepClone(c.rec) } as Change;
    }
    return { changes, op: this.op, request_id: this.requestId };
  }
}

function sameRecord(a: DxfRecord, b: DxfRecord): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function captureStructure(doc: DocumentApi): {
  entries: Map<TableName, Set<TableEntry>>;
  blocks: Map<string, Block>;
  objects: Set<DxfObject>;
} {
  const entries = new Map<TableName, Set<TableEntry>>();
  for (const [n, t] of doc.tables) entries.set(n, new Set(t.entries));
  return { entries, blocks: new Map(doc.blocks), objects: new Set(doc.objects) };
}

/** Replays changes backwards ('undo') or forwards ('redo'). */
export function applyChanges(doc: DocumentApi, changes: Change[], dir: 'undo' | 'redo'): void {
  const n = changes.length;
  const at = (j: number) => (dir === 'undo' ? changes[n - 1 - j]! : changes[j]!);
  const adds = (c: Change) => (c.k === 'ent+' && dir === 'redo') || (c.k === 'ent-' && dir === 'undo');
  const removes = (c: Change) => (c.k === 'ent+' && dir === 'undo') || (c.k === 'ent-' && dir === 'redo');
  for (let j = 0; j < n; j++) {
    const c = at(j);
    // Long runs of entity additions or removals in one block are replayed in one pass.
    if (c.k === 'ent+' || c.k === 'ent-') {
      const kind = adds(c) ? adds : removes;
      let end = j;
      while (end + 1 < n) {
        const d = at(end + 1);
        if ((d.k !== 'ent+' && d.k !== 'ent-') || !kind(d) || d.block !== c.block) break;
        end++;
      }
      if (end - j >= 32) {
        const run = [] as Extract<Change, { k: 'ent+' | 'ent-' }>[];
        for (let k = j; k <= end; k++) run.push(at(k) as Extract<Change, { k: 'ent+' | 'ent-' }>);
        const block = doc.getBlock(c.block);
        if (block) {
          if (kind === adds) insertMany(doc, block, run.map((r) => ({ index: r.index, rec: r.rec })));
          else removeMany(doc, block, run.map((r) => doc.get(r.rec.handle) as Entity).filter((e) => e !== undefined));
          j = end;
          continue;
        }
      }
    }
    const add = (c.k.endsWith('+') && dir === 'redo') || (c.k.endsWith('-') && dir === 'undo');
    if (c.k === 'fn') { if (dir === 'undo') c.undo(); else c.redo(); continue; }
    switch (c.k) {
      case 'ent+':
      case 'ent-':
        if (add) insertEntityAt(doc, c.block, c.index, c.rec);
        else doc.removeEntity(c.rec.handle);
        break;
      case 'rec~': {
        const target = dir === 'undo' ? c.from : c.to!;
        const live = doc.get(c.live.handle) ?? c.live;
        assignInPlace(live, target);
        break;
      }
      case 'tab+':
      case 'tab-':
        if (add) insertTableEntryAt(doc, c.table, c.index, deepClone(c.rec));
        else {
          const live = doc.get(c.rec.handle) as TableEntry | undefined;
          if (live) removeTableEntryRecord(doc, c.table, live);
        }
        break;
      case 'blk+':
      case 'blk-':
        if (add) insertBlock(doc, deepClone(c.block), c.record ? deepClone(c.record) : undefined, c.recordIndex);
        else doc.removeBlock(c.block.name);
        break;
      case 'obj+':
      case 'obj-':
        if (add) insertObjectAt(doc, c.index, deepClone(c.rec));
        else doc.removeObject(c.rec.handle);
        break;
      case 'hdr': {
        const v = dir === 'undo' ? c.from : c.to;
        if (v) doc.header.set(c.name, deepClone(v));
        else doc.header.delete(c.name);
        break;
      }
    }
  }
}

/** Handles added, changed and removed by a diff (entities and other records), for events. */
export function summarize(diff: Diff, dir: 'do' | 'undo' = 'do'): ChangeSummary | { counts: true; added: number; updated: number; removed: number } {
  if (diff.changes.length > 1000) {
    // Big steps: counts only (events carry handles for small steps).
    let a = 0, u = 0, r = 0;
    for (const c of diff.changes) {
      if (c.k.endsWith('+')) a++;
      else if (c.k.endsWith('-')) r++;
      else if (c.k === 'rec~') u++;
    }
    return dir === 'undo' ? { counts: true, added: r, updated: u, removed: a } : { counts: true, added: a, updated: u, removed: r };
  }
  const added = new Set<string>(), updated = new Set<string>(), removed = new Set<string>();
  for (const c of diff.changes) {
    let h: string | undefined;
    let kind: 'a' | 'u' | 'r';
    switch (c.k) {
      case 'ent+': case 'tab+': case 'obj+': h = c.rec.handle; kind = 'a'; break;
      case 'ent-': case 'tab-': case 'obj-': h = c.rec.handle; kind = 'r'; break;
      case 'blk+': h = c.block.block.handle; kind = 'a'; break;
      case 'blk-': h = c.block.block.handle; kind = 'r'; break;
      case 'rec~': h = c.live.handle; kind = 'u'; break;
      default: continue;
    }
    if (dir === 'undo' && kind !== 'u') kind = kind === 'a' ? 'r' : 'a';
    if (kind === 'a') { removed.delete(h); added.add(h); } else if (kind === 'r') {
      if (added.has(h)) added.delete(h); else removed.add(h);
      updated.delete(h);
    } else if (!added.has(h)) updated.add(h);
  }
  return { added: [...added], updated: [...updated], removed: [...removed] };
}

/**
 * What a screen must redraw after a diff: `entities` when only entities of model space or a layout
 * changed (redraw those handles), `all` when anything they are drawn through changed (a layer, a
 * linetype, a style, a block definition, the header) or the step was too large to list.
 */
export function redrawScope(store: DocStore, diff: Diff): 'entities' | 'all' {
  if (diff.changes.length > 1000) return 'all';
  const doc = store.doc;
  const inLayout = (e: Entity): boolean => {
    const b = blockOfEntity(doc, e);
    return !!b && (b.name.toUpperCase() === '*MODEL_SPACE' || /^\*PAPER_SPACE/i.test(b.name));
  };
  for (const c of diff.changes) {
    switch (c.k) {
      case 'ent+':
      case 'ent-':
        if (!/^\*(MODEL|PAPER)_SPACE/i.test(c.block)) return 'all';
        break;
      case 'rec~': {
        const live = c.live as Entity;
        if (live.kind === 'entity') {
          if (doc.get(live.handle) && !inLayout(live)) return 'all';
        } else if (DRAWN_THROUGH.has(live.type)) return 'all';
        break;
      }
      case 'obj+':
      case 'obj-':
        break;
      default:
        return 'all';
    }
  }
  return 'entities';
}

/** Records entities are drawn through: a change to one redraws everything. */
const DRAWN_THROUGH = new Set(['LAYER', 'LTYPE', 'STYLE', 'DIMSTYLE', 'BLOCK_RECORD', 'BLOCK', 'VPORT', 'LAYOUT', 'MLINESTYLE', 'MLEADERSTYLE']);

/** Removes entities of one block in one pass (DxfDocument.removeEntities when present). */
function removeMany(doc: DocumentApi, block: Block, list: Entity[]): void {
  if (!list.length) return;
  const bulk = (doc as unknown as { removeEntities?: (hs: Iterable<string>) => Entity[] }).removeEntities;
  if (typeof bulk === 'function' && list.length > 1) {
    bulk.call(doc, list.map((e) => e.handle));
    return;
  }
  for (const e of list) doc.removeEntity(e.handle);
  void block;
}

/** Puts entities back into a block at their positions (ascending), with one rebuild of the list. */
function insertMany(doc: DocumentApi, block: Block, items: { index: number; rec: Entity }[]): void {
  const before = block.entities.length;
  for (const it of items) doc.addEntity(it.rec, block.name);
  const b = doc.getBlock(block.name) ?? block;
  const list = b.entities;
  const base = list.slice(0, before);
  const added = list.slice(before);
  const sorted = items.map((it, i) => ({ index: it.index, rec: added[i]! })).sort((x, y) => x.index - y.index);
  const out: Entity[] = [];
  let bi = 0;
  for (const it of sorted) {
    while (out.length < it.index && bi < base.length) out.push(base[bi++]!);
    out.push(it.rec);
  }
  while (bi < base.length) out.push(base[bi++]!);
  list.length = 0;
  for (const e of out) list.push(e);
}
