// Queries over entity geometry: intersections (in the XY projection), distance to a point,
// containment, flattening. Exact formulas for line/ray/xline/polyline segments against each other
// and against circular or elliptical arcs (in any plane, projected); circle-circle exact; other
// pairs (ellipse-ellipse, splines) are flattened (curve tolerance 1e-6 of the curve's size) and
// each hit refined by Newton iterations on the true curves, so results are accurate to ~1e-9.
import type { DocumentApi } from '../document-api.js';
import type { Entity, Vec3 } from '../types.js';
import { BSpline, chordDistance } from './curves.js';
import { entityGeometry, flattenPrim } from './primitives.js';
import type { Primitive } from './primitives.js';
import { TAU } from './vec.js';

/** Polylines approximating an entity in WCS within `tolerance` (rays/xlines give none). */
export function flatten(e: Entity, tolerance = 0.01, doc?: DocumentApi): Vec3[][] {
  const out: Vec3[][] = [];
  for (const p of entityGeometry(e, doc).prims) {
    const pts = flattenPrim(p, tolerance);
    if (pts.length) out.push(pts);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// parametric pieces in 2D

interface Lin {
  k: 'lin';
  p: Vec3;
  d: Vec3;
  tmin: number;
  tmax: number;
}
interface Ell {
  k: 'ell';
  c: Vec3;
  u: Vec3;
  v: Vec3;
  t0: number;
  sweep: number;
  circle: boolean;
}
interface Curve {
  k: 'curve';
  at: (t: number) => Vec3;
  t0: number;
  t1: number;
  size: number;
}
type Piece = Lin | Ell | Curve;

function pieces(prims: Primitive[]): Piece[] {
  const out: Piece[] = [];
  for (const p of prims) {
    switch (p.k) {
      case 'line':
        out.push({ k: 'lin', p: p.a, d: [p.b[0] - p.a[0], p.b[1] - p.a[1], p.b[2] - p.a[2]], tmin: 0, tmax: 1 });
        break;
      case 'poly': {
        const pts = p.closed ? [...p.pts, p.pts[0]!] : p.pts;
        for (let i = 0; i + 1 < pts.length; i++) {
          const a = pts[i]!;
          const b = pts[i + 1]!;
          out.push({ k: 'lin', p: a, d: [b[0] - a[0], b[1] - a[1], b[2] - a[2]], tmin: 0, tmax: 1 });
        }
        break;
      }
      case 'ray':
        out.push({ k: 'lin', p: p.a, d: p.d, tmin: p.both ? -Infinity : 0, tmax: Infinity });
        break;
      case 'arc': {
        const circle = Math.abs(p.u[2]) < 1e-12 && Math.abs(p.v[2]) < 1e-12 &&
          Math.abs(Math.hypot(p.u[0], p.u[1]) - Math.hypot(p.v[0], p.v[1])) < 1e-9 * Math.hypot(p.u[0], p.u[1]) &&
          Math.abs(p.u[0] * p.v[0] + p.u[1] * p.v[1]) < 1e-9 * (p.u[0] ** 2 + p.u[1] ** 2);
        out.push({ k: 'ell', c: p.c, u: p.u, v: p.v, t0: p.t0, sweep: p.sweep, circle });
        break;
      }
      case 'spline': {
        const bs = new BSpline(p.data);
        let size = 0;
        for (const q of p.data.control_points) size = Math.max(size, Math.abs(q[0]!), Math.abs(q[1]!));
        out.push({ k: 'curve', at: (t) => bs.point(t), t0: bs.tMin, t1: bs.tMax, size: size || 1 });
        break;
      }
      case 'point':
        break;
    }
  }
  return out;
}

function inSweep(t: number, t0: number, sweep: number, eps = 1e-10): number | null {
  if (sweep >= TAU - 1e-12) return t;
  let d = (t - t0) % TAU;
  if (d < 0) d += TAU;
  if (d <= sweep + eps) return t0 + d;
  if (d >= TAU - eps) return t0;
  return null;
}

function linLin(a: Lin, b: Lin, out: Vec3[]): void {
  const den = a.d[0] * b.d[1] - a.d[1] * b.d[0];
  if (Math.abs(den) < 1e-15 * (Math.hypot(a.d[0], a.d[1]) * Math.hypot(b.d[0], b.d[1]) || 1)) {
    // parallel: collinear overlaps give their end points
    const wx = b.p[0] - a.p[0];
    const wy = b.p[1] - a.p[1];
    if (Math.abs(wx * a.d[1] - wy * a.d[0]) > 1e-9 * (Math.hypot(a.d[0], a.d[1]) || 1)) return;
    const l2 = a.d[0] ** 2 + a.d[1] ** 2;
    if (l2 === 0) return;
    for (const t of [b.tmin, b.tmax]) {
      if (!Number.isFinite(t)) continue;
      const q: Vec3 = [b.p[0] + b.d[0] * t, b.p[1] + b.d[1] * t, b.p[2] + b.d[2] * t];
      const s = ((q[0] - a.p[0]) * a.d[0] + (q[1] - a.p[1]) * a.d[1]) / l2;
      if (s >= a.tmin - 1e-12 && s <= a.tmax + 1e-12) out.push(q);
    }
    for (const s of [a.tmin, a.tmax]) {
      if (!Number.isFinite(s)) continue;
      const q: Vec3 = [a.p[0] + a.d[0] * s, a.p[1] + a.d[1] * s, a.p[2] + a.d[2] * s];
      const l2b = b.d[0] ** 2 + b.d[1] ** 2;
      const t = ((q[0] - b.p[0]) * b.d[0] + (q[1] - b.p[1]) * b.d[1]) / (l2b || 1);
      if (t >= b.tmin - 1e-12 && t <= b.tmax + 1e-12) out.push(q);
    }
    return;
  }
  const wx = b.p[0] - a.p[0];
  const wy = b.p[1] - a.p[1];
  const s = (wx * b.d[1] - wy * b.d[0]) / den;
  const t = (wx * a.d[1] - wy * a.d[0]) / den;
  const e = 1e-12;
  if (s < a.tmin - e || s > a.tmax + e || t < b.tmin - e || t > b.tmax + e) return;
  out.push([a.p[0] + a.d[0] * s, a.p[1] + a.d[1] * s, a.p[2] + a.d[2] * s]);
}

function ellPoint(e: Ell, t: number): Vec3 {
  const c = Math.cos(t);
  const s = Math.sin(t);
  return [e.c[0] + e.u[0] * c + e.v[0] * s, e.c[1] + e.u[1] * c + e.v[1] * s, e.c[2] + e.u[2] * c + e.v[2] * s];
}

function linEll(l: Lin, e: Ell, out: Vec3[]): void {
  // normal form of the line: n · x = h
  const nx = -l.d[1];
  const ny = l.d[0];
  const h = nx * l.p[0] + ny * l.p[1];
  const A = nx * e.u[0] + ny * e.u[1];
  const B = nx * e.v[0] + ny * e.v[1];
  const C = h - (nx * e.c[0] + ny * e.c[1]);
  const R = Math.hypot(A, B);
  if (R === 0) return;
  const ratio = C / R;
  if (Math.abs(ratio) > 1 + 1e-12) return;
  const phi = Math.atan2(B, A);
  const dphi = Math.acos(Math.max(-1, Math.min(1, ratio)));
  const ts = Math.abs(dphi) < 1e-9 ? [phi] : [phi + dphi, phi - dphi];
  const l2 = l.d[0] ** 2 + l.d[1] ** 2;
  for (const t of ts) {
    const tt = inSweep(t, e.t0, e.sweep);
    if (tt === null) continue;
    const q = ellPoint(e, tt);
    const s = ((q[0] - l.p[0]) * l.d[0] + (q[1] - l.p[1]) * l.d[1]) / (l2 || 1);
    if (s >= l.tmin - 1e-12 && s <= l.tmax + 1e-12) out.push(q);
  }
}

function circCirc(a: Ell, b: Ell, out: Vec3[]): void {
  const r1 = Math.hypot(a.u[0], a.u[1]);
  const r2 = Math.hypot(b.u[0], b.u[1]);
  const dx = b.c[0] - a.c[0];
  const dy = b.c[1] - a.c[1];
  const d = Math.hypot(dx, dy);
  if (d === 0 || d > r1 + r2 + 1e-12 || d < Math.abs(r1 - r2) - 1e-12) return;
  const x = (d * d + r1 * r1 - r2 * r2) / (2 * d);
  const h = Math.sqrt(Math.max(0, r1 * r1 - x * x));
  const mx = a.c[0] + (dx * x) / d;
  const my = a.c[1] + (dy * x) / d;
  const cand: [number, number][] = h < 1e-12 * r1 ? [[mx, my]] : [[mx - (dy * h) / d, my + (dx * h) / d], [mx + (dy * h) / d, my - (dx * h) / d]];
  for (const [px, py] of cand) {
    const ta = paramOnCircle(a, px, py);
    const tb = paramOnCircle(b, px, py);
    if (inSweep(ta, a.t0, a.sweep) !== null && inSweep(tb, b.t0, b.sweep) !== null) out.push(ellPoint(a, ta));
  }
}

/** Parameter of a point on a circular piece (u, v orthogonal, equal length, possibly clockwise). */
function paramOnCircle(e: Ell, x: number, y: number): number {
  const px = x - e.c[0];
  const py = y - e.c[1];
  const r2 = e.u[0] ** 2 + e.u[1] ** 2;
  return Math.atan2((px * e.v[0] + py * e.v[1]) / r2, (px * e.u[0] + py * e.u[1]) / r2);
}

/** A piece as a 2D parametric function with its domain (for the flatten + Newton path). */
function asParam(p: Piece): { at: (t: number) => Vec3; t0: number; t1: number; size: number } {
  switch (p.k) {
    case 'lin': {
      const t0 = Number.isFinite(p.tmin) ? p.tmin : -1e7;
      const t1 = Number.isFinite(p.tmax) ? p.tmax : 1e7;
      return { at: (t) => [p.p[0] + p.d[0] * t, p.p[1] + p.d[1] * t, p.p[2] + p.d[2] * t], t0, t1, size: Math.hypot(p.d[0], p.d[1]) * (t1 - t0) };
    }
    case 'ell':
      return { at: (t) => ellPoint(p, t), t0: p.t0, t1: p.t0 + p.sweep, size: Math.max(Math.hypot(p.u[0], p.u[1]), Math.hypot(p.v[0], p.v[1])) };
    case 'curve':
      return p;
  }
}

function sample(f: { at: (t: number) => Vec3; t0: number; t1: number; size: number }, tol: number): { t: number; p: Vec3 }[] {
  const pts: { t: number; p: Vec3 }[] = [];
  const rec = (a: number, pa: Vec3, b: number, pb: Vec3, depth: number) => {
    const m = (a + b) / 2;
    const pm = f.at(m);
    const q1 = f.at((a + m) / 2);
    const q3 = f.at((m + b) / 2);
    if (depth > 16 || (depth > 3 && chordDistance(pm, pa, pb) <= tol && chordDistance(q1, pa, pb) <= tol && chordDistance(q3, pa, pb) <= tol)) {
      pts.push({ t: b, p: pb });
      return;
    }
    rec(a, pa, m, pm, depth + 1);
    rec(m, pm, b, pb, depth + 1);
  };
  const p0 = f.at(f.t0);
  pts.push({ t: f.t0, p: p0 });
  rec(f.t0, p0, f.t1, f.at(f.t1), 0);
  return pts;
}

function generic(a: Piece, b: Piece, out: Vec3[]): void {
  const fa = asParam(a);
  const fb = asParam(b);
  const tol = 1e-6 * Math.max(fa.size, fb.size, 1e-9);
  const sa = sample(fa, tol);
  const sb = sample(fb, tol);
  for (let i = 0; i + 1 < sa.length; i++) {
    const a0 = sa[i]!;
    const a1 = sa[i + 1]!;
    const minx = Math.min(a0.p[0], a1.p[0]);
    const maxx = Math.max(a0.p[0], a1.p[0]);
    const miny = Math.min(a0.p[1], a1.p[1]);
    const maxy = Math.max(a0.p[1], a1.p[1]);
    for (let j = 0; j + 1 < sb.length; j++) {
      const b0 = sb[j]!;
      const b1 = sb[j + 1]!;
      if (Math.max(b0.p[0], b1.p[0]) < minx - tol || Math.min(b0.p[0], b1.p[0]) > maxx + tol) continue;
      if (Math.max(b0.p[1], b1.p[1]) < miny - tol || Math.min(b0.p[1], b1.p[1]) > maxy + tol) continue;
      const dA: Vec3 = [a1.p[0] - a0.p[0], a1.p[1] - a0.p[1], 0];
      const dB: Vec3 = [b1.p[0] - b0.p[0], b1.p[1] - b0.p[1], 0];
      const den = dA[0] * dB[1] - dA[1] * dB[0];
      if (Math.abs(den) < 1e-300) continue;
      const wx = b0.p[0] - a0.p[0];
      const wy = b0.p[1] - a0.p[1];
      const s = (wx * dB[1] - wy * dB[0]) / den;
      const t = (wx * dA[1] - wy * dA[0]) / den;
      if (s < -1e-9 || s > 1 + 1e-9 || t < -1e-9 || t > 1 + 1e-9) continue;
      // Newton refinement on the true curves
      let ta = a0.t + (a1.t - a0.t) * s;
      let tb = b0.t + (b1.t - b0.t) * t;
      for (let it = 0; it < 20; it++) {
        const pa = fa.at(ta);
        const pb = fb.at(tb);
        const fx = pa[0] - pb[0];
        const fy = pa[1] - pb[1];
        if (Math.hypot(fx, fy) < 1e-13 * Math.max(1, fa.size)) break;
        const ha = 1e-7 * Math.max(1, Math.abs(a1.t - a0.t));
        const hb = 1e-7 * Math.max(1, Math.abs(b1.t - b0.t));
        const pa2 = fa.at(ta + ha);
        const pb2 = fb.at(tb + hb);
        const j11 = (pa2[0] - pa[0]) / ha;
        const j21 = (pa2[1] - pa[1]) / ha;
        const j12 = -(pb2[0] - pb[0]) / hb;
        const j22 = -(pb2[1] - pb[1]) / hb;
        const det = j11 * j22 - j12 * j21;
        if (Math.abs(det) < 1e-300) break;
        ta -= (fx * j22 - fy * j12) / det;
        tb -= (j11 * fy - j21 * fx) / det;
      }
      ta = Math.min(Math.max(ta, fa.t0), fa.t1);
      tb = Math.min(Math.max(tb, fb.t0), fb.t1);
      const pa = fa.at(ta);
      const pb = fb.at(tb);
      if (Math.hypot(pa[0] - pb[0], pa[1] - pb[1]) <= 10 * tol) out.push(pa);
      else out.push([a0.p[0] + dA[0] * s, a0.p[1] + dA[1] * s, a0.p[2] + (a1.p[2] - a0.p[2]) * s]);
    }
  }
}

function pieceIntersections(a: Piece, b: Piece, out: Vec3[]): void {
  if (a.k === 'lin' && b.k === 'lin') linLin(a, b, out);
  else if (a.k === 'lin' && b.k === 'ell') linEll(a, b, out);
  else if (a.k === 'ell' && b.k === 'lin') linEll(b, a, out);
  else if (a.k === 'ell' && b.k === 'ell' && a.circle && b.circle) circCirc(a, b, out);
  else generic(a, b, out);
}

function dedupe(pts: Vec3[], eps: number): Vec3[] {
  const out: Vec3[] = [];
  for (const p of pts) if (!out.some((q) => Math.hypot(p[0] - q[0], p[1] - q[1]) <= eps)) out.push(p);
  return out;
}

/**
 * Intersection points of two entities' curves in the XY projection (z taken on `a`). Supports
 * LINE, CIRCLE, ARC, ELLIPSE, LWPOLYLINE, POLYLINE, SPLINE, RAY, XLINE and any other entity by its
 * outline (text boxes, hatch boundaries, solids, inserts through `doc`).
 */
export function intersections(a: Entity, b: Entity, doc?: DocumentApi): Vec3[] {
  const pa = pieces(entityGeometry(a, doc).prims);
  const pb = pieces(entityGeometry(b, doc).prims);
  const out: Vec3[] = [];
  for (const x of pa) for (const y of pb) pieceIntersections(x, y, out);
  let scale = 1;
  for (const p of out) scale = Math.max(scale, Math.abs(p[0]), Math.abs(p[1]));
  return dedupe(out, 1e-9 * scale);
}

// ------------------------------------------------------------------------------------------------
// distance and containment

function distToPiece(p: Piece, q: readonly number[]): number {
  const z = q[2] ?? 0;
  switch (p.k) {
    case 'lin': {
      const l2 = p.d[0] ** 2 + p.d[1] ** 2 + p.d[2] ** 2;
      let t = l2 > 0 ? ((q[0]! - p.p[0]) * p.d[0] + (q[1]! - p.p[1]) * p.d[1] + (z - p.p[2]) * p.d[2]) / l2 : 0;
      t = Math.min(Math.max(t, p.tmin), p.tmax);
      if (!Number.isFinite(t)) t = 0;
      return Math.hypot(p.p[0] + p.d[0] * t - q[0]!, p.p[1] + p.d[1] * t - q[1]!, p.p[2] + p.d[2] * t - z);
    }
    case 'ell': {
      // coarse search then golden-section refinement on the parameter
      const f = (t: number) => {
        const r = ellPoint(p, t);
        return Math.hypot(r[0] - q[0]!, r[1] - q[1]!, r[2] - z);
      };
      return minimize(f, p.t0, p.t0 + p.sweep);
    }
    case 'curve': {
      const f = (t: number) => {
        const r = p.at(t);
        return Math.hypot(r[0] - q[0]!, r[1] - q[1]!, r[2] - z);
      };
      return minimize(f, p.t0, p.t1, 256);
    }
  }
}

function minimize(f: (t: number) => number, t0: number, t1: number, n = 72): number {
  let best = Infinity;
  let bt = t0;
  for (let i = 0; i <= n; i++) {
    const t = t0 + ((t1 - t0) * i) / n;
    const d = f(t);
    if (d < best) {
      best = d;
      bt = t;
    }
  }
  let lo = Math.max(t0, bt - (t1 - t0) / n);
  let hi = Math.min(t1, bt + (t1 - t0) / n);
  const g = (Math.sqrt(5) - 1) / 2;
  for (let it = 0; it < 80; it++) {
    const m1 = hi - g * (hi - lo);
    const m2 = lo + g * (hi - lo);
    if (f(m1) < f(m2)) hi = m2;
    else lo = m1;
  }
  return Math.min(best, f((lo + hi) / 2));
}

/** The shortest distance from a point to the entity's curves (3D); Infinity without geometry. */
export function distanceToPoint(e: Entity, p: readonly number[], doc?: DocumentApi): number {
  const g = entityGeometry(e, doc);
  let best = Infinity;
  for (const prim of g.prims) {
    if (prim.k === 'point') best = Math.min(best, Math.hypot(prim.p[0] - p[0]!, prim.p[1] - p[1]!, prim.p[2] - (p[2] ?? 0)));
  }
  for (const piece of pieces(g.prims)) best = Math.min(best, distToPiece(piece, p));
  return best;
}

/**
 * True when the point is inside a closed shape (circle, full ellipse, closed polyline with bulges,
 * hatch boundary (even-odd), solid, 3DFACE, text/mtext box, image, viewport), tested in the XY
 * projection; for open curves, when it lies on the curve within `tolerance`.
 */
export function containsPoint(e: Entity, p: readonly number[], tolerance = 1e-9, doc?: DocumentApi): boolean {
  const g = entityGeometry(e, doc);
  if (g.loops && g.loops.length > 0) {
    let inside = false;
    for (const loop of g.loops) {
      const pts: Vec3[] = [];
      for (const prim of loop) {
        const f = flattenPrim(prim, Math.max(tolerance, 1e-6));
        for (const q of f) pts.push(q);
      }
      if (pointInPolygon(pts, p[0]!, p[1]!)) inside = !inside;
    }
    if (inside) return true;
  }
  return distanceToPoint(e, p, doc) <= tolerance;
}

function pointInPolygon(pts: Vec3[], x: number, y: number): boolean {
  let inside = false;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
    const a = pts[i]!;
    const b = pts[j]!;
    if (a[1] > y !== b[1] > y && x < ((b[0] - a[0]) * (y - a[1])) / (b[1] - a[1]) + a[0]) inside = !inside;
  }
  return inside;
}
