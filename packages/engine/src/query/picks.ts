// What a pointer means on a drawing: the entity under it (pick), the entities a window holds or
// crosses, and the object snap it is near. One implementation for the graphical editor, the
// command line and scripts: they call the `select` and `snap` ops, which call these.
import { z } from 'zod';
import { dxf, type Entity, type Primitive, type Vec3 } from '../dxf.js';
import { findEntry } from '../model.js';
import type { DocStore } from '../store/document-store.js';
import { safeBox } from '../store/document-store.js';
import { queryEntities } from './entities.js';

/** How a pointer finds entities: shared by `pick` (no side effect) and `select` (sets the selection). */
export const PICK_FIELDS = {
  aperture: z.number().min(0).optional().describe('pick radius in drawing units (default 0)'),
  window: z.tuple([z.number(), z.number(), z.number(), z.number()]).optional().describe('[x1, y1, x2, y2]: the entities wholly inside'),
  crossing: z.boolean().optional().describe('with window: also the entities the box crosses'),
  layout: z.string().optional().describe('layout of the pick or window (default model space)'),
};

/** Entities drawn on screen: not on layers that are off or frozen, not invisible. */
export function visibleEntity(store: DocStore, e: Entity): boolean {
  if (e.attrs.invisible === 1 || e.attrs.invisible === true) return false;
  const layer = findEntry(store.doc, 'LAYER', String(e.attrs.layer ?? '0'));
  if (!layer) return true;
  if (Number(layer.attrs.flags ?? 0) & 1) return false;
  return Number(layer.attrs.color ?? 7) >= 0 || e.type === 'INSERT';
}

/** The visible entity nearest to `p` within `aperture` (drawing units), or null. */
export function pickAt(store: DocStore, p: number[], aperture: number, layout?: string): Entity | null {
  const hits = queryEntities(store, { near: [p[0]!, p[1]!, Math.max(0, aperture)], limit: 50, layout, detail: 'summary' }).entities as { handle: string }[];
  for (const h of hits) {
    const e = store.doc.get(h.handle) as Entity | undefined;
    if (e && visibleEntity(store, e)) return e;
  }
  return null;
}

/**
 * Window selection (the entity lies wholly inside the box) or crossing selection (inside or any
 * part of it crosses the box), as CAD programs select left-to-right and right-to-left drags.
 */
export function entitiesInBox(store: DocStore, box: number[], crossing: boolean, layout?: string): Entity[] {
  const [x0, y0, x1, y1] = [Math.min(box[0]!, box[2]!), Math.min(box[1]!, box[3]!), Math.max(box[0]!, box[2]!), Math.max(box[1]!, box[3]!)];
  const res = queryEntities(store, { bounds: [x0, y0, x1, y1], bounds_mode: crossing ? 'intersects' : 'inside', limit: 1e9, layout, detail: 'summary' });
  const out: Entity[] = [];
  for (const j of res.entities as { handle: string }[]) {
    const e = store.doc.get(j.handle) as Entity | undefined;
    if (!e || !visibleEntity(store, e)) continue;
    if (!crossing || crosses(store, e, x0, y0, x1, y1)) out.push(e);
  }
  return out;
}

/** True when the entity's outline passes through the box or lies inside it (its box merely touching is not enough). */
function crosses(store: DocStore, e: Entity, x0: number, y0: number, x1: number, y1: number): boolean {
  const b = safeBox(e, store.doc);
  if (!b) return false;
  if (b.min[0]! >= x0 && b.max[0]! <= x1 && b.min[1]! >= y0 && b.max[1]! <= y1) return true;
  const tol = Math.max(b.max[0]! - b.min[0]!, b.max[1]! - b.min[1]!, 1e-9) / 2000;
  let polys: Vec3[][];
  try {
    polys = dxf.flatten(e, tol, store.doc);
  } catch {
    return true; // geometry we cannot follow: its box said it crosses
  }
  const inBox = (x: number, y: number) => x >= x0 && x <= x1 && y >= y0 && y <= y1;
  for (const pts of polys) {
    for (let i = 0; i < pts.length; i++) {
      const a = pts[i]!;
      if (inBox(a[0], a[1])) return true;
      const c = pts[i + 1];
      if (c && segmentHitsBox(a[0], a[1], c[0], c[1], x0, y0, x1, y1)) return true;
    }
  }
  return false;
}

/** Liang-Barsky: does the segment meet the box? */
function segmentHitsBox(ax: number, ay: number, bx: number, by: number, x0: number, y0: number, x1: number, y1: number): boolean {
  let t0 = 0, t1 = 1;
  const dx = bx - ax, dy = by - ay;
  const clip = (p: number, q: number): boolean => {
    if (p === 0) return q >= 0;
    const r = q / p;
    if (p < 0) { if (r > t1) return false; if (r > t0) t0 = r; }
    else { if (r < t0) return false; if (r < t1) t1 = r; }
    return true;
  };
  return clip(-dx, ax - x0) && clip(dx, x1 - ax) && clip(-dy, ay - y0) && clip(dy, y1 - ay) && t0 <= t1;
}

export const SNAP_MODES = ['endpoint', 'midpoint', 'center', 'quadrant', 'intersection', 'perpendicular', 'nearest', 'node', 'insertion', 'tangent', 'extension'] as const;
export type SnapMode = (typeof SNAP_MODES)[number];
/** The modes a snap asked without `modes` uses: all but tangent and extension (they are asked for). */
export const DEFAULT_SNAP_MODES: readonly SnapMode[] = SNAP_MODES.filter((m) => m !== 'tangent' && m !== 'extension');

export interface Snap {
  point: [number, number, number];
  kind: SnapMode;
  handle: string;
  /** The other entity of an intersection. */
  other?: string;
}

interface Candidate extends Snap {
  /** Ranking distance: how close the snap is to the cursor (centres rank by their curve). */
  rank: number;
}

const MAX_NEAR = 24;

/**
 * The object snap nearest to `p` within `aperture`: AutoCAD's running object snaps. Every mode
 * but `nearest` outranks `nearest`; among them the closest to the cursor wins. A centre counts
 * when its circle or arc passes under the cursor, as in AutoCAD.
 */
export function snapAt(store: DocStore, p: number[], aperture: number, modes: readonly SnapMode[], base?: number[], layout?: string, acquired: readonly string[] = []): Snap | null {
  const want = new Set(modes);
  const hits = queryEntities(store, { near: [p[0]!, p[1]!, aperture], limit: MAX_NEAR, layout, detail: 'summary' }).entities as { handle: string }[];
  const ents: Entity[] = [];
  // the entities whose points the cursor rested on (AutoCAD's acquired points): their extensions
  // reach the cursor from afar
  for (const h of [...hits.map((x) => x.handle), ...(want.has('extension') ? acquired.slice(0, 7) : [])]) {
    const e = store.doc.get(h) as Entity | undefined;
    if (e && visibleEntity(store, e) && !ents.includes(e)) ents.push(e);
  }
  const px = p[0]!, py = p[1]!;
  const best: { primary: Candidate | null; nearest: Candidate | null } = { primary: null, nearest: null };
  const offer = (c: Candidate): void => {
    if (c.kind === 'nearest') {
      if (!best.nearest || c.rank < best.nearest.rank) best.nearest = c;
    } else if (!best.primary || c.rank < best.primary.rank) best.primary = c;
  };
  const at = (q: readonly number[], kind: SnapMode, handle: string, rank?: number): void => {
    if (!want.has(kind)) return;
    const d = Math.hypot(q[0]! - px, q[1]! - py);
    if (rank === undefined && d > aperture) return;
    offer({ point: [q[0]!, q[1]!, q[2] ?? 0], kind, handle, rank: rank ?? d });
  };
  const geoms = new Map<Entity, Primitive[]>();
  for (const e of ents) {
    let prims: Primitive[];
    try {
      prims = dxf.geometry(e, store.doc);
    } catch {
      continue;
    }
    geoms.set(e, prims);
    if (e.type === 'INSERT' && Array.isArray(e.attrs.insert)) at(e.attrs.insert as number[], 'insertion', e.handle);
    if ((e.type === 'TEXT' || e.type === 'MTEXT' || e.type === 'ATTRIB') && Array.isArray(e.attrs.insert)) at(e.attrs.insert as number[], 'insertion', e.handle);
    for (const pr of prims) snapsOfPrim(pr, e.handle, px, py, aperture, want, base, at);
  }
  if (want.has('intersection') && ents.length > 1) {
    for (let i = 0; i < ents.length; i++) {
      for (let j = i + 1; j < ents.length; j++) {
        let pts: number[][];
        try {
          pts = dxf.intersections(ents[i]!, ents[j]!, store.doc);
        } catch {
          continue;
        }
        for (const q of pts) {
          const d = Math.hypot(q[0]! - px, q[1]! - py);
          if (d <= aperture) offer({ point: [q[0]!, q[1]!, q[2] ?? 0], kind: 'intersection', handle: ents[i]!.handle, other: ents[j]!.handle, rank: d });
        }
      }
    }
  }
  const win = best.primary ?? best.nearest;
  if (!win) return null;
  const { rank: _rank, ...snap } = win;
  return snap;
}

function snapsOfPrim(
  pr: Primitive, handle: string, px: number, py: number, aperture: number, want: Set<SnapMode>, base: number[] | undefined,
  at: (q: readonly number[], kind: SnapMode, handle: string, rank?: number) => void,
): void {
  const nearestOn = (q: readonly number[]) => at(q, 'nearest', handle);
  switch (pr.k) {
    case 'point':
      at(pr.p, 'node', handle);
      return;
    case 'line': {
      at(pr.a, 'endpoint', handle);
      at(pr.b, 'endpoint', handle);
      at(mid(pr.a, pr.b), 'midpoint', handle);
      if (want.has('nearest')) nearestOn(footOnSegment(pr.a, pr.b, px, py));
      if (base && want.has('perpendicular')) {
        const f = footOnLine(pr.a, pr.b, base[0]!, base[1]!);
        if (f) at(f, 'perpendicular', handle);
      }
      if (want.has('extension')) {
        // the line carried on past either end, where the cursor lies along it
        const f = footOnLine(pr.a, pr.b, px, py);
        if (f && !between(pr.a, pr.b, f)) at(f, 'extension', handle);
      }
      return;
    }
    case 'poly': {
      const n = pr.pts.length;
      for (let i = 0; i < n; i++) {
        const a = pr.pts[i]!;
        at(a, 'endpoint', handle);
        const b = pr.pts[i + 1] ?? (pr.closed ? pr.pts[0] : undefined);
        if (!b) continue;
        at(mid(a, b), 'midpoint', handle);
        if (want.has('nearest')) nearestOn(footOnSegment(a, b, px, py));
        if (base && want.has('perpendicular')) {
          const f = footOnLine(a, b, base[0]!, base[1]!);
          if (f && between(a, b, f)) at(f, 'perpendicular', handle);
        }
      }
      return;
    }
    case 'arc': {
      const full = pr.sweep >= Math.PI * 2 - 1e-9;
      const pt = (t: number): Vec3 => [
        pr.c[0] + pr.u[0] * Math.cos(t) + pr.v[0] * Math.sin(t),
        pr.c[1] + pr.u[1] * Math.cos(t) + pr.v[1] * Math.sin(t),
        pr.c[2] + pr.u[2] * Math.cos(t) + pr.v[2] * Math.sin(t),
      ];
      const onArc = (t: number): boolean => {
        if (full) return true;
        let d = (t - pr.t0) % (Math.PI * 2);
        if (d < 0) d += Math.PI * 2;
        return d <= pr.sweep + 1e-12;
      };
      if (!full) {
        at(pt(pr.t0), 'endpoint', handle);
        at(pt(pr.t0 + pr.sweep), 'endpoint', handle);
        at(pt(pr.t0 + pr.sweep / 2), 'midpoint', handle);
      }
      for (const t of [0, Math.PI / 2, Math.PI, (3 * Math.PI) / 2]) if (onArc(t)) at(pt(t), 'quadrant', handle);
      // the parameter of the cursor (exact for circles, close for ellipses)
      const t = paramNear(pr, px, py);
      const curve = onArc(t) ? pt(t) : null;
      if (curve) {
        const d = Math.hypot(curve[0] - px, curve[1] - py);
        if (d <= aperture) {
          // the centre of the curve under the cursor: ranked behind points right at the cursor
          at(pr.c, 'center', handle, Math.max(d, aperture / 2));
          if (want.has('nearest')) nearestOn(curve);
        }
      }
      if (base && want.has('perpendicular')) {
        const tb = paramNear(pr, base[0]!, base[1]!);
        for (const tt of [tb, tb + Math.PI]) if (onArc(tt)) at(pt(tt), 'perpendicular', handle);
      }
      const r = Math.hypot(pr.u[0], pr.u[1]);
      const circular = Math.abs(r - Math.hypot(pr.v[0], pr.v[1])) <= 1e-9 * r && Math.abs(pr.u[0] * pr.v[0] + pr.u[1] * pr.v[1]) <= 1e-9 * r * r;
      if (base && want.has('tangent') && circular) {
        // the two points where a line from the base touches the circle
        const bx = base[0]! - pr.c[0], by = base[1]! - pr.c[1];
        const d = Math.hypot(bx, by);
        if (d > r) {
          const a = Math.atan2(by, bx), off = Math.acos(r / d);
          for (const ang of [a + off, a - off]) {
            const q: Vec3 = [pr.c[0] + r * Math.cos(ang), pr.c[1] + r * Math.sin(ang), pr.c[2]];
            if (onArc(paramNear(pr, q[0], q[1]))) at(q, 'tangent', handle);
          }
        }
      }
      return;
    }
    case 'spline': {
      const pts = dxf.flattenPrim(pr, aperture / 20);
      if (pts.length) {
        at(pts[0]!, 'endpoint', handle);
        at(pts[pts.length - 1]!, 'endpoint', handle);
      }
      if (want.has('nearest')) for (let i = 1; i < pts.length; i++) nearestOn(footOnSegment(pts[i - 1]!, pts[i]!, px, py));
      return;
    }
    case 'ray': {
      at(pr.a, 'endpoint', handle);
      if (want.has('nearest')) {
        const t = (px - pr.a[0]) * pr.d[0] + (py - pr.a[1]) * pr.d[1];
        const dd = pr.d[0] ** 2 + pr.d[1] ** 2 || 1;
        const s = pr.both ? t / dd : Math.max(0, t / dd);
        nearestOn([pr.a[0] + pr.d[0] * s, pr.a[1] + pr.d[1] * s, pr.a[2] + pr.d[2] * s]);
      }
      return;
    }
  }
}

function mid(a: readonly number[], b: readonly number[]): Vec3 {
  return [(a[0]! + b[0]!) / 2, (a[1]! + b[1]!) / 2, ((a[2] ?? 0) + (b[2] ?? 0)) / 2];
}

function footOnLine(a: readonly number[], b: readonly number[], px: number, py: number): Vec3 | null {
  const dx = b[0]! - a[0]!, dy = b[1]! - a[1]!;
  const dd = dx * dx + dy * dy;
  if (dd === 0) return null;
  const t = ((px - a[0]!) * dx + (py - a[1]!) * dy) / dd;
  return [a[0]! + dx * t, a[1]! + dy * t, (a[2] ?? 0) + ((b[2] ?? 0) - (a[2] ?? 0)) * t];
}

function footOnSegment(a: readonly number[], b: readonly number[], px: number, py: number): Vec3 {
  const dx = b[0]! - a[0]!, dy = b[1]! - a[1]!;
  const dd = dx * dx + dy * dy;
  const t = dd === 0 ? 0 : Math.max(0, Math.min(1, ((px - a[0]!) * dx + (py - a[1]!) * dy) / dd));
  return [a[0]! + dx * t, a[1]! + dy * t, (a[2] ?? 0) + ((b[2] ?? 0) - (a[2] ?? 0)) * t];
}

function between(a: readonly number[], b: readonly number[], f: readonly number[]): boolean {
  const t = (f[0]! - a[0]!) * (b[0]! - a[0]!) + (f[1]! - a[1]!) * (b[1]! - a[1]!);
  const dd = (b[0]! - a[0]!) ** 2 + (b[1]! - a[1]!) ** 2;
  return t >= 0 && t <= dd;
}

/** The arc parameter whose point is nearest the cursor (projected onto the arc's plane frame). */
function paramNear(pr: Extract<Primitive, { k: 'arc' }>, px: number, py: number): number {
  const dx = px - pr.c[0], dy = py - pr.c[1];
  const uu = pr.u[0] ** 2 + pr.u[1] ** 2 || 1;
  const vv = pr.v[0] ** 2 + pr.v[1] ** 2 || 1;
  let t = Math.atan2((dx * pr.v[0] + dy * pr.v[1]) / vv, (dx * pr.u[0] + dy * pr.u[1]) / uu);
  // a few Newton steps make it exact for ellipses too
  for (let i = 0; i < 4; i++) {
    const c = Math.cos(t), s = Math.sin(t);
    const x = pr.c[0] + pr.u[0] * c + pr.v[0] * s - px;
    const y = pr.c[1] + pr.u[1] * c + pr.v[1] * s - py;
    const dxt = -pr.u[0] * s + pr.v[0] * c, dyt = -pr.u[1] * s + pr.v[1] * c;
    const f = x * dxt + y * dyt;
    const df = dxt * dxt + dyt * dyt + x * (-pr.u[0] * c - pr.v[0] * s) + y * (-pr.u[1] * c - pr.v[1] * s);
    if (Math.abs(df) < 1e-18) break;
    t -= f / df;
  }
  return t;
}
