// The HATCH an op creates: by point (boundary.ts finds the region) or from closed entities.
import { dxf, type Entity } from '../dxf.js';
import { OpError } from '../protocol.js';
import type { Transaction } from '../store/document-store.js';
import { buildEntity } from '../entities/create.js';
import { createContext } from '../ops/entities.js';
import { HATCH_PATTERNS } from '../render/hatch-patterns.js';
import { hatchPatternLines } from '../render/hatch.js';
import { headerNumber } from '../model.js';
import { loopArea, type BulgeLoop } from './boundary.js';

export interface HatchStyle {
  pattern?: string;
  scale?: number;
  angle?: number;
  layer?: string;
}

/** Pattern names the op knows (SOLID and the standard acad/acadiso patterns). */
export function knownPattern(name: string): boolean {
  const u = name.toUpperCase();
  return u === 'SOLID' || u in HATCH_PATTERNS;
}

/**
 * A HATCH record for boundary loops (the first the outer one): layer, colour and linetype are the
 * drawing's current ones (as AutoCAD's HATCH), the pattern stored with its lines so every reader
 * draws it alike.
 */
/**
 * A HATCH of `loops`; `outer` are the indices of the loops that bound a region from outside (the
 * first one, or the first of each region when several internal points were picked).
 */
export function hatchEntity(tx: Transaction, loops: BulgeLoop[], style: HatchStyle, seeds?: [number, number][], outer: ReadonlySet<number> = new Set([0])): Entity {
  const pattern = (style.pattern ?? 'SOLID').toUpperCase();
  if (!knownPattern(pattern)) throw new OpError('unknown_pattern', `hatch pattern ${style.pattern} is not known (SOLID, ${Object.keys(HATCH_PATTERNS).slice(0, 8).join(', ')}, ...)`, { pattern: style.pattern });
  const base = buildEntity(createContext(tx, false), { type: 'Hatch', boundary: [[0, 0], [1, 0], [0, 1]], ...(style.layer ? { layer: style.layer } : {}) } as never);
  const a = base.attrs;
  // loops at an even depth of nesting run counter-clockwise, the others clockwise: readers that
  // fill by winding then agree with the even-odd (normal style) fill
  const oriented = loops.map((l, i) => orient(l, loops.filter((o, j) => j !== i && insideLoop(o, l[0]![0], l[0]![1])).length % 2 === 0));
  a.paths = oriented.map((l, i) => ({
    type: 'polyline', flags: outer.has(i) ? 1 | 2 | 4 : 2 | 4, is_closed: true, source_handles: [],
    vertices: l.map((v) => [v[0], v[1], v[2]] as [number, number, number]),
  }));
  a.pattern_name = pattern;
  a.solid_fill = pattern === 'SOLID' ? 1 : 0;
  a.associative = 0;
  a.hatch_style = 0;
  a.pattern_type = 1;
  delete a.pattern_lines;
  if (pattern !== 'SOLID') {
    a.pattern_angle = style.angle ?? 0;
    a.pattern_scale = style.scale ?? 1;
    const imperial = headerNumber(tx.doc, 'MEASUREMENT', 1) === 0;
    const lines = hatchPatternLines({ pattern_name: pattern, pattern_angle: a.pattern_angle, pattern_scale: a.pattern_scale }, imperial) ?? [];
    a.pattern_lines = lines.map(([angle, b, o, d]) => ({ angle, base_point: b, offset: o, dash_length_items: d }));
  } else {
    delete a.pattern_angle;
    delete a.pattern_scale;
  }
  if (seeds?.length) a.seed_points = seeds;
  return base;
}

function insideLoop(loop: BulgeLoop, x: number, y: number): boolean {
  const l = densify(loop);
  let inside = false;
  for (let i = 0, j = l.length - 1; i < l.length; j = i++) {
    const a = l[i]!, b = l[j]!;
    if (a[1] > y !== b[1] > y && x < ((b[0] - a[0]) * (y - a[1])) / (b[1] - a[1]) + a[0]) inside = !inside;
  }
  return inside;
}

/** The loop's polygon with each bulge arc replaced by 16 chords (enough to tell inside from outside of loops that do not touch). */
function densify(loop: BulgeLoop): BulgeLoop {
  const out: BulgeLoop = [];
  loop.forEach((p, i) => {
    out.push(p);
    if (!p[2]) return;
    const q = loop[(i + 1) % loop.length]!;
    const th = 4 * Math.atan(p[2]);
    const c = Math.hypot(q[0] - p[0], q[1] - p[1]);
    const r = c / (2 * Math.sin(th / 2));
    // centre: from the chord's middle along its normal
    const mx = (p[0] + q[0]) / 2, my = (p[1] + q[1]) / 2;
    const h = r * Math.cos(th / 2);
    const nx = -(q[1] - p[1]) / c, ny = (q[0] - p[0]) / c;
    const cx = mx + nx * h, cy = my + ny * h;
    const a0 = Math.atan2(p[1] - cy, p[0] - cx);
    for (let k = 1; k < 16; k++) {
      const t = a0 + (th * k) / 16;
      out.push([cx + Math.abs(r) * Math.cos(t), cy + Math.abs(r) * Math.sin(t), 0]);
    }
  });
  return out;
}

function orient(l: BulgeLoop, ccw: boolean): BulgeLoop {
  if (loopArea(l) > 0 === ccw) return l;
  // reversed: vertex i+1 -> i keeps the bulge of segment i, negated
  const n = l.length;
  const out: BulgeLoop = [];
  for (let k = 0; k < n; k++) {
    const i = (n - k) % n;
    const seg = (i - 1 + n) % n;
    out.push([l[i]![0], l[i]![1], -l[seg]![2]]);
  }
  return out;
}

/** A closed entity as a bulge loop (exact for circles and polylines, flattened for ellipses and splines). */
export function entityLoop(e: Entity, tx: Transaction): BulgeLoop {
  const a = e.attrs;
  const bad = (why: string) => new OpError('not_closed', `${e.type} ${e.handle} ${why}; hatch boundaries must be closed`, { handle: e.handle, type: e.type });
  const ext = Array.isArray(a.extrusion) ? (a.extrusion as number[]) : [0, 0, 1];
  const plain = Math.abs((ext[0] ?? 0)) < 1e-12 && Math.abs(ext[1] ?? 0) < 1e-12 && (ext[2] ?? 1) > 0;
  switch (e.type) {
    case 'CIRCLE': {
      if (!plain) break;
      const c = a.center as number[], r = Number(a.radius);
      return [[c[0]! - r, c[1]!, 1], [c[0]! + r, c[1]!, 1]];
    }
    case 'LWPOLYLINE': {
      if (!(Number(a.flags ?? 0) & 1)) {
        const pts = (a.points as number[][]) ?? [];
        const f = pts[0], l = pts[pts.length - 1];
        if (!(f && l && pts.length > 2 && f[0] === l[0] && f[1] === l[1])) throw bad('is open');
      }
      if (!plain) break;
      const pts = ((a.points as number[][]) ?? []).map((p) => [p[0]!, p[1]!, p[4] ?? 0] as [number, number, number]);
      if (!(Number(a.flags ?? 0) & 1)) pts.pop();
      if (pts.length < 2) throw bad('has fewer than two vertices');
      return pts;
    }
    case 'POLYLINE':
      if (!(Number(a.flags ?? 0) & 1)) throw bad('is open');
      break;
    case 'ELLIPSE': {
      const s = Number(a.start_param ?? 0), en = Number(a.end_param ?? Math.PI * 2);
      if (Math.abs(Math.abs(en - s) - Math.PI * 2) > 1e-9 && Math.abs(en - s) > 1e-12) throw bad('is an open arc');
      break;
    }
    case 'SPLINE':
      if (!(Number(a.flags ?? 0) & 1)) {
        const poly = dxf.flatten(e, 1e-6, tx.doc)[0] ?? [];
        const f = poly[0], l = poly[poly.length - 1];
        if (!(f && l && Math.hypot(f[0] - l[0], f[1] - l[1]) <= 1e-9 * (1 + Math.abs(f[0]) + Math.abs(f[1])))) throw bad('is open');
      }
      break;
    default:
      throw new OpError('unsupported_entity', `${e.type} ${e.handle} cannot bound a hatch (Circle, closed LWPolyline or Polyline, Ellipse, closed Spline)`, { handle: e.handle, type: e.type });
  }
  // flattened: chord error a millionth of the entity's size
  const box = dxf.boundingBox(e, tx.doc);
  const size = box ? Math.max(box.max[0]! - box.min[0]!, box.max[1]! - box.min[1]!) : 1;
  const polys = dxf.flatten(e, Math.max(size, 1e-9) * 1e-6, tx.doc);
  const pts: BulgeLoop = [];
  for (const poly of polys) for (const p of poly) {
    const last = pts[pts.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) pts.push([p[0], p[1], 0]);
  }
  const f = pts[0], l = pts[pts.length - 1];
  if (f && l && pts.length > 1 && Math.hypot(f[0] - l[0], f[1] - l[1]) <= 1e-9 * (1 + size)) pts.pop();
  if (pts.length < 3) throw bad('has no area');
  return pts;
}
