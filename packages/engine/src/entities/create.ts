// Creation payloads of POST /entities: one schema per type (spec names and fields), mapped to
// DXF entity records with ezdxf's attribute names (the dxf package's declarations).
import { z } from 'zod';
import { OpError } from '../protocol.js';
import type { DocumentApi, Entity, Vec3 } from '../dxf.js';
import { currentLayer, findEntry, headerNumber, headerString } from '../model.js';

const num = z.number().refine(Number.isFinite, 'expected a finite number');
export const point = z.array(num).min(2).max(3).describe('[x, y] or [x, y, z]');

export function to3(p: readonly number[]): Vec3 {
  return [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0];
}

const colorField = z.union([
  z.number().int().min(0).max(257),
  z.string().regex(/^(bylayer|byblock|red|yellow|green|cyan|blue|magenta|white|#[0-9a-fA-F]{6})$/i),
]).describe('(ACI 0-257, BYLAYER, BYBLOCK, a colour name: red ... white, or #RRGGBB)');

const xdataItem = z.object({ code: z.number().int().min(1000).max(1071), value: z.unknown() });

const common = {
  layer: z.string().min(1).optional().describe('layer name (default: the current layer, CLAYER)'),
  color: colorField.optional(),
  linetype: z.string().min(1).optional(),
  lineweight: z.number().int().min(-3).max(211).optional().describe('1/100 mm; -1 BYLAYER, -2 BYBLOCK, -3 default'),
  ltscale: z.number().positive().optional(),
  xdata: z.record(z.string(), z.array(xdataItem)).optional().describe('application name -> [{code, value}]'),
};

const textFields = {
  height: z.number().positive().optional().describe('text height (default TEXTSIZE)'),
  rotation: num.optional().describe('degrees'),
  style: z.string().optional().describe('text style (default TEXTSTYLE)'),
};

/**
 * JSON Schema for "at least one of these fields" (the builder checks it; zod's object cannot say
 * it): each alternative names its field among its properties, as OpenAPI linters ask.
 */
function oneOfFields(...names: string[]): Array<Record<string, unknown>> {
  return names.map((n) => ({ properties: { [n]: {} }, required: [n] }));
}

export const CREATE_SCHEMAS = {
  Line: z.object({ type: z.literal('Line'), start: point, end: point, ...common }),
  Circle: z.object({ type: z.literal('Circle'), center: point, radius: z.number().positive(), ...common }),
  Arc: z.object({
    type: z.literal('Arc'), center: point, radius: z.number().positive(),
    start_angle: num.describe('degrees, counter-clockwise from +x'), end_angle: num.describe('degrees'), ...common,
  }),
  Ellipse: z.object({
    type: z.literal('Ellipse'), center: point, major_axis: point.describe('relative to the center (the major axis end)'),
    ratio: z.number().positive().max(1).describe('minor / major axis'),
    start_param: num.optional(), end_param: num.optional(), ...common,
  }),
  Point: z.object({ type: z.literal('Point'), location: point, ...common }),
  // `text` and `insert` are accepted for `value` and `position` (normalize() maps them), so the
  // schema can say what a Text really needs.
  Text: z.object({
    type: z.literal('Text'), value: z.string(), position: point,
    halign: z.number().int().min(0).max(5).optional(), valign: z.number().int().min(0).max(3).optional(),
    ...textFields, ...common,
  }),
  MText: z.object({
    type: z.literal('MText'), value: z.string().describe('the text with MTEXT codes (\\P a new paragraph)'), position: point,
    width: z.number().positive().optional(), attachment_point: z.number().int().min(1).max(9).optional(),
    ...textFields, ...common,
  }),
  LWPolyline: z.object({
    type: z.literal('LWPolyline'),
    points: z.array(z.array(num).min(2).max(5)).min(2).describe('[x, y] or [x, y, start_width, end_width, bulge]'),
    closed: z.boolean().optional(), const_width: z.number().min(0).optional(), elevation: num.optional(), ...common,
  }),
  Polyline: z.object({
    type: z.literal('Polyline'), points: z.array(point).min(2), closed: z.boolean().optional(),
    three_d: z.boolean().optional().describe('3D polyline (default: when a point has z != 0)'), ...common,
  }),
  Spline: z.object({
    type: z.literal('Spline'), degree: z.number().int().min(1).max(11).optional(),
    control_points: z.array(point).optional(), fit_points: z.array(point).optional(),
    knots: z.array(num).optional(), weights: z.array(z.number().positive()).optional(), closed: z.boolean().optional(), ...common,
  }).meta({ anyOf: oneOfFields('control_points', 'fit_points') }),
  Insert: z.object({
    type: z.literal('Insert'), name: z.string().min(1).describe('block name'), position: point.optional(), insert: point.optional(),
    xscale: num.optional(), yscale: num.optional(), zscale: num.optional(), scale: num.optional(), rotation: num.optional(),
    attributes: z.record(z.string(), z.union([z.string(), z.number()])).optional().describe('attribute tag -> value'), ...common,
  }),
  Hatch: z.object({
    type: z.literal('Hatch'),
    boundary: z.array(point).min(3).optional().describe('one closed boundary'),
    paths: z.array(z.array(point).min(3)).optional().describe('several boundaries (outer first, holes after)'),
    pattern: z.string().optional().describe('SOLID (default), ANSI31, LINE or NET'),
    pattern_scale: z.number().positive().optional(), pattern_angle: num.optional(), ...common,
  }).meta({ anyOf: oneOfFields('boundary', 'paths') }),
  Solid: z.object({ type: z.literal('Solid'), points: z.array(point).min(3).max(4), ...common }),
  Ray: z.object({ type: z.literal('Ray'), start: point, direction: point, ...common }),
  XLine: z.object({ type: z.literal('XLine'), start: point, direction: point, ...common }),
  Leader: z.object({
    type: z.literal('Leader'), vertices: z.array(point).min(2), dimstyle: z.string().optional(),
    arrow: z.boolean().optional().describe('arrowhead at the first vertex (default true)'), ...common,
  }),
};

export type CreateType = keyof typeof CREATE_SCHEMAS;
const CANON = new Map<string, CreateType>(Object.keys(CREATE_SCHEMAS).map((k) => [k.toLowerCase(), k as CreateType]));
CANON.set('lwpoly', 'LWPolyline');
CANON.set('polyline3d', 'Polyline');
CANON.set('polyline2d', 'Polyline');
CANON.set('blockreference', 'Insert');

/**
 * Normalises `type` ('LINE', 'line', 'Line' -> 'Line') before the union picks the schema, and the
 * aliases of the text types (`text` for `value`, `insert` for `position`).
 */
function normalizeType(v: unknown): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  let o = v as Record<string, unknown>;
  const t = o.type;
  if (typeof t !== 'string') return v;
  const c = CANON.get(t.toLowerCase());
  if (c && c !== t) o = { ...o, type: c };
  if (c === 'Text' || c === 'MText') {
    if (o.value === undefined && o.text !== undefined) o = { ...o, value: o.text };
    if (o.position === undefined && o.insert !== undefined) o = { ...o, position: o.insert };
  }
  return o;
}

const union = z.discriminatedUnion('type', Object.values(CREATE_SCHEMAS) as unknown as [z.ZodObject<{ type: z.ZodLiteral<string> }>, ...z.ZodObject<{ type: z.ZodLiteral<string> }>[]]);
export const createItem = z.preprocess(normalizeType, union);
export type CreateItem = z.output<typeof union> & Record<string, unknown>;

const COLOR_NAMES: Record<string, number> = { bylayer: 256, byblock: 0, red: 1, yellow: 2, green: 3, cyan: 4, blue: 5, magenta: 6, white: 7 };

export interface CreateContext {
  doc: DocumentApi;
  createLayers: boolean;
  /** Called when a layer must be created (recorded by the transaction). */
  addLayer(name: string): void;
  /** Cache of checked names. */
  seenLayers: Map<string, string>;
  /** Header defaults read once per request. */
  defaults?: { color: number; linetype: string | null; textSize: number; textStyle: string; dimstyle: string };
}

function defaults(ctx: CreateContext): NonNullable<CreateContext['defaults']> {
  if (!ctx.defaults) {
    const lt = headerString(ctx.doc, 'CELTYPE', 'ByLayer');
    ctx.defaults = {
      color: headerNumber(ctx.doc, 'CECOLOR', 256),
      linetype: lt.toUpperCase() !== 'BYLAYER' && findEntry(ctx.doc, 'LTYPE', lt) ? lt : null,
      textSize: headerNumber(ctx.doc, 'TEXTSIZE', 2.5),
      textStyle: headerString(ctx.doc, 'TEXTSTYLE', 'Standard'),
      dimstyle: headerString(ctx.doc, 'DIMSTYLE', 'Standard'),
    };
  }
  return ctx.defaults;
}

/** The layer an entity goes on: checked against the LAYER table (or created when allowed). */
export function resolveLayer(ctx: CreateContext, name: string | undefined): string {
  const want = name ?? currentLayer(ctx.doc);
  const key = want.toLowerCase();
  const hit = ctx.seenLayers.get(key);
  if (hit) return hit;
  const e = findEntry(ctx.doc, 'LAYER', want);
  if (e) {
    const n = String(e.attrs.name ?? want);
    ctx.seenLayers.set(key, n);
    return n;
  }
  if (!ctx.createLayers) {
    throw new OpError('unknown_layer', `layer ${want} does not exist; create it first or send create_layers: true`, { layer: want });
  }
  if (/[<>/\\":;?*|,=`]/.test(want)) throw new OpError('invalid_request', `layer: ${JSON.stringify(want)} is not a valid layer name`);
  ctx.addLayer(want);
  ctx.seenLayers.set(key, want);
  return want;
}

function applyCommon(ctx: CreateContext, item: Record<string, unknown>, attrs: Record<string, unknown>): void {
  attrs.layer = resolveLayer(ctx, item.layer as string | undefined);
  const c = item.color;
  if (typeof c === 'number') attrs.color = c;
  else if (typeof c === 'string') {
    if (c.startsWith('#')) attrs.true_color = parseInt(c.slice(1), 16);
    else attrs.color = COLOR_NAMES[c.toLowerCase()];
  } else {
    const cur = defaults(ctx).color;
    if (cur !== 256) attrs.color = cur;
  }
  if (typeof item.linetype === 'string') {
    const lt = item.linetype;
    const u = lt.toUpperCase();
    if (u === 'BYLAYER' || u === 'BYBLOCK') attrs.linetype = u;
    else {
      const e = findEntry(ctx.doc, 'LTYPE', lt);
      if (!e) throw new OpError('unknown_linetype', `linetype ${lt} does not exist`, { linetype: lt });
      attrs.linetype = String(e.attrs.name ?? lt);
    }
  } else {
    const cur = defaults(ctx).linetype;
    if (cur) attrs.linetype = cur;
  }
  if (typeof item.lineweight === 'number') attrs.lineweight = item.lineweight;
  if (typeof item.ltscale === 'number') attrs.ltscale = item.ltscale;
}

function textStyle(ctx: CreateContext, s: unknown): string {
  const want = typeof s === 'string' && s ? s : defaults(ctx).textStyle;
  const e = findEntry(ctx.doc, 'STYLE', want);
  if (!e) {
    if (typeof s !== 'string') return 'Standard';
    throw new OpError('unknown_style', `text style ${want} does not exist`, { style: want });
  }
  return String(e.attrs.name ?? want);
}

export function entity(type: string, attrs: Record<string, unknown>, children?: Entity[]): Entity {
  const e: Entity = { kind: 'entity', type, handle: '', owner: '', attrs };
  if (children) {
    e.children = children;
    e.seqend = { kind: 'entity', type: 'SEQEND', handle: '', owner: '', attrs: { layer: attrs.layer ?? '0' } };
  }
  return e;
}

/** Clamped uniform knot vector for `n` control points of a degree. */
export function clampedKnots(n: number, degree: number): number[] {
  const k: number[] = [];
  const spans = n - degree;
  for (let i = 0; i <= degree; i++) k.push(0);
  for (let i = 1; i < spans; i++) k.push(i / spans);
  for (let i = 0; i <= degree; i++) k.push(1);
  return k;
}

function hatchLines(pattern: string, scale: number, angle: number): Record<string, unknown>[] {
  const p = pattern.toUpperCase();
  const line = (a: number, spacing: number) => {
    const r = ((a + angle) * Math.PI) / 180;
    return { angle: a + angle, base_point: [0, 0], offset: [-Math.sin(r) * spacing * scale, Math.cos(r) * spacing * scale], dash_length_items: [] };
  };
  if (p === 'ANSI31') return [line(45, 3.175)];
  if (p === 'LINE') return [line(0, 3.175)];
  if (p === 'NET') return [line(0, 3.175), line(90, 3.175)];
  throw new OpError('invalid_entity', `hatch pattern ${pattern} is not supported; use SOLID, ANSI31, LINE or NET`);
}

/** Builds the DXF entity record of a creation item. */
export function buildEntity(ctx: CreateContext, item: CreateItem): Entity {
  const it = item as Record<string, unknown> & { type: CreateType };
  const a: Record<string, unknown> = {};
  applyCommon(ctx, it, a);
  switch (it.type) {
    case 'Line':
      a.start = to3(it.start as number[]);
      a.end = to3(it.end as number[]);
      return entity('LINE', a);
    case 'Circle':
      a.center = to3(it.center as number[]);
      a.radius = it.radius;
      return entity('CIRCLE', a);
    case 'Arc':
      a.center = to3(it.center as number[]);
      a.radius = it.radius;
      a.start_angle = it.start_angle;
      a.end_angle = it.end_angle;
      return entity('ARC', a);
    case 'Ellipse': {
      const m = to3(it.major_axis as number[]);
      if (Math.hypot(m[0], m[1], m[2]) === 0) throw new OpError('invalid_entity', 'major_axis: must not be zero');
      a.center = to3(it.center as number[]);
      a.major_axis = m;
      a.ratio = it.ratio;
      a.start_param = (it.start_param as number | undefined) ?? 0;
      a.end_param = (it.end_param as number | undefined) ?? Math.PI * 2;
      return entity('ELLIPSE', a);
    }
    case 'Point':
      a.location = to3(it.location as number[]);
      return entity('POINT', a);
    case 'Text': {
      const text = (it.value ?? it.text) as string | undefined;
      if (text === undefined) throw new OpError('invalid_request', 'Text: field `value`: required');
      const pos = (it.position ?? it.insert) as number[] | undefined;
      if (!pos) throw new OpError('invalid_request', 'Text: field `position`: required');
      a.text = text;
      a.insert = to3(pos);
      a.height = (it.height as number | undefined) ?? defaults(ctx).textSize;
      if (it.rotation !== undefined) a.rotation = it.rotation;
      a.style = textStyle(ctx, it.style);
      if (it.halign) a.halign = it.halign;
      if (it.valign) a.valign = it.valign;
      if (it.halign || it.valign) a.align_point = to3(pos);
      return entity('TEXT', a);
    }
    case 'MText': {
      const text = (it.value ?? it.text) as string | undefined;
      if (text === undefined) throw new OpError('invalid_request', 'MText: field `value`: required');
      const pos = (it.position ?? it.insert) as number[] | undefined;
      if (!pos) throw new OpError('invalid_request', 'MText: field `position`: required');
      a.text = text;
      a.insert = to3(pos);
      a.char_height = (it.height as number | undefined) ?? defaults(ctx).textSize;
      if (it.width !== undefined) a.width = it.width;
      a.attachment_point = (it.attachment_point as number | undefined) ?? 1;
      if (it.rotation !== undefined) a.rotation = it.rotation;
      a.style = textStyle(ctx, it.style);
      return entity('MTEXT', a);
    }
    case 'LWPolyline': {
      const pts = (it.points as number[][]).map((p) => [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0, p[3] ?? 0, p[4] ?? 0]);
      a.points = pts;
      a.flags = it.closed ? 1 : 0;
      if (it.const_width !== undefined) a.const_width = it.const_width;
      if (it.elevation !== undefined) a.elevation = it.elevation;
      return entity('LWPOLYLINE', a);
    }
    case 'Polyline': {
      const pts = (it.points as number[][]).map(to3);
      const three = (it.three_d as boolean | undefined) ?? pts.some((p) => p[2] !== 0);
      a.flags = (three ? 8 : 0) | (it.closed ? 1 : 0);
      if (!three) a.elevation = [0, 0, 0];
      const children = pts.map((p) => entity('VERTEX', { layer: a.layer, location: p, flags: three ? 32 : 0 }));
      return entity('POLYLINE', a, children);
    }
    case 'Spline': {
      const degree = (it.degree as number | undefined) ?? 3;
      const cps = (it.control_points as number[][] | undefined)?.map(to3);
      const fps = (it.fit_points as number[][] | undefined)?.map(to3);
      if (!cps?.length && !fps?.length) throw new OpError('invalid_request', 'Spline: field `control_points` or `fit_points`: required');
      a.degree = degree;
      let flags = 8;
      if (it.closed) flags |= 1;
      if (cps?.length) {
        if (cps.length < degree + 1) throw new OpError('invalid_entity', `Spline: ${cps.length} control points are too few for degree ${degree} (need ${degree + 1})`);
        a.control_points = cps;
        const knots = (it.knots as number[] | undefined) ?? clampedKnots(cps.length, degree);
        if (knots.length !== cps.length + degree + 1) throw new OpError('invalid_entity', `Spline: expected ${cps.length + degree + 1} knots, got ${knots.length}`);
        a.knots = knots;
        if (it.weights) {
          if ((it.weights as number[]).length !== cps.length) throw new OpError('invalid_entity', 'Spline: one weight per control point');
          a.weights = it.weights;
          flags |= 4;
        }
      }
      if (fps?.length) a.fit_points = fps;
      a.flags = flags;
      return entity('SPLINE', a);
    }
    case 'Insert':
      return buildInsert(ctx, it, a);
    case 'Hatch': {
      const paths = (it.paths as number[][][] | undefined) ?? (it.boundary ? [it.boundary as number[][]] : undefined);
      if (!paths?.length) throw new OpError('invalid_request', 'Hatch: field `boundary` or `paths`: required');
      const pattern = ((it.pattern as string | undefined) ?? 'SOLID').toUpperCase();
      a.pattern_name = pattern;
      a.solid_fill = pattern === 'SOLID' ? 1 : 0;
      a.associative = 0;
      a.hatch_style = 0;
      a.pattern_type = 1;
      a.elevation = [0, 0, 0];
      a.paths = paths.map((p, i) => ({
        type: 'polyline', flags: i === 0 ? 3 : 2, is_closed: true,
        vertices: p.map((v) => [v[0] ?? 0, v[1] ?? 0, 0]), source_handles: [],
      }));
      if (pattern !== 'SOLID') {
        a.pattern_angle = (it.pattern_angle as number | undefined) ?? 0;
        a.pattern_scale = (it.pattern_scale as number | undefined) ?? 1;
        a.pattern_lines = hatchLines(pattern, a.pattern_scale as number, 0);
      }
      return entity('HATCH', a);
    }
    case 'Solid': {
      const p = (it.points as number[][]).map(to3);
      a.vtx0 = p[0];
      a.vtx1 = p[1];
      a.vtx2 = p[2];
      a.vtx3 = p[3] ?? p[2];
      return entity('SOLID', a);
    }
    case 'Ray':
    case 'XLine': {
      const d = to3(it.direction as number[]);
      const len = Math.hypot(d[0], d[1], d[2]);
      if (!len) throw new OpError('invalid_entity', `${it.type}: direction must not be zero`);
      a.start = to3(it.start as number[]);
      a.unit_vector = [d[0] / len, d[1] / len, d[2] / len];
      return entity(it.type === 'Ray' ? 'RAY' : 'XLINE', a);
    }
    case 'Leader': {
      a.vertices = (it.vertices as number[][]).map(to3);
      const ds = (it.dimstyle as string | undefined) ?? headerString(ctx.doc, 'DIMSTYLE', 'Standard');
      const e = findEntry(ctx.doc, 'DIMSTYLE', ds);
      if (!e && it.dimstyle) throw new OpError('invalid_entity', `dimension style ${ds} does not exist`);
      a.dimstyle = e ? String(e.attrs.name ?? ds) : 'Standard';
      a.has_arrowhead = it.arrow === false ? 0 : 1;
      a.path_type = 0;
      a.annotation_type = 3;
      return entity('LEADER', a);
    }
  }
  throw new OpError('invalid_entity', `cannot create entities of type ${String(it.type)}`);
}

function buildInsert(ctx: CreateContext, it: Record<string, unknown>, a: Record<string, unknown>): Entity {
  const name = it.name as string;
  const block = ctx.doc.getBlock(name);
  if (!block || name.startsWith('*')) throw new OpError('unknown_block', `no block definition named ${name}`, { block: name });
  const pos = to3((it.position ?? it.insert ?? [0, 0, 0]) as number[]);
  const s = it.scale as number | undefined;
  const xs = (it.xscale as number | undefined) ?? s ?? 1;
  const ys = (it.yscale as number | undefined) ?? s ?? xs;
  const zs = (it.zscale as number | undefined) ?? s ?? xs;
  if (xs === 0 || ys === 0 || zs === 0) throw new OpError('invalid_entity', 'Insert: scale factors must not be 0');
  const rot = (it.rotation as number | undefined) ?? 0;
  a.name = block.name;
  a.insert = pos;
  if (xs !== 1) a.xscale = xs;
  if (ys !== 1) a.yscale = ys;
  if (zs !== 1) a.zscale = zs;
  if (rot) a.rotation = rot;
  const values = (it.attributes ?? {}) as Record<string, string | number>;
  const attdefs = block.entities.filter((e) => e.type === 'ATTDEF');
  const base = (block.block.attrs.base_point as number[] | undefined) ?? [0, 0, 0];
  const r = (rot * Math.PI) / 180, c = Math.cos(r), sn = Math.sin(r);
  const place = (p: number[]): Vec3 => {
    const x = ((p[0] ?? 0) - (base[0] ?? 0)) * xs, y = ((p[1] ?? 0) - (base[1] ?? 0)) * ys;
    return [pos[0] + x * c - y * sn, pos[1] + x * sn + y * c, pos[2] + ((p[2] ?? 0) - (base[2] ?? 0)) * zs];
  };
  const given = new Map(Object.entries(values).map(([k, v]) => [k.toUpperCase(), String(v)]));
  const children: Entity[] = [];
  for (const d of attdefs) {
    const tag = String(d.attrs.tag ?? '');
    const value = given.get(tag.toUpperCase()) ?? String(d.attrs.text ?? '');
    given.delete(tag.toUpperCase());
    const attrs: Record<string, unknown> = {
      layer: d.attrs.layer ?? a.layer, text: value, tag, insert: place((d.attrs.insert as number[] | undefined) ?? [0, 0, 0]),
      height: Number(d.attrs.height ?? 2.5) * Math.abs(ys), rotation: Number(d.attrs.rotation ?? 0) + rot,
      style: d.attrs.style ?? 'Standard',
    };
    for (const k of ['flags', 'halign', 'valign', 'width', 'oblique']) if (d.attrs[k] !== undefined) attrs[k] = d.attrs[k];
    if (d.attrs.align_point !== undefined) attrs.align_point = place(d.attrs.align_point as number[]);
    children.push(entity('ATTRIB', attrs));
  }
  let dy = 0;
  for (const [tag, value] of given) {
    // Attributes without an ATTDEF: stacked above the insertion point.
    children.push(entity('ATTRIB', { layer: a.layer, tag, text: value, insert: [pos[0], pos[1] + dy, pos[2]], height: headerNumber(ctx.doc, 'TEXTSIZE', 2.5), style: 'Standard' }));
    dy -= headerNumber(ctx.doc, 'TEXTSIZE', 2.5) * 1.5;
  }
  if (children.length) {
    a.attribs_follow = 1;
    return entity('INSERT', a, children);
  }
  return entity('INSERT', a);
}
