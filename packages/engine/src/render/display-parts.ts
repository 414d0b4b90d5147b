// A large model space sent to a screen in parts, the part around the view first: the screen draws
// as soon as the first part arrives instead of waiting for the whole display list. The model's
// extents are cut into a grid; each entity belongs to the cell holding its box's centre; cells are
// taken in order of distance from the view's centre (cells meeting the view before the others) and
// gathered into parts that grow from `first` entities to `most`. Entities the spatial index does
// not hold (no finite box) come last. Every part is rendered with the same origin and tolerance, so
// the parts together are the whole list.
import type { DocStore } from '../store/document-store.js';
import { findLayout } from './layouts.js';
import { round } from './encode.js';

export interface DisplayPartsOptions {
  layout?: string;
  /** The screen's view [x1, y1, x2, y2] in drawing units (default: the extents, a screen fitting them). */
  view?: [number, number, number, number];
  /** Entities in the first part (default 20 000); a layout with no more is sent whole. */
  first?: number;
  /** Largest part (default 100 000, the `display_list` op's `handles` limit). */
  most?: number;
}

export interface DisplayPartsPlan {
  /** What every part's coordinates are relative to. */
  origin: [number, number];
  /** The model's extents [x1, y1, x2, y2]: a screen fits them before the parts are all in. */
  extents: [number, number, number, number];
  /** Handles of each part, in drawing order within a part. */
  parts: string[][];
}

/** The parts of a large model space, or null when it is sent whole (paper space, small, empty). */
export function planDisplayParts(store: DocStore, opts: DisplayPartsOptions = {}): DisplayPartsPlan | null {
  const first = opts.first ?? 20_000;
  const most = Math.max(first, opts.most ?? 100_000);
  const layout = findLayout(store.doc, opts.layout);
  if (!layout || layout.block.name.toUpperCase() !== '*MODEL_SPACE') return null;
  const all = layout.block.entities;
  const ext = store.index.extents();
  if (all.length <= first || !ext) return null;
  const [x0, y0] = ext.min;
  const [x1, y1] = ext.max;
  const w = x1 - x0 || 1, h = y1 - y0 || 1;
  // about 4 000 entities a cell: fine enough for a first part around the view, few enough to sort
  const side = Math.max(2, Math.min(256, Math.ceil(Math.sqrt(store.index.size / 4000))));
  const cellCount = side * side;
  // the items' cells and each cell's count: typed arrays, no list per cell (a million items); the
  // boxes as arrays, so a drawing just opened is planned before its index has items (spatial.ts)
  const { n: count0, boxes, ords, handles, missing } = store.index.boxArrays();
  const cellOf = new Int32Array(count0);
  const count = new Int32Array(cellCount);
  for (let i = 0; i < count0; i++) {
    const k = 4 * i;
    const cx = Math.min(side - 1, Math.max(0, Math.floor((((boxes[k]! + boxes[k + 2]!) / 2 - x0) / w) * side)));
    const cy = Math.min(side - 1, Math.max(0, Math.floor((((boxes[k + 1]! + boxes[k + 3]!) / 2 - y0) / h) * side)));
    const c = cy * side + cx;
    cellOf[i] = c;
    count[c]!++;
  }
  const view = opts.view ?? [x0, y0, x1, y1];
  const vx = (view[0] + view[2]) / 2, vy = (view[1] + view[3]) / 2;
  const diag = Math.hypot(w, h);
  const key = new Float64Array(cellCount);
  for (let cy = 0; cy < side; cy++) {
    for (let cx = 0; cx < side; cx++) {
      const a = x0 + (cx * w) / side, b = y0 + (cy * h) / side, c = a + w / side, d = b + h / side;
      const meets = c >= Math.min(view[0], view[2]) && a <= Math.max(view[0], view[2]) && d >= Math.min(view[1], view[3]) && b <= Math.max(view[1], view[3]);
      // cells meeting the view sort before every other (their key is below the diagonal)
      key[cy * side + cx] = Math.hypot((a + c) / 2 - vx, (b + d) / 2 - vy) + (meets ? 0 : 2 * diag);
    }
  }
  // cells nearest the view first (a stable sort: equal keys in grid order)
  const order = Array.from({ length: cellCount }, (_, i) => i).sort((p, q) => key[p]! - key[q]!);
  const rank = new Int32Array(cellCount);
  for (let r = 0; r < cellCount; r++) rank[order[r]!] = r;
  // The parts, cell by cell: a cell that would overfill the part starts the next one (parts grow
  // from `first` to `most`); a cell larger than a part (entities piled on one spot) is split.
  // Each cell's first item goes to part `startPart`, which already holds `startFill` items.
  const startPart = new Int32Array(cellCount);
  const startFill = new Int32Array(cellCount);
  let part = 0, fill = 0, size = first;
  const next = (): void => {
    part++;
    fill = 0;
    size = Math.min(most, size * 2);
  };
  for (const c of order) {
    const n = count[c]!;
    if (fill && fill + n > size) next();
    startPart[c] = part;
    startFill[c] = fill;
    for (let left = n; left > 0;) {
      const k = Math.min(left, most - fill);
      fill += k;
      left -= k;
      if (fill >= most) next();
    }
  }
  const partCount = fill ? part + 1 : part;
  // each item to its part, in the order of the index (its place in its cell counted)
  const seen = new Int32Array(cellCount);
  const members: number[][] = Array.from({ length: partCount }, () => []);
  for (let i = 0; i < count0; i++) {
    const c = cellOf[i]!;
    const at = startFill[c]! + seen[c]!++;
    const p = at < most ? startPart[c]! : startPart[c]! + Math.floor(at / most);
    members[p]!.push(i);
  }
  // drawing order within a part (handle order: ties, which unique handles never make, in the
  // order the cells were taken)
  const parts: string[][] = members.map((m) => {
    let sorted = true;
    for (let k = 1; k < m.length && sorted; k++) if (ords[m[k - 1]!]! >= ords[m[k]!]!) sorted = false;
    if (!sorted) m.sort((p, q) => ords[p]! - ords[q]! || rank[cellOf[p]!]! - rank[cellOf[q]!]! || p - q);
    return m.map((i) => handles[i]!);
  });
  // the index holds model space's entities that have a box: when it holds them all, none is left
  // (a load still pending lists those it left out, with the model space unchanged since)
  const rest: string[] = [];
  if (missing && count0 + missing.length === all.length) for (const h of missing) rest.push(h);
  else if (store.index.size < all.length) for (const e of all) if (!store.index.has(e.handle)) rest.push(e.handle);
  for (let i = 0; i < rest.length; i += most) parts.push(rest.slice(i, i + most));
  return { origin: [round((x0 + x1) / 2), round((y0 + y1) / 2)], extents: [x0, y0, x1, y1], parts };
}
