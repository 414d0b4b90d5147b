// Version conversion. Within R2000+ a version change is a relabel (the writer leaves out what the
// target does not know). R12 <-> R13+ change the structure: going down drops what R12 has no
// place for (objects, classes, layouts beyond the first, newer entity types) and says what;
// going up builds on a fresh template, so the result has the handles, owners, block records,
// dictionaries and layouts R2000 readers require.
import { materializeLazy } from '../reader/lazy-entity.js';
import type { Block, Diagnostic, DxfObject, TableEntry, TableName } from '../document-api.js';
import { getDef } from '../defs/registry.js';
import { mapHandleRefs } from '../codec/handles.js';
import { dictEntries } from '../defs/objects.js';
import {
  DxfDocument,
  MODEL_SPACE,
  PAPER_SPACE,
  entityTree,
  isActivePaperSpaceName,
  isModelSpaceName,
  isPaperSpaceName,
} from '../document.js';
import { DxfError } from '../errors.js';
import { HEADER_VARS } from '../header/header-vars.js';
import { DXF_VERSIONS, RELEASE_NAMES, type DxfRecord, type DxfVersion, type Entity, type Tag } from '../types.js';
import { templateDocument } from '../template/template.js';
import { toR12, withAci, type Conversions, type R12Context } from './r12.js';
import type { R12Drawer } from './r12-drawn.js';
import { keptPaperSpace, r12Report, bakeDimensionTexts } from './r12-report.js';
import { fitR12Names } from './r12-names.js';
import { extents } from '../geometry/bbox.js';

export interface ConvertOptions {
  /**
   * Draws, for R12, the entities R12 has no type for (HATCH, WIPEOUT, MLINE, MULTILEADER ...):
   * they become an anonymous block of what it draws. The engine gives its renderer's; without
   * one they are dropped and reported.
   */
  r12Drawer?: R12Drawer | undefined;
}

export interface ConvertResult {
  doc: DxfDocument;
  diagnostics: Diagnostic[];
  /** Kinds of records left out, with counts ('LWPOLYLINE': 12, 'OBJECTS': 40, ...). */
  dropped: Record<string, number>;
  /** What became what, with counts ('LWPOLYLINE -> POLYLINE': 12, 'true colour -> nearest ACI colour': 3). */
  converted: Record<string, number>;
}

/** 'R2018', 'r2000', 'AC1032' -> the $ACADVER name; throws on anything else. */
export function resolveVersion(v: string): DxfVersion {
  const s = v.trim().toUpperCase();
  if ((DXF_VERSIONS as readonly string[]).includes(s)) return s as DxfVersion;
  const byRelease = RELEASE_NAMES[s];
  if (byRelease) return byRelease;
  throw new DxfError(`unknown DXF version "${v}" (use R12, R2000, R2004, R2007, R2010, R2013, R2018 or AC10xx)`);
}

export function convert(doc: DxfDocument, target: DxfVersion, opts: ConvertOptions = {}): ConvertResult {
  const from = doc.version;
  if (target === from) return { doc, diagnostics: [], dropped: {}, converted: {} };
  // conversions copy records as data, which entities kept as bytes are not
  materializeLazy(doc);
  const r12From = from <= 'AC1009';
  const r12To = target <= 'AC1009';
  if (r12From && r12To) return { doc: doc.shallowCopy(target), diagnostics: [], dropped: {}, converted: {} };
  if (!r12From && r12To) return downgradeToR12(doc, target, opts);
  if (target === 'AC1012' || target === 'AC1014') {
    throw new DxfError('saving as R13/R14 is not supported: use R12 or R2000 and later');
  }
  if (r12From) return upgradeFromR12(doc, target);
  return relabel(doc, target);
}

function count(dropped: Record<string, number>, kind: string, n = 1): void {
  dropped[kind] = (dropped[kind] ?? 0) + n;
}

function releaseName(v: DxfVersion): string {
  return Object.entries(RELEASE_NAMES).find(([, ver]) => ver === v)?.[0] ?? v;
}

function convertedDiagnostics(converted: Record<string, number>, target: DxfVersion): Diagnostic[] {
  return Object.entries(converted).map(([kind, n]) => ({
    level: 'info' as const,
    code: 'converted',
    message: `${n} x ${kind}: ${releaseName(target)} has no place for the original`,
  }));
}

function droppedDiagnostics(dropped: Record<string, number>, target: DxfVersion): Diagnostic[] {
  return Object.entries(dropped).map(([kind, n]) => ({
    level: 'warning' as const,
    code: 'dropped',
    message: `${n} ${kind} left out: ${releaseName(target)} has no place for ${n === 1 ? 'it' : 'them'}`,
  }));
}

/** R2000+ -> another R2000+ version; R13/R14 drawings get the layouts R2000 requires. */
function relabel(doc: DxfDocument, target: DxfVersion): ConvertResult {
  const out = doc.shallowCopy(target);
  const dropped: Record<string, number> = {};
  const diagnostics: Diagnostic[] = [];
  // types declared as newer than the target are left out
  const keep = (r: DxfRecord): boolean => {
    const min = getDef(r.type)?.minVersion;
    if (min !== undefined && min > target) {
      count(dropped, r.type);
      return false;
    }
    return true;
  };
  for (const b of out.blocks.values()) b.entities = b.entities.filter(keep);
  out.objects = out.objects.filter(keep);
  if (doc.version < 'AC1015' && target >= 'AC1015') addLayouts(out, diagnostics);
  if (doc.version < 'AC1021' && target >= 'AC1021') out.encoding = out.encoding || 'ANSI_1252';
  return { doc: out, diagnostics: [...diagnostics, ...droppedDiagnostics(dropped, target)], dropped, converted: {} };
}

/** R13/R14 have no LAYOUT objects: create Model and one per paper-space block, as AutoCAD does. */
function addLayouts(doc: DxfDocument, diagnostics: Diagnostic[]): void {
  const root = doc.objects[0];
  if (!root || root.type !== 'DICTIONARY' || doc.namedDictionary('ACAD_LAYOUT')) return;
  const template = templateDocument('AC1032');
  const tplLayouts = template.objects.filter((o) => o.type === 'LAYOUT');
  const rootCopy: DxfObject = { ...root, attrs: { ...root.attrs, entries: [...dictEntries(root)] } };
  replaceRecord(doc, root, rootCopy);
  doc.objects[0] = rootCopy;
  const dict: DxfObject = { kind: 'object', type: 'DICTIONARY', handle: '', owner: rootCopy.handle, attrs: { hard_owned: 0, cloning: 1, entries: [] } };
  doc.addObject(dict);
  dictEntries(rootCopy).push({ name: 'ACAD_LAYOUT', handle: dict.handle, code: 350 });
  const records = doc.tables.get('BLOCK_RECORD');
  if (!records) return;
  let taborder = 1;
  for (const b of doc.blocks.values()) {
    const model = isModelSpaceName(b.name);
    if (!model && !isPaperSpaceName(b.name)) continue;
    const i = records.entries.findIndex((r) => typeof r.attrs.name === 'string' && r.attrs.name.toUpperCase() === b.name.toUpperCase());
    if (i < 0) continue;
    const tpl = tplLayouts.find((l) => (l.attrs.name === 'Model') === model)!;
    const name = model ? 'Model' : `Layout${taborder}`;
    const layout: DxfObject = {
      kind: 'object',
      type: 'LAYOUT',
      handle: '',
      owner: dict.handle,
      attrs: { ...structuredClone(tpl.attrs), name, taborder: model ? 0 : taborder++ },
      appData: [{ name: 'ACAD_REACTORS', tags: [[330, dict.handle]] }],
    };
    if (tpl.extra) layout.extra = structuredClone(tpl.extra);
    delete layout.attrs.viewport_handle;
    const original = records.entries[i]!;
    const record: TableEntry = { ...original, attrs: { ...original.attrs } };
    replaceRecord(doc, original, record);
    records.entries[i] = record;
    layout.attrs.block_record_handle = record.handle;
    doc.addObject(layout);
    record.attrs.layout = layout.handle;
    dictEntries(dict).push({ name, handle: layout.handle, code: 350 });
  }
  diagnostics.push({ level: 'info', code: 'layouts-added', message: 'R13/R14 drawing: LAYOUT objects created for R2000' });
}

/** Swaps a shared record for its copy in the handle index (conversions do not touch the source). */
function replaceRecord(doc: DxfDocument, old: DxfRecord, copy: DxfRecord): void {
  doc.unindexRecord(old);
  doc.indexRecord(copy);
}

function downgradeToR12(doc: DxfDocument, target: DxfVersion, opts: ConvertOptions): ConvertResult {
  const out = new DxfDocument(target);
  out.strictR12 = true;
  const dropped: Record<string, number> = {};
  const converted: Conversions = {};
  const diagnostics: Diagnostic[] = [];
  out.encoding = doc.version >= 'AC1021' ? 'ANSI_1252' : doc.encoding;
  out.codepageDeclared = doc.version >= 'AC1021' || doc.codepageDeclared;
  const headerLeft: string[] = [];
  for (const [name, tags] of doc.header) {
    const info = HEADER_VARS.get(name);
    if (info && info.minVersion > 'AC1009') {
      headerLeft.push(name);
      continue;
    }
    out.header.set(name, tags);
  }
  out.setHeaderTags('$HANDLING', [[70, '1']]);
  for (const [name, table] of doc.tables) {
    if (name === 'BLOCK_RECORD') continue;
    const entries = name === 'LAYER' ? table.entries.map((l) => withAci(l, converted, true))
      : name === 'DIMSTYLE' ? table.entries.map((d) => withArrowNames(d, doc)) : [...table.entries];
    out.tables.set(name, { name, head: table.head, entries });
  }
  // R12 VIEWPORTs keep their view in xdata of the ACAD application
  const appids = out.tables.get('APPID');
  if (appids && !appids.entries.some((a) => String(a.attrs.name ?? '').toUpperCase() === 'ACAD')) {
    appids.entries.unshift({ kind: 'tableEntry', type: 'APPID', handle: '', owner: '', attrs: { name: 'ACAD', flags: 0 } });
  }
  // anonymous blocks for what R12 draws only as geometry, numbered after the drawing's own *U
  let nextU = 1;
  for (const b of doc.blocks.values()) {
    const m = /^\*U(\d+)$/i.exec(b.name);
    if (m) nextU = Math.max(nextU, Number(m[1]) + 1);
  }
  let box: ReturnType<typeof extents> | undefined;
  const ctx: R12Context = {
    drawer: opts.r12Drawer,
    blocks: (entities) => {
      const name = `*U${nextU++}`;
      const common = { layer: '0' };
      const block: Entity = { kind: 'entity', type: 'BLOCK', handle: '', owner: '', attrs: { ...common, name, flags: 1, base_point: [0, 0, 0], name2: name } };
      const endblk: Entity = { kind: 'entity', type: 'ENDBLK', handle: '', owner: '', attrs: { ...common } };
      out.blocks.set(name, { name, block, endblk, entities });
      return name;
    },
    extents: () => (box === undefined ? (box = modelExtents(doc)) : box),
  };
  const convertAll = (entities: Entity[], paper = false): Entity[] => {
    const list: Entity[] = [];
    for (const e of entities) {
      const r12 = toR12(e, doc, converted, ctx);
      if (r12) list.push(...(paper ? r12.map(inPaperSpace) : r12));
      // an invisible entity (60) of a type R12 lacks draws nothing there either
      else count(dropped, e.attrs.invisible === 1 ? `invisible ${e.type}` : e.type);
    }
    return list;
  };
  // R12 has one paper space: the layout AutoCAD keeps, the active one unless only another has content
  const paper = keptPaperSpace(doc);
  if (paper.kept && !isActivePaperSpaceName(paper.kept.block.name)) {
    diagnostics.push({ level: 'info', code: 'layout-kept', message: `paper space of layout "${paper.kept.name}" kept: the active layout is empty (R12 has one paper space)` });
  }
  for (const b of doc.blocks.values()) {
    let name = b.name;
    if (isModelSpaceName(b.name)) name = '$MODEL_SPACE';
    else if (isPaperSpaceName(b.name)) {
      if (paper.kept?.block !== b) {
        const layout = paper.names.get(b) ?? b.name;
        count(dropped, `paper-space layout "${layout}"`);
        if (b.entities.length) count(dropped, `entity of layout "${layout}"`, b.entities.length);
        continue;
      }
      name = '$PAPER_SPACE';
    }
    const block: Entity = name === b.name ? b.block : { ...b.block, attrs: { ...b.block.attrs, name, name2: name } };
    out.blocks.set(name, { name, block, endblk: b.endblk, entities: [] });
    out.blocks.get(name)!.entities = convertAll(b.entities, name === '$PAPER_SPACE');
  }
  // R12 blocks come in the order they were read: the paper space that was not active goes where
  // the active one was (R12 readers expect *MODEL_SPACE and *PAPER_SPACE first, AutoCAD writes them so)
  const spaces = [...out.blocks.entries()].filter(([n]) => n === '$MODEL_SPACE' || n === '$PAPER_SPACE');
  const rest = [...out.blocks.entries()].filter(([n]) => n !== '$MODEL_SPACE' && n !== '$PAPER_SPACE');
  out.blocks.clear();
  for (const [n, b] of [...spaces, ...rest]) out.blocks.set(n, b);
  bakeDimensionTexts(out, converted);
  if (doc.objects.length) count(dropped, 'objects (OBJECTS section)', doc.objects.length);
  if (doc.classes.length) count(dropped, 'classes (CLASSES section)', doc.classes.length);
  for (const r of doc.rawSections) count(dropped, `${r.name} section`);
  diagnostics.push(...fitR12Names(out));
  // records of the drawing keep their handles; those made by the conversion get new ones
  const fresh: DxfRecord[] = [];
  for (const rec of out.records()) if (!rec.handle || !out.indexRecord(rec)) fresh.push(rec);
  for (const rec of fresh) {
    rec.handle = out.newHandle();
    out.indexRecord(rec);
  }
  out.setHeaderTags('$HANDSEED', [[5, out.handseed()]]);
  diagnostics.push(...r12Report(out, headerLeft));
  return { doc: out, diagnostics: [...convertedDiagnostics(converted, target), ...droppedDiagnostics(dropped, target), ...diagnostics], dropped, converted };
}

/** The entity (its vertices, attributes and SEQEND too) marked as paper space's (67), as R12 readers find them. */
function inPaperSpace(e: Entity): Entity {
  const mark = <T extends Entity>(x: T): T => (x.attrs.paperspace === 1 ? x : { ...x, attrs: { ...x.attrs, paperspace: 1 } });
  const out = { ...mark(e) };
  if (e.children) out.children = e.children.map(mark);
  if (e.seqend) out.seqend = mark(e.seqend);
  return out;
}

/** R12's DIMSTYLE names its arrow blocks (DIMBLK 5, DIMBLK1 6, DIMBLK2 7) where later ones point at them (342-344). */
function withArrowNames(d: TableEntry, doc: DxfDocument): TableEntry {
  if (!d.extra) return d;
  const extra: Record<string, Tag[]> = {};
  let named = false;
  for (const [k, tags] of Object.entries(d.extra)) {
    const out: Tag[] = [];
    for (const t of tags) {
      out.push(t);
      const r12Code = t[0] === 342 ? 5 : t[0] === 343 ? 6 : t[0] === 344 ? 7 : 0;
      const block = r12Code ? doc.get(t[1]) : undefined;
      if (block && typeof block.attrs.name === 'string' && !tags.some((x) => x[0] === r12Code)) {
        out.push([r12Code, block.attrs.name]);
        named = true;
      }
    }
    extra[k] = out;
  }
  return named ? { ...d, extra } : d;
}

/** Model space's extents (XY) without its RAYs and XLINEs: $EXTMIN/$EXTMAX when they hold some. */
function modelExtents(doc: DxfDocument): ReturnType<typeof extents> {
  const lo = doc.getHeader('$EXTMIN');
  const hi = doc.getHeader('$EXTMAX');
  if (Array.isArray(lo) && Array.isArray(hi) && lo[0]! <= hi[0]! && lo[1]! <= hi[1]! && Math.abs(lo[0]!) < 1e19 && Math.abs(hi[0]!) < 1e19 && (hi[0]! > lo[0]! || hi[1]! > lo[1]!)) {
    return { min: [lo[0]!, lo[1]!, lo[2] ?? 0], max: [hi[0]!, hi[1]!, hi[2] ?? 0] };
  }
  const model = doc.getBlock(MODEL_SPACE);
  return model ? extents(model.entities.filter((e) => e.type !== 'RAY' && e.type !== 'XLINE'), doc) : null;
}

function cloneForImport(e: Entity): Entity {
  const c = structuredClone(e);
  for (const r of entityTree(c)) {
    r.handle = '';
    r.owner = '';
  }
  return c;
}

/** Tables whose entries the template has and an R12 drawing must not replace (R12 codes differ). */
const KEEP_TEMPLATE_ENTRY: TableName[] = ['DIMSTYLE', 'VPORT'];

function upgradeFromR12(doc: DxfDocument, target: DxfVersion): ConvertResult {
  const out = templateDocument(target);
  // every record gets a handle of the new drawing: old -> new, for the references to follow
  const renamed = new Map<string, string>();
  const rename = (from: DxfRecord, to: DxfRecord): void => {
    if (from.handle && to.handle) renamed.set(from.handle, to.handle);
  };
  const imported: { rec: DxfRecord; context: 'entity' | 'tableEntry' }[] = [];
  const diagnostics: Diagnostic[] = [{ level: 'info', code: 'upgraded', message: `R12 drawing rebuilt as ${target}` }];
  const skip = new Set(['$ACADVER', '$HANDSEED', '$HANDLING', '$DWGCODEPAGE']);
  for (const [name, tags] of doc.header) if (!skip.has(name)) out.header.set(name, structuredClone(tags));
  if (target < 'AC1021') {
    out.encoding = doc.encoding;
    out.codepageDeclared = doc.codepageDeclared;
    if (!doc.codepageDeclared) out.header.delete('$DWGCODEPAGE');
  }
  for (const [name, table] of doc.tables) {
    if (name === 'BLOCK_RECORD') continue;
    for (const entry of table.entries) {
      const entryName = typeof entry.attrs.name === 'string' ? entry.attrs.name : '';
      const have = out.getTableEntry(name, entryName);
      if (have) {
        rename(entry, have);
        if (KEEP_TEMPLATE_ENTRY.includes(name)) continue;
        have.attrs = structuredClone(entry.attrs);
        if (entry.extra) have.extra = structuredClone(entry.extra);
        if (entry.xdata) have.xdata = structuredClone(entry.xdata);
        imported.push({ rec: have, context: 'tableEntry' });
        continue;
      }
      if (name === 'VPORT') continue;
      const added = out.addTableEntry(name, entryName, structuredClone(entry.attrs));
      rename(entry, added);
      if (entry.extra) added.extra = structuredClone(entry.extra);
      if (entry.xdata) added.xdata = structuredClone(entry.xdata);
      imported.push({ rec: added, context: 'tableEntry' });
    }
    const head = out.tables.get(name)?.head;
    if (head) rename(table.head, head);
  }
  for (const b of doc.blocks.values()) {
    let target: Block;
    if (isModelSpaceName(b.name)) target = out.getBlock(MODEL_SPACE)!;
    else if (isActivePaperSpaceName(b.name)) target = out.getBlock(PAPER_SPACE)!;
    else {
      const a = b.block.attrs;
      const base = Array.isArray(a.base_point) ? (a.base_point as number[]) : [0, 0, 0];
      target = out.addBlock(b.name, [base[0] ?? 0, base[1] ?? 0, base[2] ?? 0], {
        flags: a.flags ?? 0,
        ...(a.description !== undefined ? { description: a.description } : {}),
        ...(a.xref_path !== undefined ? { xref_path: a.xref_path } : {}),
      });
      if (b.block.xdata) {
        target.block.xdata = structuredClone(b.block.xdata);
        imported.push({ rec: target.block, context: 'entity' });
      }
    }
    rename(b.block, target.block);
    rename(b.endblk, target.endblk);
    for (const e of b.entities) {
      const copy = out.addEntity(cloneForImport(e), target.name);
      const from = [...entityTree(e)];
      const to = [...entityTree(copy)];
      for (let i = 0; i < from.length && i < to.length; i++) rename(from[i]!, to[i]!);
      imported.push({ rec: copy, context: 'entity' });
    }
  }
  // references the R12 drawing held (xdata 1005, mostly) point at the records' new handles; the
  // owners were given anew
  if (renamed.size > 0) for (const { rec, context } of imported) mapHandleRefs(rec, context, (h) => renamed.get(h) ?? h, { owner: false });
  return { doc: out, diagnostics, dropped: {}, converted: {} };
}
