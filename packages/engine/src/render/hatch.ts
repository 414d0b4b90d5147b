// HATCH: boundary paths -> rings (in the hatch's OCS), and pattern lines clipped to the rings
// (even-odd, as the "normal" hatch style draws nested islands) with their dash patterns.
import type { PatternLine } from './hatch-patterns.js';
import { HATCH_PATTERNS } from './hatch-patterns.js';
import { arcSegments, identity, pushBulge, pushEllipse, pushSpline } from './geom.js';

const I = identity();

type Obj = Record<string, unknown>;

function n(v: unknown, def = 0): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : def;
}

function p2(v: unknown): [number, number] {
  if (Array.isArray(v)) return [n(v[0]), n(v[1])];
  if (v && typeof v === 'object') {
    const o = v as Obj;
    return [n(o.x ?? o[0]), n(o.y ?? o[1])];
  }
  return [0, 0];
}

function edgeType(e: Obj): string {
  const t = e.type ?? e.edge_type ?? e.kind;
  if (typeof t === 'number') return ['', 'line', 'arc', 'ellipse', 'spline'][t] ?? '';
  return String(t ?? '').toLowerCase().replace(/edge$/, '');
}

/** Rings (flat x, y lists in OCS) of a hatch's boundary paths; `tol` is the chord tolerance in OCS units. */
export function hatchRings(paths: unknown, tol: number): number[][] {
  const rings: number[][] = [];
  if (!Array.isArray(paths)) return rings;
  for (const raw of paths) {
    if (!raw || typeof raw !== 'object') continue;
    const path = raw as Obj;
    const ring: number[] = [];
    const verts = path.vertices ?? path.points;
    const edges = path.edges;
    const isPoly = Array.isArray(verts) && (!Array.isArray(edges) || String(path.type ?? '').toLowerCase().startsWith('poly'));
    if (isPoly) {
      const vs = verts as unknown[];
      const hasBulge = path.has_bulge !== false;
      const pts = vs.map((v) => {
        if (Array.isArray(v)) return [n(v[0]), n(v[1]), hasBulge ? n(v[v.length >= 5 ? 4 : 2]) : 0] as [number, number, number];
        const o = v as Obj;
        return [n(o.x ?? (o.location as number[] | undefined)?.[0]), n(o.y ?? (o.location as number[] | undefined)?.[1]), n(o.bulge)] as [number, number, number];
      });
      if (!pts.length) continue;
      ring.push(pts[0]![0], pts[0]![1]);
      const cnt = pts.length;
      for (let i = 0; i < cnt; i++) {
        const a = pts[i]!;
        const b = pts[(i + 1) % cnt]!;
        if (i === cnt - 1 && a[2] === 0) break;
        pushBulge(ring, I, a[0], a[1], b[0], b[1], a[2], 0, tol);
      }
    } else if (Array.isArray(edges)) {
      for (const er of edges as Obj[]) {
        const t = edgeType(er);
        const seg: number[] = [];
        if (t === 'line') {
          const a = p2(er.start);
          const b = p2(er.end);
          seg.push(a[0], a[1], b[0], b[1]);
        } else if (t === 'arc') {
          const c = p2(er.center);
          const r = n(er.radius);
          const ccw = er.ccw === undefined ? true : Boolean(n(er.ccw, 1));
          let a0 = (n(er.start_angle) * Math.PI) / 180;
          let a1 = (n(er.end_angle) * Math.PI) / 180;
          if (!ccw) {
            a0 = -a0;
            a1 = -a1;
          }
          let sweep = ccw ? a1 - a0 : a1 - a0;
          if (ccw && sweep <= 0) sweep += Math.PI * 2;
          if (!ccw && sweep >= 0) sweep -= Math.PI * 2;
          if (Math.abs(n(er.end_angle) - n(er.start_angle)) >= 360 - 1e-9) sweep = ccw ? Math.PI * 2 : -Math.PI * 2;
          const k = arcSegments(r, sweep, tol);
          for (let i = 0; i <= k; i++) {
            const a = a0 + (sweep * i) / k;
            seg.push(c[0] + r * Math.cos(a), c[1] + r * Math.sin(a));
          }
        } else if (t === 'ellipse') {
          const c = p2(er.center);
          const maj = p2(er.major_axis ?? er.major);
          const ratio = n(er.ratio, 1);
          const ccw = er.ccw === undefined ? true : Boolean(n(er.ccw, 1));
          let a0 = (n(er.start_angle ?? er.start_param) * Math.PI) / 180;
          let a1 = (n(er.end_angle ?? er.end_param) * Math.PI) / 180;
          if (!ccw) {
            a0 = -a0;
            a1 = -a1;
          }
          const tmp: number[] = [];
          if (ccw) pushEllipse(tmp, I, [c[0], c[1], 0], [maj[0], maj[1], 0], [0, 0, 1], ratio, a0, a1, tol);
          else {
            pushEllipse(tmp, I, [c[0], c[1], 0], [maj[0], maj[1], 0], [0, 0, 1], ratio, a1, a0, tol);
            // reverse
            for (let i = tmp.length - 2; i >= 0; i -= 2) seg.push(tmp[i]!, tmp[i + 1]!);
          }
          if (ccw) for (const v of tmp) seg.push(v);
        } else if (t === 'spline') {
          const ctrl = (Array.isArray(er.control_points) ? er.control_points : []) as number[][];
          const knots = (Array.isArray(er.knot_values) ? er.knot_values : Array.isArray(er.knots) ? er.knots : []) as number[];
          const weights = Array.isArray(er.weights) && (er.weights as number[]).length ? (er.weights as number[]) : null;
          const fit = (Array.isArray(er.fit_points) ? er.fit_points : []) as number[][];
          if (ctrl.length) pushSpline(seg, I, n(er.degree, 3), ctrl.map((q) => [n(q[0]), n(q[1]), 0]), knots, weights, tol, 1);
          else for (const q of fit) seg.push(n(q[0]), n(q[1]));
        }
        if (seg.length < 2) continue;
        // join: skip the first point when it repeats the ring's last
        let start = 0;
        if (ring.length >= 2) {
          const lx = ring[ring.length - 2]!;
          const ly = ring[ring.length - 1]!;
          const d = Math.abs(lx - seg[0]!) + Math.abs(ly - seg[1]!);
          const dEnd = Math.abs(lx - seg[seg.length - 2]!) + Math.abs(ly - seg[seg.length - 1]!);
          if (dEnd < d && dEnd < tol * 4 && d > tol * 4) {
            // edge stored in the opposite direction: reverse it
            const rev: number[] = [];
            for (let i = seg.length - 2; i >= 0; i -= 2) rev.push(seg[i]!, seg[i + 1]!);
            seg.length = 0;
            for (const v of rev) seg.push(v);
          }
          if (Math.abs(lx - seg[0]!) + Math.abs(ly - seg[1]!) < 1e-9) start = 2;
        }
        for (let i = start; i < seg.length; i++) ring.push(seg[i]!);
      }
    }
    if (ring.length >= 6) rings.push(ring);
  }
  return rings;
}

/** The pattern lines of a hatch: its own (group 53..49) when stored, else the named standard pattern. */
export function hatchPatternLines(attrs: Obj, imperial: boolean): PatternLine[] | null {
  const own = attrs.pattern_lines ?? (attrs.pattern && typeof attrs.pattern === 'object' ? (attrs.pattern as Obj).lines : undefined) ?? attrs.pattern_definition;
  if (Array.isArray(own) && own.length) {
    const out: PatternLine[] = [];
    for (const l of own as unknown[]) {
      if (Array.isArray(l)) {
        out.push([n(l[0]), p2(l[1]), p2(l[2]), Array.isArray(l[3]) ? (l[3] as unknown[]).map((d) => n(d)) : []]);
      } else if (l && typeof l === 'object') {
        const o = l as Obj;
        out.push([n(o.angle), p2(o.base_point ?? o.base), p2(o.offset), Array.isArray(o.dash_length_items ?? o.dashes) ? ((o.dash_length_items ?? o.dashes) as unknown[]).map((d) => n(d)) : []]);
      }
    }
    if (out.length) return out;
  }
  const name = String(attrs.pattern_name ?? '').toUpperCase();
  const std = HATCH_PATTERNS[name];
  if (!std) return null;
  const ang = (n(attrs.pattern_angle) * Math.PI) / 180;
  const sc = n(attrs.pattern_scale, 1) * (imperial ? 1 / 25.4 : 1) || 1;
  const c = Math.cos(ang);
  const s = Math.sin(ang);
  const rot = (p: [number, number]): [number, number] => [(p[0] * c - p[1] * s) * sc, (p[0] * s + p[1] * c) * sc];
  return std.map(([a, b, o, d]) => [a + (ang * 180) / Math.PI, rot(b), rot(o), d.map((x) => x * sc)] as PatternLine);
}

export interface PatternBudget {
  /** Segments still allowed (shared by the whole render). */
  segments: number;
}

/**
 * Pattern segments clipped to the rings (even-odd): flat x0, y0, x1, y1 quadruples in OCS.
 * Gives up (returns null) when a line family is too dense to be meaningful (more than
 * `maxLines` lines across the area), as CAD programs do.
 */
export function patternSegments(rings: number[][], lines: PatternLine[], budget: PatternBudget, maxLines = 4000): number[] | null {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const r of rings) {
    for (let i = 0; i < r.length; i += 2) {
      const x = r[i]!;
      const y = r[i + 1]!;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  }
  if (!(minX <= maxX)) return [];
  const out: number[] = [];
  const us: number[] = [];
  for (const [angle, base, offset, dashes] of lines) {
    const a = (angle * Math.PI) / 180;
    const dx = Math.cos(a);
    const dy = Math.sin(a);
    const nx = -dy;
    const ny = dx;
    let spacing = offset[0] * nx + offset[1] * ny;
    const shift = offset[0] * dx + offset[1] * dy;
    if (Math.abs(spacing) < 1e-12) continue;
    // range of line indices crossing the bbox
    let smin = Infinity, smax = -Infinity;
    for (const [cx, cy] of [[minX, minY], [maxX, minY], [maxX, maxY], [minX, maxY]] as const) {
      const s = (cx - base[0]) * nx + (cy - base[1]) * ny;
      if (s < smin) smin = s;
      if (s > smax) smax = s;
    }
    let sign = 1;
    if (spacing < 0) {
      spacing = -spacing;
      sign = -1;
    }
    const k0 = Math.ceil(smin / spacing);
    const k1 = Math.floor(smax / spacing);
    if (k1 - k0 > maxLines) return null;
    let period = 0;
    for (const d of dashes) period += Math.abs(d);
    const dashed = dashes.length > 0 && period > 0;
    for (let k = k0; k <= k1; k++) {
      const kk = k * sign;
      const ox = base[0] + offset[0] * kk;
      const oy = base[1] + offset[1] * kk;
      void shift;
      us.length = 0;
      for (const r of rings) {
        const cnt = r.length;
        let px = r[cnt - 2]!;
        let py = r[cnt - 1]!;
        let dp = (px - ox) * nx + (py - oy) * ny;
        for (let i = 0; i < cnt; i += 2) {
          const qx = r[i]!;
          const qy = r[i + 1]!;
          const dq = (qx - ox) * nx + (qy - oy) * ny;
          if ((dp > 0) !== (dq > 0)) {
            const t = dp / (dp - dq);
            const ix = px + (qx - px) * t;
            const iy = py + (qy - py) * t;
            us.push((ix - ox) * dx + (iy - oy) * dy);
          }
          px = qx;
          py = qy;
          dp = dq;
        }
      }
      if (us.length < 2) continue;
      us.sort((p, q) => p - q);
      for (let i = 0; i + 1 < us.length; i += 2) {
        const u0 = us[i]!;
        const u1 = us[i + 1]!;
        if (!dashed) {
          out.push(ox + dx * u0, oy + dy * u0, ox + dx * u1, oy + dy * u1);
          if (--budget.segments <= 0) return out;
          continue;
        }
        let u = Math.floor(u0 / period) * period;
        let guard = 0;
        while (u < u1 && guard++ < 100000) {
          for (const d of dashes) {
            const len = Math.abs(d);
            if (d >= 0) {
              const s0 = Math.max(u, u0);
              const s1 = Math.min(u + len, u1);
              if (s1 >= s0 && u + len >= u0 && u <= u1) {
                out.push(ox + dx * s0, oy + dy * s0, ox + dx * s1, oy + dy * s1);
                if (--budget.segments <= 0) return out;
              }
            }
            u += len;
            if (u >= u1) break;
          }
        }
      }
    }
  }
  return out;
}
