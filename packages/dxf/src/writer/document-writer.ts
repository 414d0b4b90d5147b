// DxfDocument -> tags, section by section, in the document's own version: HEADER, CLASSES,
// TABLES, BLOCKS, ENTITIES (model space, then the active paper space), OBJECTS, with the raw
// sections put back after the section they followed. Converting to another version is done
// before, by `convert`; here only attributes newer than the version are left out.
import { compiledDef } from '../codec/compiled-def.js';
import { encodeRecord, type EncodeOptions } from '../codec/encode.js';
import type { Block, Table } from '../document-api.js';
import { isActivePaperSpaceName, isModelSpaceName, type DxfDocument } from '../document.js';
import type { Entity, TagSink } from '../types.js';
import { LazyEntity, type RawSink } from '../reader/lazy-entity.js';

function writeSectionHead(out: TagSink, name: string): void {
  out.tag(0, 'SECTION');
  out.tag(2, name);
}

function writeEndsec(out: TagSink): void {
  out.tag(0, 'ENDSEC');
}

function writeHeader(doc: DxfDocument, out: TagSink, opts: EncodeOptions): void {
  writeSectionHead(out, 'HEADER');
  out.tag(9, '$ACADVER');
  const asRead = doc.acadverAsRead;
  out.tag(1, asRead && asRead.version === doc.version ? asRead.text : doc.version);
  const fixed = new Set(['$ACADVER']);
  // (a drawing read without one keeps its code page unknown)
  if (!doc.header.has('$DWGCODEPAGE') && doc.codepageDeclared) {
    out.tag(9, '$DWGCODEPAGE');
    out.tag(3, doc.encoding);
  }
  if (opts.handles && !doc.header.has('$HANDSEED')) {
    out.tag(9, '$HANDSEED');
    out.tag(5, doc.handseed());
  }
  for (const [name, tags] of doc.header) {
    if (fixed.has(name)) continue;
    if (name === '$HANDSEED') {
      if (!opts.handles) continue;
      out.tag(9, name);
      out.tag(5, doc.handseed());
      continue;
    }
    if (name === '$DWGCODEPAGE') {
      out.tag(9, name);
      out.tag(3, doc.encoding);
      continue;
    }
    out.tag(9, name);
    for (const t of tags) out.tag(t[0], t[1]);
  }
  writeEndsec(out);
}

function writeClasses(doc: DxfDocument, out: TagSink): void {
  writeSectionHead(out, 'CLASSES');
  for (const c of doc.classes) {
    out.tag(0, 'CLASS');
    for (const t of c.tags) out.tag(t[0], t[1]);
  }
  writeEndsec(out);
}

/** The TABLE head: name first, the entry count (70) kept current. */
function writeTableHead(t: Table, out: TagSink, opts: EncodeOptions): void {
  const r12 = opts.version <= 'AC1009';
  const head = t.head;
  out.tag(0, 'TABLE');
  out.tag(2, t.name);
  if (opts.handles && head.handle) out.tag(5, head.handle);
  if (head.appData) {
    for (const g of head.appData) {
      out.tag(102, '{' + g.name);
      for (const x of g.tags) out.tag(x[0], x[1]);
      out.tag(102, '}');
    }
  }
  if (head.owner) out.tag(330, head.owner);
  const tags = head.extra?.[''] ?? [];
  if (!tags.some((x) => x[0] === 100 && x[1] === 'AcDbSymbolTable')) {
    if (!r12) out.tag(100, 'AcDbSymbolTable');
    out.tag(70, t.entries.length);
  }
  for (const x of tags) {
    if (x[0] === 70) continue;
    out.tag(x[0], x[1]);
    if (x[0] === 100 && x[1] === 'AcDbSymbolTable') out.tag(70, t.entries.length);
  }
  if (head.xdata) {
    for (const g of head.xdata) {
      out.tag(1001, g.app);
      for (const x of g.tags) out.tag(x[0], x[1]);
    }
  }
}

function writeTables(doc: DxfDocument, out: TagSink, opts: EncodeOptions): void {
  writeSectionHead(out, 'TABLES');
  for (const t of doc.tables.values()) {
    writeTableHead(t, out, opts);
    for (const e of t.entries) encodeRecord(compiledDef(e.type, 'tableEntry'), e, out, opts);
    out.tag(0, 'ENDTAB');
  }
  writeEndsec(out);
}

/** One entity: as the bytes it was read from when it may be (`EncodeOptions.verbatim`), else encoded. */
function writeOne(e: Entity, out: TagSink, opts: EncodeOptions): void {
  const v = opts.verbatim;
  if (v !== undefined && e instanceof LazyEntity && e.writeVerbatim(v.sink, opts.version, v.encoding, v.codepageDeclared)) return;
  encodeRecord(compiledDef(e.type, 'entity'), e, out, opts);
}

export function writeEntity(e: Entity, out: TagSink, opts: EncodeOptions): void {
  writeOne(e, out, opts);
  if (e.children) for (const c of e.children) writeOne(c, out, opts);
  if (e.seqend) writeOne(e.seqend, out, opts);
}

function isEntitiesSectionBlock(b: Block): boolean {
  return isModelSpaceName(b.name) || isActivePaperSpaceName(b.name);
}

function writeBlocks(doc: DxfDocument, out: TagSink, opts: EncodeOptions): void {
  writeSectionHead(out, 'BLOCKS');
  const blockDef = compiledDef('BLOCK', 'entity');
  const endDef = compiledDef('ENDBLK', 'entity');
  for (const b of doc.blocks.values()) {
    encodeRecord(blockDef, b.block, out, opts);
    if (!isEntitiesSectionBlock(b)) for (const e of b.entities) writeEntity(e, out, opts);
    encodeRecord(endDef, b.endblk, out, opts);
  }
  writeEndsec(out);
}

function writeEntities(doc: DxfDocument, out: TagSink, opts: EncodeOptions): void {
  writeSectionHead(out, 'ENTITIES');
  const spaces = [...doc.blocks.values()].filter(isEntitiesSectionBlock);
  spaces.sort((a, b) => (isModelSpaceName(a.name) ? 0 : 1) - (isModelSpaceName(b.name) ? 0 : 1));
  for (const b of spaces) for (const e of b.entities) writeEntity(e, out, opts);
  writeEndsec(out);
}

function writeObjects(doc: DxfDocument, out: TagSink, opts: EncodeOptions): void {
  writeSectionHead(out, 'OBJECTS');
  for (const o of doc.objects) encodeRecord(compiledDef(o.type, 'object'), o, out, opts);
  writeEndsec(out);
}

/** Group codes an R12 reader knows; a drawing converted down to R12 is written with these only. */
function r12Knows(code: number): boolean {
  return code < 100 || (code >= 140 && code < 180) || (code >= 210 && code < 240) || code === 999 || code >= 1000;
}

/**
 * Drops the tags R12 has no codes for (markers, owners, app data groups, R13+ attributes), and an
 * embedded object (`101` up to the record's xdata: the MTEXT of a multi-line ATTRIB), whose codes
 * would read as the record's own.
 */
class R12Filter implements TagSink {
  private embedded = false;
  constructor(private readonly out: TagSink) {}
  tag(code: number, value: string | number): void {
    if (code === 101) this.embedded = true;
    else if (code === 0 || code === 1001) this.embedded = false;
    if (!this.embedded && r12Knows(code)) this.out.tag(code, value);
  }
  point(code: number, p: readonly number[]): void {
    if (!this.embedded && r12Knows(code)) this.out.point(code, p);
  }
}

/**
 * Writes the whole document, `0 EOF` included. `raw`: the ASCII writer behind `sink`, to which
 * entities kept as the bytes they were read from are copied when they may be.
 */
export function writeDocument(doc: DxfDocument, sink: TagSink, raw?: RawSink): void {
  const handles = doc.hasHandles;
  // (lazy entities all have handles: without handles written, their bytes would say more)
  const verbatim = raw && doc.hasLazyRecords && handles && !doc.strictR12 ? { sink: raw, encoding: doc.encoding, codepageDeclared: doc.codepageDeclared } : undefined;
  const opts: EncodeOptions = { version: doc.version, handles, verbatim };
  const out = doc.strictR12 ? new R12Filter(sink) : sink;
  const r12 = doc.version <= 'AC1009';
  const raws = doc.rawSections;
  const rawDone = new Set<object>();
  const writeRaw = (r: (typeof raws)[number]): void => {
    rawDone.add(r);
    writeSectionHead(out, r.name);
    for (const t of r.tags) out.tag(t[0], t[1]);
    writeEndsec(out);
    writeRawAfter(r.name);
  };
  // raw sections go back after the section they followed, chains of them in order
  const writeRawAfter = (name: string | null): void => {
    for (const r of raws) if (r.after === name && !rawDone.has(r)) writeRaw(r);
  };
  const sections: [string, () => void][] = [
    ['HEADER', () => writeHeader(doc, sink, opts)],
    ['CLASSES', () => writeClasses(doc, out)],
    ['TABLES', () => writeTables(doc, out, opts)],
    ['BLOCKS', () => writeBlocks(doc, out, opts)],
    ['ENTITIES', () => writeEntities(doc, out, opts)],
    ['OBJECTS', () => writeObjects(doc, out, opts)],
  ];
  writeRawAfter(null);
  for (const [name, write] of sections) {
    if (r12 && ((name === 'CLASSES' && doc.classes.length === 0) || (name === 'OBJECTS' && doc.objects.length === 0))) continue;
    write();
    writeRawAfter(name);
  }
  // raw sections that followed one this writer leaves out go last
  for (const r of raws) if (!rawDone.has(r)) writeRaw(r);
  out.tag(0, 'EOF');
}
