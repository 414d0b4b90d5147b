// Small building blocks shared by the entity codecs: reading declared attributes from a run of
// tags in file order, writing them back in declaration order, and version gating. The generic
// record codec (not in this folder) does the same for subclasses without a codec; these helpers
// exist so that codecs for subclasses with repeated groups handle their plain attributes the same way.
import { DXF_VERSIONS } from '../types.js';
import { parseNumber } from '../tags/parse-number.js';
import type { AttrDef, AttrValue, CodecContext, DxfRecord, DxfVersion, SubclassCodec, Tag, TagSink, TagSource, Vec3 } from '../types.js';

const VERSION_INDEX = new Map<string, number>(DXF_VERSIONS.map((v, i) => [v, i]));

/** True when `version` is at least `min` (unknown versions count as newest). */
export function versionAtLeast(version: DxfVersion | string, min: DxfVersion | undefined): boolean {
  if (!min) return true;
  const v = VERSION_INDEX.get(version) ?? DXF_VERSIONS.length;
  return v >= (VERSION_INDEX.get(min) ?? 0);
}

export function num(value: string): number {
  const n = parseNumber(value);
  return Number.isNaN(n) ? 0 : n;
}

/** `num` of tag `i`'s value. */
export function numAt(tags: TagSource, i: number): number {
  const n = tags.num(i);
  return Number.isNaN(n) ? 0 : n;
}

class TagListSource implements TagSource {
  constructor(private readonly tags: Tag[]) {}
  get length(): number {
    return this.tags.length;
  }
  code(i: number): number {
    return this.tags[i]![0];
  }
  str(i: number): string {
    return this.tags[i]![1];
  }
  num(i: number): number {
    return parseNumber(this.tags[i]![1]);
  }
}

/** A tag list read by index, for code shared by `read` and `readFrom`. */
export function tagSource(tags: Tag[]): TagSource {
  return new TagListSource(tags);
}

export function isPointKind(def: AttrDef): boolean {
  return def.kind === 'point2' || def.kind === 'point3' || def.kind === 'vec3';
}

/** Converts one tag value by the attribute's kind (points are assembled by `readPoint`). */
export function scalar(def: AttrDef, value: string): AttrValue {
  switch (def.kind) {
    case 'int':
    case 'float':
      return num(value);
    case 'bool':
      return num(value) !== 0;
    case 'handle':
      return value.trim().toUpperCase();
    default:
      return value;
  }
}

/**
 * Reads a point starting at tags[i] (code `code`): x, then y (code+10) and z (code+20) when they
 * follow. Returns the point and the index after it. `dims` 2 ignores a z, 3 fills a missing z with 0.
 */
export function readPoint(tags: Tag[], i: number, code: number, dims: 2 | 3): [number[], number] {
  return readPointFrom(tagSource(tags), i, code, dims);
}

/** `readPoint` on a `TagSource`. */
export function readPointFrom(tags: TagSource, i: number, code: number, dims: 2 | 3): [number[], number] {
  const x = numAt(tags, i);
  let y = 0;
  let z = 0;
  let j = i + 1;
  if (j < tags.length && tags.code(j) === code + 10) {
    y = numAt(tags, j);
    j++;
    if (j < tags.length && tags.code(j) === code + 20) {
      z = numAt(tags, j);
      j++;
    }
  }
  if (dims === 2) return [[x, y], j];
  return [[x, y, z], j];
}

/** Writes one declared attribute value (no version check). */
export function writeValue(out: TagSink, def: AttrDef, value: unknown): void {
  switch (def.kind) {
    case 'point2': {
      const p = value as number[];
      out.point(def.code, [p[0] ?? 0, p[1] ?? 0]);
      return;
    }
    case 'point3':
    case 'vec3': {
      const p = value as number[];
      out.point(def.code, [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0]);
      return;
    }
    case 'bool':
      out.tag(def.code, value ? 1 : 0);
      return;
    case 'int':
    case 'float':
      out.tag(def.code, typeof value === 'number' ? value : num(String(value)));
      return;
    default:
      out.tag(def.code, String(value));
  }
}

/** Writes an attribute by name when present (or required), honouring its minVersion. */
export function writeAttr(out: TagSink, rec: DxfRecord, def: AttrDef, ctx: CodecContext): void {
  if (!versionAtLeast(ctx.version, def.minVersion)) return;
  let v = rec.attrs[def.name];
  if (v === undefined || v === null) {
    if (!def.required || def.default === undefined) return;
    v = def.default;
  }
  writeValue(out, def, v);
}

/** A table of declared attributes by name, for codecs. */
export function byName(attrs: AttrDef[]): Map<string, AttrDef> {
  return new Map(attrs.map((a) => [a.name, a]));
}

/**
 * Reads tags[i] as a declared attribute when its code belongs to one not yet read. Returns the next
 * index, or -1 when the tag is not a declared attribute. Several attributes may share a code (the
 * first unread one wins, e.g. ATTRIB's two 280s). An attribute newer than the file's version is not
 * one: the writer leaves such attributes out for that version, so the tag must stay a kept tag to
 * be written back (files do carry them: AutoCAD writes MTEXT background fill in R2004).
 */
export function readDeclared(
  tags: Tag[], i: number, rec: DxfRecord, byCode: Map<number, AttrDef[]>, seen: Set<string>, ctx: CodecContext,
): number {
  return readDeclaredFrom(tagSource(tags), i, rec, byCode, seen, ctx);
}

/** `readDeclared` on a `TagSource`. */
export function readDeclaredFrom(
  tags: TagSource, i: number, rec: DxfRecord, byCode: Map<number, AttrDef[]>, seen: Set<string>, ctx: CodecContext,
): number {
  const code = tags.code(i);
  const defs = byCode.get(code);
  if (!defs) return -1;
  const def = defs.find((d) => !seen.has(d.name) && versionAtLeast(ctx.version, d.minVersion));
  if (!def) return -1;
  seen.add(def.name);
  if (isPointKind(def)) {
    const [p, j] = readPointFrom(tags, i, code, def.kind === 'point2' ? 2 : 3);
    rec.attrs[def.name] = p;
    return j;
  }
  // numbers straight from the source: `scalar` of the value string, without making it
  switch (def.kind) {
    case 'int':
    case 'float':
      rec.attrs[def.name] = numAt(tags, i);
      break;
    case 'bool':
      rec.attrs[def.name] = numAt(tags, i) !== 0;
      break;
    default:
      rec.attrs[def.name] = scalar(def, tags.str(i));
  }
  return i + 1;
}

export function codeTable(attrs: AttrDef[]): Map<number, AttrDef[]> {
  const m = new Map<number, AttrDef[]>();
  for (const a of attrs) {
    const list = m.get(a.code);
    if (list) list.push(a);
    else m.set(a.code, [a]);
  }
  return m;
}

/** One step of a sequential codec's writer: a declared attribute name or a custom writer. */
export type WriteStep = string | ((rec: DxfRecord, out: TagSink, ctx: CodecContext) => void);

/** A custom reader hook: consumes tags from i and returns the next index, or -1 when not its tag. */
export type ReadHook = (tags: TagSource, i: number, rec: DxfRecord, state: Record<string, unknown>) => number;

export interface SequentialCodecSpec {
  attrs: AttrDef[];
  /** Hooks tried before the declared attributes (repeated groups). */
  hooks?: ReadHook[];
  /** Writer steps in file order; defaults to the declared attributes in order. */
  order?: WriteStep[];
  /** Stop at `101 Embedded Object` and keep it and all after it verbatim (default true). */
  stopAtEmbedded?: boolean;
}

/**
 * A codec for subclasses made of declared attributes plus a few repeated groups: reads tags in
 * order (hooks first, then declared attributes), keeps the rest, writes in `order`.
 */
export function sequentialCodec(spec: SequentialCodecSpec): SubclassCodec {
  const byCode = codeTable(spec.attrs);
  const names = byName(spec.attrs);
  const order = spec.order ?? spec.attrs.map((a) => a.name);
  for (const step of order) {
    if (typeof step === 'string' && !names.has(step)) throw new Error(`codec order names undeclared attribute ${step}`);
  }
  const stop = spec.stopAtEmbedded ?? true;
  const readFrom = (tags: TagSource, rec: DxfRecord, ctx: CodecContext): Tag[] => {
    const rest: Tag[] = [];
    const seen = new Set<string>();
    const state: Record<string, unknown> = {};
    let i = 0;
    const n = tags.length;
    outer: while (i < n) {
      if (stop && tags.code(i) === 101) {
        for (; i < n; i++) rest.push([tags.code(i), tags.str(i)]);
        break;
      }
      if (spec.hooks) {
        for (const hook of spec.hooks) {
          const j = hook(tags, i, rec, state);
          if (j >= 0) {
            i = j;
            continue outer;
          }
        }
      }
      const j = readDeclaredFrom(tags, i, rec, byCode, seen, ctx);
      if (j >= 0) {
        i = j;
        continue;
      }
      rest.push([tags.code(i), tags.str(i)]);
      i++;
    }
    return rest;
  };
  return {
    read: (tags, rec, ctx) => readFrom(tagSource(tags), rec, ctx),
    readFrom,
    write(rec, out, ctx) {
      for (const step of order) {
        if (typeof step === 'string') writeAttr(out, rec, names.get(step)!, ctx);
        else step(rec, out, ctx);
      }
    },
  };
}

export function asVec3(v: unknown, fallback: Vec3 = [0, 0, 0]): Vec3 {
  if (!Array.isArray(v)) return fallback;
  return [Number(v[0] ?? 0), Number(v[1] ?? 0), Number(v[2] ?? 0)];
}
