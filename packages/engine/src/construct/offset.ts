// Offset curves: lines and arcs exactly, polylines segment by segment with corners joined as
// AutoCAD's OFFSETGAPTYPE 0 does (segments extended or trimmed to meet), ellipses and splines
// approximated by cubic Bezier pieces (a clamped cubic spline) within a tolerance.
import { OpError } from '../protocol.js';
import { type P, add, cross, dist, len, mul, perp, sub, unit, TAU } from './vec2.js';
import { type Path, type Seg, deriv, end, pathClosest, point, start } from './curve.js';
import { carrierHits, moveEnd, nearest, sameDirection } from './adjust.js';
import type { Nurbs } from './nurbs.js';

/** The offset of a path by d (d > 0: to the left of its direction). */
export function offsetPath(path: Path, d: number, tol: number, handle: string): Path {
  if (path.segs.length === 1 && path.segs[0]!.k !== 'line' && path.segs[0]!.k !== 'arc') {
    return { segs: [offsetCurve(path.segs[0]!, d, tol, handle)], closed: path.closed };
  }
  const raw: (Seg | null)[] = path.segs.map((s) => offsetSimple(s, d));
  if (path.segs.length === 1) {
    if (!raw[0]) throw new OpError('offset_impossible', `offset ${handle}: an offset of ${Math.abs(d)} to that side passes the centre (radius ${(path.segs[0] as { r: number }).r})`, { handle });
    return { segs: [raw[0]], closed: path.closed };
  }
  // Segments whose offset vanishes (arcs inside out, lines turned round) drop; the neighbours then meet.
  let segs: { s: Seg; v: P }[] = [];
  raw.forEach((s, i) => { if (s) segs.push({ s, v: start(path.segs[i]!) }); });
  for (let pass = 0; pass <= path.segs.length; pass++) {
    if (!segs.length) break;
    const joined = joinCorners(segs.map((x) => x.s), segs.map((x) => x.v), path.closed, d);
    const keep = joined.segs.map((s, i) => sameDirection(segs[i]!.s, s));
    if (keep.every(Boolean) || segs.length <= 1) {
      const out = joined.segs.slice();
      for (const f of joined.fills.reverse()) out.splice(f.after + 1, 0, f.arc);
      foldCheck(path, out, d, handle);
      return { segs: out, closed: path.closed };
    }
    segs = segs.filter((_, i) => keep[i]);
  }
  throw new OpError('offset_impossible', `offset ${handle}: nothing is left of the polyline at distance ${Math.abs(d)}`, { handle });
}

/**
 * An offset runs at distance |d| from the source everywhere; a point nearer means the outline
 * folded over itself (a narrow part offset by more than half its width). AutoCAD would drop
 * pieces there; the result here would be wrong, so it is refused.
 */
function foldCheck(path: Path, segs: Seg[], d: number, handle: string): void {
  const want = Math.abs(d) * (1 - 1e-7);
  for (const s of segs) {
    for (const t of [0, 0.25, 0.5, 0.75, 1]) {
      const q = point(s, t);
      if (pathClosest(path, q).d < want) {
        throw new OpError('offset_impossible', `offset ${handle}: at distance ${Math.abs(d)} the offset folds over itself (a part of the polyline is narrower than twice the distance)`, { handle });
      }
    }
  }
}

/** Exact offset of a line or arc; null when an arc would pass its centre. */
function offsetSimple(s: Seg, d: number): Seg | null {
  if (s.k === 'line') {
    const n = mul(perp(unit(sub(s.b, s.a))), d);
    return { k: 'line', a: add(s.a, n), b: add(s.b, n) };
  }
  if (s.k === 'arc') {
    const r = s.sw > 0 ? s.r - d : s.r + d;
    if (r <= 1e-12 * s.r) return null;
    return { ...s, r };
  }
  throw new Error('offsetSimple: not a line or an arc');
}

/**
 * Joins consecutive offset segments at their corners. `verts[i]` is the original vertex where
 * segment i starts: where carriers do not meet, a round corner (an arc about the vertex) fills
 * the gap, as OFFSETGAPTYPE 1 would, because no extension reaches.
 */
function joinCorners(segs: Seg[], verts: P[], closed: boolean, d: number): { segs: Seg[]; fills: { after: number; arc: Seg }[] } {
  const out = segs.slice();
  const n = out.length;
  const fills: { after: number; arc: Seg }[] = [];
  for (let i = 0; i < (closed ? n : n - 1); i++) {
    const j = (i + 1) % n;
    const a = out[i]!, b = out[j]!;
    const pa = end(a), pb = start(b);
    if (dist(pa, pb) <= 1e-10 * (1 + len(pa))) continue;
    const x = nearest(carrierHits(a, b), verts[j]!);
    if (x && dist(x, verts[j]!) <= 4 * Math.abs(d) + 10 * dist(pa, pb)) {
      out[i] = moveEnd(a, 1, x);
      out[j] = moveEnd(out[j]!, 0, x);
    } else {
      const v = verts[j]!;
      const a0 = Math.atan2(pa[1] - v[1], pa[0] - v[0]);
      const a1 = Math.atan2(pb[1] - v[1], pb[0] - v[0]);
      let sw = a1 - a0;
      while (sw > Math.PI) sw -= TAU;
      while (sw < -Math.PI) sw += TAU;
      fills.push({ after: i, arc: { k: 'arc', c: v, r: Math.abs(d), a0, sw } });
    }
  }
  return { segs: out, fills };
}

/** Offset of an ellipse or spline: Hermite cubic pieces of the exact offset, within tol. */
function offsetCurve(s: Seg, d: number, tol: number, handle: string): Seg {
  const at = (t: number): P => add(point(s, t), mul(perp(unit(deriv(s, t))), d));
  // Inward past the smallest radius of curvature the offset turns back on itself: refused.
  const n = 256;
  for (let i = 0; i <= n; i++) {
    const t = i / n;
    const k = curvature(s, t);
    if (k !== 0 && d * k >= 1 - 1e-9) {
      throw new OpError('offset_impossible', `offset ${handle}: distance ${Math.abs(d)} exceeds the radius of curvature ${(1 / Math.abs(k)).toPrecision(6)} on that side`, { handle });
    }
  }
  const dAt = (t: number): P => {
    const h = 1e-6;
    const t0 = Math.max(0, t - h), t1 = Math.min(1, t + h);
    return mul(sub(at(t1), at(t0)), 1 / (t1 - t0));
  };
  const pieces: P[][] = [];
  const fit = (t0: number, t1: number, depth: number): void => {
    const p0 = at(t0), p3 = at(t1);
    const h = (t1 - t0) / 3;
    const p1 = add(p0, mul(dAt(t0), h)), p2 = sub(p3, mul(dAt(t1), h));
    let err = 0;
    for (const f of [0.25, 0.5, 0.75]) err = Math.max(err, dist(bezier(p0, p1, p2, p3, f), at(t0 + (t1 - t0) * f)));
    if (err > tol && depth < 14) {
      const m = (t0 + t1) / 2;
      fit(t0, m, depth + 1);
      fit(m, t1, depth + 1);
      return;
    }
    pieces.push([p0, p1, p2, p3]);
  };
  const first = s.k === 'ell' ? Math.max(4, Math.ceil(Math.abs(s.sw) / (Math.PI / 4))) : 8;
  for (let i = 0; i < first; i++) fit(i / first, (i + 1) / first, 0);
  const ctrl: number[][] = [pieces[0]![0]!];
  const knots = [0, 0, 0, 0];
  pieces.forEach((p, i) => {
    ctrl.push(p[1]!, p[2]!, p[3]!);
    const k = i + 1;
    if (i < pieces.length - 1) knots.push(k, k, k);
    else knots.push(k, k, k, k);
  });
  const nurbs: Nurbs = { degree: 3, ctrl, knots, weights: ctrl.map(() => 1) };
  return { k: 'spl', n: nurbs, u0: 0, u1: pieces.length };
}

function bezier(p0: P, p1: P, p2: P, p3: P, t: number): P {
  const u = 1 - t;
  const a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, e = t * t * t;
  return [a * p0[0] + b * p1[0] + c * p2[0] + e * p3[0], a * p0[1] + b * p1[1] + c * p2[1] + e * p3[1]];
}

/** Signed curvature (positive turning left) at t, by differences of the derivative. */
function curvature(s: Seg, t: number): number {
  const h = 1e-5;
  const d1 = deriv(s, t);
  const d2 = mul(sub(deriv(s, Math.min(1, t + h)), deriv(s, Math.max(0, t - h))), 1 / (Math.min(1, t + h) - Math.max(0, t - h)));
  const l = len(d1);
  return l > 0 ? cross(d1, d2) / (l * l * l) : 0;
}
