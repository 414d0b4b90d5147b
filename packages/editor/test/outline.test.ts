// The geometry behind the modify commands' rubber bands (packages/editor/app/src/outline.ts):
// OFFSET's mitred parallel and its side, MIRROR's reflection, entities drawn as polylines.
import { describe, expect, it } from 'vitest';
import { nearest, offsetOutline, outlineOf, reflect } from '../app/src/outline.js';

describe('rubber-band geometry', () => {
  it('offsets a polyline to its left with mitred corners, and to its right with a negative distance', () => {
    const l: [number, number][][] = [[[0, 0], [10, 0], [10, 10]]];
    expect(offsetOutline(l, 1)).toEqual([[[0, 1], [9, 1], [9, 10]]]);
    expect(offsetOutline(l, -1)).toEqual([[[0, -1], [11, -1], [11, 10]]]);
  });

  it('tells the side and distance of a point: left of the segment\'s direction is 1', () => {
    const l: [number, number][][] = [[[0, 0], [10, 0], [10, 10]]];
    expect(nearest(l, [5, 3])).toEqual({ d: 3, side: 1 });
    expect(nearest(l, [5, -2])).toEqual({ d: 2, side: -1 });
    expect(nearest(l, [12, 5])).toEqual({ d: 2, side: -1 });
  });

  it('offsets a circle (counter-clockwise, left is inside) to a smaller closed one', () => {
    const [ring] = outlineOf({ handle: '1', type: 'Circle', center: [0, 0], radius: 5 });
    const gap = (l: [number, number][]): number => Math.hypot(l[0]![0] - l[l.length - 1]![0], l[0]![1] - l[l.length - 1]![1]);
    expect(gap(ring!)).toBeLessThan(1e-12);
    const [inner] = offsetOutline([ring!], 2);
    expect(gap(inner!)).toBe(0);
    for (const p of inner!) expect(Math.hypot(p[0], p[1])).toBeCloseTo(3, 1);
  });

  it('reflects about a line; a polyline\'s bulge is drawn as an arc through its middle', () => {
    expect(reflect([400, 0], [430, 0], [430, 10])).toEqual([460, 0]);
    const [half] = outlineOf({ handle: '2', type: 'LWPolyline', points: [[0, 0, 0, 0, 1], [10, 0, 0, 0, 0]], closed: false });
    // bulge 1: a half circle, counter-clockwise from (0,0) to (10,0), under the chord
    const low = Math.min(...half!.map((p) => p[1]));
    expect(low).toBeCloseTo(-5, 1);
    expect(half![half!.length - 1]).toEqual([10, 0]);
  });
});
