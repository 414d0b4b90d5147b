// fillet and chamfer: round or bevel the corner of two lines (fillet also line + arc, two arcs
// and a line or arc with a circle, which stays whole as in AutoCAD), of two segments of one
// polyline, or every corner of a polyline.
import { z } from 'zod';
import { OpError } from '../protocol.js';
import type { Entity } from '../dxf.js';
import type { Transaction } from '../store/document-store.js';
import { entityPath } from '../construct/entity-path.js';
import { type Path, type Seg, closest, point } from '../construct/curve.js';
import { filletCurves, filletLines, keepArc, keepLine, lineCorner, polylineFillet } from '../construct/corner.js';
import { Edits, addLike, rewrite, setPolylinePoints } from '../construct/write.js';
import { arcAttrs, isPolyline, polylineVertices } from '../construct/entity-path.js';
import { type P, add, dist, dot, mul, sub, unit, cross } from '../construct/vec2.js';
import { defineOp } from './types.js';
import { MODIFY, handleField, target, xy } from './modify-common.js';

const cornerInput = {
  handles: z.array(handleField).min(1).max(2).describe('two entities (or the same polyline twice: two of its segments; or one polyline with polyline: true)'),
  points: z.tuple([xy, xy]).optional().describe('on the parts to keep (points, one per handle; default: the longer parts)'),
  polyline: z.boolean().optional().describe('all its corners (every corner of the polyline handles[0])'),
  trim: z.boolean().optional().describe('(false: AutoCAD\'s TRIMMODE 0, the objects stay whole and only the arc or line is added; default true)'),
};

export const filletOp = defineOp({
  name: 'fillet',
  summary: 'Rounds a corner with an arc of `radius` (of two Lines, a Line and an Arc, two Arcs, a Line or Arc and a Circle, which is left whole, or two segments of one LWPolyline or 2D Polyline, trimmed or extended to the arc; the sides kept are those nearer to `points`); radius 0 makes a sharp corner, parallel lines get a half circle; `polyline: true` rounds every corner of a polyline.',
  input: z.object({ ...cornerInput, radius: z.number().min(0).describe('fillet radius (0: sharp corner)') }),
  ...MODIFY,
  errors: ['entity_absent', 'wrong_type', 'radius_too_large', 'parallel', 'no_intersection', 'not_adjacent', 'unsupported_plane'],
  example: { handles: ['2F', '30'], radius: 5 },
  handler: (ctx, input) => corner(ctx.tx!, input.handles, input.points, input.polyline ?? false, { kind: 'fillet', r: input.radius, keep: input.trim === false }),
});

export const chamferOp = defineOp({
  name: 'chamfer',
  summary: 'Bevels a corner of two Lines (or two segments of one LWPolyline or 2D Polyline) with a line (from `distances[0]` along the first to `distances[1]` along the second); `polyline: true` bevels every corner of a polyline.',
  input: z.object({ ...cornerInput, distances: z.tuple([z.number().min(0), z.number().min(0)]).describe('from the corner along each ([d1, d2])') }),
  ...MODIFY,
  errors: ['entity_absent', 'wrong_type', 'distance_too_large', 'parallel', 'not_adjacent', 'unsupported_plane'],
  example: { handles: ['2F', '30'], distances: [2, 2] },
  handler: (ctx, input) => corner(ctx.tx!, input.handles, input.points, input.polyline ?? false, { kind: 'chamfer', d1: input.distances[0], d2: input.distances[1], keep: input.trim === false }),
});

/** `keep`: no trim (TRIMMODE 0), the objects are left as they are. */
type How = ({ kind: 'fillet'; r: number } | { kind: 'chamfer'; d1: number; d2: number }) & { keep?: boolean };

export function corner(tx: Transaction, handles: string[], points: [P, P] | undefined, polyline: boolean, how: How) {
  const a = target(tx.doc, handles[0]!);
  const edits = new Edits();
  if (polyline) {
    if (!isPolyline(a)) throw new OpError('wrong_type', `${how.kind}: polyline: true takes an LWPOLYLINE or 2D POLYLINE, ${a.handle} is ${a.type}`, { handle: a.handle });
    const n = polylineCorners(tx, edits, a, null, how);
    if (!n) throw new OpError('radius_too_large', `${how.kind}: no corner of ${a.type} ${a.handle} has room for it (or it has no corner between two lines)`, { handle: a.handle });
    return edits.result();
  }
  if (handles.length < 2) throw new OpError('invalid_request', `${how.kind}: give two handles (or polyline: true)`);
  const b = target(tx.doc, handles[1]!);
  if (a.handle === b.handle) {
    if (!isPolyline(a)) throw new OpError('wrong_type', `${how.kind}: ${a.type} ${a.handle} given twice (only a polyline has two segments)`, { handle: a.handle });
    if (!points) throw new OpError('invalid_request', `${how.kind}: two segments of one polyline need \`points\`, one on each segment`);
    polylineCorners(tx, edits, a, points, how);
    return edits.result();
  }
  const types = how.kind === 'fillet' ? ['LINE', 'ARC', 'CIRCLE'] : ['LINE'];
  const pa = entityPath(a, how.kind, types), pb = entityPath(b, how.kind, types);
  const s1 = pa.segs[0]!, s2 = pb.segs[0]!;
  const names: [string, string] = [a.handle, b.handle];
  if (s1.k === 'line' && s2.k === 'line') {
    const c = lineCorner(s1, s2, points?.[0], points?.[1]);
    if (!c) {
      if (how.kind === 'chamfer') throw new OpError('parallel', `chamfer: ${a.handle} and ${b.handle} are parallel`, { handles: names });
      return parallelFillet(tx, edits, a, b, s1, s2, points, how.keep ?? false);
    }
    let t1: P, t2: P, arc: Seg | null = null;
    if (how.kind === 'fillet') ({ t1, t2, arc } = filletLines(c, how.r, names));
    else {
      for (const [d, reach, h] of [[how.d1, c.reach1, a.handle], [how.d2, c.reach2, b.handle]] as const) {
        if (d > reach + 1e-9 * Math.max(1, d)) throw new OpError('distance_too_large', `chamfer: distance ${d} is longer than ${h} reaches from the corner (${Math.max(0, reach).toPrecision(6)})`, { handle: h });
      }
      t1 = add(c.x, mul(c.u1, how.d1));
      t2 = add(c.x, mul(c.u2, how.d2));
    }
    const far1 = add(c.x, mul(c.u1, c.reach1)), far2 = add(c.x, mul(c.u2, c.reach2));
    if (!how.keep) {
      rewrite(tx, edits, a, [keepLine(s1, t1, far1)], false);
      rewrite(tx, edits, b, [keepLine(s2, t2, far2)], false);
    }
    if (arc) addLike(tx, edits, a, 'ARC', arcAttrs(arc as Extract<Seg, { k: 'arc' }>, 1, 0).attrs);
    else if (how.kind === 'chamfer' && dist(t1, t2) > 0) addLike(tx, edits, a, 'LINE', { start: [t1[0], t1[1], 0], end: [t2[0], t2[1], 0] });
    return edits.result();
  }
  if (how.kind !== 'fillet') throw new OpError('wrong_type', 'chamfer takes lines');
  const p1 = points?.[0] ?? point(s1, 0.5), p2 = points?.[1] ?? point(s2, 0.5);
  const f = filletCurves(s1, s2, how.r, p1, p2, names);
  const keep = (s: Seg, t: P, pick: P): Seg => (s.k === 'line' ? keepLine(s, t, pick) : keepArc(s as Extract<Seg, { k: 'arc' }>, t, pick));
  // A circle stays whole, as AutoCAD leaves it: the fillet arc only touches it.
  if (a.type !== 'CIRCLE' && !how.keep) rewrite(tx, edits, a, [keep(s1, f.t1, p1)], false);
  if (b.type !== 'CIRCLE' && !how.keep) rewrite(tx, edits, b, [keep(s2, f.t2, p2)], false);
  if (f.arc) addLike(tx, edits, a, 'ARC', arcAttrs(f.arc, 1, 0).attrs);
  return edits.result();
}

/**
 * Parallel lines: a half circle joins the ends nearer the picks (default: the ends that lead
 * the same way); the second line's end moves level with the first's, as AutoCAD does.
 */
function parallelFillet(tx: Transaction, edits: Edits, a: Entity, b: Entity, s1: Extract<Seg, { k: 'line' }>, s2: Extract<Seg, { k: 'line' }>, points: [P, P] | undefined, keep: boolean) {
  const d = unit(sub(s1.b, s1.a));
  const n = sub(s2.a, add(s1.a, mul(d, dot(sub(s2.a, s1.a), d))));
  const gap = Math.hypot(n[0], n[1]);
  if (gap < 1e-12) throw new OpError('parallel', `fillet: ${a.handle} and ${b.handle} are collinear`, { handles: [a.handle, b.handle] });
  // The end of the first line: nearer its pick, or the one further along d.
  const e1: 0 | 1 = points ? (dist(points[0], s1.a) <= dist(points[0], s1.b) ? 0 : 1) : 1;
  const end1 = e1 === 0 ? s1.a : s1.b;
  const w = e1 === 0 ? mul(d, -1) : d; // outward at that end
  const end2 = add(end1, n);
  // The second line's end on the same side moves to end2.
  const e2: 0 | 1 = dot(sub(s2.b, s2.a), w) >= 0 ? 1 : 0;
  const moved: Seg = e2 === 1 ? { k: 'line', a: s2.a, b: end2 } : { k: 'line', a: end2, b: s2.b };
  if (!keep) rewrite(tx, edits, b, [moved], false);
  const c = mul(add(end1, end2), 0.5);
  const r = gap / 2;
  const a0 = Math.atan2(end1[1] - c[1], end1[0] - c[0]);
  // Half a turn from end1 to end2 passing outward (through c + w r).
  const sw = cross(sub(end1, c), w) > 0 ? Math.PI : -Math.PI;
  addLike(tx, edits, a, 'ARC', arcAttrs({ k: 'arc', c, r, a0, sw }, 1, 0).attrs);
  return edits.result();
}

/**
 * Fillets or chamfers corners of a polyline between two line segments: every corner (picks null)
 * or the one between the two picked segments. Works on the OCS vertices directly.
 */
function polylineCorners(tx: Transaction, edits: Edits, e: Entity, picks: [P, P] | null, how: How): number {
  const path: Path = entityPath(e, how.kind, ['LWPOLYLINE', 'POLYLINE']);
  const { pts, closed } = polylineVertices(e, how.kind);
  const n = pts.length;
  let corners: number[];
  if (picks) {
    const seg = (q: P) => {
      let best = 0, bd = Infinity;
      path.segs.forEach((s, i) => { const c = closest(s, q); if (c.d < bd) { bd = c.d; best = i; } });
      return best;
    };
    // Segment indices of the path equal vertex indices when no segment has zero length.
    if (path.segs.length !== (closed ? n : n - 1)) throw new OpError('wrong_type', `${how.kind}: ${e.type} ${e.handle} has zero-length segments`, { handle: e.handle });
    const i = seg(picks[0]), j = seg(picks[1]);
    const m = path.segs.length;
    let v: number;
    if (Math.abs(i - j) === 1) v = Math.max(i, j);
    else if (closed && ((i === 0 && j === m - 1) || (j === 0 && i === m - 1))) v = 0;
    else throw new OpError('not_adjacent', `${how.kind}: the picked segments ${i} and ${j} of ${e.type} ${e.handle} do not share a vertex`, { handle: e.handle });
    corners = [v];
  } else {
    corners = [];
    for (let v = closed ? 0 : 1; v < (closed ? n : n - 1); v++) corners.push(v);
  }
  const out: number[][] = [];
  const replace = new Map<number, number[][]>();
  let done = 0;
  const used = new Array<number>(n).fill(0); // length each segment already gave to a corner at its start
  for (const v of corners) {
    const prev = (v - 1 + n) % n, next = (v + 1) % n;
    if (pts[prev]![4] !== 0 || pts[v]![4] !== 0) {
      if (picks) throw new OpError('wrong_type', `${how.kind}: the corner at vertex ${v} of ${e.type} ${e.handle} has an arc segment`, { handle: e.handle });
      continue;
    }
    const A: P = [pts[prev]![0]!, pts[prev]![1]!], V: P = [pts[v]![0]!, pts[v]![1]!], B: P = [pts[next]![0]!, pts[next]![1]!];
    const lenIn = dist(A, V) - used[prev]!, lenOut = dist(V, B);
    let t1: P, t2: P, bulge = 0, needIn: number, needOut: number;
    if (how.kind === 'fillet') {
      const f = polylineFillet(A, V, B, how.r);
      if (!f || how.r === 0) continue;
      ({ t1, t2, bulge } = f);
      needIn = needOut = f.need;
    } else {
      if (Math.abs(cross(unit(sub(A, V)), unit(sub(B, V)))) < 1e-12) continue;
      t1 = add(V, mul(unit(sub(A, V)), how.d1));
      t2 = add(V, mul(unit(sub(B, V)), how.d2));
      needIn = how.d1;
      needOut = how.d2;
      if (how.d1 === 0 && how.d2 === 0) continue;
    }
    if (needIn > lenIn + 1e-9 || needOut > lenOut + 1e-9) {
      if (picks) throw new OpError(how.kind === 'fillet' ? 'radius_too_large' : 'distance_too_large', `${how.kind}: the segments at vertex ${v} of ${e.type} ${e.handle} are too short (need ${Math.max(needIn, needOut).toPrecision(6)})`, { handle: e.handle });
      continue;
    }
    used[v] = needOut;
    if (how.keep) {
      // no trim: the polyline stays, the arc or bevel is an entity of its own
      if (bulge !== 0) addLike(tx, edits, e, 'ARC', arcAttrs(bulgeArc(t1, t2, bulge), 1, 0).attrs);
      else addLike(tx, edits, e, 'LINE', { start: [t1[0], t1[1], 0], end: [t2[0], t2[1], 0] });
      done++;
      continue;
    }
    const w = pts[v]!;
    replace.set(v, [[t1[0], t1[1], w[2]!, w[3]!, bulge], [t2[0], t2[1], w[2]!, w[3]!, 0]]);
    done++;
  }
  if (!done || how.keep) return done;
  pts.forEach((p, i) => { const r = replace.get(i); if (r) out.push(...r); else out.push(p); });
  setPolylinePoints(tx, edits, e, out);
  return done;
}



/** The arc of a polyline segment from t1 to t2 with `bulge` (the tangent of a quarter of its sweep). */
function bulgeArc(t1: P, t2: P, bulge: number): Extract<Seg, { k: 'arc' }> {
  const sw = 4 * Math.atan(bulge);
  const chord = dist(t1, t2);
  const mid = mul(add(t1, t2), 0.5);
  const n = unit(sub(t2, t1));
  // the centre lies left of the chord for a counter-clockwise (positive) bulge
  const d = chord / 2 / Math.tan(sw / 2);
  const c = add(mid, mul([-n[1], n[0]], d));
  return { k: 'arc', c, r: dist(c, t1), a0: Math.atan2(t1[1] - c[1], t1[0] - c[0]), sw };
}
