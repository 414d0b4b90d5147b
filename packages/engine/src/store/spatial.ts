// The spatial index of one document's model space: an R-tree (rbush) of entity boxes, keyed by
// handle. Boxes are cached here, so extents and box queries never recompute geometry.
import quickselect from 'quickselect';
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

/** A node of rbush's tree (what its toJSON gives and fromJSON takes). */
interface TreeNode {
  children: (TreeNode | SpatialItem)[];
  height: number;
  leaf: boolean;
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/** The parts of rbush 4 its bulk load is made of (`load` is `_build` on a copy of the items). */
interface RBushBuild {
  _maxEntries: number;
  _build(items: SpatialItem[], left: number, right: number, height: number): TreeNode;
}

/** Bulk loads above this many boxes build the tree and key the handles later, in slices. */
const LATER = 50_000;
/** Milliseconds of deferred work done in one turn of the event loop. */
const SLICE_MS = 15;

const byMinX = (a: SpatialItem, b: SpatialItem): number => a.minX - b.minX;
const byMinY = (a: SpatialItem, b: SpatialItem): number => a.minY - b.minY;

/**
 * rbush's multiSelect (groups of n items, the groups ordered between each other) one quickselect
 * per call: the same selections in the same order, so the same order of items. True when done.
 */
function multiSelectStep(arr: SpatialItem[], left: number, right: number, n: number, compare: (a: SpatialItem, b: SpatialItem) => number): () => boolean {
  const stack = [left, right];
  return () => {
    while (stack.length) {
      const r = stack.pop()!;
      const l = stack.pop()!;
      if (r - l <= n) continue;
      const mid = l + Math.ceil((r - l) / n / 2) * n;
      quickselect(arr, mid, l, r, compare);
      stack.push(l, mid, mid, r);
      return stack.length === 0;
    }
    return true;
  };
}

/** Subtrees of up to this many items are built by rbush in one step (a few milliseconds). */
const STEP_ITEMS = 8192;

/**
 * rbush's bulk load (`load` into an empty tree) cut into steps: each node above STEP_ITEMS items
 * takes its tiles (its multiSelects, a quickselect a step), its subtrees follow (smaller ones
 * built by rbush itself in one step), then the node is put together. These are the steps
 * `_build` takes, in its order, so the tree is the one `load` makes (the same search answers, in
 * the same order), but no step holds the process for long.
 */
function bulkLoadSteps(tree: RBush<SpatialItem>, batch: SpatialItem[]): (() => boolean)[] {
  const rb = tree as unknown as RBushBuild;
  const items = batch.slice();
  const steps: (() => boolean)[] = [];
  /** The steps of `_build(items, left, right, height)`, whose node `done` receives. */
  const build = (left: number, right: number, height: number, done: (node: TreeNode) => void): void => {
    const N = right - left + 1;
    if (N <= STEP_ITEMS) {
      steps.push(() => {
        done(rb._build(items, left, right, height));
        return true;
      });
      return;
    }
    let M = rb._maxEntries;
    if (!height) {
      height = Math.ceil(Math.log(N) / Math.log(M));
      M = Math.ceil(N / Math.pow(M, height - 1));
    }
    const node: TreeNode = { children: [], height, leaf: false, minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
    const N2 = Math.ceil(N / M);
    const N1 = N2 * Math.ceil(Math.sqrt(M));
    steps.push(multiSelectStep(items, left, right, N1, byMinX));
    for (let i = left; i <= right; i += N1) {
      const right2 = Math.min(i + N1 - 1, right);
      steps.push(multiSelectStep(items, i, right2, N2, byMinY));
      for (let j = i; j <= right2; j += N2) build(j, Math.min(j + N2 - 1, right2), height - 1, (child) => node.children.push(child));
    }
    steps.push(() => {
      for (const c of node.children) {
        node.minX = Math.min(node.minX, c.minX);
        node.minY = Math.min(node.minY, c.minY);
        node.maxX = Math.max(node.maxX, c.maxX);
        node.maxY = Math.max(node.maxY, c.maxY);
      }
      done(node);
      return true;
    });
  };
  build(0, items.length - 1, 0, (root) => tree.fromJSON(root));
  return steps;
}

/**
 * The boxes of a large load before its items are made: four numbers a box (minX, minY, maxX, maxY)
 * in typed arrays, the order keys and handles beside them. A million items (an object and four
 * numbers each) made while a drawing opens were most of the garbage collector's work then.
 */
export interface FlatBoxes {
  readonly n: number;
  readonly boxes: Float64Array;
  readonly ords: Float64Array;
  readonly handles: readonly string[];
  /** Handles of the loaded entries that had no finite box, in their order (a flat load's only). */
  readonly missing: readonly string[] | null;
}

export class SpatialIndex {
  private tree = new RBush<SpatialItem>(16);
  private byHandle = new Map<string, SpatialItem>();
  /**
   * Items of the last bulk load not yet keyed by handle: an opened drawing's first frame needs the
   * boxes, not the handle map (a million string keys cost about a second), so the map is filled
   * on its first use or in slices between requests.
   */
  private unkeyed: SpatialItem[] | null = null;
  /** How many of `unkeyed` are in the map already (keyed in slices between requests). */
  private keyed = 0;
  /**
   * What is left of the last bulk load's tree (see bulkLoadSteps): the tree is not needed for the
   * first frame either, so it is built in slices too, or at once by the first query that needs it.
   */
  private building: (() => boolean)[] | null = null;
  private built = 0;
  /** The box around the last bulk load's items, the tree's root box to be (while it is built). */
  private loadedExtents: { min: [number, number]; max: [number, number] } | null = null;
  /** The load the deferred work belongs to: a later load leaves the earlier one's slices nothing to do. */
  private later: object | null = null;
  /** A large load whose items are not made yet (the first of its deferred steps), and how many are. */
  private flat: FlatBoxes | null = null;
  private made: SpatialItem[] = [];

  private get items(): Map<string, SpatialItem> {
    this.makeItems(Infinity);
    this.keyUpTo(Infinity);
    return this.byHandle;
  }

  /** The tree, built first when a bulk load left it pending. */
  private get rtree(): RBush<SpatialItem> {
    this.makeItems(Infinity);
    while (this.building) this.buildStep();
    return this.tree;
  }

  /** Makes the pending flat load's items up to `n` of them; once all are, their tree and keys follow. */
  private makeItems(n: number): void {
    const flat = this.flat;
    if (!flat) return;
    const made = this.made;
    const end = Math.min(n, flat.n);
    const { boxes, ords, handles } = flat;
    for (let i = made.length; i < end; i++) {
      const k = 4 * i;
      made.push({ minX: boxes[k]!, minY: boxes[k + 1]!, maxX: boxes[k + 2]!, maxY: boxes[k + 3]!, handle: handles[i]!, ord: ords[i]! });
    }
    if (made.length < flat.n) return;
    this.flat = null;
    this.made = [];
    if (!made.length) return;
    this.unkeyed = made;
    this.keyed = 0;
    this.building = bulkLoadSteps(this.tree, made);
    this.built = 0;
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

  /** Takes one piece of the pending tree build (one selection, or one subtree of the root). */
  private buildStep(): void {
    const steps = this.building;
    if (!steps) return;
    if (steps[this.built]!()) this.built++;
    if (this.built >= steps.length) {
      this.building = null;
      this.built = 0;
      this.loadedExtents = null;
    }
  }

  /**
   * Does the deferred work of a load a slice at a time, each after the I/O waiting (a request is
   * not held up for long), the first after `afterMs` (0: at the next turn of the event loop).
   */
  private finishLater(afterMs = 0): void {
    const load = {};
    this.later = load;
    const step = (): void => {
      if (this.later !== load) return;
      const t0 = performance.now();
      do {
        if (this.flat) this.makeItems(this.made.length + 10_000);
        else if (this.building) this.buildStep();
        else if (this.unkeyed) this.keyUpTo(this.keyed + 10_000);
        else break;
      } while (performance.now() - t0 < SLICE_MS);
      if (this.flat || this.building || this.unkeyed) setImmediate(step);
      else this.later = null;
    };
    if (afterMs > 0) setTimeout(step, afterMs);
    else setImmediate(step);
  }

  /** Whether slices of a load are still to come (other deferred work of the document waits for them). */
  get working(): boolean {
    return this.later !== null;
  }

  /**
   * Stops the slices (the document was closed): whatever is left is done only if something still
   * asks, so the answers stay right, and a closed drawing costs no more time.
   */
  stopLater(): void {
    this.later = null;
  }

  get size(): number {
    if (this.flat) return this.flat.n;
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
    this.loadFrom(entries, (e) => e.handle, (e) => e.box);
  }

  /**
   * `load` of anything with a handle and a box, without making the entries first. `laterAfterMs`:
   * a large load's deferred work starts that long after (what the load's caller does next comes
   * first; a query that needs the work meanwhile does it at once).
   */
  loadFrom<T>(list: readonly T[], handleOf: (x: T) => string, boxOf: (x: T) => { min: number[]; max: number[] } | null, laterAfterMs = 0): void {
    if (list.length > LATER) {
      this.loadFlat(list, handleOf, boxOf, laterAfterMs);
      return;
    }
    const batch: SpatialItem[] = [];
    for (const x of list) {
      const box = boxOf(x);
      if (!box) continue;
      const handle = handleOf(x);
      const it = toItem(handle, box, this.ord(handle));
      if (it) batch.push(it);
    }
    // replaced only now: a `boxOf` that throws (a request past its deadline) leaves the index as it was
    this.emptied();
    this.later = null;
    this.flat = null;
    this.tree.load(batch);
    for (const it of batch) this.byHandle.set(it.handle, it);
  }

  /**
   * A large load: the boxes go into typed arrays (FlatBoxes); their items, the tree and the
   * handle map are made after it, in slices, or at once by the first query that needs them.
   */
  private loadFlat<T>(list: readonly T[], handleOf: (x: T) => string, boxOf: (x: T) => { min: number[]; max: number[] } | null, laterAfterMs: number): void {
    const boxes = new Float64Array(4 * list.length);
    const ords = new Float64Array(list.length);
    const handles: string[] = [];
    const missing: string[] = [];
    let n = 0;
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (const x of list) {
      const box = boxOf(x);
      const handle = handleOf(x);
      const x0 = box?.min[0], y0 = box?.min[1], x1 = box?.max[0], y1 = box?.max[1];
      // as toItem: anything but four finite numbers is no box
      if (!Number.isFinite(x0) || !Number.isFinite(y0) || !Number.isFinite(x1) || !Number.isFinite(y1)) {
        missing.push(handle);
        continue;
      }
      const k = 4 * n;
      boxes[k] = x0!;
      boxes[k + 1] = y0!;
      boxes[k + 2] = x1!;
      boxes[k + 3] = y1!;
      ords[n] = this.ord(handle);
      handles.push(handle);
      n++;
      if (x0! < minX) minX = x0!;
      if (y0! < minY) minY = y0!;
      if (x1! > maxX) maxX = x1!;
      if (y1! > maxY) maxY = y1!;
    }
    // replaced only now: a `boxOf` that throws (a request past its deadline) leaves the index as it was
    this.emptied();
    this.loadedExtents = n ? { min: [minX, minY], max: [maxX, maxY] } : null;
    // a model space's handles are unique, so they are keyed later (see `items`)
    this.flat = { n, boxes, ords, handles, missing };
    this.finishLater(laterAfterMs);
  }

  /** The tree, the handle map and the deferred building emptied (before a new load). */
  private emptied(): void {
    this.tree.clear();
    this.byHandle.clear();
    this.unkeyed = null;
    this.keyed = 0;
    this.building = null;
    this.built = 0;
    this.loadedExtents = null;
    this.made = [];
  }

  /**
   * Every indexed box as arrays, in the index's order (a pass over all of them, such as planning
   * a display's parts, makes no item of a load still pending). `missing` is known only then.
   */
  boxArrays(): FlatBoxes {
    if (this.flat && this.made.length === 0) return this.flat;
    const items = [...this.all()];
    const boxes = new Float64Array(4 * items.length);
    const ords = new Float64Array(items.length);
    const handles: string[] = new Array<string>(items.length);
    for (let i = 0; i < items.length; i++) {
      const it = items[i]!;
      boxes[4 * i] = it.minX;
      boxes[4 * i + 1] = it.minY;
      boxes[4 * i + 2] = it.maxX;
      boxes[4 * i + 3] = it.maxY;
      ords[i] = it.ord;
      handles[i] = it.handle;
    }
    return { n: items.length, boxes, ords, handles, missing: null };
  }

  /** Sets (or clears, with null) the box of one handle. */
  set(handle: string, box: { min: number[]; max: number[] } | null): void {
    this.remove(handle);
    const ord = this.ord(handle);
    if (!box) return;
    const it = toItem(handle, box, ord);
    if (!it) return;
    this.items.set(handle, it);
    this.rtree.insert(it);
  }

  /** Adds many boxes at once (rbush bulk insertion into the existing tree). */
  addMany(entries: { handle: string; box: { min: number[]; max: number[] } | null }[]): void {
    this.removeMany(entries.map((e) => e.handle));
    const batch = this.track(entries);
    if (batch.length) this.rtree.load(batch);
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
      // rebuilt from scratch: a tree still being built is not needed
      this.building = null;
      this.built = 0;
      this.loadedExtents = null;
      this.tree.clear();
      this.tree.load([...this.items.values()]);
    } else {
      for (const it of doomed) this.rtree.remove(it);
    }
  }

  remove(handle: string): void {
    const it = this.items.get(handle);
    if (!it) return;
    this.items.delete(handle);
    this.rtree.remove(it);
  }

  /** Every indexed item (no order). */
  all(): Iterable<SpatialItem> {
    this.makeItems(Infinity);
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
    return this.rtree.search({ minX, minY, maxX, maxY });
  }

  /** The box around every indexed entity (the R-tree's root box), or null when empty. */
  extents(): { min: [number, number]; max: [number, number] } | null {
    if (this.size === 0) return null;
    // while the tree is built, the box its root will have (the same union of the same boxes)
    if (this.loadedExtents) return { min: [...this.loadedExtents.min], max: [...this.loadedExtents.max] };
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
