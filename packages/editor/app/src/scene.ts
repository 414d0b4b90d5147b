// One layout of one drawing on the GPU: the display list's arrays uploaded once ("static"), and
// what changed since appended to small dynamic buffers. An entity that changes is hidden where it
// was (a flag byte per instance) and its new geometry appended, so a change to one entity of a
// million-entity drawing uploads a few hundred bytes. Entity ranges in the static arrays are found
// by binary search: entities are numbered in drawing order and their instances are contiguous.
import { attr, FLAG_HIDDEN, FLAG_HOVER, FLAG_SELECTED, GrowBuffer, type Programs } from './gl.js';
import type { DisplayFrame, ImageRec, TextRec } from './frame.js';
import { type Atlas, GLYPH_FLOATS, layoutTexts } from './text.js';

type Kind = 'seg' | 'tri' | 'glyph';
/** Vertices per element: a segment has 2, a triangle 3, a character 6. */
const VERTS: Record<Kind, number> = { seg: 2, tri: 3, glyph: 6 };

/**
 * Elements of one kind as vertex arrays: positions (glyphs: position, uv, em, colour interleaved),
 * a colour and a flag per vertex, and per segment its lineweight (for LWT quads). Element ranges
 * are what entities own; a range's vertices are [start * k, (start + count) * k).
 */
class Batch {
  readonly geo: GrowBuffer;
  readonly color: GrowBuffer;
  readonly flags: GrowBuffer;
  readonly lw: GrowBuffer | null;
  /** Elements (segments, triangles, characters). */
  count = 0;
  /** Entity index per element (static batches: sorted, for binary search). */
  ent: Uint32Array = new Uint32Array(0);
  /** Clip index per element run: [start, count, clip]. */
  runs: [number, number, number][] = [];
  readonly k: number;

  constructor(gl: WebGL2RenderingContext, readonly kind: Kind) {
    this.k = VERTS[kind];
    this.geo = new GrowBuffer(gl);
    this.color = new GrowBuffer(gl);
    this.flags = new GrowBuffer(gl);
    this.lw = kind === 'seg' ? new GrowBuffer(gl) : null;
  }

  /** One colour per element made one per vertex. */
  private perVertex(rgba: Uint32Array): Uint32Array {
    const out = new Uint32Array(rgba.length * this.k);
    for (let i = 0, o = 0; i < rgba.length; i++) for (let j = 0; j < this.k; j++) out[o++] = rgba[i]!;
    return out;
  }

  load(geo: ArrayBufferView, rgba: Uint32Array | null, lw: Uint8Array | null, ent: Uint32Array, clip: Int16Array | null, count: number): void {
    this.count = count;
    this.geo.set(geo);
    if (rgba) this.color.set(this.perVertex(rgba));
    if (this.lw && lw) this.lw.set(lw);
    // flags change after the load (hidden, selected): kept on the CPU too
    this.flags.set(new Uint8Array(count * this.k), true);
    this.ent = ent.slice();
    this.runs = clipRuns(clip, 0, count);
  }

  /**
   * Adds a later part of the same display list to a static batch: its entity numbers follow the
   * ones already held (`entOffset`), its clips the clips already held (`clipOffset`).
   */
  extend(geo: ArrayBufferView, rgba: Uint32Array | null, lw: Uint8Array | null, ent: Uint32Array, clip: Int16Array | null, count: number, entOffset: number, clipOffset: number): void {
    if (!count) return;
    const start = this.count;
    this.geo.extend(geo);
    if (rgba) this.color.extend(this.perVertex(rgba));
    if (this.lw && lw) this.lw.extend(lw);
    this.flags.append(new Uint8Array(count * this.k));
    this.count += count;
    const all = new Uint32Array(this.ent.length + ent.length);
    all.set(this.ent);
    for (let i = 0, o = this.ent.length; i < ent.length; i++) all[o + i] = ent[i]! + entOffset;
    this.ent = all;
    for (const [s0, c0, cl] of clipRuns(clip, start, count)) {
      const c = cl >= 0 ? cl + clipOffset : -1;
      const last = this.runs[this.runs.length - 1];
      if (last && last[2] === c && last[0] + last[1] === s0) last[1] += c0;
      else this.runs.push([s0, c0, c]);
    }
  }

  append(geo: ArrayBufferView, rgba: Uint32Array | null, lw: Uint8Array | null, clip: Int16Array | null, count: number): number {
    const start = this.count;
    this.geo.append(geo);
    if (rgba) this.color.append(this.perVertex(rgba));
    if (this.lw && lw) this.lw.append(lw);
    this.flags.append(new Uint8Array(count * this.k));
    this.count += count;
    this.runs.push(...clipRuns(clip, start, count));
    return start;
  }

  /** Sets or clears a flag bit on elements [start, start + count). */
  flag(start: number, count: number, bit: number, on: boolean): void {
    if (count <= 0) return;
    const f = this.flags.bytes;
    const a = start * this.k, b = (start + count) * this.k;
    for (let i = a; i < b; i++) f[i] = on ? f[i]! | bit : f[i]! & ~bit;
    this.flags.flush(a, b);
  }

  /** Elements of entity `e` in a static batch: [start, count]. */
  rangeOf(e: number): [number, number] {
    const a = lowerBound(this.ent, e);
    const b = lowerBound(this.ent, e + 1);
    return [a, b - a];
  }

  dispose(): void {
    this.geo.dispose();
    this.color.dispose();
    this.flags.dispose();
    this.lw?.dispose();
  }
}

function lowerBound(a: Uint32Array, v: number): number {
  let lo = 0, hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function clipRuns(clip: Int16Array | null, offset: number, count: number): [number, number, number][] {
  if (!clip) return count ? [[offset, count, -1]] : [];
  const runs: [number, number, number][] = [];
  let s = 0;
  for (let i = 1; i <= count; i++) {
    if (i === count || clip[i] !== clip[s]) {
      runs.push([offset + s, i - s, clip[s]!]);
      s = i;
    }
  }
  return runs;
}

/**
 * Hovered entities up to this many are drawn over the cached picture (the view's hover overlay:
 * about 6 ms a frame for 1 000 entities of a window's preview at 100k, neighbours drawn as one);
 * a larger set (a window over much of the drawing) is flagged in the vertex flags instead, which
 * costs a render of the picture where it lies once, not a draw per entity every frame.
 */
export const HOVER_OVERLAY_MAX = 2000;

/** The hover's dashes on lines: CSS pixels drawn in the hover colour of every HOVER_DASH_PERIOD. */
export const HOVER_DASH = 6;
export const HOVER_DASH_PERIOD = 10;

/** Elements of one batch: [start, count, clip]. */
type Piece = [Batch, number, number, number];

interface DynRange {
  kind: Kind;
  start: number;
  count: number;
}

interface ImageItem {
  ent: string;
  rec: ImageRec;
  tex: WebGLTexture | null;
  hidden: boolean;
}

export interface Viewer {
  cx: number;
  cy: number;
  /** Device pixels per drawing unit. */
  scale: number;
  width: number;
  height: number;
  lineweights: boolean;
  /** Device pixels per mm of paper (lineweights). */
  pxPerMm: number;
  select: [number, number, number, number];
  hover: [number, number, number, number];
}

export class Scene {
  readonly origin: [number, number];
  readonly tolerance: number;
  readonly background: number;
  bounds: [number, number, number, number] | null;
  readonly layers: string[];
  private readonly handles: string[];
  private handleIndex: Map<string, number> | null = null;
  private readonly batches: Record<Kind, Batch>;
  private readonly dyn: Record<Kind, Batch>;
  private readonly dynRanges = new Map<string, DynRange[]>();
  /** Static entities hidden because they changed or went away. */
  private readonly gone = new Set<string>();
  private readonly images: ImageItem[] = [];
  private readonly clipBufs: { buf: WebGLBuffer; rings: [number, number][] }[] = [];
  private flagged = new Map<string, number>();
  /** Spatial tiles: element ranges per kind and the box (relative to the origin). */
  private readonly tiles: { box: [number, number, number, number]; seg: [number, number]; tri: [number, number]; glyph: [number, number]; entStart: number }[] = [];
  /** Boxes of entities drawn from the dynamic buffers (relative to the origin). */
  private readonly dynBoxes = new Map<string, [number, number, number, number]>();
  /** Entities drawn in the hover colour over the picture (`drawHover`), not through their flags. */
  private hovered: string[] = [];
  /** Their element pieces per kind (null: to find again, after a change). */
  private hoverPieces: Record<Kind, Piece[]> | null = null;
  /** A large hover set is flagged (FLAG_HOVER) instead. */
  private hoverFlagged = false;

  constructor(private readonly gl: WebGL2RenderingContext, private readonly atlas: Atlas, readonly frame: DisplayFrame) {
    this.origin = frame.origin;
    this.tolerance = frame.tolerance;
    this.background = frame.background;
    this.bounds = frame.bounds;
    this.layers = frame.layers;
    this.handles = frame.handles;
    const mk = (): Record<Kind, Batch> => ({ seg: new Batch(gl, 'seg'), tri: new Batch(gl, 'tri'), glyph: new Batch(gl, 'glyph') });
    this.batches = mk();
    this.dyn = mk();
    this.batches.seg.load(frame.seg_xy, frame.seg_rgba, frame.seg_lw, frame.seg_ent, frame.seg_clip, frame.segments);
    this.batches.tri.load(frame.tri_xy, frame.tri_rgba, null, frame.tri_ent, frame.tri_clip, frame.triangles);
    const g = layoutTexts(frame.texts, atlas);
    this.batches.glyph.load(g.verts, null, null, g.ent, textClips(frame.texts, g.ent), g.ent.length);
    for (const img of frame.images) this.addImage(frame.handles[img.ent]!, img);
    this.addTiles(frame, 0);
    this.addClips(frame.clips);
  }

  /** Tiles of a part whose entities are numbered from `entOffset`: their element ranges per kind. */
  private addTiles(frame: DisplayFrame, entOffset: number): void {
    const tiles = frame.tiles.length ? frame.tiles : [{ ent_start: 0, ent_end: frame.handles.length, box: relBox(frame.bounds, frame.origin) }];
    for (const t of tiles) {
      const range = (b: Batch): [number, number] => {
        const a = lowerBound(b.ent, t.ent_start + entOffset);
        return [a, lowerBound(b.ent, t.ent_end + entOffset) - a];
      };
      this.tiles.push({ box: t.box, seg: range(this.batches.seg), tri: range(this.batches.tri), glyph: range(this.batches.glyph), entStart: t.ent_start + entOffset });
    }
  }

  private addClips(clips: DisplayFrame['clips']): void {
    const gl = this.gl;
    for (const c of clips) {
      // each ring as a triangle fan from its first point: drawn into the stencil with INVERT (even-odd)
      const fans: number[] = [];
      const rings: [number, number][] = [];
      for (const r of c.rings) {
        const n = r.length / 2;
        if (n < 3) continue;
        const start = fans.length / 2;
        for (let i = 1; i + 1 < n; i++) fans.push(r[0]!, r[1]!, r[i * 2]!, r[i * 2 + 1]!, r[i * 2 + 2]!, r[i * 2 + 3]!);
        rings.push([start, fans.length / 2 - start]);
      }
      const buf = gl.createBuffer()!;
      gl.bindBuffer(gl.ARRAY_BUFFER, buf);
      gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(fans), gl.STATIC_DRAW);
      this.clipBufs.push({ buf, rings });
    }
  }

  /**
   * Adds a later part of the same display list (same origin and tolerance, other entities) to the
   * static arrays: a drawing streamed in parts ends as one scene, as if it had come whole.
   */
  extend(part: DisplayFrame): void {
    const entOffset = this.handles.length;
    const clipOffset = this.clipBufs.length;
    for (const h of part.handles) this.handles.push(h);
    if (this.handleIndex) part.handles.forEach((h, i) => this.handleIndex!.set(h, entOffset + i));
    const seen = new Set(this.layers);
    for (const l of part.layers) if (!seen.has(l)) this.layers.push(l);
    this.batches.seg.extend(part.seg_xy, part.seg_rgba, part.seg_lw, part.seg_ent, part.seg_clip, part.segments, entOffset, clipOffset);
    this.batches.tri.extend(part.tri_xy, part.tri_rgba, null, part.tri_ent, part.tri_clip, part.triangles, entOffset, clipOffset);
    const g = layoutTexts(part.texts, this.atlas);
    this.batches.glyph.extend(g.verts, null, null, g.ent, textClips(part.texts, g.ent), g.ent.length, entOffset, clipOffset);
    for (const img of part.images) this.addImage(part.handles[img.ent]!, img);
    this.addTiles(part, entOffset);
    this.addClips(part.clips);
    // entities selected or hovered before their part came
    if (this.flagged.size) {
      for (const h of part.handles) {
        const bits = this.flagged.get(h);
        if (bits) for (const r of this.ranges(h)) for (const bit of [1, 2, 4, 8, 16, 32, 64, 128]) if (bits & bit) r.batch.flag(r.start, r.count, bit, true);
      }
    }
    const b = part.bounds;
    if (b) this.bounds = this.bounds ? [Math.min(this.bounds[0], b[0]), Math.min(this.bounds[1], b[1]), Math.max(this.bounds[2], b[2]), Math.max(this.bounds[3], b[3])] : b;
    this.dirty = null;
    this.hoverPieces = null;
  }

  get entityCount(): number {
    return this.handles.length - this.gone.size + this.dynRanges.size;
  }

  private index(): Map<string, number> {
    if (!this.handleIndex) {
      this.handleIndex = new Map();
      this.handles.forEach((h, i) => this.handleIndex!.set(h, i));
    }
    return this.handleIndex;
  }

  /** Every instance range of an entity, static and dynamic. */
  private ranges(h: string): { batch: Batch; start: number; count: number }[] {
    const out: { batch: Batch; start: number; count: number }[] = [];
    const e = this.gone.has(h) ? undefined : this.index().get(h);
    if (e !== undefined) {
      for (const k of ['seg', 'tri', 'glyph'] as const) {
        const [start, count] = this.batches[k].rangeOf(e);
        if (count) out.push({ batch: this.batches[k], start, count });
      }
    }
    for (const r of this.dynRanges.get(h) ?? []) out.push({ batch: this.dyn[r.kind], start: r.start, count: r.count });
    return out;
  }

  has(h: string): boolean {
    return (this.index().has(h) && !this.gone.has(h)) || this.dynRanges.has(h);
  }

  /** Where an entity is drawn (relative to the origin): its tile's box, or its own when it changed. */
  boxOf(h: string): [number, number, number, number] | null {
    const d = this.dynBoxes.get(h);
    if (d) return d;
    const e = this.gone.has(h) ? undefined : this.index().get(h);
    if (e === undefined || !this.tiles.length) return null;
    let lo = 0, hi = this.tiles.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.tiles[mid]!.entStart <= e) lo = mid;
      else hi = mid - 1;
    }
    return this.tiles[lo]!.box;
  }

  /** Hides an entity's geometry (it changed or was erased). */
  remove(h: string): void {
    // an entity this scene never drew (a new one) leaves no pixels to clear
    const box = this.boxOf(h);
    if (box) this.dirtyBox(box);
    for (const r of this.ranges(h)) r.batch.flag(r.start, r.count, FLAG_HIDDEN, true);
    this.dynBoxes.delete(h);
    if (this.index().has(h)) this.gone.add(h);
    this.dynRanges.delete(h);
    for (const img of this.images) if (img.ent === h) img.hidden = true;
    this.flagged.delete(h);
    this.hoverPieces = null;
  }

  /** Adds the geometry of a partial display list (same origin) for its entities. */
  add(part: DisplayFrame): void {
    // each entity's box from its vertices, for the screen to redraw just there
    const grow = (h: string, xy: ArrayLike<number>, from: number, to: number, stride: number): void => {
      let b = this.dynBoxes.get(h);
      if (!b) this.dynBoxes.set(h, (b = [Infinity, Infinity, -Infinity, -Infinity]));
      for (let i = from; i < to; i += stride) {
        const x = xy[i]!, y = xy[i + 1]!;
        if (x < b[0]) b[0] = x;
        if (y < b[1]) b[1] = y;
        if (x > b[2]) b[2] = x;
        if (y > b[3]) b[3] = y;
      }
    };
    const byEnt = (ent: Uint32Array, kind: Kind, start: number): void => {
      const xy = kind === 'seg' ? part.seg_xy : kind === 'tri' ? part.tri_xy : null;
      let s = 0;
      for (let i = 1; i <= ent.length; i++) {
        if (i === ent.length || ent[i] !== ent[s]) {
          const h = part.handles[ent[s]!]!;
          let list = this.dynRanges.get(h);
          if (!list) this.dynRanges.set(h, (list = []));
          list.push({ kind, start: start + s, count: i - s });
          const k = VERTS[kind] * 2;
          if (xy) grow(h, xy, s * k, i * k, 2);
          s = i;
        }
      }
    };
    if (part.segments) byEnt(part.seg_ent, 'seg', this.dyn.seg.append(part.seg_xy, part.seg_rgba, part.seg_lw, part.seg_clip, part.segments));
    if (part.triangles) byEnt(part.tri_ent, 'tri', this.dyn.tri.append(part.tri_xy, part.tri_rgba, null, part.tri_clip, part.triangles));
    if (part.texts.length) {
      const g = layoutTexts(part.texts, this.atlas);
      byEnt(g.ent, 'glyph', this.dyn.glyph.append(g.verts, null, null, textClips(part.texts, g.ent), g.ent.length));
      let s = 0;
      for (let i = 1; i <= g.ent.length; i++) {
        if (i === g.ent.length || g.ent[i] !== g.ent[s]) {
          grow(part.handles[g.ent[s]!]!, g.verts, s * 6 * GLYPH_FLOATS, i * 6 * GLYPH_FLOATS, GLYPH_FLOATS);
          s = i;
        }
      }
    }
    for (const img of part.images) {
      this.addImage(part.handles[img.ent]!, img);
      const [a, b, c, d, e, f] = img.matrix;
      const w = img.px_width, h = img.px_height;
      grow(part.handles[img.ent]!, [e, f, a * w + e, b * w + f, c * h + e, d * h + f, a * w + c * h + e, b * w + d * h + f], 0, 8, 2);
    }
    for (const h of part.handles) this.dirtyBox(this.dynBoxes.get(h) ?? null);
    this.hoverPieces = null;
    if (part.bounds) {
      const b = part.bounds;
      this.bounds = this.bounds ? [Math.min(this.bounds[0], b[0]), Math.min(this.bounds[1], b[1]), Math.max(this.bounds[2], b[2]), Math.max(this.bounds[3], b[3])] : b;
    }
  }

  /** Sets one flag bit (selection, hover) on exactly these entities. */
  setFlag(bit: number, handles: Iterable<string>): void {
    const want = new Set(handles);
    // a selected entity keeps the selection's colour under the cursor
    this.hoverPieces = null;
    for (const [h, bits] of this.flagged) {
      if (bits & bit && !want.has(h)) {
        const box = this.boxOf(h);
        if (box) this.dirtyBox(box);
        for (const r of this.ranges(h)) r.batch.flag(r.start, r.count, bit, false);
        this.flagged.set(h, bits & ~bit);
      }
    }
    for (const h of want) {
      const bits = this.flagged.get(h) ?? 0;
      if (bits & bit) continue;
      const box = this.boxOf(h);
      if (box) this.dirtyBox(box);
      for (const r of this.ranges(h)) r.batch.flag(r.start, r.count, bit, true);
      this.flagged.set(h, bits | bit);
    }
  }

  /**
   * The entities under the cursor (or in a window being dragged). Up to HOVER_OVERLAY_MAX are drawn
   * over the cached picture by `drawHover`, so a change redraws neither the picture nor uploads
   * flags; a larger set is flagged and redraws the picture where it lies.
   */
  setHover(hs: readonly string[]): void {
    if (hs.length > HOVER_OVERLAY_MAX) {
      this.hovered = [];
      this.setFlag(FLAG_HOVER, hs);
      this.hoverFlagged = true;
    } else {
      if (this.hoverFlagged) this.setFlag(FLAG_HOVER, []);
      this.hoverFlagged = false;
      this.hovered = [...hs];
    }
    this.hoverPieces = null;
  }

  /** Where the overlay's hovered entities lie (relative to the origin): the pixels a change touches. */
  hoverBoxes(): [number, number, number, number][] {
    const out: [number, number, number, number][] = [];
    for (const h of this.hovered) {
      const b = this.boxOf(h);
      if (b) out.push(b);
    }
    return out;
  }

  /** The hovered entities' elements, split where their clip changes (a selected one is left out). */
  private hoverElements(): Record<Kind, Piece[]> {
    if (this.hoverPieces) return this.hoverPieces;
    const out: Record<Kind, Piece[]> = { seg: [], tri: [], glyph: [] };
    for (const h of this.hovered) {
      if ((this.flagged.get(h) ?? 0) & FLAG_SELECTED) continue;
      for (const r of this.ranges(h)) {
        const runs = r.batch.runs, end = r.start + r.count;
        // the first clip run that ends after the range's start
        let lo = 0, hi = runs.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (runs[mid]![0] + runs[mid]![1] <= r.start) lo = mid + 1;
          else hi = mid;
        }
        for (let i = lo; i < runs.length && runs[i]![0] < end; i++) {
          const [s0, c0, clip] = runs[i]!;
          const a = Math.max(s0, r.start), z = Math.min(s0 + c0, end);
          if (z > a) out[r.batch.kind].push([r.batch, a, z - a, clip]);
        }
      }
    }
    // neighbours in one batch (a window's entities of one tile) drawn as one
    for (const k of ['seg', 'tri', 'glyph'] as const) {
      const list = out[k];
      if (list.length < 2) continue;
      list.sort((a, b) => (a[0] === b[0] ? a[1] - b[1] : a[0] === this.batches[k] ? -1 : 1));
      const merged: Piece[] = [list[0]!];
      for (let i = 1; i < list.length; i++) {
        const last = merged[merged.length - 1]!, x = list[i]!;
        if (x[0] === last[0] && x[3] === last[3] && x[1] <= last[1] + last[2]) last[2] = Math.max(last[2], x[1] + x[2] - last[1]);
        else merged.push(x);
      }
      out[k] = merged;
    }
    this.hoverPieces = out;
    return out;
  }

  /** True when `drawHover` has something to draw. */
  get hasHover(): boolean {
    return this.hovered.length > 0;
  }

  private addImage(h: string, rec: ImageRec): void {
    const item: ImageItem = { ent: h, rec, tex: null, hidden: false };
    this.images.push(item);
    if (!rec.data) return;
    const blob = new Blob([rec.data as BlobPart], { type: rec.mime });
    void createImageBitmap(blob).then((bmp) => {
      const gl = this.gl;
      const tex = gl.createTexture()!;
      gl.bindTexture(gl.TEXTURE_2D, tex);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, bmp);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
      item.tex = tex;
      this.dirty = null;
      this.onImage?.();
    }).catch(() => undefined);
  }

  /** Called when an image finished decoding (the view redraws). */
  onImage: (() => void) | null = null;

  /** Boxes (relative to the origin) whose pixels changed since the screen last drew them; null: everything. */
  dirty: [number, number, number, number][] | null = [];

  private dirtyBox(b: [number, number, number, number] | null): void {
    if (!this.dirty) return;
    if (!b || !Number.isFinite(b[0])) this.dirty = null;
    else this.dirty.push(b);
  }

  dispose(): void {
    for (const b of [...Object.values(this.batches), ...Object.values(this.dyn)]) b.dispose();
    for (const c of this.clipBufs) this.gl.deleteBuffer(c.buf);
    for (const i of this.images) if (i.tex) this.gl.deleteTexture(i.tex);
  }

  // ---- drawing --------------------------------------------------------------------------------

  /** Draws what lies in `view` (a box relative to the origin; null: everything). */
  draw(p: Programs, v: Viewer, atlasTex: WebGLTexture, quad: WebGLBuffer, view: [number, number, number, number] | null = null): void {
    this.visible = view ? this.visibleRuns(view) : null;
    const gl = this.gl;
    const uniforms = (prog: Programs[keyof Programs]): void => this.uniforms(prog, v);
    // attributes are bound per run: a clip's stencil pass in between uses its own
    const plain = (prog: Programs['seg'], b: Batch, mode: number): void => this.runs(b, p, v, (start, count) => {
      attr(gl, prog.loc.a_pos!, b.geo.buf, 2, gl.FLOAT, false, 0, 0, 0);
      attr(gl, prog.loc.a_color!, b.color.buf, 4, gl.UNSIGNED_BYTE, true, 0, 0, 0);
      attr(gl, prog.loc.a_flag!, b.flags.buf, 1, gl.UNSIGNED_BYTE, false, 0, 0, 0);
      gl.drawArrays(mode, start * b.k, count * b.k);
    });
    // fills
    uniforms(p.tri);
    for (const b of [this.batches.tri, this.dyn.tri]) plain(p.tri, b, gl.TRIANGLES);
    // images
    if (this.images.length) {
      uniforms(p.image);
      attr(gl, p.image.loc.a_corner!, quad, 2, gl.FLOAT, false, 0, 0, 0);
      for (const img of this.images) {
        if (img.hidden || !img.tex) continue;
        const [a, b, c, d, e, f] = img.rec.matrix;
        gl.uniformMatrix3fv(p.image.uni.u_m!, false, [a, b, 0, c, d, 0, e, f, 1]);
        gl.uniform2f(p.image.uni.u_size!, img.rec.px_width, img.rec.px_height);
        gl.activeTexture(gl.TEXTURE0);
        gl.bindTexture(gl.TEXTURE_2D, img.tex);
        gl.uniform1i(p.image.uni.u_tex!, 0);
        gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
      }
      gl.disableVertexAttribArray(p.image.loc.a_corner!);
    }
    // hairlines
    uniforms(p.seg);
    for (const b of [this.batches.seg, this.dyn.seg]) plain(p.seg, b, gl.LINES);
    for (let i = 0; i < 8; i++) gl.disableVertexAttribArray(i);
    // lineweights (LWT): quads over the hairlines, one instance per segment
    if (v.lineweights) {
      uniforms(p.quad);
      gl.uniform1f(p.quad.uni.u_lwpx!, v.pxPerMm / 100);
      for (const b of [this.batches.seg, this.dyn.seg]) this.runs(b, p, v, (start, count) => {
        quadAttrs(gl, p.quad, b, start);
        attr(gl, p.quad.loc.a_flag!, b.flags.buf, 1, gl.UNSIGNED_BYTE, false, 2, start * 2);
        gl.drawArraysInstanced(gl.TRIANGLE_STRIP, 0, 4, count);
      });
      for (let i = 0; i < 8; i++) {
        gl.vertexAttribDivisor(i, 0);
        gl.disableVertexAttribArray(i);
      }
    }
    // text
    uniforms(p.glyph);
    glyphState(gl, p, atlasTex);
    for (const b of [this.batches.glyph, this.dyn.glyph]) this.runs(b, p, v, (start, count) => {
      glyphAttrs(gl, p, b.geo.buf);
      attr(gl, p.glyph.loc.a_flag!, b.flags.buf, 1, gl.UNSIGNED_BYTE, false, 0, 0, 0);
      gl.drawArrays(gl.TRIANGLES, start * 6, count * 6);
    });
    gl.disable(gl.BLEND);
    for (let i = 0; i < 8; i++) gl.disableVertexAttribArray(i);
  }

  private uniforms(prog: Programs[keyof Programs], v: Viewer): void {
    const gl = this.gl;
    gl.useProgram(prog.prog);
    gl.uniform2f(prog.uni.u_center!, v.cx - this.origin[0], v.cy - this.origin[1]);
    gl.uniform2f(prog.uni.u_scale!, (2 * v.scale) / v.width, (2 * v.scale) / v.height);
    gl.uniform2f(prog.uni.u_px!, 2 / v.width, 2 / v.height);
    gl.uniform4fv(prog.uni.u_select!, v.select);
    gl.uniform4fv(prog.uni.u_hover!, v.hover);
  }

  /**
   * Draws the hovered entities in the hover colour onto the bound target (the screen, over the
   * cached picture): their own elements only, with the flag attribute held at FLAG_HOVER, so
   * neither the picture nor a flag buffer changes. Fills, hairlines and lineweights recolour only
   * the pixels where the picture (`cache`, placed at `place` on the screen; null: no test) shows
   * the entity's own colour: what was drawn over it stays. Hairlines and lineweights are dashed
   * (screen-space dashes, HOVER_DASH of HOVER_DASH_PERIOD pixels; the gaps keep the entity's own
   * look), fills tinted whole. Then text.
   */
  drawHover(p: Programs, v: Viewer, atlasTex: WebGLTexture, cache: WebGLTexture, place: [number, number, number, number] | null): void {
    if (!this.hovered.length) return;
    const el = this.hoverElements();
    if (!el.seg.length && !el.tri.length && !el.glyph.length) return;
    const gl = this.gl;
    for (let i = 0; i < 8; i++) gl.disableVertexAttribArray(i);
    let active = -1;
    const clipTo = (clip: number, prog: Programs[keyof Programs]): void => {
      if (clip === active) return;
      if (clip >= 0 && this.clipBufs[clip]) {
        this.stencil(clip, p, v);
        gl.useProgram(prog.prog);
      } else gl.disable(gl.STENCIL_TEST);
      active = clip;
    };
    const hover = (loc: number | undefined): void => {
      if (loc === undefined || loc < 0) return;
      gl.disableVertexAttribArray(loc);
      gl.vertexAttrib1f(loc, FLAG_HOVER);
    };
    const picture = (prog: Programs['hover']): void => {
      gl.activeTexture(gl.TEXTURE0);
      gl.bindTexture(gl.TEXTURE_2D, cache);
      gl.uniform1i(prog.uni.u_cache!, 0);
      gl.uniform4fv(prog.uni.u_place!, place ?? [0, 0, 0, 0]);
    };
    // lines dashed, HOVER_DASH CSS pixels on of every HOVER_DASH_PERIOD (fills solid)
    const dpr = v.pxPerMm / (96 / 25.4);
    const dash = [Math.max(1, Math.round(HOVER_DASH * dpr)), Math.max(2, Math.round(HOVER_DASH_PERIOD * dpr))];
    const flat = (prog: Programs['hover'], pieces: Piece[], mode: number): void => {
      if (!pieces.length) return;
      this.uniforms(prog, v);
      picture(prog);
      gl.uniform2fv(prog.uni.u_dash!, mode === gl.LINES ? dash : [0, 0]);
      for (const [b, start, count, clip] of pieces) {
        clipTo(clip, prog);
        attr(gl, prog.loc.a_pos!, b.geo.buf, 2, gl.FLOAT, false, 0, 0, 0);
        attr(gl, prog.loc.a_color!, b.color.buf, 4, gl.UNSIGNED_BYTE, true, 0, 0, 0);
        hover(prog.loc.a_flag);
        gl.drawArrays(mode, start * b.k, count * b.k);
      }
      for (let i = 0; i < 8; i++) gl.disableVertexAttribArray(i);
    };
    flat(p.hover, el.tri, gl.TRIANGLES);
    flat(p.hover, el.seg, gl.LINES);
    if (v.lineweights && el.seg.length) {
      const q = p.hoverQuad;
      this.uniforms(q, v);
      picture(q);
      gl.uniform2fv(q.uni.u_dash!, dash);
      gl.uniform1f(q.uni.u_lwpx!, v.pxPerMm / 100);
      for (const [b, start, count, clip] of el.seg) {
        clipTo(clip, q);
        quadAttrs(gl, q, b, start);
        hover(q.loc.a_flag);
        gl.drawArraysInstanced(gl.TRIANGLE_STRIP, 0, 4, count);
      }
      for (let i = 0; i < 8; i++) {
        gl.vertexAttribDivisor(i, 0);
        gl.disableVertexAttribArray(i);
      }
    }
    if (el.glyph.length) {
      this.uniforms(p.glyph, v);
      glyphState(gl, p, atlasTex);
      for (const [b, start, count, clip] of el.glyph) {
        clipTo(clip, p.glyph);
        glyphAttrs(gl, p, b.geo.buf);
        hover(p.glyph.loc.a_flag);
        gl.drawArrays(gl.TRIANGLES, start * 6, count * 6);
      }
      gl.disable(gl.BLEND);
      for (let i = 0; i < 8; i++) gl.disableVertexAttribArray(i);
    }
    gl.disable(gl.STENCIL_TEST);
  }

  /** Element runs of the static batches in the tiles that meet `view` (consecutive tiles merged). */
  private visible: Record<Kind, [number, number][]> | null = null;

  private visibleRuns(view: [number, number, number, number]): Record<Kind, [number, number][]> {
    const out: Record<Kind, [number, number][]> = { seg: [], tri: [], glyph: [] };
    for (const t of this.tiles) {
      const b = t.box;
      if (b[2] < view[0] || b[0] > view[2] || b[3] < view[1] || b[1] > view[3]) continue;
      for (const k of ['seg', 'tri', 'glyph'] as const) {
        const [start, count] = t[k];
        if (!count) continue;
        const runs = out[k];
        const last = runs[runs.length - 1];
        if (last && last[0] + last[1] === start) last[1] += count;
        else runs.push([start, count]);
      }
    }
    return out;
  }

  /** Calls draw for each run of elements, with the stencil set to the run's clip region. */
  private runs(b: Batch, p: Programs, v: Viewer, draw: (start: number, count: number) => void): void {
    if (!b.count) return;
    const gl = this.gl;
    let active = -1;
    const culled = this.visible && b === this.batches[b.kind] && b.runs.length === 1 && b.runs[0]![2] === -1 ? this.visible[b.kind] : null;
    for (const [start, count, clip] of culled ? culled.map(([s0, c0]) => [s0, c0, -1] as [number, number, number]) : b.runs) {
      if (clip !== active) {
        if (clip >= 0 && this.clipBufs[clip]) this.stencil(clip, p, v);
        else gl.disable(gl.STENCIL_TEST);
        active = clip;
      }
      draw(start, count);
    }
    gl.disable(gl.STENCIL_TEST);
  }

  private stencil(clip: number, p: Programs, v: Viewer): void {
    const gl = this.gl;
    const c = this.clipBufs[clip]!;
    const current = gl.getParameter(gl.CURRENT_PROGRAM) as WebGLProgram;
    gl.enable(gl.STENCIL_TEST);
    gl.clear(gl.STENCIL_BUFFER_BIT);
    gl.colorMask(false, false, false, false);
    gl.stencilFunc(gl.ALWAYS, 0, 0xff);
    gl.stencilOp(gl.KEEP, gl.KEEP, gl.INVERT);
    gl.useProgram(p.stencil.prog);
    gl.uniform2f(p.stencil.uni.u_center!, v.cx - this.origin[0], v.cy - this.origin[1]);
    gl.uniform2f(p.stencil.uni.u_scale!, (2 * v.scale) / v.width, (2 * v.scale) / v.height);
    attr(gl, p.stencil.loc.a_pos!, c.buf, 2, gl.FLOAT, false, 0, 0, 0);
    for (const [start, count] of c.rings) gl.drawArrays(gl.TRIANGLES, start, count);
    gl.disableVertexAttribArray(p.stencil.loc.a_pos!);
    gl.colorMask(true, true, true, true);
    gl.stencilFunc(gl.NOTEQUAL, 0, 0xff);
    gl.stencilOp(gl.KEEP, gl.KEEP, gl.KEEP);
    gl.useProgram(current);
  }
}

function relBox(b: [number, number, number, number] | null, o: [number, number]): [number, number, number, number] {
  return b ? [b[0] - o[0], b[1] - o[1], b[2] - o[0], b[3] - o[1]] : [-Infinity, -Infinity, Infinity, Infinity];
}

/** Clip index per glyph instance (from its text), or null when no text is clipped. */
function textClips(texts: TextRec[], ent: Uint32Array): Int16Array | null {
  if (!texts.some((t) => t.clip >= 0)) return null;
  const out = new Int16Array(ent.length);
  let k = 0;
  for (const t of texts) for (let i = 0; i < [...t.text].length; i++) out[k++] = t.clip;
  return out;
}

/** The glyph program's atlas, its minimum pixel size and alpha blending (text of the drawing and of the hover). */
function glyphState(gl: WebGL2RenderingContext, p: Programs, atlasTex: WebGLTexture): void {
  gl.activeTexture(gl.TEXTURE0);
  gl.bindTexture(gl.TEXTURE_2D, atlasTex);
  gl.uniform1i(p.glyph.uni.u_atlas!, 0);
  gl.uniform1f(p.glyph.uni.u_minpx!, 1.5);
  gl.enable(gl.BLEND);
  gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
}

/** A glyph batch's position, atlas coordinates, em size and colour, interleaved in one buffer. */
function glyphAttrs(gl: WebGL2RenderingContext, p: Programs, buf: WebGLBuffer): void {
  const s = GLYPH_FLOATS * 4;
  attr(gl, p.glyph.loc.a_pos!, buf, 2, gl.FLOAT, false, s, 0, 0);
  attr(gl, p.glyph.loc.a_uv!, buf, 2, gl.FLOAT, false, s, 8, 0);
  attr(gl, p.glyph.loc.a_em!, buf, 1, gl.FLOAT, false, s, 16, 0);
  attr(gl, p.glyph.loc.a_color!, buf, 4, gl.UNSIGNED_BYTE, true, s, 20, 0);
}

/** A lineweight quad's segment, colour and lineweight, one instance per segment from `start` (the flag is the caller's). */
function quadAttrs(gl: WebGL2RenderingContext, prog: Programs['quad'], b: Batch, start: number): void {
  attr(gl, prog.loc.a_seg!, b.geo.buf, 4, gl.FLOAT, false, 16, start * 16);
  attr(gl, prog.loc.a_color!, b.color.buf, 4, gl.UNSIGNED_BYTE, true, 8, start * 8);
  attr(gl, prog.loc.a_lw!, b.lw!.buf, 1, gl.UNSIGNED_BYTE, false, 1, start);
}
