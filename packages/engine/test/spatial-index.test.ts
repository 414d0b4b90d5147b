// The spatial index's bulk load builds a large model space's tree and keys it by handle later (in
// slices between requests, or at once on first use): every answer is the same as with the tree
// built and the map filled at once.
import RBush from 'rbush';
import { describe, expect, it } from 'vitest';
import { SpatialIndex, type SpatialItem } from '../src/store/spatial.js';

const N = 120_000;
const entries = Array.from({ length: N }, (_, i) => ({ handle: (i + 0x100).toString(16).toUpperCase(), box: { min: [i, 0], max: [i + 1, 1] } }));

/** Boxes scattered over a square (a fixed sequence), so the bulk load's selections reorder them. */
function scattered(n: number): { handle: string; box: { min: number[]; max: number[] } }[] {
  let seed = 12345;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  return Array.from({ length: n }, (_, i) => {
    const x = rnd() * 1000, y = rnd() * 1000, w = rnd() * 5, h = rnd() * 5;
    return { handle: (i + 0x20).toString(16).toUpperCase(), box: { min: [x, y], max: [x + w, y + h] } };
  });
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
/** A tree written out depth first (each node's height, box and size, each leaf's handles): equal trees, equal strings. */
function shape(node: any): string {
  const out: string[] = [];
  const walk = (n: any): void => {
    out.push(`${n.height},${n.leaf},${n.minX},${n.minY},${n.maxX},${n.maxY},${n.children.length}`);
    if (n.leaf) out.push(n.children.map((c: SpatialItem) => c.handle).join(' '));
    else for (const c of n.children) walk(c);
  };
  walk(node);
  return out.join('\n');
}
const treeOf = (idx: SpatialIndex): string => shape((idx as unknown as { tree: RBush<SpatialItem> }).tree.toJSON());

describe('SpatialIndex bulk load', () => {
  it('answers size, all, box, has and search before its items are keyed, and after', async () => {
    const idx = new SpatialIndex();
    idx.load([...entries, { handle: 'NAN', box: { min: [NaN, 0], max: [1, 1] } }, { handle: 'NONE', box: null }]);
    expect(idx.size).toBe(N);
    expect([...idx.all()].length).toBe(N);
    expect(idx.search(10.5, 0, 11.5, 1).map((x) => x.handle).sort()).toEqual(['10A', '10B']);
    expect(idx.extents()).toEqual({ min: [0, 0], max: [N, 1] });
    // first use by handle keys them all
    expect(idx.has('NAN')).toBe(false);
    expect(idx.box((N - 1 + 0x100).toString(16).toUpperCase())?.minX).toBe(N - 1);
    expect(idx.size).toBe(N);
    idx.remove('100');
    expect(idx.size).toBe(N - 1);
    expect(idx.search(0.2, 0.2, 0.4, 0.4)).toEqual([]);
  });

  it('keys in slices between turns of the event loop; changes in between see every item', async () => {
    const idx = new SpatialIndex();
    idx.load(entries);
    await turn();
    // some slices done, the rest pending: a change keys the rest first
    idx.set('105', { min: [500, 5], max: [501, 6] });
    expect(idx.size).toBe(N);
    expect(idx.box('105')).toMatchObject({ minX: 500, minY: 5 });
    expect(idx.search(500.1, 5.1, 500.2, 5.2).map((x) => x.handle)).toEqual(['105']);
    const other = new SpatialIndex();
    other.load(entries);
    for (let i = 0; i < 200 && ([...other.all()].length !== other.size || (other as unknown as { building: unknown }).building); i++) await turn();
    expect(other.size).toBe(N);
    expect([...other.all()].length).toBe(N);
    expect(other.has('100')).toBe(true);
  });

  it('builds the tree rbush\'s bulk load builds, whether in slices or at once by a query', async () => {
    // over 16 x 8 192: the root and its children are taken in steps, their children built whole
    const list = scattered(150_000);
    const ref = new RBush<SpatialItem>(16);
    ref.load(list.map((e) => ({ minX: e.box.min[0]!, minY: e.box.min[1]!, maxX: e.box.max[0]!, maxY: e.box.max[1]!, handle: e.handle, ord: parseInt(e.handle, 16) })));
    const queries = [[0, 0, 1000, 1000], [100, 100, 140, 130], [500, 0, 501, 1000], [-5, -5, 3, 3], [990, 990, 2000, 2000]];
    const answers = (search: (a: number, b: number, c: number, d: number) => SpatialItem[]): string[][] => queries.map(([a, b, c, d]) => search(a!, b!, c!, d!).map((x) => x.handle));
    const want = answers((a, b, c, d) => ref.search({ minX: a, minY: b, maxX: c, maxY: d }));
    expect(want[1]!.length).toBeGreaterThan(20);
    const root = ref.toJSON();
    const refShape = shape(root);

    // in slices: the extents answer before the tree is done, the root's box once it is
    const sliced = new SpatialIndex();
    sliced.load(list);
    const early = sliced.extents();
    expect(early).toEqual({ min: [root.minX, root.minY], max: [root.maxX, root.maxY] });
    // the boxes are kept as arrays first: no item is made by the load itself
    expect((sliced as unknown as { flat: { n: number } | null }).flat?.n).toBe(list.length);
    expect((sliced as unknown as { unkeyed: unknown }).unkeyed).toBeNull();
    const flatArrays = sliced.boxArrays();
    for (let i = 0; i < 2000 && ((sliced as unknown as { building: unknown }).building || (sliced as unknown as { flat: unknown }).flat); i++) await turn();
    expect((sliced as unknown as { building: unknown }).building).toBeNull();
    expect((sliced as unknown as { flat: unknown }).flat).toBeNull();
    // the same boxes in the same order, as arrays, whether the items are made or not
    const madeArrays = sliced.boxArrays();
    expect([...madeArrays.boxes]).toEqual([...flatArrays.boxes]);
    expect(madeArrays.handles).toEqual(flatArrays.handles);
    expect([...madeArrays.ords]).toEqual([...flatArrays.ords]);
    expect(treeOf(sliced) === refShape).toBe(true);
    expect(sliced.extents()).toEqual(early);
    expect(answers((a, b, c, d) => sliced.search(a, b, c, d))).toEqual(want);

    // at once: the first search finishes the build (and answers as rbush does, in its order)
    const atOnce = new SpatialIndex();
    atOnce.load(list);
    expect(answers((a, b, c, d) => atOnce.search(a, b, c, d))).toEqual(want);
    expect(treeOf(atOnce) === refShape).toBe(true);

    // part-way: a few slices, then a change
    const partWay = new SpatialIndex();
    partWay.load(list);
    await turn();
    await turn();
    partWay.set('NEW', { min: [2000, 2000], max: [2001, 2002] });
    expect(partWay.extents()).toEqual({ min: [root.minX, root.minY], max: [2001, 2002] });
    expect(partWay.search(1999, 1999, 2003, 2003).map((x) => x.handle)).toEqual(['NEW']);
    expect(partWay.size).toBe(list.length + 1);
  });

  it('stopped (its document closed), it does nothing more by itself, and still answers rightly', async () => {
    const idx = new SpatialIndex();
    idx.load(entries);
    idx.stopLater();
    for (let i = 0; i < 20; i++) await turn();
    const state = idx as unknown as { building: unknown[] | null; unkeyed: unknown[] | null; flat: { n: number } | null };
    // nothing was done after the load: its boxes are still arrays
    expect(state.flat?.n).toBe(N);
    expect(state.building).toBeNull();
    expect(state.unkeyed).toBeNull();
    expect(idx.search(10.5, 0, 11.5, 1).map((x) => x.handle).sort()).toEqual(['10A', '10B']);
    expect(idx.box('10A')?.minX).toBe(10);
  });

  it('a load replaced while its tree is built leaves only the new content', async () => {
    const idx = new SpatialIndex();
    idx.load(scattered(60_000));
    await turn();
    idx.load(entries);
    for (let i = 0; i < 2000 && (idx as unknown as { building: unknown }).building; i++) await turn();
    expect(idx.size).toBe(N);
    expect(idx.extents()).toEqual({ min: [0, 0], max: [N, 1] });
    expect(idx.search(10.5, 0, 11.5, 1).map((x) => x.handle).sort()).toEqual(['10A', '10B']);
    expect(idx.search(0, 2, 1000, 1000)).toEqual([]);
  });
});
