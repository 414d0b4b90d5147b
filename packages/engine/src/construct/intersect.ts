// Intersections of segments: exact for lines and circular arcs (their carriers: infinite lines
// and whole circles, filtered to the segments), sampled and refined by Newton for the rest.
import { type P, add, cross, dist, dot, mul, sub } from './vec2.js';
import { type Seg, arcParam, closest, deriv, point, samples } from './curve.js';

export interface Hit {
  /** Local parameter on the first segment. */
  ta: number;
  /** Local parameter on the second segment. */
  tb: number;
  p: P;
}

/** Points where an infinite line (a + s d) meets another infinite line, with s. */
export function lineLine(a: P, d: P, b: P, e: P): { s: number; u: number; p: P } | null {
  const den = cross(d, e);
  const scale = Math.hypot(d[0], d[1]) * Math.hypot(e[0], e[1]);
  if (Math.abs(den) <= 1e-13 * scale) return null;
  const w = sub(b, a);
  const s = cross(w, e) / den;
  const u = cross(w, d) / den;
  return { s, u, p: add(a, mul(d, s)) };
}

/** Points where the infinite line a + s d meets the circle (c, r), with s. */
export function lineCircle(a: P, d: P, c: P, r: number): { s: number; p: P }[] {
  const dd = dot(d, d);
  if (dd === 0) return [];
  const f = sub(a, c);
  const b = dot(f, d) / dd;
  const cc = (dot(f, f) - r * r) / dd;
  const disc = b * b - cc;
  const tol = 1e-12 * Math.max(1, r * r / dd);
  if (disc < -tol) return [];
  if (disc <= tol) return [{ s: -b, p: add(a, mul(d, -b)) }];
  const q = Math.sqrt(disc);
  return [-b - q, -b + q].map((s) => ({ s, p: add(a, mul(d, s)) }));
}

/** Points where two circles meet. */
export function circleCircle(c1: P, r1: number, c2: P, r2: number): P[] {
  const d = dist(c1, c2);
  if (d === 0) return [];
  const tol = 1e-12 * Math.max(1, r1, r2);
  if (d > r1 + r2 + tol || d < Math.abs(r1 - r2) - tol) return [];
  const a = (d * d + r1 * r1 - r2 * r2) / (2 * d);
  const h2 = r1 * r1 - a * a;
  const ex: P = [(c2[0] - c1[0]) / d, (c2[1] - c1[1]) / d];
  const m = add(c1, mul(ex, a));
  if (h2 <= tol * tol || h2 <= 0) return [m];
  const h = Math.sqrt(h2);
  return [add(m, [-ex[1] * h, ex[0] * h]), add(m, [ex[1] * h, -ex[0] * h])];
}

const EPS = 1e-9;

function onSeg(s: Seg, p: P): number | null {
  if (s.k === 'line') {
    const d = sub(s.b, s.a);
    const l2 = dot(d, d);
    const t = l2 > 0 ? dot(sub(p, s.a), d) / l2 : 0;
    const tol = EPS / Math.sqrt(l2 || 1);
    return t >= -tol && t <= 1 + tol ? Math.min(1, Math.max(0, t)) : null;
  }
  if (s.k === 'arc') return arcParam(s, Math.atan2(p[1] - s.c[1], p[0] - s.c[0]), EPS / Math.max(s.r, 1e-300));
  const c = closest(s, p);
  return c.d < 1e-7 ? c.t : null;
}

/** Every intersection of two segments. */
export function intersect(a: Seg, b: Seg): Hit[] {
  if ((a.k === 'line' || a.k === 'arc') && (b.k === 'line' || b.k === 'arc')) return exact(a, b);
  return sampled(a, b);
}

function exact(a: Extract<Seg, { k: 'line' | 'arc' }>, b: Extract<Seg, { k: 'line' | 'arc' }>): Hit[] {
  let pts: P[];
  if (a.k === 'line' && b.k === 'line') {
    const r = lineLine(a.a, sub(a.b, a.a), b.a, sub(b.b, b.a));
    pts = r ? [r.p] : [];
  } else if (a.k === 'line' && b.k === 'arc') pts = lineCircle(a.a, sub(a.b, a.a), b.c, b.r).map((x) => x.p);
  else if (a.k === 'arc' && b.k === 'line') pts = lineCircle(b.a, sub(b.b, b.a), a.c, a.r).map((x) => x.p);
  else pts = circleCircle((a as { c: P }).c, (a as { r: number }).r, (b as { c: P }).c, (b as { r: number }).r);
  const out: Hit[] = [];
  for (const p of pts) {
    const ta = onSeg(a, p), tb = onSeg(b, p);
    if (ta !== null && tb !== null) out.push({ ta, tb, p });
  }
  return out;
}

function sampled(a: Seg, b: Seg): Hit[] {
  const na = samples(a), nb = samples(b);
  const pa: P[] = [], pb: P[] = [];
  for (let i = 0; i <= na; i++) pa.push(point(a, i / na));
  for (let i = 0; i <= nb; i++) pb.push(point(b, i / nb));
  const out: Hit[] = [];
  for (let i = 0; i < na; i++) {
    const a0 = pa[i]!, a1 = pa[i + 1]!;
    const ax0 = Math.min(a0[0], a1[0]), ax1 = Math.max(a0[0], a1[0]), ay0 = Math.min(a0[1], a1[1]), ay1 = Math.max(a0[1], a1[1]);
    for (let j = 0; j < nb; j++) {
      const b0 = pb[j]!, b1 = pb[j + 1]!;
      const pad = 1e-9 * (1 + Math.abs(ax1) + Math.abs(ay1));
      if (Math.max(b0[0], b1[0]) < ax0 - pad || Math.min(b0[0], b1[0]) > ax1 + pad || Math.max(b0[1], b1[1]) < ay0 - pad || Math.min(b0[1], b1[1]) > ay1 + pad) continue;
      const r = lineLine(a0, sub(a1, a0), b0, sub(b1, b0));
      if (!r || r.s < -0.05 || r.s > 1.05 || r.u < -0.05 || r.u > 1.05) continue;
      const h = newton(a, b, (i + Math.min(1, Math.max(0, r.s))) / na, (j + Math.min(1, Math.max(0, r.u))) / nb);
      if (h && !out.some((o) => dist(o.p, h.p) < 1e-9)) out.push(h);
    }
  }
  return out;
}

/** Newton on A(s) - B(t) = 0 from a start near the crossing. */
function newton(a: Seg, b: Seg, s: number, t: number): Hit | null {
  for (let k = 0; k < 50; k++) {
    const f = sub(point(a, s), point(b, t));
    if (Math.hypot(f[0], f[1]) < 1e-13 * (1 + Math.abs(point(a, s)[0]) + Math.abs(point(a, s)[1]))) break;
    const da = deriv(a, s), db = deriv(b, t);
    const det = -da[0] * db[1] + da[1] * db[0];
    if (Math.abs(det) < 1e-300) return null;
    // Solve [da, -db] [ds, dt] = -f.
    const ds = (-f[0] * -db[1] - -db[0] * -f[1]) / det;
    const dt = (da[0] * -f[1] - da[1] * -f[0]) / det;
    s = Math.min(1, Math.max(0, s + ds));
    t = Math.min(1, Math.max(0, t + dt));
  }
  const pa = point(a, s), pb = point(b, t);
  const scale = 1 + Math.abs(pa[0]) + Math.abs(pa[1]);
  if (dist(pa, pb) > 1e-8 * scale) return null;
  return { ta: s, tb: t, p: pa };
}
