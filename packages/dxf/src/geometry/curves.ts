// Curve primitives: bulge arcs, circular/elliptical arcs in 3D (evaluation, exact extreme points),
// B-splines (de Boor, rational), ellipse parameter conversions, adaptive flattening.
import type { Vec2, Vec3 } from '../types.js';
import { TAU, normAngle } from './vec.js';

/** An arc from a polyline bulge: center, radius and the counter-clockwise angle range (radians). */
export interface BulgeArc {
  center: Vec2;
  radius: number;
  /** Counter-clockwise from start_angle to end_angle (end_angle may be < start_angle: wraps). */
  start_angle: number;
  end_angle: number;
  /** True when the polyline runs clockwise (bulge < 0): from end_angle back to start_angle. */
  reversed: boolean;
}

/** The arc of a bulge segment p1 -> p2 (bulge = tan(sweep / 4), positive counter-clockwise). */
export function bulgeToArc(p1: readonly number[], p2: readonly number[], bulge: number): BulgeArc {
  const dx = p2[0]! - p1[0]!;
  const dy = p2[1]! - p1[1]!;
  const chord = Math.hypot(dx, dy);
  const r = (chord * (1 + bulge * bulge)) / 4 / bulge; // signed
  const a = Math.atan2(dy, dx) + (Math.PI / 2 - Math.atan(bulge) * 2);
  const cx = p1[0]! + r * Math.cos(a);
  const cy = p1[1]! + r * Math.sin(a);
  const as = Math.atan2(p1[1]! - cy, p1[0]! - cx);
  const ae = Math.atan2(p2[1]! - cy, p2[0]! - cx);
  return bulge < 0
    ? { center: [cx, cy], radius: Math.abs(r), start_angle: ae, end_angle: as, reversed: true }
    : { center: [cx, cy], radius: Math.abs(r), start_angle: as, end_angle: ae, reversed: false };
}

/** The bulge of an arc segment with counter-clockwise sweep `sweep` (radians, negative = clockwise). */
export function sweepToBulge(sweep: number): number {
  return Math.tan(sweep / 4);
}

/** True when angle `a` lies on the counter-clockwise range from `start` to `end` (radians). */
export function angleInRange(a: number, start: number, end: number, eps = 1e-12): boolean {
  const s = normAngle(start);
  let e = normAngle(end);
  if (Math.abs(e - s) < eps) e = s + TAU; // full circle
  else if (e < s) e += TAU;
  let x = normAngle(a);
  if (x < s - eps) x += TAU;
  return x >= s - eps && x <= e + eps;
}

/** Sweep of the counter-clockwise range start -> end in (0, 2π]. */
export function ccwSweep(start: number, end: number): number {
  const d = normAngle(end - start);
  return d < 1e-12 ? TAU : d;
}

/** A point of c + u cos t + v sin t into `out` (length >= 3). */
export function ellipsePointInto(out: number[] | Float64Array, c: readonly number[], u: readonly number[], v: readonly number[], t: number): void {
  const ct = Math.cos(t);
  const st = Math.sin(t);
  out[0] = c[0]! + u[0]! * ct + v[0]! * st;
  out[1] = c[1]! + u[1]! * ct + v[1]! * st;
  out[2] = (c[2] ?? 0) + (u[2] ?? 0) * ct + (v[2] ?? 0) * st;
}

export function ellipsePoint(c: readonly number[], u: readonly number[], v: readonly number[], t: number): Vec3 {
  const p: Vec3 = [0, 0, 0];
  ellipsePointInto(p, c, u, v, t);
  return p;
}

/** A box as [minx, miny, minz, maxx, maxy, maxz], grown by `addToBox`. */
export type BoxArray = Float64Array;

export function emptyBox(): BoxArray {
  return new Float64Array([Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity]);
}

export function addToBox(b: BoxArray, x: number, y: number, z: number): void {
  if (x < b[0]!) b[0] = x;
  if (y < b[1]!) b[1] = y;
  if (z < b[2]!) b[2] = z;
  if (x > b[3]!) b[3] = x;
  if (y > b[4]!) b[4] = y;
  if (z > b[5]!) b[5] = z;
}

const tmp = new Float64Array(3);

/**
 * Adds the exact extent of the arc c + u cos t + v sin t, t from t0 counter-clockwise to t1, to
 * the box: its end points and the extreme points per axis that lie on the arc. `full` ignores t0/t1.
 */
export function addEllipseArcToBox(
  b: BoxArray, c: readonly number[], u: readonly number[], v: readonly number[], t0: number, t1: number, full = false,
): void {
  if (!full) {
    ellipsePointInto(tmp, c, u, v, t0);
    addToBox(b, tmp[0]!, tmp[1]!, tmp[2]!);
    ellipsePointInto(tmp, c, u, v, t1);
    addToBox(b, tmp[0]!, tmp[1]!, tmp[2]!);
  }
  for (let i = 0; i < 3; i++) {
    const ui = u[i] ?? 0;
    const vi = v[i] ?? 0;
    if (ui === 0 && vi === 0) continue;
    const t = Math.atan2(vi, ui);
    if (full || angleInRange(t, t0, t1)) {
      ellipsePointInto(tmp, c, u, v, t);
      addToBox(b, tmp[0]!, tmp[1]!, tmp[2]!);
    }
    if (full || angleInRange(t + Math.PI, t0, t1)) {
      ellipsePointInto(tmp, c, u, v, t + Math.PI);
      addToBox(b, tmp[0]!, tmp[1]!, tmp[2]!);
    }
  }
}

/** Number of segments approximating an arc of radius r and sweep within `tolerance` (sagitta). */
export function arcSegments(radius: number, sweep: number, tolerance: number, min = 1): number {
  if (radius <= tolerance || tolerance <= 0) return Math.max(min, Math.ceil(Math.abs(sweep) / (Math.PI / 4)));
  const step = 2 * Math.acos(1 - tolerance / radius);
  return Math.max(min, Math.min(100000, Math.ceil(Math.abs(sweep) / step)));
}

/** Points of an elliptical arc (t0 -> t1 counter-clockwise; t1 - t0 = sweep) within `tolerance`. */
export function flattenEllipseArc(
  c: readonly number[], u: readonly number[], v: readonly number[], t0: number, sweep: number, tolerance: number,
): Vec3[] {
  const r = Math.max(Math.hypot(u[0]!, u[1]!, u[2] ?? 0), Math.hypot(v[0]!, v[1]!, v[2] ?? 0));
  const n = arcSegments(r, sweep, tolerance, 2);
  const pts: Vec3[] = [];
  for (let k = 0; k <= n; k++) pts.push(ellipsePoint(c, u, v, t0 + (sweep * k) / n));
  return pts;
}

/** Ellipse angle (measured from the center) to its parameter, for `ratio` = minor/major. */
export function ellipseAngleToParam(ratio: number, angle: number): number {
  return Math.atan2(Math.sin(angle) / ratio, Math.cos(angle));
}

export function ellipseParamToAngle(ratio: number, param: number): number {
  return Math.atan2(Math.sin(param) * ratio, Math.cos(param));
}

// ---------------------------------------------------------------------------------------------
// B-splines

export interface SplineData {
  degree: number;
  control_points: number[][];
  knots?: number[];
  weights?: number[];
}

/** An open uniform (clamped) knot vector for n control points. */
export function clampedKnots(n: number, degree: number): number[] {
  const order = degree + 1;
  const knots: number[] = [];
  for (let i = 0; i < order; i++) knots.push(0);
  for (let i = 1; i < n - degree; i++) knots.push(i);
  for (let i = 0; i < order; i++) knots.push(Math.max(1, n - degree));
  return knots;
}

/** A prepared B-spline for repeated evaluation (homogeneous control points when rational). */
export class BSpline {
  readonly degree: number;
  readonly knots: number[];
  readonly rational: boolean;
  /** Control points as [x*w, y*w, z*w, w]. */
  private readonly cp: Float64Array;
  private readonly n: number;
  private readonly work: Float64Array;
  readonly tMin: number;
  readonly tMax: number;

  constructor(data: SplineData) {
    const n = data.control_points.length;
    let degree = Math.max(1, Math.floor(data.degree));
    if (degree > n - 1) degree = Math.max(1, n - 1);
    const knots = data.knots && data.knots.length === n + degree + 1 ? data.knots.slice() : clampedKnots(n, degree);
    this.degree = degree;
    this.knots = knots;
    const w = data.weights && data.weights.length === n ? data.weights : null;
    this.rational = !!w && w.some((x) => x !== 1);
    this.n = n;
    this.cp = new Float64Array(n * 4);
    for (let i = 0; i < n; i++) {
      const p = data.control_points[i]!;
      const wi = w ? w[i]! : 1;
      this.cp[i * 4] = p[0]! * wi;
      this.cp[i * 4 + 1] = p[1]! * wi;
      this.cp[i * 4 + 2] = (p[2] ?? 0) * wi;
      this.cp[i * 4 + 3] = wi;
    }
    this.work = new Float64Array((degree + 1) * 4);
    this.tMin = knots[degree]!;
    this.tMax = knots[n]!;
  }

  private span(t: number): number {
    const k = this.knots;
    const p = this.degree;
    const n = this.n;
    if (t >= k[n]!) {
      let s = n - 1;
      while (s > p && k[s]! >= k[s + 1]!) s--;
      return s;
    }
    let lo = p;
    let hi = n;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (t < k[mid]!) hi = mid;
      else lo = mid;
    }
    return lo;
  }

  /** The curve point at parameter t (clamped to the domain) into `out`. */
  pointInto(out: number[] | Float64Array, t: number): void {
    if (this.n === 0) {
      out[0] = out[1] = out[2] = 0;
      return;
    }
    if (this.n === 1) {
      out[0] = this.cp[0]! / this.cp[3]!;
      out[1] = this.cp[1]! / this.cp[3]!;
      out[2] = this.cp[2]! / this.cp[3]!;
      return;
    }
    if (t < this.tMin) t = this.tMin;
    if (t > this.tMax) t = this.tMax;
    const p = this.degree;
    const k = this.knots;
    const s = this.span(t);
    const d = this.work;
    for (let j = 0; j <= p; j++) {
      const idx = Math.min(Math.max(j + s - p, 0), this.n - 1) * 4;
      d[j * 4] = this.cp[idx]!;
      d[j * 4 + 1] = this.cp[idx + 1]!;
      d[j * 4 + 2] = this.cp[idx + 2]!;
      d[j * 4 + 3] = this.cp[idx + 3]!;
    }
    for (let r = 1; r <= p; r++) {
      for (let j = p; j >= r; j--) {
        const i = j + s - p;
        const den = k[i + p - r + 1]! - k[i]!;
        const a = den === 0 ? 0 : (t - k[i]!) / den;
        for (let c = 0; c < 4; c++) d[j * 4 + c] = (1 - a) * d[(j - 1) * 4 + c]! + a * d[j * 4 + c]!;
      }
    }
    const w = d[p * 4 + 3]! || 1;
    out[0] = d[p * 4]! / w;
    out[1] = d[p * 4 + 1]! / w;
    out[2] = d[p * 4 + 2]! / w;
  }

  point(t: number): Vec3 {
    const out: Vec3 = [0, 0, 0];
    this.pointInto(out, t);
    return out;
  }

  /**
   * Adaptive flattening: subdivides each knot span until the curve's midpoint lies within
   * `tolerance` of the chord (also checking quarter points, so S-shapes are not missed).
   */
  flatten(tolerance: number): Vec3[] {
    if (this.n === 0) return [];
    if (this.n === 1) return [this.point(0)];
    const pts: Vec3[] = [this.point(this.tMin)];
    const k = this.knots;
    const spans: number[] = [this.tMin];
    for (let i = this.degree + 1; i < this.n; i++) if (k[i]! > spans[spans.length - 1]! && k[i]! < this.tMax) spans.push(k[i]!);
    spans.push(this.tMax);
    const tol = Math.max(tolerance, 1e-12);
    const rec = (t0: number, p0: Vec3, t1: number, p1: Vec3, depth: number): void => {
      const tm = (t0 + t1) / 2;
      const pm = this.point(tm);
      const q1 = this.point((t0 + tm) / 2);
      const q3 = this.point((tm + t1) / 2);
      if (depth >= 18 || (chordDistance(pm, p0, p1) <= tol && chordDistance(q1, p0, p1) <= tol && chordDistance(q3, p0, p1) <= tol)) {
        pts.push(p1);
        return;
      }
      rec(t0, p0, tm, pm, depth + 1);
      rec(tm, pm, t1, p1, depth + 1);
    };
    for (let i = 0; i + 1 < spans.length; i++) {
      const t0 = spans[i]!;
      const t1 = spans[i + 1]!;
      rec(t0, this.point(t0), t1, this.point(t1), 0);
    }
    return pts;
  }
}

/** Distance from p to the segment a-b. */
export function chordDistance(p: readonly number[], a: readonly number[], b: readonly number[]): number {
  const abx = b[0]! - a[0]!;
  const aby = b[1]! - a[1]!;
  const abz = (b[2] ?? 0) - (a[2] ?? 0);
  const apx = p[0]! - a[0]!;
  const apy = p[1]! - a[1]!;
  const apz = (p[2] ?? 0) - (a[2] ?? 0);
  const l2 = abx * abx + aby * aby + abz * abz;
  let t = l2 > 0 ? (apx * abx + apy * aby + apz * abz) / l2 : 0;
  if (t < 0) t = 0;
  else if (t > 1) t = 1;
  return Math.hypot(apx - abx * t, apy - aby * t, apz - abz * t);
}
