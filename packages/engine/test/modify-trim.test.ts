// trim and extend: exact cut points, a circle trimmed to an arc with the right angles, pieces
// from the middle as two entities, implicit edges (visible entities only), undo, bad input, and
// the saved drawing read back by ezdxf.
import { describe, expect, it } from 'vitest';
import { active, dump, fails, ok } from './helpers.js';
import { close, drawing, ezdxfRead, get, hasEzdxf, undoable } from './modify-helpers.js';

const DEG = 180 / Math.PI;

describe('trim', () => {
  it('cuts a line between two edges into two lines, and an end piece back to its edge', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [10, 0], color: 5 },
      { type: 'Line', start: [3, -5], end: [3, 5] },
      { type: 'Line', start: [7, -5], end: [8, 5] },
    ]);
    const r = await undoable(e, 'trim', { handle: h[0], point: [5, 0.1], edges: [h[1], h[2]] });
    expect(r.modified).toEqual([h[0]]);
    expect(r.created).toHaveLength(1);
    const a = await get(e, h[0]), b = await get(e, r.created[0]);
    close(a.start, [0, 0, 0]);
    close(a.end, [3, 0, 0]);
    close(b.start, [7.5, 0, 0]);
    close(b.end, [10, 0, 0]);
    expect(b.color).toBe(5);
    // Implicit edges: the trimmed line now ends on the first edge and cuts it there.
    const end = await undoable(e, 'trim', { handle: h[1], point: [3, 4] });
    expect(end).toEqual({ created: [], modified: [h[1]], erased: [] });
    close((await get(e, h[1])).start, [3, -5, 0]);
    close((await get(e, h[1])).end, [3, 0, 0]);
  });

  it('makes a trimmed circle an arc with the right angles', async () => {
    const { e, h } = await drawing([
      { type: 'Circle', center: [0, 0], radius: 5, layer: 'C', color: 2 },
      { type: 'Line', start: [3, -10], end: [3, 10] },
    ]);
    const r = await undoable(e, 'trim', { handle: h[0], point: [5, 0] });
    expect(r.erased).toEqual([h[0]]);
    expect(r.created).toHaveLength(1);
    const a = await get(e, r.created[0]);
    expect(a).toMatchObject({ type: 'Arc', layer: 'C', color: 2, radius: 5 });
    const t = Math.atan2(4, 3) * DEG;
    expect(a.start_angle).toBeCloseTo(t, 9);
    expect(a.end_angle).toBeCloseTo(360 - t, 9);
    // The other side: the arc kept is the short one on the right.
    const { e: e2, h: h2 } = await drawing([{ type: 'Circle', center: [0, 0], radius: 5 }, { type: 'Line', start: [3, -10], end: [3, 10] }]);
    const r2 = await ok(e2, 'trim', { handle: h2[0], point: [-5, 0] });
    const a2 = await get(e2, r2.created[0]);
    expect(a2.start_angle).toBeCloseTo(360 - t, 9);
    expect(a2.end_angle).toBeCloseTo(t, 9);
    if (hasEzdxf) {
      const z = await ezdxfRead(e);
      expect(z.errors + z.fixes, z.messages.join('; ')).toBe(0);
      expect(z.entities[r.created[0]]).toMatchObject({ type: 'ARC', layer: 'C', color: 2 });
      expect(z.entities[r.created[0]]!.start_angle).toBeCloseTo(t, 9);
    }
  });

  it('trims polylines, arcs, ellipses and splines; spline pieces are the same curve', async () => {
    const { e, h } = await drawing([
      { type: 'LWPolyline', points: [[0, 0], [10, 0, 0, 0, 1], [10, 10], [0, 10]] },
      { type: 'Line', start: [5, -5], end: [5, 15] },
      { type: 'Ellipse', center: [20, 0], major_axis: [4, 0], ratio: 0.5 },
      { type: 'Line', start: [20, -5], end: [20, 5] },
      { type: 'Spline', control_points: [[30, 0], [33, 4], [37, -4], [40, 0]] },
      { type: 'Line', start: [35, -5], end: [35, 5] },
    ]);
    const p = await undoable(e, 'trim', { handle: h[0], point: [15, 5], edges: [h[1]] });
    expect(p.modified).toEqual([h[0]]);
    const pts = (await get(e, h[0])).points as number[][];
    close(pts[0]!, [0, 0]);
    close(pts[pts.length - 1]!, [5, 0]);
    const second = (await get(e, p.created[0])).points as number[][];
    close(second[0]!, [5, 10]);
    close(second[1]!, [0, 10]);
    const el = await undoable(e, 'trim', { handle: h[2], point: [24, 0], edges: [h[3]] });
    // A closed ellipse needs two cuts: the line meets it twice (top and bottom).
    const ell = await get(e, h[2]);
    expect(ell.type).toBe('Ellipse');
    expect(el.modified).toEqual([h[2]]);
    expect(ell.start_param).toBeCloseTo(Math.PI / 2, 9);
    expect(ell.end_param).toBeCloseTo((3 * Math.PI) / 2, 9);
    const s = await undoable(e, 'trim', { handle: h[4], point: [39, 0], edges: [h[5]] });
    expect(s.modified).toEqual([h[4]]);
    if (hasEzdxf) {
      const z = await ezdxfRead(e);
      expect(z.errors + z.fixes, z.messages.join('; ')).toBe(0);
      const sp = z.entities[h[4]!]!;
      close(sp.points[0], [30, 0, 0]);
      close(sp.points[sp.points.length - 1], [35, 0, 0], 1e-9);
    }
  });

  it('takes every visible entity as an edge when edges are absent, not those on hidden layers', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [10, 0] },
      { type: 'Line', start: [4, -1], end: [4, 1], layer: 'HIDDEN' },
      { type: 'Line', start: [6, -1], end: [6, 1] },
    ]);
    await ok(e, 'layer_set', { name: 'HIDDEN', on: false });
    const r = await ok(e, 'trim', { handle: h[0], point: [2, 0] });
    expect(r.modified).toEqual([h[0]]);
    close((await get(e, h[0])).start, [6, 0, 0]);
  });

  it('refuses no intersection, unknown handles and wrong types with the drawing unchanged', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [10, 0] },
      { type: 'Circle', center: [5, 5], radius: 1 },
      { type: 'Line', start: [5, -3], end: [5, 3] },
      { type: 'Text', value: 'x', position: [0, 0], height: 1 },
    ]);
    const before = dump(active(e).doc);
    const f = await fails(e, 'trim', { handle: h[0], point: [5, 0], edges: [h[1]] }, 'no_intersection');
    expect(f.error).toContain(h[0]);
    await fails(e, 'trim', { handle: h[1], point: [5, 4], edges: [h[2]] }, 'no_intersection');
    await fails(e, 'trim', { handle: 'ABCDE', point: [5, 0] }, 'entity_absent');
    await fails(e, 'trim', { handle: h[0], point: [5, 0], edges: ['ABCDE'] }, 'entity_absent');
    await fails(e, 'trim', { handle: h[3], point: [0, 0] }, 'wrong_type');
    await fails(e, 'trim', { handle: h[0], point: [Number.NaN, 0] }, 'invalid_request');
    expect(dump(active(e).doc)).toBe(before);
  });
});

describe('extend', () => {
  it('grows a line end to the first boundary, an arc along its circle, a polyline end segment', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [5, 0] },
      { type: 'Line', start: [8, -5], end: [8, 5] },
      { type: 'Line', start: [12, -5], end: [12, 5] },
      { type: 'Arc', center: [0, 20], radius: 5, start_angle: 90, end_angle: 180 },
      { type: 'Line', start: [-10, 17], end: [10, 17] },
      { type: 'LWPolyline', points: [[0, 40], [3, 40], [3, 42]] },
      { type: 'Line', start: [-10, 50], end: [10, 50] },
    ]);
    const r = await undoable(e, 'extend', { handle: h[0], point: [4, 0] });
    expect(r).toEqual({ created: [], modified: [h[0]], erased: [] });
    close((await get(e, h[0])).end, [8, 0, 0]);
    await undoable(e, 'extend', { handle: h[3], point: [-5, 20] });
    const a = await get(e, h[3]);
    expect(a.start_angle).toBeCloseTo(90, 9);
    // The arc's end (180°) runs on counter-clockwise to y = 17: angle 180 + asin(3/5).
    expect(a.end_angle).toBeCloseTo(180 + Math.asin(3 / 5) * DEG, 9);
    await undoable(e, 'extend', { handle: h[5], point: [3, 41.9] });
    const p = (await get(e, h[5])).points as number[][];
    close(p[2]!, [3, 50]);
    // Already on a boundary: on to the next one, as AutoCAD does.
    const s = await undoable(e, 'extend', { handle: h[0], point: [7.9, 0], edges: [h[1], h[2]] });
    expect(s.modified).toEqual([h[0]]);
    close((await get(e, h[0])).end, [12, 0, 0]);
  });

  it('finds a far boundary along the ray, refuses with no_boundary when none', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [1, 1] },
      { type: 'Line', start: [1000, 0], end: [0, 1000] },
      { type: 'Line', start: [0, -5], end: [1, -5] },
    ]);
    await undoable(e, 'extend', { handle: h[0], point: [1, 1] });
    close((await get(e, h[0])).end, [500, 500, 0], 1e-7);
    const before = dump(active(e).doc);
    const f = await fails(e, 'extend', { handle: h[2], point: [1, -5] }, 'no_boundary');
    expect(f.error).toContain(h[2]);
    await fails(e, 'extend', { handle: h[1], point: [0, 1000], edges: [h[2]] }, 'no_boundary');
    expect(dump(active(e).doc)).toBe(before);
  });
});
