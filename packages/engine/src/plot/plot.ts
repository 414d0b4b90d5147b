// plot: layouts -> pages (paper, area and scale from each layout's page setup) -> PDF / SVG / PNG
// files, written atomically; one file per page when the path holds `{page}`.
import { extname } from 'node:path';
import { writeAll, writeFileAtomicSync } from '@linework/dxf';
import type { DocumentApi } from '../dxf.js';
import { OpError } from '../protocol.js';
import type { Bounds, DisplayList, Prim } from '../render/display-list.js';
import { boundsValid } from '../render/display-list.js';
import type { Affine, Page } from '../render/page.js';
import { applyAffine, paperScale } from '../render/page.js';
import { pagesToPdf } from '../render/pdf.js';
import { pageToPng, pngSize } from '../render/png.js';
import { BUDGETS, budgetError } from '../budgets.js';
import { findLayout } from '../render/layouts.js';
import { renderLayout } from '../render/renderer.js';
import { pageToSvg } from '../render/svg.js';
import type { PageSetup } from './page-setup.js';
import { paperName, parsePaper, readPageSetup } from './page-setup.js';
import { applyPlotStyle, type PlotStyleTable } from './plot-style.js';

export interface Margins {
  left: number;
  bottom: number;
  right: number;
  top: number;
}

export type PlotFormat = 'pdf' | 'svg' | 'png';

export interface PlotOptions {
  /** One layout by name (default: model space). */
  layout?: string;
  /** Output file; `{page}` is replaced by the layout name (one file per page). */
  path: string;
  format?: PlotFormat;
  /** 'all' layouts, or a list of layout names (overrides `layout`). */
  pages?: 'all' | string[];
  /** PNG: pixels per inch of paper (default 96). */
  dpi?: number;
  /** PNG: size in pixels (the other side follows the paper's aspect unless both are given). */
  width?: number;
  height?: number;
  /** Paper to use instead of the layouts' page setups ('A4', 'ANSI B', 'WxH'); fits the plot area. */
  paper?: string;
  /**
   * Plots each layout's extents fitted to its paper, instead of the plot area and scale of its page
   * setup (whose paper, orientation and margins stay): for page setups whose window, limits or
   * scale leave the page (nearly) empty.
   */
  fit?: boolean;
  /**
   * Paper millimetres per drawing unit (`1:100` is 0.01): the plot area at this scale, centred on
   * the paper, instead of the page setup's scale or fitting.
   */
  scale?: number;
  /** Unprintable margins of the paper in mm, instead of the page setup's (5 mm when it has none). */
  margins?: Margins;
  /** A colour-dependent plot style table (.ctb, or monochrome) applied to every page. */
  plotStyle?: PlotStyleTable;
  /** Directory relative image paths are resolved against (the drawing's folder). */
  baseDir?: string;
  /** The image files the drawing links, as the caller allows them (see RenderOptions.images). */
  images?: Map<string, string | null>;
  /** Checks (and may create the folder of) each output file; returns the path to write. */
  resolveOutput?: (file: string) => Promise<string>;
  /** Called after each page is rendered (progress bars). */
  onPage?: (done: number, total: number, layout: string) => void;
}

export interface PlottedPage {
  layout: string;
  file: string;
  paper: string;
  /** Sheet size in mm. */
  width: number;
  height: number;
  /** Paper mm per drawing unit actually used. */
  scale: number;
  /** PNG only: pixel size. */
  pixels?: { width: number; height: number };
}

/** A page that came out empty or nearly so. */
export interface PlotWarning {
  layout: string;
  code: 'empty_page' | 'nearly_empty_page' | 'clipped_page';
  message: string;
  /** Primitives of the layout that reach the paper, and all of them. */
  on_paper: number;
  primitives: number;
  /** Share of the printable area the ink on the paper spans (0..1). */
  coverage: number;
}

export interface PlotResult {
  format: PlotFormat;
  files: string[];
  pages: PlottedPage[];
  /** Entity types (and reasons) the renderer could not draw, with counts. */
  skipped: Record<string, number>;
  /** Pages that came out empty or nearly so, and why (`fit` plots the extents instead). */
  warnings: PlotWarning[];
}

/** `1:100` (paper mm : drawing units), `2:1`, `1=100` or a plain factor, as paper mm per unit. */
export function parsePlotScale(text: string | number): number | 'fit' {
  if (typeof text === 'number') text = String(text);
  const t = text.trim().toLowerCase();
  if (t === 'fit') return 'fit';
  const m = /^(\d+(?:\.\d+)?)\s*[:=/]\s*(\d+(?:\.\d+)?)$/.exec(t);
  const v = m ? Number(m[1]) / Number(m[2]) : /^\d+(?:\.\d+)?(?:e-?\d+)?$/.test(t) ? Number(t) : NaN;
  if (!(v > 0 && Number.isFinite(v))) throw new OpError('invalid_request', `scale takes 1:N (e.g. 1:100: 1 mm of paper for 100 drawing units), A:B or fit, got ${JSON.stringify(text)}`);
  return v;
}

/** `10` (all four) or `L,B,R,T` in mm. */
export function parseMargins(text: string | number | readonly number[]): Margins {
  if (typeof text !== 'string') text = typeof text === 'number' ? String(text) : text.join(',');
  const parts = text.split(',').map((x) => x.trim());
  const nums = parts.map(Number);
  if ((parts.length !== 1 && parts.length !== 4) || nums.some((n, i) => parts[i] === '' || !(n >= 0 && n < 1000))) {
    throw new OpError('invalid_request', `margins take one number of mm or four (left, bottom, right, top), each 0 to 999, got ${JSON.stringify(text)}`);
  }
  const [l, b = l, r = l, t = l] = nums as [number, number?, number?, number?];
  return { left: l, bottom: b, right: r, top: t };
}

/** Below this share of the printable area spanned by ink, a page counts as nearly empty. */
export const NEARLY_EMPTY = 0.005;

const A4 = { width: 210, height: 297 };

function limitsOf(doc: DocumentApi, layoutName: string, isModel: boolean): Bounds | null {
  if (isModel) {
    const a = doc.getHeader('$LIMMIN');
    const b = doc.getHeader('$LIMMAX');
    if (Array.isArray(a) && Array.isArray(b)) {
      const r = { minX: a[0]!, minY: a[1]!, maxX: b[0]!, maxY: b[1]! };
      if (boundsValid(r) && r.maxX > r.minX && r.maxY > r.minY) return r;
    }
    return null;
  }
  const lay = findLayout(doc, layoutName);
  const rec = lay?.handle ? doc.get(lay.handle) : undefined;
  const obj = rec?.type === 'LAYOUT' ? rec : doc.objects.find((o) => o.type === 'LAYOUT' && String(o.attrs.name ?? '').toUpperCase() === layoutName.toUpperCase());
  const mn = obj?.attrs.limmin as number[] | undefined;
  const mx = obj?.attrs.limmax as number[] | undefined;
  if (Array.isArray(mn) && Array.isArray(mx)) {
    const r = { minX: mn[0]!, minY: mn[1]!, maxX: mx[0]!, maxY: mx[1]! };
    if (boundsValid(r) && r.maxX > r.minX && r.maxY > r.minY) return r;
  }
  return null;
}

/** Places a layout's display list on its paper as the page setup says (`fit`: its extents, fitted). */
export function layoutPage(doc: DocumentApi, layoutName: string, list: DisplayList, opts: { paper?: string; fit?: boolean; scale?: number; margins?: Margins } = {}): { page: Page; paper: string; scale: number; margins: Margins; area: Bounds | null } {
  const lay = findLayout(doc, layoutName);
  const name = lay?.name ?? layoutName;
  const isModel = !lay || lay.block.name.toUpperCase() === '*MODEL_SPACE';
  const ps: PageSetup | null = readPageSetup(doc, name);
  const b = list.bounds;
  const landscapeContent = boundsValid(b) ? b.maxX - b.minX >= (b.maxY - b.minY) * 0.98 : true;
  let W: number, H: number;
  let fit: boolean;
  let center: boolean;
  let ratio = 1;
  let margins = { left: 5, bottom: 5, right: 5, top: 5 };
  let origin: [number, number] = [0, 0];
  let area: 'extents' | 'limits' | 'window' | 'layout' = 'extents';
  let window: [number, number, number, number] | null = null;
  const valid = ps !== null && ps.width > 0 && ps.height > 0;
  if (opts.paper) {
    const p = parsePaper(opts.paper);
    if (!p) throw new OpError('invalid_request', `unknown paper ${JSON.stringify(opts.paper)}: use A0-A5, ANSI A-E, Letter, Tabloid or WxH in mm`);
    W = landscapeContent ? p.height : p.width;
    H = landscapeContent ? p.width : p.height;
    fit = true;
    center = true;
  } else if (valid) {
    W = ps.width;
    H = ps.height;
    margins = ps.margins;
    origin = ps.origin;
    fit = ps.fit;
    ratio = ps.ratio;
    center = ps.center;
    switch (ps.plotArea) {
      case 'window':
        area = 'window';
        window = ps.window;
        break;
      case 'limits':
        area = 'limits';
        break;
      case 'layout':
        area = isModel ? 'extents' : 'layout';
        if (isModel) fit = true;
        break;
      case 'extents':
        break;
      default:
        // last screen display / named view: what the screen showed is unknown here -> extents, fitted
        fit = true;
        center = true;
    }
  } else {
    W = landscapeContent ? A4.height : A4.width;
    H = landscapeContent ? A4.width : A4.height;
    fit = true;
    center = true;
  }
  if (opts.fit) {
    // the extents, fitted and centred on the page setup's paper
    area = 'extents';
    fit = true;
    center = true;
  }
  if (opts.scale !== undefined) {
    // a scale given for this plot: the plot area (a paper-space layout is plotted whole) at that
    // scale, centred on the paper
    if (area === 'layout') area = isModel ? 'extents' : 'limits';
    fit = false;
    center = true;
    ratio = opts.scale;
  }
  if (opts.margins) margins = opts.margins;
  const x0 = margins.left;
  const y0 = margins.bottom;
  const pw = Math.max(W - margins.left - margins.right, 1);
  const ph = Math.max(H - margins.bottom - margins.top, 1);
  let A: Bounds | null = null;
  if (area === 'window' && window) A = { minX: Math.min(window[0], window[2]), minY: Math.min(window[1], window[3]), maxX: Math.max(window[0], window[2]), maxY: Math.max(window[1], window[3]) };
  else if (area === 'limits' || (area === 'layout' && (fit || center))) A = limitsOf(doc, name, isModel) ?? (boundsValid(b) ? b : null);
  else if (area === 'extents') A = boundsValid(b) ? b : null;
  let toPaper: Page['toPaper'];
  let scale = ratio;
  if (area === 'layout' && !fit && !center) {
    // paper-space origin at the printable area's corner plus the plot origin
    toPaper = [ratio, 0, 0, ratio, x0 + origin[0], y0 + origin[1]];
  } else if (!A || !(A.maxX - A.minX > 0 || A.maxY - A.minY > 0)) {
    toPaper = [1, 0, 0, 1, x0, y0];
    if (A) toPaper = [1, 0, 0, 1, x0 + pw / 2 - A.minX, y0 + ph / 2 - A.minY];
    scale = 1;
  } else {
    const w = Math.max(A.maxX - A.minX, 1e-12);
    const h = Math.max(A.maxY - A.minY, 1e-12);
    scale = fit ? Math.min(pw / w, ph / h) : ratio;
    if (fit || center) {
      toPaper = [scale, 0, 0, scale, x0 + pw / 2 - ((A.minX + A.maxX) / 2) * scale, y0 + ph / 2 - ((A.minY + A.maxY) / 2) * scale];
    } else {
      toPaper = [scale, 0, 0, scale, x0 + origin[0] - A.minX * scale, y0 + origin[1] - A.minY * scale];
    }
  }
  return { page: { name, list, width: W, height: H, toPaper }, paper: paperName(W, H), scale, margins, area: A };
}

/** The warning for a plot area that does not fit the printable area at the scale asked for. */
function clippedWarning(placed: { page: Page; scale: number; margins: Margins; area: Bounds | null }): PlotWarning | null {
  const { page, scale, margins, area } = placed;
  if (!area) return null;
  const w = (area.maxX - area.minX) * scale;
  const h = (area.maxY - area.minY) * scale;
  const pw = page.width - margins.left - margins.right;
  const ph = page.height - margins.bottom - margins.top;
  // a hair of tolerance: a drawing that fits exactly is not clipped
  if (w <= pw * 1.0001 && h <= ph * 1.0001) return null;
  const ink = pageInk(page, margins);
  return {
    layout: page.name, code: 'clipped_page', on_paper: ink.onPaper, primitives: ink.primitives, coverage: ink.coverage,
    message: `page ${page.name} is cut: at the scale asked for the plot area is ${Math.round(w)} x ${Math.round(h)} mm and the paper's printable area ${Math.round(pw)} x ${Math.round(ph)} mm (a larger --paper or a smaller scale fits it)`,
  };
}

/** Widens `out` by the points (flat x, y, ...) mapped to paper. */
function addPoints(m: Affine, pts: readonly number[], out: Bounds): void {
  for (let i = 0; i + 1 < pts.length; i += 2) {
    const [px, py] = applyAffine(m, pts[i]!, pts[i + 1]!);
    if (px < out.minX) out.minX = px;
    if (px > out.maxX) out.maxX = px;
    if (py < out.minY) out.minY = py;
    if (py > out.maxY) out.maxY = py;
  }
}

function noBox(): Bounds {
  return { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
}

/** The paper box of a primitive (text by a generous box around its anchor). */
function primBox(pr: Prim, m: Affine, scale: number, out: Bounds): void {
  const pts = (a: readonly number[]): void => addPoints(m, a, out);
  if (pr.kind === 'polyline') pts(pr.pts);
  else if (pr.kind === 'path') for (const r of pr.rings) pts(r);
  else if (pr.kind === 'text') {
    const r = (pr.width + pr.height) * scale;
    const [px, py] = applyAffine(m, pr.x, pr.y);
    out.minX = Math.min(out.minX, px - r);
    out.maxX = Math.max(out.maxX, px + r);
    out.minY = Math.min(out.minY, py - r);
    out.maxY = Math.max(out.maxY, py + r);
  } else {
    const [a, b, c, d, e, f] = pr.matrix;
    const w = pr.pxWidth;
    const h = pr.pxHeight;
    pts([e, f, e + a * w, f + b * w, e + c * h, f + d * h, e + a * w + c * h, f + b * w + d * h]);
  }
}

/**
 * How much of a layout lands on its paper: the primitives whose box (clipped by their viewport
 * frame) meets the printable area, and the share of that area the boxes span. A page whose
 * plot window, limits or scale miss the drawing comes out empty though the layout is not.
 */
export function pageInk(page: Page, margins: { left: number; bottom: number; right: number; top: number }): { onPaper: number; primitives: number; coverage: number } {
  const m = page.toPaper;
  const scale = paperScale(page);
  const sheet = { minX: margins.left, minY: margins.bottom, maxX: page.width - margins.right, maxY: page.height - margins.top };
  if (!(sheet.maxX > sheet.minX && sheet.maxY > sheet.minY)) Object.assign(sheet, { minX: 0, minY: 0, maxX: page.width, maxY: page.height });
  const clipBoxes = page.list.clips.map((c) => {
    const b = noBox();
    for (const r of c.rings) addPoints(m, r, b);
    return b;
  });
  const ink = noBox();
  let onPaper = 0;
  for (const pr of page.list.prims) {
    const b = noBox();
    primBox(pr, m, scale, b);
    for (let c = pr.clip; c >= 0; c = page.list.clips[c]?.parent ?? -1) {
      const cb = clipBoxes[c]!;
      b.minX = Math.max(b.minX, cb.minX);
      b.minY = Math.max(b.minY, cb.minY);
      b.maxX = Math.min(b.maxX, cb.maxX);
      b.maxY = Math.min(b.maxY, cb.maxY);
    }
    b.minX = Math.max(b.minX, sheet.minX);
    b.minY = Math.max(b.minY, sheet.minY);
    b.maxX = Math.min(b.maxX, sheet.maxX);
    b.maxY = Math.min(b.maxY, sheet.maxY);
    if (!(b.maxX >= b.minX && b.maxY >= b.minY)) continue;
    onPaper++;
    ink.minX = Math.min(ink.minX, b.minX);
    ink.minY = Math.min(ink.minY, b.minY);
    ink.maxX = Math.max(ink.maxX, b.maxX);
    ink.maxY = Math.max(ink.maxY, b.maxY);
  }
  const area = (sheet.maxX - sheet.minX) * (sheet.maxY - sheet.minY);
  const coverage = onPaper > 0 ? Math.min(1, ((ink.maxX - ink.minX) * (ink.maxY - ink.minY)) / area) : 0;
  return { onPaper, primitives: page.list.prims.length, coverage };
}

/** The warning for a page that comes out empty or nearly so; null for a page with ink on it. */
export function emptyPageWarning(page: Page, margins: { left: number; bottom: number; right: number; top: number }): PlotWarning | null {
  const { onPaper, primitives, coverage } = pageInk(page, margins);
  const base = { layout: page.name, on_paper: onPaper, primitives, coverage };
  if (primitives === 0) {
    return { ...base, code: 'empty_page', message: `page ${page.name} is empty: the layout holds nothing that is drawn` };
  }
  if (onPaper === 0) {
    return {
      ...base, code: 'empty_page',
      message: `page ${page.name} is empty: none of its ${primitives} primitives falls on the paper (the page setup's plot area or scale misses the drawing); fit plots the extents`,
    };
  }
  if (coverage < NEARLY_EMPTY) {
    return {
      ...base, code: 'nearly_empty_page',
      message: `page ${page.name} is nearly empty: what falls on the paper (${onPaper} of ${primitives} primitives) spans ${(coverage * 100).toFixed(2)} % of it; fit plots the extents`,
    };
  }
  return null;
}

function formatOf(path: string, format?: string): PlotFormat {
  if (format !== undefined) {
    const f = format.toLowerCase();
    if (f === 'pdf' || f === 'svg' || f === 'png') return f;
    throw new OpError('invalid_request', `format must be pdf, svg or png, got ${JSON.stringify(format)}`);
  }
  const ext = extname(path.replace(/\{page\}/g, 'x')).toLowerCase().slice(1);
  if (ext === 'pdf' || ext === 'svg' || ext === 'png') return ext;
  throw new OpError('invalid_request', `cannot tell the format from ${JSON.stringify(path)}: give format (pdf, svg, png) or use one of those extensions`);
}

/** Writes a file atomically (temporary file in the same folder, then rename), keeping the mode of the file it replaces. */
export function writeAtomic(path: string, data: Buffer | string): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  try {
    writeFileAtomicSync(path, (fd) => writeAll(fd, bytes));
  } catch (err) {
    throw new OpError('io_error', `cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { path });
  }
}

function safePageName(name: string): string {
  // File names may not hold control characters on any platform.
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\\/:*?"<>|\u0000-\u001f]/g, '_').trim() || 'page';
}

/** The layouts a plot request covers, by their names in the drawing. */
export function plotLayouts(doc: DocumentApi, opts: Pick<PlotOptions, 'layout' | 'pages'>): string[] {
  const all = doc.layouts();
  if (opts.pages === 'all') return all.map((l) => l.name);
  if (Array.isArray(opts.pages) && opts.pages.length) {
    return opts.pages.map((n) => {
      const l = findLayout(doc, n);
      if (!l) throw new OpError('unknown_layout', `no layout named ${JSON.stringify(n)}`, { layout: n, layouts: all.map((x) => x.name) });
      return l.name;
    });
  }
  const l = findLayout(doc, opts.layout);
  if (!l) throw new OpError('unknown_layout', `no layout named ${JSON.stringify(opts.layout)}`, { layout: opts.layout, layouts: all.map((x) => x.name) });
  return [l.name];
}

/** A page placed on its paper, ready for a back end. */
export interface PlacedPage {
  page: Page;
  paper: string;
  scale: number;
}

/** The pages of a plot request, rendered and placed, and what was skipped or warned about. */
export function plotPages(doc: DocumentApi, opts: Omit<PlotOptions, 'path'> & { format: PlotFormat }): { pages: PlacedPage[]; skipped: Record<string, number>; warnings: PlotWarning[] } {
  const format = opts.format;
  const names = plotLayouts(doc, opts);
  if (opts.dpi !== undefined && !(opts.dpi > 0 && opts.dpi <= 2400)) throw new OpError('invalid_request', 'dpi must be between 1 and 2400');
  for (const k of ['width', 'height'] as const) {
    const v = opts[k];
    if (v !== undefined && !(Number.isInteger(v) && v > 0 && v <= 20000)) throw new OpError('invalid_request', `${k} must be an integer number of pixels (1..20000)`);
  }
  if (opts.scale !== undefined && !(opts.scale > 0 && Number.isFinite(opts.scale))) throw new OpError('invalid_request', 'scale must be a positive number of paper mm per drawing unit');
  if (opts.margins) {
    for (const v of Object.values(opts.margins)) if (!(v >= 0 && v < 1000)) throw new OpError('invalid_request', 'margins must be between 0 and 1000 mm');
  }
  // a paper given by the request is judged before anything is drawn
  if (opts.paper) {
    const p = parsePaper(opts.paper);
    if (p) checkPageBudgets({ width: p.width, height: p.height }, format, opts);
  }
  const pages: PlacedPage[] = [];
  const skipped: Record<string, number> = {};
  const warnings: PlotWarning[] = [];
  for (const name of names) {
    const drawn = renderLayout(doc, { layout: name, baseDir: opts.baseDir, images: opts.images });
    for (const [k, v] of Object.entries(drawn.skipped)) skipped[k] = (skipped[k] ?? 0) + v;
    const list = opts.plotStyle ? applyPlotStyle(drawn, opts.plotStyle) : drawn;
    const placed = layoutPage(doc, name, list, { paper: opts.paper, fit: opts.fit, scale: opts.scale, margins: opts.margins });
    checkPageBudgets(placed.page, format, opts);
    const warning = emptyPageWarning(placed.page, placed.margins) ?? (opts.scale !== undefined ? clippedWarning(placed) : null);
    if (warning) warnings.push(warning);
    pages.push(placed);
    opts.onPage?.(pages.length, names.length, name);
  }
  return { pages, skipped, warnings };
}

/** Plots one layout, several or all to PDF, SVG or PNG files. */
export async function plot(doc: DocumentApi, opts: PlotOptions): Promise<PlotResult> {
  if (typeof opts.path !== 'string' || opts.path.trim() === '') throw new OpError('invalid_request', 'path is required');
  const format = formatOf(opts.path, opts.format);
  const perPage = opts.path.includes('{page}');
  const names = plotLayouts(doc, opts);
  if (names.length > 1 && !perPage && format !== 'pdf') {
    throw new OpError('invalid_request', `${names.length} pages to ${format.toUpperCase()}: put {page} in the path to write one file per page`, { pages: names });
  }
  const { pages, skipped, warnings } = plotPages(doc, { ...opts, format });
  const files: string[] = [];
  const out: PlottedPage[] = [];
  const used = new Map<string, number>();
  const resolveOutput = opts.resolveOutput ?? (async (f: string) => f);
  const fileFor = async (name: string): Promise<string> => {
    if (!perPage) return resolveOutput(opts.path);
    let base = safePageName(name);
    const n = used.get(base.toLowerCase()) ?? 0;
    used.set(base.toLowerCase(), n + 1);
    if (n) base = `${base}-${n + 1}`;
    return resolveOutput(opts.path.replace(/\{page\}/g, base));
  };
  const describe = (p: { page: Page; paper: string; scale: number }, file: string): PlottedPage => ({
    layout: p.page.name, file, paper: p.paper, width: round2(p.page.width), height: round2(p.page.height), scale: p.scale,
  });
  if (format === 'pdf') {
    if (perPage) {
      for (const p of pages) {
        const file = await fileFor(p.page.name);
        writeAtomic(file, await pagesToPdf([p.page], { title: p.page.name }));
        files.push(file);
        out.push(describe(p, file));
      }
    } else {
      const file = await fileFor('');
      writeAtomic(file, await pagesToPdf(pages.map((p) => p.page), { title: pages.map((p) => p.page.name).join(', ') }));
      files.push(file);
      for (const p of pages) out.push(describe(p, file));
    }
  } else {
    const imageCache = new Map<string, string>();
    for (const p of pages) {
      const file = await fileFor(p.page.name);
      if (format === 'svg') writeAtomic(file, pageToSvg(p.page, { imageCache }));
      else {
        const png = pageToPng(p.page, { dpi: opts.dpi, width: opts.width, height: opts.height, imageCache });
        writeAtomic(file, png);
        const d = describe(p, file);
        d.pixels = { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
        files.push(file);
        out.push(d);
        continue;
      }
      files.push(file);
      out.push(describe(p, file));
    }
  }
  return { format, files, pages: out, skipped, warnings };
}

/**
 * The paper and pixel budgets of one page (`paper_mm`, `plot_pixels`): a 5000 mm sheet at 2400 dpi
 * would be 472k x 472k pixels, so the raster's size is judged before resvg allocates it.
 */
function checkPageBudgets(page: { width: number; height: number }, format: PlotFormat, opts: Pick<PlotOptions, 'dpi' | 'width' | 'height'>): void {
  const side = Math.max(page.width, page.height);
  if (side > BUDGETS.paperMm) {
    throw budgetError('paper_mm', BUDGETS.paperMm, Math.round(side), `the paper's longer side is ${Math.round(side)} mm; the budget is ${BUDGETS.paperMm} mm`);
  }
  if (format !== 'png') return;
  const px = pngSize({ width: page.width, height: page.height } as Page, { dpi: opts.dpi, width: opts.width, height: opts.height });
  const pixels = px.width * px.height;
  if (pixels > BUDGETS.plotPixels) {
    throw budgetError(
      'plot_pixels', BUDGETS.plotPixels, pixels,
      `a ${px.width} x ${px.height} pixel page is ${pixels} pixels; the budget is ${BUDGETS.plotPixels} pixels per page (lower dpi, width or height)`,
    );
  }
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}
