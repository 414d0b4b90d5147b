// The display list as typed arrays, for screens: what the plots draw, made ready for a GPU.
// Polylines become line segments (dashes applied in drawing units, so they hold at every zoom),
// wide polylines and filled areas become triangles (earcut, holes by even-odd nesting), text and
// images stay records. Coordinates are float32 relative to an origin near the drawing's centre;
// every segment and triangle carries the index of the top-level entity it comes from, so a client
// can pick, highlight and replace one entity's geometry without touching the rest.
import { readFileSync } from 'node:fs';
import earcut from 'earcut';
import type { Rgb } from './colors.js';
import type { DisplayList, ImagePrim, PathPrim, PolylinePrim, TextPrim } from './display-list.js';
import type { EncodedDisplayList, EncodedImage, EncodedText } from './display-frame.js';

export type { EncodedDisplayList, EncodedImage, EncodedText };
import { boundsValid } from './display-list.js';

/** A dashed polyline longer than this many dashes is drawn continuous (too fine to see anyway). */
const MAX_DASHES = 4000;

const rgba = (c: Rgb): number => (((c >> 16) & 255) | (((c >> 8) & 255) << 8) | ((c & 255) << 16) | (255 << 24)) >>> 0;

/** Growable typed-array builders. */
class F32 {
  a = new Float32Array(1024);
  n = 0;
  push2(x: number, y: number): void {
    if (this.n + 2 > this.a.length) this.grow();
    this.a[this.n++] = x;
    this.a[this.n++] = y;
  }
  private grow(): void {
    const b = new Float32Array(this.a.length * 2);
    b.set(this.a);
    this.a = b;
  }
  done(): Float32Array {
    return this.a.slice(0, this.n);
  }
}

class U32 {
  a = new Uint32Array(512);
  n = 0;
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Uint32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  done(): Uint32Array {
    return this.a.slice(0, this.n);
  }
}

export interface EncodeOptions {
  /** The render's chord tolerance, reported back. */
  tolerance: number;
  /** Text lower than this (display units) is left out: too small to read at this resolution. */
  minTextHeight?: number;
  /** Origin to use (keeps a part's coordinates in the frame of an earlier full list). */
  origin?: [number, number];
  layout: string;
}

export function encodeDisplayList(list: DisplayList, opts: EncodeOptions): EncodedDisplayList {
  const b = list.bounds;
  const valid = boundsValid(b);
  const origin: [number, number] = opts.origin ?? (valid ? [round((b.minX + b.maxX) / 2), round((b.minY + b.maxY) / 2)] : [0, 0]);
  const [ox, oy] = origin;
  const handles: string[] = [];
  const entOf = new Map<string, number>();
  const ent = (h: string): number => {
    let i = entOf.get(h);
    if (i === undefined) {
      i = handles.length;
      handles.push(h);
      entOf.set(h, i);
    }
    return i;
  };
  const hasClips = list.clips.length > 0;
  const seg = new F32();
  const segRgba = new U32();
  const segEnt = new U32();
  const segLw: number[] = [];
  const segClip: number[] = [];
  const tri = new F32();
  const triRgba = new U32();
  const triEnt = new U32();
  const triClip: number[] = [];
  const texts: EncodedText[] = [];
  const images: EncodedImage[] = [];

  const addSeg = (x0: number, y0: number, x1: number, y1: number, color: number, e: number, lw: number, clip: number): void => {
    seg.push2(x0 - ox, y0 - oy);
    seg.push2(x1 - ox, y1 - oy);
    segRgba.push(color);
    segEnt.push(e);
    segLw.push(Math.max(0, Math.min(255, Math.round(lw * 100))));
    if (hasClips) segClip.push(clip);
  };
  const addTri = (pts: ArrayLike<number>, a: number, b2: number, c: number, color: number, e: number, clip: number): void => {
    tri.push2(pts[a * 2]! - ox, pts[a * 2 + 1]! - oy);
    tri.push2(pts[b2 * 2]! - ox, pts[b2 * 2 + 1]! - oy);
    tri.push2(pts[c * 2]! - ox, pts[c * 2 + 1]! - oy);
    triRgba.push(color);
    triEnt.push(e);
    if (hasClips) triClip.push(clip);
  };

  // Entities (runs of primitives with one handle) in tile order, each tile in drawing order.
  const runs = entityRuns(list.prims);
  const tiles: EncodedDisplayList['tiles'] = [];
  for (const tile of tileOrder(runs, valid ? b : null)) {
    const first = handles.length;
    const box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const r of tile) {
      box[0] = Math.min(box[0], r.box[0] - ox);
      box[1] = Math.min(box[1], r.box[1] - oy);
      box[2] = Math.max(box[2], r.box[2] - ox);
      box[3] = Math.max(box[3], r.box[3] - oy);
      const e = ent(list.prims[r.from]!.handle);
      for (let i = r.from; i < r.to; i++) {
        const p = list.prims[i]!;
        switch (p.kind) {
          case 'polyline':
            polyline(p, e, addSeg, addTri);
            break;
          case 'path': {
            const color = rgba(p.mask ? list.background : p.color);
            const bands = p.gradient && !p.mask ? gradientBands(p) : null;
            for (const piece of fillPieces(p)) {
              const idx = earcut(piece.flat, piece.holes, 2);
              for (let k = 0; k < idx.length; k += 3) {
                if (bands) bands.fill(piece.flat, idx[k]!, idx[k + 1]!, idx[k + 2]!, (pts, a, b3, c, rgb) => addTri(pts, a, b3, c, rgb, e, p.clip));
                else addTri(piece.flat, idx[k]!, idx[k + 1]!, idx[k + 2]!, color, e, p.clip);
              }
            }
            break;
          }
          case 'text':
            if (!(p.height < (opts.minTextHeight ?? 0))) texts.push(text(p, e, ox, oy));
            break;
          case 'image':
            images.push(image(p, e, ox, oy));
            break;
        }
      }
    }
    if (handles.length > first) tiles.push({ ent_start: first, ent_end: handles.length, box });
  }
  return {
    layout: opts.layout,
    background: list.background,
    bounds: valid ? [b.minX, b.minY, b.maxX, b.maxY] : null,
    origin,
    tolerance: opts.tolerance,
    handles,
    layers: list.layers,
    segments: segEnt.n,
    triangles: triEnt.n,
    seg_xy: seg.done(),
    seg_rgba: segRgba.done(),
    seg_ent: segEnt.done(),
    seg_lw: Uint8Array.from(segLw),
    seg_clip: hasClips ? Int16Array.from(segClip) : null,
    tri_xy: tri.done(),
    tri_rgba: triRgba.done(),
    tri_ent: triEnt.done(),
    tri_clip: hasClips ? Int16Array.from(triClip) : null,
    texts,
    images,
    clips: list.clips.map((c) => ({ rings: c.rings.map((r) => r.map((v, i) => (i % 2 ? v - oy : v - ox))), parent: c.parent })),
    tiles,
    skipped: list.skipped,
  };
}

interface Run {
  from: number;
  to: number;
  box: [number, number, number, number];
}

/** The primitives of each top-level entity (they are contiguous) with the box of their points. */
function entityRuns(prims: DisplayList['prims']): Run[] {
  const runs: Run[] = [];
  let cur: Run | null = null;
  for (let i = 0; i < prims.length; i++) {
    const p = prims[i]!;
    if (!cur || prims[cur.from]!.handle !== p.handle) {
      cur = { from: i, to: i, box: [Infinity, Infinity, -Infinity, -Infinity] };
      runs.push(cur);
    }
    cur.to = i + 1;
    growBox(cur.box, p);
  }
  return runs;
}

function growBox(b: [number, number, number, number], p: DisplayList['prims'][number]): void {
  const add = (x: number, y: number): void => {
    if (x < b[0]) b[0] = x;
    if (y < b[1]) b[1] = y;
    if (x > b[2]) b[2] = x;
    if (y > b[3]) b[3] = y;
  };
  const pts = (a: readonly number[]): void => {
    for (let i = 0; i + 1 < a.length; i += 2) add(a[i]!, a[i + 1]!);
  };
  switch (p.kind) {
    case 'polyline': {
      pts(p.pts);
      const w = p.width / 2;
      if (w > 0) {
        b[0] -= w; b[1] -= w; b[2] += w; b[3] += w;
      }
      break;
    }
    case 'path':
      for (const r of p.rings) pts(r);
      break;
    case 'text': {
      // a generous box: the advance along the baseline and the height, any rotation
      const r = Math.hypot(p.width, p.height * 1.5) + p.height;
      add(p.x - r, p.y - r);
      add(p.x + r, p.y + r);
      break;
    }
    case 'image': {
      const [a, bb, c, d, e, f] = p.matrix;
      for (const [u, v] of [[0, 0], [p.pxWidth, 0], [0, p.pxHeight], [p.pxWidth, p.pxHeight]] as const) add(a * u + c * v + e, bb * u + d * v + f);
      break;
    }
  }
}

/**
 * Entities grouped in the tiles of a grid over the extents (about 256 per tile, at most 64 x 64),
 * by the centre of their box; drawing order is kept within a tile. Few entities: one tile.
 */
function tileOrder(runs: Run[], b: { minX: number; minY: number; maxX: number; maxY: number } | null): Run[][] {
  const g = b ? Math.max(1, Math.min(64, Math.ceil(Math.sqrt(runs.length / 256)))) : 1;
  if (g === 1 || !b) return [runs];
  const w = Math.max(b.maxX - b.minX, 1e-12) / g, h = Math.max(b.maxY - b.minY, 1e-12) / g;
  const tiles: Run[][] = Array.from({ length: g * g }, () => []);
  for (const r of runs) {
    const cx = Number.isFinite(r.box[0]) ? (r.box[0] + r.box[2]) / 2 : b.minX;
    const cy = Number.isFinite(r.box[1]) ? (r.box[1] + r.box[3]) / 2 : b.minY;
    const tx = Math.min(g - 1, Math.max(0, Math.floor((cx - b.minX) / w)));
    const ty = Math.min(g - 1, Math.max(0, Math.floor((cy - b.minY) / h)));
    tiles[ty * g + tx]!.push(r);
  }
  return tiles.filter((t) => t.length > 0);
}

/** A coordinate rounded to four significant digits (an origin that prints short). */
export function round(v: number): number {
  if (!Number.isFinite(v)) return 0;
  const mag = Math.pow(10, Math.max(0, Math.floor(Math.log10(Math.abs(v) || 1)) - 3));
  return Math.round(v / mag) * mag;
}

type AddSeg = (x0: number, y0: number, x1: number, y1: number, color: number, e: number, lw: number, clip: number) => void;
type AddTri = (pts: ArrayLike<number>, a: number, b: number, c: number, color: number, e: number, clip: number) => void;

/** The sub-paths of a polyline as point lists (flat x, y). */
function subPaths(p: PolylinePrim): number[][] {
  const n = p.pts.length / 2;
  const starts = [0, ...(p.breaks ?? []).filter((i) => i > 0 && i < n), n];
  const out: number[][] = [];
  for (let k = 0; k + 1 < starts.length; k++) {
    const part = p.pts.slice(starts[k]! * 2, starts[k + 1]! * 2);
    if (p.closed && part.length >= 4) part.push(part[0]!, part[1]!);
    if (part.length >= 2) out.push(part);
  }
  return out;
}

function polyline(p: PolylinePrim, e: number, addSeg: AddSeg, addTri: AddTri): void {
  const color = rgba(p.color);
  if (!p.breaks?.length && !p.dash && p.width === 0 && p.pts.length >= 4) {
    // the common case, without copying the points
    const pts = p.pts;
    for (let i = 2; i < pts.length; i += 2) addSeg(pts[i - 2]!, pts[i - 1]!, pts[i]!, pts[i + 1]!, color, e, p.lw, p.clip);
    if (p.closed) addSeg(pts[pts.length - 2]!, pts[pts.length - 1]!, pts[0]!, pts[1]!, color, e, p.lw, p.clip);
    return;
  }
  for (const pts of subPaths(p)) {
    if (p.width > 0) {
      wide(pts, p.width, color, e, p.clip, addTri);
      continue;
    }
    if (pts.length === 2) {
      // a point: a dot the size of nothing still shows as one pixel
      addSeg(pts[0]!, pts[1]!, pts[0]!, pts[1]!, color, e, p.lw, p.clip);
      continue;
    }
    if (p.dash && dashed(pts, p.dash, p.dashOffset, color, e, p.lw, p.clip, addSeg)) continue;
    for (let i = 2; i < pts.length; i += 2) addSeg(pts[i - 2]!, pts[i - 1]!, pts[i]!, pts[i + 1]!, color, e, p.lw, p.clip);
  }
}

/** Applies a dash pattern in drawing units; false when it would be too many dashes (drawn solid). */
function dashed(pts: number[], dash: number[], offset: number, color: number, e: number, lw: number, clip: number, addSeg: AddSeg): boolean {
  let period = 0;
  for (const d of dash) period += d;
  if (!(period > 0)) return false;
  let length = 0;
  for (let i = 2; i < pts.length; i += 2) length += Math.hypot(pts[i]! - pts[i - 2]!, pts[i + 1]! - pts[i - 1]!);
  if ((length / period) * Math.ceil(dash.length / 2) > MAX_DASHES) return false;
  // where in the pattern the path starts
  let k = 0;
  let left = dash[0]!;
  let skip = ((offset % period) + period) % period;
  while (skip > 0) {
    if (skip < left) {
      left -= skip;
      break;
    }
    skip -= left;
    k = (k + 1) % dash.length;
    left = dash[k]!;
  }
  for (let i = 2; i < pts.length; i += 2) {
    let x = pts[i - 2]!;
    let y = pts[i - 1]!;
    const x1 = pts[i]!;
    const y1 = pts[i + 1]!;
    let segLen = Math.hypot(x1 - x, y1 - y);
    if (segLen === 0) continue;
    const ux = (x1 - x) / segLen;
    const uy = (y1 - y) / segLen;
    while (segLen > 0) {
      const on = k % 2 === 0;
      if (left === 0) {
        // a dot
        if (on) addSeg(x, y, x, y, color, e, lw, clip);
        k = (k + 1) % dash.length;
        left = dash[k]!;
        continue;
      }
      const step = Math.min(left, segLen);
      const nx = x + ux * step;
      const ny = y + uy * step;
      if (on) addSeg(x, y, nx, ny, color, e, lw, clip);
      x = nx;
      y = ny;
      segLen -= step;
      left -= step;
      if (left <= 1e-12) {
        k = (k + 1) % dash.length;
        left = dash[k]!;
      }
    }
  }
  return true;
}

/** A polyline of constant width as one quad per segment. */
function wide(pts: number[], width: number, color: number, e: number, clip: number, addTri: AddTri): void {
  const h = width / 2;
  for (let i = 2; i < pts.length; i += 2) {
    const x0 = pts[i - 2]!, y0 = pts[i - 1]!, x1 = pts[i]!, y1 = pts[i + 1]!;
    const len = Math.hypot(x1 - x0, y1 - y0);
    if (len === 0) continue;
    const nx = (-(y1 - y0) / len) * h;
    const ny = ((x1 - x0) / len) * h;
    const q = [x0 + nx, y0 + ny, x1 + nx, y1 + ny, x1 - nx, y1 - ny, x0 - nx, y0 - ny];
    addTri(q, 0, 1, 2, color, e, clip);
    addTri(q, 0, 2, 3, color, e, clip);
  }
}

/**
 * The rings of an even-odd fill grouped for earcut: each ring at an even nesting depth is an
 * outer boundary, with the rings directly inside it as its holes.
 */
/** Bands of a gradient fill: the screen has one colour per triangle, so each triangle is cut into strips across the gradient. */
const GRADIENT_BANDS = 64;

/**
 * A linear gradient as the SVG and PNG plots draw it (from the primitive's colour to color2 along
 * `angle`, across the box of all rings): each triangle is clipped to GRADIENT_BANDS strips
 * perpendicular to the gradient, each strip filled with the colour at its middle (a step of at
 * most 1/64 of the colour difference).
 */
function gradientBands(p: PathPrim): { fill(pts: number[], a: number, b: number, c: number, add: (pts: number[], a: number, b: number, c: number, rgb: number) => void): void } {
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
  const dx = Math.cos(g.angle), dy = Math.sin(g.angle);
  const center = ((minX + maxX) / 2) * dx + ((minY + maxY) / 2) * dy;
  const half = (Math.abs(dx) * (maxX - minX) + Math.abs(dy) * (maxY - minY)) / 2 || 1;
  const c1 = p.color, c2 = g.color2;
  const colorAt = (k: number): number => {
    const ch = (sh: number): number => Math.round(((c1 >> sh) & 255) + ((((c2 >> sh) & 255) - ((c1 >> sh) & 255)) * k));
    return rgba(((ch(16) << 16) | (ch(8) << 8) | ch(0)) as Rgb);
  };
  const colors = Array.from({ length: GRADIENT_BANDS }, (_, i) => colorAt((i + 0.5) / GRADIENT_BANDS));
  const width = (2 * half) / GRADIENT_BANDS;
  return {
    fill(pts, a, b, c, add) {
      let poly = [pts[a * 2]!, pts[a * 2 + 1]!, pts[b * 2]!, pts[b * 2 + 1]!, pts[c * 2]!, pts[c * 2 + 1]!];
      const proj = (i: number): number => poly[i]! * dx + poly[i + 1]! * dy - center + half;
      let lo = Infinity, hi = -Infinity;
      for (let i = 0; i < 6; i += 2) {
        lo = Math.min(lo, proj(i));
        hi = Math.max(hi, proj(i));
      }
      const first = Math.max(0, Math.min(GRADIENT_BANDS - 1, Math.floor(lo / width)));
      const last = Math.max(0, Math.min(GRADIENT_BANDS - 1, Math.floor(hi / width)));
      const tri = poly;
      for (let band = first; band <= last; band++) {
        // the first and last bands reach on for ever (rounding at the box's edges)
        const t0 = band === 0 ? -Infinity : band * width, t1 = band === GRADIENT_BANDS - 1 ? Infinity : (band + 1) * width;
        poly = clipHalf(clipHalf(tri, dx, dy, center - half + t0, 1), dx, dy, center - half + t1, -1);
        for (let i = 2; i < poly.length / 2; i++) add(poly, 0, i - 1, i, colors[band]!);
      }
    },
  };
}

/** A convex polygon (flat x, y) clipped to the side of the line x*dx + y*dy = at where sign*(x*dx + y*dy - at) >= 0. */
function clipHalf(poly: number[], dx: number, dy: number, at: number, sign: number): number[] {
  if (!Number.isFinite(at)) return poly;
  const out: number[] = [];
  const n = poly.length / 2;
  for (let i = 0; i < n; i++) {
    const j = (i + 1) % n;
    const ax = poly[i * 2]!, ay = poly[i * 2 + 1]!, bx = poly[j * 2]!, by = poly[j * 2 + 1]!;
    const da = sign * (ax * dx + ay * dy - at), db = sign * (bx * dx + by * dy - at);
    if (da >= 0) out.push(ax, ay);
    if ((da >= 0) !== (db >= 0)) {
      const t = da / (da - db);
      out.push(ax + (bx - ax) * t, ay + (by - ay) * t);
    }
  }
  return out;
}

export function fillPieces(p: PathPrim): { flat: number[]; holes: number[] }[] {
  const rings = p.rings.filter((r) => r.length >= 6);
  if (rings.length === 1) return [{ flat: rings[0]!, holes: [] }];
  const depth = rings.map((r, i) => rings.reduce((d, other, j) => (j !== i && inside(r[0]!, r[1]!, other) ? d + 1 : d), 0));
  const pieces: { flat: number[]; holes: number[] }[] = [];
  rings.forEach((r, i) => {
    if (depth[i]! % 2 !== 0) return;
    const flat = [...r];
    const holes: number[] = [];
    rings.forEach((h, j) => {
      if (depth[j] === depth[i]! + 1 && inside(h[0]!, h[1]!, r)) {
        holes.push(flat.length / 2);
        for (const v of h) flat.push(v);
      }
    });
    pieces.push({ flat, holes });
  });
  return pieces;
}

function inside(x: number, y: number, ring: number[]): boolean {
  let c = false;
  for (let i = 0, j = ring.length - 2; i < ring.length; j = i, i += 2) {
    const xi = ring[i]!, yi = ring[i + 1]!, xj = ring[j]!, yj = ring[j + 1]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) c = !c;
  }
  return c;
}

function text(p: TextPrim, e: number, ox: number, oy: number): EncodedText {
  return {
    ent: e, text: p.text, x: p.x - ox, y: p.y - oy, height: p.height, em: p.em, rotation: p.rotation,
    width_factor: p.widthFactor, oblique: p.oblique, align: p.align, width: p.width, rgba: rgba(p.color), clip: p.clip,
    mirror_x: p.mirrorX, mirror_y: p.mirrorY, underline: p.underline, overline: p.overline, strike: p.strike,
  };
}

function image(p: ImagePrim, e: number, ox: number, oy: number): EncodedImage {
  let data: Uint8Array | null = p.data;
  if (!data && p.path) {
    try {
      data = readFileSync(p.path);
    } catch {
      data = null;
    }
  }
  const [a, b, c, d, tx, ty] = p.matrix;
  return { ent: e, matrix: [a, b, c, d, tx - ox, ty - oy], px_width: p.pxWidth, px_height: p.pxHeight, mime: p.mime, data, clip: p.clip };
}
