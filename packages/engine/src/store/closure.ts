// The dependency closure of entities copied between drawings: everything they name or point at
// comes along, as AutoCAD's COPYCLIP/PASTECLIP, WBLOCK and INSERT of a drawing do. One entry
// point (`copyEntities`) serves entities_copy_to (and the editor's paste through it), wblock and
// any op that moves entities into another drawing.
//
// What is brought: block definitions (named and anonymous, nested to any depth, attribute
// definitions included, the arrow blocks dimension styles name), layers, linetypes, text styles,
// dimension styles, APPIDs of xdata, objects filed under a name in the root dictionary's
// dictionaries (MLINE / MLEADER / TABLE styles, image definitions, materials, visual styles ...)
// and the paper-space layout entities came from. Every handle reference of a copy goes through
// one map (source handle -> target handle, `mapHandleRefs` of the dxf package); a reference to
// something not brought (a reactor, an extension dictionary, an entity left behind) is dropped.
//
// Conflicts are resolved as AutoCAD does ("duplicate definitions ignored"): a layer, style or
// named block the target has keeps the target's definition; an anonymous block (*D, *U, *X, *T
// ...) is always copied under a new anonymous name.
import type { Block, DocumentApi, DxfObject, DxfRecord, Entity, TableEntry, TableName, Tag } from '../dxf.js';
import { dxf, isReferenceCode, mapHandleRefs } from '../dxf.js';
import { deepClone } from './clone.js';
import { dictEntries, rootDictionary, setDictEntry } from './objects.js';
import { imageDictionary, linkImageToDef } from '../plot/images.js';
import { drawForR12 } from '../render/r12-drawer.js';

/** Where copies go: a Transaction (one undo step), or a plain document (`directSink`). */
export interface CopySink {
  doc: DocumentApi;
  addEntity(e: Entity, block?: string): Entity;
  addTableEntry(table: TableName, name: string, attrs?: Record<string, unknown>): TableEntry;
  addBlock(name: string, base: [number, number, number], attrs?: Record<string, unknown>): Block;
  addObject(o: DxfObject): DxfObject;
  /** Called before a record that existed is changed in place. */
  touch<R extends DxfRecord>(rec: R): R;
  /** A change outside records (CLASSES) with its exact reverse. */
  custom(label: string, redo: () => void, undo: () => void): void;
  /** A document method that creates several records (a layout). */
  structural<T>(fn: () => T): T;
}

export function directSink(doc: DocumentApi): CopySink {
  return {
    doc,
    addEntity: (e, block) => doc.addEntity(e, block),
    addTableEntry: (t, n, a) => doc.addTableEntry(t, n, a),
    addBlock: (n, b, a) => doc.addBlock(n, b, a),
    addObject: (o) => doc.addObject(o),
    touch: (r) => r,
    custom: (_l, redo) => redo(),
    structural: (fn) => fn(),
  };
}

export const DEPENDENCY_KINDS = [
  'blocks', 'layers', 'linetypes', 'text_styles', 'dimension_styles', 'appids',
  'mline_styles', 'mleader_styles', 'table_styles', 'image_defs', 'objects', 'layouts',
] as const;
export type DependencyKind = (typeof DEPENDENCY_KINDS)[number];
export type Dependencies = Record<DependencyKind, string[]>;

export interface CopyResult {
  /** Handles of the copies, in the order of the entities given. */
  handles: string[];
  /** What the copies needed and the target did not have: brought from the source. */
  dependencies: Dependencies;
  /** What the copies needed and the target had: the target's definition is kept. */
  kept_from_target: Dependencies;
  /** Anonymous blocks, each copied under the next free anonymous name: source name -> target name. */
  renamed_blocks: Record<string, string>;
  /** Names the source uses without defining them; created with defaults in the target. */
  undefined_in_source: Dependencies;
  /** Into an R12 drawing from a later version: what became what ('LWPOLYLINE -> POLYLINE': 3). */
  converted?: Record<string, number>;
  /** ... and what R12 has no form for ('IMAGE': 1). */
  dropped?: Record<string, number>;
}

export interface CopyOptions {
  /**
   * Block (model space, a layout's block, a block definition) to put the copies in; default: model
   * space for entities of model space or of a block, the layout of the same name for entities of a
   * paper-space layout.
   */
  into?: string;
}

const TABLE_KIND: Partial<Record<TableName, DependencyKind>> = {
  LAYER: 'layers', LTYPE: 'linetypes', STYLE: 'text_styles', DIMSTYLE: 'dimension_styles', APPID: 'appids',
};
const OBJECT_KIND: Record<string, DependencyKind> = {
  MLINESTYLE: 'mline_styles', MLEADERSTYLE: 'mleader_styles', TABLESTYLE: 'table_styles', IMAGEDEF: 'image_defs',
};
const TEXT_STYLED = new Set(['TEXT', 'MTEXT', 'ATTRIB', 'ATTDEF']);
const DIMENSIONS = new Set(['DIMENSION', 'ARC_DIMENSION', 'LARGE_RADIAL_DIMENSION']);
/** Linetype names that are not table entries anyone must bring (BYLAYER / BYBLOCK). */
const PSEUDO_LINETYPES = new Set(['BYLAYER', 'BYBLOCK']);
/** What a reference to something not brought becomes before it is removed. */
const DROP = '\u0000drop';

function emptyDeps(): Dependencies {
  return Object.fromEntries(DEPENDENCY_KINDS.map((k) => [k, [] as string[]])) as Dependencies;
}

function isLayoutBlock(name: string): boolean {
  return /^[*$](model|paper)_space/i.test(name);
}

function isPaperBlock(name: string): boolean {
  return /^[*$]paper_space/i.test(name);
}

function* tree(e: Entity): Iterable<Entity> {
  yield e;
  for (const c of e.children ?? []) yield c;
  if (e.seqend) yield e.seqend;
}

/** Copies `entities` of `src` into the sink's drawing with everything they depend on. */
export function copyEntities(src: DocumentApi, entities: Entity[], sink: CopySink, opts: CopyOptions = {}): CopyResult {
  if (sink.doc.version <= 'AC1009' && src.version > 'AC1009') return copyDownToR12(src, entities, sink, opts);
  const c = new Closure(src, sink);
  const copies = entities.map((e) => ({ copy: c.prepareEntity(e), into: opts.into ?? c.targetBlockFor(e) }));
  c.remap();
  const handles: string[] = [];
  c.addPendingBlockContents();
  for (const { copy, into } of copies) handles.push(c.add(copy, into).handle);
  c.finish();
  return {
    handles,
    dependencies: c.brought,
    kept_from_target: c.kept,
    renamed_blocks: Object.fromEntries(c.renamedForReport),
    undefined_in_source: c.undefinedInSource,
  };
}

/**
 * Into an R12 drawing from a later version: R12 has no form for much of what later versions draw
 * with, and the dxf package's R12 conversion (the one saving as R12 uses) decides what becomes
 * what. The entities go through a scratch drawing of the source's version, converted to R12, and
 * are copied from there; `handles` are those of what R12 kept, in order.
 */
function copyDownToR12(src: DocumentApi, entities: Entity[], sink: CopySink, opts: CopyOptions): CopyResult {
  const scratch = dxf.newDocument(src.version >= 'AC1015' ? src.version : 'AC1015');
  const first = copyEntities(src, entities, directSink(scratch));
  const converted = dxf.convert(scratch, sink.doc.version, drawForR12);
  const r12 = converted.doc;
  const spaces = [r12.modelSpace(), ...[...r12.blocks.values()].filter((b) => isPaperBlock(b.name))];
  const second = copyEntities(r12, spaces.flatMap((b) => b.entities), sink, opts);
  const renamed: Record<string, string> = {};
  for (const [from, via] of Object.entries(first.renamed_blocks)) renamed[from] = second.renamed_blocks[via] ?? via;
  return { ...second, renamed_blocks: renamed, undefined_in_source: first.undefined_in_source, converted: converted.converted, dropped: converted.dropped };
}

/** One copy's bookkeeping: what was planned, the handle map and the records still to add. */
class Closure {
  readonly brought = emptyDeps();
  readonly kept = emptyDeps();
  readonly undefinedInSource = emptyDeps();
  /** Source handle (upper case) -> target handle. */
  private readonly map = new Map<string, string>();
  private readonly done = new Set<string>();
  /** Anonymous block renames: upper-case source name -> target name. */
  private readonly renamed = new Map<string, string>();
  readonly renamedForReport = new Map<string, string>();
  private readonly anonCounters = new Map<string, number>();
  private readonly prepared: Entity[] = [];
  private readonly blockContents: { copy: Entity; block: string }[] = [];
  private readonly tableCopies: TableEntry[] = [];
  private readonly objectCopies: { copy: DxfObject; dict: DxfObject }[] = [];
  private readonly afterRemap: (() => void)[] = [];
  private readonly images: Entity[] = [];
  private readonly types = new Set<string>();
  private readonly layoutTargets = new Map<string, string>();

  constructor(private readonly src: DocumentApi, private readonly sink: CopySink) {}

  private get dst(): DocumentApi {
    return this.sink.doc;
  }

  // ---- entities ---------------------------------------------------------------------------------

  /** A copy of `e` with handles of the target reserved; its dependencies are planned. */
  prepareEntity(e: Entity): Entity {
    const copy = deepClone(e);
    for (const r of tree(copy)) {
      // a copy does not share the original's reactors or extension dictionary
      if (r.appData) {
        r.appData = r.appData.filter((g) => g.name !== 'ACAD_REACTORS' && g.name !== 'ACAD_XDICTIONARY');
        if (!r.appData.length) delete r.appData;
      }
      const h = this.dst.newHandle();
      if (r.handle) this.map.set(r.handle.toUpperCase(), h);
      r.handle = h;
      r.owner = '';
      this.types.add(r.type);
    }
    this.prepared.push(copy);
    for (const r of tree(copy)) this.entityNames(r);
    this.handlesOf(copy, 'entity');
    return copy;
  }

  /** Names an entity refers to: layer, linetype, text and dimension style, blocks, APPIDs. */
  private entityNames(r: Entity): void {
    const a = r.attrs;
    this.table('LAYER', typeof a.layer === 'string' && a.layer ? a.layer : '0');
    if (typeof a.linetype === 'string') this.linetype(a.linetype);
    if (TEXT_STYLED.has(r.type) && typeof a.style === 'string') this.table('STYLE', a.style);
    if (typeof a.dimstyle === 'string') this.table('DIMSTYLE', a.dimstyle);
    else if (DIMENSIONS.has(r.type) || r.type === 'LEADER') this.table('DIMSTYLE', 'Standard');
    if (r.type === 'INSERT' && typeof a.name === 'string') this.block(a.name);
    if (DIMENSIONS.has(r.type) && typeof a.geometry === 'string') this.block(a.geometry);
    if (r.type === 'IMAGE') this.images.push(r);
    // records the dxf package keeps as tags: ACAD_TABLE names its *T block, ARC_DIMENSION and
    // LARGE_RADIAL_DIMENSION their geometry block and style, TOLERANCE its style
    for (const [sub, t] of subclassTags(r)) {
      if (t[0] === 2 && (sub === 'AcDbBlockReference' || sub === 'AcDbDimension')) this.block(t[1]);
      else if (t[0] === 3 && (sub === 'AcDbDimension' || sub === 'AcDbFcf')) this.table('DIMSTYLE', t[1]);
    }
    this.xdataApps(r);
  }

  private xdataApps(r: DxfRecord): void {
    for (const x of r.xdata ?? []) this.table('APPID', x.app);
  }

  /** Plans every record `rec` points at by handle (the walk changes nothing). */
  private handlesOf(rec: DxfRecord, context: 'entity' | 'tableEntry' | 'object'): void {
    mapHandleRefs(rec, context, (h) => {
      this.byHandle(h);
      return h;
    }, { owner: false });
  }

  private byHandle(handle: string): void {
    const h = handle.toUpperCase();
    if (this.map.has(h)) return;
    const rec = this.src.get(h);
    if (!rec) return;
    const name = typeof rec.attrs.name === 'string' ? rec.attrs.name : '';
    switch (rec.type) {
      case 'LAYER': case 'STYLE': case 'DIMSTYLE': case 'APPID':
        this.table(rec.type as TableName, name);
        return;
      case 'LTYPE':
        this.linetype(name);
        return;
      case 'BLOCK_RECORD':
        if (isLayoutBlock(name)) {
          const own = this.dst.getTableEntry('BLOCK_RECORD', name);
          if (own) this.map.set(h, own.handle);
        } else this.block(name);
        return;
      default:
        if ((rec as DxfObject).kind === 'object') this.namedObject(rec as DxfObject);
    }
  }

  /** The block a top-level copy goes to by default (see CopyOptions.into). */
  targetBlockFor(e: Entity): string {
    const dstModel = this.dst.modelSpace().name;
    const b = this.src.blockOf(e.handle);
    if (!b || !isPaperBlock(b.name)) return dstModel;
    const layout = this.src.layouts().find((l) => l.block === b);
    const name = layout?.name ?? 'Layout1';
    const key = name.toUpperCase();
    const known = this.layoutTargets.get(key);
    if (known) return known;
    let target = this.dst.layouts().find((l) => l.name.toUpperCase() === key && isPaperBlock(l.block.name));
    if (target) this.kept.layouts.push(target.name);
    else if (this.dst.version > 'AC1009') {
      target = this.sink.structural(() => this.dst.addLayout(name));
      this.brought.layouts.push(name);
    }
    const blockName = target?.block.name ?? this.dst.getBlock('*Paper_Space')!.name;
    this.layoutTargets.set(key, blockName);
    return blockName;
  }

  // ---- table entries ----------------------------------------------------------------------------

  private linetype(name: string): void {
    if (!name || PSEUDO_LINETYPES.has(name.toUpperCase())) return;
    this.table('LTYPE', name);
  }

  private table(table: TableName, name: string): void {
    if (!name) return;
    const key = `${table}:${name.toUpperCase()}`;
    if (this.done.has(key)) return;
    this.done.add(key);
    const kind = TABLE_KIND[table] ?? 'objects';
    const from = this.src.getTableEntry(table, name);
    const have = this.dst.getTableEntry(table, name);
    if (have) {
      this.kept[kind].push(String(have.attrs.name ?? name));
      if (from?.handle) this.map.set(from.handle.toUpperCase(), have.handle);
      return;
    }
    if (!from) {
      // AutoCAD creates a layer an entity names; the other tables get a default entry the same way
      this.sink.addTableEntry(table, name, table === 'LAYER' ? { color: 7, linetype: 'Continuous' } : {});
      this.undefinedInSource[kind].push(name);
      this.brought[kind].push(name);
      return;
    }
    const attrs = deepClone(from.attrs);
    delete attrs.name;
    // plot style and material of a layer are the target's (those of its layer 0)
    for (const k of Object.keys(attrs)) if (k === 'plotstyle_handle' || k === 'material_handle') delete attrs[k];
    const entry = this.sink.addTableEntry(table, String(from.attrs.name ?? name), attrs);
    if (from.markers) entry.markers = [...from.markers];
    if (from.extra) entry.extra = deepClone(from.extra);
    if (from.xdata) entry.xdata = deepClone(from.xdata);
    if (from.handle) this.map.set(from.handle.toUpperCase(), entry.handle);
    this.tableCopies.push(entry);
    this.brought[kind].push(String(entry.attrs.name));
    this.entryNeeds(table, entry);
  }

  /** What a table entry brings along: its linetype, dimension-style blocks, APPIDs, handles. */
  private entryNeeds(table: TableName, entry: TableEntry): void {
    if (table === 'LAYER') {
      if (typeof entry.attrs.linetype === 'string') this.linetype(entry.attrs.linetype);
      const layer0 = this.dst.getTableEntry('LAYER', '0');
      this.afterRemap.push(() => {
        for (const k of ['plotstyle_handle', 'material_handle']) if (layer0?.attrs[k] !== undefined) entry.attrs[k] = layer0.attrs[k];
      });
    }
    if (table === 'DIMSTYLE') {
      // R12-R14 name the arrow blocks (DIMBLK, DIMBLK1, DIMBLK2); later versions point at them
      for (const tags of Object.values(entry.extra ?? {})) for (const t of tags) if ((t[0] === 5 || t[0] === 6 || t[0] === 7) && t[1]) this.block(t[1]);
    }
    this.xdataApps(entry);
    this.handlesOf(entry, 'tableEntry');
  }

  // ---- blocks -----------------------------------------------------------------------------------

  private block(name: string): void {
    if (!name || isLayoutBlock(name)) return;
    const key = `BLOCK:${name.toUpperCase()}`;
    if (this.done.has(key)) return;
    this.done.add(key);
    const from = this.src.getBlock(name);
    const anonymous = name.startsWith('*');
    const have = anonymous ? undefined : this.dst.getBlock(name);
    const fromRecord = this.src.getTableEntry('BLOCK_RECORD', name);
    if (have) {
      this.kept.blocks.push(have.name);
      const own = this.dst.getTableEntry('BLOCK_RECORD', have.name);
      if (fromRecord?.handle && own) this.map.set(fromRecord.handle.toUpperCase(), own.handle);
      if (from?.block.handle) this.map.set(from.block.handle.toUpperCase(), have.block.handle);
      return;
    }
    if (!from) {
      this.undefinedInSource.blocks.push(name);
      return;
    }
    const newName = anonymous ? this.anonymousName(from.name) : from.name;
    if (anonymous) {
      this.renamed.set(from.name.toUpperCase(), newName);
      this.renamedForReport.set(from.name, newName);
    }
    const attrs = deepClone(from.block.attrs);
    for (const k of ['name', 'name2', 'base_point']) delete attrs[k];
    const bp = Array.isArray(from.block.attrs.base_point) ? (from.block.attrs.base_point as number[]) : [0, 0, 0];
    const nb = this.sink.addBlock(newName, [bp[0] ?? 0, bp[1] ?? 0, bp[2] ?? 0], attrs);
    this.brought.blocks.push(newName);
    if (from.block.handle) this.map.set(from.block.handle.toUpperCase(), nb.block.handle);
    if (from.endblk.handle) this.map.set(from.endblk.handle.toUpperCase(), nb.endblk.handle);
    const record = this.dst.getTableEntry('BLOCK_RECORD', newName);
    if (fromRecord && record) {
      if (fromRecord.handle) this.map.set(fromRecord.handle.toUpperCase(), record.handle);
      // units, explodability, uniform scaling and the record's xdata; not its layout or preview
      for (const [k, v] of Object.entries(fromRecord.attrs)) if (!k.endsWith('_handle') && k !== 'name' && k !== 'layout') record.attrs[k] = deepClone(v);
      if (fromRecord.xdata) record.xdata = deepClone(fromRecord.xdata);
      this.tableCopies.push(record);
      this.xdataApps(record);
      this.handlesOf(record, 'tableEntry');
    }
    this.table('LAYER', typeof from.block.attrs.layer === 'string' && from.block.attrs.layer ? from.block.attrs.layer : '0');
    for (const e of from.entities) this.blockContents.push({ copy: this.prepareEntity(e), block: nb.name });
  }

  /** The next free name of the anonymous block's kind (*D7 -> *D<n>) in the target. */
  private anonymousName(name: string): string {
    const prefix = `*${(/^\*([A-Za-z]+)/.exec(name)?.[1] ?? 'U').toUpperCase()}`;
    let n = this.anonCounters.get(prefix);
    if (n === undefined) {
      n = 0;
      const re = new RegExp(`^\\${prefix}(\\d+)$`, 'i');
      for (const b of this.dst.blocks.keys()) {
        const m = re.exec(b);
        if (m) n = Math.max(n, Number(m[1]));
      }
    }
    do n++;
    while (this.dst.getBlock(`${prefix}${n}`));
    this.anonCounters.set(prefix, n);
    return `${prefix}${n}`;
  }

  // ---- objects ----------------------------------------------------------------------------------

  /**
   * An object filed under a name in one of the root dictionary's dictionaries (ACAD_MLINESTYLE,
   * ACAD_IMAGE_DICT ...): the target's entry of that name is kept, else a copy is filed in the
   * target's dictionary of that name. Other objects (reactors, extension dictionaries, groups)
   * are not brought.
   */
  private namedObject(rec: DxfObject): void {
    const key = `OBJECT:${rec.handle}`;
    if (this.done.has(key)) return;
    this.done.add(key);
    const srcRoot = rootDictionary(this.src);
    const dstRoot = rootDictionary(this.dst);
    if (!srcRoot || !dstRoot || this.dst.version < 'AC1015') return;
    // layouts come with their entities (targetBlockFor); dictionaries are containers, not content
    if (rec.type === 'LAYOUT' || rec.type.includes('DICTIONARY')) return;
    const owner = this.src.get(rec.owner);
    if (!owner || !owner.type.includes('DICTIONARY')) return;
    const entryName = nameIn(owner, rec.handle);
    if (entryName === undefined) return;
    const kind = OBJECT_KIND[rec.type] ?? 'objects';
    const h = rec.handle.toUpperCase();
    if (owner === srcRoot) {
      // an object of the root itself (ACAD_IMAGE_VARS ...): the target's, when it has one
      const own = dictEntries(dstRoot).get(entryName);
      if (own) this.map.set(h, own);
      return;
    }
    const dictName = nameIn(srcRoot, owner.handle);
    if (dictName === undefined) return;
    const image = rec.type === 'IMAGEDEF';
    const dict = image ? imageDictionary(this.sink) : this.dictionary(dstRoot, dictName, owner);
    // An image definition is its file, not its name (embed_image keeps one per file): the
    // target's definition of the same file is kept whatever it is called, and one of another
    // file under the same name leaves the name to it (the copy gets name_2 ...), or the copies
    // would show another picture.
    const taken = image
      ? [...dictEntries(dict)].find(([, v]) => { const d = this.dst.get(v); return d?.type === 'IMAGEDEF' && d.attrs.filename === rec.attrs.filename; })
      : [...dictEntries(dict)].find(([n]) => n.toUpperCase() === entryName.toUpperCase());
    if (taken) {
      this.map.set(h, taken[1]);
      this.kept[kind].push(taken[0]);
      return;
    }
    const name = image ? freeName(dict, entryName) : entryName;
    const copy: DxfObject = {
      kind: 'object', type: rec.type, handle: '', owner: dict.handle, attrs: deepClone(rec.attrs),
      ...(rec.markers ? { markers: [...rec.markers] } : {}),
      ...(rec.extra ? { extra: deepClone(rec.extra) } : {}),
      ...(rec.xdata ? { xdata: deepClone(rec.xdata) } : {}),
    };
    this.sink.addObject(copy);
    this.sink.touch(dict);
    setDictEntry(dict, name, copy.handle);
    this.map.set(h, copy.handle);
    this.objectCopies.push({ copy, dict });
    this.types.add(rec.type);
    this.brought[kind].push(kind === 'objects' ? `${dictName}/${name}` : name);
    this.xdataApps(copy);
    this.handlesOf(copy, 'object');
  }

  /** The target's dictionary of that name in its root, created like the source's when missing. */
  private dictionary(root: DxfObject, name: string, like: DxfRecord): DxfObject {
    const h = dictEntries(root).get(name);
    const found = h ? this.dst.get(h) : undefined;
    if (found && found.type.includes('DICTIONARY')) return found as DxfObject;
    const attrs: Record<string, unknown> = { entries: [] };
    for (const k of ['hard_owned', 'cloning']) if (like.attrs[k] !== undefined) attrs[k] = like.attrs[k];
    const d = this.sink.addObject({
      kind: 'object', type: 'DICTIONARY', handle: '', owner: root.handle, attrs,
      markers: ['AcDbDictionary'], appData: [{ name: 'ACAD_REACTORS', tags: [[330, root.handle]] }],
    });
    this.sink.touch(root);
    setDictEntry(root, name, d.handle);
    return d;
  }

  // ---- references and adding --------------------------------------------------------------------

  /** Points every copied record's references at the target's records; drops the rest. */
  remap(): void {
    const m = (h: string): string => this.map.get(h.toUpperCase()) ?? DROP;
    for (const e of this.prepared) {
      mapHandleRefs(e, 'entity', m, { owner: false });
      for (const r of tree(e)) {
        const lost = scrub(r, 'zero');
        if (lost && (r.type === 'HATCH' || r.type === 'MPOLYGON')) r.attrs.associative = 0;
        this.rename(r);
      }
    }
    for (const t of this.tableCopies) {
      mapHandleRefs(t, 'tableEntry', m, { owner: false });
      scrub(t, 'remove');
    }
    for (const { copy, dict } of this.objectCopies) {
      mapHandleRefs(copy, 'object', m, { owner: false });
      scrub(copy, 'zero');
      copy.appData = [{ name: 'ACAD_REACTORS', tags: [[330, dict.handle]] }];
    }
    for (const f of this.afterRemap) f();
  }

  /** Anonymous block names a copy uses, renamed as their definitions were. */
  private rename(r: Entity): void {
    if (!this.renamed.size) return;
    const to = (n: unknown): string | undefined => (typeof n === 'string' ? this.renamed.get(n.toUpperCase()) : undefined);
    if (r.type === 'INSERT' && to(r.attrs.name)) r.attrs.name = to(r.attrs.name);
    if (DIMENSIONS.has(r.type) && to(r.attrs.geometry)) r.attrs.geometry = to(r.attrs.geometry);
    for (const [sub, t] of subclassTags(r)) if (t[0] === 2 && (sub === 'AcDbBlockReference' || sub === 'AcDbDimension') && to(t[1])) t[1] = to(t[1])!;
  }

  addPendingBlockContents(): void {
    for (const { copy, block } of this.blockContents) this.add(copy, block);
  }

  add(copy: Entity, block: string): Entity {
    const added = this.sink.addEntity(copy, block);
    if (added.type === 'IMAGE') {
      const def = this.dst.get(String(added.attrs.image_def_handle ?? ''));
      if (def?.type === 'IMAGEDEF') linkImageToDef(this.sink, added, def as DxfObject);
    }
    return added;
  }

  /** CLASS entries the target lacks for the record types brought (R2000 on). */
  finish(): void {
    if (this.dst.version < 'AC1015' || !this.src.classes.length) return;
    const nameOf = (tags: Tag[]) => (tags.find((t) => t[0] === 1)?.[1] ?? '').toUpperCase();
    const have = new Set(this.dst.classes.map((c) => nameOf(c.tags)));
    const added = this.src.classes.filter((c) => this.types.has(nameOf(c.tags)) && !have.has(nameOf(c.tags))).map((c) => ({ tags: c.tags.map((t) => [t[0], t[1]] as Tag) }));
    if (!added.length) return;
    const doc = this.dst;
    this.sink.custom('classes of copied records', () => doc.classes.push(...added), () => {
      for (const c of added) {
        const i = doc.classes.indexOf(c);
        if (i >= 0) doc.classes.splice(i, 1);
      }
    });
  }
}

/**
 * The tags a record keeps verbatim with the subclass each belongs to: kept per subclass, or all
 * under '' with their 100 markers (types the dxf package does not declare).
 */
function* subclassTags(rec: DxfRecord): Iterable<[string, Tag]> {
  for (const [key, tags] of Object.entries(rec.extra ?? {})) {
    let sub = key;
    for (const t of tags) {
      if (t[0] === 100) sub = t[1];
      else yield [sub, t];
    }
  }
}

/** `name`, or the first of name_2, name_3 ... the dictionary does not use (as embed_image names). */
function freeName(dict: DxfRecord, name: string): string {
  const taken = new Set([...dictEntries(dict).keys()].map((n) => n.toUpperCase()));
  if (!taken.has(name.toUpperCase())) return name;
  let i = 2;
  while (taken.has(`${name}_${i}`.toUpperCase())) i++;
  return `${name}_${i}`;
}

/** The name under which a dictionary files a handle. */
function nameIn(dict: DxfRecord, handle: string): string | undefined {
  const h = handle.toUpperCase();
  for (const [n, v] of dictEntries(dict)) if (v.toUpperCase() === h) return n;
  return undefined;
}

/**
 * Removes references that were dropped (DROP): attributes and list items go; tags in a table
 * entry go (`remove`), elsewhere they become '0' so a record's tag structure stays whole (`zero`).
 * Returns whether anything was dropped.
 */
function scrub(rec: DxfRecord, tags: 'remove' | 'zero'): boolean {
  let lost = false;
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) {
      if (v.length === 2 && typeof v[0] === 'number' && v[1] === DROP) {
        lost = true;
        v[1] = '0';
        return v;
      }
      for (let i = v.length - 1; i >= 0; i--) {
        if (v[i] === DROP) {
          v.splice(i, 1);
          lost = true;
        } else walk(v[i]);
      }
    } else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        if (o[k] === DROP) {
          delete o[k];
          lost = true;
        } else walk(o[k]);
      }
    }
    return v;
  };
  walk(rec.attrs);
  const tagLists: Tag[][] = [...Object.values(rec.extra ?? {}), ...(rec.appData ?? []).map((g) => g.tags), ...(rec.xdata ?? []).map((g) => g.tags)];
  for (const list of tagLists) {
    for (let i = list.length - 1; i >= 0; i--) {
      const t = list[i]!;
      if (t[1] !== DROP) continue;
      lost = true;
      if (tags === 'remove' && isReferenceCode(t[0]) && t[0] !== 1005 && Object.values(rec.extra ?? {}).includes(list)) list.splice(i, 1);
      else t[1] = '0';
    }
  }
  return lost;
}
