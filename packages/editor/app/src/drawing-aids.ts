// AutoCAD's drawing aids for a point being asked: the running object snaps as the drawing's OSMODE
// bits, polar tracking (POLARANG increments from the base point), object-snap tracking (points the
// cursor rested on, followed along their horizontal and vertical) and ortho. `constrain` gives the
// point a click would pick when no object snap is under the cursor, and what to draw for it.
import type { Point } from './prompts.js';

/** OSMODE's bits, as AutoCAD numbers them. */
export const OSNAP_BITS = [
  ['endpoint', 'Endpoint', 1],
  ['midpoint', 'Midpoint', 2],
  ['center', 'Center', 4],
  ['node', 'Node', 8],
  ['quadrant', 'Quadrant', 16],
  ['intersection', 'Intersection', 32],
  ['insertion', 'Insertion', 64],
  ['perpendicular', 'Perpendicular', 128],
  ['tangent', 'Tangent', 256],
  ['nearest', 'Nearest', 512],
  ['extension', 'Extension', 4096],
] as const;

export type OsnapMode = (typeof OSNAP_BITS)[number][0];

/** Set in OSMODE when running snaps are off (F3) without forgetting which modes were chosen. */
export const OSNAP_OFF = 16384;

/** The engine's snap modes an OSMODE value asks for (none while the off bit is set). */
export function osnapModes(osmode: number): OsnapMode[] {
  if (osmode & OSNAP_OFF) return [];
  return OSNAP_BITS.filter(([, , bit]) => osmode & bit).map(([m]) => m);
}

/** How close (CSS px) the cursor must come to a tracking line to follow it. */
export const TRACK_PX = 10;

export interface Tracked {
  at: Point;
  /** The tooltip: "Polar: 12.5 < 90°". */
  label: string;
  /** Tracking lines to draw (drawing units): from a point through the tracked one. */
  lines: [Point, Point][];
}

export interface AidState {
  ortho: boolean;
  polar: boolean;
  otrack: boolean;
  /** POLARANG in degrees. */
  polarAngle: number;
  /** Points acquired by resting the cursor on an object snap (object-snap tracking), latest last. */
  acquired: { at: Point; kind: string }[];
}

const num = (v: number): string => String(Math.round(v * 10000) / 10000);
const degOf = (rad: number): number => {
  let d = (rad * 180) / Math.PI;
  d = ((d % 360) + 360) % 360;
  return Math.round(d * 1e6) / 1e6;
};

/**
 * The point the cursor `w` stands for with the aids on, or null when none applies. `pxPerUnit`
 * turns the tracking aperture into drawing units.
 */
export function constrain(w: Point, base: Point | undefined, s: AidState, pxPerUnit: number): Tracked | null {
  const tol = TRACK_PX / pxPerUnit;
  if (base && s.ortho) {
    const at: Point = Math.abs(w[0] - base[0]) >= Math.abs(w[1] - base[1]) ? [w[0], base[1]] : [base[0], w[1]];
    const d = Math.hypot(at[0] - base[0], at[1] - base[1]);
    return { at, label: `Ortho: ${num(d)} < ${degOf(Math.atan2(at[1] - base[1], at[0] - base[0]))}°`, lines: [] };
  }
  // object-snap tracking: the horizontal and vertical through each acquired point
  if (s.otrack && s.acquired.length) {
    let h: { p: Point; kind: string } | null = null, v: { p: Point; kind: string } | null = null;
    let hd = tol, vd = tol;
    for (const a of s.acquired) {
      const dy = Math.abs(w[1] - a.at[1]), dx = Math.abs(w[0] - a.at[0]);
      if (dy <= hd) { hd = dy; h = { p: a.at, kind: a.kind }; }
      if (dx <= vd) { vd = dx; v = { p: a.at, kind: a.kind }; }
    }
    if (h && v && (h.p[0] !== v.p[0] || h.p[1] !== v.p[1])) {
      const at: Point = [v.p[0], h.p[1]];
      return { at, label: `${cap(h.kind)}: ${num(Math.abs(at[0] - h.p[0]))} < ${at[0] >= h.p[0] ? 0 : 180}°, ${cap(v.kind)}: ${num(Math.abs(at[1] - v.p[1]))} < ${at[1] >= v.p[1] ? 90 : 270}°`, lines: [[h.p, at], [v.p, at]] };
    }
    const one = h && (!v || hd <= vd) ? { a: h, horizontal: true } : v ? { a: v, horizontal: false } : null;
    if (one) {
      const p = one.a.p;
      const at: Point = one.horizontal ? [w[0], p[1]] : [p[0], w[1]];
      const d = Math.hypot(at[0] - p[0], at[1] - p[1]);
      if (d > 0) return { at, label: `${cap(one.a.kind)}: ${num(d)} < ${degOf(Math.atan2(at[1] - p[1], at[0] - p[0]))}°`, lines: [[p, at]] };
    }
  }
  // polar tracking: the nearest multiple of the increment, when the cursor lies near its ray
  if (base && s.polar && s.polarAngle > 0) {
    const dx = w[0] - base[0], dy = w[1] - base[1];
    const d = Math.hypot(dx, dy);
    if (d > 0) {
      const inc = (s.polarAngle * Math.PI) / 180;
      const a = Math.round(Math.atan2(dy, dx) / inc) * inc;
      const ux = Math.cos(a), uy = Math.sin(a);
      const along = dx * ux + dy * uy;
      const off = Math.abs(-dx * uy + dy * ux);
      if (along > 0 && off <= tol) {
        const at: Point = [base[0] + ux * along, base[1] + uy * along];
        return { at, label: `Polar: ${num(along)} < ${degOf(a)}°`, lines: [[base, at]] };
      }
    }
  }
  return null;
}

function cap(kind: string): string {
  return kind.charAt(0).toUpperCase() + kind.slice(1);
}

/**
 * A typed answer of dynamic input: the distance field (with the angle field, when typed, as the
 * direction; else along the tracked or cursor direction), or coordinates "x,y" (absolute),
 * "@dx,dy" (relative), "@d<a". Null when it is none of these.
 */
export function dynamicPoint(first: string, second: string, base: Point | undefined, toward: Point | null, parse: (t: string, last: Point | null, cursor: Point | null) => Point | null): Point | null {
  const a = first.trim(), b = second.trim();
  if (!base) {
    // a first point: X and Y fields
    if (a && b && Number.isFinite(Number(a)) && Number.isFinite(Number(b))) return [Number(a), Number(b)];
    return a ? parse(a, null, null) : null;
  }
  if (/[,<@]/.test(a)) return parse(a, base, toward);
  const d = Number(a);
  if (!a || !Number.isFinite(d)) return null;
  if (b) {
    const ang = Number(b.replace(/°$/, ''));
    if (!Number.isFinite(ang)) return null;
    const r = (ang * Math.PI) / 180;
    return [base[0] + d * Math.cos(r), base[1] + d * Math.sin(r)];
  }
  return parse(a, base, toward);
}
