// trim and extend: cut a curve back to its nearest boundaries, or grow its end to the first one.
// Without `edges` every visible entity is a boundary; the spatial index finds the few near the
// curve (or along its extension), so the cost follows the neighbourhood, not the drawing.
import { z } from 'zod';
import { OpError } from '../protocol.js';
import type { Entity } from '../dxf.js';
import { entitiesOrThrow } from '../model.js';
import { entityPath } from '../construct/entity-path.js';
import { type Path, type Seg, end, pathClosest, pathEnd, pathPiece, pathStart, piece, point, start, tangent } from '../construct/curve.js';
import { EdgeSource } from '../construct/edges.js';
import { cutsOf, segBox } from '../construct/cuts.js';
import { intersect } from '../construct/intersect.js';
import { moveEnd } from '../construct/adjust.js';
import { mergeSegs } from '../construct/merge.js';
import { Edits, addPiece, rewrite } from '../construct/write.js';
import { type P, TAU, add, dist, mul } from '../construct/vec2.js';
import type { DocStore, Transaction } from '../store/document-store.js';
import { visibleEntity } from '../query/picks.js';
import { queryEntities } from '../query/entities.js';
import { layoutBlock } from './entities.js';
import { currentMeter } from '../budgets.js';
import { defineOp } from './types.js';
import { MODIFY, handleField, pathSize, pickOn, target, xy } from './modify-common.js';

const edgeInput = {
  handle: handleField.optional(),
  point: xy.optional().describe('(a point on the entity: trim removes the piece nearest it, extend grows the end nearest it)'),
  fence: z.array(xy).optional().describe('(not with handle/point: AutoCAD\'s Fence, each entity these points\' line crosses, at each crossing; Crossing: a window\'s sides)'),
  layout: z.string().optional().describe('(fence layout; default Model)'),
  edges: z.array(handleField).optional().describe('(boundary handles; default: every visible entity)'),
  extended_edges: z.boolean().optional().describe('(AutoCAD\'s EDGEMODE 1: edges count as extended, lines as rays, arcs as circles)'),
};

type EdgeInput = { handle?: string | undefined; point?: P | undefined; fence?: P[] | undefined; layout?: string | undefined; edges?: string[] | undefined; extended_edges?: boolean | undefined };

export const trimOp = defineOp({
  name: 'trim',
  summary: 'Cuts away the piece at `point` between `edges`, or each `fence` crosses (the piece of a curve nearest `point` between its intersections with `edges`; a Line, Arc, Circle, Ellipse, LWPolyline, 2D Polyline or Spline; edges: every visible entity when absent); a circle becomes an arc, a piece from the middle leaves two entities.',
  input: z.object(edgeInput),
  ...MODIFY,
  errors: ['entity_absent', 'wrong_type', 'no_intersection', 'unsupported_plane', 'invalid_request', 'unknown_layout'],
  example: { handle: '2F', point: [5, 0] },
  handler: (ctx, input) => edgeEdit(ctx.tx!, ctx.store!, 'trim', input as EdgeInput),
});

export function edgeSource(tx: Transaction, store: DocStore, e: Entity, edges: string[] | undefined, extended = false, fresh: Edits | null = null): EdgeSource {
  const given = edges ? entitiesOrThrow(tx.doc, edges) : null;
  const r = fresh?.result();
  const touched = r ? [...r.created, ...r.modified].map((h) => tx.doc.get(h) as Entity | undefined).filter((x): x is Entity => !!x) : [];
  return new EdgeSource(store, new Set([e.handle]), given, extended, touched);
}

/** trim or extend at one picked point, or along a fence: the op's two forms. */
function edgeEdit(tx: Transaction, store: DocStore, op: 'trim' | 'extend', input: EdgeInput) {
  const ext = input.extended_edges ?? false;
  if (input.fence) {
    if (input.fence.length < 2) throw new OpError('invalid_request', `${op}: a fence has two points or more`);
    if (input.handle !== undefined || input.point !== undefined) throw new OpError('invalid_request', `${op}: give either \`fence\` or \`handle\` and \`point\``);
    return fenceEdit(tx, store, op, input.fence, input.edges, ext, input.layout);
  }
  if (input.handle === undefined || input.point === undefined) throw new OpError('invalid_request', `${op}: give \`handle\` and \`point\` (or \`fence\`)`);
  return op === 'trim' ? trim(tx, store, input.handle, input.point, input.edges, ext) : extend(tx, store, input.handle, input.point, input.edges, ext);
}

const TRIMMABLE = new Set(['LINE', 'ARC', 'CIRCLE', 'ELLIPSE', 'LWPOLYLINE', 'POLYLINE', 'SPLINE']);

/**
 * AutoCAD's Fence (and Crossing, the window's sides as a fence): where the fence crosses an
 * entity, in order along the fence, that piece is trimmed (or that end extended). A piece an
 * earlier crossing already removed is passed over; a crossed entity that meets no edge stays as
 * it is. Everything is one transaction, one undo step.
 */
function fenceEdit(tx: Transaction, store: DocStore, op: 'trim' | 'extend', fence: P[], edges: string[] | undefined, ext: boolean, layout?: string) {
  // model space through its index; a paper-space layout's few entities by their boxes
  const paper = layout !== undefined && layout.toLowerCase() !== 'model' ? layoutBlock(tx.doc, layout) : null;
  const near = (x0: number, y0: number, x1: number, y1: number): Iterable<{ handle: string }> =>
    paper === null ? store.index.search(x0, y0, x1, y1) : (queryEntities(store, { bounds: [x0, y0, x1, y1], bounds_mode: 'intersects', limit: 1e9, layout, detail: 'summary' }).entities as { handle: string }[]);
  // a fence across a large drawing crosses many entities, each an edit: the request's deadline
  // stops it between them (the transaction then changes nothing)
  const meter = currentMeter();
  const crossings: { handle: string; p: P }[] = [];
  for (let i = 0; i + 1 < fence.length; i++) {
    const a = fence[i]!, b = fence[i + 1]!;
    if (dist(a, b) === 0) continue;
    const seg: Seg = { k: 'line', a, b };
    const pad = 1e-9 * Math.max(1, dist(a, b));
    const here: { handle: string; p: P; t: number }[] = [];
    for (const it of near(Math.min(a[0], b[0]) - pad, Math.min(a[1], b[1]) - pad, Math.max(a[0], b[0]) + pad, Math.max(a[1], b[1]) + pad)) {
      meter.tick();
      const e = tx.doc.get(it.handle) as Entity | undefined;
      if (!e || !TRIMMABLE.has(e.type) || !visibleEntity(store, e)) continue;
      let path: Path;
      try {
        path = entityPath(e, op);
      } catch {
        continue;
      }
      for (const s of path.segs) for (const h of intersect(seg, s)) here.push({ handle: e.handle, p: h.p, t: h.ta });
    }
    here.sort((x, y) => x.t - y.t);
    crossings.push(...here);
  }
  const edits = new Edits();
  // the entities a trimmed one became (a piece cut from the middle is a new entity)
  const family = new Map<string, string[]>();
  const extended = new Set<string>();
  let done = 0;
  for (const c of crossings) {
    meter.checkNow();
    if (op === 'extend') {
      if (extended.has(c.handle)) continue;
      extended.add(c.handle);
    }
    const members = family.get(c.handle) ?? [c.handle];
    const at = members.find((h) => {
      const e = tx.doc.get(h) as Entity | undefined;
      if (!e) return false;
      const path = entityPath(e, op);
      return pathClosest(path, c.p).d <= 1e-7 * Math.max(1, pathSize(path));
    });
    if (!at) continue; // that piece is gone already
    try {
      const r = op === 'trim' ? trim(tx, store, at, c.p, edges, ext, edits) : extend(tx, store, at, c.p, edges, ext, edits);
      family.set(c.handle, [...members, ...r.created.filter((h) => !members.includes(h))]);
      done++;
    } catch (err) {
      // a crossing that cannot be edited is passed over; a spent deadline or budget ends the whole
      if (!(err instanceof OpError) || err.code === 'deadline_exceeded' || err.code === 'budget_exceeded') throw err;
    }
  }
  if (!done) {
    throw new OpError(op === 'trim' ? 'no_intersection' : 'no_boundary', `${op}: the fence crosses ${crossings.length ? `nothing it can ${op} (${new Set(crossings.map((c) => c.handle)).size} crossed entities meet no ${edges ? 'given edge' : 'visible entity'})` : 'no entity'}`);
  }
  return edits.result();
}

export function trim(tx: Transaction, store: DocStore, handle: string, q: P, edges?: string[], ext = false, edits = new Edits()) {
  const e = target(tx.doc, handle);
  const path = entityPath(e, 'trim');
  const T = pickOn(path, q, e, 'trim');
  const size = pathSize(path);
  const src = edgeSource(tx, store, e, edges, ext, edits);
  const pad = size * 1e-9;
  const box = path.segs.map((s) => segBox(s, pad)).reduce((a, b) => ({ minX: Math.min(a.minX, b.minX), minY: Math.min(a.minY, b.minY), maxX: Math.max(a.maxX, b.maxX), maxY: Math.max(a.maxY, b.maxY) }));
  const N = path.segs.length;
  let cuts = cutsOf(path, src.near(e, box), src, pad);
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
  summary: 'Grows the end nearest `point` or `fence` to the next edge (the first of `edges` it meets; of a Line, Arc, open LWPolyline or 2D Polyline, its end segment; edges: every visible entity when absent).',
  input: z.object(edgeInput),
  ...MODIFY,
  errors: ['entity_absent', 'wrong_type', 'no_boundary', 'unsupported_plane', 'invalid_request', 'unknown_layout'],
  example: { handle: '2F', point: [9, 0] },
  handler: (ctx, input) => edgeEdit(ctx.tx!, ctx.store!, 'extend', input as EdgeInput),
});

export function extend(tx: Transaction, store: DocStore, handle: string, q: P, edges?: string[], ext = false, edits = new Edits()) {
  const e = target(tx.doc, handle);
  const path = entityPath(e, 'extend', ['LINE', 'ARC', 'LWPOLYLINE', 'POLYLINE']);
  if (path.closed) throw new OpError('wrong_type', `extend: ${e.type} ${e.handle} is closed and has no end to extend`, { handle: e.handle });
  const atEnd = dist(q, pathEnd(path)) < dist(q, pathStart(path));
  const i = atEnd ? path.segs.length - 1 : 0;
  let seg = path.segs[i]!;
  if (!atEnd) seg = reverseSeg(seg);
  const src = edgeSource(tx, store, e, edges, ext, edits);
  const hit = firstHit(src, e, seg);
  if (!hit) throw new OpError('no_boundary', `extend: the ${atEnd ? 'end' : 'start'} of ${e.type} ${e.handle} meets no ${edges ? 'given edge' : 'visible entity'} when extended`, { handle: e.handle });
  const segs = path.segs.slice();
  segs[i] = moveEnd(path.segs[i]!, atEnd ? 1 : 0, hit);
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
