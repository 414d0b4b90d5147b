// Moving the end of a segment along its own carrier (the infinite line, the whole circle) to a
// point on it: how trim, extend, fillet and offset corners reshape lines and arcs.
import { type P, TAU, add, dist, dot, mul, norm, sub } from './vec2.js';
import type { Seg } from './curve.js';
import { lineCircle, lineLine, circleCircle } from './intersect.js';

/** The segment with its start (which = 0) or end (which = 1) moved to x, a point of its carrier. */
export function moveEnd(s: Seg, which: 0 | 1, x: P): Seg {
  if (s.k === 'line') return which === 0 ? { k: 'line', a: x, b: s.b } : { k: 'line', a: s.a, b: x };
  if (s.k !== 'arc') throw new Error(`moveEnd: ${s.k} is not a line or an arc`);
  const ax = Math.atan2(x[1] - s.c[1], x[0] - s.c[0]);
  const dir = Math.sign(s.sw) || 1;
  if (which === 1) {
    // New sweep in the arc's direction, the one nearest the old sweep (never 0 or a full turn by accident).
    const base = dir * norm(dir * (ax - s.a0));
    const sw = closestTurn(base, s.sw);
    return { ...s, sw };
  }
  const endA = s.a0 + s.sw;
  const base = dir * norm(dir * (endA - ax));
  const sw = closestTurn(base, s.sw);
  return { ...s, a0: endA - sw, sw };
}

function closestTurn(base: number, old: number): number {
  let best = base;
  for (const k of [-1, 1]) if (Math.abs(base + k * TAU - old) < Math.abs(best - old) && Math.sign(base + k * TAU) === Math.sign(old)) best = base + k * TAU;
  return best;
}

/** Points where the carriers of two segments (infinite lines, whole circles) meet. */
export function carrierHits(a: Seg, b: Seg): P[] {
  if (a.k === 'line' && b.k === 'line') {
    const r = lineLine(a.a, sub(a.b, a.a), b.a, sub(b.b, b.a));
    return r ? [r.p] : [];
  }
  if (a.k === 'line' && b.k === 'arc') return lineCircle(a.a, sub(a.b, a.a), b.c, b.r).map((h) => h.p);
  if (a.k === 'arc' && b.k === 'line') return lineCircle(b.a, sub(b.b, b.a), a.c, a.r).map((h) => h.p);
  if (a.k === 'arc' && b.k === 'arc') return circleCircle(a.c, a.r, b.c, b.r);
  return [];
}

/** Nearest of points to q. */
export function nearest(points: P[], q: P): P | null {
  let best: P | null = null, bd = Infinity;
  for (const p of points) {
    const d = dist(p, q);
    if (d < bd) { bd = d; best = p; }
  }
  return best;
}

/** True when a moved line kept its direction (a corner join did not turn it inside out). */
export function sameDirection(before: Seg, after: Seg): boolean {
  if (before.k === 'line' && after.k === 'line') return dot(sub(before.b, before.a), sub(after.b, after.a)) > 0 && dist(after.a, after.b) > 1e-12;
  if (before.k === 'arc' && after.k === 'arc') return Math.abs(after.sw) > 1e-12 && Math.abs(after.sw) < Math.abs(before.sw) + Math.PI;
  return true;
}

/** A point beside p at distance r along direction d (helpers for callers). */
export const along = (p: P, d: P, r: number): P => add(p, mul(d, r));
