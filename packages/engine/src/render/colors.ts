// Colours: the 256 AutoCAD Color Index (ACI) colours as RGB, true colours (group 420) and the
// ByLayer / ByBlock resolution rules the renderer applies.
import { ACI_RGB } from '../dxf.js';

/** ACI index -> 0xRRGGBB (index 0 = ByBlock and 256 = ByLayer are resolved before lookup): the DXF model's table. */
export { ACI_RGB };

export const BYBLOCK = 0;
export const BYLAYER = 256;

/** An RGB colour as 0xRRGGBB. */
export type Rgb = number;

/** ACI 7 (and white true colours are kept): black on white paper, as plotters do. */
export function aciToRgb(index: number, background: Rgb = 0xffffff): Rgb {
  const i = Math.abs(index) | 0;
  if (i === 7) return background === 0xffffff ? 0x000000 : 0xffffff;
  return ACI_RGB[i] ?? 0x000000;
}

/** '#rrggbb' for an RGB number. */
export function rgbHex(c: Rgb): string {
  return '#' + (c & 0xffffff).toString(16).padStart(6, '0');
}

/** [r, g, b] in 0..255. */
export function rgbTriple(c: Rgb): [number, number, number] {
  return [(c >> 16) & 255, (c >> 8) & 255, c & 255];
}
