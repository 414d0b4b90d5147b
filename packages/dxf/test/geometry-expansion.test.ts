// What expanding a block reference costs, counted before expanding (expansion.ts), and the boxes
// of references too large to expand: their blocks' boxes through the corner cells.
import { afterEach, describe, expect, it } from 'vitest';
import {
  BudgetError, GEOMETRY_LIMITS, blockExpansion, boundingBox, checkReference, entityGeometry, referenceExpansion, setGeometryLimits,
} from '../src/geometry/index.js';
import { addPrimToBox } from '../src/geometry/bbox.js';
import { emptyBox } from '../src/geometry/curves.js';
import { close, docWith, ent } from './geometry-helpers.js';

const DEFAULTS = { ...GEOMETRY_LIMITS };
afterEach(() => setGeometryLimits(DEFAULTS));

const line = (x: number) => ent('LINE', { start: [x, 0, 0], end: [x, 1, 0] });

/** Blocks L1 (`leaves` lines) ... Ln (ten inserts of the level below, spread along x). */
function nested(levels: number, leaves = 10) {
  const blocks: Record<string, { entities: ReturnType<typeof ent>[] }> = { L1: { entities: Array.from({ length: leaves }, (_, i) => line(i)) } };
  for (let l = 2; l <= levels; l++) {
    blocks[`L${l}`] = { entities: Array.from({ length: 10 }, (_, i) => ent('INSERT', { name: `L${l - 1}`, insert: [i * 20 ** (l - 1), 0, 0] })) };
  }
  return docWith(blocks);
}

describe('expansion counts', () => {
  it('MINSERT cells times the block, multiplied down the nesting, inserts and attributes counted', () => {
    const doc = nested(6);
    expect(blockExpansion(doc, 'L1')).toBe(10);
    expect(blockExpansion(doc, 'L2')).toBe(110);
    expect(blockExpansion(doc, 'L6')).toBe(1_111_110);
    const arr = ent('INSERT', { name: 'L1', column_count: 1_000_000, row_count: 1_000_000 }, [ent('ATTRIB', { tag: 'T', text: 'x' })]);
    expect(referenceExpansion(arr, doc)).toBe(1e13 + 1);
    expect(referenceExpansion(ent('INSERT', { name: 'NOPE' }), doc)).toBe(0);
  });

  it('a block inside itself counts its own entities once; deeper than the limit is unbounded', () => {
    const self = docWith({ S: { entities: [line(0), ent('INSERT', { name: 'S' }), ent('INSERT', { name: 'S' })] } });
    expect(blockExpansion(self, 'S')).toBe(3);
    expect(entityGeometry(ent('INSERT', { name: 'S' }), self).prims).toHaveLength(1);
    setGeometryLimits({ maxDepth: 4 });
    expect(blockExpansion(nested(6), 'L6')).toBe(Infinity);
    expect(blockExpansion(nested(4), 'L4')).toBe(11_110);
  });

  it('checkReference refuses before expanding; geometry refuses too', () => {
    const doc = nested(2);
    const big = ent('INSERT', { name: 'L2', column_count: 10_000, row_count: 10_000 });
    expect(() => checkReference(big, doc)).toThrow(BudgetError);
    const t = performance.now();
    expect(() => entityGeometry(big, doc)).toThrow(/would expand to 1\.10e\+10 entities/);
    expect(performance.now() - t).toBeLessThan(100);
    try {
      checkReference(big, doc);
    } catch (err) {
      expect(err).toMatchObject({ budget: 'expanded_entities', limit: 1_000_000, requested: 1.1e10 });
    }
  });
});

describe('boxes of references', () => {
  it('a 1e6 x 1e6 array is boxed by its corner cells, at once', () => {
    const doc = docWith({ B: { entities: [ent('LINE', { start: [0, 0, 0], end: [1, 1, 0] })] } });
    const arr = ent('INSERT', { name: 'B', insert: [5, 5, 0], column_count: 1_000_000, row_count: 1_000_000, column_spacing: 2, row_spacing: 3 });
    const t = performance.now();
    const b = boundingBox(arr, doc)!;
    expect(performance.now() - t).toBeLessThan(50);
    expect(close(b.min, [5, 5, 0])).toBe(true);
    expect(close(b.max, [5 + 2 * 999_999 + 1, 5 + 3 * 999_999 + 1, 0])).toBe(true);
  });

  it('large nested references: the blocks\' boxes carried through; equal to the exact box when unrotated', () => {
    // L5 expands to 21 110 entities: past the 20 000 boxed exactly
    const doc = nested(5, 1);
    expect(blockExpansion(doc, 'L5')).toBe(21_110);
    const ref = ent('INSERT', { name: 'L5', insert: [100, 0, 0], xscale: 2 });
    const fast = boundingBox(ref, doc)!;
    // the exact box, from the expanded geometry
    const exact = emptyBox();
    for (const p of entityGeometry(ref, doc).prims) addPrimToBox(exact, p);
    expect(close(fast.min, [exact[0]!, exact[1]!, exact[2]!])).toBe(true);
    expect(close(fast.max, [exact[3]!, exact[4]!, exact[5]!])).toBe(true);
    // rotated: never smaller than the exact box
    const rot = ent('INSERT', { name: 'L5', rotation: 30 });
    const r = boundingBox(rot, doc)!;
    const ex = emptyBox();
    for (const p of entityGeometry(rot, doc).prims) addPrimToBox(ex, p);
    expect(r.min[0]).toBeLessThanOrEqual(ex[0]! + 1e-9);
    expect(r.max[1]).toBeGreaterThanOrEqual(ex[4]! - 1e-9);
  });

  it('a spline over its budget is boxed by its control points without evaluating it', () => {
    const cps = Array.from({ length: 30_000 }, (_, i) => [i, Math.sin(i) * 5, 0]);
    const sp = ent('SPLINE', { degree: 3, control_points: cps });
    const b = boundingBox(sp)!;
    expect(b.max[0]).toBe(29_999);
    expect(() => entityGeometry(sp)).toThrow(/30000 control points; the budget is 20000/);
    const deg = ent('SPLINE', { degree: 12, control_points: cps.slice(0, 20) });
    expect(() => entityGeometry(deg)).toThrow(/degree 12; the budget is 11/);
  });
});
