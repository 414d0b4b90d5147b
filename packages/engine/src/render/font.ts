// The one font every back end draws with: DejaVu Sans (embedded in PDFs, loaded into resvg, named
// in SVG). Text layout needs advance widths, read here from the TTF's hmtx/cmap tables so that
// alignment, MTEXT word wrap and fit/aligned TEXT agree in all back ends.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export const FONT_FAMILY = 'DejaVu Sans';

export interface FontMetrics {
  /** Absolute path of the TTF file. */
  file: string;
  unitsPerEm: number;
  /** Cap height / em: DXF text heights are cap heights, so the em size is height / capRatio. */
  capRatio: number;
  ascent: number;
  descent: number;
  /** Advance width of a code point in em. */
  advance(cp: number): number;
  /** Width of a string in em (no kerning). */
  measure(s: string): number;
}

let cached: FontMetrics | undefined;
let fileCache: Buffer | undefined;
let pdfCache: Buffer | undefined;

/** Path of DejaVuSans.ttf, resolved from the `dejavu-fonts-ttf` package. */
export function fontFile(): string {
  return createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
}

/** The font file's bytes (read once). */
export function fontBytes(): Buffer {
  if (!fileCache) fileCache = readFileSync(fontFile());
  return fileCache;
}

/**
 * The font as the PDF back end embeds it: a copy whose `post` table is marked version 3 (no glyph
 * names). pdfkit reads the italic angle from `post`, and fontkit then decodes all ~6000 glyph
 * names of DejaVu (15-40 ms of a cold plot); the subset pdfkit embeds carries no `post` table, so
 * the names were never used.
 */
export function pdfFontBytes(): Buffer {
  if (pdfCache) return pdfCache;
  const copy = Buffer.from(fontBytes());
  const numTables = copy.readUInt16BE(4);
  for (let i = 0; i < numTables; i++) {
    const rec = 12 + i * 16;
    if (copy.toString('latin1', rec, rec + 4) === 'post') copy.writeUInt32BE(0x00030000, copy.readUInt32BE(rec + 8));
  }
  pdfCache = copy;
  return copy;
}

export function fontMetrics(): FontMetrics {
  if (cached) return cached;
  const file = fontFile();
  const buf = fontBytes();
  const numTables = buf.readUInt16BE(4);
  const tables = new Map<string, number>();
  for (let i = 0; i < numTables; i++) {
    const rec = 12 + i * 16;
    tables.set(buf.toString('latin1', rec, rec + 4), buf.readUInt32BE(rec + 8));
  }
  const head = tables.get('head')!;
  const hhea = tables.get('hhea')!;
  const hmtx = tables.get('hmtx')!;
  const cmap = tables.get('cmap')!;
  const os2 = tables.get('OS/2');
  const upm = buf.readUInt16BE(head + 18);
  const ascent = buf.readInt16BE(hhea + 4) / upm;
  const descent = -buf.readInt16BE(hhea + 6) / upm;
  const nMetrics = buf.readUInt16BE(hhea + 34);
  let capHeight = 0.729 * upm;
  if (os2 !== undefined && buf.readUInt16BE(os2) >= 2) capHeight = buf.readInt16BE(os2 + 88);

  // cmap: prefer format 12 (full Unicode), else format 4 (BMP).
  const nSub = buf.readUInt16BE(cmap + 2);
  let f4 = -1;
  let f12 = -1;
  for (let i = 0; i < nSub; i++) {
    const pid = buf.readUInt16BE(cmap + 4 + i * 8);
    const eid = buf.readUInt16BE(cmap + 6 + i * 8);
    const off = cmap + buf.readUInt32BE(cmap + 8 + i * 8);
    const fmt = buf.readUInt16BE(off);
    if (fmt === 12 && pid === 3 && eid === 10) f12 = off;
    if (fmt === 4 && pid === 3 && (eid === 1 || eid === 0)) f4 = off;
  }
  const glyphOf = (cp: number): number => {
    if (f12 >= 0) {
      const n = buf.readUInt32BE(f12 + 12);
      let lo = 0;
      let hi = n - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const g = f12 + 16 + mid * 12;
        const start = buf.readUInt32BE(g);
        const end = buf.readUInt32BE(g + 4);
        if (cp < start) hi = mid - 1;
        else if (cp > end) lo = mid + 1;
        else return buf.readUInt32BE(g + 8) + (cp - start);
      }
      return 0;
    }
    if (f4 < 0 || cp > 0xffff) return 0;
    const segX2 = buf.readUInt16BE(f4 + 6);
    const ends = f4 + 14;
    const starts = ends + segX2 + 2;
    const deltas = starts + segX2;
    const ranges = deltas + segX2;
    for (let i = 0; i < segX2; i += 2) {
      if (buf.readUInt16BE(ends + i) < cp) continue;
      const start = buf.readUInt16BE(starts + i);
      if (start > cp) return 0;
      const delta = buf.readInt16BE(deltas + i);
      const ro = buf.readUInt16BE(ranges + i);
      if (ro === 0) return (cp + delta) & 0xffff;
      const gi = buf.readUInt16BE(ranges + i + ro + (cp - start) * 2);
      return gi === 0 ? 0 : (gi + delta) & 0xffff;
    }
    return 0;
  };
  const widths = new Map<number, number>();
  const advance = (cp: number): number => {
    let w = widths.get(cp);
    if (w !== undefined) return w;
    const g = glyphOf(cp);
    const idx = g < nMetrics ? g : nMetrics - 1;
    w = buf.readUInt16BE(hmtx + idx * 4) / upm;
    widths.set(cp, w);
    return w;
  };
  cached = {
    file,
    unitsPerEm: upm,
    capRatio: capHeight / upm,
    ascent,
    descent,
    advance,
    measure(s: string): number {
      let w = 0;
      for (const ch of s) w += advance(ch.codePointAt(0)!);
      return w;
    },
  };
  return cached;
}
