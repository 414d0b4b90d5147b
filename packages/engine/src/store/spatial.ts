// The spatial index of one document's model space: an R-tree (rbush) of entity boxes, keyed by
// handle. Boxes are cached here, so extents and box queries never recompute geometry.
import RBush from 'rbush';

export interface SpatialItem {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  handle: string;
  /** Insertion order, used to return box-query hits in drawing order. */
  ord: number;
}

export class SpatialIndex {
  private tree = new RBush<SpatialItem>(16);
  private byHandle = new Map<string, SpatialItem>();
  /**
   * Items of the last bulk load not yet keyed by handle: an opened drawing's first frame needs the
   * tree, not the handle map (a million string keys cost about a second), so the map is filled on
   * its first use.
   */
  private unkeyed: SpatialItem[] | null = null;
  /** How many of `unkeyed` are in the map already (keyed in slices between requests). */
  private keyed = 0;

  private get items(): Map<string, SpatialItem> {
    this.keyUpTo(Infinity);
    return this.byHandle;
  }

  /** Keys the pending items up to `n` of them; while any are pending, the map holds exactly the first `keyed`. */
  private keyUpTo(n: number): void {
    const pending = this.unkeyed;
    if (!pending) return;
    const end = Math.min(n, pending.length);
    for (let i = this.keyed; i < end; i++) this.byHandle.set(pending[i]!.handle, pending[i]!);
    this.keyed = Math.max(this.keyed, end);
    if (this.keyed >= pending.length) {
      this.unkeyed = null;
      this.keyed = 0;
    }
  }

  /** Keys the pending items in slices, each after the I/O waiting (a request is not held up for long). */
  private keyInSlices(batch: SpatialItem[]): void {
    const step = (): void => {
      if (this.unkeyed !== batch) return;
      this.keyUpTo(this.keyed + 50_000);
      if (this.unkeyed === batch) setImmediate(step);
    };
    setImmediate(step);
  }

  get size(): number {
    return this.unkeyed ? this.byHandle.size + this.unkeyed.length - this.keyed : this.byHandle.size;
  }

  /**
   * Order key of a handle: its number. Handles grow with creation and undo restores them, so
   * sorting box hits by it gives drawing order without a table.
   */
  ord(handle: string): number {
    const n = parseInt(handle, 16);
    return Number.isFinite(n) ? n : 0;
  }

  /** Replaces the whole content (bulk load, used when a document is opened). */
  load(entries: { handle: string; box: { min: number[]; max: number[] } | null }[]): void {
    this.tree.clear();
    this.byHandle.clear();
    this.unkeyed = null;
    this.keyed = 0;
    const batch: SpatialItem[] = [];
    // a model space's handles are unique, so they are keyed later (see `items`)
    for (const e of entries) {
      const it = e.box ? toItem(e.handle, e.box, this.ord(e.handle)) : null;
      if (it) batch.push(it);
    }
    this.tree.load(batch);
    if (batch.length > 50_000) {
      this.unkeyed = batch;
      this.keyInSlices(batch);
    } else {
      for (const it of batch) this.byHandle.set(it.handle, it);
    }
  }

  /** Sets (or clears, with null) the box of one handle. */
  set(handle: string, box: { min: number[]; max: number[] } | null): void {
    this.remove(handle);
    const ord = this.ord(handle);
    if (!box) return;
    const it = toItem(handle, box, ord);
    if (!it) return;
    this.items.set(handle, it);
    this.tree.insert(it);
  }

  /** Adds many boxes at once (rbush bulk insertion into the existing tree). */
  addMany(entries: { handle: string; box: { min: number[]; max: number[] } | null }[]): void {
    this.removeMany(entries.map((e) => e.handle));
    const batch = this.track(entries);
    if (batch.length) this.tree.load(batch);
  }

  /** Items of the entries that have a finite box, recorded by handle (not yet in the tree). */
  private track(entries: { handle: string; box: { min: number[]; max: number[] } | null }[]): SpatialItem[] {
    const batch: SpatialItem[] = [];
    for (const e of entries) {
      if (!e.box) continue;
      const it = toItem(e.handle, e.box, this.ord(e.handle));
      if (!it) continue;
      this.items.set(e.handle, it);
      batch.push(it);
    }
    return batch;
  }

  /** Removes many handles; rebuilds the tree in bulk when they are a large share of it. */
  removeMany(handles: Iterable<string>): void {
    const doomed: SpatialItem[] = [];
    for (const h of handles) {
      const it = this.items.get(h);
      if (!it) continue;
      this.items.delete(h);
      doomed.push(it);
    }
    if (!doomed.length) return;
    if (doomed.length > 2000 && doomed.length * 4 > this.items.size) {
      this.tree.clear();
      this.tree.load([...this.items.values()]);
    } else {
      for (const it of doomed) this.tree.remove(it);
    }
  }

  remove(handle: string): void {
    const it = this.items.get(handle);
    if (!it) return;
    this.items.delete(handle);
    this.tree.remove(it);
  }

  /** Every indexed item (no order). */
  all(): Iterable<SpatialItem> {
    // while items are pending the map holds only some of them, all of which are in the pending list
    return this.unkeyed ?? this.byHandle.values();
  }

  has(handle: string): boolean {
    return this.items.has(handle);
  }

  box(handle: string): SpatialItem | undefined {
    return this.items.get(handle);
  }

  /** Items whose box intersects the query box. */
  search(minX: number, minY: number, maxX: number, maxY: number): SpatialItem[] {
    return this.tree.search({ minX, minY, maxX, maxY });
  }

  /** The box around every indexed entity (the R-tree's root box), or null when empty. */
  extents(): { min: [number, number]; max: [number, number] } | null {
    if (this.size === 0) return null;
    const root = (this.tree as unknown as { data: { minX: number; minY: number; maxX: number; maxY: number } }).data;
    return { min: [root.minX, root.minY], max: [root.maxX, root.maxY] };
  }
}

function toItem(handle: string, box: { min: number[]; max: number[] }, ord: number): SpatialItem | null {
  const minX = box.min[0], minY = box.min[1], maxX = box.max[0], maxY = box.max[1];
  // Number.isFinite is false for anything but a finite number (undefined included)
  if (!Number.isFinite(minX) || !Number.isFinite(minY) || !Number.isFinite(maxX) || !Number.isFinite(maxY)) return null;
  return { minX: minX!, minY: minY!, maxX: maxX!, maxY: maxY!, handle, ord };
}
