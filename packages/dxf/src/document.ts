// A DXF drawing in memory: header, classes, tables, blocks (model and paper space included),
// objects and raw sections, with a handle index that add/remove keep consistent with the owner
// links, so the engine can edit records without knowing DXF's bookkeeping.
import type {
  Block,
  Diagnostic,
  DocumentApi,
  DxfClass,
  DxfObject,
  RawSection,
  Table,
  TableEntry,
  TableName,
} from './document-api.js';
import { dictEntries } from './defs/objects.js';
import { DxfError } from './errors.js';
import { HEADER_VARS } from './header/header-vars.js';
import { HandleIndex } from './handle-index.js';
import { formatNumber } from './tags/format.js';
import { ValueKind, valueKind } from './tags/group-codes.js';
import type { DxfRecord, DxfVersion, Entity, Tag } from './types.js';

export const TABLE_ORDER: TableName[] = ['VPORT', 'LTYPE', 'LAYER', 'STYLE', 'VIEW', 'UCS', 'APPID', 'DIMSTYLE', 'BLOCK_RECORD'];

export const MODEL_SPACE = '*Model_Space';
export const PAPER_SPACE = '*Paper_Space';

/** Whether a block name is model space (`*Model_Space`, R12's `$MODEL_SPACE`), case-insensitively. */
export function isModelSpaceName(name: string): boolean {
  const n = name.toUpperCase();
  return n === '*MODEL_SPACE' || n === '$MODEL_SPACE';
}

/** Whether a block name is a paper-space layout block (`*Paper_Space`, `*Paper_Space0`, `$PAPER_SPACE`). */
export function isPaperSpaceName(name: string): boolean {
  const n = name.toUpperCase();
  return n.startsWith('*PAPER_SPACE') || n === '$PAPER_SPACE';
}

/** Whether a block name is the active paper space (the one whose entities live in ENTITIES). */
export function isActivePaperSpaceName(name: string): boolean {
  const n = name.toUpperCase();
  return n === '*PAPER_SPACE' || n === '$PAPER_SPACE';
}

/** DXF handles are 64-bit: past this, new handles are looked for from 1 up. */
const MAX_HANDLE = 0xffffffffffffffffn;

/**
 * A handle's value. Handles above 2^53 are legal, and as floats `seed + 1` would equal `seed`
 * (handing out one handle forever), so they are parsed exactly; short ones take the fast path.
 */
function parseHandle(h: string): bigint {
  if (h.length <= 13) {
    const n = parseInt(h, 16);
    return Number.isNaN(n) ? 0n : BigInt(n);
  }
  const digits = h.replace(/^0+/, '');
  if (digits.length > 16 || !/^[0-9A-Fa-f]*$/.test(digits)) return 0n;
  return digits ? BigInt('0x' + digits) : 0n;
}

function hex(n: bigint): string {
  return n.toString(16).toUpperCase();
}

export class DxfDocument implements DocumentApi {
  version: DxfVersion;
  encoding = 'ANSI_1252';
  header = new Map<string, Tag[]>();
  classes: DxfClass[] = [];
  tables = new Map<TableName, Table>();
  blocks = new Map<string, Block>();
  objects: DxfObject[] = [];
  rawSections: RawSection[] = [];
  diagnostics: Diagnostic[] = [];

  /**
   * False for a drawing read from a file without $DWGCODEPAGE: its code page is unknown, so its text
   * (read as cp1252) is written back byte for byte and no $DWGCODEPAGE is added.
   */
  codepageDeclared = true;

  /** Set on drawings converted down to R12: the writer drops every tag R12 has no code for. */
  strictR12 = false;

  /**
   * A $ACADVER this library reads as another version (`AC2.10` read as AC1009): written back as it
   * was while the drawing stays in the version it was read as, so a round trip keeps it.
   */
  acadverAsRead: { text: string; version: DxfVersion } | null = null;

  /** Handles the file spelled in lower case (upper-case handle -> as spelled): written so again. */
  handleSpelling = new Map<string, string>();

  /**
   * What the drawing was read from: ASCII or binary DXF (saving keeps the form unless told
   * otherwise), or DWG through a converter (`dwg/read-dwg.ts`); 'new' for a drawing made here.
   */
  source: { format: 'ascii' | 'binary' | 'new' } | { format: 'dwg'; dwgVersion: string; reader: string } = { format: 'new' };

  private readonly index = new HandleIndex();
  /** Next handle to try; -1 until first needed (computing it walks every handle). */
  private seed = -1n;

  constructor(version: DxfVersion = 'AC1032') {
    this.version = version;
  }

  /**
   * A new document of another version sharing this one's records (tables, blocks and lists are
   * new containers, records are not): what conversions start from before replacing what changes.
   */
  shallowCopy(version: DxfVersion): DxfDocument {
    const out = new DxfDocument(version);
    out.encoding = this.encoding;
    out.codepageDeclared = this.codepageDeclared;
    out.source = this.source;
    out.handleSpelling = this.handleSpelling;
    for (const [k, v] of this.header) out.header.set(k, v);
    out.classes = [...this.classes];
    for (const [k, t] of this.tables) out.tables.set(k, { name: t.name, head: t.head, entries: [...t.entries] });
    for (const [k, b] of this.blocks) out.blocks.set(k, { name: b.name, block: b.block, endblk: b.endblk, entities: [...b.entities] });
    out.objects = [...this.objects];
    out.rawSections = [...this.rawSections];
    for (const [h, r] of this.index) out.index.set(h, r);
    out.seed = this.seed;
    out.hasLazyRecords = this.hasLazyRecords;
    return out;
  }

  // ---- handles ---------------------------------------------------------------------------------

  get(handle: string): DxfRecord | undefined {
    return this.index.get(handle.toUpperCase());
  }

  /** Whether records carry handles (always from R13 on; R12 only with $HANDLING 1). */
  get hasHandles(): boolean {
    if (this.version > 'AC1009') return true;
    const h = this.header.get('$HANDLING');
    return h !== undefined && h.length > 0 && +h[0]![1] !== 0;
  }

  newHandle(): string {
    if (!this.hasHandles) this.ensureHandles();
    return this.allocHandle();
  }

  /** Number of records in the handle index. */
  get handleCount(): number {
    return this.index.size;
  }

  private allocHandle(): string {
    if (this.seed < 0n) this.seed = this.computeSeed();
    let h: string;
    do {
      if (this.seed > MAX_HANDLE) this.seed = 1n;
      h = hex(this.seed++);
    } while (this.index.has(h));
    this.setHeaderTags('$HANDSEED', [[5, hex(this.seed)]]);
    return h;
  }

  private computeSeed(): bigint {
    // numbers while they are exact: a bigint per handle would slow down every write
    let max = 0;
    let big = 0n;
    this.index.forEachValue(
      (n) => {
        if (n > max) max = n;
      },
      (h) => {
        if (h.length <= 13) {
          const n = parseInt(h, 16);
          if (n > max) max = n;
        } else {
          const n = parseHandle(h);
          if (n > big) big = n;
        }
      },
    );
    const top = big > BigInt(max) ? big : BigInt(max);
    const declared = this.header.get('$HANDSEED');
    const fromHeader = declared && declared[0] ? parseHandle(declared[0][1]) : 0n;
    let seed = top + 1n;
    if (fromHeader > seed) seed = fromHeader;
    return seed > MAX_HANDLE ? 1n : seed;
  }

  /** The value $HANDSEED should have: above every handle in use. */
  handseed(): string {
    if (this.seed < 0n) this.seed = this.computeSeed();
    return hex(this.seed);
  }

  /**
   * Whether some entities are kept as their bytes until read (`ReadOptions.lazy`, see
   * reader/lazy-entity.ts); `materializeLazy` makes them plain records.
   */
  hasLazyRecords = false;

  /** Points the handle index at `rec` for its handle: a record replaced by an equal one. */
  replaceIndexed(rec: DxfRecord): void {
    if (rec.handle) this.index.set(rec.handle, rec);
  }

  /** Registers a record under its handle; false when the handle is taken by another record. */
  indexRecord(rec: DxfRecord): boolean {
    if (!rec.handle) return true;
    if (!this.index.claim(rec.handle, rec)) return false;
    if (this.seed >= 0n) {
      const n = parseHandle(rec.handle);
      if (n >= this.seed && n < MAX_HANDLE) this.seed = n + 1n;
    }
    return true;
  }

  unindexRecord(rec: DxfRecord): void {
    if (rec.handle && this.index.get(rec.handle) === rec) this.index.delete(rec.handle);
  }

  /** Every record of the drawing that can carry a handle, in file order. */
  *records(): Iterable<DxfRecord> {
    for (const t of this.tables.values()) {
      yield t.head;
      yield* t.entries;
    }
    for (const b of this.blocks.values()) {
      yield b.block;
      for (const e of b.entities) yield* entityTree(e);
      yield b.endblk;
    }
    yield* this.objects;
  }

  /**
   * Gives every record a handle (R12 drawings read without $HANDLING) and sets $HANDLING, so the
   * engine can address everything. Owners are filled where the structure says who owns what.
   */
  ensureHandles(): void {
    // (a $HANDLING already on, whatever its value, stays as the file has it)
    if (this.version <= 'AC1009' && !this.hasHandles) this.setHeaderTags('$HANDLING', [[70, '1']]);
    for (const rec of this.records()) {
      if (!rec.handle) {
        rec.handle = this.allocHandle();
        this.index.set(rec.handle, rec);
      }
    }
    if (this.version > 'AC1009') for (const b of this.blocks.values()) for (const e of b.entities) this.linkChildren(e);
  }

  private linkChildren(e: Entity): void {
    if (e.children) for (const c of e.children) c.owner = e.handle;
    if (e.seqend) e.seqend.owner = e.handle;
  }

  // ---- header ----------------------------------------------------------------------------------

  getHeader(name: string): string | number | number[] | undefined {
    const tags = this.header.get(name);
    if (!tags || tags.length === 0) return undefined;
    if (tags.length === 1) {
      const [code, value] = tags[0]!;
      return valueKind(code) === ValueKind.Str || valueKind(code) === ValueKind.Binary ? value : +value;
    }
    return tags.map((t) => +t[1]);
  }

  setHeader(name: string, value: string | number | number[]): void {
    const old = this.header.get(name);
    const info = HEADER_VARS.get(name);
    if (Array.isArray(value)) {
      const codes = old && old.length === value.length ? old.map((t) => t[0]) : value.map((_, i) => (info?.code ?? 10) + i * 10);
      this.setHeaderTags(name, value.map((v, i) => [codes[i]!, formatNumber(codes[i]!, v)]));
      return;
    }
    const code = old?.[0]?.[0] ?? info?.code ?? (typeof value === 'string' ? 1 : Number.isInteger(value) ? 70 : 40);
    this.setHeaderTags(name, [[code, typeof value === 'string' ? value : formatNumber(code, value)]]);
    if (name === '$HANDSEED') this.seed = -1n;
  }

  /** Sets a header variable's raw tags, keeping its place (new variables go to the end). */
  setHeaderTags(name: string, tags: Tag[]): void {
    this.header.set(name, tags);
  }

  // ---- tables ----------------------------------------------------------------------------------

  getTable(name: TableName): Table | undefined {
    return this.tables.get(name);
  }

  /** The table, created (with its TABLE head) when the drawing has none. */
  ensureTable(name: TableName): Table {
    let t = this.tables.get(name);
    if (!t) {
      const head: DxfRecord = { type: 'TABLE', handle: '', owner: this.version > 'AC1009' ? '0' : '', attrs: {} };
      if (this.hasHandles) {
        head.handle = this.allocHandle();
        this.index.set(head.handle, head);
      }
      t = { name, head, entries: [] };
      // keep the canonical table order
      const tables = new Map<TableName, Table>();
      for (const n of TABLE_ORDER) {
        if (n === name) tables.set(n, t);
        else {
          const have = this.tables.get(n);
          if (have) tables.set(n, have);
        }
      }
      this.tables = tables;
    }
    return t;
  }

  getTableEntry(table: TableName, name: string): TableEntry | undefined {
    const t = this.tables.get(table);
    if (!t) return undefined;
    const key = name.toUpperCase();
    for (const e of t.entries) {
      const n = e.attrs.name;
      if (typeof n === 'string' && n.toUpperCase() === key) return e;
    }
    return undefined;
  }

  addTableEntry(table: TableName, name: string, attrs: Record<string, unknown> = {}): TableEntry {
    if (this.getTableEntry(table, name)) throw new DxfError(`${table} "${name}" exists already`);
    const t = this.ensureTable(table);
    const entry: TableEntry = {
      kind: 'tableEntry',
      type: table,
      handle: '',
      owner: this.version > 'AC1009' ? t.head.handle : '',
      attrs: { name, ...defaultEntryAttrs(table), ...attrs },
    };
    if (this.hasHandles) {
      entry.handle = this.allocHandle();
      this.index.set(entry.handle, entry);
    }
    t.entries.push(entry);
    return entry;
  }

  removeTableEntry(table: TableName, name: string): void {
    const t = this.tables.get(table);
    const e = this.getTableEntry(table, name);
    if (!t || !e) return;
    t.entries.splice(t.entries.indexOf(e), 1);
    this.unindexRecord(e);
  }

  // ---- blocks and layouts ----------------------------------------------------------------------

  getBlock(name: string): Block | undefined {
    const exact = this.blocks.get(name);
    if (exact) return exact;
    const key = name.toUpperCase();
    for (const b of this.blocks.values()) if (b.name.toUpperCase() === key) return b;
    if (key === '*MODEL_SPACE' || key === '$MODEL_SPACE') return this.findBlock(isModelSpaceName);
    if (key === '*PAPER_SPACE' || key === '$PAPER_SPACE') return this.findBlock(isActivePaperSpaceName);
    return undefined;
  }

  private findBlock(test: (name: string) => boolean): Block | undefined {
    for (const b of this.blocks.values()) if (test(b.name)) return b;
    return undefined;
  }

  modelSpace(): Block {
    return this.findBlock(isModelSpaceName) ?? this.createLayoutBlock(this.version <= 'AC1009' ? '$MODEL_SPACE' : MODEL_SPACE);
  }

  /** The active paper space (created when the drawing has none). */
  paperSpace(): Block {
    return this.findBlock(isActivePaperSpaceName) ?? this.createLayoutBlock(this.version <= 'AC1009' ? '$PAPER_SPACE' : PAPER_SPACE);
  }

  /** Creates the model or active paper space block of a drawing that lacks it. */
  createLayoutBlock(name: string): Block {
    return this.addBlock(name, [0, 0, 0]);
  }

  layouts(): { name: string; block: Block; handle: string }[] {
    const result: { name: string; block: Block; handle: string; order: number }[] = [];
    for (const o of this.objects) {
      if (o.type !== 'LAYOUT') continue;
      const brh = o.attrs.block_record_handle;
      const rec = typeof brh === 'string' ? this.index.get(brh) : undefined;
      const blockName = rec && typeof rec.attrs.name === 'string' ? rec.attrs.name : undefined;
      const block = blockName !== undefined ? this.getBlock(blockName) : undefined;
      if (!block) continue;
      const name = typeof o.attrs.name === 'string' ? o.attrs.name : '';
      const order = isModelSpaceName(block.name) ? -1 : typeof o.attrs.taborder === 'number' ? o.attrs.taborder : 0;
      result.push({ name, block, handle: o.handle, order });
    }
    if (result.length === 0) {
      return [
        { name: 'Model', block: this.modelSpace(), handle: '' },
        { name: 'Layout1', block: this.paperSpace(), handle: '' },
      ];
    }
    result.sort((a, b) => a.order - b.order);
    return result.map(({ name, block, handle }) => ({ name, block, handle }));
  }

  addBlock(name: string, basePoint: [number, number, number], attrs: Record<string, unknown> = {}): Block {
    if (this.getBlock(name)) throw new DxfError(`block "${name}" exists already`);
    let owner = '';
    if (this.version > 'AC1009') {
      const record = this.getTableEntry('BLOCK_RECORD', name) ?? this.addTableEntry('BLOCK_RECORD', name);
      owner = record.handle;
    }
    const paper = isPaperSpaceName(name);
    const common = paper ? { paperspace: 1, layer: '0' } : { layer: '0' };
    const block: Entity = {
      kind: 'entity',
      type: 'BLOCK',
      handle: '',
      owner,
      attrs: { ...common, name, flags: 0, base_point: basePoint, name2: name, xref_path: '', ...attrs },
    };
    const endblk: Entity = { kind: 'entity', type: 'ENDBLK', handle: '', owner, attrs: { ...common } };
    if (this.hasHandles) {
      block.handle = this.allocHandle();
      endblk.handle = this.allocHandle();
      this.index.set(block.handle, block);
      this.index.set(endblk.handle, endblk);
    }
    const b: Block = { name, block, endblk, entities: [] };
    this.blocks.set(name, b);
    return b;
  }

  removeBlock(name: string): void {
    const b = this.getBlock(name);
    if (!b) return;
    this.blocks.delete(b.name);
    this.unindexRecord(b.block);
    this.unindexRecord(b.endblk);
    for (const e of b.entities) for (const r of entityTree(e)) this.unindexRecord(r);
    this.removeTableEntry('BLOCK_RECORD', b.name);
  }

  addLayout(name: string): { name: string; block: Block; handle: string } {
    if (this.version <= 'AC1009') throw new DxfError('R12 drawings have a single paper space; save as R2000 or later to add layouts');
    if (this.layouts().some((l) => l.name.toUpperCase() === name.toUpperCase())) throw new DxfError(`layout "${name}" exists already`);
    if (!this.namedDictionary('ACAD_LAYOUT')) throw new DxfError('the drawing has no ACAD_LAYOUT dictionary');
    let n = 0;
    while (this.getBlock(`*Paper_Space${n}`)) n++;
    const hasPaperSpace = this.findBlock(isActivePaperSpaceName) !== undefined;
    const block = this.createLayoutBlock(hasPaperSpace ? `*Paper_Space${n}` : PAPER_SPACE);
    return this.attachLayout(block.name, name);
  }

  /**
   * A LAYOUT object named `name` for the layout block `blockName` (model space or a paper space
   * that has its BLOCK_RECORD), listed in ACAD_LAYOUT and named by the record: a new layout's, or
   * one whose LAYOUT was lost (a file cut short), which would otherwise have no tab. Its settings
   * are those of `like` (a LAYOUT of another drawing), else of a layout of the same kind here.
   */
  attachLayout(blockName: string, name: string, like?: DxfObject): { name: string; block: Block; handle: string } {
    const block = this.getBlock(blockName);
    const record = this.getTableEntry('BLOCK_RECORD', blockName);
    if (!block || !record || !(isModelSpaceName(blockName) || isPaperSpaceName(blockName))) throw new DxfError(`"${blockName}" is no layout block with a block record`);
    const layoutDict = this.namedDictionary('ACAD_LAYOUT');
    if (!layoutDict) throw new DxfError('the drawing has no ACAD_LAYOUT dictionary');
    const model = isModelSpaceName(blockName);
    const layouts = this.objects.filter((o) => o.type === 'LAYOUT');
    // the settings of a layout of the same kind where there is one
    const template = like ?? layouts.find((o) => (o.attrs.name === 'Model') === model) ?? layouts.find((o) => o.attrs.name !== 'Model');
    const taborder = model ? 0 : Math.max(0, ...layouts.map((o) => (typeof o.attrs.taborder === 'number' ? o.attrs.taborder : 0))) + 1;
    const layout: DxfObject = {
      kind: 'object',
      type: 'LAYOUT',
      handle: '',
      owner: layoutDict.handle,
      attrs: { ...(template ? structuredClone(template.attrs) : {}), name, taborder, block_record_handle: record.handle },
      appData: [{ name: 'ACAD_REACTORS', tags: [[330, layoutDict.handle]] }],
    };
    delete layout.attrs.viewport_handle;
    if (template?.extra) layout.extra = structuredClone(template.extra);
    if (template?.markers) layout.markers = [...template.markers];
    this.addObject(layout);
    record.attrs.layout = layout.handle;
    dictEntries(layoutDict).push({ name, handle: layout.handle, code: 350 });
    return { name, block, handle: layout.handle };
  }

  /** The root dictionary (first object) entry of that name, when it is a dictionary. */
  namedDictionary(name: string): DxfObject | undefined {
    const root = this.objects[0];
    if (!root || root.type !== 'DICTIONARY') return undefined;
    const entry = dictEntries(root).find((e) => e.name === name);
    const rec = entry ? this.index.get(entry.handle) : undefined;
    return rec && (rec.type === 'DICTIONARY' || rec.type === 'ACDBDICTIONARYWDFLT') ? (rec as DxfObject) : undefined;
  }

  // ---- entities ----------------------------------------------------------------------------------

  addEntity(entity: Entity, blockName?: string): Entity {
    const block = blockName === undefined ? this.modelSpace() : this.getBlock(blockName);
    if (!block) throw new DxfError(`no block "${blockName}"`);
    this.adopt(entity, block.block.owner);
    if (isPaperSpaceName(block.name)) entity.attrs.paperspace = 1;
    else if (entity.attrs.paperspace !== undefined) delete entity.attrs.paperspace;
    if (entity.children?.length && !entity.seqend) {
      entity.seqend = { kind: 'entity', type: 'SEQEND', handle: '', owner: '', attrs: { layer: entity.attrs.layer ?? '0' } };
    }
    for (const c of entity.children ?? []) this.adopt(c, entity.handle);
    if (entity.seqend) this.adopt(entity.seqend, entity.handle);
    block.entities.push(entity);
    return entity;
  }

  /** Gives a record a free handle (a copy's cleared or clashing one) and its owner, and indexes it. */
  private adopt(rec: Entity, owner: string): void {
    const clash = rec.handle !== '' && this.index.has(rec.handle) && this.index.get(rec.handle) !== rec;
    if (rec.handle === '' || clash) {
      // a copy must not share the original's extension dictionary or reactors
      if (rec.appData) {
        rec.appData = rec.appData.filter((g) => g.name !== 'ACAD_XDICTIONARY' && g.name !== 'ACAD_REACTORS');
        if (rec.appData.length === 0) delete rec.appData;
      }
      rec.handle = this.newHandle();
    }
    rec.owner = this.version > 'AC1009' ? owner : '';
    if (rec.handle) this.index.set(rec.handle, rec);
  }

  removeEntity(handle: string): Entity | undefined {
    const rec = this.index.get(handle.toUpperCase());
    if (!rec) return undefined;
    const block = this.blockOf(rec.handle);
    if (!block) return undefined;
    const i = block.entities.indexOf(rec as Entity);
    if (i < 0) return undefined;
    block.entities.splice(i, 1);
    for (const r of entityTree(rec as Entity)) this.unindexRecord(r);
    return rec as Entity;
  }

  /** Removes many entities in one pass over each block (removeEntity is linear per call). */
  removeEntities(handles: Iterable<string>): Entity[] {
    const doomed = new Set<DxfRecord>();
    for (const h of handles) {
      const rec = this.index.get(h.toUpperCase());
      if (rec) doomed.add(rec);
    }
    const removed: Entity[] = [];
    if (doomed.size === 0) return removed;
    for (const b of this.blocks.values()) {
      if (!b.entities.some((e) => doomed.has(e))) continue;
      b.entities = b.entities.filter((e) => {
        if (!doomed.has(e)) return true;
        removed.push(e);
        for (const r of entityTree(e)) this.unindexRecord(r);
        return false;
      });
    }
    return removed;
  }

  blockOf(handle: string): Block | undefined {
    const rec = this.index.get(handle.toUpperCase());
    if (!rec) return undefined;
    if (rec.owner) {
      const parent = this.index.get(rec.owner);
      if (parent && (parent.type === 'INSERT' || parent.type === 'POLYLINE') && rec.type !== 'BLOCK') {
        const b = this.blockOf(parent.handle);
        if (b && b.entities.includes(parent as Entity)) return b;
      }
      if (parent && parent.type === 'BLOCK_RECORD' && typeof parent.attrs.name === 'string') {
        const b = this.getBlock(parent.attrs.name);
        if (b && (b.entities.includes(rec as Entity) || b.block === rec || b.endblk === rec)) return b;
      }
    }
    for (const b of this.blocks.values()) {
      if (b.block === rec || b.endblk === rec || b.entities.includes(rec as Entity)) return b;
    }
    return undefined;
  }

  // ---- objects -----------------------------------------------------------------------------------

  addObject(obj: DxfObject): DxfObject {
    if (obj.handle === '' || (this.index.has(obj.handle) && this.index.get(obj.handle) !== obj)) obj.handle = this.newHandle();
    this.index.set(obj.handle, obj);
    this.objects.push(obj);
    return obj;
  }

  removeObject(handle: string): DxfObject | undefined {
    const rec = this.index.get(handle.toUpperCase());
    const i = rec ? this.objects.indexOf(rec as DxfObject) : -1;
    if (i < 0) return undefined;
    this.objects.splice(i, 1);
    this.unindexRecord(rec!);
    return rec as DxfObject;
  }
}

/** An entity with its ATTRIB/VERTEX children and SEQEND. */
export function* entityTree(e: Entity): Iterable<Entity> {
  yield e;
  if (e.children) yield* e.children;
  if (e.seqend) yield e.seqend;
}

function defaultEntryAttrs(table: TableName): Record<string, unknown> {
  switch (table) {
    case 'LAYER':
      return { flags: 0, color: 7, linetype: 'Continuous' };
    case 'LTYPE':
      return { flags: 0, description: '', alignment: 65, items: 0, total_pattern_length: 0 };
    case 'STYLE':
      return { flags: 0, height: 0, width: 1, oblique: 0, generation_flags: 0, last_height: 2.5, font: 'txt', bigfont: '' };
    case 'BLOCK_RECORD':
      return {};
    default:
      return { flags: 0 };
  }
}
