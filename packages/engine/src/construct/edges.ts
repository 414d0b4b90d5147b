// Boundary edges for trim and extend: the segments of given entities, or of the visible entities
// near a region found through the spatial index (never a scan of the whole drawing).
import { dxf, type Entity } from '../dxf.js';
import type { DocStore } from '../store/document-store.js';
import { safeBox } from '../store/document-store.js';
import { blockOfEntity } from '../model.js';
import { visibleEntity } from '../query/picks.js';
import type { Seg } from './curve.js';
import { primitiveSegs } from './entity-path.js';
import { type P, add, dist, mul, polar, sub, unit, TAU } from './vec2.js';

/** Types that bound nothing (their outlines are not drawing geometry a drafter cuts with). */
const NOT_EDGES = new Set(['POINT', 'TEXT', 'MTEXT', 'ATTRIB', 'ATTDEF', 'HATCH', 'IMAGE', 'WIPEOUT', 'VIEWPORT', 'OLE2FRAME', 'DIMENSION', 'MLEADER', 'MULTILEADER', 'TOLERANCE']);

export interface Box { minX: number; minY: number; maxX: number; maxY: number }

export class EdgeSource {
  private cache = new Map<string, { segs: Seg[]; box: Box | null }>();
  private freshHandles: Set<string>;
  /** How far rays and infinite lines reach: well past the drawing. */
  readonly reach: number;

  /**
   * AutoCAD's EDGEMODE 1: an edge counts as extended along its natural path (a line's ends carried
   * on as rays, an arc as its whole circle, an open polyline's end segments likewise).
   */
  /**
   * `fresh`: entities made or changed earlier in the same transaction (a fence's earlier trims),
   * which the spatial index does not know yet (or knows with their old box).
   */
  constructor(readonly store: DocStore, readonly exclude: Set<string>, readonly given: Entity[] | null, readonly extended = false, readonly fresh: Entity[] = []) {
    this.freshHandles = new Set(fresh.map((e) => e.handle));
    const x = store.index.extents();
    const span = x ? Math.hypot(x.max[0] - x.min[0], x.max[1] - x.min[1]) : 1;
    this.reach = Math.max(1, span) * 4;
  }

  /** The segments of one entity (empty for types that bound nothing), cached per call. */
  segsOf(e: Entity): { segs: Seg[]; box: Box | null } {
    let c = this.cache.get(e.handle);
    if (c) return c;
    let segs: Seg[] = [];
    if (!NOT_EDGES.has(e.type)) {
      try {
        segs = dxf.geometry(e, this.store.doc).flatMap((p) => primitiveSegs(p, this.reach));
      } catch {
        segs = []; // geometry the package cannot follow bounds nothing
      }
    }
    if (this.extended && segs.length) segs = extendEnds(segs, this.reach);
    const b = this.extended ? boxOfSegs(segs) : (this.freshHandles.has(e.handle) ? null : this.store.index.box(e.handle)) ?? boxOf(safeBox(e, this.store.doc));
    c = { segs, box: b ?? null };
    this.cache.set(e.handle, c);
    return c;
  }

  /** Candidate edge entities whose boxes meet `box`, in the same space as `target`. */
  near(target: Entity, box: Box): Entity[] {
    const meets = (b: Box | null) => !!b && b.minX <= box.maxX && b.maxX >= box.minX && b.minY <= box.maxY && b.maxY >= box.minY;
    if (this.given) return this.given.filter((e) => !this.exclude.has(e.handle) && meets(this.segsOf(e).box));
    const doc = this.store.doc;
    const block = blockOfEntity(doc, target);
    const out: Entity[] = [];
    if (block && this.store.isModelSpace(target)) {
      // extended edges reach across the drawing: every entry is a candidate, kept if its rays meet the box
      const x = this.extended ? this.store.index.extents() : null;
      const q = x ? { minX: x.min[0], minY: x.min[1], maxX: x.max[0], maxY: x.max[1] } : box;
      for (const it of this.store.index.search(q.minX, q.minY, q.maxX, q.maxY)) {
        if (this.exclude.has(it.handle)) continue;
        const e = doc.get(it.handle) as Entity | undefined;
        if (e && visibleEntity(this.store, e) && (!this.extended || meets(this.segsOf(e).box))) out.push(e);
      }
      const listed = new Set(out.map((e) => e.handle));
      for (const e of this.fresh) {
        if (listed.has(e.handle) || this.exclude.has(e.handle) || !visibleEntity(this.store, e)) continue;
        if (meets(this.extended ? this.segsOf(e).box : boxOf(safeBox(e, this.store.doc)))) out.push(e);
      }
      return out;
    }
    // Paper space and blocks are small and not indexed: their own entities.
    for (const e of block?.entities ?? []) {
      if (this.exclude.has(e.handle) || !visibleEntity(this.store, e)) continue;
      if (meets(this.segsOf(e).box)) out.push(e);
    }
    return out;
  }
}

/** The segments with their open ends carried on: lines as rays to `reach`, arcs as whole circles. */
function extendEnds(segs: Seg[], reach: number): Seg[] {
  const out = segs.slice();
  const first = segs[0]!, last = segs[segs.length - 1]!;
  const closed = segs.length > 1 && dist(endOf(last), startOf(first)) < 1e-9;
  if (closed) return out;
  const grow = (s: Seg, atStart: boolean, atEnd: boolean): Seg => {
    if (s.k === 'line') {
      const d = unit(sub(s.b, s.a));
      return { k: 'line', a: atStart ? add(s.a, mul(d, -reach)) : s.a, b: atEnd ? add(s.b, mul(d, reach)) : s.b };
    }
    if (s.k === 'arc') return { k: 'arc', c: s.c, r: s.r, a0: 0, sw: TAU };
    return s;
  };
  if (out.length === 1) out[0] = grow(first, true, true);
  else {
    out[0] = grow(first, true, false);
    out[out.length - 1] = grow(last, false, true);
  }
  return out;
}

const startOf = (s: Seg): P => (s.k === 'line' ? s.a : s.k === 'arc' ? polar(s.c, s.r, s.a0) : [NaN, NaN]);
const endOf = (s: Seg): P => (s.k === 'line' ? s.b : s.k === 'arc' ? polar(s.c, s.r, s.a0 + s.sw) : [NaN, NaN]);

function boxOfSegs(segs: Seg[]): Box {
  const pts: [number, number][] = [];
  for (const s of segs) {
    if (s.k === 'line') pts.push(s.a, s.b);
    else if (s.k === 'arc') pts.push([s.c[0] - s.r, s.c[1] - s.r], [s.c[0] + s.r, s.c[1] + s.r]);
    else if (s.k === 'ell') {
      const r = Math.hypot(...(s.u as [number, number])) + Math.hypot(...(s.v as [number, number]));
      pts.push([s.c[0] - r, s.c[1] - r], [s.c[0] + r, s.c[1] + r]);
    } else for (const q of s.n.ctrl) pts.push([q[0]!, q[1]!]);
  }
  return segsBox(pts, 0);
}

function boxOf(b: { min: number[]; max: number[] } | null): Box | null {
  return b ? { minX: b.min[0]!, minY: b.min[1]!, maxX: b.max[0]!, maxY: b.max[1]! } : null;
}

/** A box around a segment list's sample points, grown by `pad`. */
export function segsBox(points: [number, number][], pad: number): Box {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const p of points) {
    if (p[0] < minX) minX = p[0];
    if (p[1] < minY) minY = p[1];
    if (p[0] > maxX) maxX = p[0];
    if (p[1] > maxY) maxY = p[1];
  }
  return { minX: minX - pad, minY: minY - pad, maxX: maxX + pad, maxY: maxY + pad };
}
