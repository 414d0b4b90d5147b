// A page: a display list placed on a sheet of paper. Back ends draw pages; the plot module decides
// paper, area and scale from the layout's page setup, the preview fits the extents into pixels.
import type { Bounds, DisplayList } from './display-list.js';
import { boundsValid } from './display-list.js';

/** Affine map [a, b, c, d, e, f]: x' = a x + c y + e, y' = b x + d y + f. */
export type Affine = [number, number, number, number, number, number];

export interface Page {
  /** Layout name shown on the page. */
  name: string;
  list: DisplayList;
  /** Paper size in millimetres. */
  width: number;
  height: number;
  /** Display units -> paper millimetres, y up, origin at the paper's lower-left corner. */
  toPaper: Affine;
}

/** Millimetres of paper per display unit. */
export function paperScale(page: Page): number {
  const [a, b, c, d] = page.toPaper;
  return Math.sqrt(Math.abs(a * d - b * c)) || 1;
}

export function applyAffine(m: Affine, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** Composes: first `inner`, then `outer`. */
export function composeAffine(outer: Affine, inner: Affine): Affine {
  const [a, b, c, d, e, f] = outer;
  const [A, B, C, D, E, F] = inner;
  return [a * A + c * B, b * A + d * B, a * C + c * D, b * C + d * D, a * E + c * F + e, b * E + d * F + f];
}

/**
 * A page that shows `area` (display units) scaled to fit `width` x `height` mm inside `margin` mm,
 * centred. Without an area, the list's extents are used (an empty list gives a blank page).
 */
export function fitPage(name: string, list: DisplayList, width: number, height: number, margin = 0, area?: Bounds): Page {
  const b = area ?? list.bounds;
  if (!boundsValid(b)) return { name, list, width, height, toPaper: [1, 0, 0, 1, 0, 0] };
  const w = Math.max(b.maxX - b.minX, 1e-9);
  const h = Math.max(b.maxY - b.minY, 1e-9);
  const availW = Math.max(width - 2 * margin, 1e-6);
  const availH = Math.max(height - 2 * margin, 1e-6);
  let s = Math.min(availW / w, availH / h);
  if (!Number.isFinite(s) || s <= 0) s = 1;
  const e = width / 2 - ((b.minX + b.maxX) / 2) * s;
  const f = height / 2 - ((b.minY + b.maxY) / 2) * s;
  return { name, list, width, height, toPaper: [s, 0, 0, s, e, f] };
}

/** Page size (mm) of the extents at their own aspect ratio, longest side `longSide` mm. */
export function extentsPaper(list: DisplayList, longSide = 297, margin = 0): { width: number; height: number } {
  const b = list.bounds;
  if (!boundsValid(b)) return { width: longSide, height: (longSide * 210) / 297 };
  const w = Math.max(b.maxX - b.minX, 1e-9);
  const h = Math.max(b.maxY - b.minY, 1e-9);
  const inner = longSide - 2 * margin;
  if (w >= h) return { width: longSide, height: Math.max((inner * h) / w + 2 * margin, 2 * margin + 1) };
  return { width: Math.max((inner * w) / h + 2 * margin, 2 * margin + 1), height: longSide };
}
