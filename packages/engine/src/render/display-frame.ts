// The display list as a screen receives it (the `display_list` op's answer): types only, shared
// with the editor's page, which reads the same fields from a binary frame.

export interface EncodedText {
  /** Index into `handles`. */
  ent: number;
  text: string;
  /** Baseline anchor, relative to `origin`. */
  x: number;
  y: number;
  height: number;
  /** Font size (em) in display units. */
  em: number;
  rotation: number;
  width_factor: number;
  oblique: number;
  align: 'left' | 'center' | 'right';
  /** Advance width in display units as the plots measure it (DejaVu Sans). */
  width: number;
  rgba: number;
  clip: number;
  mirror_x: boolean;
  mirror_y: boolean;
  underline: boolean;
  overline: boolean;
  strike: boolean;
}

export interface EncodedImage {
  ent: number;
  /** Pixel space (x right, y down) to display units relative to `origin`: [a, b, c, d, e, f]. */
  matrix: [number, number, number, number, number, number];
  px_width: number;
  px_height: number;
  mime: string;
  /** The image file's bytes (only files the caller allowed), or null: draw the frame only. */
  data: Uint8Array | null;
  clip: number;
}

export interface EncodedDisplayList {
  layout: string;
  /** Paper colour 0xRRGGBB. */
  background: number;
  /** Extents [minX, minY, maxX, maxY] in display units, or null when nothing is drawn. */
  bounds: [number, number, number, number] | null;
  /** What the float32 coordinates are relative to. */
  origin: [number, number];
  /** Chord tolerance used for curves (pass it back to render a part the same way). */
  tolerance: number;
  /** Top-level entity handles; `*_ent` arrays index into this. */
  handles: string[];
  layers: string[];
  segments: number;
  triangles: number;
  /** Segments: x0, y0, x1, y1 each. */
  seg_xy: Float32Array;
  /** Colour per segment, RGBA bytes (little-endian uint32: r | g << 8 | b << 16 | a << 24). */
  seg_rgba: Uint32Array;
  seg_ent: Uint32Array;
  /** Lineweight per segment in 0.01 mm (0: the thinnest line). */
  seg_lw: Uint8Array;
  /** Clip index per segment (-1: none); null when the list has no clips. */
  seg_clip: Int16Array | null;
  /** Triangles: x0, y0, x1, y1, x2, y2 each. */
  tri_xy: Float32Array;
  tri_rgba: Uint32Array;
  tri_ent: Uint32Array;
  tri_clip: Int16Array | null;
  texts: EncodedText[];
  images: EncodedImage[];
  /** Clip regions (even-odd rings, relative to `origin`) and their enclosing clip. */
  clips: { rings: number[][]; parent: number }[];
  /**
   * Entities in spatial order, grouped in tiles of a grid over the extents: a tile is the range
   * [ent_start, ent_end) of entity indices with the box of their geometry (relative to `origin`),
   * so a screen draws only the tiles it sees and redraws only the tiles a change touches.
   */
  tiles: { ent_start: number; ent_end: number; box: [number, number, number, number] }[];
  skipped: Record<string, number>;
}
