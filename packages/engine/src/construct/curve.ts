// The curves of the construct kernel: lines, circular arcs (signed sweep), elliptical arcs and
// NURBS pieces, each parameterised over t in [0, 1] in the direction the entity runs, and paths
// (chains of them, as a polyline is) with a global parameter i + t.
import { type P, TAU, add, cross, dist, dot, len, mul, norm, polar, sub, unit } from './vec2.js';
import { type Nurbs, nurbsDomain, nurbsPiece, nurbsPoint } from './nurbs.js';

export type Seg =
  | { k: 'line'; a: P; b: P }
  /** c + r (cos(a0 + sw t), sin(a0 + sw t)); sw < 0 runs clockwise. */
  | { k: 'arc'; c: P; r: number; a0: number; sw: number }
  /** c + u cos(t0 + sw t) + v sin(t0 + sw t). */
  | { k: 'ell'; c: P; u: P; v: P; t0: number; sw: number }
  /** The NURBS between its own parameters u0 and u1. */
  | { k: 'spl'; n: Nurbs; u0: number; u1: number };

export interface Path {
  segs: Seg[];
  closed: boolean;
}

export function point(s: Seg, t: number): P {
  switch (s.k) {
    case 'line': return [s.a[0] + (s.b[0] - s.a[0]) * t, s.a[1] + (s.b[1] - s.a[1]) * t];
    case 'arc': return polar(s.c, s.r, s.a0 + s.sw * t);
    case 'ell': {
      const a = s.t0 + s.sw * t;
      return add(s.c, add(mul(s.u, Math.cos(a)), mul(s.v, Math.sin(a))));
    }
    case 'spl': return nurbsPoint(s.n, s.u0 + (s.u1 - s.u0) * t);
  }
}

/** dP/dt (exact for lines, arcs and ellipses, central differences on splines). */
export function deriv(s: Seg, t: number): P {
  switch (s.k) {
    case 'line': return sub(s.b, s.a);
    case 'arc': {
      const a = s.a0 + s.sw * t;
      return [-s.r * Math.sin(a) * s.sw, s.r * Math.cos(a) * s.sw];
    }
    case 'ell': {
      const a = s.t0 + s.sw * t;
      return mul(add(mul(s.u, -Math.sin(a)), mul(s.v, Math.cos(a))), s.sw);
    }
    case 'spl': {
      const h = 1e-6;
      const t0 = Math.max(0, t - h), t1 = Math.min(1, t + h);
      return mul(sub(point(s, t1), point(s, t0)), 1 / (t1 - t0));
    }
  }
}

export function tangent(s: Seg, t: number): P {
  return unit(deriv(s, t));
}

export function start(s: Seg): P {
  return point(s, 0);
}
export function end(s: Seg): P {
  return point(s, 1);
}

/** The same curve between local parameters t0 and t1 (t1 < t0 gives it reversed for lines/arcs/ellipses). */
export function piece(s: Seg, t0: number, t1: number): Seg {
  switch (s.k) {
    case 'line': return { k: 'line', a: point(s, t0), b: point(s, t1) };
    case 'arc': return { k: 'arc', c: s.c, r: s.r, a0: s.a0 + s.sw * t0, sw: s.sw * (t1 - t0) };
    case 'ell': return { ...s, t0: s.t0 + s.sw * t0, sw: s.sw * (t1 - t0) };
    case 'spl': {
      const u0 = s.u0 + (s.u1 - s.u0) * t0, u1 = s.u0 + (s.u1 - s.u0) * t1;
      return { k: 'spl', n: s.n, u0, u1 };
    }
  }
}

export function reverse(s: Seg): Seg {
  return s.k === 'spl' ? { k: 'spl', n: s.n, u0: s.u1, u1: s.u0 } : piece(s, 1, 0);
}

/** A spline segment as its own exact NURBS (u0 < u1 in the result's direction of the domain). */
export function splineOf(s: Extract<Seg, { k: 'spl' }>): { n: Nurbs; reversed: boolean } {
  const lo = Math.min(s.u0, s.u1), hi = Math.max(s.u0, s.u1);
  const [d0, d1] = nurbsDomain(s.n);
  const n = lo <= d0 && hi >= d1 ? s.n : nurbsPiece(s.n, lo, hi);
  return { n, reversed: s.u1 < s.u0 };
}

/** Polyline samples of a segment, enough to find every crossing and nearest point near. */
export function samples(s: Seg): number {
  switch (s.k) {
    case 'line': return 1;
    case 'arc': return Math.max(4, Math.ceil(Math.abs(s.sw) / (Math.PI / 36)));
    case 'ell': return Math.max(8, Math.ceil(Math.abs(s.sw) / (Math.PI / 90)));
    case 'spl': return Math.max(16, (s.n.ctrl.length - s.n.degree) * 24);
  }
}

/** The parameter of the point of the segment nearest to p, and the distance. */
export function closest(s: Seg, p: P): { t: number; d: number } {
  if (s.k === 'line') {
    const d = sub(s.b, s.a);
    const l2 = dot(d, d);
    const t = l2 > 0 ? Math.min(1, Math.max(0, dot(sub(p, s.a), d) / l2)) : 0;
    return { t, d: dist(p, point(s, t)) };
  }
  if (s.k === 'arc') {
    const a = Math.atan2(p[1] - s.c[1], p[0] - s.c[0]);
    const t = arcParam(s, a);
    if (t !== null) return { t, d: Math.abs(dist(p, s.c) - s.r) };
    const d0 = dist(p, start(s)), d1 = dist(p, end(s));
    return d0 <= d1 ? { t: 0, d: d0 } : { t: 1, d: d1 };
  }
  const n = samples(s);
  let best = 0, bd = Infinity;
  for (let i = 0; i <= n; i++) {
    const d = dist(p, point(s, i / n));
    if (d < bd) { bd = d; best = i / n; }
  }
  // Golden-section refinement on the bracket around the best sample.
  let lo = Math.max(0, best - 1 / n), hi = Math.min(1, best + 1 / n);
  const g = (Math.sqrt(5) - 1) / 2;
  for (let i = 0; i < 80 && hi - lo > 1e-15; i++) {
    const m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo);
    if (dist(p, point(s, m1)) < dist(p, point(s, m2))) hi = m2;
    else lo = m1;
  }
  const t = (lo + hi) / 2;
  const d = dist(p, point(s, t));
  return d < bd ? { t, d } : { t: best, d: bd };
}

/** The local parameter of angle a on an arc, or null when the arc does not reach it. */
export function arcParam(s: Extract<Seg, { k: 'arc' }>, a: number, eps = 1e-12): number | null {
  if (Math.abs(s.sw) >= TAU - 1e-12) {
    const t = norm((a - s.a0) * Math.sign(s.sw)) / TAU;
    return t;
  }
  const d = s.sw > 0 ? norm(a - s.a0) : norm(s.a0 - a);
  const sw = Math.abs(s.sw);
  if (d <= sw + eps) return Math.min(1, d / sw);
  if (d >= TAU - eps) return 0;
  return null;
}

export function segLength(s: Seg): number {
  if (s.k === 'line') return dist(s.a, s.b);
  if (s.k === 'arc') return Math.abs(s.sw) * s.r;
  const n = samples(s);
  let l = 0;
  let prev = point(s, 0);
  for (let i = 1; i <= n; i++) { const q = point(s, i / n); l += dist(prev, q); prev = q; }
  return l;
}

// ---- paths ----------------------------------------------------------------------------------

export function pathPoint(p: Path, T: number): P {
  const i = Math.min(p.segs.length - 1, Math.max(0, Math.floor(T)));
  return point(p.segs[i]!, T - i);
}

export function pathStart(p: Path): P {
  return start(p.segs[0]!);
}
export function pathEnd(p: Path): P {
  return end(p.segs[p.segs.length - 1]!);
}

/** The path's parameter nearest to q, and the distance. */
export function pathClosest(p: Path, q: P): { T: number; d: number } {
  let best = { T: 0, d: Infinity };
  p.segs.forEach((s, i) => {
    const c = closest(s, q);
    if (c.d < best.d) best = { T: i + c.t, d: c.d };
  });
  return best;
}

/** The part of a path between global parameters T0 < T1 (segments cut exactly). */
export function pathPiece(p: Path, T0: number, T1: number): Seg[] {
  const out: Seg[] = [];
  const n = p.segs.length;
  for (let i = Math.max(0, Math.floor(T0)); i < n && i < T1; i++) {
    const a = Math.max(0, T0 - i), b = Math.min(1, T1 - i);
    if (b - a <= 1e-12) continue;
    out.push(a === 0 && b === 1 ? p.segs[i]! : piece(p.segs[i]!, a, b));
  }
  return out;
}

/** Which side of the path q lies: +1 left, -1 right of its direction (0 on it). */
export function sideOf(p: Path, q: P): number {
  const c = pathClosest(p, q);
  const i = Math.min(p.segs.length - 1, Math.floor(c.T));
  const s = p.segs[i]!;
  const t = c.T - i;
  const at = point(s, t);
  let tan = tangent(s, t);
  // At a corner the nearest point is a vertex: use the bisector of the two tangents.
  if (t <= 1e-9 || t >= 1 - 1e-9) {
    const j = t <= 1e-9 ? i - 1 : i + 1;
    const k = p.closed ? (j + p.segs.length) % p.segs.length : j;
    const o = p.segs[k];
    if (o) {
      const t2 = t <= 1e-9 ? tangent(o, 1) : tangent(o, 0);
      const b = unit(add(tan, t2));
      if (len(b) > 0) tan = b;
    }
  }
  const c2 = cross(tan, sub(q, at));
  return c2 > 0 ? 1 : c2 < 0 ? -1 : 0;
}
