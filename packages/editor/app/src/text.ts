// Text as the plots draw it: DejaVu Sans (the same font file, bundled with the page), glyph by
// glyph at the advance widths of the font, so alignment and widths match the server's measure.
// Glyphs are drawn once into an atlas texture; each character of the drawing is one instance.
import fontUrl from 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf?url';
import type { TextRec } from './frame.js';

export const FONT_FAMILY = 'LineworkDejaVu';
const PX = 48; // atlas em size in pixels
const PAD = 4;
const ATLAS = 2048;

export async function loadFont(): Promise<void> {
  const face = new FontFace(FONT_FAMILY, `url(${fontUrl})`);
  await face.load();
  document.fonts.add(face);
}

interface Glyph {
  index: number;
  /** Advance in em. */
  advance: number;
}

/** The glyph atlas: a canvas of drawn characters, and per glyph its uv rectangle and box in em. */
export class Atlas {
  private readonly canvas = document.createElement('canvas');
  private readonly ctx: CanvasRenderingContext2D;
  private readonly glyphs = new Map<string, Glyph>();
  /** Per glyph: u0, v0, u1, v1, bx, by, bw, bh (box in em, y up from the baseline). */
  metrics = new Float32Array(8 * 256);
  count = 0;
  private x = PAD;
  private y = PAD;
  private rowH = 0;
  dirty = true;

  constructor() {
    this.canvas.width = ATLAS;
    this.canvas.height = ATLAS;
    this.ctx = this.canvas.getContext('2d', { willReadFrequently: false })!;
    this.ctx.font = `${PX}px ${FONT_FAMILY}`;
    this.ctx.textBaseline = 'alphabetic';
    this.ctx.fillStyle = '#fff';
    this.glyph('?');
  }

  get image(): HTMLCanvasElement {
    return this.canvas;
  }

  glyph(ch: string): Glyph {
    let g = this.glyphs.get(ch);
    if (g) return g;
    const m = this.ctx.measureText(ch);
    const left = Math.ceil(m.actualBoundingBoxLeft) + 1;
    const right = Math.ceil(m.actualBoundingBoxRight) + 1;
    const asc = Math.ceil(m.actualBoundingBoxAscent) + 1;
    const desc = Math.ceil(m.actualBoundingBoxDescent) + 1;
    const w = Math.max(1, left + right);
    const h = Math.max(1, asc + desc);
    if (this.x + w + PAD > ATLAS) {
      this.x = PAD;
      this.y += this.rowH + PAD;
      this.rowH = 0;
    }
    if (this.y + h + PAD > ATLAS) {
      // full: further characters show as '?'
      return this.glyphs.get('?') ?? { index: 0, advance: 0.6 };
    }
    const index = this.count++;
    if (this.metrics.length < this.count * 8) {
      const more = new Float32Array(this.metrics.length * 2);
      more.set(this.metrics);
      this.metrics = more;
    }
    const blank = ch.trim() === '';
    if (!blank) this.ctx.fillText(ch, this.x + left, this.y + asc);
    const o = index * 8;
    this.metrics.set([
      this.x / ATLAS, this.y / ATLAS, (this.x + w) / ATLAS, (this.y + h) / ATLAS,
      -left / PX, -desc / PX, blank ? 0 : w / PX, h / PX,
    ], o);
    this.x += w + PAD;
    this.rowH = Math.max(this.rowH, h);
    g = { index, advance: m.width / PX };
    this.glyphs.set(ch, g);
    this.dirty = true;
    return g;
  }
}

/** Instance data of glyphs: origin (2), axes (4), glyph (1), colour (1 as u32), flag (separate). */
export const GLYPH_FLOATS = 8;

/**
 * Lays out texts as glyph instances (drawing units relative to the scene origin). Returns the
 * instance array and, per glyph, the entity index (for hiding and highlighting).
 */
export function layoutTexts(texts: TextRec[], atlas: Atlas): { inst: Float32Array; ent: Uint32Array } {
  let n = 0;
  for (const t of texts) n += [...t.text].length;
  const inst = new Float32Array(n * GLYPH_FLOATS);
  const u32 = new Uint32Array(inst.buffer);
  const ent = new Uint32Array(n);
  let k = 0;
  for (const t of texts) {
    const chars = [...t.text];
    const cos = Math.cos(t.rotation), sin = Math.sin(t.rotation);
    const em = t.em;
    const wf = t.width_factor || 1;
    const sx = (t.mirror_x ? -1 : 1) * em * wf;
    const sy = (t.mirror_y ? -1 : 1) * em;
    // x axis along the baseline; y axis up, slanted by the oblique angle
    const shear = Math.tan((t.oblique * Math.PI) / 180);
    const ax = cos * sx, ay = sin * sx;
    const ux = -sin * sy + cos * sy * shear * (t.mirror_x ? -1 : 1), uy = cos * sy + sin * sy * shear * (t.mirror_x ? -1 : 1);
    let advance = 0;
    for (const ch of chars) advance += atlas.glyph(ch).advance;
    const start = t.align === 'left' ? 0 : t.align === 'center' ? -advance / 2 : -advance;
    let pen = start;
    for (const ch of chars) {
      const g = atlas.glyph(ch);
      const o = k * GLYPH_FLOATS;
      inst[o] = t.x + ax * pen;
      inst[o + 1] = t.y + ay * pen;
      inst[o + 2] = ax;
      inst[o + 3] = ay;
      inst[o + 4] = ux;
      inst[o + 5] = uy;
      inst[o + 6] = g.index;
      u32[o + 7] = t.rgba;
      ent[k] = t.ent;
      pen += g.advance;
      k++;
    }
  }
  return { inst: inst.subarray(0, k * GLYPH_FLOATS), ent: ent.subarray(0, k) };
}
