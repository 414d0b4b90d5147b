// offset: exact geometry of lines, arcs, circles and polylines with bulges (corners extended to
// meet, as OFFSETGAPTYPE 0), splines of ellipses and splines within tolerance, bad input, undo,
// and the saved drawing read back by ezdxf.
import { describe, expect, it } from 'vitest';
import { active, call, dump, fails } from './helpers.js';
import { close, drawing, ezdxfRead, get, hasEzdxf, undoable } from './modify-helpers.js';

describe('offset', () => {
  it('offsets a line to the side of a point, copying layer, colour, linetype and lineweight', async () => {
    const { e, h } = await drawing([{ type: 'Line', start: [0, 0], end: [10, 0], layer: 'WALLS', color: 3, lineweight: 50, linetype: 'Continuous' }]);
    const r = await undoable(e, 'offset', { handle: h[0], distance: 2, side: [4, -7] });
    expect(r.modified).toEqual([]);
    expect(r.erased).toEqual([]);
    expect(r.created).toHaveLength(1);
    const l = await get(e, r.created[0]);
    expect(l).toMatchObject({ type: 'Line', layer: 'WALLS', color: 3, lineweight: 50, linetype: 'Continuous' });
    close(l.start, [0, -2, 0]);
    close(l.end, [10, -2, 0]);
    const t = await undoable(e, 'offset', { handle: h[0], through: [3, 5] });
    const l2 = await get(e, t.created[0]);
    close(l2.start, [0, 5, 0]);
    close(l2.end, [10, 5, 0]);
  });

  it('offsets arcs and circles concentrically; inward past the centre is offset_impossible', async () => {
    const { e, h } = await drawing([
      { type: 'Circle', center: [1, 2], radius: 5 },
      { type: 'Arc', center: [0, 0], radius: 3, start_angle: 10, end_angle: 100 },
    ]);
    const out = await undoable(e, 'offset', { handle: h[0], distance: 1.5, side: [1, 3] });
    const c = await get(e, out.created[0]);
    expect(c.type).toBe('Circle');
    close(c.center, [1, 2, 0]);
    expect(c.radius).toBeCloseTo(3.5, 12);
    const big = await undoable(e, 'offset', { handle: h[0], distance: 1.5, side: [20, 2] });
    expect((await get(e, big.created[0])).radius).toBeCloseTo(6.5, 12);
    const before = dump(active(e).doc);
    const f = await fails(e, 'offset', { handle: h[0], distance: 5, side: [1, 2.5] }, 'offset_impossible');
    expect(f.error).toContain(h[0]);
    expect(dump(active(e).doc)).toBe(before);
    const a = await undoable(e, 'offset', { handle: h[1], distance: 1, side: [10, 10] });
    const arc = await get(e, a.created[0]);
    expect(arc).toMatchObject({ type: 'Arc', radius: 4 });
    expect(arc.start_angle).toBeCloseTo(10, 9);
    expect(arc.end_angle).toBeCloseTo(100, 9);
  });

  it('offsets a polyline with an arc: right bulges, lines extended to their corners', async () => {
    const { e, h } = await drawing([
      { type: 'LWPolyline', points: [[0, 0, 0, 0, 0], [10, 0, 0, 0, 1], [10, 10, 0, 0, 0], [0, 10]] },
      { type: 'LWPolyline', points: [[0, 0], [10, 0], [10, 10], [0, 10]], closed: true },
    ]);
    const r = await undoable(e, 'offset', { handle: h[0], distance: 1, side: [5, 5] });
    const p = await get(e, r.created[0]);
    expect(p.type).toBe('LWPolyline');
    const pts = p.points as number[][];
    expect(pts).toHaveLength(4);
    close(pts[0]!, [0, 1]);
    close(pts[1]!, [10, 1]);
    expect(pts[1]![4]).toBeCloseTo(1, 12); // a half circle of radius 4 about (10, 5)
    close(pts[2]!, [10, 9]);
    close(pts[3]!, [0, 9]);
    const sq = await undoable(e, 'offset', { handle: h[1], distance: 1, side: [20, 5] });
    const s = (await get(e, sq.created[0])).points as number[][];
    expect(s.map((q) => [q[0], q[1]])).toEqual([[-1, -1], [11, -1], [11, 11], [-1, 11]]);
    const inner = await undoable(e, 'offset', { handle: h[1], distance: 2, side: [5, 5] });
    const si = (await get(e, inner.created[0])).points as number[][];
    expect(si.map((q) => [q[0], q[1]])).toEqual([[2, 2], [8, 2], [8, 8], [2, 8]]);
    if (hasEzdxf) {
      const z = await ezdxfRead(e);
      expect(z.errors + z.fixes, z.messages.join('; ')).toBe(0);
      const ez = z.entities[r.created[0]]!;
      expect(ez.type).toBe('LWPOLYLINE');
      close(ez.points[1], [10, 1, 1]);
    }
  });

  it('offsets a rounded rectangle (arcs tangent to their lines) both ways; refuses an offset that folds over', async () => {
    const q = Math.tan(Math.PI / 8);
    const { e, h } = await drawing([
      { type: 'LWPolyline', closed: true, points: [[1, 0], [9, 0, 0, 0, q], [10, 1], [10, 9, 0, 0, q], [9, 10], [1, 10, 0, 0, q], [0, 9], [0, 1, 0, 0, q]] },
      { type: 'LWPolyline', closed: true, points: [[0, 0], [20, 0], [20, 5], [5, 5], [5, 20], [0, 20]] },
    ]);
    const out = await undoable(e, 'offset', { handle: h[0], distance: 0.5, side: [50, 50] });
    const p = (await get(e, out.created[0])).points as number[][];
    expect(p.map((v) => [v[0], v[1]])).toEqual([[1, -0.5], [9, -0.5], [10.5, 1], [10.5, 9], [9, 10.5], [1, 10.5], [-0.5, 9], [-0.5, 1]].map((v) => v.map((x) => expect.closeTo(x, 12))));
    for (const i of [1, 3, 5, 7]) expect(p[i]![4]).toBeCloseTo(q, 12);
    const inward = await undoable(e, 'offset', { handle: h[0], distance: 0.25, side: [5, 5] });
    close((await get(e, inward.created[0])).points[1], [9, 0.25, 0, 0, q]);
    const ok1 = await undoable(e, 'offset', { handle: h[1], distance: 1, side: [2, 10] });
    expect(((await get(e, ok1.created[0])).points as number[][]).map((v) => [v[0], v[1]])).toEqual([[1, 1], [19, 1], [19, 4], [4, 4], [4, 19], [1, 19]]);
    const before = dump(active(e).doc);
    const f = await fails(e, 'offset', { handle: h[1], distance: 3, side: [2, 10] }, 'offset_impossible');
    expect(f.error).toContain(h[1]);
    expect(dump(active(e).doc)).toBe(before);
  });

  it('offsets an ellipse and a spline as splines within the tolerance', async () => {
    const { e, h } = await drawing([
      { type: 'Ellipse', center: [0, 0], major_axis: [10, 0], ratio: 0.5 },
      { type: 'Spline', control_points: [[0, 0], [3, 4], [7, 4], [10, 0]] },
    ]);
    const r = await undoable(e, 'offset', { handle: h[0], distance: 1, side: [20, 0], tolerance: 1e-6 });
    const s = await get(e, r.created[0]);
    expect(s.type).toBe('Spline');
    // Every point of the offset lies at distance 1 from the ellipse.
    const ell = (t: number) => [10 * Math.cos(t), 5 * Math.sin(t)];
    const distToEllipse = (p: number[]) => {
      let best = Infinity, bt = 0;
      for (let i = 0; i < 4000; i++) { const t = (i / 4000) * 2 * Math.PI; const q = ell(t); const d = Math.hypot(p[0]! - q[0]!, p[1]! - q[1]!); if (d < best) { best = d; bt = t; } }
      let lo = bt - 0.002, hi = bt + 0.002;
      for (let k = 0; k < 100; k++) {
        const m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        const d1 = Math.hypot(p[0]! - ell(m1)[0]!, p[1]! - ell(m1)[1]!), d2 = Math.hypot(p[0]! - ell(m2)[0]!, p[1]! - ell(m2)[1]!);
        if (d1 < d2) hi = m2; else lo = m1;
      }
      const q = ell((lo + hi) / 2);
      return Math.hypot(p[0]! - q[0]!, p[1]! - q[1]!);
    };
    if (hasEzdxf) {
      const z = await ezdxfRead(e);
      expect(z.errors + z.fixes, z.messages.join('; ')).toBe(0);
      for (const p of z.entities[r.created[0]]!.points as number[][]) expect(Math.abs(distToEllipse(p) - 1)).toBeLessThan(1e-5);
    }
    const inward = await call(e, 'offset', { handle: h[0], distance: 3, side: [0, 0] });
    expect(inward.code).toBe('offset_impossible'); // past the smallest radius of curvature, 2.5
    const sp = await undoable(e, 'offset', { handle: h[1], distance: 0.5, side: [5, 10] });
    expect((await get(e, sp.created[0])).type).toBe('Spline');
  });

  it('works in the OCS of a mirrored arc (extrusion -Z)', async () => {
    const { e, h } = await drawing([{ type: 'Arc', center: [0, 0], radius: 3, start_angle: 0, end_angle: 90 }]);
    await undoable(e, 'set_properties', { handles: [h[0]], properties: { extrusion: [0, 0, -1] } });
    // In the drawing plane the arc now runs from (-3, 0) clockwise to (0, 3).
    const r = await undoable(e, 'offset', { handle: h[0], distance: 1, side: [-10, 10] });
    const a = await get(e, r.created[0]);
    expect(a.radius).toBeCloseTo(4, 12);
    expect(a.extrusion).toEqual([0, 0, -1]);
    expect(a.start_angle).toBeCloseTo(0, 9);
    expect(a.end_angle).toBeCloseTo(90, 9);
  });

  it('refuses bad input with the drawing unchanged', async () => {
    const { e, h } = await drawing([{ type: 'Line', start: [0, 0], end: [10, 0] }, { type: 'Text', value: 'x', position: [0, 0], height: 1 }]);
    const before = dump(active(e).doc);
    await fails(e, 'offset', { handle: 'FFFF', distance: 1, side: [0, 1] }, 'entity_absent');
    const w = await fails(e, 'offset', { handle: h[1], distance: 1, side: [0, 1] }, 'wrong_type');
    expect(w.error).toContain(h[1]);
    await fails(e, 'offset', { handle: h[0], distance: 0, side: [0, 1] }, 'invalid_request');
    await fails(e, 'offset', { handle: h[0], distance: -2, side: [0, 1] }, 'invalid_request');
    await fails(e, 'offset', { handle: h[0], distance: Number.NaN, side: [0, 1] }, 'invalid_request');
    await fails(e, 'offset', { handle: h[0], distance: 1, side: [Number.POSITIVE_INFINITY, 1] }, 'invalid_request');
    await fails(e, 'offset', { handle: h[0], distance: 1, side: [5, 0] }, 'invalid_point');
    await fails(e, 'offset', { handle: h[0], through: [5, 0] }, 'invalid_point');
    await fails(e, 'offset', { handle: h[0] }, 'invalid_request');
    expect(dump(active(e).doc)).toBe(before);
  });
});
