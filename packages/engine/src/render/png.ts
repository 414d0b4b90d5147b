// PNG back end: the page's SVG rasterised by resvg with DejaVu Sans loaded from its file (no
// system fonts), on the page's background colour.
import { createRequire } from 'node:module';
import { rgbHex } from './colors.js';
import { FONT_FAMILY, fontFile } from './font.js';
import type { Page } from './page.js';
import { pageToSvg } from './svg.js';

export interface PngOptions {
  /** Pixels per inch of paper (default 96). Ignored when width or height is given. */
  dpi?: number;
  /** Output width in pixels (height follows the page's aspect unless given too). */
  width?: number;
  height?: number;
  lineweightScale?: number;
  imageCache?: Map<string, string>;
}

/** Pixel size of a page for the options. */
export function pngSize(page: Page, opts: PngOptions): { width: number; height: number } {
  const aspect = page.height / page.width;
  if (opts.width && opts.height) return { width: Math.round(opts.width), height: Math.round(opts.height) };
  if (opts.width) return { width: Math.round(opts.width), height: Math.max(1, Math.round(opts.width * aspect)) };
  if (opts.height) return { width: Math.max(1, Math.round(opts.height / aspect)), height: Math.round(opts.height) };
  const dpi = opts.dpi ?? 96;
  return { width: Math.max(1, Math.round((page.width / 25.4) * dpi)), height: Math.max(1, Math.round((page.height / 25.4) * dpi)) };
}

type ResvgModule = typeof import('@resvg/resvg-js');
let resvg: ResvgModule | undefined;

/** resvg's native addon, loaded on the first PNG: SVG and PDF plots (and every server start) skip it.
 * `require` keeps pageToPng synchronous for its callers. */
function loadResvg(): ResvgModule {
  return (resvg ??= createRequire(import.meta.url)('@resvg/resvg-js') as ResvgModule);
}

export function pageToPng(page: Page, opts: PngOptions = {}): Buffer {
  const size = pngSize(page, opts);
  // about one pixel as the thinnest line, so hairlines stay visible
  const pxMm = page.width / size.width;
  let svgPage = page;
  if (opts.width && opts.height) {
    // fit the page into the requested box without distortion (letterbox)
    const s = Math.min(size.width / page.width, size.height / page.height);
    const w = size.width / s;
    const h = size.height / s;
    const dx = (w - page.width) / 2;
    const dy = (h - page.height) / 2;
    const [a, b, c, d, e, f] = page.toPaper;
    svgPage = { ...page, width: w, height: h, toPaper: [a, b, c, d, e + dx, f + dy] };
  }
  const svg = pageToSvg(svgPage, { minLineweight: pxMm * 0.9, lineweightScale: opts.lineweightScale, imageCache: opts.imageCache });
  const { Resvg } = loadResvg();
  const r = new Resvg(svg, {
    font: { loadSystemFonts: false, fontFiles: [fontFile()], defaultFontFamily: FONT_FAMILY, sansSerifFamily: FONT_FAMILY },
    fitTo: { mode: 'width', value: size.width },
    background: rgbHex(page.list.background),
    logLevel: 'off',
  });
  return r.render().asPng();
}
