// Colour-dependent plot styles (AutoCAD's .ctb files): for each ACI colour, the colour the plotter
// uses, grayscale, screening and the lineweight. A .ctb is a 60-byte header ("PIAFILEVERSION_2.0,
// CTBVER1,compress\r\npmzlibcodec", then the Adler-32 checksum and both lengths) followed by zlib-
// compressed text of nested `name{ ... }` blocks, the format ezdxf's acadctb add-on reads.
import { inflateSync } from 'node:zlib';
import { ACI_RGB } from '../dxf.js';
import { OpError } from '../protocol.js';
import type { DisplayList, Prim } from '../render/display-list.js';
import type { Rgb } from '../render/colors.js';

/** One ACI colour's pen. */
export interface PlotStylePen {
  /** The colour plotted, or null for the object's own colour. */
  color: Rgb | null;
  grayscale: boolean;
  /** Intensity 0..100 (100: full colour; lower values fade toward the paper's white). */
  screen: number;
  /** Lineweight in mm, or null for the object's own lineweight. */
  lineweight: number | null;
}

export interface PlotStyleTable {
  name: string;
  /** Pens by ACI 1..255 (index 0 unused). */
  pens: PlotStylePen[];
}

const OBJECT_COLORS = new Set([-1, -1006632961]);
const GRAYSCALE_ON = 2;
const HEADER_BYTES = 60;
const MAGIC = 'PIAFILEVERSION_2.0,CTBVER1,compress';

/** The pen every colour gets unless the table says otherwise: the object's colour and lineweight. */
function objectPen(): PlotStylePen {
  return { color: null, grayscale: false, screen: 100, lineweight: null };
}

/** AutoCAD's monochrome.ctb: every colour plots black, lineweights as the objects have them. */
export function monochromeStyle(): PlotStyleTable {
  const pens: PlotStylePen[] = [objectPen()];
  for (let i = 1; i < 256; i++) pens.push({ color: 0x000000, grayscale: false, screen: 100, lineweight: null });
  return { name: 'monochrome.ctb', pens };
}

type Node = { [key: string]: string | Node };

/** Parses the nested text: `key=value` lines and `key{` ... `}` blocks (strings start with a quote, unclosed). */
function parseBlocks(text: string): Node {
  const lines = text.split(/\r?\n/);
  let i = 0;
  const block = (): Node => {
    const out: Node = {};
    while (i < lines.length) {
      const line = lines[i]!.trim();
      i++;
      if (line === '') continue;
      if (line === '}') return out;
      if (line.endsWith('{')) {
        out[line.slice(0, -1).trim()] = block();
        continue;
      }
      const eq = line.indexOf('=');
      if (eq < 0) continue;
      out[line.slice(0, eq).trim()] = line.slice(eq + 1).replace(/^"/, '');
    }
    return out;
  };
  return block();
}

function int(v: string | Node | undefined, fallback: number): number {
  const n = typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

/** Offsets where the zlib stream may start: AutoCAD's 60-byte header first, then any zlib header after the magic. */
function zlibStarts(bytes: Buffer): number[] {
  const out = [HEADER_BYTES];
  const end = Math.min(bytes.length - 2, 128);
  for (let i = MAGIC.length; i < end; i++) {
    if (i !== HEADER_BYTES && bytes[i] === 0x78 && [0x01, 0x5e, 0x9c, 0xda].includes(bytes[i + 1]!)) out.push(i);
  }
  return out;
}

/** Reads a binary .ctb file. */
export function readCtb(bytes: Buffer, name = 'plot style table'): PlotStyleTable {
  const head = bytes.subarray(0, MAGIC.length).toString('latin1');
  if (head.startsWith('PIAFILEVERSION') && head.includes('STBVER')) {
    throw new OpError('invalid_request', `${name} is a named plot style table (.stb); plot takes colour-dependent tables (.ctb)`);
  }
  if (head !== MAGIC || bytes.length <= HEADER_BYTES) {
    throw new OpError('invalid_request', `${name} is not a colour-dependent plot style table (.ctb): it does not start with "${MAGIC}"`);
  }
  let text: string | undefined;
  let failure = '';
  // AutoCAD writes three 32-bit numbers after the magic; writers that packed native longs (ezdxf on
  // 64-bit Linux) left three 64-bit ones, so the zlib stream is looked for where either puts it.
  for (const at of zlibStarts(bytes)) {
    try {
      // The text ends with a NUL.
      text = inflateSync(bytes.subarray(at)).toString('latin1').replace(/\0+$/, '');
      break;
    } catch (err) {
      failure ||= (err as Error).message;
    }
  }
  if (text === undefined) throw new OpError('invalid_request', `${name} is damaged: its compressed part cannot be read (${failure || 'no zlib stream'})`);
  const root = parseBlocks(text);
  const styles = root.plot_style;
  if (typeof styles !== 'object') throw new OpError('invalid_request', `${name} holds no plot_style section`);
  const weights: number[] = [];
  const table = root.custom_lineweight_table;
  if (typeof table === 'object') {
    for (const [k, v] of Object.entries(table)) {
      const idx = Number(k);
      const mm = typeof v === 'string' ? Number(v) : NaN;
      if (Number.isInteger(idx) && idx >= 0 && Number.isFinite(mm)) weights[idx] = mm;
    }
  }
  const pens: PlotStylePen[] = [objectPen()];
  for (let aci = 1; aci < 256; aci++) {
    // the table's entries are numbered from 0: entry i is ACI i + 1
    const s = styles[String(aci - 1)];
    if (typeof s !== 'object') {
      pens.push(objectPen());
      continue;
    }
    const raw = int(s.mode_color, int(s.color, -1));
    const colorRaw = int(s.color, -1);
    const color = OBJECT_COLORS.has(colorRaw) ? null : (raw >>> 0) & 0xffffff;
    const policy = int(s.color_policy, 1);
    const lwIndex = int(s.lineweight, 0);
    const mm = weights[lwIndex];
    pens.push({
      color,
      grayscale: (policy & GRAYSCALE_ON) !== 0,
      screen: Math.max(0, Math.min(100, int(s.screen, 100))),
      // entry 0 of the lineweight table (0.00 mm) means the object's own lineweight
      lineweight: lwIndex > 0 && mm !== undefined && mm > 0 ? mm : null,
    });
  }
  const desc = typeof root.description === 'string' ? root.description : '';
  return { name: desc || name, pens };
}

let aciOfRgb: Map<Rgb, number> | null = null;

/**
 * The ACI whose pen a colour plots with. The display list holds resolved RGB, so ACI colours are
 * found by their RGB (the lowest index when several share one, e.g. 1 and 10 are both red) and true
 * colours take the nearest ACI colour's pen, as AutoCAD does with colour-dependent tables.
 */
export function aciFor(color: Rgb): number {
  if (!aciOfRgb) {
    aciOfRgb = new Map();
    // on white paper ACI 7 is drawn black
    aciOfRgb.set(0x000000, 7);
    for (let i = 1; i < 256; i++) if (!aciOfRgb.has(ACI_RGB[i]!)) aciOfRgb.set(ACI_RGB[i]!, i);
  }
  const exact = aciOfRgb.get(color & 0xffffff);
  if (exact !== undefined) return exact;
  const r = (color >> 16) & 255;
  const g = (color >> 8) & 255;
  const b = color & 255;
  let best = 7;
  let bestD = Infinity;
  for (let i = 1; i < 256; i++) {
    const c = ACI_RGB[i]!;
    const d = (((c >> 16) & 255) - r) ** 2 + (((c >> 8) & 255) - g) ** 2 + ((c & 255) - b) ** 2;
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

function penColor(pen: PlotStylePen, color: Rgb): Rgb {
  let c = pen.color ?? color;
  let r = (c >> 16) & 255;
  let g = (c >> 8) & 255;
  let b = c & 255;
  if (pen.grayscale) {
    const y = Math.round(0.299 * r + 0.587 * g + 0.114 * b);
    r = g = b = y;
  }
  if (pen.screen < 100) {
    const k = pen.screen / 100;
    r = Math.round(255 - (255 - r) * k);
    g = Math.round(255 - (255 - g) * k);
    b = Math.round(255 - (255 - b) * k);
  }
  c = (r << 16) | (g << 8) | b;
  return c;
}

/** The display list as the plot style table plots it (a new list; images and wipeouts keep their look). */
export function applyPlotStyle(list: DisplayList, table: PlotStyleTable): DisplayList {
  const prims: Prim[] = list.prims.map((p) => {
    if (p.kind === 'image' || (p.kind === 'path' && p.mask)) return p;
    const pen = table.pens[aciFor(p.color)] ?? objectPen();
    const color = penColor(pen, p.color);
    if (p.kind === 'polyline') return { ...p, color, lw: pen.lineweight ?? p.lw };
    if (p.kind === 'path' && p.gradient) {
      const pen2 = table.pens[aciFor(p.gradient.color2)] ?? objectPen();
      return { ...p, color, gradient: { ...p.gradient, color2: penColor(pen2, p.gradient.color2) } };
    }
    return { ...p, color };
  });
  return { ...list, prims };
}
