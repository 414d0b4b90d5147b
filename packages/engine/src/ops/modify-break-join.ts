// break and join: split a curve at a point or remove the part between two points; join lines,
// arcs and polylines into one line, one arc (or circle) or one polyline.
import { z } from 'zod';
import { OpError } from '../protocol.js';
import type { Entity } from '../dxf.js';
import { entitiesOrThrow } from '../model.js';
import { entityPath, isPolyline, ocsSign } from '../construct/entity-path.js';
import { type Path, type Seg, end, pathEnd, pathPiece, pathStart, reverse, start } from '../construct/curve.js';
import { mergeSegs } from '../construct/merge.js';
import { Edits, addLike, addPiece, erase, geometryOf, rewrite } from '../construct/write.js';
import { type P, TAU, dist, dot, norm, sub, unit, cross } from '../construct/vec2.js';
import type { Transaction } from '../store/document-store.js';
import { defineOp } from './types.js';
import { MODIFY, handleField, pathSize, pickOn, target, xy } from './modify-common.js';

export const breakOp = defineOp({
  name: 'break',
  summary: 'Breaks a curve at one point, or removes the part between two (in two at one point; a Line, Arc, Circle, Ellipse, LWPolyline, 2D Polyline or Spline; on a closed curve, counter-clockwise from the first to the second, as AutoCAD does).',
  input: z.object({ handle: handleField, points: z.array(xy).min(1).max(2).describe('[p1] or [p1, p2] (projected onto the entity)') }),
  ...MODIFY,
  errors: ['entity_absent', 'wrong_type', 'invalid_point', 'unsupported_plane'],
  example: { handle: '2F', points: [[2, 0], [5, 0]] },
  handler: (ctx, input) => breakAt(ctx.tx!, input.handle, input.points as P[]),
});

export function breakAt(tx: Transaction, handle: string, points: P[]) {
  const e = target(tx.doc, handle);
  const path = entityPath(e, 'break');
  const N = path.segs.length;
  const eps = 1e-9;
  const edits = new Edits();
  const T1 = pickOn(path, points[0]!, e, 'break');
  if (points.length === 1) {
    if (path.closed) {
      if (N === 1) throw new OpError('invalid_point', `break: ${e.type} ${e.handle} is closed; give two points to remove a part of it`, { handle: e.handle });
      // A closed polyline opens at the point.
      rewrite(tx, edits, e, [...pathPiece(path, T1, N), ...pathPiece(path, 0, T1)], false);
      return edits.result();
    }
    if (T1 <= eps || T1 >= N - eps) throw new OpError('invalid_point', `break: the point is at an end of ${e.type} ${e.handle}; nothing to break`, { handle: e.handle });
    rewrite(tx, edits, e, pathPiece(path, 0, T1), false);
    addPiece(tx, edits, e, pathPiece(path, T1, N), false);
    return edits.result();
  }
  const T2 = pickOn(path, points[1]!, e, 'break');
  if (Math.abs(T1 - T2) <= eps) return breakAt(tx, handle, [points[0]!]);
  if (path.closed) {
    // Removed: from T1 forward to T2; kept: from T2 forward to T1.
    const kept = T2 < T1 ? pathPiece(path, T2, T1) : [...pathPiece(path, T2, N), ...pathPiece(path, 0, T1)];
    rewrite(tx, edits, e, N === 1 ? mergeSegs(kept) : kept, false);
    return edits.result();
  }
  const lo = Math.min(T1, T2), hi = Math.max(T1, T2);
  const pieces = [lo > eps ? pathPiece(path, 0, lo) : null, hi < N - eps ? pathPiece(path, hi, N) : null].filter((p): p is Seg[] => !!p && p.length > 0);
  if (!pieces.length) erase(tx, edits, e);
  else {
    rewrite(tx, edits, e, pieces[0]!, false);
    if (pieces[1]) addPiece(tx, edits, e, pieces[1], false);
  }
  return edits.result();
}

export const joinOp = defineOp({
  name: 'join',
  summary: 'Joins entities into one (collinear Lines into a line, Arcs of one circle into an arc or a circle, Lines, Arcs and open LWPolylines or 2D Polylines that meet end to end into one polyline); the first handle is kept (a first polyline keeps its type; for lines and arcs a new LWPolyline takes its properties).',
  input: z.object({ handles: z.array(handleField).min(2).describe('the first is the source') }),
  ...MODIFY,
  errors: ['entity_absent', 'wrong_type', 'not_connected', 'unsupported_plane'],
  example: { handles: ['2F', '30', '31'] },
  handler: (ctx, input) => join(ctx.tx!, input.handles),
});

export function join(tx: Transaction, handles: string[]) {
  const list = [...new Map(entitiesOrThrow(tx.doc, handles).map((e) => [e.handle, e])).values()];
  if (list.length < 2) throw new OpError('invalid_request', 'join: give at least two different entities');
  const paths = list.map((e) => entityPath(e, 'join', ['LINE', 'ARC', 'LWPOLYLINE', 'POLYLINE']));
  const scale = Math.max(...paths.map(pathSize));
  const tol = 1e-9 * Math.max(1, scale);
  const edits = new Edits();
  const src = list[0]!;
  if (list.every((e) => e.type === 'LINE')) {
    const l0 = paths[0]!.segs[0] as Extract<Seg, { k: 'line' }>;
    const d = unit(sub(l0.b, l0.a));
    const off = (p: P) => Math.abs(cross(d, sub(p, l0.a)));
    if (paths.every((p) => off(start(p.segs[0]!)) <= tol && off(end(p.segs[0]!)) <= tol)) {
      const ts = paths.flatMap((p) => [start(p.segs[0]!), end(p.segs[0]!)]).map((q) => dot(sub(q, l0.a), d));
      const t0 = Math.min(...ts), t1 = Math.max(...ts);
      const at = (t: number): P => [l0.a[0] + d[0] * t, l0.a[1] + d[1] * t];
      rewrite(tx, edits, src, [{ k: 'line', a: at(t0), b: at(t1) }], false);
      for (const e of list.slice(1)) erase(tx, edits, e);
      return edits.result();
    }
  }
  if (list.every((e) => e.type === 'ARC')) {
    const arcs = paths.map((p) => p.segs[0] as Extract<Seg, { k: 'arc' }>);
    const a0 = arcs[0]!;
    const same = list.every((e) => ocsSign(e) === ocsSign(src)) && arcs.every((a) => dist(a.c, a0.c) <= tol && Math.abs(a.r - a0.r) <= tol);
    if (same) {
      rewrite(tx, edits, src, [coverArcs(arcs)], false);
      for (const e of list.slice(1)) erase(tx, edits, e);
      return edits.result();
    }
  }
  // End to end into one polyline.
  const open = paths.findIndex((p) => p.closed);
  if (open >= 0) throw new OpError('wrong_type', `join: ${list[open]!.type} ${list[open]!.handle} is closed`, { handle: list[open]!.handle });
  let chain: Seg[] = [...paths[0]!.segs];
  const left = new Set(paths.keys());
  left.delete(0);
  for (let grown = true; grown && left.size;) {
    grown = false;
    for (const i of [...left]) {
      const p = paths[i]!;
      const cs = start(chain[0]!), ce = end(chain[chain.length - 1]!);
      const ps = pathStart(p), pe = pathEnd(p);
      if (dist(ce, ps) <= tol) chain = [...chain, ...p.segs];
      else if (dist(ce, pe) <= tol) chain = [...chain, ...reversePath(p)];
      else if (dist(cs, pe) <= tol) chain = [...p.segs, ...chain];
      else if (dist(cs, ps) <= tol) chain = [...reversePath(p), ...chain];
      else continue;
      left.delete(i);
      grown = true;
    }
  }
  if (left.size) {
    const bad = [...left].map((i) => list[i]!.handle);
    throw new OpError('not_connected', `join: ${bad.join(', ')} ${bad.length > 1 ? 'do' : 'does'} not meet the others end to end`, { handles: bad });
  }
  const closed = chain.length > 2 && dist(start(chain[0]!), end(chain[chain.length - 1]!)) <= tol;
  if (isPolyline(src)) {
    rewrite(tx, edits, src, chain, closed);
    for (const e of list.slice(1)) erase(tx, edits, e);
  } else {
    addPolyline(tx, edits, src, chain, closed);
    for (const e of list) erase(tx, edits, e);
  }
  return edits.result();
}

function reversePath(p: Path): Seg[] {
  return [...p.segs].reverse().map(reverse);
}

/** A new LWPOLYLINE of lines and arcs beside the source, taking its properties. */
function addPolyline(tx: Transaction, edits: Edits, src: Entity, segs: Seg[], closed: boolean): void {
  const g = geometryOf({ ...src, type: 'LWPOLYLINE' }, segs, closed);
  addLike(tx, edits, src, g.type, g.attrs);
}

/** The smallest arc covering arcs of one circle (the complement of the widest gap between them); a circle when none is left. */
function coverArcs(arcs: Extract<Seg, { k: 'arc' }>[]): Seg {
  // Counter-clockwise intervals [s, s + w].
  const iv = arcs.map((a) => (a.sw > 0 ? { s: norm(a.a0), w: a.sw } : { s: norm(a.a0 + a.sw), w: -a.sw })).sort((x, y) => x.s - y.s);
  let gapStart = 0, gapWidth = -1;
  let reach = iv[0]!.s + iv[0]!.w;
  for (let i = 1; i <= iv.length; i++) {
    const next = i < iv.length ? iv[i]!.s : iv[0]!.s + TAU;
    if (next - reach > gapWidth) { gapWidth = next - reach; gapStart = reach; }
    if (i < iv.length) reach = Math.max(reach, iv[i]!.s + iv[i]!.w);
  }
  const a = arcs[0]!;
  if (gapWidth <= 1e-12) return { ...a, a0: 0, sw: Math.sign(a.sw) * TAU };
  const from = gapStart + gapWidth, sw = TAU - gapWidth;
  return a.sw > 0 ? { ...a, a0: from, sw } : { ...a, a0: from + sw, sw: -sw };
}
