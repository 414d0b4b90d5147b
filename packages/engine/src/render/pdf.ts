// PDF back end (pdfkit): vector paths written as content-stream operators in page points (the
// display -> paper transform is applied here, so precision does not depend on drawing units),
// text in embedded DejaVu Sans, images through pdfkit's image support, clips as W* paths.
import { readFileSync } from 'node:fs';
import { rgbTriple } from './colors.js';
import type { Prim } from './display-list.js';
import { fontMetrics, pdfFontBytes } from './font.js';
import type { Affine, Page } from './page.js';
import { composeAffine, paperScale } from './page.js';
import { textMatrix } from './svg.js';

const PT_PER_MM = 72 / 25.4;

export interface PdfOptions {
  minLineweight?: number;
  lineweightScale?: number;
  /** Document title (Info dictionary). */
  title?: string;
}

type RawDoc = PDFKit.PDFDocument & { addContent(s: string): PDFKit.PDFDocument };

function n2(v: number): string {
  const r = Math.round(v * 1000) / 1000;
  return r === 0 ? '0' : String(r);
}

function colorOp(c: number, stroke: boolean): string {
  const [r, g, b] = rgbTriple(c);
  return `${n2(r / 255)} ${n2(g / 255)} ${n2(b / 255)} ${stroke ? 'RG' : 'rg'}`;
}

/** Renders pages into one PDF document (one PDF page per page). */
export async function pagesToPdf(pages: Page[], opts: PdfOptions = {}): Promise<Buffer> {
  // loaded on first use: pdfkit costs a quarter of a second at start-up, which SVG / PNG plots
  // and every server start would pay for nothing
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({ autoFirstPage: false, compress: true, info: { Title: opts.title ?? 'Linework plot', Producer: 'Linework', Creator: 'Linework' } }) as RawDoc;
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.registerFont('DejaVu', pdfFontBytes());
  const imageCache = new Map<string, Buffer | null>();
  for (const page of pages) drawPage(doc, page, opts, imageCache);
  if (!pages.length) doc.addPage({ size: 'A4', margin: 0 });
  doc.end();
  return done;
}

function drawPage(doc: RawDoc, page: Page, opts: PdfOptions, imageCache: Map<string, Buffer | null>): void {
  const Wpt = page.width * PT_PER_MM;
  const Hpt = page.height * PT_PER_MM;
  doc.addPage({ size: [Wpt, Hpt], margin: 0 });
  const list = page.list;
  // display -> pdfkit user space (points, y down)
  const toPt: Affine = composeAffine([PT_PER_MM, 0, 0, -PT_PER_MM, 0, Hpt], page.toPaper);
  const [a, b, c, d, e, f] = toPt;
  const scale = paperScale(page);
  const minLw = opts.minLineweight ?? 0.1;
  const lwScale = opts.lineweightScale ?? 1;
  const ptScale = scale * PT_PER_MM;
  // background
  if (list.background !== 0xffffff) doc.addContent(`${colorOp(list.background, false)} 0 0 ${n2(Wpt)} ${n2(Hpt)} re f`);
  doc.addContent('1 J 1 j');
  const X = (x: number, y: number): string => n2(a * x + c * y + e);
  const Y = (x: number, y: number): string => n2(b * x + d * y + f);
  const ring = (r: readonly number[], close: boolean): string => {
    let s = '';
    for (let i = 0; i < r.length; i += 2) s += `${X(r[i]!, r[i + 1]!)} ${Y(r[i]!, r[i + 1]!)} ${i === 0 ? 'm' : 'l'}\n`;
    return close ? s + 'h\n' : s;
  };
  let curClip = -1;
  const setClip = (clip: number): void => {
    if (clip === curClip) return;
    if (curClip >= 0) doc.addContent('Q');
    curClip = clip;
    if (clip < 0) return;
    // chain of nested clips, outermost first
    const chain: number[] = [];
    for (let k = clip; k >= 0; k = list.clips[k]!.parent) chain.unshift(k);
    let s = 'q\n';
    for (const k of chain) s += list.clips[k]!.rings.map((r) => ring(r, true)).join('') + 'W* n\n';
    doc.addContent(s);
  };
  // draw layer by layer (as the SVG groups do) so both back ends stack alike
  const byLayer = new Map<string, Prim[]>();
  for (const l of list.layers) byLayer.set(l, []);
  for (const p of list.prims) {
    let arr = byLayer.get(p.layer);
    if (!arr) byLayer.set(p.layer, (arr = []));
    arr.push(p);
  }
  let fontSet = false;
  for (const prims of byLayer.values()) {
    let lastStroke = '';
    for (const p of prims) {
      setClip(p.clip);
      if (p.kind === 'polyline') {
        const lwPt = p.width > 0 ? p.width * ptScale : Math.max(p.lw * lwScale, minLw) * PT_PER_MM;
        let style = `${colorOp(p.color, true)} ${n2(lwPt)} w ${p.width > 0 ? '0 J' : '1 J'}`;
        if (p.dash) style += ` [${p.dash.map((x) => n2(x * ptScale)).join(' ')}] ${n2(p.dashOffset * ptScale)} d`;
        else style += ' [] 0 d';
        let s = '';
        if (style !== lastStroke) {
          s += style + '\n';
          lastStroke = style;
        }
        const pts = p.pts;
        const nPts = pts.length / 2;
        const bks = p.breaks;
        let nb = 0;
        for (let i = 0; i < nPts; i++) {
          const x = pts[i * 2]!;
          const y = pts[i * 2 + 1]!;
          const isMove = i === 0 || (bks !== undefined && nb < bks.length && bks[nb] === i);
          if (isMove && i !== 0) nb++;
          s += `${X(x, y)} ${Y(x, y)} ${isMove ? 'm' : 'l'}\n`;
          // a lone point (dot): a zero-length segment with round caps
          const nextIsMove = i + 1 >= nPts || (bks !== undefined && nb < bks.length && bks[nb] === i + 1);
          if (isMove && nextIsMove) s += `${X(x, y)} ${Y(x, y)} l\n`;
        }
        s += p.closed ? 'h S' : 'S';
        doc.addContent(s);
        continue;
      }
      if (p.kind === 'path') {
        lastStroke = '';
        let s = '';
        if (p.gradient) {
          // linear gradients: approximated by bands between the two colours
          s += gradientBands(p, a, b, c, d, e, f, ring);
        } else {
          s += `${colorOp(p.color, false)}\n` + p.rings.map((r) => ring(r, true)).join('') + 'f*';
        }
        doc.addContent(s);
        continue;
      }
      if (p.kind === 'text') {
        lastStroke = '';
        if (!fontSet) {
          doc.font('DejaVu');
          fontSet = true;
        }
        const [ta, tb, tc, td, te, tf] = textMatrix(p);
        const natural = p.widthFactor ? p.width / p.widthFactor : p.width;
        const off = p.align === 'left' ? 0 : p.align === 'center' ? -natural / 2 : -natural;
        // glyph space (em = 1, y down) -> display -> points
        const g: Affine = composeAffine(toPt, [ta * p.em, tb * p.em, tc * p.em, td * p.em, te + ta * off, tf + tb * off]);
        if (!g.every(Number.isFinite)) continue;
        doc.save();
        doc.transform(g[0], g[1], g[2], g[3], g[4], g[5]);
        const [r, gg, bb] = rgbTriple(p.color);
        doc.fillColor([r, gg, bb]);
        doc.fontSize(1);
        doc.text(p.text, 0, 0, { lineBreak: false, baseline: 'alphabetic' });
        if (p.overline || p.underline || p.strike) {
          const fm = fontMetrics();
          const w = natural / p.em;
          let s = `${colorOp(p.color, true)} 0.06 w 0 J [] 0 d`;
          for (const [on, y] of [[p.underline, 0.15], [p.overline, -fm.capRatio - 0.15], [p.strike, -fm.capRatio / 2]] as const) {
            if (on) s += ` 0 ${n2(y)} m ${n2(w)} ${n2(y)} l S`;
          }
          doc.addContent(s);
          lastStroke = '';
        }
        doc.restore();
        continue;
      }
      // image
      lastStroke = '';
      let data = p.data;
      if (!data && p.path) {
        if (!imageCache.has(p.path)) {
          try {
            imageCache.set(p.path, readFileSyncSafe(p.path));
          } catch {
            imageCache.set(p.path, null);
          }
        }
        data = imageCache.get(p.path) ?? null;
      }
      if (!data) continue;
      const [ia, ib, ic, id, ie, iF] = p.matrix;
      const g = composeAffine(toPt, [ia * p.pxWidth, ib * p.pxWidth, ic * p.pxHeight, id * p.pxHeight, ie, iF]);
      try {
        doc.save();
        doc.transform(g[0], g[1], g[2], g[3], g[4], g[5]);
        doc.image(data, 0, 0, { width: 1, height: 1 });
        doc.restore();
      } catch {
        doc.restore();
      }
    }
  }
  setClip(-1);
}

function gradientBands(
  p: Prim & { kind: 'path' }, _a: number, _b: number, _c: number, _d: number, _e: number, _f: number, ring: (r: readonly number[], close: boolean) => string,
): string {
  const g = p.gradient!;
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const r of p.rings) {
    for (let k = 0; k < r.length; k += 2) {
      minX = Math.min(minX, r[k]!);
      maxX = Math.max(maxX, r[k]!);
      minY = Math.min(minY, r[k + 1]!);
      maxY = Math.max(maxY, r[k + 1]!);
    }
  }
  const cx = (minX + maxX) / 2;
  const cy = (minY + maxY) / 2;
  const dx = Math.cos(g.angle);
  const dy = Math.sin(g.angle);
  const half = (Math.abs(dx) * (maxX - minX) + Math.abs(dy) * (maxY - minY)) / 2;
  const reach = Math.hypot(maxX - minX, maxY - minY);
  const bands = 32;
  const [r1, g1, b1] = rgbTriple(p.color);
  const [r2, g2, b2] = rgbTriple(g.color2);
  let s = 'q\n' + p.rings.map((r) => ring(r, true)).join('') + 'W* n\n';
  for (let i = 0; i < bands; i++) {
    const t0 = -half + (2 * half * i) / bands;
    const t1 = -half + (2 * half * (i + 1)) / bands + (i + 1 < bands ? (2 * half) / bands / 4 : reach);
    const t0e = i === 0 ? t0 - reach : t0;
    const k = (i + 0.5) / bands;
    s += `${n2((r1 + (r2 - r1) * k) / 255)} ${n2((g1 + (g2 - g1) * k) / 255)} ${n2((b1 + (b2 - b1) * k) / 255)} rg\n`;
    const quad = [
      cx + dx * t0e - dy * reach, cy + dy * t0e + dx * reach,
      cx + dx * t1 - dy * reach, cy + dy * t1 + dx * reach,
      cx + dx * t1 + dy * reach, cy + dy * t1 - dx * reach,
      cx + dx * t0e + dy * reach, cy + dy * t0e - dx * reach,
    ];
    s += ring(quad, true) + 'f\n';
  }
  return s + 'Q';
}

function readFileSyncSafe(path: string): Buffer {
  return readFileSync(path);
}
