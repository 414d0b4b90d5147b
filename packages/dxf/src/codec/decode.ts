// Tags of one record -> DxfRecord, by the record's declaration. Structural codes are taken out
// (5/105 handle, the first 330 owner and `102 {...}` groups of the common part, 1001 xdata to the
// end); declared attributes are parsed subclass by subclass; everything else stays in `extra`.
// Undeclared types keep their whole tag list in `extra['']` so they are written back as read.
import type { AppDataGroup, DxfRecord, Tag, TagSource, XDataGroup } from '../types.js';
import type { CompiledDef, CompiledSub, ReadAttr } from './compiled-def.js';
import { findSub } from './compiled-def.js';
import { subclassMarkersFor } from '../entities/index.js';
import { ENTITY_COMMON } from '../entities/common.js';
import type { CodecContext } from '../types.js';
import type { TagRecord } from '../tags/record-sink.js';
import { parseNumber } from '../tags/parse-number.js';

// Numbers are read with `t.num`, which is `parseNumber`: unlike Number(), an empty value is NaN.

/** Parses one declared attribute at tag `i`; returns the index of its last tag, or -1 if the value is unusable. */
function readAttr(a: ReadAttr, t: TagRecord, i: number, end: number, attrs: Record<string, unknown>): number {
  switch (a.kind) {
    case 'str':
      attrs[a.name] = a === ENTITY_LAYER && shared !== undefined ? shared(t.str(i)) : t.str(i);
      return i;
    case 'handle':
      attrs[a.name] = t.str(i).trim().toUpperCase();
      return i;
    case 'float': {
      const n = t.num(i);
      if (Number.isNaN(n)) return -1;
      attrs[a.name] = n;
      return i;
    }
    case 'int': {
      const n = t.num(i);
      if (Number.isNaN(n)) return -1;
      // some writers (ProE) store integers as floats
      attrs[a.name] = Number.isInteger(n) ? n : Math.trunc(n);
      return i;
    }
    case 'bool': {
      const n = t.num(i);
      if (Number.isNaN(n)) return -1;
      attrs[a.name] = n !== 0;
      return i;
    }
    default: {
      const code = a.code;
      const codes = t.codes;
      const x = t.num(i);
      if (Number.isNaN(x)) return -1;
      let y = 0;
      let z = 0;
      let j = i;
      let dims = 1;
      if (j + 1 < end && codes[j + 1] === code + 10) {
        y = t.num(j + 1);
        if (Number.isNaN(y)) return -1;
        j++;
        dims = 2;
        if (j + 1 < end && codes[j + 1] === code + 20) {
          z = t.num(j + 1);
          if (Number.isNaN(z)) return -1;
          j++;
          dims = 3;
        }
      }
      if (dims === 1) return -1;
      // a 2D attribute read with its z keeps it, so writing it back loses nothing
      attrs[a.name] = a.kind === 'point2' && dims === 2 ? [x, y] : [x, y, z];
      return j;
    }
  }
}

function pushExtra(rec: DxfRecord, key: string, code: number, value: string): void {
  const extra = (rec.extra ??= {});
  const list = extra[key];
  if (list) list.push([code, value]);
  else extra[key] = [[code, value]];
}

/** Reads `102 {NAME ... 102 }` starting at `i`; returns the index of the closing tag. */
function readAppData(t: TagRecord, i: number, end: number, rec: DxfRecord): number {
  const codes = t.codes;
  const group: AppDataGroup = { name: t.str(i).slice(1), tags: [] };
  let j = i + 1;
  for (; j < end; j++) {
    if (codes[j] === 102 && t.str(j).trim() === '}') break;
    group.tags.push([codes[j]!, t.str(j)]);
  }
  (rec.appData ??= []).push(group);
  return Math.min(j, end - 1);
}

function readXData(t: TagRecord, from: number, end: number, rec: DxfRecord): void {
  const codes = t.codes;
  const groups: XDataGroup[] = [];
  let cur: XDataGroup | undefined;
  for (let i = from; i < end; i++) {
    const c = codes[i]!;
    if (c === 1001) {
      cur = { app: t.str(i), tags: [] };
      groups.push(cur);
    } else if (cur) {
      cur.tags.push([c, t.str(i)]);
    }
  }
  rec.xdata = groups;
}

function xdataStart(codes: Int32Array, n: number): number {
  for (let i = 1; i < n; i++) if (codes[i] === 1001) return i;
  return n;
}

// Which attributes the record being decoded has read from its tags (decoding never nests):
// `attrSeen[slot] === stamp`. A keyed `name in attrs` per tag, on attrs of ever-changing shapes, was
// a good part of the reader's time. Codecs set attributes of their own: once one has run, the
// `in` test is made as well.
let attrSeen = new Int32Array(64);

// Layer names and owner handles repeat across a drawing's records: `decodeRecord`'s `share` gives
// one string for each value, which the reader keeps for a million records (decoding never nests).
let shared: ((s: string) => string) | undefined;
const ENTITY_LAYER = ENTITY_COMMON.attrs.find((a) => a.name === 'layer')!;
let stamp = 0;
let codecRan = false;

function nextStamp(slots: number): void {
  if (slots > attrSeen.length) attrSeen = new Int32Array(Math.max(slots, attrSeen.length * 2));
  if (stamp === 0x7fffffff) {
    attrSeen.fill(0);
    stamp = 0;
  }
  stamp++;
  codecRan = false;
}

/**
 * Decodes tags [0, n) (tag 0 is the type) into a record whose `kind` is its context ('entity',
 * 'tableEntry', 'object').
 */
export function decodeRecord(cd: CompiledDef, t: TagRecord, ctx: CodecContext, share?: (s: string) => string): DxfRecord {
  nextStamp(cd.slotCount);
  shared = share;
  const codes = t.codes;
  const n = t.n;
  // the declaration's copy of the type name: one string for a million LINEs, not one each
  const type = t.is(0, cd.type) ? cd.type : t.str(0);
  const rec = { kind: cd.context, type, handle: '', owner: '', attrs: {} } as DxfRecord;
  const xStart = xdataStart(codes, n);
  if (cd.def === undefined) decodeRaw(cd, rec, t, xStart);
  else {
    let markers = 0;
    let firstMarker = -1;
    for (let i = 1; i < xStart && markers < 2; i++) {
      if (codes[i] === 100) {
        if (markers++ === 0) firstMarker = i;
      }
    }
    // an entity with its AcDbEntity marker and no other (an ELLIPSE without AcDbEllipse, as
    // some writers leave it): its own attributes follow unmarked, read as a file without
    // markers has them (ezdxf reads them so too); kept as AcDbEntity's extra tags, they were
    // written back as they came, and no check saw them
    const unmarked = markers === 1 && cd.context === 'entity' && cd.subs.length > 1 && t.is(firstMarker, 'AcDbEntity');
    if (markers > 0 && !unmarked) decodeBySubclass(cd, rec, t, xStart, ctx);
    else decodeFlat(cd, rec, t, xStart, ctx, unmarked ? firstMarker : -1);
    const attrs = rec.attrs;
    const required = cd.required;
    for (let r = 0; r < required.length; r++) {
      if (attrSeen[cd.requiredSlots[r]!] === stamp) continue;
      const a = required[r]!;
      if (attrs[a.name] === undefined && (a.minVersion === undefined || a.minVersion <= ctx.version)) {
        const d = a.default!;
        attrs[a.name] = Array.isArray(d) ? [...d] : d;
      }
    }
  }
  if (xStart < n) readXData(t, xStart, n, rec);
  return rec;
}

/** Scratch state of `structural` for the record being decoded (decoding never nests). */
const state = { i: 0, owner: false, handle: false };

function resetState(): void {
  state.i = 0;
  state.owner = false;
  state.handle = false;
}

/** Takes the common part's structural tags; returns true when tag `i` was one (`state.i` is the last tag used). */
function structural(cd: CompiledDef, rec: DxfRecord, t: TagRecord, i: number, end: number): boolean {
  const c = t.codes[i]!;
  if (c === cd.handleCode && !state.handle) {
    rec.handle = normHandle(t.str(i));
    state.handle = true;
    return true;
  }
  if (c === 330 && !state.owner) {
    rec.owner = shared !== undefined ? shared(normHandle(t.str(i))) : normHandle(t.str(i));
    state.owner = true;
    return true;
  }
  if (c === 102 && t.str(i).charCodeAt(0) === 123 /* { */) {
    state.i = readAppData(t, i, end, rec);
    return true;
  }
  return false;
}

/** Handles as read are mostly already trimmed upper-case hex: skip the copies then. */
export function normHandle(v: string): string {
  for (let k = 0; k < v.length; k++) {
    const ch = v.charCodeAt(k);
    if (ch <= 32 || (ch >= 97 && ch <= 122)) return v.trim().toUpperCase();
  }
  return v;
}

function decodeRaw(cd: CompiledDef, rec: DxfRecord, t: TagRecord, end: number): void {
  const codes = t.codes;
  const tags: Tag[] = [];
  resetState();
  let common = true;
  // an undeclared entity still exposes its AcDbEntity attributes (copies: the tags stay in place)
  const entitySub = cd.context === 'entity' ? cd.subs[0] : undefined;
  let inEntitySub = false;
  for (let i = 1; i < end; i++) {
    const c = codes[i]!;
    if (common) {
      if (c === 100) common = false;
      else if (structural(cd, rec, t, i, end)) {
        if (state.i > i) i = state.i;
        continue;
      }
    }
    if (c === 100) inEntitySub = entitySub !== undefined && t.str(i) === entitySub.marker;
    else if (entitySub && (inEntitySub || common)) {
      const a = c >= 0 && c < entitySub.attrAt.length ? entitySub.attrAt[c] : undefined;
      if (a && !(a.name in rec.attrs)) readAttr(a, t, i, end, rec.attrs);
    }
    tags.push([c, t.str(i)]);
  }
  rec.extra = { '': tags };
}

function runCodec(sub: CompiledSub, tags: Tag[], rec: DxfRecord, ctx: CodecContext): Tag[] {
  return sub.codec!.read(tags, rec, ctx);
}

/** Tags [from, from + length) of the record being decoded, for a codec's `readFrom`. */
class RecordRange implements TagSource {
  constructor(
    private readonly t: TagRecord,
    private readonly from: number,
    readonly length: number,
  ) {}
  code(i: number): number {
    return this.t.codes[this.from + i]!;
  }
  str(i: number): string {
    return this.t.str(this.from + i);
  }
  num(i: number): number {
    return this.t.num(this.from + i);
  }
}

/** Runs the codec of `sub` on tags [from, to); returns the tags it left. */
function runCodecOn(sub: CompiledSub, t: TagRecord, from: number, to: number, rec: DxfRecord, ctx: CodecContext): Tag[] {
  const codec = sub.codec!;
  if (codec.readFrom) return codec.readFrom(new RecordRange(t, from, to - from), rec, ctx);
  const tags: Tag[] = [];
  for (let k = from; k < to; k++) tags.push([t.codes[k]!, t.str(k)]);
  return codec.read(tags, rec, ctx);
}

function decodeBySubclass(cd: CompiledDef, rec: DxfRecord, t: TagRecord, end: number, ctx: CodecContext): void {
  const codes = t.codes;
  resetState();
  let subIdx = -1;
  let sub: CompiledSub | undefined;
  let key = '';
  // markers are compared with the declared order as they come; a list is made only if they differ
  const declared = cd.markerList;
  let seen = 0;
  let markers: string[] | undefined;
  const attrs = rec.attrs;
  for (let i = 1; i < end; i++) {
    const c = codes[i]!;
    if (c === 100) {
      // the declared marker, when it is the one read: later compares are then of one string
      if (!markers && seen < declared.length && t.is(i, declared[seen]!)) key = declared[seen]!;
      else {
        key = t.str(i);
        if (markers) markers.push(key);
        else {
          markers = declared.slice(0, seen);
          markers.push(key);
        }
      }
      seen++;
      const found = findSub(cd, key, subIdx);
      if (found >= 0) {
        subIdx = found;
        sub = cd.subs[found];
        // a subclass newer than the file's version is not declared for it: kept as read
        if (sub!.minVersion !== undefined && sub!.minVersion > ctx.version) sub = undefined;
      } else sub = undefined;
      if (sub?.codec) {
        let j = i + 1;
        while (j < end && codes[j] !== 100) j++;
        codecRan = true;
        let rest = runCodecOn(sub, t, i + 1, j, rec, ctx);
        if (rest.length > 0 && cd.context === 'entity') rest = rest.filter((tag) => !misplacedCommonTag(cd, rec, tag, ctx));
        if (rest.length > 0) {
          const extra = (rec.extra ??= {});
          extra[key] = (extra[key] ?? []).concat(rest);
        }
        i = j - 1;
      }
      continue;
    }
    if (seen === 0) {
      if (structural(cd, rec, t, i, end)) {
        if (state.i > i) i = state.i;
        continue;
      }
      // before any marker, as R12 has them: AcDbEntity's attributes
      if (cd.context === 'entity' && misplacedCommon(cd, rec, t, i, end, ctx)) continue;
      pushExtra(rec, '', c, t.str(i));
      continue;
    }
    if (sub) {
      let a: ReadAttr | undefined;
      let slot = -1;
      if (c >= 0 && c < sub.attrAt.length) {
        // codes past the array's end have no attribute in this subclass
        a = sub.attrAt[c];
        slot = sub.slotAt[c]!;
      }
      // attributes newer than the file's version stay extra tags, so they are written back
      if (a && attrSeen[slot] !== stamp && !(codecRan && a.name in attrs) && (a.minVersion === undefined || a.minVersion <= ctx.version)) {
        const last = readAttr(a, t, i, end, attrs);
        if (last >= 0) {
          attrSeen[slot] = stamp;
          i = last;
          continue;
        }
      }
    }
    // the handle after the first marker, as the Leica DISTO's R12 files have it: still the
    // record's handle (kept as an extra tag, the record would be given a new one)
    if (c === cd.handleCode && !state.handle && subIdx <= 0) {
      rec.handle = normHandle(t.str(i));
      state.handle = true;
      continue;
    }
    // an AcDbEntity attribute some writers put after the next marker (an empty AcDbEntity, then
    // layer, colour, linetype): it is still the entity's, as ezdxf reads it
    if (subIdx > 0 && cd.context === 'entity' && misplacedCommon(cd, rec, t, i, end, ctx)) continue;
    pushExtra(rec, key, c, t.str(i));
  }
  // R12 records keep theirs always: R12 writes markers only for records read with them
  if (ctx.version <= 'AC1009') rec.markers = markers ?? declared.slice(0, seen);
  else if (markers) {
    if (!(cd.context === 'entity' && chosenMarkers(markers, markers.length, rec))) rec.markers = markers;
  } else if (seen !== declared.length && !(cd.context === 'entity' && chosenMarkers(declared, seen, rec))) {
    rec.markers = declared.slice(0, seen);
  }
}

/** `misplacedCommon` for a tag a codec left. */
function misplacedCommonTag(cd: CompiledDef, rec: DxfRecord, tag: Tag, ctx: CodecContext): boolean {
  const common = cd.subs[0]!;
  const c = tag[0];
  if (c < 0 || c >= common.attrAt.length) return false;
  const a = common.attrAt[c];
  if (!a || a.kind === 'point2' || a.kind === 'point3' || a.kind === 'vec3') return false;
  const slot = common.slotAt[c]!;
  if (attrSeen[slot] === stamp || a.name in rec.attrs || (a.minVersion !== undefined && a.minVersion > ctx.version)) return false;
  const v = tag[1];
  if (a.kind === 'str') rec.attrs[a.name] = v;
  else if (a.kind === 'handle') rec.attrs[a.name] = v.trim().toUpperCase();
  else {
    const n = parseNumber(v);
    if (Number.isNaN(n)) return false;
    rec.attrs[a.name] = a.kind === 'bool' ? n !== 0 : a.kind === 'int' ? Math.trunc(n) : n;
  }
  attrSeen[slot] = stamp;
  return true;
}

/** Reads tag `i` as an AcDbEntity attribute not read yet; false when it is none (or not readable). */
function misplacedCommon(cd: CompiledDef, rec: DxfRecord, t: TagRecord, i: number, end: number, ctx: CodecContext): boolean {
  const common = cd.subs[0]!;
  const c = t.codes[i]!;
  if (c < 0 || c >= common.attrAt.length) return false;
  const a = common.attrAt[c];
  if (!a || a.kind === 'point2' || a.kind === 'point3' || a.kind === 'vec3') return false;
  const slot = common.slotAt[c]!;
  if (attrSeen[slot] === stamp || a.name in rec.attrs || (a.minVersion !== undefined && a.minVersion > ctx.version)) return false;
  if (readAttr(a, t, i, end, rec.attrs) < 0) return false;
  attrSeen[slot] = stamp;
  return true;
}

/**
 * Whether markers `[0, count)` are those the writer picks for the record anyway (INSERT, POLYLINE,
 * VERTEX and DIMENSION declare alternatives, so theirs never equal the declared list): then the
 * record needs no list of its own, which for a million VERTEXes is a million arrays.
 */
function chosenMarkers(markers: readonly string[], count: number, rec: DxfRecord): boolean {
  if (count === 0 || markers[0] !== 'AcDbEntity') return false;
  const chosen = subclassMarkersFor(rec);
  if (chosen.length !== count - 1) return false;
  for (let i = 0; i < chosen.length; i++) if (chosen[i] !== markers[i + 1]) return false;
  return true;
}

const isPointKind = (k: string): boolean => k === 'point2' || k === 'point3' || k === 'vec3';

/**
 * Points whose coordinates are not next to each other (`10 11 20 21 30 31`, as R2.6-era writers
 * ordered a LINE's groups): in a record without markers each group code is its own, so the
 * coordinates are put together wherever they are; returns the tags that are still left.
 */
function gatherScatteredPoints(cd: CompiledDef, attrs: Record<string, unknown>, leftover: Tag[], ctx: CodecContext): Tag[] {
  let used: Set<number> | undefined;
  const find = (code: number): number => leftover.findIndex((tag, k) => tag[0] === code && !used?.has(k));
  for (let k = 0; k < leftover.length; k++) {
    if (used?.has(k)) continue;
    const c = leftover[k]![0];
    const a = cd.flat.get(c)?.find((x) => isPointKind(x.kind) && x.code === c && !(x.name in attrs) && (x.minVersion === undefined || x.minVersion <= ctx.version));
    if (!a) continue;
    used ??= new Set();
    used.add(k);
    const yAt = find(c + 10);
    if (yAt < 0) {
      used.delete(k);
      continue;
    }
    used.add(yAt);
    const zAt = find(c + 20);
    if (zAt >= 0) used.add(zAt);
    const xyz = [leftover[k]![1], leftover[yAt]![1], ...(zAt >= 0 ? [leftover[zAt]![1]] : [])].map(parseNumber);
    if (xyz.some(Number.isNaN)) {
      used.delete(k);
      used.delete(yAt);
      if (zAt >= 0) used.delete(zAt);
      continue;
    }
    attrs[a.name] = a.kind === 'point2' && xyz.length === 2 ? xyz : [xyz[0]!, xyz[1]!, xyz[2] ?? 0];
  }
  return used ? leftover.filter((_, k) => !used!.has(k)) : leftover;
}

/** Decodes a record without subclass markers; `skip` is a tag to leave out (a lone AcDbEntity marker: the writer writes the markers). */
function decodeFlat(cd: CompiledDef, rec: DxfRecord, t: TagRecord, end: number, ctx: CodecContext, skip = -1): void {
  const codes = t.codes;
  resetState();
  const attrs = rec.attrs;
  const leftover: Tag[] = [];
  for (let i = 1; i < end; i++) {
    if (i === skip) continue;
    if (structural(cd, rec, t, i, end)) {
      if (state.i > i) i = state.i;
      continue;
    }
    const c = codes[i]!;
    const candidates = cd.flat.get(c);
    let taken = false;
    if (candidates) {
      for (const a of candidates) {
        if (a.name in attrs || (a.minVersion !== undefined && a.minVersion > ctx.version)) continue;
        const last = readAttr(a, t, i, end, attrs);
        if (last >= 0) {
          i = last;
          taken = true;
        }
        break;
      }
    }
    if (!taken) leftover.push([c, t.str(i)]);
  }
  let rest = leftover.length > 1 ? gatherScatteredPoints(cd, attrs, leftover, ctx) : leftover;
  for (const sub of cd.codecSubs) rest = runCodec(sub, rest, rec, ctx);
  // kept with the last subclass: written after the declared attributes, as such files have them
  if (rest.length > 0) {
    const last = cd.context === 'entity' ? subclassMarkersFor(rec).at(-1) : cd.subs[cd.subs.length - 1]?.marker;
    (rec.extra ??= {})[last ?? ''] = rest;
  }
}
