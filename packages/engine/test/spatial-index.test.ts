// The spatial index's bulk load keys a large model space by handle later (in slices between
// requests, or at once on first use): every answer is the same as with the map filled at once.
import { describe, expect, it } from 'vitest';
import { SpatialIndex } from '../src/store/spatial.js';

const N = 120_000;
const entries = Array.from({ length: N }, (_, i) => ({ handle: (i + 0x100).toString(16).toUpperCase(), box: { min: [i, 0], max: [i + 1, 1] } }));

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
    await new Promise((r) => setImmediate(r));
    // some slices done, the rest pending: a change keys the rest first
    idx.set('105', { min: [500, 5], max: [501, 6] });
    expect(idx.size).toBe(N);
    expect(idx.box('105')).toMatchObject({ minX: 500, minY: 5 });
    expect(idx.search(500.1, 5.1, 500.2, 5.2).map((x) => x.handle)).toEqual(['105']);
    const other = new SpatialIndex();
    other.load(entries);
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    expect(other.size).toBe(N);
    expect([...other.all()].length).toBe(N);
    expect(other.has('100')).toBe(true);
  });
});
