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
import { arcAttrs, ocsSign, polylinePoints, splineAttrs } from './entity-path.js';
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
const PLANE = ['extrusion', 'elevation', 'const_width'];

/** Type-specific bookkeeping a geometry change makes stale. */
const STALE: Record<string, string[]> = {
  LWPOLYLINE: ['count', 'vertex_ids', 'vertex_tags', 'vertex_z'],
  SPLINE: ['n_knots', 'n_control_points', 'n_fit_points', 'fit_points', 'start_tangent', 'end_tangent', 'weights'],
};

function inherited(src: Entity, type: string): Record<string, unknown> {
  const a: Record<string, unknown> = {};
  for (const k of INHERITED) if (src.attrs[k] !== undefined) a[k] = structuredClone(src.attrs[k]);
  const planar = ['ARC', 'CIRCLE', 'LWPOLYLINE', 'ELLIPSE'];
  if (planar.includes(type) && planar.includes(src.type)) {
    for (const k of PLANE) if (src.attrs[k] !== undefined && (k !== 'const_width' || type === 'LWPOLYLINE')) a[k] = structuredClone(src.attrs[k]);
  }
  return a;
}

/** The z of the entity's plane (lines: the start's z; OCS entities: their elevation). */
function elevationOf(src: Entity): number {
  const a = src.attrs;
  if (src.type === 'LINE') return Number((a.start as number[])[2] ?? 0);
  if (src.type === 'LWPOLYLINE') return 0; // kept in `elevation`
  const c = a.center as number[] | undefined;
  return Number(c?.[2] ?? 0);
}

/** Type and geometry attributes of a piece of a source entity. */
export function geometryOf(src: Entity, segs: Seg[], closed: boolean): { type: string; attrs: Record<string, unknown> } {
  const z = elevationOf(src);
  const only = segs.length === 1 ? segs[0]! : null;
  if (src.type === 'LWPOLYLINE' || (segs.length > 1 && segs.every((s) => s.k === 'line' || s.k === 'arc'))) {
    const s = src.type === 'LWPOLYLINE' || src.type === 'ARC' || src.type === 'CIRCLE' ? ocsSign(src) : 1;
    return { type: 'LWPOLYLINE', attrs: { points: polylinePoints(segs, s, closed), flags: closed ? 1 : 0 } };
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
  const created = addLike(tx, edits, e, g.type, g.attrs);
  erase(tx, edits, e);
  return created;
}

/** A new entity of `type` beside `src` (same block), taking its appearance. */
export function addLike(tx: Transaction, edits: Edits, src: Entity, type: string, attrs: Record<string, unknown>): Entity {
  const block = blockOfEntity(tx.doc, src);
  if (!block) throw new OpError('entity_absent', `entity ${src.handle} is not in a block`, { handle: src.handle });
  const e = tx.addEntity(entity(type, { ...inherited(src, type), ...attrs }), block.name);
  edits.create(e.handle);
  return e;
}

/** A new entity of the source's kind holding a piece of it. */
export function addPiece(tx: Transaction, edits: Edits, src: Entity, segs: Seg[], closed: boolean): Entity {
  const g = geometryOf(src, segs, closed);
  return addLike(tx, edits, src, g.type, g.attrs);
}

export function erase(tx: Transaction, edits: Edits, e: Entity): void {
  tx.removeEntity(e.handle);
  edits.erase(e.handle);
}

/** New OCS vertices of an LWPOLYLINE, in place. */
export function setPolylinePoints(tx: Transaction, edits: Edits, e: Entity, points: number[][]): void {
  tx.touch(e);
  for (const k of STALE.LWPOLYLINE!) delete e.attrs[k];
  e.attrs.points = points;
  edits.modify(e.handle);
}
