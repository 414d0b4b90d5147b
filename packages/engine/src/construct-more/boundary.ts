// Hatch by point: the smallest closed boundary around a point, from the visible curves near it.
// Curves are flattened finely, arranged (arrangement.ts), and the face around the point found by
// a ray; islands inside it (other pieces of drawing not touching it) become holes, as AutoCAD's
// "normal" island style: every outline inside is a path and the hatch fills even-odd. Only the
// entities the spatial index finds in a window around the point are read; the window grows until
// the face found lies wholly inside it (then no entity outside could cut it).
import { dxf, type Entity, type Primitive } from '../dxf.js';
import { OpError } from '../protocol.js';
import type { DocStore } from '../store/document-store.js';
import { visibleEntity } from '../query/picks.js';
import { buildArrangement, cycleContains, faceAt, type Arrangement, type Cycle, type Seg } from './arrangement.js';

/** An exact curve the segments came from: a line, a circle (arcs too) or another curve (flattened only). */
export type Source =
  | { k: 'line'; ax: number; ay: number; bx: number; by: number }
  | { k: 'circle'; cx: number; cy: number; r: number }
  | { k: 'curve' };

/** A boundary path: [x, y, bulge] vertices, closed. */
export type BulgeLoop = [number, number, number][];

const BOUNDARY_TYPES = new Set(['LINE', 'ARC', 'CIRCLE', 'ELLIPSE', 'LWPOLYLINE', 'POLYLINE', 'SPLINE']);
/** Chord tolerance of the flattening, relative to each curve's radius or size. */
const REL_TOL = 1e-3;
/** At most this many segments are arranged; beyond, the search stops (no_boundary). */
const MAX_SEGMENTS = 400000;

export interface BoundaryResult {
  loops: BulgeLoop[];
  /** Entities read to find it (how local the search stayed). */
  examined: number;
}

/** Finds the boundary around `p` in model space, or throws `no_boundary`. */
export function boundaryAt(store: DocStore, p: [number, number]): BoundaryResult {
  const ext = store.index.extents();
  if (!ext) throw noBoundary(p, 'the drawing is empty');
  const span = Math.max(ext.max[0] - ext.min[0], ext.max[1] - ext.min[1], 1e-9);
  const far = Math.max(Math.abs(ext.min[0] - p[0]), Math.abs(ext.max[0] - p[0]), Math.abs(ext.min[1] - p[1]), Math.abs(ext.max[1] - p[1]));
  let h = span / 256;
  let last: Arrangement | null = null;
  let examined = 0;
  for (;;) {
    const found = tryWindow(store, p, h);
    last = found.arr;
    examined = found.examined;
    if (found.loops) return { loops: found.loops, examined };
    if (h >= far || found.tooMany) break;
    // a face that reaches out of the window can only shrink once the window holds its box: that
    // window is the last one needed; without a face the window grows fourfold
    h = found.reach > h ? Math.min(found.reach * 1.01, far * 1.01) : h * 4;
  }
  throw noBoundary(p, gapMessage(last, p));
}

function noBoundary(p: readonly number[], why: string): OpError {
  return new OpError('no_boundary', `no closed boundary around (${fmt(p[0]!)}, ${fmt(p[1]!)}): ${why}`, { point: [p[0], p[1]] });
}

function fmt(v: number): string {
  return String(Math.round(v * 1e6) / 1e6);
}

function gapMessage(arr: Arrangement | null, p: readonly number[]): string {
  if (!arr || !arr.freeEnds.length) return 'no curves enclose the point';
  let best = arr.freeEnds[0]!;
  let bd = Infinity;
  for (const q of arr.freeEnds) {
    const d = Math.hypot(q[0] - p[0]!, q[1] - p[1]!);
    if (d < bd) { bd = d; best = q; }
  }
  let other: [number, number] | null = null;
  let od = Infinity;
  for (const q of arr.freeEnds) {
    if (q === best) continue;
    const d = Math.hypot(q[0] - best[0], q[1] - best[1]);
    if (d < od) { od = d; other = q; }
  }
  if (!other) return `a curve ends open at (${fmt(best[0])}, ${fmt(best[1])})`;
  return `the nearest gap is between (${fmt(best[0])}, ${fmt(best[1])}) and (${fmt(other[0])}, ${fmt(other[1])}), ${fmt(od)} apart`;
}

function tryWindow(store: DocStore, p: [number, number], h: number): { loops: BulgeLoop[] | null; arr: Arrangement; examined: number; tooMany: boolean; reach: number } {
  const x0 = p[0] - h, y0 = p[1] - h, x1 = p[0] + h, y1 = p[1] + h;
  const hits = store.index.search(x0, y0, x1, y1);
  const sources: Source[] = [];
  const segs: Seg[] = [];
  let examined = 0;
  for (const it of hits) {
    const e = store.doc.get(it.handle) as Entity | undefined;
    if (!e || !BOUNDARY_TYPES.has(e.type) || !visibleEntity(store, e)) continue;
    examined++;
    let prims: Primitive[];
    try {
      prims = dxf.geometry(e, store.doc);
    } catch {
      continue;
    }
    for (const pr of prims) addPrim(pr, sources, segs);
    if (segs.length > MAX_SEGMENTS) break;
  }
  const eps = Math.max(h * 1e-9, 1e-12);
  const arr = buildArrangement(segs, eps);
  const tooMany = segs.length > MAX_SEGMENTS;
  const face = faceAt(arr, p[0], p[1]);
  if (!face) return { loops: null, arr, examined, tooMany, reach: 0 };
  // the face must lie inside the window, else a curve outside it might cut the face
  const reach = Math.max(p[0] - face.minX, face.maxX - p[0], p[1] - face.minY, face.maxY - p[1]);
  if (face.minX <= x0 || face.maxX >= x1 || face.minY <= y0 || face.maxY >= y1) return { loops: null, arr, examined, tooMany, reach };
  const loops: BulgeLoop[] = [cycleLoop(arr, face, sources)];
  for (const c of islandsOf(arr, face)) loops.push(cycleLoop(arr, c, sources));
  return { loops, arr, examined, tooMany, reach };
}

/** The outlines of the pieces inside the face (not touching it). */
function islandsOf(arr: Arrangement, face: Cycle): Cycle[] {
  const out: Cycle[] = [];
  for (const c of arr.cycles) {
    if (c.area >= 0 || c.component === face.component) continue;
    if (c.minX < face.minX || c.maxX > face.maxX || c.minY < face.minY || c.maxY > face.maxY) continue;
    const e = arr.edges[c.edges[0]!]!;
    if (cycleContains(arr, face, arr.xs[e.from]!, arr.ys[e.from]!)) out.push(c);
  }
  return out;
}

function addPrim(pr: Primitive, sources: Source[], segs: Seg[]): void {
  const push = (pts: number[][], src: number) => {
    for (let i = 0; i + 1 < pts.length; i++) {
      const a = pts[i]!, b = pts[i + 1]!;
      if (a[0] === b[0] && a[1] === b[1]) continue;
      segs.push({ ax: a[0]!, ay: a[1]!, bx: b[0]!, by: b[1]!, src });
    }
  };
  switch (pr.k) {
    case 'line':
      sources.push({ k: 'line', ax: pr.a[0], ay: pr.a[1], bx: pr.b[0], by: pr.b[1] });
      push([pr.a, pr.b], sources.length - 1);
      return;
    case 'poly': {
      const pts = pr.closed ? [...pr.pts, pr.pts[0]!] : pr.pts;
      for (let i = 0; i + 1 < pts.length; i++) {
        const a = pts[i]!, b = pts[i + 1]!;
        sources.push({ k: 'line', ax: a[0], ay: a[1], bx: b[0], by: b[1] });
        push([a, b], sources.length - 1);
      }
      return;
    }
    case 'arc': {
      const ru = Math.hypot(pr.u[0], pr.u[1]), rv = Math.hypot(pr.v[0], pr.v[1]);
      const circular = Math.abs(pr.u[2]) < 1e-12 && Math.abs(pr.v[2]) < 1e-12 && Math.abs(ru - rv) <= 1e-9 * ru && Math.abs(pr.u[0] * pr.v[0] + pr.u[1] * pr.v[1]) <= 1e-9 * ru * ru;
      sources.push(circular ? { k: 'circle', cx: pr.c[0], cy: pr.c[1], r: ru } : { k: 'curve' });
      push(dxf.flattenPrim(pr, Math.max(ru, rv) * REL_TOL), sources.length - 1);
      return;
    }
    case 'spline': {
      let size = 0;
      const cps = pr.data.control_points;
      for (const q of cps) size = Math.max(size, Math.abs(q[0]! - cps[0]![0]!), Math.abs(q[1]! - cps[0]![1]!));
      sources.push({ k: 'curve' });
      push(dxf.flattenPrim(pr, Math.max(size, 1e-9) * REL_TOL), sources.length - 1);
      return;
    }
    default:
      return;
  }
}

/**
 * A cycle as a bulge loop: runs of edges from one line become one segment, runs along one circle
 * one arc (bulge), other curves keep their flattened points. Corners where two exact curves meet
 * are recomputed exactly, so areas and angles do not carry the flattening's error.
 */
export function cycleLoop(arr: Arrangement, c: Cycle, sources: Source[]): BulgeLoop {
  const hs = c.edges;
  const n = hs.length;
  const srcOf = (i: number) => arr.edges[hs[((i % n) + n) % n]!]!.src;
  // start where the source changes, so that no run wraps around
  let start = 0;
  while (start < n && srcOf(start - 1) === srcOf(start)) start++;
  const whole = start === n;
  if (whole) start = 0;
  const runs: { src: number; first: number; count: number }[] = [];
  for (let k = 0; k < n; k++) {
    const i = (start + k) % n;
    const s = srcOf(i);
    const last = runs[runs.length - 1];
    if (last && last.src === s) last.count++;
    else runs.push({ src: s, first: i, count: 1 });
  }
  const from = (i: number): [number, number] => {
    const e = arr.edges[hs[i % n]!]!;
    return [arr.xs[e.from]!, arr.ys[e.from]!];
  };
  // exact corners between consecutive runs
  const corners: [number, number][] = runs.map((r, k) => {
    const prev = runs[(k - 1 + runs.length) % runs.length]!;
    const approx = from(r.first);
    if (runs.length === 1) return approx;
    return exactCorner(sources[prev.src]!, sources[r.src]!, approx);
  });
  const loop: BulgeLoop = [];
  runs.forEach((r, k) => {
    const src = sources[r.src]!;
    const a = corners[k]!;
    const b = corners[(k + 1) % runs.length]!;
    if (src.k === 'line') {
      loop.push([a[0], a[1], 0]);
      return;
    }
    if (src.k === 'circle') {
      // the direction the cycle runs along the circle, from its first edge
      const p0 = from(r.first), p1 = from(r.first + 1);
      const dir = Math.sign((p0[0] - src.cx) * (p1[1] - src.cy) - (p0[1] - src.cy) * (p1[0] - src.cx)) || 1;
      const a0 = Math.atan2(a[1] - src.cy, a[0] - src.cx);
      const a1 = Math.atan2(b[1] - src.cy, b[0] - src.cx);
      let sweep = whole ? 2 * Math.PI * dir : dir > 0 ? ccw(a0, a1) : -ccw(a1, a0);
      if (!whole && Math.abs(sweep) < 1e-12) sweep = 2 * Math.PI * dir;
      // arcs of more than half a turn are split: bulges stay small and exact
      const parts = Math.abs(sweep) > Math.PI + 1e-9 ? 2 : 1;
      for (let j = 0; j < parts; j++) {
        const t = a0 + (sweep * j) / parts;
        const pt: [number, number] = j === 0 ? a : [src.cx + src.r * Math.cos(t), src.cy + src.r * Math.sin(t)];
        loop.push([pt[0], pt[1], Math.tan(sweep / parts / 4)]);
      }
      return;
    }
    loop.push([a[0], a[1], 0]);
    for (let j = 1; j < r.count; j++) {
      const q = from(r.first + j);
      loop.push([q[0], q[1], 0]);
    }
  });
  return loop;
}

function ccw(a0: number, a1: number): number {
  let d = (a1 - a0) % (2 * Math.PI);
  if (d < 0) d += 2 * Math.PI;
  return d;
}

/** The exact meeting point of two curves nearest to an approximate one (the approximation when none is near). */
function exactCorner(s: Source, t: Source, approx: [number, number]): [number, number] {
  if (s.k === 'curve' || t.k === 'curve') return approx;
  const cands: [number, number][] = [];
  if (s.k === 'line' && t.k === 'line') {
    // shared end points are exact already
    for (const p of [[s.ax, s.ay], [s.bx, s.by]] as [number, number][]) {
      for (const q of [[t.ax, t.ay], [t.bx, t.by]] as [number, number][]) if (p[0] === q[0] && p[1] === q[1]) cands.push(p);
    }
    const dx = s.bx - s.ax, dy = s.by - s.ay, ex = t.bx - t.ax, ey = t.by - t.ay;
    const den = dx * ey - dy * ex;
    if (den !== 0) {
      const u = ((t.ax - s.ax) * ey - (t.ay - s.ay) * ex) / den;
      cands.push([s.ax + dx * u, s.ay + dy * u]);
    }
  } else if (s.k === 'circle' && t.k === 'circle') cands.push(...circleCircle(s, t));
  else {
    const l = (s.k === 'line' ? s : t) as Extract<Source, { k: 'line' }>;
    const c = (s.k === 'circle' ? s : t) as Extract<Source, { k: 'circle' }>;
    cands.push(...lineCircle(l, c));
  }
  let best = approx;
  let bd = Infinity;
  for (const q of cands) {
    const d = Math.hypot(q[0] - approx[0], q[1] - approx[1]);
    if (d < bd) { bd = d; best = q; }
  }
  const size = Math.max(1e-9, ...[s, t].map((x) => (x.k === 'circle' ? x.r : x.k === 'line' ? Math.hypot(x.bx - x.ax, x.by - x.ay) : 0)));
  return bd <= size * REL_TOL * 10 ? best : approx;
}

function lineCircle(l: Extract<Source, { k: 'line' }>, c: Extract<Source, { k: 'circle' }>): [number, number][] {
  const dx = l.bx - l.ax, dy = l.by - l.ay;
  const L = Math.hypot(dx, dy);
  if (L === 0) return [];
  const ux = dx / L, uy = dy / L;
  const t0 = (c.cx - l.ax) * ux + (c.cy - l.ay) * uy;
  const fx = l.ax + ux * t0, fy = l.ay + uy * t0;
  const d = Math.hypot(c.cx - fx, c.cy - fy);
  const h2 = c.r * c.r - d * d;
  if (h2 < -1e-12 * c.r * c.r) return [];
  const h = Math.sqrt(Math.max(0, h2));
  return [[fx - ux * h, fy - uy * h], [fx + ux * h, fy + uy * h]];
}

function circleCircle(a: Extract<Source, { k: 'circle' }>, b: Extract<Source, { k: 'circle' }>): [number, number][] {
  const dx = b.cx - a.cx, dy = b.cy - a.cy;
  const d = Math.hypot(dx, dy);
  if (d === 0) return [];
  const x = (d * d + a.r * a.r - b.r * b.r) / (2 * d);
  const h = Math.sqrt(Math.max(0, a.r * a.r - x * x));
  const mx = a.cx + (dx * x) / d, my = a.cy + (dy * x) / d;
  return [[mx - (dy * h) / d, my + (dx * h) / d], [mx + (dy * h) / d, my - (dx * h) / d]];
}

/** Signed area of a bulge loop (counter-clockwise positive): polygon plus the circular segments. */
export function loopArea(loop: BulgeLoop): number {
  let a = 0;
  for (let i = 0; i < loop.length; i++) {
    const p = loop[i]!, q = loop[(i + 1) % loop.length]!;
    a += (p[0] * q[1] - q[0] * p[1]) / 2;
    const b = p[2];
    if (b) {
      const c = Math.hypot(q[0] - p[0], q[1] - p[1]);
      const th = 4 * Math.atan(b);
      const r = c / (2 * Math.sin(Math.abs(th) / 2));
      a += Math.sign(th) * (r * r / 2) * (Math.abs(th) - Math.sin(Math.abs(th)));
    }
  }
  return a;
}
