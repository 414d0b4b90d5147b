// Previews for the MCP preview tool and the web editor: the extents of model space or a layout
// fitted into a box of pixels, as PNG or SVG.
import type { DocumentApi } from '../dxf.js';
import { boundsValid } from './display-list.js';
import type { Bounds } from './display-list.js';
import { fitPage } from './page.js';
import { pageToPng } from './png.js';
import { renderLayout } from './renderer.js';
import { pageToSvg } from './svg.js';

export interface PreviewOptions {
  layout?: string;
  width: number;
  height: number;
  format: 'png' | 'svg';
  /** Area to show (display units); default the extents. */
  area?: Bounds;
  /** Directory relative image paths are resolved against. */
  baseDir?: string;
  /** The image files that may be read (see RenderOptions.images). */
  images?: Map<string, string | null>;
}

/** Renders a preview image (PNG bytes or SVG text as bytes) of a layout. */
export function renderPreview(doc: DocumentApi, opts: PreviewOptions): Buffer {
  const width = Math.max(1, Math.round(opts.width));
  const height = Math.max(1, Math.round(opts.height));
  const area = opts.area && boundsValid(opts.area) ? opts.area : undefined;
  const list = renderLayout(doc, { layout: opts.layout, baseDir: opts.baseDir, images: opts.images, area });
  // one paper "millimetre" per pixel; a margin of 5 % of the shorter side (at least 8 px, at most a
  // quarter of it) keeps what lies on the extents (and its line width) clear of the picture's edge
  const short = Math.min(width, height);
  const margin = Math.min(short / 4, Math.max(8, short * 0.05));
  const page = fitPage(opts.layout ?? 'Model', list, width, height, margin, area);
  if (opts.format === 'svg') return Buffer.from(pageToSvg(page, { pixelWidth: width, pixelHeight: height, minLineweight: 1, lineweightScale: 0 }), 'utf8');
  return pageToPng(page, { width, height, lineweightScale: 0 });
}
