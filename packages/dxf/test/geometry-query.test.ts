import { describe, expect, it } from 'vitest';
import { containsPoint, distanceToPoint, flatten, intersections } from '../src/geometry/index.js';
import type { Vec3 } from '../src/types.js';
import { ent } from './geometry-helpers.js';

const sortPts = (p: Vec3[]) => [...p].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
function expectPts(got: Vec3[], want: number[][], digits = 9): void {
  expect(got.length).toBe(want.length);
  const g = sortPts(got);
  const w = [...want].sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  g.forEach((p, i) => {
    expect(p[0]).toBeCloseTo(w[i]![0]!, digits);
    expect(p[1]).toBeCloseTo(w[i]![1]!, digits);
  });
}

describe('intersections', () => {
  it('line-circle', () => {
    const c = ent('CIRCLE', { center: [0, 0, 0], radius: 5 });
    expectPts(intersections(ent('LINE', { start: [-10, 3, 0], end: [10, 3, 0] }), c), [[-4, 3], [4, 3]]);
    expectPts(intersections(ent('LINE', { start: [0, 0, 0], end: [10, 0, 0] }), c), [[5, 0]]);
    expectPts(intersections(ent('LINE', { start: [-10, 5, 0], end: [10, 5, 0] }), c), [[0, 5]], 6);
    expect(intersections(ent('LINE', { start: [-10, 6, 0], end: [10, 6, 0] }), c)).toEqual([]);
  });
  it('arc-arc respects the angle ranges', () => {
    const a = ent('ARC', { center: [0, 0, 0], radius: 5, start_angle: 0, end_angle: 90 });
    const b = ent('ARC', { center: [6, 0, 0], radius: 5, start_angle: 90, end_angle: 270 });
    expectPts(intersections(a, b), [[3, 4]]);
    const full = ent('CIRCLE', { center: [6, 0, 0], radius: 5 });
    expectPts(intersections(a, full), [[3, 4]]);
    expectPts(intersections(ent('CIRCLE', { center: [0, 0, 0], radius: 5 }), full), [[3, 4], [3, -4]]);
  });
  it('polyline with bulge against a line', () => {
    // half circle of radius 1 around (1,0) below the chord (bulge 1, ccw from (0,0) to (2,0))
    const p = ent('LWPOLYLINE', { points: [[0, 0, 0, 0, 1], [2, 0, 0, 0, 0], [2, 2, 0, 0, 0]] });
    const l = ent('LINE', { start: [1, -5, 0], end: [1, 5, 0] });
    expectPts(intersections(p, l), [[1, -1]]);
    const l2 = ent('LINE', { start: [-5, 1, 0], end: [5, 1, 0] });
    expectPts(intersections(p, l2), [[2, 1]]);
  });
  it('spline against a line (analytic: quadratic Bézier y = 2t(1-t)·2)', () => {
    // control points (0,0) (1,2) (2,0): x = 2t, y = 4t(1-t) = x(2-x)... y = 2x - x^2
    const s = ent('SPLINE', { degree: 2, knots: [0, 0, 0, 1, 1, 1], control_points: [[0, 0, 0], [1, 2, 0], [2, 0, 0]] });
    const l = ent('LINE', { start: [-1, 0.75, 0], end: [3, 0.75, 0] });
    // 2x - x^2 = 0.75 -> x = 0.5, 1.5
    expectPts(intersections(s, l), [[0.5, 0.75], [1.5, 0.75]], 8);
  });
  it('rays, xlines and ellipses', () => {
    const x = ent('XLINE', { start: [0, 0, 0], unit_vector: [1, 1, 0] });
    const r = ent('RAY', { start: [0, 0, 0], unit_vector: [1, 0, 0] });
    const c = ent('CIRCLE', { center: [0, 0, 0], radius: 2 });
    expectPts(intersections(x, c), [[-Math.SQRT2, -Math.SQRT2], [Math.SQRT2, Math.SQRT2]]);
    expectPts(intersections(r, c), [[2, 0]]);
    const el = ent('ELLIPSE', { center: [0, 0, 0], major_axis: [4, 0, 0], ratio: 0.5 });
    expectPts(intersections(ent('LINE', { start: [0, -5, 0], end: [0, 5, 0] }), el), [[0, -2], [0, 2]]);
    // ellipse vs circle radius 3: x²/16 + y²/4 = 1 and x² + y² = 9 -> x² = 20/3
    const xe = Math.sqrt(20 / 3);
    const ye = Math.sqrt(9 - 20 / 3);
    expectPts(intersections(el, ent('CIRCLE', { center: [0, 0, 0], radius: 3 })), [[-xe, -ye], [-xe, ye], [xe, -ye], [xe, ye]], 8);
  });
});

describe('distance and containment', () => {
  it('distanceToPoint', () => {
    expect(distanceToPoint(ent('LINE', { start: [0, 0, 0], end: [10, 0, 0] }), [5, 3, 0])).toBeCloseTo(3, 12);
    expect(distanceToPoint(ent('LINE', { start: [0, 0, 0], end: [10, 0, 0] }), [13, 4, 0])).toBeCloseTo(5, 12);
    expect(distanceToPoint(ent('CIRCLE', { center: [0, 0, 0], radius: 5 }), [0, 8, 0])).toBeCloseTo(3, 9);
    expect(distanceToPoint(ent('ARC', { center: [0, 0, 0], radius: 5, start_angle: 0, end_angle: 90 }), [0, -8, 0])).toBeCloseTo(Math.hypot(5, 8), 9);
    expect(distanceToPoint(ent('POINT', { location: [1, 1, 0] }), [4, 5, 0])).toBeCloseTo(5, 12);
  });
  it('containsPoint for closed shapes and open curves', () => {
    const c = ent('CIRCLE', { center: [0, 0, 0], radius: 5 });
    expect(containsPoint(c, [3, 3, 0])).toBe(true);
    expect(containsPoint(c, [4, 4, 0])).toBe(false);
    const p = ent('LWPOLYLINE', { points: [[0, 0, 0, 0, 0], [2, 0, 0, 0, 1], [2, 2, 0, 0, 0], [0, 2, 0, 0, 0]], flags: 1 });
    expect(containsPoint(p, [2.9, 1, 0])).toBe(true); // inside the bulge
    expect(containsPoint(p, [3.1, 1, 0])).toBe(false);
    const h = ent('HATCH', { paths: [
      { flags: 1, type: 'polyline', is_closed: true, vertices: [[0, 0, 0], [10, 0, 0], [10, 10, 0], [0, 10, 0]], source_handles: [] },
      { flags: 16, type: 'polyline', is_closed: true, vertices: [[4, 4, 0], [6, 4, 0], [6, 6, 0], [4, 6, 0]], source_handles: [] },
    ] });
    expect(containsPoint(h, [2, 2, 0])).toBe(true);
    expect(containsPoint(h, [5, 5, 0])).toBe(false);
    expect(containsPoint(ent('SOLID', { vtx0: [0, 0, 0], vtx1: [4, 0, 0], vtx2: [0, 4, 0], vtx3: [4, 4, 0] }), [2, 2, 0])).toBe(true);
    const line = ent('LINE', { start: [0, 0, 0], end: [10, 0, 0] });
    expect(containsPoint(line, [5, 0, 0])).toBe(true);
    expect(containsPoint(line, [5, 0.001, 0], 0.01)).toBe(true);
    expect(containsPoint(line, [5, 0.1, 0], 0.01)).toBe(false);
  });
  it('flatten stays within tolerance', () => {
    const [pts] = flatten(ent('CIRCLE', { center: [0, 0, 0], radius: 10 }), 0.01);
    expect(pts!.length).toBeGreaterThan(20);
    for (let i = 0; i + 1 < pts!.length; i++) {
      const a = pts![i]!;
      const b = pts![i + 1]!;
      const mid = Math.hypot((a[0] + b[0]) / 2, (a[1] + b[1]) / 2);
      expect(10 - mid).toBeLessThanOrEqual(0.0100001);
    }
    const poly = flatten(ent('LWPOLYLINE', { points: [[0, 0, 0, 0, 1], [2, 0, 0, 0, 0]] }), 0.001);
    expect(poly[0]![0]![0]).toBeCloseTo(0, 12);
    expect(poly[0]![0]![1]).toBeCloseTo(0, 12);
    const last = poly[0]![poly[0]!.length - 1]!;
    expect(last[0]).toBeCloseTo(2, 12);
  });
});
