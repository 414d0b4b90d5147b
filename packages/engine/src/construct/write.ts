// Writing kernel paths back as entities: in place when the entity keeps its type, as a new entity
// (copying layer, colour, linetype, lineweight ...) otherwise, and the edit record of what changed.
import { OpError } from '../protocol.js';
import type { Entity } from '../dxf.js';
import type { Transaction } from '../store/document-store.js';
import { blockOfEntity } from '../model.js';
import { entity } from '../entities/create.js';
import type { EditResult } from '../ops/edit-result.js';
import { TAU, norm } from './vec2.js';
import { type Seg, splineOf } from './curve.js';
import { arcAttrs, isPolyline, ocsSign, polylinePoints, splineAttrs } from './entity-path.js';
import { nurbsConcat } from './nurbs.js';

/** What an op did, by handle; a handle created in the op stays `created` when it is changed again. */
export class Edits {
  private created = new Set<string>();
  private modified = new Set<string>();
  private erased = new Set<string>();
  create(h: string): void {
    this.created.add(h);
  }
  modify(h: string): void {
    if (!this.created.has(h)) this.modified.add(h);
  }
  erase(h: string): void {
    if (this.created.delete(h)) return;
    this.modified.delete(h);
    this.erased.add(h);
  }
  result(): EditResult {
    return { created: [...this.created], modified: [...this.modified], erased: [...this.erased] };
  }
}

/** Attributes a new entity takes from its source: appearance and the plane it lies in. */
const INHERITED = [
  'layer', 'color', 'true_color', 'color_name', 'linetype', 'lineweight', 'ltscale', 'transparency', 'invisible',
  'plotstyle_handle', 'material_handle', 'shadow_mode', 'thickness', 'paperspace',
];
const PLANE = ['extrusion'];
/** Plane and width attributes whose form differs between LWPOLYLINE and POLYLINE: copied within one type. */
const SAME_TYPE: Record<string, string[]> = {
  LWPOLYLINE: ['elevation', 'const_width'],
  POLYLINE: ['default_start_width', 'default_end_width'],
};

/** Type-specific bookkeeping a geometry change makes stale. */
const STALE: Record<string, string[]> = {
  LWPOLYLINE: ['count', 'vertex_ids', 'vertex_tags', 'vertex_z'],
  SPLINE: ['n_knots', 'n_control_points', 'n_fit_points', 'fit_points', 'start_tangent', 'end_tangent', 'weights'],
};

function inherited(src: Entity, type: string): Record<string, unknown> {
  const a: Record<string, unknown> = {};
  for (const k of INHERITED) if (src.attrs[k] !== undefined) a[k] = structuredClone(src.attrs[k]);
  const planar = ['ARC', 'CIRCLE', 'LWPOLYLINE', 'POLYLINE', 'ELLIPSE'];
  if (planar.includes(type) && planar.includes(src.type)) {
    for (const k of PLANE) if (src.attrs[k] !== undefined) a[k] = structuredClone(src.attrs[k]);
  }
  if (type === src.type) for (const k of SAME_TYPE[type] ?? []) if (src.attrs[k] !== undefined) a[k] = structuredClone(src.attrs[k]);
  return a;
}

/** The z of the entity's plane (lines: the start's z; OCS entities: their elevation). */
function elevationOf(src: Entity): number {
  const a = src.attrs;
  if (src.type === 'LINE') return Number((a.start as number[])[2] ?? 0);
  if (src.type === 'LWPOLYLINE') return Number(a.elevation ?? 0);
  if (src.type === 'POLYLINE') return Number((a.elevation as number[] | undefined)?.[2] ?? 0);
  const c = a.center as number[] | undefined;
  return Number(c?.[2] ?? 0);
}

export interface Geometry {
  type: string;
  attrs: Record<string, unknown>;
  /** The VERTEX records of a POLYLINE. */
  children?: Entity[];
}

/** VERTEX records of a 2D POLYLINE at elevation z from OCS points [x, y, sw, ew, bulge]. */
export function polylineChildren(pts: number[][], z: number, layer: unknown): Entity[] {
  return pts.map((p) => {
    const a: Record<string, unknown> = { layer: layer ?? '0', location: [p[0], p[1], z], flags: 0 };
    if (p[2]) a.start_width = p[2];
    if (p[3]) a.end_width = p[3];
    if (p[4]) a.bulge = p[4];
    return entity('VERTEX', a);
  });
}

/** POLYLINE geometry: a 2D polyline keeps its flags but closed (1) and the linetype flag (128); fit flags go, the vertices are what was drawn. */
function polylineGeometry(src: Entity, pts: number[][], closed: boolean): Geometry {
  const z = elevationOf(src);
  const flags = (closed ? 1 : 0) | (Number(src.attrs.flags ?? 0) & 128);
  return { type: 'POLYLINE', attrs: { vertices_follow: 1, elevation: [0, 0, z], flags }, children: polylineChildren(pts, z, src.attrs.layer) };
}

/** Type and geometry attributes of a piece of a source entity. */
export function geometryOf(src: Entity, segs: Seg[], closed: boolean): Geometry {
  const z = elevationOf(src);
  const only = segs.length === 1 ? segs[0]! : null;
  if (isPolyline(src) || (segs.length > 1 && segs.every((s) => s.k === 'line' || s.k === 'arc'))) {
    const s = isPolyline(src) || src.type === 'ARC' || src.type === 'CIRCLE' ? ocsSign(src) : 1;
    const pts = polylinePoints(segs, s, closed);
    if (src.type === 'POLYLINE') return polylineGeometry(src, pts, closed);
    return { type: 'LWPOLYLINE', attrs: { points: pts, flags: closed ? 1 : 0 } };
  }
  if (only?.k === 'line') {
    const a = only.a, b = only.b;
    return { type: 'LINE', attrs: { start: [a[0], a[1], z], end: [b[0], b[1], z] } };
  }
  if (only?.k === 'arc') {
    const s = src.type === 'ARC' || src.type === 'CIRCLE' ? ocsSign(src) : 1;
    const r = arcAttrs(only, s, z);
    return { type: r.type, attrs: r.attrs };
  }
  if (only?.k === 'ell') {
    const [s0, sw] = only.sw >= 0 ? [only.t0, only.sw] : [only.t0 + only.sw, -only.sw];
    const full = sw >= TAU - 1e-12;
    const major = [only.u[0], only.u[1], 0];
    const ratio = Math.hypot(only.v[0], only.v[1]) / Math.hypot(only.u[0], only.u[1]);
    const z2 = only.u[0] * only.v[1] - only.u[1] * only.v[0] < 0 ? -1 : 1;
    const attrs: Record<string, unknown> = {
      center: [only.c[0], only.c[1], z], major_axis: major, ratio,
      start_param: full ? 0 : norm(s0), end_param: full ? TAU : norm(s0) + sw,
    };
    if (z2 < 0) attrs.extrusion = [0, 0, -1];
    return { type: 'ELLIPSE', attrs };
  }
  if (segs.every((s) => s.k === 'spl')) {
    let n = splineOf(segs[0] as Extract<Seg, { k: 'spl' }>);
    let attrs = splineAttrs(segs[0] as Extract<Seg, { k: 'spl' }>);
    if (segs.length > 1) {
      // Pieces of one closed spline around its seam: joined into one spline (C0 at the seam).
      let whole = n.reversed ? null : n.n;
      for (const g of segs.slice(1)) {
        const m = splineOf(g as Extract<Seg, { k: 'spl' }>);
        if (!whole || m.reversed || m.n.degree !== whole.degree) throw new OpError('wrong_type', 'spline pieces of different degrees cannot be joined');
        whole = nurbsConcat(whole, m.n);
      }
      n = { n: whole!, reversed: false };
      attrs = splineAttrs({ k: 'spl', n: whole!, u0: whole!.knots[0]!, u1: whole!.knots[whole!.knots.length - 1]! });
    }
    return { type: 'SPLINE', attrs };
  }
  throw new OpError('wrong_type', `cannot write a ${segs.map((s) => s.k).join('+')} piece of ${src.type} ${src.handle}`, { handle: src.handle });
}

/** Puts new geometry into `e`: in place when its type stays, else a new entity replaces it. */
export function rewrite(tx: Transaction, edits: Edits, e: Entity, segs: Seg[], closed: boolean): Entity {
  const g = geometryOf(e, segs, closed);
  if (g.type === 'POLYLINE' && e.type === 'POLYLINE') return replaceVertices(tx, edits, e, g);
  if (g.type === e.type) {
    tx.touch(e);
    for (const k of STALE[e.type] ?? []) delete e.attrs[k];
    if (e.type === 'ARC' || e.type === 'CIRCLE') {
      delete e.attrs.start_angle;
      delete e.attrs.end_angle;
    }
    Object.assign(e.attrs, g.attrs);
    edits.modify(e.handle);
    return e;
  }
  const created = addLike(tx, edits, e, g.type, g.attrs, g.children);
  erase(tx, edits, e);
  return created;
}

/**
 * New vertices for a POLYLINE under its own handle: the record is taken out and a copy with the
 * new VERTEX records put back, so the undo record holds both whole (the vertices have handles
 * of their own, which an in-place change would leave stale in the document's index).
 */
function replaceVertices(tx: Transaction, edits: Edits, e: Entity, g: Geometry): Entity {
  const block = blockOfEntity(tx.doc, e);
  if (!block) throw new OpError('entity_absent', `entity ${e.handle} is not in a block`, { handle: e.handle });
  // A deep copy: the removed record stays in the undo step as it was. The document gives the
  // copy a SEQEND of its own.
  const { children: _vertices, seqend: _seqend, ...rest } = e;
  const copy: Entity = { ...structuredClone(rest), children: g.children ?? [] };
  Object.assign(copy.attrs, g.attrs);
  const at = block.entities.indexOf(e);
  tx.removeEntity(e.handle);
  tx.addEntity(copy, block.name, at >= 0 ? at : undefined); // keeps its place in the drawing order
  edits.modify(e.handle);
  return copy;
}

/** A new entity of `type` beside `src` (same block), taking its appearance. */
export function addLike(tx: Transaction, edits: Edits, src: Entity, type: string, attrs: Record<string, unknown>, children?: Entity[]): Entity {
  // A POLYLINE rewritten earlier in the op lives on as a copy under the same handle.
  const block = blockOfEntity(tx.doc, src) ?? blockOfEntity(tx.doc, (tx.doc.get(src.handle) as Entity | undefined) ?? src);
  if (!block) throw new OpError('entity_absent', `entity ${src.handle} is not in a block`, { handle: src.handle });
  const e = tx.addEntity(entity(type, { ...inherited(src, type), ...attrs }, children), block.name);
  edits.create(e.handle);
  return e;
}

/** A new entity of the source's kind holding a piece of it. */
export function addPiece(tx: Transaction, edits: Edits, src: Entity, segs: Seg[], closed: boolean): Entity {
  const g = geometryOf(src, segs, closed);
  return addLike(tx, edits, src, g.type, g.attrs, g.children);
}

export function erase(tx: Transaction, edits: Edits, e: Entity): void {
  tx.removeEntity(e.handle);
  edits.erase(e.handle);
}

/** New OCS vertices [x, y, sw, ew, bulge] of an LWPOLYLINE (in place) or a 2D POLYLINE. */
export function setPolylinePoints(tx: Transaction, edits: Edits, e: Entity, points: number[][]): void {
  if (e.type === 'POLYLINE') {
    replaceVertices(tx, edits, e, { type: 'POLYLINE', attrs: {}, children: polylineChildren(points, elevationOf(e), e.attrs.layer) });
    return;
  }
  tx.touch(e);
  for (const k of STALE.LWPOLYLINE!) delete e.attrs[k];
  e.attrs.points = points;
  edits.modify(e.handle);
}
