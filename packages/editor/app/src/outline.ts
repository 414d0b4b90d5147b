// Entities as polylines for the modify commands' rubber bands (mirror, scale, offset, dimension
// lines): from the records entities_list gives, close enough to show where things go. The ops
// compute the real geometry; nothing here is written to the drawing.
import type { Rec } from './grips.js';
import type { Point } from './prompts.js';

export type Outline = Point[][];

const p2 = (v: unknown): Point | null => (Array.isArray(v) && typeof v[0] === 'number' && typeof v[1] === 'number' ? [v[0], v[1]] : null);
export const dist = (a: Point, b: Point): number => Math.hypot(b[0] - a[0], b[1] - a[1]);

/** Points along a circle from a0 to a1 degrees, counter-clockwise. */
export function arcPoints(c: Point, r: number, a0: number, a1: number): Point[] {
  let sweep = a1 - a0;
  while (sweep <= 0) sweep += 360;
  const n = Math.max(8, Math.ceil(sweep / 5));
  return Array.from({ length: n + 1 }, (_, i) => {
    const a = ((a0 + (sweep * i) / n) * Math.PI) / 180;
    return [c[0] + r * Math.cos(a), c[1] + r * Math.sin(a)] as Point;
  });
}

/** An LWPolyline's vertices with its bulges drawn as arcs. */
function polylinePoints(pts: number[][], closed: boolean): Point[] {
  const out: Point[] = [];
  const n = pts.length;
  for (let i = 0; i < n; i++) {
    const a = pts[i]!;
    out.push([a[0]!, a[1]!]);
    const b = pts[(i + 1) % n]!;
    if (i === n - 1 && !closed) break;
    const bulge = Number(a[4] ?? 0);
    if (!bulge) continue;
    // the arc's centre lies left of the chord for a positive (counter-clockwise) bulge
    const theta = 4 * Math.atan(bulge);
    const d = Math.hypot(b[0]! - a[0]!, b[1]! - a[1]!);
    if (!(d > 0)) continue;
    const ux = (b[0]! - a[0]!) / d, uy = (b[1]! - a[1]!) / d;
    const h = d / 2 / Math.tan(theta / 2);
    const c: Point = [(a[0]! + b[0]!) / 2 - uy * h, (a[1]! + b[1]!) / 2 + ux * h];
    const r = Math.hypot(a[0]! - c[0], a[1]! - c[1]);
    const a0 = Math.atan2(a[1]! - c[1], a[0]! - c[0]);
    for (let k = 1; k < 16; k++) out.push([c[0] + r * Math.cos(a0 + (theta * k) / 16), c[1] + r * Math.sin(a0 + (theta * k) / 16)]);
  }
  if (closed && out.length) out.push(out[0]!);
  return out;
}

/** The entity as polylines; a type without its own is drawn as its box. */
export function outlineOf(r: Rec): Outline {
  switch (r.type) {
    case 'Line': {
      const s = p2(r.start), e = p2(r.end);
      return s && e ? [[s, e]] : [];
    }
    case 'Circle':
    case 'Arc': {
      const c = p2(r.center);
      const radius = Number(r.radius);
      if (!c || !(radius > 0)) return [];
      return [r.type === 'Circle' ? arcPoints(c, radius, 0, 360) : arcPoints(c, radius, Number(r.start_angle ?? 0), Number(r.end_angle ?? 360))];
    }
    case 'LWPolyline':
      return Array.isArray(r.points) && r.points.length ? [polylinePoints(r.points as number[][], !!r.closed)] : [];
    case 'Ellipse': {
      const c = p2(r.center), m = p2(r.major_axis);
      const ratio = Number(r.ratio ?? 1);
      if (!c || !m) return [];
      const t0 = Number(r.start_param ?? 0);
      let t1 = Number(r.end_param ?? 2 * Math.PI);
      while (t1 <= t0) t1 += 2 * Math.PI;
      return [Array.from({ length: 73 }, (_, i) => {
        const t = t0 + ((t1 - t0) * i) / 72;
        const x = Math.cos(t), y = ratio * Math.sin(t);
        return [c[0] + x * m[0] - y * m[1], c[1] + x * m[1] + y * m[0]] as Point;
      })];
    }
    case 'Spline': {
      const pts = (Array.isArray(r.fit_points) && r.fit_points.length ? r.fit_points : r.control_points) as number[][] | undefined;
      return pts?.length ? [pts.map((p) => [p[0]!, p[1]!] as Point)] : [];
    }
    default: {
      const b = r.bounds as { min?: number[]; max?: number[] } | undefined;
      if (!b?.min || !b.max) return [];
      const [x0, y0, x1, y1] = [b.min[0]!, b.min[1]!, b.max[0]!, b.max[1]!];
      return [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]];
    }
  }
}

export const mapOutline = (o: Outline, f: (p: Point) => Point): Outline => o.map((l) => l.map(f));

/** The reflection of p about the line through a and b. */
export function reflect(p: Point, a: Point, b: Point): Point {
  const dx = b[0] - a[0], dy = b[1] - a[1];
  const l2 = dx * dx + dy * dy;
  if (!(l2 > 0)) return p;
  const t = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / l2;
  const f: Point = [a[0] + t * dx, a[1] + t * dy];
  return [2 * f[0] - p[0], 2 * f[1] - p[1]];
}

/** The nearest point of the outline to q, its distance, and the side q lies on (1 left, -1 right, of the segment's direction). */
export function nearest(o: Outline, q: Point): { d: number; side: number } {
  let best = { d: Infinity, side: 0 };
  for (const l of o) {
    for (let i = 1; i < l.length; i++) {
      const a = l[i - 1]!, b = l[i]!;
      const dx = b[0] - a[0], dy = b[1] - a[1];
      const l2 = dx * dx + dy * dy;
      const t = l2 > 0 ? Math.max(0, Math.min(1, ((q[0] - a[0]) * dx + (q[1] - a[1]) * dy) / l2)) : 0;
      const d = dist([a[0] + t * dx, a[1] + t * dy], q);
      if (d < best.d) best = { d, side: Math.sign(dx * (q[1] - a[1]) - dy * (q[0] - a[0])) };
    }
  }
  return best;
}

/** The outline moved `d` to its left (negative: right), corners mitred: OFFSET's preview. */
export function offsetOutline(o: Outline, d: number): Outline {
  return o.map((l) => {
    const closed = l.length > 2 && dist(l[0]!, l[l.length - 1]!) < 1e-12;
    const pts = closed ? l.slice(0, -1) : l;
    const n = pts.length;
    const normal = (i: number): Point | null => {
      const a = pts[i]!, b = pts[(i + 1) % n]!;
      const len = dist(a, b);
      return len > 0 ? [-(b[1] - a[1]) / len, (b[0] - a[0]) / len] : null;
    };
    const out = pts.map((p, i) => {
      const before = i > 0 || closed ? normal((i - 1 + n) % n) : null;
      const after = i < n - 1 || closed ? normal(i) : null;
      const n1 = before ?? after, n2 = after ?? before;
      if (!n1 || !n2) return p;
      const k = 1 + n1[0] * n2[0] + n1[1] * n2[1];
      // the mitre: along the sum of the two normals, long enough to stay d from both segments
      if (k < 1e-6) return [p[0] + d * n2[0], p[1] + d * n2[1]] as Point;
      return [p[0] + (d * (n1[0] + n2[0])) / k, p[1] + (d * (n1[1] + n2[1])) / k] as Point;
    });
    return closed ? [...out, out[0]!] : out;
  });
}
