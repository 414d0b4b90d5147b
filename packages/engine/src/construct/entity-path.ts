// Entities as paths of the construct kernel and back. Everything is worked in the plane of the
// drawing (WCS XY); an entity with an OCS (arc, circle, polyline, ellipse) must lie in a plane
// parallel to it, with extrusion +Z or -Z: -Z (a mirrored entity) flips x, so its angles and
// bulges are converted both ways and the written entity keeps its own OCS.
import { OpError } from '../protocol.js';
import type { Entity, Primitive } from '../dxf.js';
import { type P, TAU, add, dist, mul, norm, perp, sub, unit } from './vec2.js';
import { type Path, type Seg, end, splineOf, start } from './curve.js';
import type { Nurbs } from './nurbs.js';

const num = (v: unknown, d = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);
const DEG = Math.PI / 180;

/** +1 for extrusion +Z (or none), -1 for -Z; anything else is a plane the kernel does not work in. */
export function ocsSign(e: Entity): 1 | -1 {
  const x = e.attrs.extrusion as number[] | undefined;
  if (!Array.isArray(x)) return 1;
  const [a, b, c] = [num(x[0]), num(x[1]), num(x[2], 1)];
  const l = Math.hypot(a, b, c);
  if (l > 0 && Math.abs(a) / l < 1e-12 && Math.abs(b) / l < 1e-12) return c > 0 ? 1 : -1;
  throw new OpError('unsupported_plane', `${e.type} ${e.handle} lies in a plane that is not parallel to the drawing plane (extrusion ${x.join(', ')})`, { handle: e.handle });
}

const ocsToPlane = (s: 1 | -1, p: number[]): P => [s * num(p[0]), num(p[1])];
/** An OCS angle (radians) as an angle in the drawing plane. */
const angleToPlane = (s: 1 | -1, a: number): number => (s === 1 ? a : Math.PI - a);

/** An arc of a polyline bulge from p1 to p2 (bulge in the plane's sense). */
export function bulgeSeg(p1: P, p2: P, bulge: number): Seg {
  if (Math.abs(bulge) < 1e-15) return { k: 'line', a: p1, b: p2 };
  const sw = 4 * Math.atan(bulge);
  const chord = dist(p1, p2);
  const r = chord / (2 * Math.sin(Math.abs(sw) / 2));
  const h = r * Math.cos(Math.abs(sw) / 2) * Math.sign(sw);
  const mid = mul(add(p1, p2), 0.5);
  const c = add(mid, mul(perp(unit(sub(p2, p1))), h));
  return { k: 'arc', c, r, a0: Math.atan2(p1[1] - c[1], p1[0] - c[0]), sw };
}

export const TRIMMABLE = ['LINE', 'ARC', 'CIRCLE', 'ELLIPSE', 'LWPOLYLINE', 'POLYLINE', 'SPLINE'];

/** LWPOLYLINE, or a 2D POLYLINE (VERTEX records): the types whose vertices carry bulges. */
export const isPolyline = (e: Entity): boolean => e.type === 'LWPOLYLINE' || e.type === 'POLYLINE';

/**
 * The vertices of an LWPOLYLINE or 2D POLYLINE as [x, y, start_width, end_width, bulge] in its
 * OCS, and whether it is closed. 3D polylines and meshes are refused, as AutoCAD's 2D edits
 * refuse them; a curve- or spline-fit polyline gives the vertices it is drawn through (its
 * frame's control points, VERTEX flag 16, are not on the curve).
 */
export function polylineVertices(e: Entity, op: string): { pts: number[][]; closed: boolean } {
  const a = e.attrs;
  const flags = num(a.flags);
  if (e.type === 'LWPOLYLINE') {
    const pts = ((a.points as number[][] | undefined) ?? []).map((p) => [num(p[0]), num(p[1]), num(p[2]), num(p[3]), num(p[4])]);
    return { pts, closed: (flags & 1) !== 0 };
  }
  if (e.type !== 'POLYLINE') throw new OpError('wrong_type', `${op}: ${e.type} ${e.handle} is not a polyline`, { handle: e.handle, type: e.type });
  const kind = flags & 8 ? '3D POLYLINE' : flags & 16 ? 'polygon mesh (POLYLINE)' : flags & 64 ? 'polyface mesh (POLYLINE)' : null;
  if (kind) {
    throw new OpError('wrong_type', `${op}: ${e.handle} is a ${kind}; ${op} takes 2D polylines only (AutoCAD refuses it too)`, { handle: e.handle, type: kind });
  }
  const pts = (e.children ?? [])
    .filter((v) => v.type === 'VERTEX' && (num(v.attrs.flags) & 16) === 0)
    .map((v) => {
      const l = (v.attrs.location as number[] | undefined) ?? [];
      return [num(l[0]), num(l[1]), num(v.attrs.start_width), num(v.attrs.end_width), num(v.attrs.bulge)];
    });
  return { pts, closed: (flags & 1) !== 0 };
}

/** The entity as a path, or a wrong_type error naming the handle. */
export function entityPath(e: Entity, op: string, types: readonly string[] = TRIMMABLE): Path {
  if (!types.includes(e.type)) {
    throw new OpError('wrong_type', `${op}: ${e.type} ${e.handle} cannot be used (takes ${types.join(', ')})`, { handle: e.handle, type: e.type });
  }
  const a = e.attrs;
  switch (e.type) {
    case 'LINE':
      return { segs: [{ k: 'line', a: [num((a.start as number[])[0]), num((a.start as number[])[1])], b: [num((a.end as number[])[0]), num((a.end as number[])[1])] }], closed: false };
    case 'CIRCLE':
    case 'ARC': {
      const s = ocsSign(e);
      const c = ocsToPlane(s, a.center as number[]);
      const r = num(a.radius, 1);
      if (e.type === 'CIRCLE') return { segs: [{ k: 'arc', c, r, a0: angleToPlane(s, 0), sw: s * TAU }], closed: true };
      const sa = num(a.start_angle) * DEG, ea = num(a.end_angle, 360) * DEG;
      let sw = norm(ea - sa);
      if (sw < 1e-12) sw = TAU;
      return { segs: [{ k: 'arc', c, r, a0: angleToPlane(s, sa), sw: s * sw }], closed: false };
    }
    case 'ELLIPSE': {
      ocsSign(e);
      const ext = a.extrusion as number[] | undefined;
      const z = Array.isArray(ext) && num(ext[2], 1) < 0 ? -1 : 1;
      const m = a.major_axis as number[];
      const u: P = [num(m[0]), num(m[1])];
      const v = mul(perp(u), z * num(a.ratio, 1));
      const s0 = num(a.start_param), s1 = num(a.end_param, TAU);
      let sw = norm(s1 - s0);
      const full = Math.abs(s1 - s0) >= TAU - 1e-10 || sw < 1e-12;
      if (full) sw = TAU;
      const c = a.center as number[];
      return { segs: [{ k: 'ell', c: [num(c[0]), num(c[1])], u, v, t0: full ? 0 : s0, sw }], closed: full };
    }
    case 'LWPOLYLINE':
    case 'POLYLINE': {
      const { pts, closed } = polylineVertices(e, op);
      const s = ocsSign(e);
      const segs: Seg[] = [];
      const n = pts.length;
      for (let i = 0; i < (closed ? n : n - 1); i++) {
        const p = pts[i]!, q = pts[(i + 1) % n]!;
        const p1 = ocsToPlane(s, p), p2 = ocsToPlane(s, q);
        if (dist(p1, p2) === 0) continue; // zero-length segments carry no geometry
        segs.push(bulgeSeg(p1, p2, s * num(p[4])));
      }
      if (!segs.length) throw new OpError('wrong_type', `${e.type} ${e.handle} has no length`, { handle: e.handle });
      return { segs, closed };
    }
    case 'SPLINE': {
      const cps = a.control_points as number[][] | undefined;
      if (!cps?.length) throw new OpError('wrong_type', `SPLINE ${e.handle} has fit points only (no control points)`, { handle: e.handle });
      const degree = num(a.degree, 3);
      const knots = (a.knots as number[] | undefined) ?? [];
      const w = a.weights as number[] | undefined;
      const n: Nurbs = { degree, ctrl: cps.map((p) => [num(p[0]), num(p[1])]), knots, weights: w && w.length === cps.length ? w : cps.map(() => 1) };
      if (knots.length !== cps.length + degree + 1) throw new OpError('wrong_type', `SPLINE ${e.handle} has an inconsistent knot vector`, { handle: e.handle });
      const closed = dist(n.ctrl[0] as P, n.ctrl[n.ctrl.length - 1] as P) < 1e-9 && isClampedKnots(knots, degree);
      return { segs: [{ k: 'spl', n, u0: knots[degree]!, u1: knots[knots.length - degree - 1]! }], closed };
    }
  }
  throw new OpError('wrong_type', `${op}: ${e.type} ${e.handle} cannot be used`, { handle: e.handle });
}

function isClampedKnots(k: number[], p: number): boolean {
  for (let i = 1; i <= p; i++) if (k[i] !== k[0] || k[k.length - 1 - i] !== k[k.length - 1]) return false;
  return true;
}

/** WCS primitives (as the dxf package gives them) as segments in the drawing plane. */
export function primitiveSegs(p: Primitive, reach: number): Seg[] {
  switch (p.k) {
    case 'line': return [{ k: 'line', a: [p.a[0], p.a[1]], b: [p.b[0], p.b[1]] }];
    case 'arc': {
      const c: P = [p.c[0], p.c[1]];
      const u: P = [p.u[0], p.u[1]], v: P = [p.v[0], p.v[1]];
      const ru = Math.hypot(u[0], u[1]), rv = Math.hypot(v[0], v[1]);
      if (ru === 0 || rv === 0) return [];
      const pu = perp(u);
      if (Math.abs(ru - rv) <= 1e-12 * ru) {
        const phi = Math.atan2(u[1], u[0]);
        if (dist(v, pu) <= 1e-9 * ru) return [{ k: 'arc', c, r: ru, a0: phi + p.t0, sw: p.sweep }];
        if (dist(v, mul(pu, -1)) <= 1e-9 * ru) return [{ k: 'arc', c, r: ru, a0: phi - p.t0, sw: -p.sweep }];
      }
      return [{ k: 'ell', c, u, v, t0: p.t0, sw: p.sweep }];
    }
    case 'spline': {
      const cps = p.data.control_points;
      const degree = Math.min(p.data.degree, cps.length - 1);
      let knots = p.data.knots ?? [];
      if (knots.length !== cps.length + degree + 1) {
        knots = [];
        for (let i = 0; i <= degree; i++) knots.push(0);
        for (let i = 1; i < cps.length - degree; i++) knots.push(i);
        for (let i = 0; i <= degree; i++) knots.push(Math.max(1, cps.length - degree));
      }
      const w = p.data.weights && p.data.weights.length === cps.length ? p.data.weights : cps.map(() => 1);
      const n: Nurbs = { degree, ctrl: cps.map((q) => [q[0]!, q[1]!]), knots, weights: w };
      return [{ k: 'spl', n, u0: knots[degree]!, u1: knots[knots.length - degree - 1]! }];
    }
    case 'poly': {
      const out: Seg[] = [];
      const n = p.pts.length;
      for (let i = 0; i < (p.closed ? n : n - 1); i++) {
        const a = p.pts[i]!, b = p.pts[(i + 1) % n]!;
        if (a[0] !== b[0] || a[1] !== b[1]) out.push({ k: 'line', a: [a[0], a[1]], b: [b[0], b[1]] });
      }
      return out;
    }
    case 'ray': {
      const d = unit([p.d[0], p.d[1]]);
      const a: P = [p.a[0], p.a[1]];
      return [{ k: 'line', a: p.both ? add(a, mul(d, -reach)) : a, b: add(a, mul(d, reach)) }];
    }
    case 'point': return [];
  }
}

// ---- writing ---------------------------------------------------------------------------------

const planeToOcs = (s: 1 | -1, p: P, z: number): number[] => [s * p[0], p[1], z];
const angleToOcs = angleToPlane; // the flip is its own inverse

/** Degrees in [0, 360) of an angle in radians. */
const deg = (a: number): number => {
  const d = (norm(a) * 180) / Math.PI;
  return d >= 360 - 1e-12 ? 0 : d;
};

/** Geometry attributes of an ARC or CIRCLE for an arc segment, in the OCS of sign s. */
export function arcAttrs(seg: Extract<Seg, { k: 'arc' }>, s: 1 | -1, z: number): { type: 'ARC' | 'CIRCLE'; attrs: Record<string, unknown> } {
  const center = planeToOcs(s, seg.c, z);
  if (Math.abs(seg.sw) >= TAU - 1e-12) return { type: 'CIRCLE', attrs: { center, radius: seg.r } };
  // In the OCS the arc runs from a0' over sw' = s * sw; DXF arcs run counter-clockwise.
  const a0 = angleToOcs(s, seg.a0), sw = s * seg.sw;
  const [sa, ea] = sw > 0 ? [a0, a0 + sw] : [a0 + sw, a0];
  return { type: 'ARC', attrs: { center, radius: seg.r, start_angle: deg(sa), end_angle: deg(ea) } };
}

/** LWPOLYLINE points [x, y, start_width, end_width, bulge] of a chain of lines and arcs (OCS of sign s). */
export function polylinePoints(segs: Seg[], s: 1 | -1, closed: boolean): number[][] {
  const pts: number[][] = [];
  for (const g of segs) {
    if (g.k !== 'line' && g.k !== 'arc') throw new OpError('wrong_type', 'a polyline holds lines and arcs only');
    const a = start(g);
    const bulge = g.k === 'arc' ? Math.tan(g.sw / 4) * s : 0;
    pts.push([s * a[0], a[1], 0, 0, bulge]);
  }
  if (!closed && segs.length) {
    const b = end(segs[segs.length - 1]!);
    pts.push([s * b[0], b[1], 0, 0, 0]);
  }
  return pts;
}

/** SPLINE attributes of a spline segment (exact piece of its NURBS, in the segment's direction). */
export function splineAttrs(seg: Extract<Seg, { k: 'spl' }>): Record<string, unknown> {
  const { n, reversed } = splineOf(seg);
  let ctrl = n.ctrl, weights = n.weights, knots = n.knots;
  if (reversed) {
    ctrl = [...ctrl].reverse();
    weights = [...weights].reverse();
    const lo = knots[0]!, hi = knots[knots.length - 1]!;
    knots = [...knots].reverse().map((k) => lo + hi - k);
  }
  const rational = weights.some((w) => Math.abs(w - 1) > 1e-15);
  const out: Record<string, unknown> = {
    degree: n.degree, control_points: ctrl.map((p) => [p[0], p[1], 0]), knots, flags: 8 | (rational ? 4 : 0),
  };
  if (rational) out.weights = weights;
  return out;
}
