// TOLERANCE (feature control frame): its string read into rows, boxes and runs, and the GD&T
// symbols drawn as strokes. The string's syntax is AutoCAD's: `^J` starts a row, `%%v` a box,
// `{\Fgdt;X}` is symbol X of the gdt font (which DejaVu Sans mostly lacks, hence strokes).
import { decodeText } from './text.js';

export type ToleranceRun = { kind: 'text'; text: string } | { kind: 'symbol'; code: string };

/** Rows of boxes; a box is its runs (empty boxes are not drawn). */
export function parseTolerance(raw: string): ToleranceRun[][][] {
  return raw.split('^J').map((row) => row.split('%%v').map(parseBox).filter((runs) => runs.length > 0));
}

function parseBox(box: string): ToleranceRun[] {
  const runs: ToleranceRun[] = [];
  const re = /\{\\F([^;|}]*)[^;]*;([^}]*)\}/g;
  let last = 0;
  const text = (s: string): void => {
    // other inline codes (font switches, heights) are dropped; the letters stay
    const plain = decodeText(s.replace(/\\[A-Za-z][^;\\]*;/g, '').replace(/[{}]/g, '')).text;
    if (plain.trim()) runs.push({ kind: 'text', text: plain });
  };
  for (let m = re.exec(box); m; m = re.exec(box)) {
    text(box.slice(last, m.index));
    if (m[1]!.toLowerCase() === 'gdt') for (const ch of m[2]!) runs.push({ kind: 'symbol', code: ch.toLowerCase() });
    else text(m[2]!);
    last = re.lastIndex;
  }
  text(box.slice(last));
  return runs;
}

/** A symbol in a 1 x 1 box (baseline y = 0, cap height 1): strokes, circles, an enclosed letter. */
export interface Glyph {
  strokes: number[][];
  circles: Array<[cx: number, cy: number, r: number]>;
  letter?: string;
}

const g = (strokes: number[][], circles: Glyph['circles'] = [], letter?: string): Glyph => (letter ? { strokes, circles, letter } : { strokes, circles });
const ARC_STEPS = 12;

/** Half circle of radius 0.5 over the base y = 0.25, from the right end to the left. */
function upperArc(): number[] {
  const out: number[] = [];
  for (let i = 0; i <= ARC_STEPS; i++) {
    const a = (Math.PI * i) / ARC_STEPS;
    out.push(0.5 + 0.5 * Math.cos(a), 0.25 + 0.5 * Math.sin(a));
  }
  return out;
}

const circled = (letter: string): Glyph => g([], [[0.5, 0.5, 0.55]], letter);

/** The gdt font's letters and the symbols they stand for (ISO 1101 / ASME Y14.5). */
export const GDT_GLYPHS: Record<string, Glyph> = {
  a: g([[1, 0, 0, 0, 0.87, 0.5]]), // angularity
  b: g([[0, 0, 1, 0], [0.5, 0, 0.5, 1]]), // perpendicularity
  c: g([[0, 0.2, 0.75, 0.2, 1, 0.8, 0.25, 0.8, 0, 0.2]]), // flatness
  d: g([[...upperArc(), 1, 0.25]]), // profile of a surface
  e: g([], [[0.5, 0.5, 0.5]]), // circularity
  f: g([[0.1, 0, 0.5, 1], [0.5, 0, 0.9, 1]]), // parallelism
  g: g([[0, 0, 0.4, 1], [0.6, 0, 1, 1]], [[0.5, 0.5, 0.35]]), // cylindricity
  h: g([[0.1, 0, 0.9, 0.9], [0.5, 0.85, 0.9, 0.9, 0.85, 0.5]]), // circular runout
  i: g([[0.2, 0.2, 0.8, 0.2], [0, 0.5, 1, 0.5], [0.2, 0.8, 0.8, 0.8]]), // symmetry
  j: g([[0, 0.5, 1, 0.5], [0.5, 0, 0.5, 1]], [[0.5, 0.5, 0.33]]), // position
  k: g([upperArc()]), // profile of a line
  l: circled('L'), // least material condition
  m: circled('M'), // maximum material condition
  n: g([[0.05, 0.05, 0.95, 0.95]], [[0.5, 0.5, 0.4]]), // diameter
  p: circled('P'), // projected tolerance zone
  r: g([], [[0.5, 0.5, 0.5], [0.5, 0.5, 0.25]]), // concentricity
  s: circled('S'), // regardless of feature size
  t: g([[0, 0, 1, 0], [0, 0.1, 0.45, 0.9], [0.2, 0.85, 0.45, 0.9, 0.45, 0.6], [0.5, 0.1, 0.95, 0.9], [0.7, 0.85, 0.95, 0.9, 0.95, 0.6]]), // total runout
  u: g([[0, 0.5, 1, 0.5]]), // straightness
};
