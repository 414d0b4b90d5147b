// AutoCAD's grips: where a selected entity shows them (from its record as entity_get gives it), and
// what dragging one does, as one op (one undo step): set_properties for the changed fields, or
// entities_transform move for the grips that move the whole entity (a line's midpoint, a circle's
// or an arc's centre). Arcs keep passing through the two grips not dragged (AutoCAD's three-point
// stretch); a polyline's segment midpoint moves both ends of its segment.
import type { Point } from './prompts.js';

export type Rec = Record<string, unknown> & { handle: string; type: string };

export interface Grip {
  handle: string;
  at: Point;
  /** What the grip is, for the edit: a field, a vertex index, or a whole-entity move. */
  role: string;
  index?: number;
}

/** At most this many selected entities show grips (AutoCAD's GRIPOBJLIMIT). */
export const GRIP_LIMIT = 100;

const p2 = (v: unknown): Point | null => (Array.isArray(v) && typeof v[0] === 'number' && typeof v[1] === 'number' ? [v[0], v[1]] : null);
const rad = (d: number): number => (d * Math.PI) / 180;
const deg = (c: Point, p: Point): number => (Math.atan2(p[1] - c[1], p[0] - c[0]) * 180) / Math.PI;

function arcPoints(r: Rec): { c: Point; r: number; s: Point; e: Point; m: Point } | null {
  const c = p2(r.center);
  const radius = Number(r.radius);
  if (!c || !(radius > 0)) return null;
  const a0 = Number(r.start_angle ?? 0), a1 = Number(r.end_angle ?? 360);
  let sweep = a1 - a0;
  while (sweep <= 0) sweep += 360;
  const at = (a: number): Point => [c[0] + radius * Math.cos(rad(a)), c[1] + radius * Math.sin(rad(a))];
  return { c, r: radius, s: at(a0), e: at(a1), m: at(a0 + sweep / 2) };
}

/** The point a polyline segment's bulge puts in the middle of the segment. */
function segmentMid(a: number[], b: number[]): Point {
  const bulge = Number(a[4] ?? 0);
  const mx = (a[0]! + b[0]!) / 2, my = (a[1]! + b[1]!) / 2;
  if (!bulge) return [mx, my];
  // the sagitta, perpendicular to the chord (to its right for a positive bulge going a to b)
  const dx = b[0]! - a[0]!, dy = b[1]! - a[1]!;
  const s = (bulge * Math.hypot(dx, dy)) / 2;
  const len = Math.hypot(dx, dy) || 1;
  return [mx + (dy / len) * s, my - (dx / len) * s];
}

export function gripsOf(r: Rec): Grip[] {
  const g: Grip[] = [];
  const add = (at: Point | null, role: string, index?: number): void => {
    if (at) g.push({ handle: r.handle, at, role, ...(index !== undefined ? { index } : {}) });
  };
  switch (r.type) {
    case 'Line': {
      const s = p2(r.start), e = p2(r.end);
      add(s, 'start');
      add(e, 'end');
      if (s && e) add([(s[0] + e[0]) / 2, (s[1] + e[1]) / 2], 'move');
      break;
    }
    case 'Circle': {
      const c = p2(r.center), rr = Number(r.radius);
      add(c, 'move');
      if (c) for (const [dx, dy] of [[1, 0], [0, 1], [-1, 0], [0, -1]] as const) add([c[0] + dx * rr, c[1] + dy * rr], 'radius');
      break;
    }
    case 'Arc': {
      const a = arcPoints(r);
      if (a) {
        add(a.s, 'arc-start');
        add(a.e, 'arc-end');
        add(a.m, 'arc-mid');
        add(a.c, 'move');
      }
      break;
    }
    case 'LWPolyline': {
      const pts = (r.points ?? []) as number[][];
      pts.forEach((p, i) => add([p[0]!, p[1]!], 'vertex', i));
      const n = r.closed || (Number(r.flags ?? 0) & 1) ? pts.length : pts.length - 1;
      for (let i = 0; i < n; i++) add(segmentMid(pts[i]!, pts[(i + 1) % pts.length]!), 'segment', i);
      break;
    }
    case 'Ellipse': {
      const c = p2(r.center), m = p2(r.major_axis);
      add(c, 'move');
      if (c && m) add([c[0] + m[0], c[1] + m[1]], 'major');
      break;
    }
    case 'Spline': {
      const cps = (r.control_points ?? []) as number[][];
      cps.forEach((p, i) => add([p[0]!, p[1]!], 'control', i));
      break;
    }
    case 'Point':
      add(p2(r.location), 'location');
      break;
    case 'Text':
    case 'MText':
    case 'Insert':
    case 'Attrib':
      add(p2(r.insert), 'insert');
      break;
    case 'Dimension':
    case 'AlignedDimension':
    case 'LinearDimension':
    case 'RadialDimension':
    case 'DiametricDimension':
    case 'AngularDimension':
      for (const k of ['defpoint', 'defpoint2', 'defpoint3', 'defpoint4', 'text_midpoint']) add(p2(r[k]), k);
      break;
    case 'Hatch': {
      // the seed points (AutoCAD shows the centre grip; a hatch moves as a whole)
      const seeds = (r.seeds ?? []) as number[][];
      seeds.forEach((p) => add([p[0]!, p[1]!], 'move'));
      break;
    }
    default:
      break;
  }
  return g;
}

export type GripEdit =
  | { op: 'set_properties'; fields: Record<string, unknown> }
  | { op: 'entities_transform'; fields: Record<string, unknown> };

const z = (v: unknown): number => (Array.isArray(v) && typeof v[2] === 'number' ? v[2] : 0);

/** The op that drags grip `g` of `r` to `to`; null when it would make the entity degenerate. */
export function gripEdit(r: Rec, g: Grip, to: Point): GripEdit | null {
  const move = (): GripEdit => ({ op: 'entities_transform', fields: { handles: [r.handle], action: 'move', vector: [to[0] - g.at[0], to[1] - g.at[1]] } });
  const set = (properties: Record<string, unknown>): GripEdit => ({ op: 'set_properties', fields: { handles: [r.handle], properties } });
  switch (g.role) {
    case 'move':
      return move();
    case 'start':
    case 'end':
    case 'location':
    case 'insert':
    case 'defpoint':
    case 'defpoint2':
    case 'defpoint3':
    case 'defpoint4':
    case 'text_midpoint':
      // the grip's role is the record's field
      return set({ [g.role]: [to[0], to[1], z(r[g.role])] });
    case 'radius': {
      const c = p2(r.center)!;
      const rr = Math.hypot(to[0] - c[0], to[1] - c[1]);
      return rr > 0 ? set({ radius: rr }) : null;
    }
    case 'arc-start':
    case 'arc-end':
    case 'arc-mid': {
      const a = arcPoints(r)!;
      const s = g.role === 'arc-start' ? to : a.s, e = g.role === 'arc-end' ? to : a.e, m = g.role === 'arc-mid' ? to : a.m;
      const c = circumcenter(s, m, e);
      if (!c) return null;
      // DXF arcs run counter-clockwise: s, m, e turning clockwise make the arc from e to s
      const cw = (m[0] - s[0]) * (e[1] - s[1]) - (m[1] - s[1]) * (e[0] - s[0]) < 0;
      const [from, toP] = cw ? [e, s] : [s, e];
      return set({ center: [c[0], c[1], z(r.center)], radius: Math.hypot(s[0] - c[0], s[1] - c[1]), start_angle: norm(deg(c, from)), end_angle: norm(deg(c, toP)) });
    }
    case 'vertex':
    case 'segment': {
      const pts = ((r.points ?? []) as number[][]).map((p) => [...p]);
      const i = g.index!;
      const dx = to[0] - g.at[0], dy = to[1] - g.at[1];
      const shift = (k: number): void => {
        pts[k]![0]! += dx;
        pts[k]![1]! += dy;
      };
      if (g.role === 'vertex') shift(i);
      else {
        shift(i);
        shift((i + 1) % pts.length);
      }
      return set({ points: pts });
    }
    case 'major': {
      const c = p2(r.center)!;
      const m: Point = [to[0] - c[0], to[1] - c[1]];
      return Math.hypot(m[0], m[1]) > 0 ? set({ major_axis: [m[0], m[1], 0] }) : null;
    }
    case 'control': {
      const cps = ((r.control_points ?? []) as number[][]).map((p) => [...p]);
      cps[g.index!] = [to[0], to[1], cps[g.index!]![2] ?? 0];
      return set({ control_points: cps });
    }
    default:
      return null;
  }
}

function norm(a: number): number {
  return ((a % 360) + 360) % 360;
}

export function circumcenter(a: Point, b: Point, c: Point): Point | null {
  const d = 2 * (a[0] * (b[1] - c[1]) + b[0] * (c[1] - a[1]) + c[0] * (a[1] - b[1]));
  if (Math.abs(d) < 1e-12) return null;
  const a2 = a[0] * a[0] + a[1] * a[1], b2 = b[0] * b[0] + b[1] * b[1], c2 = c[0] * c[0] + c[1] * c[1];
  return [(a2 * (b[1] - c[1]) + b2 * (c[1] - a[1]) + c2 * (a[1] - b[1])) / d, (a2 * (c[0] - b[0]) + b2 * (a[0] - c[0]) + c2 * (b[0] - a[0])) / d];
}

/** The preview of a drag as screen-space segments, drawn on the overlay while the grip moves. */
export function gripPreview(r: Rec, g: Grip, to: Point, toScreen: (x: number, y: number) => [number, number]): [number, number, number, number][] {
  const seg = (a: Point, b: Point): [number, number, number, number] => {
    const [x0, y0] = toScreen(a[0], a[1]);
    const [x1, y1] = toScreen(b[0], b[1]);
    return [x0, y0, x1, y1];
  };
  const circle = (c: Point, rr: number, a0 = 0, sweep = 360): [number, number, number, number][] => {
    const n = 48, out: [number, number, number, number][] = [];
    let prev: Point = [c[0] + rr * Math.cos(rad(a0)), c[1] + rr * Math.sin(rad(a0))];
    for (let i = 1; i <= n; i++) {
      const a = rad(a0 + (sweep * i) / n);
      const p: Point = [c[0] + rr * Math.cos(a), c[1] + rr * Math.sin(a)];
      out.push(seg(prev, p));
      prev = p;
    }
    return out;
  };
  const edit = gripEdit(r, g, to);
  if (!edit) return [];
  const f = edit.fields.properties as Record<string, any> | undefined;
  switch (r.type) {
    case 'Line': {
      if (g.role === 'move') {
        const d: Point = [to[0] - g.at[0], to[1] - g.at[1]];
        const s = p2(r.start)!, e = p2(r.end)!;
        return [seg([s[0] + d[0], s[1] + d[1]], [e[0] + d[0], e[1] + d[1]])];
      }
      return [seg(g.role === 'start' ? to : p2(r.start)!, g.role === 'end' ? to : p2(r.end)!)];
    }
    case 'Circle':
      return g.role === 'radius' ? circle(p2(r.center)!, f!.radius as number) : circle([p2(r.center)![0] + to[0] - g.at[0], p2(r.center)![1] + to[1] - g.at[1]], Number(r.radius));
    case 'Arc': {
      if (!f) return [];
      let sweep = (f.end_angle as number) - (f.start_angle as number);
      while (sweep <= 0) sweep += 360;
      return circle([f.center[0], f.center[1]], f.radius as number, f.start_angle as number, sweep);
    }
    case 'LWPolyline': {
      if (!f) return [];
      const pts = f.points as number[][];
      const out: [number, number, number, number][] = [];
      const closed = r.closed || (Number(r.flags ?? 0) & 1);
      for (let i = 0; i + 1 < pts.length; i++) out.push(seg([pts[i]![0]!, pts[i]![1]!], [pts[i + 1]![0]!, pts[i + 1]![1]!]));
      if (closed && pts.length > 2) out.push(seg([pts[pts.length - 1]![0]!, pts[pts.length - 1]![1]!], [pts[0]![0]!, pts[0]![1]!]));
      return out;
    }
    default:
      return [seg(g.at, to)];
  }
}
