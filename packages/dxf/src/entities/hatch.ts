// HATCH: AcDbHatch (ezdxf entities/hatch.py, boundary_paths.py, pattern.py, gradient.py).
//
// The subclass is parsed into JSON attributes (shapes below) following the tag order AutoCAD
// writes; the writer produces the same order. Robustness: after parsing, the codec writes the
// attributes back and compares with the tags read (numbers compared numerically). When the file
// used a layout the parser does not reproduce exactly (unexpected or missing tags), the parsed
// attributes are kept for geometry and queries AND the whole subclass is kept verbatim in
// `attrs.raw_tags`, which the writer then emits unchanged. A change of geometry
// (`transformEntity`) or an edit that should be written must delete `raw_tags` first, so the
// writer regenerates the subclass from the attributes.
//
// Coordinates of boundary paths, seed points and pattern base points are OCS (2D, z = elevation).
// Arc and ellipse edges keep the angles as stored in DXF: for clockwise edges (`ccw` false) the
// file stores the complementary angles, i.e. the edge covers OCS angles from 360-end_angle to
// 360-start_angle counter-clockwise and is traversed backwards.
import { registerDef } from '../defs/registry.js';
import type { AttrDef, CodecContext, DxfRecord, RecordDef, SubclassCodec, Tag, TagSink, Vec2 } from '../types.js';
import { byName, num, readPoint, versionAtLeast, writeAttr } from './codec-util.js';
import { mapHandleList, mapRawTags } from '../codec/handles.js';

export type HatchEdge =
  | { type: 'line'; start: Vec2; end: Vec2 }
  | { type: 'arc'; center: Vec2; radius: number; start_angle: number; end_angle: number; ccw: boolean }
  | { type: 'ellipse'; center: Vec2; major_axis: Vec2; ratio: number; start_angle: number; end_angle: number; ccw: boolean }
  | {
      type: 'spline';
      degree: number;
      rational: boolean;
      periodic: boolean;
      knots: number[];
      weights: number[];
      control_points: Vec2[];
      fit_points: Vec2[];
      start_tangent?: Vec2;
      end_tangent?: Vec2;
    };

export type HatchPath =
  | { flags: number; type: 'polyline'; is_closed: boolean; vertices: [number, number, number][]; source_handles: string[] }
  | { flags: number; type: 'edges'; edges: HatchEdge[]; source_handles: string[] };

export interface HatchPatternLine {
  angle: number;
  base_point: Vec2;
  offset: Vec2;
  dash_length_items: number[];
}

export interface HatchGradient {
  /** 450: 0 solid, 1 gradient. */
  type: number;
  /** 470, e.g. 'LINEAR', 'CYLINDER', 'SPHERICAL'. */
  name: string;
  /** 421 of the first/second colour as 0xRRGGBB; undefined when absent. */
  color1?: number;
  color2?: number;
  /** 63 (ACI) of the first/second colour, when written. */
  aci1?: number;
  aci2?: number;
  /** 460, in degrees (the file stores radians). */
  rotation: number;
  /** 461 */
  centered: number;
  /** 462 */
  tint: number;
  /** 452: 1 = one-colour gradient. */
  one_color: number;
  /** 453 */
  number_of_colors: number;
}

export const HATCH_ATTRS: AttrDef[] = [
  { name: 'elevation', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
  { name: 'extrusion', code: 210, kind: 'vec3', default: [0, 0, 1], required: true },
  { name: 'pattern_name', code: 2, kind: 'str', default: 'SOLID', required: true },
  { name: 'solid_fill', code: 70, kind: 'int', default: 1, required: true },
  { name: 'associative', code: 71, kind: 'int', default: 0, required: true },
  { name: 'hatch_style', code: 75, kind: 'int', default: 0, required: true },
  { name: 'pattern_type', code: 76, kind: 'int', default: 1, required: true },
  { name: 'pattern_angle', code: 52, kind: 'float', default: 0 },
  { name: 'pattern_scale', code: 41, kind: 'float', default: 1 },
  { name: 'pattern_double', code: 77, kind: 'int', default: 0 },
  { name: 'pixel_size', code: 47, kind: 'float' },
];

const A = byName(HATCH_ATTRS);

class Unexpected extends Error {}

/** A cursor over the subclass's tags with strict expectations. */
class Cursor {
  i = 0;
  constructor(readonly tags: Tag[]) {}
  peek(): number {
    return this.i < this.tags.length ? this.tags[this.i]![0] : -1;
  }
  expect(code: number): string {
    const t = this.tags[this.i];
    if (!t || t[0] !== code) throw new Unexpected(`expected ${code} at ${this.i}, found ${t ? t[0] : 'end'}`);
    this.i++;
    return t[1];
  }
  num(code: number): number {
    return num(this.expect(code));
  }
  opt(code: number): number | undefined {
    return this.peek() === code ? this.num(code) : undefined;
  }
  point2(code: number): Vec2 {
    const x = this.num(code);
    const y = this.num(code + 10);
    return [x, y];
  }
}

function readEdge(c: Cursor): HatchEdge {
  const t = c.num(72);
  switch (t) {
    case 1:
      return { type: 'line', start: c.point2(10), end: c.point2(11) };
    case 2:
      return { type: 'arc', center: c.point2(10), radius: c.num(40), start_angle: c.num(50), end_angle: c.num(51), ccw: c.num(73) !== 0 };
    case 3:
      return {
        type: 'ellipse', center: c.point2(10), major_axis: c.point2(11), ratio: c.num(40),
        start_angle: c.num(50), end_angle: c.num(51), ccw: c.num(73) !== 0,
      };
    case 4: {
      const degree = c.num(94);
      const rational = c.num(73) !== 0;
      const periodic = c.num(74) !== 0;
      const nk = c.num(95);
      const nc = c.num(96);
      const knots: number[] = [];
      for (let k = 0; k < nk; k++) knots.push(c.num(40));
      const control_points: Vec2[] = [];
      const weights: number[] = [];
      for (let k = 0; k < nc; k++) {
        control_points.push(c.point2(10));
        if (c.peek() === 42) weights.push(c.num(42));
      }
      const fit_points: Vec2[] = [];
      const nf = c.opt(97);
      for (let k = 0; k < (nf ?? 0); k++) fit_points.push(c.point2(11));
      const e: HatchEdge = { type: 'spline', degree, rational, periodic, knots, weights, control_points, fit_points };
      if (c.peek() === 12) e.start_tangent = c.point2(12);
      if (c.peek() === 13) e.end_tangent = c.point2(13);
      return e;
    }
    default:
      throw new Unexpected(`unknown edge type ${t}`);
  }
}

function readSourceHandles(c: Cursor): string[] {
  const handles: string[] = [];
  if (c.peek() !== 97) return handles;
  const n = c.num(97);
  for (let k = 0; k < n; k++) handles.push(c.expect(330).trim().toUpperCase());
  return handles;
}

function readPath(c: Cursor): HatchPath {
  const flags = c.num(92);
  if (flags & 2) {
    c.num(72); // has bulge: derived on write
    const is_closed = c.num(73) !== 0;
    const n = c.num(93);
    const vertices: [number, number, number][] = [];
    for (let k = 0; k < n; k++) {
      const [x, y] = c.point2(10);
      const b = c.peek() === 42 ? c.num(42) : 0;
      vertices.push([x, y, b]);
    }
    return { flags, type: 'polyline', is_closed, vertices, source_handles: readSourceHandles(c) };
  }
  const n = c.num(93);
  const edges: HatchEdge[] = [];
  for (let k = 0; k < n; k++) edges.push(readEdge(c));
  return { flags, type: 'edges', edges, source_handles: readSourceHandles(c) };
}

function readGradient(c: Cursor): HatchGradient {
  const g: HatchGradient = { type: c.num(450), name: '', rotation: 0, centered: 0, tint: 0, one_color: 0, number_of_colors: 0 };
  c.num(451);
  g.rotation = (c.num(460) * 180) / Math.PI;
  g.centered = c.num(461);
  g.one_color = c.num(452);
  g.tint = c.num(462);
  g.number_of_colors = c.num(453);
  for (let k = 0; k < g.number_of_colors && k < 2; k++) {
    c.num(463);
    const aci = c.opt(63);
    const rgb = c.num(421);
    if (k === 0) {
      if (aci !== undefined) g.aci1 = aci;
      g.color1 = rgb;
    } else {
      if (aci !== undefined) g.aci2 = aci;
      g.color2 = rgb;
    }
  }
  g.name = c.expect(470);
  return g;
}

function setScalar(rec: DxfRecord, c: Cursor, name: string): void {
  const def = A.get(name)!;
  if (c.peek() !== def.code) return;
  if (def.kind === 'point3' || def.kind === 'vec3') {
    const [p, j] = readPoint(c.tags, c.i, def.code, 3);
    rec.attrs[name] = p;
    c.i = j;
  } else if (def.kind === 'str') rec.attrs[name] = c.expect(def.code);
  else rec.attrs[name] = c.num(def.code);
}

/** Parses the subclass strictly; throws Unexpected on a layout it does not know. */
function parseHatch(tags: Tag[], rec: DxfRecord): void {
  const c = new Cursor(tags);
  setScalar(rec, c, 'elevation');
  setScalar(rec, c, 'extrusion');
  setScalar(rec, c, 'pattern_name');
  setScalar(rec, c, 'solid_fill');
  setScalar(rec, c, 'associative');
  const n = c.num(91);
  const paths: HatchPath[] = [];
  rec.attrs.paths = paths;
  for (let k = 0; k < n; k++) paths.push(readPath(c));
  setScalar(rec, c, 'hatch_style');
  setScalar(rec, c, 'pattern_type');
  setScalar(rec, c, 'pattern_angle');
  setScalar(rec, c, 'pattern_scale');
  setScalar(rec, c, 'pattern_double');
  if (c.peek() === 78) {
    const nl = c.num(78);
    const lines: HatchPatternLine[] = [];
    for (let k = 0; k < nl; k++) {
      const angle = c.num(53);
      const base_point: Vec2 = [c.num(43), c.num(44)];
      const offset: Vec2 = [c.num(45), c.num(46)];
      const nd = c.num(79);
      const dash_length_items: number[] = [];
      for (let d = 0; d < nd; d++) dash_length_items.push(c.num(49));
      lines.push({ angle, base_point, offset, dash_length_items });
    }
    rec.attrs.pattern_lines = lines;
  }
  setScalar(rec, c, 'pixel_size');
  const seeds: Vec2[] = [];
  if (c.peek() === 98) {
    const ns = c.num(98);
    for (let k = 0; k < ns; k++) seeds.push(c.point2(10));
  }
  rec.attrs.seed_points = seeds;
  if (c.peek() === 450) rec.attrs.gradient = readGradient(c);
  if (c.i !== tags.length) throw new Unexpected(`unexpected tag ${c.peek()} at ${c.i}`);
}

function writeEdge(out: TagSink, e: HatchEdge, ctx: CodecContext): void {
  switch (e.type) {
    case 'line':
      out.tag(72, 1);
      out.point(10, e.start);
      out.point(11, e.end);
      return;
    case 'arc':
      out.tag(72, 2);
      out.point(10, e.center);
      out.tag(40, e.radius);
      out.tag(50, e.start_angle);
      out.tag(51, e.end_angle);
      out.tag(73, e.ccw ? 1 : 0);
      return;
    case 'ellipse':
      out.tag(72, 3);
      out.point(10, e.center);
      out.point(11, e.major_axis);
      out.tag(40, e.ratio);
      out.tag(50, e.start_angle);
      out.tag(51, e.end_angle);
      out.tag(73, e.ccw ? 1 : 0);
      return;
    case 'spline': {
      out.tag(72, 4);
      out.tag(94, e.degree);
      out.tag(73, e.rational ? 1 : 0);
      out.tag(74, e.periodic ? 1 : 0);
      out.tag(95, e.knots.length);
      out.tag(96, e.control_points.length);
      for (const k of e.knots) out.tag(40, k);
      const w = e.weights.length === e.control_points.length ? e.weights : null;
      e.control_points.forEach((p, k) => {
        out.point(10, p);
        if (w) out.tag(42, w[k]!);
      });
      if (e.fit_points.length > 0) {
        out.tag(97, e.fit_points.length);
        for (const p of e.fit_points) out.point(11, p);
      } else if (versionAtLeast(ctx.version, 'AC1024')) out.tag(97, 0);
      if (e.start_tangent) out.point(12, e.start_tangent);
      if (e.end_tangent) out.point(13, e.end_tangent);
    }
  }
}

function writePath(out: TagSink, p: HatchPath, ctx: CodecContext): void {
  out.tag(92, p.flags);
  if (p.type === 'polyline') {
    const hasBulge = p.vertices.some((v) => (v[2] ?? 0) !== 0);
    out.tag(72, hasBulge ? 1 : 0);
    out.tag(73, p.is_closed ? 1 : 0);
    out.tag(93, p.vertices.length);
    for (const v of p.vertices) {
      out.point(10, [v[0], v[1]]);
      if (hasBulge) out.tag(42, v[2] ?? 0);
    }
  } else {
    out.tag(93, p.edges.length);
    for (const e of p.edges) writeEdge(out, e, ctx);
  }
  const hs = p.source_handles ?? [];
  out.tag(97, hs.length);
  for (const h of hs) out.tag(330, h);
}

function writeHatch(rec: DxfRecord, out: TagSink, ctx: CodecContext): void {
  const w = (name: string) => writeAttr(out, rec, A.get(name)!, ctx);
  w('elevation');
  w('extrusion');
  w('pattern_name');
  w('solid_fill');
  w('associative');
  const paths = (rec.attrs.paths as HatchPath[] | undefined) ?? [];
  out.tag(91, paths.length);
  for (const p of paths) writePath(out, p, ctx);
  w('hatch_style');
  w('pattern_type');
  const lines = rec.attrs.pattern_lines as HatchPatternLine[] | undefined;
  const solid = Number(rec.attrs.solid_fill ?? 1) !== 0;
  if (!solid || rec.attrs.pattern_angle !== undefined) w('pattern_angle');
  if (!solid || rec.attrs.pattern_scale !== undefined) w('pattern_scale');
  if (!solid || rec.attrs.pattern_double !== undefined) w('pattern_double');
  if (lines) {
    out.tag(78, lines.length);
    for (const l of lines) {
      out.tag(53, l.angle);
      out.tag(43, l.base_point[0]);
      out.tag(44, l.base_point[1]);
      out.tag(45, l.offset[0]);
      out.tag(46, l.offset[1]);
      out.tag(79, l.dash_length_items.length);
      for (const d of l.dash_length_items) out.tag(49, d);
    }
  }
  w('pixel_size');
  const seeds = (rec.attrs.seed_points as Vec2[] | undefined) ?? [];
  out.tag(98, seeds.length);
  for (const s of seeds) out.point(10, [s[0], s[1]]);
  const g = rec.attrs.gradient as HatchGradient | undefined;
  if (g && versionAtLeast(ctx.version, 'AC1018')) {
    out.tag(450, g.type);
    out.tag(451, 0);
    out.tag(460, (g.rotation * Math.PI) / 180);
    out.tag(461, g.centered);
    out.tag(452, g.one_color);
    out.tag(462, g.tint);
    out.tag(453, g.number_of_colors);
    for (let k = 0; k < g.number_of_colors && k < 2; k++) {
      out.tag(463, k);
      const aci = k === 0 ? g.aci1 : g.aci2;
      if (aci !== undefined) out.tag(63, aci);
      out.tag(421, (k === 0 ? g.color1 : g.color2) ?? 0);
    }
    out.tag(470, g.name);
  }
}

/** Collects written tags as [code, value] for comparison. */
class CollectSink implements TagSink {
  tags: [number, string | number][] = [];
  tag(code: number, value: string | number): void {
    this.tags.push([code, value]);
  }
  point(code: number, p: readonly number[]): void {
    p.forEach((v, k) => this.tags.push([code + k * 10, v]));
  }
}

/** True when written tags equal the read ones (numbers numerically, relative 1e-9). */
export function sameTags(read: Tag[], written: [number, string | number][]): boolean {
  if (read.length !== written.length) return false;
  for (let k = 0; k < read.length; k++) {
    const [c1, v1] = read[k]!;
    const [c2, v2] = written[k]!;
    if (c1 !== c2) return false;
    if (typeof v2 === 'number') {
      const a = Number(v1);
      if (!Number.isFinite(a) || Math.abs(a - v2) > 1e-9 * Math.max(1, Math.abs(a))) return false;
    } else if (v1.trim().toUpperCase() !== v2.trim().toUpperCase()) return false;
  }
  return true;
}

export const HATCH_CODEC: SubclassCodec = {
  read(tags, rec, ctx) {
    try {
      parseHatch(tags, rec);
      const sink = new CollectSink();
      writeHatch(rec, sink, ctx);
      if (!sameTags(tags, sink.tags)) rec.attrs.raw_tags = tags.map((t) => [t[0], t[1]] as Tag);
    } catch (e) {
      if (!(e instanceof Unexpected)) throw e;
      rec.attrs.raw_tags = tags.map((t) => [t[0], t[1]] as Tag);
    }
    return [];
  },
  write(rec, out, ctx) {
    const raw = rec.attrs.raw_tags as Tag[] | undefined;
    if (raw) {
      for (const [code, value] of raw) out.tag(code, value);
      return;
    }
    writeHatch(rec, out, ctx);
  },
  mapHandles(rec, map) {
    for (const p of (rec.attrs.paths as HatchPath[] | undefined) ?? []) mapHandleList(p.source_handles, map);
    mapRawTags(rec.attrs.raw_tags, map);
  },
};

export const HATCH: RecordDef = registerDef({
  type: 'HATCH',
  minVersion: 'AC1015',
  subclasses: [{ marker: 'AcDbHatch', attrs: HATCH_ATTRS, codec: HATCH_CODEC }],
});
