// A record declaration prepared for reading and writing: the common subclass of its context put in
// front, group code -> attribute maps per subclass and across all of them (for R12's marker-less
// records). Compiled once per declaration and context.
import { getDef } from '../defs/registry.js';
import { ENTITY_COMMON } from '../entities/common.js';
import type { AttrDef, AttrKind, AttrValue, DxfVersion, RecordDef, SubclassCodec, SubclassDef } from '../types.js';

/** Where a record lives; decides its common subclass. */
export type RecordContext = 'entity' | 'tableEntry' | 'object';

export const TABLE_RECORD_COMMON: SubclassDef = { marker: 'AcDbSymbolTableRecord', attrs: [] };

/**
 * A declared attribute as the reader sees it. Declarations are object literals of many shapes
 * (with or without a default, `required`, `minVersion`); the reader reads these fields for every
 * tag, and copies of one shape keep those reads to one hidden class instead of a lookup each.
 */
export interface ReadAttr {
  readonly name: string;
  readonly code: number;
  readonly kind: AttrKind;
  readonly minVersion: DxfVersion | undefined;
  readonly default: AttrValue | undefined;
}

function readAttrOf(a: AttrDef): ReadAttr {
  return { name: a.name, code: a.code, kind: a.kind, minVersion: a.minVersion, default: a.default };
}

export interface CompiledSub {
  marker: string;
  def: SubclassDef;
  /** `def.minVersion`. */
  minVersion: DxfVersion | undefined;
  /** Attribute by group code (points by their x code). */
  byCode: Map<number, AttrDef>;
  /**
   * `byCode` as an array indexed by group code, with each attribute's slot in the record's
   * `seen` marks (one per attribute name across the declaration): the reader looks up every tag
   * of every record here, where a Map lookup and an `in` test on the attrs cost more than the
   * value's parsing.
   */
  attrAt: (ReadAttr | undefined)[];
  slotAt: Int16Array;
  codec: SubclassCodec | undefined;
  /** The attributes the last version written knows (filtered once, not per record). */
  writeMemo: { version: string; attrs: readonly AttrDef[] };
}

export interface CompiledDef {
  type: string;
  def: RecordDef | undefined;
  context: RecordContext;
  subs: CompiledSub[];
  /** Attributes of all subclasses by code, in declaration order (R12 records have no markers). */
  flat: Map<number, ReadAttr[]>;
  /** Subclasses with a codec, in order: marker-less records hand them what plain attributes left. */
  codecSubs: CompiledSub[];
  /** The group code of the handle: 105 for DIMSTYLE, 5 otherwise. */
  handleCode: number;
  /** Subclass markers in declared order, for comparing with a record's own order. */
  markerList: string[];
  /** Attributes the writer always writes: a decoded record shows them with their default. */
  required: ReadAttr[];
  /** The `seen` slot of each of `required`. */
  requiredSlots: number[];
  /** How many `seen` slots the declaration's attribute names take. */
  slotCount: number;
}

const MAX_ATTR_CODE = 1071;

function compileSub(def: SubclassDef, slots: Map<string, number>, reads: Map<AttrDef, ReadAttr>): CompiledSub {
  const byCode = new Map<number, AttrDef>();
  for (const a of def.attrs) if (!byCode.has(a.code)) byCode.set(a.code, a);
  let top = -1;
  for (const c of byCode.keys()) {
    // group codes of attributes are those of plain tags: 0..1071
    if (c < 0 || c > MAX_ATTR_CODE) throw new Error(`${def.marker}: group code ${c} cannot be an attribute's`);
    if (c > top) top = c;
  }
  const attrAt = new Array<ReadAttr | undefined>(top + 1).fill(undefined);
  const slotAt = new Int16Array(top + 1);
  for (const [c, a] of byCode) {
    attrAt[c] = readOf(reads, a);
    slotAt[c] = slotOf(slots, a.name);
  }
  return {
    marker: def.marker, def, minVersion: def.minVersion, byCode, attrAt, slotAt, codec: def.codec, writeMemo: { version: '', attrs: [] },
  };
}

function readOf(reads: Map<AttrDef, ReadAttr>, a: AttrDef): ReadAttr {
  let r = reads.get(a);
  if (!r) reads.set(a, (r = readAttrOf(a)));
  return r;
}

function slotOf(slots: Map<string, number>, name: string): number {
  let s = slots.get(name);
  if (s === undefined) {
    s = slots.size;
    slots.set(name, s);
  }
  return s;
}

function compile(type: string, def: RecordDef | undefined, context: RecordContext): CompiledDef {
  const own = def?.subclasses ?? [];
  const common = context === 'entity' ? [ENTITY_COMMON] : context === 'tableEntry' ? [TABLE_RECORD_COMMON] : [];
  const slots = new Map<string, number>();
  const reads = new Map<AttrDef, ReadAttr>();
  const subs = [...common, ...own].map((d) => compileSub(d, slots, reads));
  const flat = new Map<number, ReadAttr[]>();
  for (const s of subs) {
    // a codec reads its own attributes, from what the plain ones leave
    if (s.codec) continue;
    for (const a of s.def.attrs) {
      const list = flat.get(a.code);
      if (list) list.push(readOf(reads, a));
      else flat.set(a.code, [readOf(reads, a)]);
    }
  }
  const required = def
    ? subs.flatMap((s) => s.def.attrs.filter((a) => a.required && a.default !== undefined).map((a) => readOf(reads, a)))
    : [];
  return {
    type,
    def,
    context,
    subs,
    flat,
    codecSubs: subs.filter((s) => s.codec),
    handleCode: type === 'DIMSTYLE' ? 105 : 5,
    markerList: subs.map((s) => s.marker),
    required,
    requiredSlots: required.map((a) => slotOf(slots, a.name)),
    slotCount: slots.size,
  };
}

const compiledEntities = new Map<string, CompiledDef>();
const compiledEntries = new Map<string, CompiledDef>();
const compiledObjects = new Map<string, CompiledDef>();

/**
 * The compiled declaration of a type in a context. Undeclared types get one too (common subclass
 * only, `def` undefined) so that an unknown entity still exposes its layer and colour.
 */
export function compiledDef(type: string, context: RecordContext): CompiledDef {
  // (not a keyed lookup by context: with three keys that lookup is a slow one, once per record)
  const cache = context === 'entity' ? compiledEntities : context === 'tableEntry' ? compiledEntries : compiledObjects;
  let cd = cache.get(type);
  // a type cannot be declared twice: only an undeclared one may have been declared since
  if (cd !== undefined && cd.def !== undefined) return cd;
  const def = getDef(type);
  if (!cd || cd.def !== def) {
    cd = compile(type, def, context);
    cache.set(type, cd);
  }
  return cd;
}

/** Finds the subclass for a marker: the next one after `from` with that marker, else any. */
export function findSub(cd: CompiledDef, marker: string, from: number): number {
  const subs = cd.subs;
  for (let i = from + 1; i < subs.length; i++) if (subs[i]!.marker === marker) return i;
  for (let i = 0; i <= from && i < subs.length; i++) if (subs[i]!.marker === marker) return i;
  return -1;
}
