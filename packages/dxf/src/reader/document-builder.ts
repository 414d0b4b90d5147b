// Records -> DxfDocument. Receives the scanner's records one by one (a file is never held whole),
// follows the sections, decodes each record by its declaration and repairs what broken files
// need (missing ENDBLK/SEQEND/EOF, duplicate or empty handles), reporting each repair.
import { decodeRecord, normHandle } from '../codec/decode.js';
import { mapDocumentRefs } from '../codec/handles.js';
import { compiledDef, type RecordContext } from '../codec/compiled-def.js';
import { repairInvalidNumbers } from './invalid-numbers.js';
import type { Block, Diagnostic, DxfClass, DxfObject, RawSection, Table, TableEntry, TableName } from '../document-api.js';
import {
  DxfDocument,
  PAPER_SPACE,
  TABLE_ORDER,
  entityTree,
  isActivePaperSpaceName,
  isModelSpaceName,
} from '../document.js';
import { codecFor, decodeUnicodeEscapes, isKnownCodepage, isUnicodeVersion } from '../tags/encoding.js';
import type { TagRecord } from '../tags/record-sink.js';
import { ensureStandardSymbols } from '../template/standard-symbols.js';
import type { EntitySummary } from './entity-summary.js';
import { LazyEntity, commonPartTag, type LazySource } from './lazy-entity.js';
import type { TagScanner } from '../tags/source.js';
import { DXF_VERSIONS, type CodecContext, type DxfRecord, type DxfVersion, type Entity, type Tag } from '../types.js';

export interface ReadOptions {
  /** Give every record a handle when the file has none (R12 without $HANDLING). Default false. */
  assignHandles?: boolean;
  /**
   * Add the symbols every drawing has (layer 0, standard linetypes, styles, space block records)
   * where the file lacks them, each with a `missing-symbol` diagnostic. Default false: a plain
   * read keeps the file's records as they are.
   */
  standardSymbols?: boolean;
  /**
   * Keep entities as their bytes until something reads their attributes (ASCII input given or
   * read whole; see reader/lazy-entity.ts). Such entities are `LazyEntity` objects whose
   * attributes are accessors: code that copies records as data (spread, structuredClone) calls
   * `materializeLazy(doc)` first. Saving in the version, code page and form read copies the
   * entities never decoded as their bytes. Default false.
   */
  lazy?: boolean;
  /**
   * Count and box the common entities of the ENTITIES section into this summary instead of
   * keeping them (reader/entity-summary.ts): the document then lacks them. For `linework info`,
   * which reads the file again without it when `summary.trustworthy(doc)` is false.
   */
  summary?: EntitySummary;
}

/** At most this many diagnostics of one code are listed; the rest are counted in a summary. */
const MAX_DIAGNOSTICS_PER_CODE = 50;

/** A handle as DXF has them: upper-case hex of a 64-bit number (leading zeros allowed). */
function isHex(h: string): boolean {
  let digits = 0;
  for (let i = 0; i < h.length; i++) {
    const c = h.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 70))) return false;
    if (digits > 0 || c !== 48) digits++;
  }
  return h.length > 0 && digits <= 16;
}

type Section = 'HEADER' | 'CLASSES' | 'TABLES' | 'BLOCKS' | 'ENTITIES' | 'OBJECTS' | 'RAW';

/** Whose declarations give the defaults of a section's records (repairInvalidNumbers). */
const CONTEXT_OF: Record<Section, RecordContext | null> = {
  HEADER: null, CLASSES: null, RAW: null, TABLES: 'tableEntry', BLOCKS: 'entity', ENTITIES: 'entity', OBJECTS: 'object',
};

// kinds of the record read last (DocumentBuilder.lastKind)
const LAST_NONE = 0;
const LAST_ENTITY = 1;
const LAST_BLOCK = 2;
const LAST_ENTRY = 3;
const LAST_OBJECT = 4;
const LAST_CLASS = 5;
const LAST_HEADER = 6;

function versionOf(raw: string): { version: DxfVersion; known: boolean } {
  const v = raw.trim().toUpperCase();
  if ((DXF_VERSIONS as readonly string[]).includes(v)) return { version: v as DxfVersion, known: true };
  // newer than R2018: the structures are the same as far as this library goes
  if (/^AC10[3-9]\d$/.test(v) || /^AC1[1-9]\d\d$/.test(v)) return { version: 'AC1032', known: false };
  return { version: 'AC1009', known: false };
}

export class DocumentBuilder {
  readonly doc = new DxfDocument('AC1009');
  private scanner: TagScanner | null = null;
  private section: Section | null = null;
  private sectionName = '';
  private lastSection: string | null = null;
  private decodingSet = false;
  /** Whether the BLOCKS section was read to its end (a summary boxes INSERTs only then). */
  private blocksRead = false;
  private sawEof = false;
  private ctx: CodecContext = { version: 'AC1009' };
  private handlesExpected = false;
  private sawHandle = false;
  private table: Table | null = null;
  private block: { block: Entity; entities: Entity[]; line: number } | null = null;
  private parent: Entity | null = null;
  private raw: RawSection | null = null;
  private readonly needHandle: { rec: DxfRecord; old: string }[] = [];
  private readonly pendingModel: Entity[] = [];
  private readonly pendingPaper: Entity[] = [];
  private modelBlock: Block | null = null;
  private paperBlock: Block | null = null;
  private modelOwner = '';
  private paperOwner = '';
  private readonly interned = new Map<string, string>();
  private shared0 = '';
  private shared1 = '';
  private readonly diagCounts = new Map<string, number>();
  // The record read last, to take back when the file turns out to end inside it (a file cut
  // short): its kind, the record (for a VERTEX or ATTRIB its parent), the container, type, line.
  // Plain fields: a closure per record cost the reader a tenth of its time.
  private lastKind = LAST_NONE;
  private lastRec: unknown = null;
  private lastIn: unknown = null;
  private lastType = '';
  private lastLine = 0;

  /** The whole input, when entities may be kept as its bytes (`ReadOptions.lazy`). */
  private lazyBytes: Buffer | null = null;

  constructor(private readonly opts: ReadOptions = {}) {}

  /** The bytes about to be scanned whole: lazy entities may point into them. */
  keepBytes(bytes: Uint8Array): void {
    // (a Buffer view: values are made strings with its latin1 decoding)
    if (this.opts.lazy) this.lazyBytes = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  attach(scanner: TagScanner, binary: boolean): void {
    this.scanner = scanner;
    if (binary) this.lazyBytes = null;
    this.doc.source = { format: binary ? 'binary' : 'ascii' };
  }

  diagnostic(d: Diagnostic): void {
    const n = (this.diagCounts.get(d.code) ?? 0) + 1;
    this.diagCounts.set(d.code, n);
    if (n <= MAX_DIAGNOSTICS_PER_CODE) this.doc.diagnostics.push(d);
  }

  // ---- the record stream ------------------------------------------------------------------------

  record(r: TagRecord): void {
    const line = r.line;
    if (r.codes[0] !== 0) {
      this.diagnostic({ level: 'warning', code: 'stray-tags', message: `${r.n} tags before the first record ignored`, line });
      return;
    }
    const type = r.str(0);
    this.lastKind = LAST_NONE;
    if (r.n > 1) {
      if (r.codes[1] === 5) this.noteHandleCase(r.str(1));
      else if (type !== 'SECTION') {
        // a handle further on, among the common attributes after the first marker (as some R12
        // writers put it): those are few, so the search stops soon
        for (let i = 2; i < r.n && i < 16 && r.codes[i] !== 1001; i++) if (r.codes[i] === 5) {
          this.noteHandleCase(r.str(i));
          break;
        }
      }
    }
    if (r.n > 1) repairInvalidNumbers(r, type === 'SECTION' ? null : CONTEXT_OF[this.section ?? 'RAW'], (d) => this.diagnostic(d));
    if (type === 'SECTION') return this.openSection(r);
    if (type === 'ENDSEC') {
      if (r.n > 1) this.strayTags(r, 1);
      return this.closeSection(line);
    }
    if (type === 'EOF') {
      if (this.section) this.closeSection(line);
      this.sawEof = true;
      return;
    }
    switch (this.section) {
      case 'ENTITIES':
        if (this.opts.summary !== undefined && this.summarize(r, this.opts.summary)) return;
        return this.onEntity(this.entity(r), line, this.distribute);
      case 'BLOCKS':
        return this.onBlockRecord(r);
      case 'TABLES':
        return this.onTableRecord(r);
      case 'OBJECTS':
        return this.onObject(r);
      case 'CLASSES': {
        if (type !== 'CLASS') this.diagnostic({ level: 'warning', code: 'unexpected-record', message: `${type} in CLASSES kept as a class`, line });
        const c = { tags: tagsOf(r, 1) };
        this.doc.classes.push(c);
        this.taken(LAST_CLASS, c, null, type, line);
        return;
      }
      case 'RAW':
        this.raw!.tags.push(...tagsOf(r, 0));
        return;
      case 'HEADER':
        this.diagnostic({ level: 'warning', code: 'unexpected-record', message: `${type} inside HEADER ignored`, line });
        if (r.n > 1) this.strayTags(r, 1);
        return;
      default:
        this.diagnostic({ level: 'warning', code: 'outside-section', message: `${type} outside of any section ignored`, line });
        if (r.n > 1) this.strayTags(r, 1);
    }
  }

  /**
   * Tags where no record takes them (after ENDSEC, SECTION's name, a record outside sections).
   * Header variables among them (`9 $NAME` and its values) are kept in the header, as ezdxf's
   * recover mode keeps them; the rest is reported and dropped.
   */
  private strayTags(r: TagRecord, from: number): void {
    const { codes, n, line } = r;
    const header = this.doc.header;
    let name: string | null = null;
    let values: Tag[] = [];
    let lost = 0;
    const keep = (): void => {
      if (name === null) return;
      if (values.length > 0) {
        header.set(name, values);
        this.diagnostic({ level: 'warning', code: 'header-outside-section', message: `header variable ${name} outside the HEADER section kept`, line });
      } else lost++;
    };
    for (let i = from; i < n; i++) {
      if (codes[i] === 9) {
        keep();
        name = r.str(i).trim();
        values = [];
      } else if (name !== null) values.push([codes[i]!, r.str(i)]);
      else lost++;
    }
    keep();
    if (lost > 0) this.diagnostic({ level: 'warning', code: 'stray-tags', message: `${lost} tags after ${r.str(0)} ignored`, line });
  }

  private openSection(r: TagRecord): void {
    const { codes, n, line } = r;
    if (this.section) {
      this.diagnostic({ level: 'warning', code: 'missing-endsec', message: `section ${this.sectionName} has no ENDSEC`, line });
      this.closeSection(line);
    }
    const name = n > 1 && codes[1] === 2 ? r.str(1).trim().toUpperCase() : '';
    this.sectionName = name;
    if (name === 'HEADER') {
      this.readHeader(r);
      this.section = 'HEADER';
      return;
    }
    if (!this.decodingSet) this.applyVersion();
    switch (name) {
      case 'CLASSES':
      case 'TABLES':
      case 'BLOCKS':
      case 'OBJECTS':
        this.section = name;
        break;
      case 'ENTITIES':
        this.section = name;
        this.startEntities();
        break;
      default:
        this.section = 'RAW';
        this.raw = { name: name || (n > 1 ? r.str(1) : ''), tags: tagsOf(r, 2), after: this.lastSection };
    }
    if (n > 2 && this.section !== 'RAW') this.strayTags(r, 2);
  }

  private closeSection(line: number): void {
    switch (this.section) {
      case null:
        this.diagnostic({ level: 'warning', code: 'stray-endsec', message: 'ENDSEC without SECTION ignored', line });
        return;
      case 'TABLES':
        this.table = null;
        break;
      case 'BLOCKS':
        this.closeParent();
        if (this.block) {
          this.diagnostic({ level: 'warning', code: 'missing-endblk', message: `block "${String(this.block.block.attrs.name)}" has no ENDBLK`, line: this.block.line });
          this.endBlock(null, line);
        }
        this.blocksRead = true;
        break;
      case 'ENTITIES':
        this.closeParent();
        break;
      case 'RAW':
        this.doc.rawSections.push(this.raw!);
        this.raw = null;
        break;
      default:
    }
    this.lastSection = this.sectionName;
    this.section = null;
  }

  // ---- header and decoding ----------------------------------------------------------------------

  private readHeader(r: TagRecord): void {
    const { codes, n } = r;
    const header = this.doc.header;
    let name: string | null = null;
    let tags: Tag[] = [];
    for (let i = 2; i < n; i++) {
      if (codes[i] === 9) {
        if (name !== null) header.set(name, tags);
        name = r.str(i).trim();
        tags = [];
      } else if (name !== null) tags.push([codes[i]!, r.str(i)]);
    }
    if (name !== null) {
      header.set(name, tags);
      // a file cut inside its header may have cut the last variable short
      const lastName = name;
      this.taken(LAST_HEADER, lastName, null, lastName, r.line);
    }
    this.applyVersion();
    // the header was scanned before its code page was known: decode its text now
    const codec = codecFor(this.doc.encoding, isUnicodeVersion(this.doc.version));
    const escapes = !isUnicodeVersion(this.doc.version);
    for (const list of header.values()) {
      for (const t of list) {
        let v = t[1];
        if (hasHighChars(v)) v = codec.decode(Buffer.from(v, 'latin1'), 0, v.length);
        if (escapes && v.includes('\\U+')) v = decodeUnicodeEscapes(v);
        t[1] = v;
      }
    }
  }

  /** Reads $ACADVER / $DWGCODEPAGE (defaults without a header) and sets the scanner's decoding. */
  private applyVersion(): void {
    this.decodingSet = true;
    const doc = this.doc;
    const acadver = doc.header.get('$ACADVER')?.[0]?.[1];
    if (acadver !== undefined) {
      const { version, known } = versionOf(acadver);
      doc.version = version;
      if (!known) {
        this.diagnostic({ level: 'info', code: 'version', message: `$ACADVER ${acadver} read as ${version}` });
        const text = acadver.trim();
        if (text !== '') doc.acadverAsRead = { text, version };
      }
    } else {
      doc.version = 'AC1009';
      this.diagnostic({ level: 'info', code: 'version', message: 'no $ACADVER: read as R12 (AC1009)' });
    }
    const cp = doc.header.get('$DWGCODEPAGE')?.[0]?.[1]?.trim();
    doc.encoding = cp || 'ANSI_1252';
    // no code page named: text is read as cp1252 and written back byte for byte, without one
    doc.codepageDeclared = !!cp;
    // the writer always starts with $ACADVER and $DWGCODEPAGE: the model does too
    const rest = [...doc.header].filter(([k]) => k !== '$ACADVER' && (cp !== undefined || k !== '$DWGCODEPAGE'));
    doc.header.clear();
    doc.header.set('$ACADVER', [[1, doc.version]]);
    if (cp === '') doc.header.set('$DWGCODEPAGE', [[3, doc.encoding]]);
    for (const [k, v] of rest) doc.header.set(k, v);
    const utf8 = isUnicodeVersion(doc.version);
    if (!utf8 && cp && !isKnownCodepage(cp)) {
      this.diagnostic({ level: 'warning', code: 'codepage', message: `unknown code page ${cp}: text read as cp1252` });
    }
    this.scanner?.setDecoder(codecFor(doc.encoding, utf8).decode, !utf8);
    this.ctx = { version: doc.version };
    this.lazySource = null;
    this.handlesExpected = doc.hasHandles;
  }

  // ---- records ----------------------------------------------------------------------------------

  /**
   * One string per entity layer name and owner handle. Most entities share the previous one's
   * layer and owner: the last two strings handed out are compared before the lookup.
   */
  private readonly share = (s: string): string => {
    if (s === this.shared0) return this.shared0;
    if (s === this.shared1) {
      this.shared1 = this.shared0;
      this.shared0 = s;
      return s;
    }
    let had = this.interned.get(s);
    if (had === undefined) {
      had = s;
      this.interned.set(s, s);
    }
    this.shared1 = this.shared0;
    this.shared0 = had;
    return had;
  };

  /** Registers a decoded record's handle, noting empty, invalid and duplicate ones for repair. */
  private register(rec: DxfRecord, line: number): void {
    const h = rec.handle;
    if (h === '') {
      // R12 files with $HANDLING leave table entries without handles: that is normal, not damage
      if (this.handlesExpected && this.doc.version > 'AC1009') {
        this.needHandle.push({ rec, old: '' });
        this.diagnostic({ level: 'warning', code: 'empty-handle', message: `${rec.type} without handle: new handle assigned`, line });
      }
      return;
    }
    this.sawHandle = true;
    if (h === '0' || !isHex(h)) {
      rec.handle = '';
      this.needHandle.push({ rec, old: h });
      this.diagnostic({ level: 'warning', code: 'invalid-handle', message: `${rec.type} has invalid handle "${h}": new handle assigned`, line });
      return;
    }
    if (!this.doc.indexRecord(rec)) {
      rec.handle = '';
      this.needHandle.push({ rec, old: h });
      this.diagnostic({ level: 'warning', code: 'duplicate-handle', message: `${rec.type} reuses handle ${h}: new handle assigned`, line });
    }
  }

  /**
   * Counts an ENTITIES record into the summary instead of keeping it (`ReadOptions.summary`);
   * false when it is read as always: not one of the summary's types, its handle and owner not its
   * first two tags (where every decoding path takes them), a handle to repair, a layout not known
   * yet, or geometry the summary does not read.
   */
  private summarize(r: TagRecord, s: EntitySummary): boolean {
    const codes = r.codes;
    if (!this.decodingSet || r.n < 4 || codes[1] !== 5 || codes[2] !== 330 || codes[3] !== 100) return false;
    const type = r.str(0);
    if (!s.covers(type) || (type === 'INSERT' && !this.blocksRead)) return false;
    const handle = normHandle(r.str(1));
    if (handle === '0' || !isHex(handle)) return false;
    const owner = normHandle(r.str(2));
    let paper: boolean;
    if (owner !== '' && owner === this.paperOwner) paper = true;
    else if (owner !== '' && owner === this.modelOwner) paper = false;
    else {
      const flag = paperSpaceFlag(r);
      if (flag < 0) return false;
      paper = flag === 1;
    }
    const block = paper ? this.paperBlock : this.modelBlock;
    if (block === null || !s.take(r, type, handle, owner, block, !paper, this.doc)) return false;
    this.closeParent();
    return true;
  }

  /** Where lazy entities lie, once the decoding of the file is known (`applyVersion`). */
  private lazySource: LazySource | null = null;

  private lazyEntity(r: TagRecord, type: string): Entity | null {
    const codes = r.codes;
    // handle and owner as the first two tags, as every decoding path takes them (lazy-entity.ts)
    if (!r.clean || r.byteStart < 0 || r.n < 4 || codes[1] !== 5 || codes[2] !== 330 || codes[3] !== 100 || type === 'BLOCK' || type === 'ENDBLK') return null;
    let src = this.lazySource;
    if (src === null) {
      const doc = this.doc;
      const utf8 = isUnicodeVersion(doc.version);
      src = this.lazySource = {
        bytes: this.lazyBytes!, decoder: codecFor(doc.encoding, utf8).decode, escapes: !utf8, ctx: this.ctx, share: this.share,
        version: doc.version, encoding: doc.encoding, codepageDeclared: doc.codepageDeclared,
      };
      doc.hasLazyRecords = true;
    }
    const rec = new LazyEntity(type, normHandle(r.str(1)), this.share(normHandle(r.str(2))), src, r.byteStart, r.byteEnd);
    this.register(rec, r.line);
    return rec;
  }

  private entity(r: TagRecord): Entity {
    if (this.lazyBytes !== null && this.decodingSet) {
      const type = r.str(0);
      const lazy = this.lazyEntity(r, type);
      if (lazy) return lazy;
    }
    const rec = decodeRecord(compiledDef(r.str(0), 'entity'), r, this.ctx, this.share) as Entity;
    // MTEXT joins its 250-char chunks: an escape split across two of them is decoded only now
    if (rec.type === 'MTEXT' && this.doc.version < 'AC1021' && typeof rec.attrs.text === 'string' && rec.attrs.text.includes('\\U+')) {
      rec.attrs.text = decodeUnicodeEscapes(rec.attrs.text);
    }
    this.register(rec, r.line);
    return rec;
  }

  /** Entity flow shared by BLOCKS and ENTITIES: VERTEX/ATTRIB and SEQEND attach to their parent. */
  private onEntity(e: Entity, line: number, target: (e: Entity, line: number) => void): void {
    const type = e.type;
    if (type === 'VERTEX' || type === 'ATTRIB') {
      const p = this.parent;
      if (p && (p.type === 'POLYLINE') === (type === 'VERTEX')) {
        (p.children ??= []).push(e);
        // a POLYLINE or INSERT cut among its children is not whole: it goes with the child
        this.taken(LAST_ENTITY, p, null, type, line);
        return;
      }
      this.diagnostic({ level: 'warning', code: 'stray-entity', message: `${type} without ${type === 'VERTEX' ? 'POLYLINE' : 'INSERT'} dropped`, line });
      this.doc.unindexRecord(e);
      return;
    }
    if (type === 'SEQEND') {
      if (this.parent) {
        this.parent.seqend = e;
        this.parent = null;
        return;
      }
      this.diagnostic({ level: 'warning', code: 'stray-entity', message: 'SEQEND without POLYLINE/INSERT dropped', line });
      this.doc.unindexRecord(e);
      return;
    }
    this.closeParent();
    if (type === 'POLYLINE' || type === 'INSERT') this.parent = e;
    target.call(this, e, line);
    this.taken(LAST_ENTITY, e, null, type, line);
  }

  /** Notes the record just read (see `lastKind`). */
  private taken(kind: number, rec: unknown, container: unknown, type: string, line: number): void {
    this.lastKind = kind;
    this.lastRec = rec;
    this.lastIn = container;
    this.lastType = type;
    this.lastLine = line;
  }

  /** Takes back the record read last. */
  private dropLast(): void {
    const rec = this.lastRec;
    switch (this.lastKind) {
      case LAST_ENTITY:
        this.dropEntity(rec as Entity);
        break;
      case LAST_BLOCK: {
        const open = this.block;
        if (open && open === rec) {
          this.doc.unindexRecord(open.block);
          this.block = null;
        }
        break;
      }
      case LAST_ENTRY: {
        const t = this.lastIn as Table;
        t.entries.splice(t.entries.indexOf(rec as TableEntry), 1);
        this.doc.unindexRecord(rec as TableEntry);
        break;
      }
      case LAST_OBJECT:
        this.doc.objects.splice(this.doc.objects.indexOf(rec as DxfObject), 1);
        this.doc.unindexRecord(rec as DxfObject);
        break;
      case LAST_CLASS:
        this.doc.classes.splice(this.doc.classes.indexOf(rec as DxfClass), 1);
        break;
      case LAST_HEADER:
        this.doc.header.delete(rec as string);
        break;
      default:
    }
    this.lastKind = LAST_NONE;
  }

  /** Takes an entity read last (with its children) out of whatever list holds it. */
  private dropEntity(e: Entity): void {
    if (this.parent === e) this.parent = null;
    for (const list of [this.block?.entities, this.modelBlock?.entities, this.paperBlock?.entities, this.pendingModel, this.pendingPaper]) {
      const i = list ? list.lastIndexOf(e) : -1;
      if (i >= 0) {
        list!.splice(i, 1);
        break;
      }
    }
    for (const r of entityTree(e)) {
      this.doc.unindexRecord(r);
      const k = this.needHandle.findIndex((n) => n.rec === r);
      if (k >= 0) this.needHandle.splice(k, 1);
    }
  }

  /** A POLYLINE or INSERT whose children were not closed by SEQEND gets one. */
  private closeParent(): void {
    const p = this.parent;
    this.parent = null;
    if (!p || p.seqend) return;
    if (p.type === 'POLYLINE' || p.children?.length) {
      const seqend: Entity = { kind: 'entity', type: 'SEQEND', handle: '', owner: p.handle, attrs: { layer: p.attrs.layer ?? '0' } };
      if (this.handlesExpected) this.needHandle.push({ rec: seqend, old: '' });
      p.seqend = seqend;
      this.diagnostic({ level: 'warning', code: 'missing-seqend', message: `${p.type} ${p.handle} had no SEQEND: added` });
    }
  }

  private startEntities(): void {
    const doc = this.doc;
    for (const b of doc.blocks.values()) {
      if (!this.modelBlock && isModelSpaceName(b.name)) this.modelBlock = b;
      else if (!this.paperBlock && isActivePaperSpaceName(b.name)) this.paperBlock = b;
    }
    this.modelOwner = this.modelBlock?.block.owner ?? '';
    this.paperOwner = this.paperBlock?.block.owner ?? '';
  }

  private distribute(e: Entity): void {
    const owner = e.owner;
    const paper = owner !== '' && owner === this.paperOwner ? true : owner !== '' && owner === this.modelOwner ? false : e.attrs.paperspace === 1;
    if (paper) {
      if (this.paperBlock) this.paperBlock.entities.push(e);
      else this.pendingPaper.push(e);
    } else if (this.modelBlock) this.modelBlock.entities.push(e);
    else this.pendingModel.push(e);
  }

  private onBlockRecord(r: TagRecord): void {
    const line = r.line;
    const type = r.str(0);
    const e = this.entity(r);
    if (type === 'BLOCK') {
      this.closeParent();
      if (this.block) {
        this.diagnostic({ level: 'warning', code: 'missing-endblk', message: `block "${String(this.block.block.attrs.name)}" has no ENDBLK`, line: this.block.line });
        this.endBlock(null, line);
      }
      this.block = { block: e, entities: [], line };
      this.taken(LAST_BLOCK, this.block, null, type, line);
      return;
    }
    if (type === 'ENDBLK') {
      this.closeParent();
      if (!this.block) {
        this.diagnostic({ level: 'warning', code: 'stray-entity', message: 'ENDBLK without BLOCK dropped', line });
        this.doc.unindexRecord(e);
        return;
      }
      this.endBlock(e, line);
      return;
    }
    this.onEntity(e, line, (ent) => {
      if (this.block) this.block.entities.push(ent);
      else {
        this.diagnostic({ level: 'warning', code: 'outside-block', message: `${ent.type} outside BLOCK/ENDBLK moved to model space`, line });
        this.pendingModel.push(ent);
      }
    });
  }

  private endBlock(endblk: Entity | null, line: number): void {
    const open = this.block!;
    this.block = null;
    const begin = open.block;
    const end: Entity = endblk ?? { kind: 'entity', type: 'ENDBLK', handle: '', owner: begin.owner, attrs: { layer: begin.attrs.layer ?? '0' } };
    if (!endblk && this.handlesExpected) this.needHandle.push({ rec: end, old: '' });
    let name = typeof begin.attrs.name === 'string' ? begin.attrs.name : '';
    if (name === '' && typeof begin.attrs.name2 === 'string') name = begin.attrs.name2;
    if (this.doc.getBlock(name) && name !== '') {
      this.diagnostic({ level: 'warning', code: 'duplicate-block', message: `second definition of block "${name}" dropped`, line });
      for (const r of [begin, end, ...open.entities.flatMap((e) => [...entityTree(e)])]) this.doc.unindexRecord(r);
      return;
    }
    this.doc.blocks.set(name, { name, block: begin, endblk: end, entities: open.entities });
  }

  private onTableRecord(r: TagRecord): void {
    const line = r.line;
    const type = r.str(0);
    if (type === 'TABLE') {
      const head = decodeRecord(compiledDef('TABLE', 'object'), r, this.ctx);
      delete (head as { kind?: string }).kind;
      const tags = head.extra?.[''] ?? [];
      const at = tags.findIndex((t) => t[0] === 2);
      const name = (at >= 0 ? tags[at]![1] : '').trim().toUpperCase();
      if (at >= 0) tags.splice(at, 1);
      // the entry count is the writer's to compute
      const count = tags.findIndex((t) => t[0] === 70);
      if (count >= 0) tags.splice(count, 1);
      if (head.owner === '' && this.doc.version > 'AC1009') head.owner = '0';
      this.register(head, line);
      if (!(TABLE_ORDER as string[]).includes(name)) {
        this.diagnostic({ level: 'warning', code: 'unknown-table', message: `unknown table "${name}": its entries are kept raw`, line });
      }
      const have = this.doc.tables.get(name as TableName);
      if (have) {
        this.diagnostic({ level: 'warning', code: 'duplicate-table', message: `table ${name} appears twice: entries merged`, line });
        this.table = have;
        this.doc.unindexRecord(head);
        return;
      }
      this.table = { name: name as TableName, head, entries: [] };
      this.doc.tables.set(name as TableName, this.table);
      return;
    }
    if (type === 'ENDTAB') {
      this.table = null;
      return;
    }
    const entry = decodeRecord(compiledDef(type, 'tableEntry'), r, this.ctx) as TableEntry;
    this.register(entry, line);
    let table = this.table;
    if (!table) {
      this.diagnostic({ level: 'warning', code: 'outside-table', message: `${type} outside TABLE/ENDTAB`, line });
      table = this.doc.tables.get(type as TableName) ?? null;
      if (!table) {
        const head: DxfRecord = { type: 'TABLE', handle: '', owner: '', attrs: {} };
        table = { name: type as TableName, head, entries: [] };
        this.doc.tables.set(type as TableName, table);
      }
    }
    table.entries.push(entry);
    this.taken(LAST_ENTRY, entry, table, type, line);
  }

  private onObject(r: TagRecord): void {
    const obj = decodeRecord(compiledDef(r.str(0), 'object'), r, this.ctx) as DxfObject;
    this.register(obj, r.line);
    this.doc.objects.push(obj);
    this.taken(LAST_OBJECT, obj, null, obj.type, r.line);
  }

  // ---- the end ----------------------------------------------------------------------------------

  /**
   * Handles are upper-case hex in the model; one a file spells otherwise (Inkscape writes its
   * entities' in lower case) is noted, so the writer spells it, and every reference to it, so again.
   */
  private noteHandleCase(h: string): void {
    for (let k = 0; k < h.length; k++) {
      const c = h.charCodeAt(k);
      if (c >= 97 && c <= 102) {
        const spelled = h.trim();
        this.doc.handleSpelling.set(spelled.toUpperCase(), spelled);
        return;
      }
    }
  }

  finish(): DxfDocument {
    const doc = this.doc;
    if (!this.decodingSet) this.applyVersion();
    if (this.section) {
      this.diagnostic({ level: 'warning', code: 'truncated', message: `file ends inside section ${this.sectionName}` });
      // the record the file ends in may be cut short: what is not known to be whole is dropped
      if (this.lastKind !== LAST_NONE) {
        const type = this.lastType;
        const line = this.lastLine;
        this.dropLast();
        this.diagnostic({
          level: 'error', code: 'truncated-record', line: line || undefined,
          message: `the file ends inside ${type}${line ? ` (line ${line})` : ''}: it is not known to be whole and is dropped`,
        });
      }
      this.closeSection(0);
    }
    if (!this.sawEof) this.diagnostic({ level: 'info', code: 'missing-eof', message: 'no EOF record' });
    const r12WithHandles = doc.version <= 'AC1009' && this.sawHandle;
    if (r12WithHandles && !doc.hasHandles) doc.setHeaderTags('$HANDLING', [[70, '1']]);
    if (!this.modelBlock) this.modelBlock = doc.modelSpace();
    this.modelBlock.entities.push(...this.pendingModel);
    if (this.pendingPaper.length > 0 || !doc.getBlock(PAPER_SPACE)) {
      if (!this.paperBlock) this.paperBlock = doc.paperSpace();
      this.paperBlock.entities.push(...this.pendingPaper);
    }
    this.repairHandles();
    if (r12WithHandles || (this.opts.assignHandles && !doc.hasHandles)) doc.ensureHandles();
    if (this.opts.standardSymbols) ensureStandardSymbols(doc);
    for (const [code, n] of this.diagCounts) {
      if (n > MAX_DIAGNOSTICS_PER_CODE) {
        doc.diagnostics.push({ level: 'info', code, message: `${n - MAX_DIAGNOSTICS_PER_CODE} more "${code}" diagnostics not listed` });
      }
    }
    // `share` outlives the reading (lazy entities decode with it, and the decoder keeps the last
    // one it was given): it must not keep the input, which the lazy entities hold only while any
    // of them is left
    this.lazyBytes = null;
    this.lazySource = null;
    this.scanner = null;
    return doc;
  }

  /** New handles for records read without a usable one; owner links that named them follow. */
  private repairHandles(): void {
    const doc = this.doc;
    if (this.needHandle.length === 0 || !doc.hasHandles) return;
    const renamed = new Map<DxfRecord, string>();
    // a handle that was not hex names one record: references to it follow the record (a
    // duplicate's stay with the record that kept the handle, as ezdxf has them)
    const seen = new Map<string, number>();
    for (const { old } of this.needHandle) if (old !== '' && old !== '0') seen.set(old, (seen.get(old) ?? 0) + 1);
    const follow = new Map<string, string>();
    for (const { rec, old } of this.needHandle) {
      rec.handle = doc.newHandle();
      doc.indexRecord(rec);
      renamed.set(rec, old);
      if (seen.get(old) === 1 && !doc.get(old)) follow.set(old, rec.handle);
    }
    if (follow.size > 0) mapDocumentRefs(doc, (h) => follow.get(h) ?? h);
    if (doc.version <= 'AC1009') return; // R12 has no owner links
    // children name their parent, table entries their TABLE, blocks their BLOCK_RECORD
    for (const b of doc.blocks.values()) {
      for (const e of b.entities) {
        if (renamed.has(e) || e.children?.some((c) => renamed.has(c)) || (e.seqend && renamed.has(e.seqend))) {
          for (const c of e.children ?? []) c.owner = e.handle;
          if (e.seqend) e.seqend.owner = e.handle;
        }
      }
    }
    for (const t of doc.tables.values()) {
      if (renamed.has(t.head)) {
        const old = renamed.get(t.head)!;
        for (const e of t.entries) if (e.owner === old || e.owner === '' || e.owner === '0') e.owner = t.head.handle;
      }
    }
    const records = doc.tables.get('BLOCK_RECORD');
    if (records) {
      for (const r of records.entries) {
        if (!renamed.has(r) || typeof r.attrs.name !== 'string') continue;
        const old = renamed.get(r)!;
        const b = doc.getBlock(r.attrs.name);
        if (!b) continue;
        for (const e of [b.block, b.endblk, ...b.entities]) if (e.owner === old || e.owner === '') e.owner = r.handle;
        for (const o of doc.objects) if (o.type === 'LAYOUT' && o.attrs.block_record_handle === old && o.attrs.name !== undefined) {
          const layoutBlock = doc.get(String(r.attrs.layout ?? ''));
          if (layoutBlock === o) o.attrs.block_record_handle = r.handle;
        }
      }
    }
  }
}

/**
 * The paper-space flag (67) of a record's common part (0 when absent); -1 when the part holds it
 * twice or not as an integer.
 */
function paperSpaceFlag(r: TagRecord): number {
  const i = commonPartTag(r, 67);
  if (i === -1) return 0;
  if (i === -2) return -1;
  const v = r.num(i);
  // (anything but a plain integer: as decoding reads it)
  return Number.isInteger(v) ? v : -1;
}

function tagsOf(r: TagRecord, from: number): Tag[] {
  const tags: Tag[] = [];
  for (let i = from; i < r.n; i++) tags.push([r.codes[i]!, r.str(i)]);
  return tags;
}

function hasHighChars(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return true;
  return false;
}

