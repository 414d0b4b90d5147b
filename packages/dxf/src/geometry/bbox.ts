// Bounding boxes in WCS. LINE, POINT, CIRCLE, ARC, LWPOLYLINE and TEXT take a direct path with no
// intermediate objects (the engine boxes every entity when it indexes a drawing); the others go
// through their primitives. Arcs and ellipses are exact (end points plus the axis extremes that lie
// on the arc, also in tilted OCS planes); splines are flattened to 1e-4 of their control polygon's
// size; text uses an estimated glyph width of 0.6 × height per character.
import type { DocumentApi } from '../document-api.js';
import { LazyEntity } from '../reader/lazy-entity.js';
import type { Entity, Vec3 } from '../types.js';
import { BSpline, addEllipseArcToBox, addToBox, angleInRange, bulgeToArc, emptyBox } from './curves.js';
import type { BoxArray } from './curves.js';
import { blockExpansion, checkSpline, expansionError, referenceExpansion, GEOMETRY_LIMITS } from './expansion.js';
import type { ExpansionMemo } from './expansion.js';
import { cornerCellMatrices, entityGeometry, insertMatrices, textCornersOcs, transformGeometry } from './primitives.js';
import type { Matrix44 } from './matrix44.js';
import type { Primitive } from './primitives.js';
import { DEG, isDefaultExtrusion, ocsFromExtrusion, ocsToWcs } from './vec.js';

export interface BBox {
  min: Vec3;
  max: Vec3;
}

const n = (v: unknown, d = 0): number => (typeof v === 'number' ? v : v === undefined || v === null ? d : Number(v) || d);

/** The box an accumulated `BoxArray` holds; null when nothing was added. */
export function toBBox(b: BoxArray): BBox | null {
  if (!(b[0]! <= b[3]!)) return null;
  return { min: [b[0]!, b[1]!, b[2]!], max: [b[3]!, b[4]!, b[5]!] };
}

/** Grows `b` by a primitive; returns false for unbounded ones. */
export function addPrimToBox(b: BoxArray, p: Primitive): boolean {
  switch (p.k) {
    case 'line':
      addToBox(b, p.a[0], p.a[1], p.a[2]);
      addToBox(b, p.b[0], p.b[1], p.b[2]);
      return true;
    case 'point':
      addToBox(b, p.p[0], p.p[1], p.p[2]);
      return true;
    case 'poly':
      for (const q of p.pts) addToBox(b, q[0], q[1], q[2]);
      return true;
    case 'arc':
      addEllipseArcToBox(b, p.c, p.u, p.v, p.t0, p.t0 + p.sweep, p.sweep >= 2 * Math.PI - 1e-12);
      return true;
    case 'spline': {
      const cps = p.data.control_points;
      const hull = emptyBox();
      for (const q of cps) addToBox(hull, q[0]!, q[1]!, q[2] ?? 0);
      const size = Math.max(hull[3]! - hull[0]!, hull[4]! - hull[1]!, hull[5]! - hull[2]!);
      for (const q of new BSpline(p.data).flatten(Math.max(size * 1e-4, 1e-9))) addToBox(b, q[0], q[1], q[2]);
      return true;
    }
    case 'ray':
      return false;
  }
}

// fast paths --------------------------------------------------------------------------------------

function point3(v: unknown, i: number): number {
  return Array.isArray(v) ? n(v[i]) : 0;
}

function circleBox(e: Entity, full: boolean): BBox | null {
  const a = e.attrs;
  const r = Math.abs(n(a.radius, 1));
  const c = a.center;
  const cx = point3(c, 0);
  const cy = point3(c, 1);
  const cz = point3(c, 2);
  if (isDefaultExtrusion(a.extrusion)) {
    if (full) return { min: [cx - r, cy - r, cz], max: [cx + r, cy + r, cz] };
    const s = n(a.start_angle) * DEG;
    const en = (a.end_angle === undefined ? 360 : n(a.end_angle)) * DEG;
    let x0 = cx + r * Math.cos(s);
    let y0 = cy + r * Math.sin(s);
    let x1 = cx + r * Math.cos(en);
    let y1 = cy + r * Math.sin(en);
    if (x1 < x0) [x0, x1] = [x1, x0];
    if (y1 < y0) [y0, y1] = [y1, y0];
    if (angleInRange(0, s, en)) x1 = cx + r;
    if (angleInRange(Math.PI / 2, s, en)) y1 = cy + r;
    if (angleInRange(Math.PI, s, en)) x0 = cx - r;
    if (angleInRange(1.5 * Math.PI, s, en)) y0 = cy - r;
    return { min: [x0, y0, cz], max: [x1, y1, cz] };
  }
  const ocs = ocsFromExtrusion(a.extrusion);
  const b = emptyBox();
  const cw = ocsToWcs(ocs, [cx, cy, cz]);
  const u = [ocs.ux[0] * r, ocs.ux[1] * r, ocs.ux[2] * r];
  const v = [ocs.uy[0] * r, ocs.uy[1] * r, ocs.uy[2] * r];
  const s = n(a.start_angle) * DEG;
  const en = (a.end_angle === undefined ? 360 : n(a.end_angle)) * DEG;
  addEllipseArcToBox(b, cw, u, v, s, en, full);
  return toBBox(b);
}

function lwpolylineBox(e: Entity): BBox | null {
  const a = e.attrs;
  const pts = a.points as number[][] | undefined;
  if (!pts || pts.length === 0) return null;
  const elev = n(a.elevation);
  const closed = (n(a.flags) & 1) !== 0;
  const plain = isDefaultExtrusion(a.extrusion);
  let minx = Infinity, miny = Infinity, maxx = -Infinity, maxy = -Infinity;
  let bulges = false;
  for (let i = 0; i < pts.length; i++) {
    const p = pts[i]!;
    const x = p[0]!;
    const y = p[1]!;
    if (x < minx) minx = x;
    if (x > maxx) maxx = x;
    if (y < miny) miny = y;
    if (y > maxy) maxy = y;
    if (p[4]) bulges = true;
  }
  if (bulges) {
    const segs = closed ? pts.length : pts.length - 1;
    for (let i = 0; i < segs; i++) {
      const p = pts[i]!;
      const b = p[4] ?? 0;
      if (!b) continue;
      const q = pts[(i + 1) % pts.length]!;
      if (p[0] === q[0] && p[1] === q[1]) continue;
      const arc = bulgeToArc(p, q, b);
      const [cx, cy] = arc.center;
      const r = arc.radius;
      if (angleInRange(0, arc.start_angle, arc.end_angle)) maxx = Math.max(maxx, cx + r);
      if (angleInRange(Math.PI / 2, arc.start_angle, arc.end_angle)) maxy = Math.max(maxy, cy + r);
      if (angleInRange(Math.PI, arc.start_angle, arc.end_angle)) minx = Math.min(minx, cx - r);
      if (angleInRange(1.5 * Math.PI, arc.start_angle, arc.end_angle)) miny = Math.min(miny, cy - r);
    }
  }
  if (plain) return { min: [minx, miny, elev], max: [maxx, maxy, elev] };
  // tilted plane: exact via primitives
  return null;
}

function textBox(e: Entity): BBox | null {
  const a = e.attrs;
  const c = textCornersOcs(e);
  const plain = isDefaultExtrusion(a.extrusion);
  const ocs = plain ? null : ocsFromExtrusion(a.extrusion);
  let minx = Infinity, miny = Infinity, minz = Infinity, maxx = -Infinity, maxy = -Infinity, maxz = -Infinity;
  for (const p0 of c) {
    const p = ocs ? ocsToWcs(ocs, p0) : p0;
    if (p[0] < minx) minx = p[0];
    if (p[0] > maxx) maxx = p[0];
    if (p[1] < miny) miny = p[1];
    if (p[1] > maxy) maxy = p[1];
    if (p[2] < minz) minz = p[2];
    if (p[2] > maxz) maxz = p[2];
  }
  return { min: [minx, miny, minz], max: [maxx, maxy, maxz] };
}

/**
 * The WCS bounding box of an entity, or null when it is unbounded (RAY, XLINE) or has no geometry.
 * INSERT (and MINSERT arrays) resolve their block through `doc`, nested inserts included, with
 * their attributes; DIMENSION uses its `geometry` block when `doc` has it, else its definition points.
 */
export function boundingBox(e: Entity, doc?: DocumentApi, memo?: BoxMemo): BBox | null {
  const a = e.attrs;
  switch (e.type) {
    case 'LINE': {
      const s = a.start;
      const t = a.end;
      const x0 = point3(s, 0), y0 = point3(s, 1), z0 = point3(s, 2);
      const x1 = point3(t, 0), y1 = point3(t, 1), z1 = point3(t, 2);
      return {
        min: [x0 < x1 ? x0 : x1, y0 < y1 ? y0 : y1, z0 < z1 ? z0 : z1],
        max: [x0 > x1 ? x0 : x1, y0 > y1 ? y0 : y1, z0 > z1 ? z0 : z1],
      };
    }
    case 'POINT': {
      const p = a.location;
      const x = point3(p, 0), y = point3(p, 1), z = point3(p, 2);
      return { min: [x, y, z], max: [x, y, z] };
    }
    case 'CIRCLE':
      return circleBox(e, true);
    case 'ARC':
      return circleBox(e, false);
    case 'LWPOLYLINE': {
      const b = lwpolylineBox(e);
      if (b || !a.points || (a.points as unknown[]).length === 0) return b;
      break;
    }
    case 'TEXT':
    case 'ATTDEF':
      return textBox(e);
    case 'ATTRIB':
      return n(a.flags) & 1 ? null : textBox(e);
    case 'RAY':
    case 'XLINE':
      return null;
    case 'SPLINE':
      if (splineOverLimits(e)) return pointsBox(a.control_points) ?? pointsBox(a.fit_points);
      break;
    default:
      break;
  }
  if (e.type === 'INSERT' && doc) return memo ? memo.insertBox(e, doc) : insertBox(e, doc, new Map(), new Map(), 0, new Map());
  const g = entityGeometry(e, doc);
  const b = emptyBox();
  let bounded = true;
  for (const p of g.prims) if (!addPrimToBox(b, p)) bounded = false;
  if (!bounded && e.type !== 'INSERT') return null;
  return toBBox(b);
}

function splineOverLimits(e: Entity): boolean {
  try {
    checkSpline(e);
    return false;
  } catch {
    return true;
  }
}

/** A spline lies in the hull of its control points: their box bounds it without evaluating it. */
function pointsBox(pts: unknown): BBox | null {
  if (!Array.isArray(pts)) return null;
  const b = emptyBox();
  for (const q of pts as number[][]) addToBox(b, n(q[0]), n(q[1]), n(q[2]));
  return toBBox(b);
}

/** Below this many expanded entities an INSERT's box is exact (its geometry, transformed). */
const EXACT_INSERT_BOX = 20_000;

/**
 * The box of an INSERT without expanding large ones: past EXACT_INSERT_BOX entities it is the box
 * of its block's box (each block boxed once, nested blocks through their own boxes) carried
 * through the corner cells' matrices: never smaller than the exact box, looser only when rotated.
 * So an array of 1e12 cells or six levels of ten inserts is boxed in microseconds.
 */
function insertBox(e: Entity, doc: DocumentApi, counts: ExpansionMemo, boxes: Map<string, BoxArray | null>, depth = 0, contents?: BlockContents): BBox | null {
  // inside a large reference its nested ones are boxed through their blocks too, else each
  // of them would be expanded again for every block that holds it
  const count = referenceExpansion(e, doc, counts, depth);
  if (depth === 0 && count <= EXACT_INSERT_BOX) {
    if (count > GEOMETRY_LIMITS.maxExpanded) throw expansionError(e, count);
    return exactInsertBox(e, doc, contents ?? new Map());
  }
  const b = emptyBox();
  const inner = blockBox(String(e.attrs.name ?? ''), doc, counts, boxes, depth);
  if (inner) for (const m of cornerCellMatrices(e, doc)) addTransformedBox(b, inner, m);
  for (const att of e.children ?? []) {
    if (att.type !== 'ATTRIB') continue;
    const ab = boundingBox(att, doc);
    if (ab) {
      addToBox(b, ab.min[0], ab.min[1], ab.min[2]);
      addToBox(b, ab.max[0], ab.max[1], ab.max[2]);
    }
  }
  return toBBox(b);
}

/** The box of a block's content in its own coordinates (null: nothing bounded); each block once. */
function blockBox(name: string, doc: DocumentApi, counts: ExpansionMemo, boxes: Map<string, BoxArray | null>, depth: number): BoxArray | null {
  const key = name.toUpperCase();
  if (boxes.has(key)) return boxes.get(key)!;
  const blk = doc.getBlock(name);
  // too deep or a cycle: what cannot be expanded adds nothing (the renderer skips it too)
  if (!blk || depth >= GEOMETRY_LIMITS.maxDepth || blockExpansion(doc, name, counts, depth) === Infinity) {
    boxes.set(key, null);
    return null;
  }
  boxes.set(key, null);
  const b = emptyBox();
  for (const child of blk.entities) {
    if (child.type === 'ATTDEF') continue;
    const cb = child.type === 'INSERT' ? insertBox(child, doc, counts, boxes, depth + 1) : boundingBox(child, doc);
    if (!cb) continue;
    addToBox(b, cb.min[0], cb.min[1], cb.min[2]);
    addToBox(b, cb.max[0], cb.max[1], cb.max[2]);
  }
  const out = b[0]! <= b[3]! ? b : null;
  boxes.set(key, out);
  return out;
}

/** Block name (upper case) -> its content's primitives in block coordinates, as an INSERT at the top level expands it. */
type BlockContents = Map<string, Primitive[] | null>;

/** A block's content as `entityGeometry` of a top-level INSERT sees it (ATTDEFs and rays left out); null for no such block. */
function blockContent(name: string, doc: DocumentApi, contents: BlockContents): Primitive[] | null {
  const key = name.toUpperCase();
  const known = contents.get(key);
  if (known !== undefined) return known;
  const blk = doc.getBlock(name);
  let prims: Primitive[] | null = null;
  if (blk) {
    prims = [];
    const open = new Set([blk.name.toUpperCase()]);
    for (const child of blk.entities) {
      if (child.type === 'ATTDEF') continue;
      for (const p of entityGeometry(child, doc, 1, open).prims) if (p.k !== 'ray') prims.push(p);
    }
  }
  contents.set(key, prims);
  return prims;
}

/**
 * The exact box of a small INSERT: its block's primitives (made once per block and box
 * computation) carried through each cell's matrix straight into the box, without the transformed
 * copies `entityGeometry` would make for every reference.
 */
function exactInsertBox(e: Entity, doc: DocumentApi, contents: BlockContents): BBox | null {
  const b = emptyBox();
  const prims = blockContent(String(e.attrs.name ?? ''), doc, contents);
  if (prims && prims.length > 0) for (const m of insertMatrices(e, doc)) for (const p of prims) addTransformedPrimToBox(b, p, m);
  for (const att of e.children ?? []) {
    if (att.type !== 'ATTRIB') continue;
    for (const p of entityGeometry(att, doc, 1).prims) addPrimToBox(b, p);
  }
  return toBBox(b);
}

const tc: number[] = [0, 0, 0];
const tu: number[] = [0, 0, 0];
const tv: number[] = [0, 0, 0];

function addTransformedPointToBox(b: BoxArray, q: readonly number[], m: Float64Array): void {
  const x = q[0]!, y = q[1]!, z = q[2] ?? 0;
  addToBox(b, m[0]! * x + m[4]! * y + m[8]! * z + m[12]!, m[1]! * x + m[5]! * y + m[9]! * z + m[13]!, m[2]! * x + m[6]! * y + m[10]! * z + m[14]!);
}

function transformInto(out: number[], q: readonly number[], m: Float64Array, w: number): void {
  const x = q[0]!, y = q[1]!, z = q[2] ?? 0;
  out[0] = m[0]! * x + m[4]! * y + m[8]! * z + m[12]! * w;
  out[1] = m[1]! * x + m[5]! * y + m[9]! * z + m[13]! * w;
  out[2] = m[2]! * x + m[6]! * y + m[10]! * z + m[14]! * w;
}

/** `addPrimToBox` of the primitive transformed by `m`, without making the transformed primitive (splines excepted). */
function addTransformedPrimToBox(b: BoxArray, p: Primitive, matrix: Matrix44): void {
  const m = matrix.m;
  switch (p.k) {
    case 'line':
      addTransformedPointToBox(b, p.a, m);
      addTransformedPointToBox(b, p.b, m);
      return;
    case 'point':
      addTransformedPointToBox(b, p.p, m);
      return;
    case 'poly':
      for (const q of p.pts) addTransformedPointToBox(b, q, m);
      return;
    case 'arc':
      transformInto(tc, p.c, m, 1);
      transformInto(tu, p.u, m, 0);
      transformInto(tv, p.v, m, 0);
      addEllipseArcToBox(b, tc, tu, tv, p.t0, p.t0 + p.sweep, p.sweep >= 2 * Math.PI - 1e-12);
      return;
    default:
      for (const q of transformGeometry({ prims: [p] }, matrix).prims) addPrimToBox(b, q);
  }
}

function addTransformedBox(b: BoxArray, box: BoxArray, m: Matrix44): void {
  for (let i = 0; i < 8; i++) {
    const p = m.transformPoint([i & 1 ? box[3]! : box[0]!, i & 2 ? box[4]! : box[1]!, i & 4 ? box[5]! : box[2]!]);
    addToBox(b, p[0], p[1], p[2]);
  }
}

/**
 * What the boxes of many entities share while the drawing does not change (extents, an index
 * built on open): each block's content is made once, not once per reference, and so are the
 * expansion counts and block boxes of the references of one block (counted from the top as for
 * each of them). Not to be kept across a change of the drawing.
 */
export class BoxMemo {
  private readonly contents: BlockContents = new Map();
  private readonly perBlock = new Map<string, { counts: ExpansionMemo; boxes: Map<string, BoxArray | null> }>();

  insertBox(e: Entity, doc: DocumentApi): BBox | null {
    const key = String(e.attrs.name ?? '').toUpperCase();
    let memo = this.perBlock.get(key);
    if (!memo) this.perBlock.set(key, (memo = { counts: new Map(), boxes: new Map() }));
    return insertBox(e, doc, memo.counts, memo.boxes, 0, this.contents);
  }
}

/** Grows `acc` by a box. */
export function addBBoxToBox(acc: BoxArray, b: BBox): void {
  addToBox(acc, b.min[0], b.min[1], b.min[2]);
  addToBox(acc, b.max[0], b.max[1], b.max[2]);
}

/** Grows `acc` by the boxes of entities (unbounded and empty ones skipped). */
export function addExtents(acc: BoxArray, entities: Iterable<Entity>, doc?: DocumentApi): void {
  const memo = new BoxMemo();
  for (const entity of entities) {
    // an entity kept as its bytes is decoded for this alone, not kept decoded (the simple types
    // read only what their box is made of)
    const e = entity instanceof LazyEntity ? (entity.peekGeometry() ?? entity.peek()) : entity;
    const b = boundingBox(e, doc, memo);
    if (b) addBBoxToBox(acc, b);
  }
}

/** The union of the boxes of entities (unbounded and empty ones skipped); null when none. */
export function extents(entities: Iterable<Entity>, doc?: DocumentApi): BBox | null {
  const acc = emptyBox();
  addExtents(acc, entities, doc);
  return toBBox(acc);
}

export { addToBox };
