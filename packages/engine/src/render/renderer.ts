// The renderer: model space or a paper-space layout -> display list. One pass over the entities,
// blocks exploded recursively (with a depth guard), properties resolved (ByLayer / ByBlock, layer 0
// inside blocks, true colour, lineweights, linetypes), invisible layers skipped, viewports mapped
// into paper space and clipped to their frames.
import { existsSync } from 'node:fs';
import { basename, extname, isAbsolute, join, resolve as resolvePath } from 'node:path';
import type { Block, DocumentApi, DxfRecord, Entity, TableEntry } from '../dxf.js';
import { flatten } from '../dxf.js';
import type { Rgb } from './colors.js';
import { aciToRgb } from './colors.js';
import type { Bounds, Clip, DisplayList, GradientFill, PolylinePrim, Prim } from './display-list.js';
import { boundsValid, emptyBounds } from './display-list.js';
import { fontMetrics } from './font.js';
import type { Mat } from './geom.js';
import {
  arcSegments, det2, identity, isDefaultExtrusion, matFrom, meanScale, mul, ocsMatrix, pushArc, pushBulge, pushEllipse, pushPt, pushPts, pushSpline,
  rotationZ, scaleOf, scaling, translation,
} from './geom.js';
import { hatchPatternLines, hatchRings, patternSegments } from './hatch.js';
import type { PatternBudget } from './hatch.js';
import { dashArray, ltypePattern } from './linetype.js';
import { attr, num, pt, rawPoint, rawTags, rawValue, rawValues, rgbOf, str } from './records.js';
import { readMLeader } from './mleader.js';
import { arcAxes, proxyGraphicsBytes, readProxyGraphics } from './proxy-graphics.js';
import { GDT_GLYPHS, parseTolerance } from './tolerance.js';
import { decodeText, layoutMText, parseMText } from './text.js';
import { findLayout, layoutObject } from './layouts.js';
import { pageSetupOf } from '../plot/page-setup.js';
import { BUDGETS, currentMeter, type WorkMeter } from '../budgets.js';
import { entityOverBudget } from '../entity-budget.js';
import { referenceExpansion } from '../dxf.js';

export interface RenderOptions {
  /** Layout name ('Model' or a paper-space layout); default 'Model'. */
  layout?: string;
  /** Chord tolerance for curves, in display units; default from the drawing's extents. */
  tolerance?: number;
  /** Paper colour (default white); ACI 7 draws black on white. */
  background?: Rgb;
  /** Directory relative image paths are resolved against (the drawing's folder). */
  baseDir?: string;
  /**
   * The image files the drawing may show, by IMAGEDEF file name (null: not available). When
   * given, only these are read: the server resolves them inside its workspace beforehand.
   */
  images?: Map<string, string | null>;
  /** Skip layers whose plot flag is off (default true, as plotting does). */
  honorPlotFlag?: boolean;
  /** Maximum block nesting (default 24). */
  maxDepth?: number;
  /** Draw only these top-level entities (a screen updating what changed); default all. */
  handles?: ReadonlySet<string>;
  /** Upper bound of hatch pattern segments for the whole render (default 2 000 000). */
  maxPatternSegments?: number;
  /**
   * The area that will be shown (display units), when the caller knows it: RAY and XLINE are
   * clipped to it. Default: the layout's plot window or limits (when its page setup plots
   * those) together with the extents of everything else.
   */
  area?: Bounds;
  /** Draw entities on layers that are off, frozen or not plotted too (a conversion keeps them). */
  everyLayer?: boolean;
}

interface LayerInfo {
  name: string;
  color: Rgb;
  /** Lineweight in mm. */
  lw: number;
  ltype: string;
  off: boolean;
  frozen: boolean;
  plot: boolean;
}

/** Properties an entity inherits from the insert it is drawn through. */
interface Inherit {
  layer: string;
  color: Rgb;
  lw: number;
  ltype: string;
  /** The insert's layer is off (layer-0 entities of the block are hidden). */
  layerOff: boolean;
}

interface Ctx {
  doc: DocumentApi;
  prims: Prim[];
  clips: Clip[];
  layersSeen: Map<string, true>;
  bounds: Bounds;
  skipped: Record<string, number>;
  layers: Map<string, LayerInfo>;
  ltypes: Map<string, number[] | null>;
  styles: Map<string, { font: string; width: number; oblique: number; height: number; flags: number }>;
  background: Rgb;
  ltscale: number;
  lwDefault: number;
  tol: number;
  baseDir: string | undefined;
  honorPlot: boolean;
  maxDepth: number;
  imperial: boolean;
  pdmode: number;
  budget: PatternBudget;
  /** The request's deadline, checked once per entity drawn. */
  meter: WorkMeter;
  /** Entities block references expanded to so far (BUDGETS.expandedPerRequest), and each block's count. */
  expanded: number;
  expansionMemo: Map<string, number>;
  // state of the current traversal
  clip: number;
  handle: string;
  depth: number;
  inBlock: boolean;
  /** Extra factor for dash lengths (1 / viewport scale when PSLTSCALE is on). */
  dashFactor: number;
  vpFrozen: Set<string> | null;
  stack: Set<string>;
  imageCache: Map<string, string | null>;
  /** Only the images of RenderOptions.images may be read. */
  imagesFixed: boolean;
  /** RAY / XLINE waiting for the area they are clipped to (known once everything else is drawn). */
  infinite: InfiniteLine[];
  /** The layout's own paper-space viewport (id 1, or its stand-in in a layout not current), never drawn. */
  overallViewport: Entity | null;
  /**
   * The layout was not the current one when saved: AutoCAD then writes status 0 (and id 0) for
   * every viewport of it, and a viewport is off only by its flag (90, bit 0x20000).
   */
  layoutInactive: boolean;
  everyLayer: boolean;
}

interface InfiniteLine {
  /** Already in the display list, in drawing order; its points are filled in (or it is dropped) at the end. */
  prim: PolylinePrim;
  x: number;
  y: number;
  dx: number;
  dy: number;
  /** XLINE: infinite both ways; RAY: from (x, y) along (dx, dy) only. */
  both: boolean;
}

const DEFAULT_LAYER: LayerInfo = { name: '0', color: 0, lw: 0.25, ltype: 'CONTINUOUS', off: false, frozen: false, plot: true };

function lwToMm(v: number, def: number): number {
  if (v >= 0) return v / 100;
  return def;
}

function buildLayers(doc: DocumentApi, bg: Rgb, lwDefault: number): Map<string, LayerInfo> {
  const out = new Map<string, LayerInfo>();
  const table = doc.tables.get('LAYER');
  for (const e of table?.entries ?? []) {
    const name = str(e, 'name', '');
    const aci = num(e, 'color', 7);
    const tc = rgbOf(attr(e, 'true_color'));
    const flags = num(e, 'flags', 0);
    const lwRaw = num(e, 'lineweight', -3);
    const plotRaw = attr(e, 'plot');
    out.set(name.toUpperCase(), {
      name,
      color: tc !== undefined ? tc : aciToRgb(Math.abs(aci) || 7, bg),
      lw: lwToMm(lwRaw, lwDefault),
      ltype: str(e, 'linetype', 'CONTINUOUS').toUpperCase(),
      off: aci < 0,
      frozen: (flags & 1) !== 0,
      plot: !(plotRaw === 0 || plotRaw === false) && name.toUpperCase() !== 'DEFPOINTS',
    });
  }
  return out;
}

function headerNum(doc: DocumentApi, name: string, def: number): number {
  const v = doc.getHeader(name);
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return def;
}

/** Extents from the header ($EXTMIN/$EXTMAX) when they look valid. */
export function headerExtents(doc: DocumentApi, paper = false): Bounds | null {
  const a = doc.getHeader(paper ? '$PEXTMIN' : '$EXTMIN');
  const b = doc.getHeader(paper ? '$PEXTMAX' : '$EXTMAX');
  if (!Array.isArray(a) || !Array.isArray(b)) return null;
  const bb = { minX: a[0]!, minY: a[1]!, maxX: b[0]!, maxY: b[1]! };
  if (!boundsValid(bb) || Math.abs(bb.minX) > 1e19 || Math.abs(bb.maxX) > 1e19) return null;
  return bb;
}

function makeCtx(doc: DocumentApi, opts: RenderOptions): Ctx {
  const bg = opts.background ?? 0xffffff;
  const lwd = headerNum(doc, '$LWDEFAULT', 25);
  const lwDefault = lwd > 0 ? lwd / 100 : 0.25;
  const ltypes = new Map<string, number[] | null>();
  for (const e of doc.tables.get('LTYPE')?.entries ?? []) ltypes.set(str(e, 'name', '').toUpperCase(), ltypePattern(e as TableEntry));
  const styles = new Map<string, { font: string; width: number; oblique: number; height: number; flags: number }>();
  for (const e of doc.tables.get('STYLE')?.entries ?? []) {
    styles.set(str(e, 'name', '').toUpperCase(), {
      font: str(e, 'font', 'txt'),
      width: num(e, 'width', 1) || 1,
      oblique: num(e, 'oblique', 0),
      height: num(e, 'height', 0),
      flags: num(e, 'generation_flags', 0),
    });
  }
  let tol = opts.tolerance ?? 0;
  if (!(tol > 0)) {
    const ext = headerExtents(doc);
    tol = ext ? Math.max(ext.maxX - ext.minX, ext.maxY - ext.minY) / 4000 : 0;
    if (!(tol > 0)) tol = 0.01;
  }
  return {
    doc,
    prims: [],
    clips: [],
    layersSeen: new Map(),
    bounds: emptyBounds(),
    skipped: {},
    layers: buildLayers(doc, bg, lwDefault),
    ltypes,
    styles,
    background: bg,
    ltscale: headerNum(doc, '$LTSCALE', 1) || 1,
    lwDefault,
    tol,
    baseDir: opts.baseDir,
    honorPlot: opts.honorPlotFlag ?? true,
    maxDepth: opts.maxDepth ?? 24,
    imperial: headerNum(doc, '$MEASUREMENT', 1) === 0,
    pdmode: headerNum(doc, '$PDMODE', 0),
    budget: { segments: opts.maxPatternSegments ?? 2_000_000 },
    meter: currentMeter(),
    expanded: 0,
    expansionMemo: new Map(),
    clip: -1,
    handle: '',
    depth: 0,
    inBlock: false,
    dashFactor: 1,
    vpFrozen: null,
    stack: new Set(),
    imageCache: opts.images ? new Map(opts.images) : new Map(),
    imagesFixed: opts.images !== undefined,
    infinite: [],
    overallViewport: null,
    layoutInactive: false,
    everyLayer: opts.everyLayer ?? false,
  };
}

function layerInfo(ctx: Ctx, name: string): LayerInfo {
  const key = name.toUpperCase();
  let l = ctx.layers.get(key);
  if (!l) {
    l = { ...DEFAULT_LAYER, name, color: aciToRgb(7, ctx.background), lw: ctx.lwDefault };
    ctx.layers.set(key, l);
  }
  return l;
}

/** Resolved drawing properties of one entity. */
interface Props {
  layer: string;
  color: Rgb;
  lw: number;
  ltype: string;
  ltscale: number;
  layerOff: boolean;
}

/** Resolves an entity's properties; null when it is not drawn (layer off/frozen/not plotted, invisible). */
function resolveProps(ctx: Ctx, e: Entity, parent: Inherit | null): Props | null {
  const a = e.attrs;
  if (a.invisible === 1 || a.invisible === true) return null;
  let layerName = (a.layer as string | undefined) ?? (e.attrs.layer === undefined ? (attr(e, 'layer') as string | undefined) : undefined) ?? '0';
  let layerOff: boolean;
  let li: LayerInfo;
  if (parent && layerName === '0') {
    layerName = parent.layer;
    li = layerInfo(ctx, layerName);
    layerOff = parent.layerOff;
  } else {
    li = layerInfo(ctx, layerName);
    layerOff = li.off && !ctx.everyLayer;
  }
  if (!ctx.everyLayer && (li.frozen || (ctx.honorPlot && !li.plot))) return null;
  if (ctx.vpFrozen && ctx.vpFrozen.has(layerName.toUpperCase())) return null;
  // colour
  let color: Rgb;
  const tc = a.true_color;
  const aci = typeof a.color === 'number' ? a.color : 256;
  if (typeof tc === 'number' && aci !== 0 && aci !== 256) color = tc & 0xffffff;
  else if (typeof tc === 'number' && aci === 256 && a.color !== undefined) color = li.color;
  else if (typeof tc === 'number') color = tc & 0xffffff;
  else if (aci === 256) color = li.color;
  else if (aci === 0) color = parent ? parent.color : aciToRgb(7, ctx.background);
  else color = aciToRgb(aci, ctx.background);
  // lineweight
  const lwRaw = typeof a.lineweight === 'number' ? a.lineweight : -1;
  const lw = lwRaw >= 0 ? lwRaw / 100 : lwRaw === -2 ? (parent ? parent.lw : ctx.lwDefault) : lwRaw === -3 ? ctx.lwDefault : li.lw;
  // linetype
  const lt = typeof a.linetype === 'string' ? a.linetype.toUpperCase() : 'BYLAYER';
  const ltype = lt === 'BYLAYER' ? li.ltype : lt === 'BYBLOCK' ? (parent ? parent.ltype : 'CONTINUOUS') : lt;
  const ltscale = typeof a.ltscale === 'number' && a.ltscale > 0 ? a.ltscale : 1;
  return { layer: layerName, color, lw, ltype, ltscale, layerOff };
}

function touch(ctx: Ctx, pts: readonly number[]): void {
  const b = ctx.bounds;
  for (let i = 0; i < pts.length; i += 2) {
    const x = pts[i]!;
    const y = pts[i + 1]!;
    if (x < b.minX) b.minX = x;
    if (x > b.maxX) b.maxX = x;
    if (y < b.minY) b.minY = y;
    if (y > b.maxY) b.maxY = y;
  }
}

function seeLayer(ctx: Ctx, layer: string): void {
  if (!ctx.layersSeen.has(layer)) ctx.layersSeen.set(layer, true);
}

function finite(pts: readonly number[]): boolean {
  for (let i = 0; i < pts.length; i++) if (!Number.isFinite(pts[i])) return false;
  return true;
}

function emitPolyline(ctx: Ctx, p: Props, m: Mat, pts: number[], closed: boolean, width = 0, breaks?: number[], extents = true): PolylinePrim | null {
  if (pts.length < 2 || !finite(pts)) return null;
  let dash: number[] | null = null;
  let dashOffset = 0;
  if (p.ltype !== 'CONTINUOUS' && p.ltype !== '') {
    const pat = ctx.ltypes.get(p.ltype);
    if (pat) {
      const scale = ctx.ltscale * p.ltscale * scaleOf(m) * ctx.dashFactor;
      const d = dashArray(pat, scale);
      if (d) {
        let period = 0;
        for (const x of d.dash) period += x;
        // too fine to show: draw continuous (as CAD programs do)
        if (period > ctx.tol * 2) {
          dash = d.dash;
          dashOffset = d.offset;
        }
      }
    }
  }
  seeLayer(ctx, p.layer);
  if (extents) touch(ctx, pts);
  const prim: PolylinePrim = { kind: 'polyline', layer: p.layer, color: p.color, clip: ctx.clip, handle: ctx.handle, pts, closed, lw: p.lw, dash, dashOffset, width };
  if (breaks && breaks.length) prim.breaks = breaks;
  ctx.prims.push(prim);
  return prim;
}

// ---- MLINE ---------------------------------------------------------------------------------------

interface MLineVertex {
  loc: number[];
  miter: number[];
  /** Per element: its parameters; the first is the distance along the miter from the vertex. */
  params: number[][];
}

interface MLineElement {
  offset: number;
  color: number;
  ltype: string;
}

interface MLineStyle {
  flags: number;
  fill: number;
  elements: MLineElement[];
}

/** Vertices of an MLINE from its tags (11 location, 12 direction, 13 miter, 74/41 element parameters). */
function mlineVertices(e: DxfRecord): MLineVertex[] {
  const out: MLineVertex[] = [];
  let cur: MLineVertex | null = null;
  let params: number[] | null = null;
  for (const [code, raw] of rawTags(e)) {
    const v = Number(raw);
    if (code === 11) {
      cur = { loc: [v, 0, 0], miter: [0, 1, 0], params: [] };
      out.push(cur);
      params = null;
    } else if (!cur) continue;
    else if (code === 21) cur.loc[1] = v;
    else if (code === 31) cur.loc[2] = v;
    else if (code === 13) cur.miter = [v, 0, 0];
    else if (code === 23) cur.miter[1] = v;
    else if (code === 33) cur.miter[2] = v;
    else if (code === 74) {
      params = [];
      cur.params.push(params);
    } else if (code === 41 && params) params.push(v);
  }
  return out;
}

function mlineStyle(ctx: Ctx, e: DxfRecord): MLineStyle | null {
  const h = rawValue(e, 340);
  let rec = h ? ctx.doc.get(h) : undefined;
  if (!rec || rec.type !== 'MLINESTYLE') {
    const name = (rawValue(e, 2) ?? 'STANDARD').toUpperCase();
    rec = ctx.doc.objects.find((o) => o.type === 'MLINESTYLE' && (str(o, 'name', '') || rawValue(o, 2) || '').toUpperCase() === name);
  }
  if (!rec) return null;
  const style: MLineStyle = { flags: 0, fill: 256, elements: [] };
  let inElements = false;
  let el: MLineElement | null = null;
  for (const [code, raw] of rawTags(rec)) {
    if (code === 70 && !inElements) style.flags = Number(raw) | 0;
    else if (code === 62 && !inElements) style.fill = Number(raw) | 0;
    else if (code === 71) inElements = true;
    else if (code === 49 && inElements) {
      el = { offset: Number(raw), color: 256, ltype: 'BYLAYER' };
      style.elements.push(el);
    } else if (code === 62 && el) el.color = Number(raw) | 0;
    else if (code === 6 && el) el.ltype = raw;
  }
  return style;
}

function aciIn(ctx: Ctx, p: Props, aci: number): Rgb {
  if (aci === 256) return layerInfo(ctx, p.layer).color;
  if (aci === 0) return p.color;
  return aciToRgb(Math.abs(aci) || 7, ctx.background);
}

/**
 * MLINE: each element a polyline through the vertices moved along their miters by the element's
 * first parameter (the offsets of the style, scaled and justified, as written); the style gives
 * colours, linetypes, fill, miter lines and caps. Break parameters (MLEDIT cuts) are not applied.
 */
function drawMLine(ctx: Ctx, e: Entity, p: Props, m: Mat): void {
  const vs = mlineVertices(e);
  const n = vs.length;
  const count = n ? vs[0]!.params.length : 0;
  if (n < 2 || !count || vs.some((v) => v.params.length !== count)) {
    skip(ctx, 'MLINE');
    return;
  }
  const style = mlineStyle(ctx, e);
  const elements = style && style.elements.length === count ? style.elements : null;
  // code 71 (70 is the justification, which the parameters already include)
  const flags = typeof e.attrs.flags === 'number' ? e.attrs.flags : Number(rawValue(e, 71) ?? 0) | 0;
  const closed = (flags & 2) !== 0;
  const sflags = style?.flags ?? 0;
  // points[k][i]: element i at vertex k, WCS
  const points = vs.map((v) => v.params.map((q) => {
    const d = q[0] ?? 0;
    return [v.loc[0]! + v.miter[0]! * d, v.loc[1]! + v.miter[1]! * d, v.loc[2]! + v.miter[2]! * d];
  }));
  const propsOf = (i: number): Props => {
    const el = elements?.[i];
    if (!el) return p;
    const lt = el.ltype.toUpperCase();
    const ltype = lt === 'BYLAYER' ? layerInfo(ctx, p.layer).ltype : lt === 'BYBLOCK' ? p.ltype : lt;
    return { ...p, color: aciIn(ctx, p, el.color), ltype };
  };
  const order = [...Array(count).keys()].sort((a, b) => (elements ? elements[a]!.offset - elements[b]!.offset : (vs[0]!.params[a]![0] ?? 0) - (vs[0]!.params[b]![0] ?? 0)));
  const bottom = order[0]!;
  const top = order[count - 1]!;
  const place = (q: number[][]): number[] => {
    const out: number[] = [];
    for (const r of q) pushPt(out, m, r[0]!, r[1]!, r[2]!);
    return out;
  };
  if (sflags & 1 && style) {
    // closed: the band between two rings (filled even-odd); open: one ring out along one border, back along the other
    const rings = closed
      ? [place(points.map((k) => k[bottom]!)), place(points.map((k) => k[top]!))]
      : [place([...points.map((k) => k[bottom]!), ...points.map((k) => k[top]!).reverse()])];
    emitPath(ctx, p, rings, null, false, aciIn(ctx, p, style.fill));
  }
  for (let i = 0; i < count; i++) emitPolyline(ctx, propsOf(i), m, place(points.map((k) => k[i]!)), closed);
  const across = (k: number): void => {
    const a = points[k]![top]!;
    const b = points[k]![bottom]!;
    const mid = [(a[0]! + b[0]!) / 2, (a[1]! + b[1]!) / 2, (a[2]! + b[2]!) / 2];
    emitPolyline(ctx, propsOf(top), m, place([a, mid]), false);
    emitPolyline(ctx, propsOf(bottom), m, place([b, mid]), false);
  };
  if (sflags & 2) for (let k = closed ? 0 : 1; k < n - (closed ? 0 : 1); k++) across(k);
  if (closed) return;
  const ex = pt(e, 'extrusion', [0, 0, 1]);
  const cap = (k: number, from: number, to: number): void => {
    const a = points[k]![from]!;
    const b = points[k]![to]!;
    const c = [(a[0]! + b[0]!) / 2, (a[1]! + b[1]!) / 2, (a[2]! + b[2]!) / 2];
    const u = [a[0]! - c[0]!, a[1]! - c[1]!, a[2]! - c[2]!];
    const r = Math.hypot(u[0]!, u[1]!, u[2]!);
    if (!(r > 0)) return;
    // v = extrusion x u: the half circle turns counter-clockwise about the extrusion from `from`
    const v = [ex[1]! * u[2]! - ex[2]! * u[1]!, ex[2]! * u[0]! - ex[0]! * u[2]!, ex[0]! * u[1]! - ex[1]! * u[0]!];
    const vl = Math.hypot(v[0]!, v[1]!, v[2]!) || 1;
    const steps = Math.max(8, Math.min(128, Math.ceil(Math.PI / Math.acos(Math.max(-1, 1 - ctx.tol / r)))));
    const arc = (t0: number, t1: number): number[][] => {
      const out: number[][] = [];
      const k2 = Math.max(2, Math.ceil((steps * (t1 - t0)) / Math.PI));
      for (let j = 0; j <= k2; j++) {
        const t = t0 + ((t1 - t0) * j) / k2;
        const cs = Math.cos(t);
        const sn = (Math.sin(t) * r) / vl;
        out.push([c[0]! + u[0]! * cs + v[0]! * sn, c[1]! + u[1]! * cs + v[1]! * sn, c[2]! + u[2]! * cs + v[2]! * sn]);
      }
      return out;
    };
    const pa = propsOf(from);
    const pb = propsOf(to);
    if (pa.color === pb.color) emitPolyline(ctx, pa, m, place(arc(0, Math.PI)), false);
    else {
      emitPolyline(ctx, pa, m, place(arc(0, Math.PI / 2)), false);
      emitPolyline(ctx, pb, m, place(arc(Math.PI / 2, Math.PI)), false);
    }
  };
  if (sflags & 16) across(0);
  if (sflags & 64) cap(0, top, bottom);
  if (sflags & 256) across(n - 1);
  if (sflags & 1024) cap(n - 1, bottom, top);
}

// ---- leader arrowheads ---------------------------------------------------------------------------

/** The entity's ACAD DSTYLE xdata overrides: dimension variable group code -> value. */
function dstyleOverrides(e: DxfRecord): Map<number, string> {
  const out = new Map<number, string>();
  const tags = e.xdata?.find((g) => g.app.toUpperCase() === 'ACAD')?.tags;
  if (!tags) return out;
  const at = tags.findIndex((t) => t[0] === 1000 && t[1].toUpperCase() === 'DSTYLE');
  if (at < 0) return out;
  for (let i = at + 1; i + 1 < tags.length; i++) {
    const t = tags[i]!;
    if (t[0] === 1002 && t[1] === '}') break;
    if (t[0] === 1070) {
      out.set(Number(t[1]), tags[i + 1]![1]);
      i++;
    }
  }
  return out;
}

function dimStyle(ctx: Ctx, name: string): DxfRecord | undefined {
  const up = name.toUpperCase();
  return ctx.doc.tables.get('DIMSTYLE')?.entries.find((d) => str(d, 'name', '').toUpperCase() === up);
}

/** A dimension variable of an entity: its override, else its dimension style's value. */
function dimVar(e: DxfRecord, style: DxfRecord | undefined, code: number): string | undefined {
  const ov = dstyleOverrides(e).get(code);
  if (ov !== undefined) return ov;
  return style ? rawValue(style, code) : undefined;
}

/** DIMSCALE of an entity (its override, else its style's); 1 when unset or not positive. */
function dimScale(e: DxfRecord, style: DxfRecord | undefined): number {
  const scale = Number(dimVar(e, style, 40) ?? 1);
  return scale > 0 ? scale : 1;
}

/** Half the width of the closed arrows at unit length (ezdxf's and AutoCAD's 18.92 degree arrow). */
const ARROW_HALF = Math.sin(((18.924644 / 2) * Math.PI) / 180);

/**
 * The built-in arrowheads (what AutoCAD draws for the names without a block), at unit size, tip at
 * the origin pointing along +x. Polylines are strokes, `fill` rings are filled.
 */
function arrowShape(name: string): { strokes: number[][]; fill: number[][]; closed: boolean } | null {
  const circle = (r: number, cx = 0): number[] => {
    const out: number[] = [];
    for (let i = 0; i < 32; i++) out.push(cx + r * Math.cos((i * Math.PI) / 16), r * Math.sin((i * Math.PI) / 16));
    return out;
  };
  const open = (deg: number): number[] => {
    const h = Math.sin(((deg / 2) * Math.PI) / 180);
    return [-1, h, 0, 0, -1, -h];
  };
  const tri = [-1, ARROW_HALF, 0, 0, -1, -ARROW_HALF];
  const tail = [-0.5, 0, -1, 0];
  switch (name) {
    case '':
    case 'CLOSEDFILLED':
      return { strokes: [], fill: [tri], closed: false };
    case 'CLOSEDBLANK':
      return { strokes: [tri], fill: [], closed: true };
    case 'CLOSED':
      return { strokes: [tri, [0, 0, -1, 0]], fill: [], closed: true };
    case 'OPEN':
      return { strokes: [open(18.924644), [0, 0, -1, 0]], fill: [], closed: false };
    case 'OPEN30':
      return { strokes: [open(30), [0, 0, -1, 0]], fill: [], closed: false };
    case 'OPEN90':
      return { strokes: [open(90), [0, 0, -1, 0]], fill: [], closed: false };
    case 'DOT':
      return { strokes: [tail], fill: [circle(0.5)], closed: false };
    case 'DOTSMALL':
      return { strokes: [], fill: [circle(0.125)], closed: false };
    case 'DOTBLANK':
      return { strokes: [circle(0.5), tail], fill: [], closed: true };
    case 'SMALL':
      return { strokes: [circle(0.25)], fill: [], closed: true };
    case 'ORIGIN':
      return { strokes: [circle(0.5), [0, 0, -1, 0]], fill: [], closed: true };
    case 'ORIGIN2':
      return { strokes: [circle(0.5), circle(0.25), tail], fill: [], closed: true };
    case 'OBLIQUE':
    case 'ARCHTICK':
      return { strokes: [[-0.5, -0.5, 0.5, 0.5]], fill: [], closed: false };
    case 'BOXFILLED':
      return { strokes: [tail], fill: [[-0.5, -0.5, 0.5, -0.5, 0.5, 0.5, -0.5, 0.5]], closed: false };
    case 'BOXBLANK':
      return { strokes: [[-0.5, -0.5, 0.5, -0.5, 0.5, 0.5, -0.5, 0.5], tail], fill: [], closed: true };
    case 'DATUMFILLED':
      return { strokes: [], fill: [[0, 0.57735, 0, -0.57735, -1, 0]], closed: false };
    case 'DATUMBLANK':
      return { strokes: [[0, 0.57735, 0, -0.57735, -1, 0]], fill: [], closed: true };
    case 'NONE':
      return { strokes: [], fill: [], closed: false };
    default:
      return null;
  }
}

/**
 * The arrowhead at a leader's first vertex: the block DIMLDRBLK names (DIMBLK before R2000, which
 * has no DIMLDRBLK), or the built-in arrow of that name, sized DIMASZ * DIMSCALE and pointing
 * away from the second vertex.
 */
function drawLeaderArrow(ctx: Ctx, e: Entity, p: Props, m: Mat, vs: number[][]): void {
  const style = dimStyle(ctx, str(e, 'dimstyle', 'Standard'));
  const metric = !ctx.imperial;
  const scale = dimScale(e, style);
  const asz = Number(dimVar(e, style, 41) ?? (metric ? 2.5 : 0.18));
  const size = (Number.isFinite(asz) ? asz : 0) * scale;
  if (!(size > 0)) return;
  let name = '';
  const modern = ctx.doc.version >= 'AC1015';
  const handle = modern ? dimVar(e, style, 341) : undefined;
  if (handle && handle !== '0') name = recordName(ctx, handle);
  else if (!modern) name = dimVar(e, style, 5) ?? '';
  drawArrowhead(ctx, p, m, vs[0]!, vs[1]!, size, name, 'LEADER');
}

/**
 * An arrowhead of `size` with its tip at `tip`, pointing away from `from`: the block `name` when the
 * drawing has it, else the built-in shape of that name (closed filled when `name` is empty).
 */
function drawArrowhead(ctx: Ctx, p: Props, m: Mat, tip: readonly number[], from: readonly number[], size: number, name: string, owner: string): void {
  const rot = Math.atan2(tip[1]! - from[1]!, tip[0]! - from[0]!);
  const local = mul(translation(tip[0]!, tip[1]!, tip[2] ?? 0), mul(rotationZ(rot), scaling(size, size, size)));
  const block = name ? ctx.doc.getBlock(name) : undefined;
  if (block) {
    const base = pt(block.block, 'base_point');
    drawBlockContent(ctx, block, mul(m, mul(local, translation(-(base[0] ?? 0), -(base[1] ?? 0), -(base[2] ?? 0)))), p);
    return;
  }
  const shape = arrowShape(name.replace(/^_/, '').toUpperCase());
  if (!shape) {
    skip(ctx, `${owner}(arrow ${name})`);
    return;
  }
  const full = mul(m, local);
  const place = (q: number[]): number[] => {
    const out: number[] = [];
    for (let i = 0; i + 1 < q.length; i += 2) pushPt(out, full, q[i]!, q[i + 1]!, 0);
    return out;
  };
  const lp = { ...p, ltype: 'CONTINUOUS' };
  for (const s of shape.strokes) emitPolyline(ctx, lp, full, place(s), shape.closed && s.length > 4);
  if (shape.fill.length) emitPath(ctx, lp, shape.fill.map(place), null, false);
}

// ---- MULTILEADER -----------------------------------------------------------------------------------

/**
 * A packed colour as MULTILEADER and proxy graphics store it (high byte 0xC0 ByLayer, 0xC1 ByBlock,
 * 0xC2 RGB, 0xC3 ACI), as drawn: ByLayer and ByBlock take the entity's resolved colour.
 */
function packedColor(ctx: Ctx, raw: number, p: Props): Rgb {
  const kind = (raw >>> 24) & 0xff;
  if (kind === 0xc2) return raw & 0xffffff;
  if (kind === 0xc3) return aciToRgb(raw & 0xff, ctx.background);
  return p.color;
}

function recordName(ctx: Ctx, handle: string): string {
  if (!handle || handle === '0') return '';
  const rec = ctx.doc.get(handle);
  return rec ? str(rec, 'name', '') : '';
}

/**
 * Leader lines (straight; spline leaders too, through their vertices), doglegs, arrowheads, and
 * the MTEXT or block content, from the entity's context data: the geometry AutoCAD last computed.
 */
function drawMultiLeader(ctx: Ctx, e: Entity, p: Props, m: Mat): void {
  const ml = readMLeader(e);
  if (!ml) {
    skip(ctx, 'MULTILEADER');
    return;
  }
  const lp: Props = { ...p, color: packedColor(ctx, ml.lineColor, p) };
  const arrow = recordName(ctx, ml.arrowHandle);
  if (ml.lineType !== 0) {
    for (const branch of ml.branches) {
      for (const line of branch.lines) {
        const vs = branch.landing ? [...line.vertices, branch.landing] : line.vertices;
        if (vs.length < 2) continue;
        const pts: number[] = [];
        pushPts(pts, m, vs);
        emitPolyline(ctx, lp, m, pts, false);
        if (ml.arrowSize > 0) drawArrowhead(ctx, lp, m, vs[0]!, vs[1]!, ml.arrowSize, arrow, 'MULTILEADER');
      }
      if (ml.doglegEnabled && branch.landing && branch.dogleg && branch.doglegLength > 0 && branch.lines.length > 0) {
        const [x, y, z] = branch.landing;
        const [dx, dy, dz] = branch.dogleg;
        const d = branch.doglegLength;
        const pts: number[] = [];
        pushPt(pts, m, x!, y!, z ?? 0);
        pushPt(pts, m, x! + dx! * d, y! + dy! * d, (z ?? 0) + (dz ?? 0) * d);
        emitPolyline(ctx, lp, m, pts, false);
      }
    }
  }
  const base = { kind: 'entity' as const, handle: e.handle, owner: e.owner };
  if (ml.text) {
    const t = ml.text;
    const style = recordName(ctx, t.styleHandle);
    const attrs: Record<string, unknown> = {
      layer: p.layer,
      insert: t.location,
      char_height: t.height > 0 ? t.height : 2.5,
      attachment_point: t.attachment,
      text_direction: t.direction,
      text: t.content,
      ...(t.width > 0 ? { width: t.width } : {}),
      ...(style ? { style } : {}),
    };
    drawMText(ctx, { ...base, type: 'MTEXT', attrs }, { ...p, color: packedColor(ctx, t.color, p) }, m, ml.textFrame ? Math.max(0, ml.landingGap) : undefined);
  }
  if (ml.block) {
    const b = ml.block;
    const name = recordName(ctx, b.handle);
    if (!name) skip(ctx, 'MULTILEADER(no block)');
    else {
      const attrs = { layer: p.layer, name, insert: b.location, xscale: b.scale[0], yscale: b.scale[1], zscale: b.scale[2], rotation: (b.rotation * 180) / Math.PI };
      drawInsert(ctx, { ...base, type: 'INSERT', attrs }, { ...p, color: packedColor(ctx, b.color, p) }, m, null);
    }
  }
}

// ---- proxy graphics ----------------------------------------------------------------------------------

/**
 * Draws an entity the renderer has no code for from its proxy graphics (the picture its authoring
 * program stored with it), as ezdxf and AutoCAD do. False when it has none or nothing to draw.
 */
function drawProxyGraphics(ctx: Ctx, e: Entity, p: Props, m0: Mat): boolean {
  const bytes = proxyGraphicsBytes(e);
  if (!bytes) return false;
  let drawn = false;
  let cp: Props = p;
  let m = m0;
  const stack: Mat[] = [];
  for (const it of readProxyGraphics(bytes)) {
    switch (it.kind) {
      case 'color':
        cp = { ...cp, color: it.aci > 0 && it.aci < 256 ? aciToRgb(it.aci, ctx.background) : p.color };
        break;
      case 'trueColor':
        cp = { ...cp, color: packedColor(ctx, it.raw, p) };
        break;
      case 'lineweight':
        cp = { ...cp, lw: it.value >= 0 ? it.value / 100 : p.lw };
        break;
      case 'pushMatrix': {
        const a = it.matrix;
        // translation in the last column, or (row-vector convention) in the last row
        const rowVectors = a[3] === 0 && a[7] === 0 && a[11] === 0 && (a[12] !== 0 || a[13] !== 0 || a[14] !== 0);
        const t = rowVectors ? [a[0]!, a[4]!, a[8]!, a[12]!, a[1]!, a[5]!, a[9]!, a[13]!, a[2]!, a[6]!, a[10]!, a[14]!] : a.slice(0, 12);
        stack.push(m);
        m = mul(m, matFrom(t));
        break;
      }
      case 'popMatrix':
        m = stack.pop() ?? m0;
        break;
      case 'polyline': {
        const pts: number[] = [];
        pushPts(pts, m, it.pts);
        if (it.filled) emitPath(ctx, cp, [pts], null, false);
        else emitPolyline(ctx, cp, m, pts, it.closed);
        drawn = true;
        break;
      }
      case 'arc': {
        if (!(it.radius > 0) || !Number.isFinite(it.sweep) || it.sweep === 0) break;
        const [u, v] = arcAxes(it.normal, it.start);
        const n = arcSegments(it.radius * scaleOf(m), Math.min(Math.abs(it.sweep), Math.PI * 2), ctx.tol);
        const full = Math.abs(it.sweep) >= Math.PI * 2 - 1e-9;
        const pts: number[] = [];
        for (let i = 0; i <= (full ? n - 1 : n); i++) {
          const t = (it.sweep * i) / n;
          const c = Math.cos(t) * it.radius;
          const s = Math.sin(t) * it.radius;
          pushPt(pts, m, it.center[0]! + c * u[0]! + s * v[0]!, it.center[1]! + c * u[1]! + s * v[1]!, it.center[2]! + c * u[2]! + s * v[2]!);
        }
        emitPolyline(ctx, cp, m, pts, full);
        drawn = true;
        break;
      }
      case 'text': {
        if (!it.text || !(it.height > 0)) break;
        const { text, flags } = decodeText(it.text);
        const fm = fontMetrics();
        const wf = it.widthFactor > 0 ? it.widthFactor : 1;
        emitText(ctx, cp, m, {
          text, x: it.insert[0]!, y: it.insert[1]!, z: it.insert[2] ?? 0, height: it.height, rotation: Math.atan2(it.direction[1] ?? 0, it.direction[0] ?? 1),
          widthFactor: wf, oblique: (it.oblique * 180) / Math.PI, font: '', align: 'left', width: (fm.measure(text) * it.height * wf) / fm.capRatio,
          mirrorX: false, mirrorY: false, ...flags,
        });
        drawn = true;
        break;
      }
    }
  }
  return drawn;
}

// ---- TOLERANCE -------------------------------------------------------------------------------------

/**
 * A feature control frame: rows stacked downwards from the insertion point (the middle of the first
 * row's left edge) along the x direction (code 11), each row a line of framed boxes. Text height
 * is DIMTXT * DIMSCALE of the entity's dimension style; DIMGAP pads the boxes.
 */
function drawTolerance(ctx: Ctx, e: Entity, p: Props, m: Mat): void {
  const raw = rawValue(e, 1) ?? '';
  if (!raw) return;
  const style = dimStyle(ctx, rawValue(e, 3) ?? 'Standard');
  const metric = !ctx.imperial;
  const scale = dimScale(e, style);
  const txt = Number(dimVar(e, style, 140) ?? NaN);
  const th = (txt > 0 ? txt : metric ? 2.5 : 0.18) * scale;
  const gap = Math.abs(Number(dimVar(e, style, 147) ?? NaN));
  const pad = gap > 0 ? gap * scale : th / 4;
  const rowHeight = th + 2 * pad;
  const ins = rawPoint(e, 10) ?? [0, 0, 0];
  const dir = rawPoint(e, 11) ?? [1, 0, 0];
  const rot = Math.hypot(dir[0]!, dir[1]!) > 1e-12 ? Math.atan2(dir[1]!, dir[0]!) : 0;
  const mm = mul(m, mul(translation(ins[0]!, ins[1]!, ins[2] ?? 0), rotationZ(rot)));
  const lp: Props = { ...p, ltype: 'CONTINUOUS' };
  const fm = fontMetrics();
  const text = (s: string, x: number, y: number, height: number, align: 'left' | 'center'): number => {
    const width = (fm.measure(s) * height) / fm.capRatio;
    emitText(ctx, p, mm, {
      text: s, x, y, z: 0, height, rotation: 0, widthFactor: 1, oblique: 0, font: '', align, width,
      mirrorX: false, mirrorY: false, underline: false, overline: false, strike: false,
    });
    return width;
  };
  const rect = (x0: number, y0: number, x1: number, y1: number): void => {
    const pts: number[] = [];
    for (const [x, y] of [[x0, y0], [x1, y0], [x1, y1], [x0, y1]] as const) pushPt(pts, mm, x, y, 0);
    emitPolyline(ctx, lp, mm, pts, true);
  };
  parseTolerance(raw).forEach((boxes, row) => {
    const top = -row * rowHeight + rowHeight / 2;
    const base = top - rowHeight / 2 - th / 2;
    let x = 0;
    for (const runs of boxes) {
      const start = x;
      x += pad;
      runs.forEach((run, i) => {
        if (i > 0) x += pad / 2;
        if (run.kind === 'text') {
          x += text(run.text, x, base, th, 'left');
          return;
        }
        const glyph = GDT_GLYPHS[run.code];
        if (!glyph) {
          x += text(run.code.toUpperCase(), x, base, th, 'left');
          return;
        }
        const place = (q: readonly number[]): number[] => {
          const out: number[] = [];
          for (let k = 0; k + 1 < q.length; k += 2) pushPt(out, mm, x + q[k]! * th, base + q[k + 1]! * th, 0);
          return out;
        };
        for (const s of glyph.strokes) emitPolyline(ctx, lp, mm, place(s), false);
        for (const [cx, cy, r] of glyph.circles) {
          const pts: number[] = [];
          pushArc(pts, mm, x + cx * th, base + cy * th, 0, r * th, 0, Math.PI * 2, ctx.tol);
          pts.length -= 2;
          emitPolyline(ctx, lp, mm, pts, true);
        }
        if (glyph.letter) text(glyph.letter, x + th / 2, base + 0.2 * th, 0.6 * th, 'center');
        x += th;
      });
      x += pad;
      rect(start, top - rowHeight, x, top);
    }
  });
}

// ---- infinite lines -------------------------------------------------------------------------------

function drawInfiniteLine(ctx: Ctx, e: Entity, p: Props, m: Mat, both: boolean): void {
  const s = pt(e, 'start');
  const u = pt(e, 'unit_vector', [1, 0, 0]);
  const q: number[] = [];
  pushPt(q, m, s[0]!, s[1]!, s[2] ?? 0);
  pushPt(q, m, s[0]! + u[0]!, s[1]! + u[1]!, (s[2] ?? 0) + (u[2] ?? 0));
  const dx = q[2]! - q[0]!;
  const dy = q[3]! - q[1]!;
  // seen end-on (direction along the view axis) the line is a point: nothing to draw
  if (!finite(q) || Math.hypot(dx, dy) < 1e-12) return;
  // Not part of the extents: an infinite line has none, and the fit must come from the rest.
  const prim = emitPolyline(ctx, p, m, [q[0]!, q[1]!, q[0]!, q[1]!], false, 0, undefined, false);
  if (prim) ctx.infinite.push({ prim, x: q[0]!, y: q[1]!, dx, dy, both });
}

/** Liang-Barsky: the part of the line inside the box, or null. */
function clipLine(l: InfiniteLine, b: Bounds): number[] | null {
  let t0 = l.both ? -Infinity : 0;
  let t1 = Infinity;
  const edges: [number, number][] = [[-l.dx, l.x - b.minX], [l.dx, b.maxX - l.x], [-l.dy, l.y - b.minY], [l.dy, b.maxY - l.y]];
  for (const [pp, qq] of edges) {
    if (Math.abs(pp) < 1e-300) {
      if (qq < 0) return null;
      continue;
    }
    const r = qq / pp;
    if (pp < 0) t0 = Math.max(t0, r);
    else t1 = Math.min(t1, r);
  }
  if (!(t0 < t1) || !Number.isFinite(t0) || !Number.isFinite(t1)) return null;
  return [l.x + l.dx * t0, l.y + l.dy * t0, l.x + l.dx * t1, l.y + l.dy * t1];
}

/**
 * Gives the pending infinite lines their points inside `area`; lines missing it are dropped from
 * the display list. Returns the dropped primitives.
 */
function resolveInfinite(ctx: Ctx, lines: InfiniteLine[], area: Bounds): Set<Prim> {
  const dropped = new Set<Prim>();
  for (const l of lines) {
    const seg = boundsValid(area) ? clipLine(l, area) : null;
    if (seg) l.prim.pts = seg;
    else {
      // empty points: a viewport's cull drops it too
      l.prim.pts = [];
      dropped.add(l.prim);
    }
  }
  return dropped;
}

function unionBounds(a: Bounds, b: Bounds | null): Bounds {
  if (!b || !boundsValid(b)) return a;
  if (!boundsValid(a)) return { ...b };
  return { minX: Math.min(a.minX, b.minX), minY: Math.min(a.minY, b.minY), maxX: Math.max(a.maxX, b.maxX), maxY: Math.max(a.maxY, b.maxY) };
}

function boxOf(x1: number, y1: number, x2: number, y2: number): Bounds | null {
  const b = { minX: Math.min(x1, x2), minY: Math.min(y1, y2), maxX: Math.max(x1, x2), maxY: Math.max(y1, y2) };
  return boundsValid(b) && b.maxX > b.minX && b.maxY > b.minY ? b : null;
}

/** The plot window or limits when the layout's page setup plots one of those. */
function plotArea(doc: DocumentApi, layout: { name: string; handle: string }, isModel: boolean): Bounds | null {
  const rec = layoutObject(doc, layout);
  if (!rec) return null;
  const setup = pageSetupOf(layout.name, rec);
  if (setup.window) return boxOf(...setup.window);
  if (setup.plotArea !== 'limits') return null;
  const a = (isModel ? doc.getHeader('$LIMMIN') : rec.attrs.limmin) as number[] | undefined;
  const b = (isModel ? doc.getHeader('$LIMMAX') : rec.attrs.limmax) as number[] | undefined;
  return Array.isArray(a) && Array.isArray(b) ? boxOf(a[0]!, a[1]!, b[0]!, b[1]!) : null;
}

/** Where infinite lines end when nothing else bounds them: a box around their base points. */
function aroundBasePoints(lines: InfiniteLine[]): Bounds {
  const b = emptyBounds();
  for (const l of lines) {
    b.minX = Math.min(b.minX, l.x);
    b.maxX = Math.max(b.maxX, l.x);
    b.minY = Math.min(b.minY, l.y);
    b.maxY = Math.max(b.maxY, l.y);
  }
  const r = Math.max(b.maxX - b.minX, b.maxY - b.minY, 10);
  return { minX: b.minX - r, minY: b.minY - r, maxX: b.maxX + r, maxY: b.maxY + r };
}

function emitPath(ctx: Ctx, p: Props, rings: number[][], gradient: GradientFill | null, mask: boolean, color?: Rgb): void {
  const good = rings.filter((r) => r.length >= 6 && finite(r));
  if (!good.length) return;
  seeLayer(ctx, p.layer);
  for (const r of good) touch(ctx, r);
  ctx.prims.push({ kind: 'path', layer: p.layer, color: color ?? p.color, clip: ctx.clip, handle: ctx.handle, rings: good, gradient, mask });
}

function skip(ctx: Ctx, type: string): void {
  ctx.skipped[type] = (ctx.skipped[type] ?? 0) + 1;
}

/** The entity's OCS composed onto m (identity for the default extrusion). */
function withOcs(m: Mat, e: DxfRecord): Mat {
  const ex = attr(e, 'extrusion');
  if (isDefaultExtrusion(ex)) return m;
  return mul(m, ocsMatrix(ex as number[]));
}

// ---- text -----------------------------------------------------------------------------------------

interface TextSpec {
  text: string;
  x: number;
  y: number;
  z: number;
  height: number;
  rotation: number; // radians
  widthFactor: number;
  oblique: number; // degrees
  font: string;
  align: 'left' | 'center' | 'right';
  width: number; // local units, after width factor
  mirrorX: boolean;
  mirrorY: boolean;
  underline: boolean;
  overline: boolean;
  strike: boolean;
  color?: Rgb | null;
}

/** Maps a text given in OCS-local terms through m and emits it. */
function emitText(ctx: Ctx, p: Props, m: Mat, t: TextSpec): void {
  if (!t.text.length || !(t.height > 0) || !Number.isFinite(t.x) || !Number.isFinite(t.y)) return;
  const c = Math.cos(t.rotation);
  const s = Math.sin(t.rotation);
  // display-space images of the text's x and y unit directions
  const ux = m[0]! * c + m[1]! * s;
  const uy = m[4]! * c + m[5]! * s;
  const vx = -m[0]! * s + m[1]! * c;
  const vy = -m[4]! * s + m[5]! * c;
  const ul = Math.hypot(ux, uy) || 1;
  const ex = ux / ul;
  const ey = uy / ul;
  const vu = vx * ex + vy * ey; // component of v along u
  const vn = -vx * ey + vy * ex; // perpendicular component
  const hs = Math.abs(vn) || 1;
  const x = m[0]! * t.x + m[1]! * t.y + m[2]! * t.z + m[3]!;
  const y = m[4]! * t.x + m[5]! * t.y + m[6]! * t.z + m[7]!;
  const height = t.height * hs;
  const fm = fontMetrics();
  const obl = t.oblique + (Math.atan2(vu, Math.abs(vn)) * 180) / Math.PI;
  seeLayer(ctx, p.layer);
  const width = t.width * ul;
  // bounds: approximate by the text box corners
  const sx = t.align === 'left' ? 0 : t.align === 'center' ? -width / 2 : -width;
  const bx0 = x + ex * sx;
  const by0 = y + ey * sx;
  touch(ctx, [bx0, by0, bx0 + ex * width, by0 + ey * width, bx0 - ey * height * Math.sign(vn || 1), by0 + ex * height * Math.sign(vn || 1)]);
  ctx.prims.push({
    kind: 'text', layer: p.layer, color: t.color ?? p.color, clip: ctx.clip, handle: ctx.handle, text: t.text, x, y, height, em: height / fm.capRatio,
    rotation: Math.atan2(uy, ux), widthFactor: (t.widthFactor * ul) / hs, oblique: obl, font: t.font, align: t.align, width,
    mirrorX: t.mirrorX, mirrorY: t.mirrorY !== vn < 0, underline: t.underline, overline: t.overline, strike: t.strike,
  });
}

function styleOf(ctx: Ctx, e: Entity): { font: string; width: number; oblique: number; height: number; flags: number } {
  return ctx.styles.get(str(e, 'style', 'STANDARD').toUpperCase()) ?? { font: 'txt', width: 1, oblique: 0, height: 0, flags: 0 };
}

function drawText(ctx: Ctx, e: Entity, p: Props, m0: Mat): void {
  const m = withOcs(m0, e);
  const raw = str(e, 'text', '');
  if (!raw) return;
  const { text, flags } = decodeText(raw);
  const st = styleOf(ctx, e);
  let height = num(e, 'height', 0) || st.height || headerNum(ctx.doc, '$TEXTSIZE', 2.5);
  let wf = num(e, 'width', st.width) || 1;
  const oblique = num(e, 'oblique', st.oblique);
  let rot = (num(e, 'rotation', 0) * Math.PI) / 180;
  const halign = num(e, 'halign', 0);
  const valign = num(e, 'valign', 0);
  const gen = num(e, 'text_generation_flag', st.flags & 6);
  const ins = pt(e, 'insert');
  const alignPt = attr(e, 'align_point') as number[] | undefined;
  const fm = fontMetrics();
  const em = fm.measure(text);
  let ax = ins[0]!;
  let ay = ins[1]!;
  let align: 'left' | 'center' | 'right' = 'left';
  if ((halign === 3 || halign === 5) && alignPt) {
    // aligned / fit: between insert and align point
    const dx = alignPt[0]! - ins[0]!;
    const dy = alignPt[1]! - ins[1]!;
    const len = Math.hypot(dx, dy);
    if (len > 0 && em > 0) {
      rot = Math.atan2(dy, dx);
      const natural = (em * height * wf) / fm.capRatio;
      if (halign === 3) height = height * (len / natural);
      else wf = wf * (len / natural);
    }
  } else if ((halign !== 0 || valign !== 0) && alignPt) {
    ax = alignPt[0]!;
    ay = alignPt[1]!;
    if (halign === 1 || halign === 4) align = 'center';
    else if (halign === 2) align = 'right';
  }
  const width = (em * height * wf) / fm.capRatio;
  // vertical alignment: move the anchor to the baseline
  let vshift = 0;
  if (halign === 4 && valign === 0) vshift = -height / 2;
  else if (valign === 1) vshift = fm.descent * (height / fm.capRatio);
  else if (valign === 2) vshift = -height / 2;
  else if (valign === 3) vshift = -height;
  const mirrorY = (gen & 4) !== 0;
  if (mirrorY) vshift = -vshift;
  const c = Math.cos(rot);
  const s = Math.sin(rot);
  emitText(ctx, p, m, {
    text, x: ax - s * vshift, y: ay + c * vshift, z: ins[2] ?? 0, height, rotation: rot, widthFactor: wf, oblique, font: st.font, align, width,
    mirrorX: (gen & 2) !== 0, mirrorY, ...flags,
  });
}

/**
 * `frameGap`: draw a frame this far around the text (MULTILEADER text frames); an MTEXT whose
 * background flags ask for a text frame (bit 16) gets one too.
 */
function drawMText(ctx: Ctx, e: Entity, p: Props, m0: Mat, frameGap?: number): void {
  const raw = str(e, 'text', '');
  if (!raw) return;
  const st = styleOf(ctx, e);
  const h = num(e, 'char_height', 0) || st.height || headerNum(ctx.doc, '$TEXTSIZE', 2.5);
  const width = num(e, 'width', 0);
  const attach = num(e, 'attachment_point', 1);
  const spacing = num(e, 'line_spacing_factor', 1) || 1;
  // MTEXT's insert and text direction are WCS; the extrusion gives the plane (and mirroring)
  const ex = pt(e, 'extrusion', [0, 0, 1]);
  const ocs = isDefaultExtrusion(ex) ? null : ocsMatrix(ex as number[]);
  let xa: number[];
  const dir = attr(e, 'text_direction') as number[] | undefined;
  if (Array.isArray(dir) && (Math.abs(dir[0]!) > 1e-12 || Math.abs(dir[1]!) > 1e-12 || Math.abs(dir[2] ?? 0) > 1e-12)) xa = [dir[0]!, dir[1]!, dir[2] ?? 0];
  else if (attr(e, 'rotation') === undefined) {
    // neither direction nor rotation: the WCS x axis, whatever the extrusion (as AutoCAD, ezdxf's
    // drawing add-on and LibreCAD place it; the OCS x axis of a (0, 0, -1) extrusion points the
    // other way and put the text on the wrong side of its insert)
    xa = [1, 0, 0];
  } else {
    const rot = (num(e, 'rotation', 0) * Math.PI) / 180;
    const c = Math.cos(rot);
    const s = Math.sin(rot);
    xa = ocs ? [ocs[0]! * c + ocs[1]! * s, ocs[4]! * c + ocs[5]! * s, ocs[8]! * c + ocs[9]! * s] : [c, s, 0];
  }
  const xl = Math.hypot(xa[0]!, xa[1]!, xa[2]!) || 1;
  xa = [xa[0]! / xl, xa[1]! / xl, xa[2]! / xl];
  const nl = Math.hypot(ex[0]!, ex[1]!, ex[2] ?? 1) || 1;
  const n = [ex[0]! / nl, ex[1]! / nl, (ex[2] ?? 1) / nl];
  // y = n x x
  const ya = [n[1]! * xa[2]! - n[2]! * xa[1]!, n[2]! * xa[0]! - n[0]! * xa[2]!, n[0]! * xa[1]! - n[1]! * xa[0]!];
  const ins = pt(e, 'insert');
  const local = matFrom([xa[0]!, ya[0]!, n[0]!, ins[0]!, xa[1]!, ya[1]!, n[1]!, ins[1]!, xa[2]!, ya[2]!, n[2]!, ins[2] ?? 0]);
  const m = mul(m0, local);
  const paras = parseMText(raw, h, st.font, ctx.background);
  const pieces = layoutMText(paras, h, width, attach, spacing);
  const gap = frameGap ?? ((num(e, 'bg_fill', 0) & 16) !== 0 ? (h * Math.max(0, num(e, 'box_fill_scale', 1.5) - 1)) / 2 : undefined);
  if (gap !== undefined && pieces.length) {
    let x0 = Infinity;
    let x1 = -Infinity;
    let y0 = Infinity;
    let y1 = -Infinity;
    for (const pc of pieces) {
      x0 = Math.min(x0, pc.x);
      x1 = Math.max(x1, pc.x + pc.width);
      // the frame holds cap height and descenders
      y0 = Math.min(y0, pc.y - pc.height * 0.25);
      y1 = Math.max(y1, pc.y + pc.height);
    }
    const pts: number[] = [];
    for (const [x, y] of [[x0 - gap, y0 - gap], [x1 + gap, y0 - gap], [x1 + gap, y1 + gap], [x0 - gap, y1 + gap]] as const) pushPt(pts, m, x, y, 0);
    emitPolyline(ctx, { ...p, ltype: 'CONTINUOUS' }, m, pts, true);
  }
  for (const pc of pieces) {
    if (pc.bar) {
      const pts: number[] = [];
      pushPt(pts, m, pc.x, pc.y, 0);
      pushPt(pts, m, pc.x + pc.width, pc.y, 0);
      emitPolyline(ctx, { ...p, color: pc.color ?? p.color, ltype: 'CONTINUOUS' }, m, pts, false);
      continue;
    }
    emitText(ctx, p, m, {
      text: pc.text, x: pc.x, y: pc.y, z: 0, height: pc.height, rotation: 0, widthFactor: pc.widthFactor, oblique: pc.oblique, font: pc.font,
      align: 'left', width: pc.width, mirrorX: false, mirrorY: false, underline: pc.underline, overline: pc.overline, strike: pc.strike, color: pc.color,
    });
  }
}

// ---- polylines ------------------------------------------------------------------------------------

function drawLwPolyline(ctx: Ctx, e: Entity, p: Props, m0: Mat): void {
  const m = withOcs(m0, e);
  const raw = attr(e, 'points');
  if (!Array.isArray(raw) || raw.length === 0) return;
  const vs = raw as number[][];
  const closed = (num(e, 'flags', 0) & 1) !== 0 || attr(e, 'closed') === true;
  const z = num(e, 'elevation', 0);
  const cw = num(e, 'const_width', 0);
  let varying = false;
  let maxW = 0;
  for (const v of vs) {
    const sw = v[2] ?? 0;
    const ew = v[3] ?? 0;
    if (sw !== ew || (cw === 0 && sw > 0)) varying = varying || sw !== ew || sw !== (vs[0]![2] ?? 0);
    maxW = Math.max(maxW, sw, ew);
  }
  const pts: number[] = [];
  pushPt(pts, m, vs[0]![0]!, vs[0]![1]!, z);
  const cnt = vs.length;
  const segs = closed ? cnt : cnt - 1;
  for (let i = 0; i < segs; i++) {
    const a = vs[i]!;
    const b = vs[(i + 1) % cnt]!;
    pushBulge(pts, m, a[0]!, a[1]!, b[0]!, b[1]!, a[4] ?? 0, z, ctx.tol);
  }
  if (closed && pts.length >= 4) {
    // drop the duplicated closing point
    pts.length -= 2;
  }
  if (varying && cnt >= 2) {
    drawWideSegments(ctx, p, m, vs.map((v) => [v[0]!, v[1]!, v[2] ?? 0, v[3] ?? 0, v[4] ?? 0]), closed, z);
    return;
  }
  const w = cw > 0 ? cw : maxW;
  emitPolyline(ctx, p, m, pts, closed, w > 0 ? w * meanScale(m) : 0);
}

/** Polylines with varying segment widths: straight segments as filled trapezoids, arcs stroked. */
function drawWideSegments(ctx: Ctx, p: Props, m: Mat, vs: number[][], closed: boolean, z: number): void {
  const cnt = vs.length;
  const segs = closed ? cnt : cnt - 1;
  for (let i = 0; i < segs; i++) {
    const a = vs[i]!;
    const b = vs[(i + 1) % cnt]!;
    const sw = a[2]!;
    const ew = a[3]!;
    if (Math.abs(a[4]!) > 1e-9 || (sw === 0 && ew === 0)) {
      const pts: number[] = [];
      pushPt(pts, m, a[0]!, a[1]!, z);
      pushBulge(pts, m, a[0]!, a[1]!, b[0]!, b[1]!, a[4]!, z, ctx.tol);
      emitPolyline(ctx, p, m, pts, false, ((sw + ew) / 2) * meanScale(m));
      continue;
    }
    const dx = b[0]! - a[0]!;
    const dy = b[1]! - a[1]!;
    const len = Math.hypot(dx, dy) || 1;
    const nx = -dy / len;
    const ny = dx / len;
    const ring: number[] = [];
    pushPt(ring, m, a[0]! + (nx * sw) / 2, a[1]! + (ny * sw) / 2, z);
    pushPt(ring, m, b[0]! + (nx * ew) / 2, b[1]! + (ny * ew) / 2, z);
    pushPt(ring, m, b[0]! - (nx * ew) / 2, b[1]! - (ny * ew) / 2, z);
    pushPt(ring, m, a[0]! - (nx * sw) / 2, a[1]! - (ny * sw) / 2, z);
    emitPath(ctx, p, [ring], null, false);
  }
}

function vertexLoc(v: Entity): readonly number[] {
  return pt(v, 'location');
}

function drawPolyline(ctx: Ctx, e: Entity, p: Props, m0: Mat): void {
  const flags = num(e, 'flags', 0);
  const verts = (e.children ?? []).filter((c) => c.type === 'VERTEX');
  if (!verts.length) return;
  if (flags & 64) {
    // polyface mesh: coordinate vertices then face records
    const coords: (readonly number[])[] = [];
    const faces: Entity[] = [];
    for (const v of verts) {
      const vf = num(v, 'flags', 0);
      if (vf & 64) coords.push(vertexLoc(v));
      else if (vf & 128) faces.push(v);
    }
    const pts: number[] = [];
    const breaks: number[] = [];
    for (const f of faces) {
      const idx = [num(f, 'vtx0', 0), num(f, 'vtx1', 0), num(f, 'vtx2', 0), num(f, 'vtx3', 0)].filter((i) => i !== 0);
      for (let k = 0; k < idx.length; k++) {
        const i0 = idx[k]!;
        const i1 = idx[(k + 1) % idx.length]!;
        if (i0 < 0) continue; // invisible edge
        const a = coords[Math.abs(i0) - 1];
        const b = coords[Math.abs(i1) - 1];
        if (!a || !b) continue;
        breaks.push(pts.length / 2);
        pushPt(pts, m0, a[0]!, a[1]!, a[2] ?? 0);
        pushPt(pts, m0, b[0]!, b[1]!, b[2] ?? 0);
      }
    }
    breaks.shift();
    emitPolyline(ctx, p, m0, pts, false, 0, breaks);
    return;
  }
  if (flags & 16) {
    // polygon mesh: M x N grid; a smoothed one (flag 4) draws its surface vertices, a grid of the
    // smooth densities, and leaves out the control frame (vertex flag 16)
    const surface = verts.filter((v) => (num(v, 'flags', 0) & 16) === 0);
    const smoothed = (flags & 4) !== 0 && surface.length < verts.length;
    const grid = smoothed ? surface : verts;
    const mc = smoothed ? num(e, 'm_smooth_density', 0) : num(e, 'm_count', 0);
    const nc = smoothed ? num(e, 'n_smooth_density', 0) : num(e, 'n_count', 0);
    if (mc * nc !== grid.length || mc < 1 || nc < 1) {
      skip(ctx, 'POLYLINE(mesh)');
      return;
    }
    const loc = grid.map(vertexLoc);
    const pts: number[] = [];
    const breaks: number[] = [];
    for (let i = 0; i < mc; i++) {
      breaks.push(pts.length / 2);
      for (let j = 0; j < nc; j++) {
        const q = loc[i * nc + j]!;
        pushPt(pts, m0, q[0]!, q[1]!, q[2] ?? 0);
      }
      if (flags & 32) pushPt(pts, m0, loc[i * nc]![0]!, loc[i * nc]![1]!, loc[i * nc]![2] ?? 0);
    }
    for (let j = 0; j < nc; j++) {
      breaks.push(pts.length / 2);
      for (let i = 0; i < mc; i++) {
        const q = loc[i * nc + j]!;
        pushPt(pts, m0, q[0]!, q[1]!, q[2] ?? 0);
      }
      if (flags & 1) pushPt(pts, m0, loc[j]![0]!, loc[j]![1]!, loc[j]![2] ?? 0);
    }
    breaks.shift();
    emitPolyline(ctx, p, m0, pts, false, 0, breaks);
    return;
  }
  const closed = (flags & 1) !== 0;
  // spline-fit polylines: draw the fitted vertices, not the frame
  const drawn = verts.filter((v) => (num(v, 'flags', 0) & 16) === 0);
  if (flags & 8) {
    const pts: number[] = [];
    for (const v of drawn) {
      const q = vertexLoc(v);
      pushPt(pts, m0, q[0]!, q[1]!, q[2] ?? 0);
    }
    emitPolyline(ctx, p, m0, pts, closed);
    return;
  }
  const m = withOcs(m0, e);
  const z = pt(e, 'elevation', [0, 0, 0])[2] ?? num(e, 'elevation', 0);
  const vs = drawn.map((v) => {
    const q = vertexLoc(v);
    return [q[0]!, q[1]!, num(v, 'start_width', num(e, 'default_start_width', 0)), num(v, 'end_width', num(e, 'default_end_width', 0)), num(v, 'bulge', 0)];
  });
  const asLw: Entity = { ...e, attrs: { ...e.attrs, points: vs, flags: closed ? 1 : 0, elevation: typeof z === 'number' ? z : 0, const_width: 0, extrusion: [0, 0, 1] } };
  drawLwPolyline(ctx, asLw, p, m);
}

// ---- hatch, solid, image --------------------------------------------------------------------------

function drawHatch(ctx: Ctx, e: Entity, p: Props, m0: Mat): void {
  const m = withOcs(m0, e);
  const sc = scaleOf(m);
  const tolLocal = ctx.tol / (sc || 1);
  const local = hatchRings(attr(e, 'paths') ?? attr(e, 'boundary_paths'), tolLocal);
  if (!local.length) return;
  const elev = attr(e, 'elevation');
  const z = Array.isArray(elev) ? ((elev[2] as number) ?? 0) : typeof elev === 'number' ? elev : 0;
  const toDisplay = (r: number[]): number[] => {
    const out: number[] = [];
    for (let i = 0; i < r.length; i += 2) pushPt(out, m, r[i]!, r[i + 1]!, z);
    return out;
  };
  const solid = num(e, 'solid_fill', 0) === 1 || str(e, 'pattern_name', '').toUpperCase() === 'SOLID';
  const grad = attr(e, 'gradient');
  // gradient data with type 0 (450) is a solid fill: drawn in the hatch's colour, as AutoCAD does
  const gradient = grad && typeof grad === 'object' && (grad as Record<string, unknown>).type !== 0;
  if (gradient && (num(e, 'solid_fill', 1) === 1 || solid)) {
    const g = grad as Record<string, unknown>;
    const c1 = rgbOf(g.color1) ?? p.color;
    const c2 = rgbOf(g.color2) ?? 0xffffff;
    const angle = ((typeof g.rotation === 'number' ? g.rotation : typeof g.angle === 'number' ? g.angle : 0) * Math.PI) / 180;
    const ang = Math.atan2(m[4]! * Math.cos(angle) + m[5]! * Math.sin(angle), m[0]! * Math.cos(angle) + m[1]! * Math.sin(angle));
    emitPath(ctx, p, local.map(toDisplay), { color2: c2, angle: ang, name: String(g.name ?? 'LINEAR') }, false, c1);
    return;
  }
  if (solid) {
    emitPath(ctx, p, local.map(toDisplay), null, false);
    return;
  }
  const lines = hatchPatternLines(e.attrs as Record<string, unknown>, ctx.imperial);
  if (!lines) {
    skip(ctx, 'HATCH(pattern)');
    return;
  }
  const segs = patternSegments(local, lines, ctx.budget);
  if (segs === null) {
    // too dense to draw line by line: fill lightly instead
    emitPath(ctx, p, local.map(toDisplay), null, false);
    skip(ctx, 'HATCH(dense pattern)');
    return;
  }
  if (!segs.length) return;
  const pts: number[] = [];
  const breaks: number[] = [];
  for (let i = 0; i < segs.length; i += 4) {
    if (i) breaks.push(pts.length / 2);
    pushPt(pts, m, segs[i]!, segs[i + 1]!, z);
    pushPt(pts, m, segs[i + 2]!, segs[i + 3]!, z);
  }
  emitPolyline(ctx, { ...p, ltype: 'CONTINUOUS' }, m, pts, false, 0, breaks);
}

function drawSolid(ctx: Ctx, e: Entity, p: Props, m0: Mat, face3d: boolean): void {
  const m = face3d ? m0 : withOcs(m0, e);
  const v = [pt(e, 'vtx0'), pt(e, 'vtx1'), pt(e, 'vtx2'), pt(e, 'vtx3', pt(e, 'vtx2'))];
  if (face3d) {
    const inv = num(e, 'invisible_edges', num(e, 'invisible', 0));
    const pts: number[] = [];
    const breaks: number[] = [];
    const order = v[3]![0] === v[2]![0] && v[3]![1] === v[2]![1] && v[3]![2] === v[2]![2] ? [0, 1, 2] : [0, 1, 2, 3];
    for (let k = 0; k < order.length; k++) {
      if (inv & (1 << k)) continue;
      const a = v[order[k]!]!;
      const b = v[order[(k + 1) % order.length]!]!;
      if (pts.length) breaks.push(pts.length / 2);
      pushPt(pts, m, a[0]!, a[1]!, a[2] ?? 0);
      pushPt(pts, m, b[0]!, b[1]!, b[2] ?? 0);
    }
    emitPolyline(ctx, p, m, pts, false, 0, breaks);
    return;
  }
  const ring: number[] = [];
  for (const i of [0, 1, 3, 2]) pushPt(ring, m, v[i]![0]!, v[i]![1]!, v[i]![2] ?? 0);
  emitPath(ctx, p, [ring], null, false);
}

/** Boundary of an IMAGE/WIPEOUT in WCS (closed ring), from its clip path or its frame. */
function imageBoundary(e: Entity, m: Mat, useClip: boolean): number[] {
  const ins = pt(e, 'insert');
  const u = pt(e, 'u_pixel', [1, 0, 0]);
  const v = pt(e, 'v_pixel', [0, 1, 0]);
  const size = pt(e, 'image_size', [1, 1, 0]);
  const h = size[1]!;
  let path = attr(e, 'boundary_path') ?? attr(e, 'clip_boundary') ?? attr(e, 'boundary_vertices');
  if (!Array.isArray(path) || path.length < 2) {
    const raw14 = rawValues(e, 14);
    const raw24 = rawValues(e, 24);
    path = raw14.length >= 2 && raw24.length === raw14.length ? raw14.map((x, i) => [Number(x), Number(raw24[i])]) : null;
  }
  let bp: number[][];
  if (useClip && Array.isArray(path) && path.length >= 2) {
    bp = (path as number[][]).map((q) => [q[0]!, q[1]!]);
    if (bp.length === 2) bp = [bp[0]!, [bp[1]![0]!, bp[0]![1]!], bp[1]!, [bp[0]![0]!, bp[1]![1]!]];
  } else {
    const w = size[0]!;
    bp = [[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]];
  }
  const ox = ins[0]! + u[0]! * 0.5 - v[0]! * 0.5;
  const oy = ins[1]! + u[1]! * 0.5 - v[1]! * 0.5;
  const oz = (ins[2] ?? 0) + (u[2] ?? 0) * 0.5 - (v[2] ?? 0) * 0.5;
  const out: number[] = [];
  for (const q of bp) {
    const px = q[0]!;
    const py = h - q[1]!;
    pushPt(out, m, ox + u[0]! * px + v[0]! * py, oy + u[1]! * px + v[1]! * py, oz + (u[2] ?? 0) * px + (v[2] ?? 0) * py);
  }
  return out;
}

const MIME: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.bmp': 'image/bmp', '.tif': 'image/tiff', '.tiff': 'image/tiff' };

/** Where an IMAGEDEF's file name may be found, in order: as written, beside the drawing, by name beside it, from the working folder. */
export function imageCandidates(name: string, baseDir: string | undefined): string[] {
  const candidates: string[] = [];
  const norm = name.replace(/\\/g, '/');
  if (/^[A-Za-z]:\//.test(norm)) return baseDir ? [join(baseDir, basename(norm))] : [];
  if (isAbsolute(norm)) candidates.push(norm);
  if (baseDir) {
    candidates.push(resolvePath(baseDir, norm));
    candidates.push(join(baseDir, basename(norm)));
  }
  candidates.push(resolvePath(norm));
  return candidates;
}

function findImageFile(ctx: Ctx, name: string): string | null {
  const cached = ctx.imageCache.get(name);
  if (cached !== undefined || ctx.imagesFixed) return cached ?? null;
  const found = imageCandidates(name, ctx.baseDir).find((c) => existsSync(c)) ?? null;
  ctx.imageCache.set(name, found);
  return found;
}

function drawImage(ctx: Ctx, e: Entity, p: Props, m: Mat): void {
  const defHandle = str(e, 'image_def_handle', '') || rawValue(e, 340) || '';
  const def = defHandle ? ctx.doc.get(defHandle) : undefined;
  const fname = def ? str(def, 'filename', '') : '';
  const file = fname ? findImageFile(ctx, fname) : null;
  const flags = num(e, 'flags', 3);
  const clipping = num(e, 'clipping', 0) !== 0 && (flags & 4) !== 0;
  const frame = imageBoundary(e, m, clipping);
  const mime = MIME[extname(file ?? fname).toLowerCase()];
  if (!file || !mime || mime === 'image/bmp' || mime === 'image/tiff') {
    // image not available: draw its frame
    skip(ctx, 'IMAGE(file)');
    emitPolyline(ctx, { ...p, ltype: 'CONTINUOUS' }, m, frame, true);
    return;
  }
  const ins = pt(e, 'insert');
  const u = pt(e, 'u_pixel', [1, 0, 0]);
  const v = pt(e, 'v_pixel', [0, 1, 0]);
  const size = pt(e, 'image_size', [1, 1, 0]);
  const w = size[0]!;
  const h = size[1]!;
  // pixel (x right, y down) -> WCS: insert + u * x + v * (h - y)
  const wx = (px: number, py: number): number[] => {
    const out: number[] = [];
    pushPt(out, m, ins[0]! + u[0]! * px + v[0]! * (h - py), ins[1]! + u[1]! * px + v[1]! * (h - py), (ins[2] ?? 0) + (u[2] ?? 0) * px + (v[2] ?? 0) * (h - py));
    return out;
  };
  const o = wx(0, 0);
  const ax = wx(1, 0);
  const ay = wx(0, 1);
  const matrix: [number, number, number, number, number, number] = [ax[0]! - o[0]!, ax[1]! - o[1]!, ay[0]! - o[0]!, ay[1]! - o[1]!, o[0]!, o[1]!];
  let clip = ctx.clip;
  if (clipping) {
    // clip_mode 1: keep what lies outside the boundary (inside the image frame)
    const rings = num(e, 'clip_mode', 0) === 1 ? [imageBoundary(e, m, false), frame] : [frame];
    ctx.clips.push({ rings, parent: ctx.clip });
    clip = ctx.clips.length - 1;
  }
  seeLayer(ctx, p.layer);
  touch(ctx, frame);
  ctx.prims.push({ kind: 'image', layer: p.layer, color: p.color, clip, handle: ctx.handle, path: file, data: null, mime, pxWidth: w, pxHeight: h, matrix });
}

// ---- blocks and viewports -------------------------------------------------------------------------

function insertMatrix(e: Entity, block: Block, col: number, row: number): Mat {
  const ins = pt(e, 'insert');
  const sx = num(e, 'xscale', 1);
  const sy = num(e, 'yscale', 1);
  const sz = num(e, 'zscale', 1);
  const rot = (num(e, 'rotation', 0) * Math.PI) / 180;
  const base = pt(block.block, 'base_point');
  let m = translation(ins[0]!, ins[1]!, ins[2] ?? 0);
  m = mul(m, rotationZ(rot));
  if (col || row) m = mul(m, translation(col * num(e, 'column_spacing', 0), row * num(e, 'row_spacing', 0)));
  m = mul(m, scaling(sx, sy, sz));
  m = mul(m, translation(-(base[0] ?? 0), -(base[1] ?? 0), -(base[2] ?? 0)));
  const ex = attr(e, 'extrusion');
  if (!isDefaultExtrusion(ex)) m = mul(ocsMatrix(ex as number[]), m);
  return m;
}

function drawBlockContent(ctx: Ctx, block: Block, m: Mat, p: Props): void {
  const key = block.name.toUpperCase();
  if (ctx.depth >= ctx.maxDepth || ctx.stack.has(key)) {
    skip(ctx, 'INSERT(depth)');
    return;
  }
  // xref / overlay blocks have no content here
  ctx.stack.add(key);
  ctx.depth++;
  const saveIn = ctx.inBlock;
  const saveDash = ctx.dashFactor;
  ctx.inBlock = true;
  const inherit: Inherit = { layer: p.layer, color: p.color, lw: p.lw, ltype: p.ltype, layerOff: p.layerOff };
  for (const child of block.entities) {
    if (child.type === 'ATTDEF') continue;
    drawEntity(ctx, child, m, inherit);
  }
  ctx.inBlock = saveIn;
  ctx.dashFactor = saveDash;
  ctx.depth--;
  ctx.stack.delete(key);
}

function drawInsert(ctx: Ctx, e: Entity, p: Props, m: Mat, parent: Inherit | null): void {
  const name = str(e, 'name', '');
  const block = ctx.doc.getBlock(name);
  if (block && ctx.depth === 0) {
    // the whole nesting is charged once, at the top, before anything is expanded
    const count = referenceExpansion(e, ctx.doc, ctx.expansionMemo);
    if (ctx.expanded + count > BUDGETS.expandedPerRequest) {
      skip(ctx, 'INSERT(over the expanded_per_request budget)');
      return;
    }
    ctx.expanded += count;
  }
  if (block) {
    const cols = Math.max(1, Math.min(10000, num(e, 'column_count', 1) | 0));
    const rows = Math.max(1, Math.min(10000, num(e, 'row_count', 1) | 0));
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) drawBlockContent(ctx, block, mul(m, insertMatrix(e, block, c, r)), p);
    }
  } else skip(ctx, 'INSERT(no block)');
  // attributes live in the insert's own space
  for (const a of e.children ?? []) {
    if (a.type === 'ATTRIB') drawEntity(ctx, a, m, parent);
  }
}

/** Model-space -> paper-space matrix of a viewport, and its scale. */
export function viewportMatrix(vp: DxfRecord): { m: Mat; scale: number } {
  const c = pt(vp, 'center');
  const h = num(vp, 'height', 1);
  const vh = num(vp, 'view_height', 1) || 1;
  const vc = pt(vp, 'view_center_point');
  const target = pt(vp, 'view_target_point');
  const dir = pt(vp, 'view_direction_vector', [0, 0, 1]);
  const twist = (num(vp, 'view_twist_angle', 0) * Math.PI) / 180;
  const s = h / vh;
  // WCS -> DCS: translate by -target, rotate into the view direction's frame (transpose of its OCS)
  let toDcs = translation(-(target[0] ?? 0), -(target[1] ?? 0), -(target[2] ?? 0));
  if (!isDefaultExtrusion(dir)) {
    const o = ocsMatrix(dir as number[]);
    const t = matFrom([o[0]!, o[4]!, o[8]!, 0, o[1]!, o[5]!, o[9]!, 0, o[2]!, o[6]!, o[10]!, 0]);
    toDcs = mul(t, toDcs);
  }
  let m = translation(c[0]!, c[1]!, 0);
  m = mul(m, scaling(s, s, s));
  if (twist) m = mul(m, rotationZ(twist));
  m = mul(m, translation(-(vc[0] ?? 0), -(vc[1] ?? 0), 0));
  m = mul(m, toDcs);
  return { m, scale: s };
}

function frozenLayersOf(ctx: Ctx, vp: Entity): Set<string> | null {
  let list = attr(vp, 'frozen_layers') ?? attr(vp, 'frozen_layer_handles');
  if (!Array.isArray(list)) list = rawValues(vp, 341);
  const names = new Set<string>();
  for (const h of list as unknown[]) {
    if (typeof h !== 'string') continue;
    const rec = ctx.doc.get(h);
    if (rec && rec.type === 'LAYER') names.add(str(rec, 'name', '').toUpperCase());
    else names.add(h.toUpperCase());
  }
  return names.size ? names : null;
}

/**
 * A VIEWPORT whose layer does not plot still shows its contents, as AutoCAD and ezdxf draw them
 * (putting viewports on a no-plot layer, Defpoints often, is how borders are hidden): the plot
 * flag of its layer governs the border only. A frozen or off layer, or an invisible viewport,
 * hides all of it.
 */
function drawViewportEntity(ctx: Ctx, e: Entity, m: Mat, parent: Inherit | null): void {
  const p = resolveProps(ctx, e, parent);
  if (p) {
    if (!p.layerOff) drawViewport(ctx, e, p, m, true);
    return;
  }
  if (!ctx.honorPlot) return;
  ctx.honorPlot = false;
  const unplotted = resolveProps(ctx, e, parent);
  ctx.honorPlot = true;
  if (unplotted && !unplotted.layerOff) drawViewport(ctx, e, unplotted, m, false);
}

/** VIEWPORT flag (90): the viewport is off. */
const VIEWPORT_OFF = 0x20000;

function drawViewport(ctx: Ctx, e: Entity, p: Props, m: Mat, border: boolean): void {
  const id = num(e, 'id', 2);
  const status = num(e, 'status', 1);
  if (id === 1 || e === ctx.overallViewport || ctx.inBlock) return;
  if ((num(e, 'flags', 0) & VIEWPORT_OFF) !== 0 || (status === 0 && !ctx.layoutInactive)) return;
  const c = pt(e, 'center');
  const w = num(e, 'width', 0);
  const h = num(e, 'height', 0);
  if (!(w > 0) || !(h > 0)) return;
  let frame: number[] = [];
  pushPt(frame, m, c[0]! - w / 2, c[1]! - h / 2, 0);
  pushPt(frame, m, c[0]! + w / 2, c[1]! - h / 2, 0);
  pushPt(frame, m, c[0]! + w / 2, c[1]! + h / 2, 0);
  pushPt(frame, m, c[0]! - w / 2, c[1]! + h / 2, 0);
  const flags = num(e, 'flags', 0);
  const clipHandle = str(e, 'clipping_boundary_handle', '');
  if (flags & 65536 && clipHandle && clipHandle !== '0') {
    const clipEnt = ctx.doc.get(clipHandle) as Entity | undefined;
    if (clipEnt && clipEnt.type === 'LWPOLYLINE') {
      const pts = attr(clipEnt, 'points') as number[][] | undefined;
      if (Array.isArray(pts) && pts.length >= 3) {
        frame = [];
        pushPt(frame, m, pts[0]![0]!, pts[0]![1]!, 0);
        for (let i = 0; i < pts.length; i++) {
          const a = pts[i]!;
          const b = pts[(i + 1) % pts.length]!;
          pushBulge(frame, m, a[0]!, a[1]!, b[0]!, b[1]!, a[4] ?? 0, 0, ctx.tol);
        }
      }
    }
  }
  const { m: vm, scale } = viewportMatrix(e);
  const saveClip = ctx.clip;
  const saveDash = ctx.dashFactor;
  const saveFrozen = ctx.vpFrozen;
  const saveTol = ctx.tol;
  const saveBounds = ctx.bounds;
  const saveHandle = ctx.handle;
  ctx.clips.push({ rings: [frame], parent: ctx.clip });
  ctx.clip = ctx.clips.length - 1;
  ctx.dashFactor = headerNum(ctx.doc, '$PSLTSCALE', 1) ? 1 / (scale || 1) : 1;
  ctx.vpFrozen = frozenLayersOf(ctx, e);
  // model content: bounds are the frame, not the (clipped) model extents
  ctx.bounds = emptyBounds();
  const model = ctx.doc.modelSpace();
  const full = mul(m, vm);
  const fb = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  for (let i = 0; i < frame.length; i += 2) {
    fb.minX = Math.min(fb.minX, frame[i]!);
    fb.maxX = Math.max(fb.maxX, frame[i]!);
    fb.minY = Math.min(fb.minY, frame[i + 1]!);
    fb.maxY = Math.max(fb.maxY, frame[i + 1]!);
  }
  const first = ctx.prims.length;
  const saveInfinite = ctx.infinite;
  ctx.infinite = [];
  for (const child of model.entities) drawEntity(ctx, child, full, null, true);
  // model-space infinite lines end at the frame (the frame's clip hides what lies beyond it)
  resolveInfinite(ctx, ctx.infinite, fb);
  ctx.infinite = saveInfinite;
  // cull primitives entirely outside the frame
  let k = first;
  for (let i = first; i < ctx.prims.length; i++) {
    const pr = ctx.prims[i]!;
    if (primOutside(pr, fb)) continue;
    ctx.prims[k++] = pr;
  }
  ctx.prims.length = k;
  ctx.bounds = saveBounds;
  touch(ctx, frame);
  ctx.clip = saveClip;
  ctx.dashFactor = saveDash;
  ctx.vpFrozen = saveFrozen;
  ctx.tol = saveTol;
  // the viewport frame itself (picked as the viewport, not as the model entity drawn last)
  ctx.handle = saveHandle;
  if (border) emitPolyline(ctx, { ...p, ltype: p.ltype }, m, frame, true);
}

function primOutside(pr: Prim, b: Bounds): boolean {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  const scan = (pts: readonly number[]): void => {
    for (let i = 0; i < pts.length; i += 2) {
      const x = pts[i]!;
      const y = pts[i + 1]!;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  };
  if (pr.kind === 'polyline') scan(pr.pts);
  else if (pr.kind === 'path') for (const r of pr.rings) scan(r);
  else if (pr.kind === 'text') {
    const r = pr.width + pr.em * 2;
    scan([pr.x - r, pr.y - r, pr.x + r, pr.y + r]);
  } else {
    const [a, bb, c, d, e, f] = pr.matrix;
    const w = pr.pxWidth;
    const h = pr.pxHeight;
    scan([e, f, e + a * w, f + bb * w, e + c * h, f + d * h, e + a * w + c * h, f + bb * w + d * h]);
  }
  return maxX < b.minX || minX > b.maxX || maxY < b.minY || minY > b.maxY;
}

// ---- dispatch -------------------------------------------------------------------------------------

function drawEntity(ctx: Ctx, e: Entity, m: Mat, parent: Inherit | null, fromViewport = false): void {
  const top = parent === null;
  if (top) ctx.handle = e.handle;
  if (e.type === 'VIEWPORT') {
    if (!fromViewport) drawViewportEntity(ctx, e, m, parent);
    return;
  }
  const p = resolveProps(ctx, e, parent);
  if (!p) return;
  const type = e.type;
  ctx.meter.tick();
  const over = entityOverBudget(e, ctx.doc, ctx.expansionMemo);
  if (over) {
    skip(ctx, `${type}(over the ${over.budget} budget)`);
    return;
  }
  // An insert on an "off" layer still shows its non-layer-0 content; other entities on off layers don't.
  if (p.layerOff && type !== 'INSERT') return;
  switch (type) {
    case 'LINE': {
      const a = pt(e, 'start');
      const b = pt(e, 'end');
      const pts: number[] = [];
      pushPt(pts, m, a[0]!, a[1]!, a[2] ?? 0);
      pushPt(pts, m, b[0]!, b[1]!, b[2] ?? 0);
      emitPolyline(ctx, p, m, pts, false);
      return;
    }
    case 'POINT': {
      if ((ctx.pdmode & 7) === 1) return;
      const a = pt(e, 'location');
      const pts: number[] = [];
      pushPt(pts, m, a[0]!, a[1]!, a[2] ?? 0);
      pushPt(pts, m, a[0]!, a[1]!, a[2] ?? 0);
      emitPolyline(ctx, { ...p, ltype: 'CONTINUOUS' }, m, pts, false);
      return;
    }
    case 'CIRCLE':
    case 'ARC': {
      const mm = withOcs(m, e);
      const c = pt(e, 'center');
      const r = num(e, 'radius', 0);
      if (!(r > 0)) return;
      const pts: number[] = [];
      if (type === 'CIRCLE') {
        pushArc(pts, mm, c[0]!, c[1]!, c[2] ?? 0, r, 0, Math.PI * 2, ctx.tol);
        pts.length -= 2;
        emitPolyline(ctx, p, mm, pts, true);
      } else {
        const a0 = (num(e, 'start_angle', 0) * Math.PI) / 180;
        let a1 = (num(e, 'end_angle', 360) * Math.PI) / 180;
        while (a1 <= a0) a1 += Math.PI * 2;
        pushArc(pts, mm, c[0]!, c[1]!, c[2] ?? 0, r, a0, a1, ctx.tol);
        emitPolyline(ctx, p, mm, pts, false);
      }
      return;
    }
    case 'ELLIPSE': {
      const pts: number[] = [];
      const p0 = num(e, 'start_param', 0);
      const p1 = num(e, 'end_param', Math.PI * 2);
      pushEllipse(pts, m, pt(e, 'center'), pt(e, 'major_axis', [1, 0, 0]), pt(e, 'extrusion', [0, 0, 1]), num(e, 'ratio', 1), p0, p1, ctx.tol);
      const full = Math.abs(p1 - p0 - Math.PI * 2) < 1e-9 || Math.abs(p1 - p0) < 1e-12;
      if (full) pts.length -= 2;
      emitPolyline(ctx, p, m, pts, full);
      return;
    }
    case 'LWPOLYLINE':
      drawLwPolyline(ctx, e, p, m);
      return;
    case 'POLYLINE':
      drawPolyline(ctx, e, p, m);
      return;
    case 'SPLINE':
    case 'HELIX':
      drawSpline(ctx, e, p, m);
      return;
    case 'TEXT':
    case 'ATTRIB':
      if (type === 'ATTRIB' && (num(e, 'flags', 0) & 1) !== 0) return;
      drawText(ctx, e, p, m);
      return;
    case 'ATTDEF':
      if (ctx.inBlock || (num(e, 'flags', 0) & 1) !== 0) return;
      drawText(ctx, { ...e, attrs: { ...e.attrs, text: str(e, 'tag', str(e, 'text', '')) } }, p, m);
      return;
    case 'MTEXT':
      drawMText(ctx, e, p, m);
      return;
    case 'INSERT':
      drawInsert(ctx, e, p, m, parent);
      return;
    case 'DIMENSION':
    case 'ARC_DIMENSION':
    case 'LARGE_RADIAL_DIMENSION':
    case 'ACAD_TABLE': {
      const name = str(e, 'geometry', '') || str(e, 'block_name', '') || rawValue(e, 2) || '';
      const block = name ? ctx.doc.getBlock(name) : undefined;
      if (!block) {
        skip(ctx, type);
        return;
      }
      let mm = m;
      if (type === 'ACAD_TABLE') {
        const ins = pt(e, 'insert');
        mm = mul(m, translation(ins[0]!, ins[1]!, ins[2] ?? 0));
      }
      drawBlockContent(ctx, block, mm, p);
      return;
    }
    case 'HATCH':
      drawHatch(ctx, e, p, m);
      return;
    case 'SOLID':
    case 'TRACE':
      drawSolid(ctx, e, p, m, false);
      return;
    case '3DFACE':
      drawSolid(ctx, e, p, m, true);
      return;
    case 'IMAGE':
      drawImage(ctx, e, p, m);
      return;
    case 'WIPEOUT': {
      const ring = imageBoundary(e, m, true);
      emitPath(ctx, p, [ring], null, true, ctx.background);
      return;
    }
    case 'LEADER': {
      const vs = attr(e, 'vertices');
      if (!Array.isArray(vs) || vs.length < 2) return;
      const pts: number[] = [];
      pushPts(pts, m, vs as number[][]);
      emitPolyline(ctx, p, m, pts, false);
      if (num(e, 'has_arrowhead', 1) !== 0) drawLeaderArrow(ctx, e, p, m, vs as number[][]);
      return;
    }
    case 'MLINE':
      drawMLine(ctx, e, p, m);
      return;
    case 'MULTILEADER':
    case 'MLEADER':
      drawMultiLeader(ctx, e, p, m);
      return;
    case 'TOLERANCE':
      drawTolerance(ctx, e, p, m);
      return;
    case 'RAY':
    case 'XLINE':
      drawInfiniteLine(ctx, e, p, m, type === 'XLINE');
      return;
    // LIGHT shows as a glyph in a CAD program's viewport but is never plotted
    case 'LIGHT':
    case 'SEQEND':
    case 'VERTEX':
      return;
    default:
      if (!drawProxyGraphics(ctx, e, p, m)) skip(ctx, type);
  }
}

function drawSpline(ctx: Ctx, e: Entity, p: Props, m: Mat): void {
  const sc = scaleOf(m) || 1;
  try {
    for (const poly of flatten(e, ctx.tol / sc)) {
      const pts: number[] = [];
      pushPts(pts, m, poly);
      emitPolyline(ctx, p, m, pts, false);
    }
    return;
  } catch {
    // a spline the geometry module cannot evaluate: the local evaluator draws what it can
  }
  const ctrl = attr(e, 'control_points') as number[][] | undefined;
  const knots = (attr(e, 'knots') ?? attr(e, 'knot_values')) as number[] | undefined;
  const weights = attr(e, 'weights') as number[] | undefined;
  const fit = attr(e, 'fit_points') as number[][] | undefined;
  const pts: number[] = [];
  if (Array.isArray(ctrl) && ctrl.length >= 2 && Array.isArray(knots)) {
    pushSpline(pts, m, num(e, 'degree', 3), ctrl, knots, Array.isArray(weights) && weights.length === ctrl.length ? weights : null, ctx.tol, sc);
  } else if (Array.isArray(fit) && fit.length >= 2) {
    pushPts(pts, m, fit);
  } else {
    skip(ctx, 'SPLINE');
    return;
  }
  emitPolyline(ctx, p, m, pts, (num(e, 'flags', 0) & 1) !== 0 && false);
}

/**
 * Finds the layout's own viewport and whether the layout was the current one: in a layout that was
 * not, every viewport has status 0 and the layout's own one, written first, id 0 rather than 1.
 * (The LAYOUT's 331 names the viewport last active, which may be a floating one.)
 */
function viewportsOf(ctx: Ctx, layout: { block: Block }): void {
  const vps = layout.block.entities.filter((e) => e.type === 'VIEWPORT');
  if (vps.length === 0) return;
  ctx.layoutInactive = vps.every((v) => num(v, 'status', 1) === 0);
  ctx.overallViewport = vps.find((v) => num(v, 'id', 2) === 1) ?? (ctx.layoutInactive ? vps[0]! : null);
}

/** Renders model space or a paper-space layout into a display list. */
export function renderLayout(doc: DocumentApi, opts: RenderOptions = {}): DisplayList {
  const layout = findLayout(doc, opts.layout);
  if (!layout) throw new Error(`no layout named ${opts.layout}`);
  const ctx = makeCtx(doc, opts);
  const isModel = layout.block.name.toUpperCase() === '*MODEL_SPACE';
  if (!isModel && !(opts.tolerance && opts.tolerance > 0)) {
    // paper units (mm): 0.05 mm chords
    const pe = headerExtents(doc, true);
    ctx.tol = pe ? Math.max(0.01, Math.max(pe.maxX - pe.minX, pe.maxY - pe.minY) / 8000) : 0.05;
  }
  if (!isModel) viewportsOf(ctx, layout);
  const m = identity();
  const only = opts.handles;
  if (only && only.size * 8 < layout.block.entities.length) {
    // a few entities of a large layout: found by handle, not by walking the layout
    // an entity owned by the layout's block record is in it (blockOf would search the layout's
    // entity list for each one: a part of a million-entity model space took as long as the whole)
    const record = layout.block.block.owner?.toUpperCase();
    for (const h of only) {
      const e = doc.get(h) as Entity | undefined;
      if (!e) continue;
      const owned = record && e.owner ? e.owner.toUpperCase() === record : doc.blockOf(h) === layout.block;
      if (owned) drawEntity(ctx, e, m, null);
    }
  } else {
    for (const e of layout.block.entities) {
      if (only && !only.has(e.handle)) continue;
      drawEntity(ctx, e, m, null);
    }
  }
  if (ctx.infinite.length) {
    let area = opts.area && boundsValid(opts.area) ? opts.area : unionBounds(ctx.bounds, plotArea(doc, layout, isModel));
    if (!boundsValid(area)) {
      // only infinite lines: they make the extents after all, or the page would be blank
      area = aroundBasePoints(ctx.infinite);
      touch(ctx, [area.minX, area.minY, area.maxX, area.maxY]);
    }
    const dropped = resolveInfinite(ctx, ctx.infinite, area);
    if (dropped.size) ctx.prims = ctx.prims.filter((pr) => !dropped.has(pr));
  }
  void det2;
  return { prims: ctx.prims, clips: ctx.clips, layers: [...ctx.layersSeen.keys()], bounds: ctx.bounds, background: ctx.background, skipped: ctx.skipped, tolerance: ctx.tol };
}

/**
 * Draws single entities, each in the coordinates it is defined in (WCS, or its block's), with the
 * drawing's layers, linetypes and styles read once: what `entity` draws and the colour its own
 * properties resolve to (null: not drawn). RAY and XLINE are clipped to `opts.area`.
 */
export function entityRenderer(doc: DocumentApi, opts: RenderOptions = {}): (e: Entity) => { list: DisplayList; color: Rgb } | null {
  const ctx = makeCtx(doc, opts);
  const m = identity();
  return (e) => {
    const p = resolveProps(ctx, e, null);
    if (!p) return null;
    ctx.prims = [];
    ctx.bounds = emptyBounds();
    ctx.skipped = {};
    ctx.infinite = [];
    drawEntity(ctx, e, m, null);
    if (ctx.infinite.length) {
      const area = opts.area && boundsValid(opts.area) ? opts.area : ctx.bounds;
      const dropped = boundsValid(area) ? resolveInfinite(ctx, ctx.infinite, area) : new Set<Prim>(ctx.infinite.map((l) => l.prim));
      if (dropped.size) ctx.prims = ctx.prims.filter((pr) => !dropped.has(pr));
    }
    const list: DisplayList = { prims: ctx.prims, clips: ctx.clips, layers: [], bounds: ctx.bounds, background: ctx.background, skipped: ctx.skipped, tolerance: ctx.tol };
    return { list, color: p.color };
  };
}
