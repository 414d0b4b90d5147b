// DxfRecord -> tags, in a target version: structural tags first (type, handle, app data groups,
// owner), then each subclass (marker, declared attributes in declaration order, its extra tags),
// then xdata. Attributes and subclasses newer than the target are left out; R12 has no markers,
// owners or app data groups. Undeclared records are their own tag list, written as read.
import type { AttrDef, AttrValue, CodecContext, DxfRecord, DxfVersion, Tag, TagSink } from '../types.js';
import type { CompiledDef, CompiledSub } from './compiled-def.js';
import { findSub } from './compiled-def.js';
import { entityMarkersFor } from '../entities/index.js';
import type { RawSink } from '../reader/lazy-entity.js';

export interface EncodeOptions {
  version: DxfVersion;
  /** Write handles (R12 files write them only with $HANDLING 1). */
  handles: boolean;
  /**
   * Where entities kept as their bytes (reader/lazy-entity.ts) go when they may be copied: the
   * ASCII writer of a drawing in its own version and code page.
   */
  verbatim?: { sink: RawSink; encoding: string; codepageDeclared: boolean } | undefined;
}

function isR12(version: DxfVersion): boolean {
  return version <= 'AC1009';
}

function newerThan(min: DxfVersion | undefined, version: DxfVersion): boolean {
  return min !== undefined && min > version;
}

function writeTags(out: TagSink, tags: readonly Tag[]): void {
  for (const t of tags) out.tag(t[0], t[1]);
}

export function writeAttr(out: TagSink, a: AttrDef, v: AttrValue | unknown): void {
  switch (a.kind) {
    case 'str':
    case 'handle':
      out.tag(a.code, typeof v === 'string' ? v : String(v));
      return;
    case 'bool':
      out.tag(a.code, v === true || v === 1 ? 1 : 0);
      return;
    case 'int':
    case 'float':
      out.tag(a.code, typeof v === 'number' ? v : Number(v));
      return;
    default: {
      if (!Array.isArray(v)) return;
      const p = v as number[];
      if (a.kind !== 'point2' && p.length < 3) out.point(a.code, [p[0] ?? 0, p[1] ?? 0, 0]);
      else out.point(a.code, p);
    }
  }
}

function writeDeclared(out: TagSink, sub: CompiledSub, rec: DxfRecord, opts: EncodeOptions, ctx: CodecContext): void {
  // a codec writes its whole subclass; its `attrs` only describe the attributes it keeps
  if (sub.codec) {
    sub.codec.write(rec, out, ctx);
    return;
  }
  const attrs = rec.attrs;
  let memo = sub.writeMemo;
  if (memo.version !== opts.version) {
    memo = sub.writeMemo = { version: opts.version, attrs: sub.def.attrs.filter((a) => !newerThan(a.minVersion, opts.version)) };
  }
  for (const a of memo.attrs) {
    let v = attrs[a.name];
    if (v === undefined) {
      if (!a.required || a.default === undefined) continue;
      v = a.default;
    }
    writeAttr(out, a, v);
  }
}

/** One context per version rather than one per record written. */
let lastCtx: CodecContext = { version: 'AC1032' };

function contextFor(version: DxfVersion): CodecContext {
  if (lastCtx.version !== version) lastCtx = { version };
  return lastCtx;
}

/** Writes a record of a declared type or an undeclared one. */
export function encodeRecord(cd: CompiledDef, rec: DxfRecord, out: TagSink, opts: EncodeOptions): void {
  const r12 = isR12(opts.version);
  const ctx = contextFor(opts.version);
  out.tag(0, rec.type);
  if (opts.handles && rec.handle) out.tag(cd.handleCode, rec.handle);
  // written whenever present: R12 files that have them keep them (a conversion to R12 filters them)
  if (rec.appData) {
    for (const g of rec.appData) {
      out.tag(102, '{' + g.name);
      writeTags(out, g.tags);
      out.tag(102, '}');
    }
  }
  if (rec.owner) out.tag(330, rec.owner);
  if (cd.def === undefined) encodeRaw(cd, rec, out);
  else {
    // R12 records are written without markers unless they were read with them
    const markers = !r12 || rec.markers !== undefined;
    const extra = rec.extra;
    const head = extra?.[''];
    if (head) writeTags(out, head);
    // a record made by the engine has no markers: its declaration picks them (POLYLINE by flags ...)
    const list = rec.markers ?? (cd.context === 'entity' ? entityMarkersFor(rec) : undefined);
    if (list) {
      let idx = -1;
      let extrasDone: Set<string> | undefined;
      for (const marker of list) {
        const found = findSub(cd, marker, idx);
        if (found >= 0) idx = found;
        const sub = found >= 0 ? cd.subs[found]! : undefined;
        if (sub && newerThan(sub.def.minVersion, opts.version)) {
          // a subclass the version does not know: only what was read as unknown goes back
          if (!extra?.[marker]) continue;
          if (markers) out.tag(100, marker);
        } else {
          if (markers) out.tag(100, marker);
          if (sub) writeDeclared(out, sub, rec, opts, ctx);
        }
        // a marker seen twice (TEXT's AcDbText) gets its extra tags at its first place
        const more = extra?.[marker];
        if (more && !extrasDone?.has(marker)) {
          (extrasDone ??= new Set()).add(marker);
          writeTags(out, more);
        }
      }
    } else {
      let extrasDone: Set<string> | undefined;
      for (const sub of cd.subs) {
        if (newerThan(sub.def.minVersion, opts.version)) continue;
        if (markers) out.tag(100, sub.marker);
        writeDeclared(out, sub, rec, opts, ctx);
        const more = extra?.[sub.marker];
        if (more && !extrasDone?.has(sub.marker)) {
          (extrasDone ??= new Set()).add(sub.marker);
          writeTags(out, more);
        }
      }
    }
  }
  if (rec.xdata) {
    for (const g of rec.xdata) {
      out.tag(1001, g.app);
      writeTags(out, g.tags);
    }
  }
}

/** Whether a tag's text already says `v` (so writing the text keeps the file byte for byte). */
function sameAsTag(a: AttrDef, text: string, v: unknown): boolean {
  switch (a.kind) {
    case 'str':
      return text === v;
    case 'handle':
      return text.trim().toUpperCase() === v;
    case 'int':
      return Math.trunc(+text) === v;
    case 'float':
      return +text === v;
    case 'bool':
      return (+text !== 0) === v;
    default:
      return false;
  }
}

/**
 * An undeclared record's tags as read. For entities the AcDbEntity attributes are written from
 * `attrs` in their place, so a layer or colour set by the engine is honoured.
 */
function encodeRaw(cd: CompiledDef, rec: DxfRecord, out: TagSink): void {
  const tags = rec.extra?.[''] ?? [];
  const entitySub = cd.context === 'entity' ? cd.subs[0] : undefined;
  if (!entitySub) {
    writeTags(out, tags);
    return;
  }
  const attrs = rec.attrs;
  const written = new Set<string>();
  const hasMarkers = tags.some((t) => t[0] === 100);
  // R12 records have no markers: all of them is "the AcDbEntity part", as when reading
  let inEntitySub = !hasMarkers;
  let common = hasMarkers;
  const flushMissing = (): void => {
    for (const a of entitySub.def.attrs) {
      if (written.has(a.name)) continue;
      const v = attrs[a.name];
      if (v !== undefined) {
        writeAttr(out, a, v);
        written.add(a.name);
      }
    }
  };
  for (const t of tags) {
    const c = t[0];
    if (c === 100) {
      if (inEntitySub) flushMissing();
      common = false;
      inEntitySub = t[1] === entitySub.marker;
      out.tag(100, t[1]);
      continue;
    }
    if (inEntitySub || common) {
      const a = entitySub.byCode.get(c);
      if (a && !written.has(a.name)) {
        written.add(a.name);
        const v = attrs[a.name];
        // unchanged (or unparsable, hence unset) attributes go back exactly as read
        if (v === undefined || sameAsTag(a, t[1], v)) out.tag(c, t[1]);
        else writeAttr(out, a, v);
        continue;
      }
    }
    out.tag(c, t[1]);
  }
  if (inEntitySub) flushMissing();
}
