// Page setup: paper names, orientation, plot area, scale, centring and margins, stored in the
// PLOTSETTINGS part (subclass AcDbPlotSettings) of a LAYOUT object so that it survives save and open.
// Group codes as ezdxf's entities/layout.py declares them: 1 page setup name, 2 plot configuration,
// 4 paper name, 6 view name, 40..43 margins (left, bottom, right, top, mm), 44/45 paper size (mm),
// 46/47 plot origin (mm), 48/49/140/141 window, 142/143 scale (paper units : drawing units),
// 70 flags (4 centred, 16 standard scale), 72 paper units, 73 rotation, 74 plot type, 75 standard scale.
import type { DocumentApi, DxfRecord, Tag } from '../dxf.js';
import { OpError } from '../protocol.js';
import { findLayout, layoutObject } from '../render/layouts.js';

export interface PaperSize {
  /** Friendly name: 'A4', 'ANSI B', or 'WxH' (mm) for custom sizes. */
  name: string;
  /** Name written to the LAYOUT (group 4), AutoCAD style. */
  canonical: string;
  /** Portrait size in millimetres (width <= height). */
  width: number;
  height: number;
}

const IN = 25.4;

function iso(n: string, w: number, h: number): PaperSize {
  return { name: n, canonical: `ISO_${n}_(${w.toFixed(2)}_x_${h.toFixed(2)}_MM)`, width: w, height: h };
}
function ansi(n: string, w: number, h: number): PaperSize {
  return { name: `ANSI ${n}`, canonical: `ANSI_${n}_(${w.toFixed(2)}_x_${h.toFixed(2)}_Inches)`, width: Math.round(w * IN * 100) / 100, height: Math.round(h * IN * 100) / 100 };
}

/** Paper sizes known by name. */
export const PAPER_SIZES: readonly PaperSize[] = [
  iso('A0', 841, 1189), iso('A1', 594, 841), iso('A2', 420, 594), iso('A3', 297, 420), iso('A4', 210, 297), iso('A5', 148, 210),
  ansi('A', 8.5, 11), ansi('B', 11, 17), ansi('C', 17, 22), ansi('D', 22, 34), ansi('E', 34, 44),
];

const ALIASES: Record<string, string> = { LETTER: 'ANSI A', TABLOID: 'ANSI B', LEDGER: 'ANSI B' };

/**
 * Resolves a paper name: 'A0'..'A5', 'ANSI A'..'ANSI E' (also 'ANSI_A', 'Letter', 'Tabloid'),
 * AutoCAD canonical names ('ISO_A4_(210.00_x_297.00_MM)', 'ISO_full_bleed_A3_...'), or 'WxH' in mm.
 */
export function parsePaper(name: string): PaperSize | null {
  const raw = name.trim();
  const up = raw.toUpperCase().replace(/[\s_-]+/g, ' ').trim();
  const alias = ALIASES[up];
  const key = alias ?? up;
  for (const p of PAPER_SIZES) if (p.name.toUpperCase() === key || p.canonical.toUpperCase() === raw.toUpperCase()) return p;
  const custom = /^(\d+(?:\.\d+)?)\s*[xX×]\s*(\d+(?:\.\d+)?)\s*(MM)?$/i.exec(raw);
  if (custom) {
    const w = parseFloat(custom[1]!);
    const h = parseFloat(custom[2]!);
    if (w > 0 && h > 0 && w <= 20000 && h <= 20000) {
      return { name: `${fmtNum(w)}x${fmtNum(h)}`, canonical: `USER_(${w.toFixed(2)}_x_${h.toFixed(2)}_MM)`, width: Math.min(w, h), height: Math.max(w, h) };
    }
  }
  // canonical AutoCAD names with a size in them: ..._(W_x_H_MM) or _Inches)
  const m = /\((\d+(?:\.\d+)?)_x_(\d+(?:\.\d+)?)_(MM|Inches)\)/i.exec(raw);
  if (m) {
    const f = m[3]!.toUpperCase() === 'MM' ? 1 : IN;
    const w = parseFloat(m[1]!) * f;
    const h = parseFloat(m[2]!) * f;
    const known = PAPER_SIZES.find((p) => Math.abs(p.width - Math.min(w, h)) < 0.6 && Math.abs(p.height - Math.max(w, h)) < 0.6);
    if (known) return known;
    return { name: `${fmtNum(Math.min(w, h))}x${fmtNum(Math.max(w, h))}`, canonical: raw, width: Math.min(w, h), height: Math.max(w, h) };
  }
  const isoM = /^(?:ISO )?(?:FULL BLEED )?(A[0-5])\b/.exec(up);
  if (isoM) return PAPER_SIZES.find((p) => p.name === isoM[1]) ?? null;
  const ansiM = /^(?:ARCH |ANSI )?(?:FULL BLEED )?([A-E])\b/.exec(up.replace(/^ANSI /, 'ANSI '));
  if (ansiM && up.startsWith('ANSI')) return PAPER_SIZES.find((p) => p.name === `ANSI ${ansiM[1]}`) ?? null;
  return null;
}

function fmtNum(v: number): string {
  return String(Math.round(v * 100) / 100);
}

/** Friendly name of a paper size in mm (known sizes by name, else 'WxH'). */
export function paperName(width: number, height: number): string {
  const w = Math.min(width, height);
  const h = Math.max(width, height);
  const known = PAPER_SIZES.find((p) => Math.abs(p.width - w) < 0.6 && Math.abs(p.height - h) < 0.6);
  return known ? known.name : `${fmtNum(w)}x${fmtNum(h)}`;
}

// ---- the AcDbPlotSettings fields -----------------------------------------------------------------

const PS = 'AcDbPlotSettings';
const LY = 'AcDbLayout';

type Kind = 's' | 'f' | 'i';
/** Fields in the order AutoCAD/ezdxf write them, with ezdxf's defaults. */
const FIELDS: [code: number, kind: Kind, def: string | number][] = [
  [1, 's', ''], [2, 's', 'None'], [4, 's', ''], [6, 's', ''],
  [40, 'f', 7.5], [41, 'f', 20], [42, 'f', 7.5], [43, 'f', 20], [44, 'f', 0], [45, 'f', 0], [46, 'f', 0], [47, 'f', 0],
  [48, 'f', 0], [49, 'f', 0], [140, 'f', 0], [141, 'f', 0], [142, 'f', 1], [143, 'f', 1],
  [70, 'i', 688], [72, 'i', 1], [73, 'i', 0], [74, 'i', 5], [7, 's', ''], [75, 'i', 16], [76, 'i', 0], [77, 'i', 2], [78, 'i', 300],
  [147, 'f', 1], [148, 'f', 0], [149, 'f', 0],
];

function psTags(rec: DxfRecord): Tag[] | undefined {
  return rec.extra?.[PS];
}

function getCode(rec: DxfRecord, code: number): string | undefined {
  const tags = psTags(rec);
  if (!tags) return undefined;
  for (const t of tags) if (t[0] === code) return t[1];
  return undefined;
}

function getNum(rec: DxfRecord, code: number, def: number): number {
  const v = getCode(rec, code);
  if (v === undefined) return def;
  const n = Number(v);
  return Number.isFinite(n) ? n : def;
}

function fmtTag(kind: Kind, v: string | number): string {
  if (kind === 's') return String(v);
  if (kind === 'i') return String(Math.round(Number(v)));
  const n = Number(v);
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

/** Writes plot-setting values into the LAYOUT's AcDbPlotSettings tags, in canonical order. */
function setCodes(rec: DxfRecord, values: Map<number, string | number>): void {
  rec.extra ??= {};
  const old = rec.extra[PS] ?? [];
  const known = new Set(FIELDS.map((f) => f[0]));
  const cur = new Map<number, string>();
  const unknown: Tag[] = [];
  for (const t of old) {
    if (known.has(t[0]) && !cur.has(t[0])) cur.set(t[0], t[1]);
    else unknown.push(t);
  }
  const out: Tag[] = [];
  for (const [code, kind, def] of FIELDS) {
    const v = values.get(code);
    if (v !== undefined) out.push([code, fmtTag(kind, v)]);
    else if (cur.has(code)) out.push([code, cur.get(code)!]);
    else out.push([code, fmtTag(kind, def)]);
  }
  for (const t of unknown) out.push(t);
  rec.extra[PS] = out;
  if (rec.markers && !rec.markers.includes(PS)) rec.markers.unshift(PS);
}

function setLimits(rec: DxfRecord, min: [number, number], max: [number, number]): void {
  rec.attrs.limmin = min;
  rec.attrs.limmax = max;
  // when the layout keeps AcDbLayout raw, patch the tags too
  const tags = rec.extra?.[LY];
  if (tags) {
    for (const t of tags) {
      if (t[0] === 10) t[1] = String(min[0]);
      else if (t[0] === 20) t[1] = String(min[1]);
      else if (t[0] === 11) t[1] = String(max[0]);
      else if (t[0] === 21) t[1] = String(max[1]);
    }
  }
}

export type PlotArea = 'display' | 'extents' | 'limits' | 'view' | 'window' | 'layout';
const PLOT_TYPES: PlotArea[] = ['display', 'extents', 'limits', 'view', 'window', 'layout'];

/** Standard scales of group 75 as paper units per drawing unit (index = code; 0 = fit). */
const STANDARD_SCALES: number[] = [
  0, 1 / 128 / 12, 1 / 64 / 12, 1 / 32 / 12, 1 / 16 / 12, 3 / 32 / 12, 1 / 8 / 12, 3 / 16 / 12, 1 / 4 / 12, 3 / 8 / 12, 1 / 2 / 12, 3 / 4 / 12,
  1 / 12, 3 / 12, 6 / 12, 1, 1, 1 / 2, 1 / 4, 1 / 8, 1 / 10, 1 / 16, 1 / 20, 1 / 30, 1 / 40, 1 / 50, 1 / 100, 2, 4, 8, 10, 100, 1000,
];

export interface Margins {
  left: number;
  bottom: number;
  right: number;
  top: number;
}

/** A layout's page setup as the plotter applies it. */
export interface PageSetup {
  layout: string;
  /** Friendly paper name ('A4', 'ANSI B', '500x300'), or '' when the layout has none. */
  paper: string;
  /** Paper name stored in the layout (group 4). */
  paperCanonical: string;
  orientation: 'portrait' | 'landscape';
  /** Sheet size after rotation (mm); 0 when unset. */
  width: number;
  height: number;
  /** Plot rotation code (0 none, 1 90° ccw, 2 180°, 3 90° cw). */
  rotation: number;
  margins: Margins;
  origin: [number, number];
  plotArea: PlotArea;
  window: [number, number, number, number] | null;
  fit: boolean;
  /** Paper units (mm) per drawing unit when not fitting. */
  ratio: number;
  center: boolean;
}

function layoutRecord(doc: DocumentApi, layoutName: string): { name: string; rec: DxfRecord; isModel: boolean } {
  const lay = findLayout(doc, layoutName);
  if (!lay) throw new OpError('unknown_layout', `no layout named ${layoutName}`, { layout: layoutName });
  const rec = layoutObject(doc, lay);
  if (!rec) throw new OpError('invalid_request', `layout ${lay.name} has no LAYOUT object (DXF R12 drawings keep no page setups)`, { layout: lay.name });
  return { name: lay.name, rec, isModel: lay.block.name.toUpperCase() === '*MODEL_SPACE' };
}

/** Reads a layout's page setup (defaults for absent fields). Null when the drawing has no LAYOUT object for it. */
export function readPageSetup(doc: DocumentApi, layoutName: string): PageSetup | null {
  let found: { name: string; rec: DxfRecord; isModel: boolean };
  try {
    found = layoutRecord(doc, layoutName);
  } catch {
    return null;
  }
  return pageSetupOf(found.name, found.rec);
}

export function pageSetupOf(name: string, rec: DxfRecord): PageSetup {
  const pw = getNum(rec, 44, 0);
  const ph = getNum(rec, 45, 0);
  const rotation = getNum(rec, 73, 0) & 3;
  const swap = rotation === 1 || rotation === 3;
  const width = swap ? ph : pw;
  const height = swap ? pw : ph;
  const flags = getNum(rec, 70, 688);
  const sst = getNum(rec, 75, 16);
  const useStd = (flags & 16) !== 0;
  const fit = useStd && sst === 0;
  let ratio = useStd ? (STANDARD_SCALES[sst] ?? 1) : getNum(rec, 142, 1) / (getNum(rec, 143, 1) || 1);
  // ratio is paper units : drawing units, standard scales included (1:1 on inch paper is one inch
  // of paper per unit); paper units in inches (72 = 0) scale to mm, as do the architectural scales
  if (getNum(rec, 72, 1) === 0 || (useStd && sst >= 1 && sst <= 15)) ratio *= IN;
  if (!(ratio > 0) || !Number.isFinite(ratio)) ratio = 1;
  const type = getNum(rec, 74, 5);
  const canonical = getCode(rec, 4) ?? '';
  const parsed = canonical ? parsePaper(canonical) : null;
  return {
    layout: name,
    paper: pw > 0 && ph > 0 ? paperName(pw, ph) : parsed?.name ?? '',
    paperCanonical: canonical,
    orientation: width > height ? 'landscape' : 'portrait',
    width,
    height,
    rotation,
    margins: { left: getNum(rec, 40, 0), bottom: getNum(rec, 41, 0), right: getNum(rec, 42, 0), top: getNum(rec, 43, 0) },
    origin: [getNum(rec, 46, 0), getNum(rec, 47, 0)],
    plotArea: PLOT_TYPES[type] ?? 'layout',
    window: type === 4 ? [getNum(rec, 48, 0), getNum(rec, 49, 0), getNum(rec, 140, 0), getNum(rec, 141, 0)] : null,
    fit,
    ratio,
    center: (flags & 4) !== 0,
  };
}

export interface PageSetupInput {
  paper?: string;
  orientation?: 'portrait' | 'landscape' | string;
  fit?: boolean;
  center?: boolean;
  /** '1:100', '2:1', '1/4"=1\'' not supported; a number is paper mm per drawing unit. */
  scale?: string | number;
  /** Millimetres: one number for all sides, or per side. */
  margins?: number | Partial<Margins>;
  plot_area?: PlotArea;
  window?: [number, number, number, number];
}

export interface PageSetupResult {
  layout: string;
  paper: string;
  orientation: 'portrait' | 'landscape';
  width: number;
  height: number;
  center: boolean;
  margins: Margins;
  plot_area: PlotArea;
  scale: { fit: boolean; ratio: number; paper_units: number; drawing_units: number };
}

/** Parses '1:100' / '2:1' / '1/100' / a number into [paper units, drawing units]. */
export function parseScale(s: string | number): [number, number] {
  if (typeof s === 'number') {
    if (!(s > 0) || !Number.isFinite(s)) throw new OpError('invalid_request', `scale must be positive, got ${s}`);
    return [s, 1];
  }
  const m = /^\s*(\d+(?:\.\d+)?)\s*[:/=]\s*(\d+(?:\.\d+)?)\s*$/.exec(s);
  if (!m) throw new OpError('invalid_request', `scale must look like "1:100", got ${JSON.stringify(s)}`);
  const a = parseFloat(m[1]!);
  const b = parseFloat(m[2]!);
  if (!(a > 0) || !(b > 0)) throw new OpError('invalid_request', `scale must be positive, got ${s}`);
  return [a, b];
}

/**
 * Sets a layout's page setup and stores it in its LAYOUT object. Fields left out keep their
 * current values (paper defaults to A4 when the layout has none).
 */
export function setPageSetup(doc: DocumentApi, layoutName: string, input: PageSetupInput): PageSetupResult {
  const { name, rec, isModel } = layoutRecord(doc, layoutName);
  const cur = pageSetupOf(name, rec);
  let paper: PaperSize | null;
  if (input.paper !== undefined) {
    paper = parsePaper(input.paper);
    if (!paper) {
      throw new OpError('invalid_request', `unknown paper ${JSON.stringify(input.paper)}: use A0-A5, ANSI A-E, Letter, Tabloid or WxH in mm`, {
        paper: input.paper, known: PAPER_SIZES.map((p) => p.name),
      });
    }
  } else if (cur.width > 0 && cur.height > 0) {
    paper = parsePaper(cur.paperCanonical) ?? parsePaper(`${Math.min(cur.width, cur.height)}x${Math.max(cur.width, cur.height)}`);
  } else paper = parsePaper('A4');
  if (!paper) paper = parsePaper('A4')!;
  let orientation: 'portrait' | 'landscape';
  if (input.orientation === undefined) orientation = cur.width > 0 ? cur.orientation : 'landscape';
  else {
    const o = String(input.orientation).toLowerCase();
    if (o !== 'portrait' && o !== 'landscape') throw new OpError('invalid_request', `orientation must be portrait or landscape, got ${JSON.stringify(input.orientation)}`);
    orientation = o;
  }
  let margins: Margins = cur.width > 0 ? cur.margins : { left: 7.5, bottom: 7.5, right: 7.5, top: 7.5 };
  if (input.margins !== undefined) {
    if (typeof input.margins === 'number') margins = { left: input.margins, bottom: input.margins, right: input.margins, top: input.margins };
    else margins = { ...margins, ...input.margins };
    for (const v of Object.values(margins)) if (!(v >= 0) || !Number.isFinite(v)) throw new OpError('invalid_request', 'margins must be non-negative numbers (mm)');
  }
  const W = orientation === 'landscape' ? paper.height : paper.width;
  const H = orientation === 'landscape' ? paper.width : paper.height;
  if (margins.left + margins.right >= W || margins.top + margins.bottom >= H) throw new OpError('invalid_request', 'margins leave no printable area');
  let fit = input.fit ?? (input.scale === undefined ? cur.fit || cur.width === 0 : false);
  let num = 1;
  let den = 1;
  if (input.scale !== undefined && !(typeof input.scale === 'string' && input.scale.toLowerCase() === 'fit')) {
    [num, den] = parseScale(input.scale);
    if (input.fit === undefined) fit = false;
  } else if (typeof input.scale === 'string') fit = true;
  else if (!fit && cur.width > 0) {
    num = cur.ratio;
    den = 1;
  }
  const center = input.center ?? cur.center;
  let area: PlotArea = input.plot_area ?? (isModel ? 'extents' : fit ? 'extents' : 'layout');
  if (input.window) area = 'window';
  if (area === 'window' && !input.window) throw new OpError('invalid_request', 'plot_area "window" needs window: [x1, y1, x2, y2]');
  let flags = getNum(rec, 70, 688) & ~(4 | 16);
  if (center) flags |= 4;
  if (fit) flags |= 16;
  const values = new Map<number, string | number>([
    [2, getCode(rec, 2) || 'DWG To PDF.pc3'],
    [4, paper.canonical],
    [40, margins.left], [41, margins.bottom], [42, margins.right], [43, margins.top],
    // media stored portrait, landscape through the plot rotation
    [44, paper.width], [45, paper.height],
    [73, orientation === 'landscape' ? 1 : 0],
    [74, PLOT_TYPES.indexOf(area)],
    [70, flags], [72, 1],
    [75, fit ? 0 : 16],
    [142, fit ? 1 : num], [143, fit ? 1 : den],
    [147, 1],
  ]);
  if (input.window) {
    const [x1, y1, x2, y2] = input.window;
    values.set(48, Math.min(x1, x2)).set(49, Math.min(y1, y2)).set(140, Math.max(x1, x2)).set(141, Math.max(y1, y2));
  }
  setCodes(rec, values);
  if (!isModel) setLimits(rec, [-margins.left, -margins.bottom], [W - margins.left, H - margins.bottom]);
  const ratio = fit ? 1 : num / den;
  return {
    layout: name, paper: paper.name, orientation, width: W, height: H, center, margins, plot_area: area,
    scale: { fit, ratio, paper_units: fit ? 1 : num, drawing_units: fit ? 1 : den },
  };
}
