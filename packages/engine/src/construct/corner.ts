// Corners between two curves: the fillet arc tangent to both (lines: closed form; with arcs: the
// centres where the curves' offsets by the radius meet) and the chamfer line, and the same for
// the vertices of a polyline (an arc segment by its bulge, or a bevel).
import { OpError } from '../protocol.js';
import { type P, add, cross, dist, dot, len, mul, norm, perp, sub, unit } from './vec2.js';
import type { Seg } from './curve.js';
import { circleCircle, lineCircle, lineLine } from './intersect.js';

/** An arc through t1 and t2 about c, the short way. */
export function shortArc(c: P, r: number, t1: P, t2: P): Extract<Seg, { k: 'arc' }> {
  const a1 = Math.atan2(t1[1] - c[1], t1[0] - c[0]);
  const a2 = Math.atan2(t2[1] - c[1], t2[0] - c[0]);
  let sw = norm(a2 - a1);
  if (sw > Math.PI) sw -= 2 * Math.PI;
  return { k: 'arc', c, r, a0: a1, sw };
}

export interface LineCorner {
  /** Where the kept parts of the two lines meet (the sharp corner). */
  x: P;
  /** Unit directions from x along the kept parts. */
  u1: P;
  u2: P;
  /** How far each kept part reaches from x (to its far end). */
  reach1: number;
  reach2: number;
}

/**
 * The corner of two lines: their carriers' crossing and the kept side of each (towards its pick
 * point, or else its longer part). Null when the lines are parallel.
 */
export function lineCorner(l1: Extract<Seg, { k: 'line' }>, l2: Extract<Seg, { k: 'line' }>, pick1?: P, pick2?: P): LineCorner | null {
  const hit = lineLine(l1.a, sub(l1.b, l1.a), l2.a, sub(l2.b, l2.a));
  if (!hit) return null;
  const x = hit.p;
  const side = (l: Extract<Seg, { k: 'line' }>, pick?: P): { u: P; reach: number } => {
    const d = unit(sub(l.b, l.a));
    const ea = dot(sub(l.a, x), d), eb = dot(sub(l.b, x), d);
    let s: number;
    if (pick) s = Math.sign(dot(sub(pick, x), d)) || Math.sign(ea + eb);
    else s = Math.abs(eb) >= Math.abs(ea) ? Math.sign(eb) : Math.sign(ea);
    const u = mul(d, s || 1);
    return { u, reach: Math.max(ea * (s || 1), eb * (s || 1)) };
  };
  const a = side(l1, pick1), b = side(l2, pick2);
  return { x, u1: a.u, u2: b.u, reach1: a.reach, reach2: b.reach };
}

/** Tangent points and arc of a fillet of radius r in a line corner (radius_too_large when a line is too short). */
export function filletLines(c: LineCorner, r: number, names: [string, string]): { t1: P; t2: P; arc: Extract<Seg, { k: 'arc' }> | null } {
  const cos = Math.max(-1, Math.min(1, dot(c.u1, c.u2)));
  const theta = Math.acos(cos);
  if (theta < 1e-12 || Math.PI - theta < 1e-12) throw new OpError('parallel', `fillet: ${names[0]} and ${names[1]} are collinear`, { handles: names });
  if (r === 0) return { t1: c.x, t2: c.x, arc: null };
  const t = r / Math.tan(theta / 2);
  for (const [reach, name] of [[c.reach1, names[0]], [c.reach2, names[1]]] as const) {
    if (t > reach + 1e-9 * Math.max(1, t)) {
      throw new OpError('radius_too_large', `fillet: radius ${r} needs ${t.toPrecision(6)} along ${name}, which reaches ${Math.max(0, reach).toPrecision(6)} from the corner`, { handle: name, needed: t, available: reach });
    }
  }
  const t1 = add(c.x, mul(c.u1, t)), t2 = add(c.x, mul(c.u2, t));
  const center = add(c.x, mul(unit(add(c.u1, c.u2)), r / Math.sin(theta / 2)));
  return { t1, t2, arc: shortArc(center, r, t1, t2) };
}

/** The carrier of a line or arc: an infinite line or a whole circle. */
type Carrier = { k: 'line'; a: P; d: P } | { k: 'circle'; c: P; r: number };

function carrier(s: Seg): Carrier {
  if (s.k === 'line') return { k: 'line', a: s.a, d: unit(sub(s.b, s.a)) };
  if (s.k === 'arc') return { k: 'circle', c: s.c, r: s.r };
  throw new OpError('wrong_type', 'fillet takes lines and arcs');
}

/** Carriers at distance r from one (both sides of a line; both sides of a circle). */
function offsets(c: Carrier, r: number): Carrier[] {
  if (c.k === 'line') return [1, -1].map((s) => ({ k: 'line' as const, a: add(c.a, mul(perp(c.d), s * r)), d: c.d }));
  return [c.r + r, c.r - r].filter((x) => x > 1e-12).map((x) => ({ k: 'circle' as const, c: c.c, r: x }));
}

function meet(a: Carrier, b: Carrier): P[] {
  if (a.k === 'line' && b.k === 'line') {
    const h = lineLine(a.a, a.d, b.a, b.d);
    return h ? [h.p] : [];
  }
  if (a.k === 'line' && b.k === 'circle') return lineCircle(a.a, a.d, b.c, b.r).map((h) => h.p);
  if (a.k === 'circle' && b.k === 'line') return lineCircle(b.a, b.d, a.c, a.r).map((h) => h.p);
  return circleCircle((a as { c: P }).c, (a as { r: number }).r, (b as { c: P }).c, (b as { r: number }).r);
}

/** The point of a carrier nearest to p (where a circle about p touches it). */
function foot(c: Carrier, p: P): P {
  if (c.k === 'line') return add(c.a, mul(c.d, dot(sub(p, c.a), c.d)));
  return add(c.c, mul(unit(sub(p, c.c)), c.r));
}

/**
 * A fillet between two segments of which one at least is an arc: of the circles of radius r
 * tangent to both carriers, the one whose tangent points lie nearest the pick points.
 */
export function filletCurves(s1: Seg, s2: Seg, r: number, pick1: P, pick2: P, names: [string, string]): { t1: P; t2: P; arc: Extract<Seg, { k: 'arc' }> | null } {
  const c1 = carrier(s1), c2 = carrier(s2);
  if (r === 0) {
    const pts = meet(c1, c2);
    if (!pts.length) throw new OpError('no_intersection', `fillet: ${names[0]} and ${names[1]} do not meet, even extended`, { handles: names });
    const x = pts.reduce((a, b) => (dist(a, pick1) + dist(a, pick2) <= dist(b, pick1) + dist(b, pick2) ? a : b));
    return { t1: x, t2: x, arc: null };
  }
  let best: { t1: P; t2: P; c: P; score: number } | null = null;
  for (const o1 of offsets(c1, r)) {
    for (const o2 of offsets(c2, r)) {
      for (const c of meet(o1, o2)) {
        const t1 = foot(c1, c), t2 = foot(c2, c);
        if (Math.abs(dist(c, t1) - r) > 1e-9 * (1 + r) || Math.abs(dist(c, t2) - r) > 1e-9 * (1 + r)) continue;
        const score = dist(t1, pick1) + dist(t2, pick2);
        if (!best || score < best.score) best = { t1, t2, c, score };
      }
    }
  }
  if (!best) throw new OpError('radius_too_large', `fillet: no arc of radius ${r} touches both ${names[0]} and ${names[1]}`, { handles: names });
  return { t1: best.t1, t2: best.t2, arc: shortArc(best.c, r, best.t1, best.t2) };
}

/** Keeps the part of a line from point t towards its pick side (the line's direction kept). */
export function keepLine(l: Extract<Seg, { k: 'line' }>, t: P, pick: P): Extract<Seg, { k: 'line' }> {
  const d = sub(l.b, l.a);
  const ta = dot(sub(l.a, t), d), tb = dot(sub(l.b, t), d);
  const s = Math.sign(dot(sub(pick, t), d)) || Math.sign(ta + tb);
  // The far end is the endpoint on the pick side; the other end moves to t.
  return s * tb >= s * ta ? { k: 'line', a: t, b: l.b } : { k: 'line', a: l.a, b: t };
}

/** Keeps the part of an arc from point t (on its circle) towards the pick (extending it when t lies beyond an end). */
export function keepArc(s: Extract<Seg, { k: 'arc' }>, t: P, pick: P): Extract<Seg, { k: 'arc' }> {
  const at = Math.atan2(t[1] - s.c[1], t[0] - s.c[0]);
  const dir = Math.sign(s.sw);
  const tRel = norm(dir * (at - s.a0)); // how far along the arc's direction t lies from its start
  const sw = Math.abs(s.sw);
  const pRel = norm(dir * (Math.atan2(pick[1] - s.c[1], pick[0] - s.c[0]) - s.a0));
  if (tRel <= sw) {
    // t on the arc: keep [start, t] or [t, end], whichever holds the pick.
    const keepEnd = pRel > tRel && pRel <= sw ? true : pRel <= tRel ? false : pRel - sw < 2 * Math.PI - pRel;
    return keepEnd ? { ...s, a0: s.a0 + dir * tRel, sw: dir * (sw - tRel) } : { ...s, sw: dir * tRel };
  }
  // t beyond the arc: grow the end nearer to it.
  const pastEnd = tRel - sw, beforeStart = 2 * Math.PI - tRel;
  return pastEnd <= beforeStart ? { ...s, sw: dir * tRel } : { ...s, a0: s.a0 - dir * beforeStart, sw: dir * (sw + beforeStart) };
}

/** Vertices replacing polyline vertex v (between a and b) by a fillet of radius r: [t1 with bulge, t2]. */
export function polylineFillet(a: P, v: P, b: P, r: number): { t1: P; t2: P; bulge: number; need: number } | null {
  const u1 = unit(sub(a, v)), u2 = unit(sub(b, v));
  if (len(u1) === 0 || len(u2) === 0) return null;
  const theta = Math.acos(Math.max(-1, Math.min(1, dot(u1, u2))));
  if (theta < 1e-12 || Math.PI - theta < 1e-12) return null;
  const t = r / Math.tan(theta / 2);
  const turn = Math.sign(cross(sub(v, a), sub(b, v)));
  const sweep = (Math.PI - theta) * turn;
  return { t1: add(v, mul(u1, t)), t2: add(v, mul(u2, t)), bulge: Math.tan(sweep / 4), need: t };
}
