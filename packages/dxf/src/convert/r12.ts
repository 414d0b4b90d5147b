// What a drawing converted down to R12 is written with in place of what R12 lacks. R12 knows
// neither LWPOLYLINE nor MTEXT nor true colours, and its VIEWPORT keeps its view in ACAD xdata
// ("MVIEW"); each of those has an R12 form that draws the same:
//   LWPOLYLINE -> POLYLINE (2D, VERTEX + SEQEND; widths, bulges, elevation, thickness kept)
//   MTEXT -> one TEXT per paragraph (formatting codes removed, placed by the attachment point)
//   ELLIPSE, SPLINE -> POLYLINE through points on the curve (chords within 1/2000 of its size)
//   LEADER -> POLYLINE through its vertices (the arrowhead is not kept)
//   ARC_DIMENSION, LARGE_RADIAL_DIMENSION, ACAD_TABLE -> INSERT of the block holding their graphics
//   VIEWPORT -> R12 VIEWPORT: centre, size, status, id and the ACAD MVIEW xdata (view, frozen layers)
//   true colour (420) -> the nearest ACI colour (62), on entities and layers
//   IMAGE -> INSERT of an anonymous block with its frame; RAY, XLINE -> LINE within the extents;
//   MESH -> polyface POLYLINE; HATCH, WIPEOUT, MLINE, MULTILEADER and any other type the
//   caller's drawer draws -> INSERT of an anonymous block with what it draws (r12-drawn.ts)
// The records made here are new (the source drawing is not touched); records that need a handle
// get '' and are given one by the caller.
import type { DocumentApi } from '../document-api.js';
import { ENTITY_COMMON } from '../entities/common.js';
import { flatten } from '../geometry/query.js';
import { boundingBox } from '../geometry/bbox.js';
import { mtextFrame } from '../geometry/primitives.js';
import { DEG, isDefaultExtrusion, len, ocsAngle, wcsToOcs } from '../geometry/vec.js';
import { formatFloat } from '../tags/format.js';
import type { DxfRecord, Entity, Tag, XDataGroup } from '../types.js';
import { nearestAci } from './colors.js';
import type { BBox } from '../geometry/bbox.js';
import { clippedInfinite, drawnEntities, imageFrame, insertOf, meshPolyface, type AnonymousBlocks, type R12Drawer, type R12Drawn } from './r12-drawn.js';
import { BudgetError } from '../geometry/expansion.js';

/** What converting entities that need more than themselves uses. */
export interface R12Context {
  /** Draws the types R12 lacks (HATCH, WIPEOUT, MLINE ...); without it they are dropped. */
  drawer?: R12Drawer | undefined;
  blocks: AnonymousBlocks;
  /** The drawing's extents (XY), which RAY and XLINE are clipped to. */
  extents: () => BBox | null;
}

/** Conversions made, by kind ('LWPOLYLINE -> POLYLINE': 12). */
export type Conversions = Record<string, number>;

function count(c: Conversions, kind: string, n = 1): void {
  c[kind] = (c[kind] ?? 0) + n;
}

const COMMON_NAMES = ENTITY_COMMON.attrs.map((a) => a.name);

/** The AcDbEntity attributes of `e` (layer, colour, linetype ...), for a record made from it. */
function commonAttrs(e: DxfRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const n of COMMON_NAMES) if (e.attrs[n] !== undefined) out[n] = e.attrs[n];
  return out;
}

function num(v: unknown, d = 0): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : d;
}

function entity(type: string, attrs: Record<string, unknown>, handle = ''): Entity {
  return { kind: 'entity', type, handle, owner: '', attrs };
}

/** A record made from `src`: its handle and xdata go to the first of its replacements. */
function successor(src: Entity, type: string, attrs: Record<string, unknown>): Entity {
  const e = entity(type, { ...commonAttrs(src), ...attrs }, src.handle);
  if (src.xdata) e.xdata = src.xdata;
  return e;
}

interface Vertex {
  p: readonly number[];
  sw?: number;
  ew?: number;
  bulge?: number;
}

/** A POLYLINE with its VERTEXes and SEQEND; 3D (WCS vertices) or 2D (OCS, at `elevation`). */
function polyline(src: Entity, verts: Vertex[], opts: { closed: boolean; three: boolean; attrs?: Record<string, unknown> }): Entity {
  const layer = src.attrs.layer ?? '0';
  const pl = successor(src, 'POLYLINE', { vertices_follow: 1, flags: (opts.closed ? 1 : 0) | (opts.three ? 8 : 0), ...opts.attrs });
  if (pl.attrs.elevation === undefined) pl.attrs.elevation = [0, 0, 0];
  pl.children = verts.map((v) => {
    const a: Record<string, unknown> = { layer, location: [v.p[0] ?? 0, v.p[1] ?? 0, v.p[2] ?? 0], flags: opts.three ? 32 : 0 };
    if (v.sw) a.start_width = v.sw;
    if (v.ew) a.end_width = v.ew;
    if (v.bulge) a.bulge = v.bulge;
    return entity('VERTEX', a);
  });
  pl.seqend = entity('SEQEND', { layer });
  return pl;
}

function fromLwpolyline(e: Entity): Entity {
  const a = e.attrs;
  const pts = (a.points as number[][] | undefined) ?? [];
  const elev = num(a.elevation);
  const cw = num(a.const_width);
  const attrs: Record<string, unknown> = { elevation: [0, 0, elev] };
  if (cw) {
    attrs.default_start_width = cw;
    attrs.default_end_width = cw;
  }
  if (a.thickness !== undefined) attrs.thickness = a.thickness;
  if (!isDefaultExtrusion(a.extrusion)) attrs.extrusion = a.extrusion;
  // plinegen (128): the linetype runs on along the vertices, as POLYLINE's flag 128 says
  const flags = num(a.flags);
  const pl = polyline(e, pts.map((p) => ({ p: [p[0]!, p[1]!, elev], sw: p[2], ew: p[3], bulge: p[4] })), { closed: (flags & 1) !== 0, three: false, attrs });
  if (flags & 128) pl.attrs.flags = num(pl.attrs.flags) | 128;
  return pl;
}

/** Points on a curve (WCS): a 2D POLYLINE when it lies in a plane parallel to XY, else 3D. */
function fromCurve(e: Entity, doc: DocumentApi): Entity | null {
  const box = boundingBox(e, doc);
  const size = box ? Math.max(box.max[0]! - box.min[0]!, box.max[1]! - box.min[1]!, box.max[2]! - box.min[2]!) : 0;
  const runs = flatten(e, size > 0 ? size / 2000 : 0.01, doc);
  const pts: number[][] = [];
  for (const run of runs) for (const p of run) if (!pts.length || len([p[0]! - pts.at(-1)![0]!, p[1]! - pts.at(-1)![1]!, (p[2] ?? 0) - (pts.at(-1)![2] ?? 0)]) > 0) pts.push(p);
  if (pts.length < 2) return null;
  const first = pts[0]!;
  const last = pts.at(-1)!;
  const closed = pts.length > 2 && len([last[0]! - first[0]!, last[1]! - first[1]!, (last[2] ?? 0) - (first[2] ?? 0)]) < 1e-9 * Math.max(1, size);
  if (closed) pts.pop();
  const z = first[2] ?? 0;
  const flat = pts.every((p) => Math.abs((p[2] ?? 0) - z) <= 1e-9 * Math.max(1, size));
  return polyline(e, pts.map((p) => ({ p })), { closed, three: !flat, attrs: { elevation: [0, 0, flat ? z : 0] } });
}

/** MTEXT content as plain paragraphs: formatting codes removed, `%%` codes and escapes kept. */
export function mtextParagraphs(text: string): string[] {
  const s = text
    .replace(/\\[Pp]/g, '\n')
    .replace(/\^J/g, '\n')
    .replace(/\\S([^;^#/]*)[\^#/]([^;]*);/g, '$1/$2')
    .replace(/\\[ACcFfHhQTWpX][^;]*;/g, '')
    .replace(/\\[LlOoKkNx]/g, '')
    .replace(/\\~/g, ' ')
    .replace(/\\([\\{}])|[{}]/g, (_m, c: string | undefined) => c ?? '');
  return s.split('\n');
}

/** One TEXT per paragraph, top-aligned on the lines AutoCAD spaces them on (5/3 of the height). */
function fromMText(e: Entity): Entity[] {
  const a = e.attrs;
  const ch = num(a.char_height, 2.5) || 2.5;
  const lsf = num(a.line_spacing_factor, 1) || 1;
  const lines = mtextParagraphs(String(a.text ?? ''));
  const step = (5 / 3) * ch * lsf;
  const h = ch + (lines.length - 1) * step;
  const { col, row, ocs, xdir, ydir } = mtextFrame(e);
  const yTop = (row * h) / 2;
  const ins = Array.isArray(a.insert) ? (a.insert as number[]) : [0, 0, 0];
  const rotation = (ocsAngle(ocs, xdir) / DEG + 360) % 360;
  const out: Entity[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const dy = yTop - i * step;
    const wcs = [ins[0]! + ydir[0] * dy, ins[1]! + ydir[1] * dy, (ins[2] ?? 0) + ydir[2] * dy];
    const p = wcsToOcs(ocs, wcs);
    const attrs: Record<string, unknown> = { insert: p, height: ch, text: line, halign: col, valign: 3, align_point: p };
    if (Math.abs(rotation) > 1e-12 && Math.abs(rotation - 360) > 1e-12) attrs.rotation = rotation;
    if (a.style !== undefined) attrs.style = a.style;
    if (!ocs.identity) attrs.extrusion = a.extrusion;
    if (out.length === 0) out.push(successor(e, 'TEXT', attrs));
    else out.push(entity('TEXT', { ...commonAttrs(e), ...attrs }));
  });
  return out;
}

/** The first tag of `code` in an undeclared record's tags, from `from` on. */
function rawAt(tags: Tag[], code: number, from = 0): number {
  for (let i = from; i < tags.length; i++) if (tags[i]![0] === code) return i;
  return -1;
}

/** An INSERT of the anonymous block a dimension or table keeps its graphics in. */
function fromBlockGraphics(e: Entity, doc: DocumentApi): Entity | null {
  const tags = e.extra?.[''] ?? [];
  const at = typeof e.attrs.geometry === 'string' ? -1 : rawAt(tags, 2);
  const name = typeof e.attrs.geometry === 'string' ? e.attrs.geometry : at >= 0 ? tags[at]![1] : '';
  const block = name ? doc.getBlock(name) : undefined;
  if (!block) return null;
  const base = (block.block.attrs.base_point as number[] | undefined) ?? [0, 0, 0];
  let insert = [base[0] ?? 0, base[1] ?? 0, base[2] ?? 0];
  if (e.type === 'ACAD_TABLE') {
    const x = rawAt(tags, 10, Math.max(0, at));
    if (x >= 0) insert = [Number(tags[x]![1]) || 0, Number(tags[x + 1]?.[1]) || 0, Number(tags[x + 2]?.[1]) || 0];
  }
  return successor(e, 'INSERT', { name: block.name, insert });
}

/** An INSERT, with `e`'s handle, layer, colour and linetype, of an anonymous block holding `content`. */
function blockSuccessor(e: Entity, content: Entity[], ctx: R12Context): Entity {
  const ins = insertOf(commonAttrs(e), content, ctx.blocks);
  return successor(e, 'INSERT', ins.attrs);
}

/** R12 VIEWPORT: its own five attributes, the view in ACAD MVIEW xdata as R12 has it (ezdxf's layout). */
function fromViewport(e: Entity, doc: DocumentApi): Entity {
  const a = e.attrs;
  const v = (name: string, d: number[]): number[] => (Array.isArray(a[name]) ? (a[name] as number[]) : d);
  const f = (x: unknown, d = 0): string => formatFloat(num(x, d));
  const flags = num(a.flags);
  const bit = (b: number): string => ((flags & b) !== 0 ? '1' : '0');
  const target = v('view_target_point', [0, 0, 0]);
  const dir = v('view_direction_vector', [0, 0, 1]);
  const vc = v('view_center_point', [0, 0]);
  const sb = v('snap_base_point', [0, 0]);
  const ss = v('snap_spacing', [10, 10]);
  const gs = v('grid_spacing', [10, 10]);
  const frozen: Tag[] = [];
  for (const h of (a.frozen_layer_handles as string[] | undefined) ?? []) {
    const layer = doc.get(h);
    if (layer?.type === 'LAYER' && typeof layer.attrs.name === 'string') frozen.push([1003, layer.attrs.name]);
  }
  const mview: Tag[] = [
    [1000, 'MVIEW'], [1002, '{'], [1070, '16'],
    [1010, f(target[0])], [1020, f(target[1])], [1030, f(target[2])],
    [1010, f(dir[0])], [1020, f(dir[1])], [1030, f(dir[2], 1)],
    [1040, f(a.view_twist_angle)], [1040, f(a.view_height, 1)], [1040, f(vc[0])], [1040, f(vc[1])],
    [1040, f(a.perspective_lens_length, 50)], [1040, f(a.front_clip_plane_z_value)], [1040, f(a.back_clip_plane_z_value)],
    [1070, String(num(a.render_mode))], [1070, String(num(a.circle_zoom, 100))], [1070, bit(0x80)],
    [1070, String(num(a.ucs_icon))], [1070, bit(0x100)], [1070, bit(0x200)], [1070, bit(0x400)], [1070, '0'],
    [1040, f(a.snap_angle)], [1040, f(sb[0])], [1040, f(sb[1])], [1040, f(ss[0], 10)], [1040, f(ss[1], 10)],
    [1040, f(gs[0], 10)], [1040, f(gs[1], 10)], [1070, bit(0x800)],
    [1002, '{'], ...frozen, [1002, '}'], [1002, '}'],
  ];
  const vp = entity('VIEWPORT', {
    ...commonAttrs(e), center: v('center', [0, 0, 0]), width: num(a.width, 1), height: num(a.height, 1), status: num(a.status), id: num(a.id, 2),
  }, e.handle);
  const others = (e.xdata ?? []).filter((g) => g.app.toUpperCase() !== 'ACAD');
  const acad: XDataGroup = { app: 'ACAD', tags: mview };
  vp.xdata = [acad, ...others];
  return vp;
}

/** `attrs` with a true colour replaced by the nearest ACI colour; null when it has none. */
function aciAttrs(attrs: Record<string, unknown>, layer: boolean): Record<string, unknown> | null {
  const tc = attrs.true_color;
  if (typeof tc !== 'number') return null;
  const out = { ...attrs };
  const aci = nearestAci(tc & 0xffffff);
  // a layer that is off keeps its negative colour
  out.color = layer && num(attrs.color, 7) < 0 ? -aci : aci;
  delete out.true_color;
  delete out.color_name;
  return out;
}

/** The record with its (and its children's) true colours as ACI colours; the record itself when none. */
export function withAci<T extends DxfRecord>(rec: T, conversions: Conversions, layer = false): T {
  const attrs = aciAttrs(rec.attrs, layer);
  const e = rec as unknown as Entity;
  const children = e.children?.map((c) => withAci(c, conversions));
  const seqend = e.seqend ? withAci(e.seqend, conversions) : undefined;
  const changedChildren = children?.some((c, i) => c !== e.children![i]) || seqend !== e.seqend;
  if (!attrs && !changedChildren) return rec;
  if (attrs) count(conversions, 'true colour -> nearest ACI colour');
  const copy = { ...rec, attrs: attrs ?? rec.attrs } as T;
  if (children) (copy as unknown as Entity).children = children;
  if (seqend) (copy as unknown as Entity).seqend = seqend;
  return copy;
}

/** Entity types R12 knows. */
export const R12_ENTITIES = new Set([
  'LINE', 'POINT', 'CIRCLE', 'ARC', 'TRACE', 'SOLID', 'TEXT', 'SHAPE', 'INSERT', 'ATTDEF', 'ATTRIB',
  'POLYLINE', 'VERTEX', 'SEQEND', '3DFACE', 'VIEWPORT', 'DIMENSION',
]);

/**
 * The R12 form of an entity: itself (true colours made ACI), its replacements, or null when R12
 * has nothing that draws it (the caller reports the drop).
 */
export function toR12(e: Entity, doc: DocumentApi, conversions: Conversions, ctx?: R12Context): Entity[] | null {
  let out: Entity[] | null;
  const made = (to: string, list: Entity[] | null): Entity[] | null => {
    if (list && list.length) count(conversions, `${e.type} -> ${to}`);
    return list;
  };
  switch (e.type) {
    case 'LWPOLYLINE':
      out = made('POLYLINE', [fromLwpolyline(e)]);
      break;
    case 'MTEXT':
      // an MTEXT with no visible text becomes nothing, and is not a loss
      out = made('TEXT', fromMText(e));
      break;
    case 'ELLIPSE':
    case 'SPLINE':
    case 'LEADER': {
      const pl = fromCurve(e, doc);
      out = made(e.type === 'LEADER' ? 'POLYLINE (without arrowhead)' : 'POLYLINE', pl ? [pl] : null);
      break;
    }
    case 'ARC_DIMENSION':
    case 'LARGE_RADIAL_DIMENSION':
    case 'ACAD_TABLE': {
      const ins = fromBlockGraphics(e, doc);
      out = made('INSERT of its block', ins ? [ins] : null);
      break;
    }
    case 'VIEWPORT':
      out = made('R12 VIEWPORT (MVIEW xdata)', [fromViewport(e, doc)]);
      break;
    case 'IMAGE': {
      const frame = ctx ? imageFrame(e) : [];
      out = made('INSERT of a block with its frame', frame.length ? [blockSuccessor(e, frame, ctx!)] : null);
      break;
    }
    case 'RAY':
    case 'XLINE': {
      const box = ctx?.extents();
      const line = box ? clippedInfinite(e, box) : null;
      out = made('LINE within the extents', line ? [successor(e, 'LINE', line.attrs)] : null);
      break;
    }
    case 'MESH': {
      const pf = meshPolyface(e);
      if (pf) {
        const pl = successor(e, 'POLYLINE', pf.attrs);
        const layer = e.attrs.layer ?? '0';
        pl.children = pf.children!.map((v) => ({ ...v, attrs: { layer, ...v.attrs } }));
        pl.seqend = { ...pf.seqend!, attrs: { layer } };
        out = made('polyface POLYLINE', [pl]);
      } else out = null;
      break;
    }
    default: {
      if (R12_ENTITIES.has(e.type)) {
        out = [e];
        break;
      }
      let drawn: R12Drawn | null | undefined;
      try {
        drawn = ctx?.drawer?.(e, doc);
      } catch (err) {
        // a work budget stops the whole save; anything else the drawer cannot draw is left out (and reported)
        if (err instanceof BudgetError) throw err;
        drawn = null;
      }
      const content = drawn ? drawnEntities(drawn) : [];
      out = made('INSERT of a block with its geometry', content.length ? [blockSuccessor(e, content, ctx!)] : null);
    }
  }
  return out?.map((x) => withAci(x, conversions)) ?? null;
}
