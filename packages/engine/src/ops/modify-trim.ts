// trim and extend: cut a curve back to its nearest boundaries, or grow its end to the first one.
// Without `edges` every visible entity is a boundary; the spatial index finds the few near the
// curve (or along its extension), so the cost follows the neighbourhood, not the drawing.
import { z } from 'zod';
import { OpError } from '../protocol.js';
import type { Entity } from '../dxf.js';
import { entitiesOrThrow } from '../model.js';
import { entityPath } from '../construct/entity-path.js';
import { type Path, type Seg, end, pathEnd, pathPiece, pathStart, piece, point, start, tangent } from '../construct/curve.js';
import { EdgeSource } from '../construct/edges.js';
import { cutsOf, segBox } from '../construct/cuts.js';
import { intersect } from '../construct/intersect.js';
import { moveEnd } from '../construct/adjust.js';
import { mergeSegs } from '../construct/merge.js';
import { Edits, addPiece, rewrite } from '../construct/write.js';
import { type P, TAU, add, dist, mul } from '../construct/vec2.js';
import type { DocStore, Transaction } from '../store/document-store.js';
import { defineOp } from './types.js';
import { MODIFY, handleField, pathSize, pickOn, target, xy } from './modify-common.js';

const edgeInput = {
  handle: handleField,
  point: xy.describe('(a point on the entity: trim removes the piece nearest it, extend grows the end nearest it)'),
  edges: z.array(handleField).optional().describe('(boundary handles; default: every visible entity)'),
};

export const trimOp = defineOp({
  name: 'trim',
  summary: 'Removes the piece of a curve nearest `point` between its intersections with `edges` (a Line, Arc, Circle, Ellipse, LWPolyline, 2D Polyline or Spline; edges: every visible entity when absent); a circle becomes an arc, a piece from the middle leaves two entities.',
  input: z.object(edgeInput),
  ...MODIFY,
  errors: ['entity_absent', 'wrong_type', 'no_intersection', 'unsupported_plane'],
  example: { handle: '2F', point: [5, 0] },
  handler: (ctx, input) => trim(ctx.tx!, ctx.store!, input.handle, input.point, input.edges),
});

export function edgeSource(tx: Transaction, store: DocStore, e: Entity, edges: string[] | undefined): EdgeSource {
  const given = edges ? entitiesOrThrow(tx.doc, edges) : null;
  return new EdgeSource(store, new Set([e.handle]), given);
}

export function trim(tx: Transaction, store: DocStore, handle: string, q: P, edges?: string[]) {
  const e = target(tx.doc, handle);
  const path = entityPath(e, 'trim');
  const T = pickOn(path, q, e, 'trim');
  const size = pathSize(path);
  const src = edgeSource(tx, store, e, edges);
  const pad = size * 1e-9;
  const box = path.segs.map((s) => segBox(s, pad)).reduce((a, b) => ({ minX: Math.min(a.minX, b.minX), minY: Math.min(a.minY, b.minY), maxX: Math.max(a.maxX, b.maxX), maxY: Math.max(a.maxY, b.maxY) }));
  const N = path.segs.length;
  let cuts = cutsOf(path, src.near(e, box), src, pad);
  const edits = new Edits();
  const none = () => new OpError('no_intersection', `trim: ${e.type} ${e.handle} meets no ${edges ? 'given edge' : 'visible entity'} on both sides of the point${path.closed ? ' (a closed curve needs two intersections)' : ''}`, { handle: e.handle });
  if (!path.closed) {
    cuts = cuts.filter((c) => c > 1e-9 && c < N - 1e-9);
    const lo = cuts.filter((c) => c < T).pop();
    const hi = cuts.find((c) => c > T);
    if (lo === undefined && hi === undefined) throw none();
    const pieces: Seg[][] = [];
    if (lo !== undefined) pieces.push(pathPiece(path, 0, lo));
    if (hi !== undefined) pieces.push(pathPiece(path, hi, N));
    rewrite(tx, edits, e, pieces[0]!, false);
    if (pieces[1]) addPiece(tx, edits, e, pieces[1], false);
    return edits.result();
  }
  cuts = [...new Set(cuts.map((c) => (c >= N - 1e-9 ? 0 : c)))].sort((a, b) => a - b);
  if (cuts.length < 2) throw none();
  const lo = cuts.filter((c) => c < T).pop() ?? cuts[cuts.length - 1]!;
  const hi = cuts.find((c) => c > T) ?? cuts[0]!;
  const kept = hi < lo ? pathPiece(path, hi, lo) : [...pathPiece(path, hi, N), ...pathPiece(path, 0, lo)];
  rewrite(tx, edits, e, path.segs.length === 1 ? mergeSegs(kept) : kept, false);
  return edits.result();
}

export const extendOp = defineOp({
  name: 'extend',
  summary: 'Grows the end nearer to `point` to the first of `edges` it meets (of a Line, Arc, open LWPolyline or 2D Polyline, its end segment; edges: every visible entity when absent).',
  input: z.object(edgeInput),
  ...MODIFY,
  errors: ['entity_absent', 'wrong_type', 'no_boundary', 'unsupported_plane'],
  example: { handle: '2F', point: [9, 0] },
  handler: (ctx, input) => extend(ctx.tx!, ctx.store!, input.handle, input.point, input.edges),
});

export function extend(tx: Transaction, store: DocStore, handle: string, q: P, edges?: string[]) {
  const e = target(tx.doc, handle);
  const path = entityPath(e, 'extend', ['LINE', 'ARC', 'LWPOLYLINE', 'POLYLINE']);
  if (path.closed) throw new OpError('wrong_type', `extend: ${e.type} ${e.handle} is closed and has no end to extend`, { handle: e.handle });
  const atEnd = dist(q, pathEnd(path)) < dist(q, pathStart(path));
  const i = atEnd ? path.segs.length - 1 : 0;
  let seg = path.segs[i]!;
  if (!atEnd) seg = reverseSeg(seg);
  const src = edgeSource(tx, store, e, edges);
  const hit = firstHit(src, e, seg);
  if (!hit) throw new OpError('no_boundary', `extend: the ${atEnd ? 'end' : 'start'} of ${e.type} ${e.handle} meets no ${edges ? 'given edge' : 'visible entity'} when extended`, { handle: e.handle });
  const segs = path.segs.slice();
  segs[i] = moveEnd(path.segs[i]!, atEnd ? 1 : 0, hit);
  const edits = new Edits();
  rewrite(tx, edits, e, segs, false);
  return edits.result();
}

function reverseSeg(s: Seg): Seg {
  return piece(s, 1, 0);
}

/**
 * The first boundary point beyond the end of `seg` (which runs towards the end to extend). A
 * line's ray is searched in stretches of doubling length, each a box query of the index, so the
 * nearest boundary is found without looking at the far side of the drawing.
 */
function firstHit(src: EdgeSource, e: Entity, seg: Seg): P | null {
  const from = end(seg);
  const scale = Math.max(dist(start(seg), from), 1e-9);
  let ext: Seg;
  if (seg.k === 'line') {
    const d = tangent(seg, 1);
    ext = { k: 'line', a: from, b: add(from, mul(d, src.reach)) };
  } else if (seg.k === 'arc') {
    const room = TAU - Math.abs(seg.sw);
    if (room <= 1e-12) return null;
    ext = { k: 'arc', c: seg.c, r: seg.r, a0: seg.a0 + seg.sw, sw: Math.sign(seg.sw) * room * (1 - 1e-12) };
  } else return null;
  const pad = scale * 1e-9;
  const seen = new Set<string>();
  let best: { t: number; p: P } | null = null;
  const consider = (list: Entity[]) => {
    for (const x of list) {
      if (seen.has(x.handle)) continue;
      seen.add(x.handle);
      for (const es of src.segsOf(x).segs) {
        for (const h of intersect(ext, es)) {
          if (dist(h.p, from) <= 1e-9 * scale) continue; // the boundary it already touches
          if (!best || h.ta < best.t) best = { t: h.ta, p: h.p };
        }
      }
    }
  };
  if (ext.k === 'arc') {
    consider(src.near(e, segBox(ext, pad)));
    return best ? (best as { p: P }).p : null;
  }
  // Stretches along the ray: [t0, t1] of the extension's parameter, doubling.
  let t0 = 0, step = Math.min(1, scale / src.reach);
  while (t0 < 1) {
    const t1 = Math.min(1, t0 + step);
    const a = point(ext, t0), b = point(ext, t1);
    consider(src.near(e, { minX: Math.min(a[0], b[0]) - pad, minY: Math.min(a[1], b[1]) - pad, maxX: Math.max(a[0], b[0]) + pad, maxY: Math.max(a[1], b[1]) + pad }));
    if (best && (best as { t: number }).t <= t1) return (best as { p: P }).p;
    if (!src.given && !src.store.index.size) break;
    if (src.given && seen.size >= src.given.length) break;
    if (!src.given && outsideExtents(src, b, ext)) break;
    t0 = t1;
    step *= 2;
  }
  return best ? (best as { p: P }).p : null;
}

/** True once the ray has left the drawing's extents (nothing further can be hit). */
function outsideExtents(src: EdgeSource, b: P, ext: Seg): boolean {
  const x = src.store.index.extents();
  if (!x) return true;
  const d = tangent(ext, 0);
  const out = (v: number, lo: number, hi: number, dir: number) => (dir > 0 ? v > hi : dir < 0 ? v < lo : v < lo || v > hi);
  return out(b[0], x.min[0], x.max[0], d[0]) || out(b[1], x.min[1], x.max[1], d[1]);
}

export type { Path };
