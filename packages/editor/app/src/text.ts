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
  performance.mark('linework:font');
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
  }

  private started = false;

  /** Set up on the first glyph: the font has loaded by then (scenes wait for it). */
  private start(): void {
    this.started = true;
    this.ctx.font = `${PX}px ${FONT_FAMILY}`;
    this.ctx.textBaseline = 'alphabetic';
    this.ctx.fillStyle = '#fff';
    this.glyph('?');
  }

  get image(): HTMLCanvasElement {
    return this.canvas;
  }

  glyph(ch: string): Glyph {
    if (!this.started) this.start();
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

/** Vertex data of glyphs: x, y (drawing units), u, v, em size, colour (as u32): 24 bytes. */
export const GLYPH_FLOATS = 6;
const CORNERS = [[0, 0], [1, 0], [0, 1], [0, 1], [1, 0], [1, 1]] as const;

/**
 * Lays out texts as two triangles per character (drawing units relative to the scene origin).
 * Returns the vertex array (6 vertices per character) and, per character, the entity index.
 */
export function layoutTexts(texts: TextRec[], atlas: Atlas): { verts: Float32Array; ent: Uint32Array } {
  let n = 0;
  for (const t of texts) n += [...t.text].length;
  const verts = new Float32Array(n * 6 * GLYPH_FLOATS);
  const u32 = new Uint32Array(verts.buffer);
  const ent = new Uint32Array(n);
  let k = 0;
  for (const t of texts) {
    const chars = [...t.text];
    const cos = Math.cos(t.rotation), sin = Math.sin(t.rotation);
    const em = t.em;
    const wf = t.width_factor || 1;
    const mx = t.mirror_x ? -1 : 1;
    const sx = mx * em * wf;
    const sy = (t.mirror_y ? -1 : 1) * em;
    // x axis along the baseline; y axis up, slanted by the oblique angle
    const shear = Math.tan((t.oblique * Math.PI) / 180);
    const ax = cos * sx, ay = sin * sx;
    const ux = -sin * sy + cos * sy * shear * mx, uy = cos * sy + sin * sy * shear * mx;
    const glyphs = chars.map((ch) => atlas.glyph(ch));
    const m = atlas.metrics; // after glyph(): a new character may have grown the table
    let advance = 0;
    for (const g of glyphs) advance += g.advance;
    let pen = t.align === 'left' ? 0 : t.align === 'center' ? -advance / 2 : -advance;
    for (const g of glyphs) {
      const o = g.index * 8;
      const [u0, v0, u1, v1, bx, by, bw, bh] = [m[o]!, m[o + 1]!, m[o + 2]!, m[o + 3]!, m[o + 4]!, m[o + 5]!, m[o + 6]!, m[o + 7]!];
      for (let c = 0; c < 6; c++) {
        const [cx, cy] = CORNERS[c]!;
        const lx = pen + bx + cx * bw, ly = by + cy * bh;
        const p = (k * 6 + c) * GLYPH_FLOATS;
        verts[p] = t.x + ax * lx + ux * ly;
        verts[p + 1] = t.y + ay * lx + uy * ly;
        verts[p + 2] = u0 + (u1 - u0) * cx;
        verts[p + 3] = v1 + (v0 - v1) * cy;
        verts[p + 4] = bw > 0 ? em : 0;
        u32[p + 5] = t.rgba;
      }
      ent[k] = t.ent;
      pen += g.advance;
      k++;
    }
  }
  return { verts: verts.subarray(0, k * 6 * GLYPH_FLOATS), ent: ent.subarray(0, k) };
}
