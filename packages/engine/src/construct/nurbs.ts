// Planar NURBS curves: evaluation (de Boor in homogeneous coordinates), knot insertion and
// splitting, so a trimmed or broken spline stays the exact same curve as before.
export interface Nurbs {
  degree: number;
  /** Control points [x, y]. */
  ctrl: number[][];
  knots: number[];
  /** One weight per control point; all 1 for a non-rational spline. */
  weights: number[];
}

export function nurbsDomain(n: Nurbs): [number, number] {
  return [n.knots[n.degree]!, n.knots[n.knots.length - n.degree - 1]!];
}

/** Index of the knot span holding u (clamped to the domain). */
function span(n: Nurbs, u: number): number {
  const p = n.degree;
  const last = n.ctrl.length - 1;
  if (u >= n.knots[last + 1]!) return last;
  if (u <= n.knots[p]!) return p;
  let lo = p, hi = last + 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (u < n.knots[mid]!) hi = mid;
    else lo = mid;
  }
  return lo;
}

export function nurbsPoint(n: Nurbs, u: number): [number, number] {
  const p = n.degree;
  const k = span(n, u);
  const d: number[][] = [];
  for (let j = 0; j <= p; j++) {
    const i = k - p + j;
    const w = n.weights[i]!;
    d.push([n.ctrl[i]![0]! * w, n.ctrl[i]![1]! * w, w]);
  }
  for (let r = 1; r <= p; r++) {
    for (let j = p; j >= r; j--) {
      const i = k - p + j;
      const den = n.knots[i + p - r + 1]! - n.knots[i]!;
      const a = den === 0 ? 0 : (u - n.knots[i]!) / den;
      const q = d[j]!, s = d[j - 1]!;
      d[j] = [(1 - a) * s[0]! + a * q[0]!, (1 - a) * s[1]! + a * q[1]!, (1 - a) * s[2]! + a * q[2]!];
    }
  }
  const h = d[p]!;
  return [h[0]! / h[2]!, h[1]! / h[2]!];
}

/** Inserts knot u once (Boehm), in homogeneous coordinates so weights stay exact. */
export function insertKnot(n: Nurbs, u: number): Nurbs {
  const p = n.degree;
  const k = span(n, u);
  const hw = n.ctrl.map((c, i) => [c[0]! * n.weights[i]!, c[1]! * n.weights[i]!, n.weights[i]!]);
  const out: number[][] = [];
  for (let i = 0; i <= k - p; i++) out.push(hw[i]!);
  for (let i = k - p + 1; i <= k; i++) {
    const den = n.knots[i + p]! - n.knots[i]!;
    const a = den === 0 ? 0 : (u - n.knots[i]!) / den;
    const q = hw[i]!, s = hw[i - 1]!;
    out.push([(1 - a) * s[0]! + a * q[0]!, (1 - a) * s[1]! + a * q[1]!, (1 - a) * s[2]! + a * q[2]!]);
  }
  for (let i = k; i < hw.length; i++) out.push(hw[i]!);
  const knots = [...n.knots.slice(0, k + 1), u, ...n.knots.slice(k + 1)];
  return { degree: p, knots, ctrl: out.map((h) => [h[0]! / h[2]!, h[1]! / h[2]!]), weights: out.map((h) => h[2]!) };
}

function multiplicity(n: Nurbs, u: number): number {
  let m = 0;
  for (const k of n.knots) if (Math.abs(k - u) < 1e-14) m++;
  return m;
}

/** A clamped spline split at an interior parameter u: the two pieces, each clamped (exact). */
export function nurbsSplit(n: Nurbs, u: number): [Nurbs, Nurbs] {
  const p = n.degree;
  let c = n;
  while (multiplicity(c, u) < p) c = insertKnot(c, u);
  const s = c.knots.findIndex((k) => Math.abs(k - u) < 1e-14);
  const left: Nurbs = { degree: p, knots: [...c.knots.slice(0, s + p), u], ctrl: c.ctrl.slice(0, s), weights: c.weights.slice(0, s) };
  const right: Nurbs = { degree: p, knots: [u, ...c.knots.slice(s)], ctrl: c.ctrl.slice(s - 1), weights: c.weights.slice(s - 1) };
  return [left, right];
}

/** The part of a clamped spline between parameters u0 < u1 (exact, clamped). */
export function nurbsPiece(n: Nurbs, u0: number, u1: number): Nurbs {
  const [d0, d1] = nurbsDomain(n);
  let c = n;
  if (u0 > d0 + 1e-14) c = nurbsSplit(c, u0)[1];
  if (u1 < d1 - 1e-14) c = nurbsSplit(c, u1)[0];
  return c;
}

/** True when the knot vector is clamped (end knots of multiplicity degree+1). */
export function isClamped(n: Nurbs): boolean {
  const p = n.degree, k = n.knots;
  for (let i = 1; i <= p; i++) if (k[i] !== k[0] || k[k.length - 1 - i] !== k[k.length - 1]) return false;
  return true;
}

/** Two clamped splines of one degree, the first ending where the second starts, as one (C0 at the seam). */
export function nurbsConcat(a: Nurbs, b: Nurbs): Nurbs {
  const p = a.degree;
  const [, a1] = nurbsDomain(a);
  const [b0] = nurbsDomain(b);
  const shift = a1 - b0;
  const kb = b.knots.map((k) => k + shift);
  const knots = [...a.knots.slice(0, a.knots.length - 1), ...kb.slice(p + 1)];
  return { degree: p, ctrl: [...a.ctrl, ...b.ctrl.slice(1)], weights: [...a.weights, ...b.weights.slice(1)], knots };
}
