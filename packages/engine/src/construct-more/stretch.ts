// STRETCH with a crossing window: an entity wholly inside moves; of one that crosses the window,
// the defining points inside move (line ends, polyline vertices with their bulges, spline control
// and fit points, arc ends keeping the arc's bulge), and an entity defined by one point (circle,
// text, insert, point, ellipse by its centre) moves when that point is inside. Others stay.
import { bulgeToArc, type Entity } from '../dxf.js';
import type { Transaction } from '../store/document-store.js';
import { transformInPlace } from '../ops/entities.js';

export interface Window { x0: number; y0: number; x1: number; y1: number }

export function windowOf(w: number[][]): Window {
  const [a, b] = [w[0]!, w[1]!];
  return { x0: Math.min(a[0]!, b[0]!), y0: Math.min(a[1]!, b[1]!), x1: Math.max(a[0]!, b[0]!), y1: Math.max(a[1]!, b[1]!) };
}

const inside = (w: Window, p: readonly number[] | undefined): boolean =>
  !!p && p[0]! >= w.x0 && p[0]! <= w.x1 && p[1]! >= w.y0 && p[1]! <= w.y1;

/** Stretches one entity; true when it changed. `whole` says its box lies inside the window. */
export function stretchEntity(tx: Transaction, e: Entity, w: Window, v: [number, number], whole: boolean): boolean {
  if (whole) {
    transformInPlace(tx, e, { kind: 'move', vector: v });
    return true;
  }
  const a = e.attrs;
  const moved = (p: number[]): number[] => [p[0]! + v[0], p[1]! + v[1], p[2] ?? 0];
  switch (e.type) {
    case 'LINE': {
      const s = inside(w, a.start as number[]), t = inside(w, a.end as number[]);
      if (!s && !t) return false;
      tx.touch(e);
      if (s) a.start = moved(a.start as number[]);
      if (t) a.end = moved(a.end as number[]);
      return true;
    }
    case 'LWPOLYLINE': {
      // points are OCS; stretching applies to drawings in the XY plane
      const pts = (a.points as number[][] | undefined) ?? [];
      if (!isPlain(a.extrusion) || !pts.some((p) => inside(w, p))) return false;
      tx.touch(e);
      a.points = pts.map((p) => (inside(w, p) ? [p[0]! + v[0], p[1]! + v[1], ...p.slice(2)] : p));
      return true;
    }
    case 'POLYLINE': {
      const vs = (e.children ?? []).filter((x) => x.type === 'VERTEX');
      if (!(Number(a.flags ?? 0) & 8) && !isPlain(a.extrusion)) return false;
      if (!vs.some((x) => inside(w, x.attrs.location as number[]))) return false;
      tx.touch(e);
      for (const x of vs) if (inside(w, x.attrs.location as number[])) x.attrs.location = moved(x.attrs.location as number[]);
      return true;
    }
    case 'SPLINE': {
      const cps = (a.control_points as number[][] | undefined) ?? [];
      const fps = (a.fit_points as number[][] | undefined) ?? [];
      if (!cps.some((p) => inside(w, p)) && !fps.some((p) => inside(w, p))) return false;
      tx.touch(e);
      if (cps.length) a.control_points = cps.map((p) => (inside(w, p) ? moved(p) : p));
      if (fps.length) a.fit_points = fps.map((p) => (inside(w, p) ? moved(p) : p));
      return true;
    }
    case 'ARC':
      return stretchArc(tx, e, w, v);
    case 'CIRCLE':
    case 'ELLIPSE':
      return moveIf(tx, e, inside(w, a.center as number[]), v);
    case 'POINT':
      return moveIf(tx, e, inside(w, a.location as number[]), v);
    case 'TEXT':
    case 'MTEXT':
    case 'INSERT':
      return moveIf(tx, e, inside(w, (e.type === 'TEXT' && Number(a.halign ?? 0) + Number(a.valign ?? 0) > 0 ? a.align_point : a.insert) as number[]), v);
    default:
      return false;
  }
}

function isPlain(ext: unknown): boolean {
  return !Array.isArray(ext) || (Math.abs(Number(ext[0])) < 1e-12 && Math.abs(Number(ext[1])) < 1e-12 && Number(ext[2]) > 0);
}

function moveIf(tx: Transaction, e: Entity, yes: boolean, v: [number, number]): boolean {
  if (yes) transformInPlace(tx, e, { kind: 'move', vector: v });
  return yes;
}

/** An arc whose end(s) move keeps its bulge (the ratio of its height to its chord), as AutoCAD does. */
function stretchArc(tx: Transaction, e: Entity, w: Window, v: [number, number]): boolean {
  const a = e.attrs;
  if (!isPlain(a.extrusion)) return false;
  const c = a.center as number[], r = Number(a.radius);
  const s0 = (Number(a.start_angle ?? 0) * Math.PI) / 180, e0 = (Number(a.end_angle ?? 360) * Math.PI) / 180;
  const p: number[] = [c[0]! + r * Math.cos(s0), c[1]! + r * Math.sin(s0)];
  const q: number[] = [c[0]! + r * Math.cos(e0), c[1]! + r * Math.sin(e0)];
  const ps = inside(w, p), qs = inside(w, q);
  if (inside(w, c) && ps && qs) return moveIf(tx, e, true, v);
  if (!ps && !qs) return false;
  let sweep = e0 - s0;
  while (sweep <= 0) sweep += 2 * Math.PI;
  const bulge = Math.tan(sweep / 4);
  const np = ps ? [p[0]! + v[0], p[1]! + v[1]] : p;
  const nq = qs ? [q[0]! + v[0], q[1]! + v[1]] : q;
  if (np[0] === nq[0] && np[1] === nq[1]) return false;
  const arc = bulgeToArc(np, nq, bulge);
  tx.touch(e);
  a.center = [arc.center[0], arc.center[1], c[2] ?? 0];
  a.radius = arc.radius;
  const d = (x: number) => { const y = ((x * 180) / Math.PI) % 360; return y < 0 ? y + 360 : y; };
  a.start_angle = d(arc.start_angle);
  a.end_angle = d(arc.end_angle);
  return true;
}
