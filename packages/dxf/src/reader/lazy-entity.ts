// Entities kept as their bytes until something asks for their attributes (`ReadOptions.lazy`).
// A command that reads a drawing to count it or to write it again in the same version spends most
// of its time decoding attributes it never looks at and encoding them back to the same bytes. A
// lazy entity holds its type, handle and owner (what the reader's bookkeeping needs) and where its
// record lies in the file's bytes; its attributes are decoded by the same `decodeRecord` as any
// record's, from those bytes, the first time one of `attrs`, `extra`, `markers`, `appData` or
// `xdata` is read or set. The writer copies an entity never decoded, whose type, handle and owner
// are still those of its bytes, as those bytes (`writer/document-writer.ts`), when the drawing is
// written in the version, code page and form it was read in.
//
// Only records that say exactly what their bytes say are kept so (`TagRecord.clean`: LF line
// ends, plain code lines, no comments, no repaired values) and whose handle and owner are their
// first two tags, where every decoding path takes them from.
import { decodeRecord } from '../codec/decode.js';
import { compiledDef } from '../codec/compiled-def.js';
import type { Block } from '../document-api.js';
import type { DxfDocument } from '../document.js';
import { isDefaultExtrusion } from '../geometry/vec.js';
import { decodeUnicodeEscapes, type ValueDecoder } from '../tags/encoding.js';
import { RecordBuffer, type TagRecord } from '../tags/record-sink.js';
import type { AppDataGroup, AttrValue, CodecContext, DxfVersion, Entity, Tag, XDataGroup } from '../types.js';

const EMPTY = Buffer.alloc(0);

/** The bytes lazy entities lie in, and how they were being read when their records were scanned. */
export interface LazySource {
  readonly bytes: Buffer;
  readonly decoder: ValueDecoder | null;
  readonly escapes: boolean;
  readonly ctx: CodecContext;
  readonly share: (s: string) => string;
  // what the bytes were written for: copied as they are only into a file of the same
  readonly version: DxfVersion;
  readonly encoding: string;
  readonly codepageDeclared: boolean;
}

/** Where record bytes are copied to (the ASCII `TagWriter`). */
export interface RawSink {
  raw(src: Uint8Array, start: number, end: number): void;
}

interface Decoded {
  attrs: Record<string, AttrValue | unknown>;
  extra: Record<string, Tag[]> | undefined;
  markers: string[] | undefined;
  appData: AppDataGroup[] | undefined;
  xdata: XDataGroup[] | undefined;
}

// one record buffer for every lazy decoding (decoding never nests: it reads bytes, no other record)
const scratch = new RecordBuffer();

/**
 * The tags of a clean record (see `TagRecord.clean`: `[blanks]digits` LF code lines, LF-ended
 * values, no comments) into `scratch`, as the ASCII scanner reads them.
 */
function fillRecord(src: LazySource, start: number, end: number): RecordBuffer {
  const b = src.bytes;
  const buf = scratch;
  buf.n = 0;
  buf.bytes = b;
  buf.escapes = src.escapes;
  buf.clean = true;
  let pos = start;
  while (pos < end) {
    let c = b[pos]!;
    while (c === 32) c = b[++pos]!;
    let code = 0;
    while (c !== 10) {
      code = code * 10 + (c - 48);
      c = b[++pos]!;
    }
    const s = pos + 1;
    let e = s;
    let high = 0;
    for (;;) {
      const v = b[e]!;
      if (v === 10) break;
      high |= v;
      e++;
    }
    if ((high & 0x80) === 0) buf.pushBytes(code, s, e);
    else {
      let v = src.decoder ? src.decoder(b, s, e) : b.toString('latin1', s, e);
      if (src.escapes && code !== 0 && v.length > 6 && v.indexOf('\\U+') !== -1) v = decodeUnicodeEscapes(v);
      buf.push(code, v);
    }
    pos = e + 1;
  }
  return buf;
}

/** The subclass marker the box attributes of a type follow (`LazyEntity.peekGeometry`). */
export const GEOMETRY_MARKER: Record<string, string> = {
  LINE: 'AcDbLine', POINT: 'AcDbPoint', CIRCLE: 'AcDbCircle', ARC: 'AcDbCircle', LWPOLYLINE: 'AcDbPolyline', TEXT: 'AcDbText',
  // (a MINSERT's AcDbMInsertBlock is not found: decoded whole)
  INSERT: 'AcDbBlockReference',
};

// what a code of the box's subclass is (GEOMETRY_CODES): a point, a number, an integer, a string,
// skipped (said nothing of the box), vertices
const VEC = 1;
const NUM = 2;
const INT = 3;
const STR = 4;
const SKIP = 5;
const VERTICES = 6;

/** What each code of a subclass is: its kind, the attribute it makes, and a bit of its own (to see it read twice). */
type CodeTable = readonly (readonly [kind: number, name: string, bit: number] | undefined)[];

/** A code table from `[code, [kind, name]]` pairs: indexed by code. */
function codeTable(entries: [number, [number, string]][]): CodeTable {
  const table: (readonly [number, string, number] | undefined)[] = [];
  entries.forEach(([code, [kind, name]], i) => {
    table[code] = [kind, name, 1 << i];
  });
  // (no holes: a holey array reads slower)
  for (let c = 0; c < table.length; c++) table[c] ??= undefined;
  return table;
}

/** The codes each type's subclass may hold, what they are and the attribute they make (the declarations'). */
const GEOMETRY_CODES: Record<string, CodeTable> = {
  LINE: codeTable([[10, [VEC, 'start']], [11, [VEC, 'end']], [39, [SKIP, '']], [210, [VEC, 'extrusion']]]),
  POINT: codeTable([[10, [VEC, 'location']], [39, [SKIP, '']], [210, [VEC, 'extrusion']], [50, [SKIP, '']]]),
  CIRCLE: codeTable([[10, [VEC, 'center']], [40, [NUM, 'radius']], [39, [SKIP, '']], [210, [VEC, 'extrusion']], [38, [SKIP, '']]]),
  LWPOLYLINE: codeTable([
    [90, [SKIP, '']], [70, [INT, 'flags']], [43, [SKIP, '']], [38, [NUM, 'elevation']], [39, [SKIP, '']],
    [10, [VERTICES, 'points']], [210, [VEC, 'extrusion']],
  ]),
  TEXT: codeTable([
    [10, [VEC, 'insert']], [40, [NUM, 'height']], [1, [STR, 'text']], [39, [SKIP, '']], [50, [NUM, 'rotation']],
    [51, [NUM, 'oblique']], [7, [SKIP, '']], [41, [NUM, 'width']], [71, [INT, 'text_generation_flag']],
    [72, [INT, 'halign']], [11, [VEC, 'align_point']], [210, [VEC, 'extrusion']], [38, [SKIP, '']],
  ]),
};
GEOMETRY_CODES.INSERT = codeTable([
  [66, [INT, 'attribs_follow']], [2, [STR, 'name']], [10, [VEC, 'insert']], [41, [NUM, 'xscale']], [42, [NUM, 'yscale']],
  [43, [NUM, 'zscale']], [50, [NUM, 'rotation']], [70, [INT, 'column_count']], [71, [INT, 'row_count']],
  [44, [NUM, 'column_spacing']], [45, [NUM, 'row_spacing']], [210, [VEC, 'extrusion']], [38, [NUM, 'elevation']],
]);
GEOMETRY_CODES.ARC = GEOMETRY_CODES.CIRCLE!;
/** What follows a second marker: ARC's AcDbArc, TEXT's second AcDbText. */
const SECOND: Record<string, [marker: string, codes: CodeTable]> = {
  ARC: ['AcDbArc', codeTable([[50, [NUM, 'start_angle']], [51, [NUM, 'end_angle']]])],
  TEXT: ['AcDbText', codeTable([[73, [INT, 'valign']]])],
};

/**
 * The attributes a box of LINE, POINT, CIRCLE, ARC, LWPOLYLINE, TEXT or INSERT is made of, read from a record's
 * tags as `decodeRecord` reads them (the same numbers, the same defaults left to the box code);
 * null when the record holds anything the declarations would read otherwise than this plain
 * reading does (an unknown, repeated or unusable value in the subclass, a vertex z, a tilted
 * polyline, another subclass after it).
 */
export function geometryAttrs(type: string, r: TagRecord): Record<string, unknown> | null {
  const marker = GEOMETRY_MARKER[type]!;
  const codes = r.codes;
  const n = r.n;
  // the common part says nothing of the box: on to the subclass marker
  let i = 1;
  while (i < n && !(codes[i] === 100 && r.is(i, marker))) {
    if (codes[i] === 1001) return null;
    i++;
  }
  if (i >= n) return null;
  i++;
  let table = GEOMETRY_CODES[type]!;
  const second = SECOND[type];
  const attrs: Record<string, unknown> = {};
  // the codes read so far, a bit each (a code read twice: the declarations would keep the second elsewhere)
  let seen = 0;
  while (i < n) {
    const code = codes[i]!;
    if (code === 1001) break; // xdata, to the end
    if (code === 100 && second !== undefined && table !== second[1] && r.is(i, second[0])) {
      table = second[1];
      seen = 0;
      i++;
      continue;
    }
    const what = code >= 0 && code < table.length ? table[code] : undefined;
    if (what === undefined || (seen & what[2]) !== 0) return null;
    seen |= what[2];
    const kind = what[0];
    const name = what[1];
    if (kind === SKIP) {
      i++;
    } else if (kind === NUM || kind === INT) {
      const v = r.num(i);
      if (Number.isNaN(v)) return null;
      // some writers store integers as floats: read as the codec reads them
      attrs[name] = kind === INT && !Number.isInteger(v) ? Math.trunc(v) : v;
      i++;
    } else if (kind === STR) {
      attrs[name] = r.str(i);
      i++;
    } else if (kind === VEC) {
      const x = r.num(i);
      if (Number.isNaN(x) || i + 1 >= n || codes[i + 1] !== code + 10) return null;
      const y = r.num(i + 1);
      if (Number.isNaN(y)) return null;
      let z = 0;
      i += 2;
      if (i < n && codes[i] === code + 20) {
        z = r.num(i);
        if (Number.isNaN(z)) return null;
        i++;
      }
      attrs[name] = [x, y, z];
    } else {
      // the vertices as the LWPOLYLINE codec reads them (numbers it cannot read are 0)
      const points: number[][] = [];
      while (i < n && codes[i] === 10) {
        const x = numOr0(r, i++);
        let y = 0;
        if (i < n && codes[i] === 20) y = numOr0(r, i++);
        if (i < n && codes[i] === 30) return null;
        let sw = 0, ew = 0, b = 0;
        for (; i < n; i++) {
          const c = codes[i];
          if (c === 40) sw = numOr0(r, i);
          else if (c === 41) ew = numOr0(r, i);
          else if (c === 42) b = numOr0(r, i);
          else if (c !== 91) break;
        }
        points.push([x, y, sw, ew, b]);
      }
      attrs[name] = points;
    }
  }
  // a tilted polyline is boxed through its geometry, which needs every attribute
  if (type === 'LWPOLYLINE' && !isDefaultExtrusion(attrs.extrusion)) return null;
  return attrs;
}

/**
 * Where the one tag of `code` lies in a record's common part (from its fifth tag, after type,
 * handle, owner and the AcDbEntity marker, to the next marker, app data or xdata): its index; -1
 * when there is none, -2 when there are two (decoding would not read it as that attribute alone).
 */
export function commonPartTag(r: TagRecord, code: number): number {
  let at = -1;
  for (let i = 4; i < r.n; i++) {
    const c = r.codes[i];
    if (c === 100 || c === 102 || c === 1001) break;
    if (c !== code) continue;
    if (at >= 0) return -2;
    at = i;
  }
  return at;
}

function numOr0(r: TagRecord, i: number): number {
  const v = r.num(i);
  return Number.isNaN(v) ? 0 : v;
}

export class LazyEntity implements Entity {
  readonly kind = 'entity' as const;
  type: string;
  handle: string;
  owner: string;
  declare children?: Entity[];
  declare seqend?: Entity;
  #src: LazySource | null;
  #start: number;
  #end: number;
  readonly #type: string;
  readonly #handle: string;
  readonly #owner: string;
  #d: Decoded | null = null;

  constructor(type: string, handle: string, owner: string, src: LazySource, start: number, end: number) {
    this.type = type;
    this.handle = handle;
    this.owner = owner;
    this.#type = type;
    this.#handle = handle;
    this.#owner = owner;
    this.#src = src;
    this.#start = start;
    this.#end = end;
  }

  /**
   * Hands the record's bytes to `sink` when they may be written as they are into a file of
   * `version` and `encoding`: never decoded, type, handle and owner as read. False otherwise.
   */
  writeVerbatim(sink: RawSink, version: DxfVersion, encoding: string, codepageDeclared: boolean): boolean {
    const src = this.#src;
    if (src === null || this.#d !== null || this.type !== this.#type || this.handle !== this.#handle || this.owner !== this.#owner) return false;
    if (src.version !== version || src.encoding !== encoding || src.codepageDeclared !== codepageDeclared) return false;
    sink.raw(src.bytes, this.#start, this.#end);
    return true;
  }

  /** Whether the attributes were decoded (read or set through the record). */
  get decoded(): boolean {
    return this.#d !== null;
  }

  /**
   * The entity for reading once: itself when decoded, else a plain record decoded from the bytes
   * and not kept (a pass over many entities, such as the extents of a drawing, then leaves
   * nothing behind, and the entity may still be written as its bytes).
   */
  peek(): Entity {
    if (this.#d) return this;
    return this.#plainOf(this.#decodeBytes());
  }

  /**
   * For a LINE, POINT, CIRCLE, ARC, LWPOLYLINE, TEXT or INSERT never decoded: a plain record holding only what
   * its box is made of (`boundingBox` gives it the box of the whole record), read from the bytes
   * without decoding the rest, and not kept. Null for any other entity or record (see
   * `geometryAttrs`): `peek` then.
   */
  peekGeometry(): Entity | null {
    const src = this.#src;
    if (src === null || this.#d !== null || this.type !== this.#type || GEOMETRY_MARKER[this.#type] === undefined) return null;
    const buf = fillRecord(src, this.#start, this.#end);
    const attrs = geometryAttrs(this.#type, buf);
    buf.bytes = EMPTY;
    if (attrs === null) return null;
    const e: Entity = { kind: 'entity', type: this.type, handle: this.handle, owner: this.owner, attrs };
    // an INSERT's ATTRIBs are boxed with it
    if (this.children !== undefined) e.children = this.children;
    return e;
  }

  /**
   * The layer name of an entity never decoded, read from its bytes (`attrs.layer` as decoding
   * gives it), without decoding the rest; undefined when the record does not name it in its
   * AcDbEntity part alone (then `attrs.layer`).
   */
  peekLayer(): string | undefined {
    const src = this.#src;
    if (src === null || this.#d !== null) return undefined;
    const buf = fillRecord(src, this.#start, this.#end);
    let layer: string | undefined;
    // (lazy records have AcDbEntity as their fourth tag; one naming another marker has no common part)
    if (buf.is(3, 'AcDbEntity')) {
      const i = commonPartTag(buf, 8);
      if (i >= 0) layer = src.share(buf.str(i));
    }
    buf.bytes = EMPTY;
    return layer;
  }

  /** A plain record of this entity with the decoded fields `d` (its children and SEQEND as they are). */
  #plainOf(d: Decoded): Entity {
    const e: Entity = { kind: 'entity', type: this.type, handle: this.handle, owner: this.owner, attrs: d.attrs };
    if (d.extra !== undefined) e.extra = d.extra;
    if (d.markers !== undefined) e.markers = d.markers;
    if (d.appData !== undefined) e.appData = d.appData;
    if (d.xdata !== undefined) e.xdata = d.xdata;
    if (this.children !== undefined) e.children = this.children;
    if (this.seqend !== undefined) e.seqend = this.seqend;
    return e;
  }

  #decode(): Decoded {
    if (this.#d) return this.#d;
    const d = this.#decodeBytes();
    this.#d = d;
    // the bytes are not needed any more: they no longer say what the record says
    this.#src = null;
    return d;
  }

  #decodeBytes(): Decoded {
    const src = this.#src!;
    const buf = fillRecord(src, this.#start, this.#end);
    const rec = decodeRecord(compiledDef(this.#type, 'entity'), buf, src.ctx, src.share);
    buf.bytes = EMPTY;
    // MTEXT joins its 250-char chunks: an escape split across two of them is decoded only now
    if (rec.type === 'MTEXT' && src.escapes && typeof rec.attrs.text === 'string' && rec.attrs.text.includes('\\U+')) {
      rec.attrs.text = decodeUnicodeEscapes(rec.attrs.text);
    }
    return { attrs: rec.attrs, extra: rec.extra, markers: rec.markers, appData: rec.appData, xdata: rec.xdata };
  }

  get attrs(): Record<string, AttrValue | unknown> {
    return this.#decode().attrs;
  }
  set attrs(v: Record<string, AttrValue | unknown>) {
    this.#decode().attrs = v;
  }
  get extra(): Record<string, Tag[]> | undefined {
    return this.#decode().extra;
  }
  set extra(v: Record<string, Tag[]> | undefined) {
    this.#decode().extra = v;
  }
  get markers(): string[] | undefined {
    return this.#decode().markers;
  }
  set markers(v: string[] | undefined) {
    this.#decode().markers = v;
  }
  get appData(): AppDataGroup[] | undefined {
    return this.#decode().appData;
  }
  set appData(v: AppDataGroup[] | undefined) {
    this.#decode().appData = v;
  }
  get xdata(): XDataGroup[] | undefined {
    return this.#decode().xdata;
  }
  set xdata(v: XDataGroup[] | undefined) {
    this.#decode().xdata = v;
  }

  /** The entity as a plain record (its children and SEQEND as they are). */
  toPlain(): Entity {
    return this.#plainOf(this.#decode());
  }
}

/** A plain record with the content of `e` (itself when it holds nothing lazy; lazy children made plain too). */
export function plainEntity(e: Entity): Entity {
  return holdsLazy(e) ? plain(e) : e;
}

/** Whether the entity, its children or its SEQEND are kept as their bytes. */
function holdsLazy(e: Entity): boolean {
  return e instanceof LazyEntity || e.seqend instanceof LazyEntity || (e.children?.some((c) => c instanceof LazyEntity) ?? false);
}

function plain(e: Entity): Entity {
  const p = e instanceof LazyEntity ? e.toPlain() : e;
  if (p.children) p.children = p.children.map(plain);
  if (p.seqend) p.seqend = plain(p.seqend);
  return p;
}

/**
 * Replaces the lazy entities of a drawing by plain records with the same content (re-indexed by
 * handle), up to `n` entities a step: a whole drawing at once (`materializeLazy`), or a slice at a
 * time between requests (the engine, after an open: packages/engine/src/store/lazy.ts).
 */
export class LazyMaterializer {
  private readonly blocks: Block[];
  private block = 0;
  private at = 0;

  constructor(private readonly doc: DxfDocument) {
    this.blocks = [...doc.blocks.values()];
  }

  get done(): boolean {
    return this.block >= this.blocks.length;
  }

  /** Makes up to `n` entities plain; true when none is left. */
  step(n: number): boolean {
    let left = n;
    while (left > 0 && this.block < this.blocks.length) {
      const list = this.blocks[this.block]!.entities;
      const end = Math.min(list.length, this.at + left);
      for (let i = this.at; i < end; i++) {
        const e = list[i]!;
        // (a plain parent of lazy children stays the same record: its children are re-indexed)
        if (!holdsLazy(e)) continue;
        const p = plain(e);
        list[i] = p;
        reindex(this.doc, p);
      }
      left -= end - this.at;
      this.at = end;
      if (this.at >= list.length) {
        this.block++;
        this.at = 0;
      }
    }
    if (this.done) this.doc.hasLazyRecords = false;
    return this.done;
  }
}

function reindex(doc: DxfDocument, e: Entity): void {
  if (e.handle && doc.get(e.handle) !== e) doc.replaceIndexed(e);
  if (e.children) for (const c of e.children) reindex(doc, c);
  if (e.seqend) reindex(doc, e.seqend);
}

/**
 * Replaces every lazy entity of `doc` by a plain record with the same content (and re-indexes it),
 * for code that copies records as data (spread, structuredClone), which accessors do not survive.
 */
export function materializeLazy(doc: DxfDocument): void {
  if (doc.hasLazyRecords) new LazyMaterializer(doc).step(Infinity);
}
