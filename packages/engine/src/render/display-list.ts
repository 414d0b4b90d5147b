// The display list: what the renderer makes of model space or a layout, and what every back end
// (SVG, PDF, PNG, the web editor, the MCP preview) draws. Coordinates are "display units": WCS for
// model space, paper-space units for a layout (viewport contents already mapped into paper space).
// Properties are resolved: colours are RGB, lineweights are millimetres on paper, linetypes are
// dash arrays in display units, invisible layers are gone.
import type { Rgb } from './colors.js';

interface PrimBase {
  /** Layer name as written in the drawing (after the layer-0-in-block rule). */
  layer: string;
  color: Rgb;
  /** Index into DisplayList.clips, or -1. */
  clip: number;
  /** Handle of the top-level entity this primitive comes from (for picking). */
  handle: string;
}

/** An open or closed polyline; `breaks` (indices of points, not coordinates) start new sub-paths. */
export interface PolylinePrim extends PrimBase {
  kind: 'polyline';
  /** Flat x0, y0, x1, y1, ... */
  pts: number[];
  closed: boolean;
  /** Lineweight in mm on paper; 0 = thinnest line the device draws. */
  lw: number;
  /** Dash pattern [on, off, on, off ...] in display units (0 = dot), or null for continuous. */
  dash: number[] | null;
  /** Offset into the dash pattern (display units). */
  dashOffset: number;
  /** Constant polyline width in display units (0 = use lw). */
  width: number;
  breaks?: number[];
}

export interface GradientFill {
  /** Second colour (the first is the primitive's colour). */
  color2: Rgb;
  /** Direction of the gradient in display space, radians. */
  angle: number;
  /** Gradient type name as in DXF (LINEAR, CYLINDER, SPHERICAL ...); drawn linear. */
  name: string;
}

/** A filled area: rings of flat coordinates, filled even-odd (holes are rings inside rings). */
export interface PathPrim extends PrimBase {
  kind: 'path';
  rings: number[][];
  gradient: GradientFill | null;
  /** True for WIPEOUT: filled with the background colour. */
  mask: boolean;
}

export interface TextPrim extends PrimBase {
  kind: 'text';
  text: string;
  /** Anchor point on the baseline (left, centre or right end as `align` says). */
  x: number;
  y: number;
  /** Cap height in display units. */
  height: number;
  /** Font size (em) in display units = height / cap ratio of the font. */
  em: number;
  /** Rotation of the baseline, radians counter-clockwise. */
  rotation: number;
  widthFactor: number;
  /** Oblique angle, degrees (positive slants to the right). */
  oblique: number;
  /** Font name as the drawing says (SHX/TTF file or family); every back end draws DejaVu Sans. */
  font: string;
  align: 'left' | 'center' | 'right';
  /** Measured advance width in display units (after width factor). */
  width: number;
  /** Mirrored in x (text generation flag 2) / upside down (flag 4). */
  mirrorX: boolean;
  mirrorY: boolean;
  underline: boolean;
  overline: boolean;
  strike: boolean;
}

/** A raster image: `matrix` maps pixel space (x right, y down, 0..pxWidth, 0..pxHeight) to display. */
export interface ImagePrim extends PrimBase {
  kind: 'image';
  /** Resolved file path (when the image file was found) ... */
  path: string | null;
  /** ... or its bytes. */
  data: Buffer | null;
  mime: string;
  pxWidth: number;
  pxHeight: number;
  matrix: [number, number, number, number, number, number];
}

export type Prim = PolylinePrim | PathPrim | TextPrim | ImagePrim;

/** A clipping region (viewport frame, image clip boundary): rings of flat coordinates, even-odd. */
export interface Clip {
  rings: number[][];
  /** An enclosing clip (nested viewports/images), or -1. */
  parent: number;
}

export interface Bounds {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export interface DisplayList {
  prims: Prim[];
  clips: Clip[];
  /** Layers in order of first appearance (SVG groups follow it). */
  layers: string[];
  /** Extents of what was drawn (display units); empty list: minX > maxX. */
  bounds: Bounds;
  background: Rgb;
  /** What could not be drawn, by entity type (count). */
  skipped: Record<string, number>;
  /** Chord tolerance the curves were flattened with (display units). */
  tolerance?: number;
}

export function emptyBounds(): Bounds {
  return { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
}

export function boundsValid(b: Bounds): boolean {
  return b.minX <= b.maxX && b.minY <= b.maxY && Number.isFinite(b.minX) && Number.isFinite(b.maxX);
}
