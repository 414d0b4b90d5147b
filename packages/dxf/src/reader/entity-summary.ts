// What `linework info` needs of the ENTITIES section (counts by type and layout, the box of model
// space) taken from the records as they are scanned, without keeping a record per entity.
//
// `info` of a large drawing spent most of its time on what a document needs and a summary does
// not: an object and a handle-index entry per entity, then the garbage collector moving them,
// then a second scan of each entity's bytes for its box. A summarizing read (`ReadOptions.summary`)
// builds the header, tables, blocks and objects as any read does, and counts and boxes the common
// entities of the ENTITIES section (LINE, POINT, CIRCLE, ARC, LWPOLYLINE, TEXT, INSERT without
// attributes: what `geometryAttrs` reads) from the scanned tags alone; anything else is read as
// always. The summary stands only for a drawing read without a repair (`trustworthy`): a repair
// may have needed the records it did not keep (a duplicate handle, a record cut short, a missing
// SEQEND), and the caller then reads the file again without it.
import type { Block } from '../document-api.js';
import type { DxfDocument } from '../document.js';
import { BoxMemo, addBBoxToBox, boundingBox } from '../geometry/bbox.js';
import { emptyBox } from '../geometry/curves.js';
import type { TagRecord } from '../tags/record-sink.js';
import { GEOMETRY_MARKER, geometryAttrs } from './lazy-entity.js';

/** The types a summary counts without a record (the rest is read as always), by their slot in a count array. */
const TYPES = Object.keys(GEOMETRY_MARKER);
const SLOT = new Map(TYPES.map((t, i) => [t, i]));

/**
 * A handle's value, from its hex digits (the reader checked them). Exact up to 13 digits; longer
 * ones may round, so that two of them look equal: never the other way round.
 */
function handleValue(h: string): number {
  let v = 0;
  for (let i = 0; i < h.length; i++) {
    const c = h.charCodeAt(i);
    v = v * 16 + (c <= 57 ? c - 48 : c - 55);
  }
  return v;
}

export class EntitySummary {
  /** Entities counted here and not kept, by the block (layout) they belong to: a count per `TYPES` slot. */
  private readonly slots = new Map<Block, Int32Array>();
  private lastBlock: Block | null = null;
  private lastSlots: Int32Array = new Int32Array(TYPES.length);
  /** The union of the boxes of the model-space entities counted here. */
  readonly modelBox = emptyBox();
  /** How many entities were counted here. */
  total = 0;
  // The handles counted here, as numbers (a reader meets them mostly in increasing order: a
  // handle above the last one is new, and a duplicate is looked for only when one was not). Two
  // spellings of one number ("AB", "00AB") or handles beyond 2^53 may look equal here where the
  // reader tells them apart: the summary then does not stand, which costs a second reading only.
  private handles = new Float64Array(1024);
  private ordered = true;
  private readonly memo = new BoxMemo();

  /** Whether a record of `type` may be counted here (the caller checks the rest: `take`). */
  covers(type: string): boolean {
    return SLOT.has(type);
  }

  /**
   * Counts the ENTITIES record `r` of `type` with handle `handle` into `block` (model space when
   * `model`), boxing it with the drawing's blocks when in model space. False when it cannot be
   * counted without its record (its geometry read otherwise, attributes following, a handle some
   * record has): the caller reads it as always.
   */
  take(r: TagRecord, type: string, handle: string, owner: string, block: Block, model: boolean, doc: DxfDocument): boolean {
    const attrs = geometryAttrs(type, r);
    if (attrs === null || (type === 'INSERT' && attrs.attribs_follow)) return false;
    if (model) {
      const b = boundingBox({ kind: 'entity', type, handle, owner, attrs }, doc, this.memo);
      if (b) addBBoxToBox(this.modelBox, b);
    }
    this.noteHandle(handle);
    if (block !== this.lastBlock) {
      let slots = this.slots.get(block);
      if (slots === undefined) this.slots.set(block, (slots = new Int32Array(TYPES.length)));
      this.lastBlock = block;
      this.lastSlots = slots;
    }
    this.lastSlots[SLOT.get(type)!]!++;
    this.total++;
    return true;
  }

  private noteHandle(handle: string): void {
    const v = handleValue(handle);
    const n = this.total;
    if (n === this.handles.length) {
      const grown = new Float64Array(n * 2);
      grown.set(this.handles);
      this.handles = grown;
    }
    if (n > 0 && !(v > this.handles[n - 1]!)) this.ordered = false;
    this.handles[n] = v;
  }

  /** Whether a handle counted here is counted twice or is a record's of `doc`. */
  private handleConflict(doc: DxfDocument): boolean {
    let sorted = this.handles.subarray(0, this.total);
    if (!this.ordered) {
      sorted = sorted.slice().sort();
      for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) return true;
    }
    for (const rec of doc.records()) {
      if (rec.handle === '') continue;
      // (a record's handle need not be hex: such a one is no counted handle's)
      if (!/^[0-9A-F]+$/.test(rec.handle)) continue;
      const v = handleValue(rec.handle);
      let lo = 0;
      let hi = sorted.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const m = sorted[mid]!;
        if (m === v) return true;
        if (m < v) lo = mid + 1;
        else hi = mid - 1;
      }
    }
    return false;
  }

  /** How many entities of `block` were counted here. */
  countIn(block: Block): number {
    let n = 0;
    for (const c of this.slots.get(block) ?? []) n += c;
    return n;
  }

  /** The entities counted here, by type (every block). */
  countsByType(): Map<string, number> {
    const out = new Map<string, number>();
    for (const slots of this.slots.values()) {
      slots.forEach((n, i) => {
        if (n > 0) out.set(TYPES[i]!, (out.get(TYPES[i]!) ?? 0) + n);
      });
    }
    return out;
  }

  /**
   * Whether `doc` and this summary together say what a full read says: nothing counted, or a
   * read that repaired nothing (only `info` diagnostics) and no handle used twice.
   */
  trustworthy(doc: DxfDocument): boolean {
    return this.total === 0 || (doc.diagnostics.every((d) => d.level === 'info') && !this.handleConflict(doc));
  }
}
