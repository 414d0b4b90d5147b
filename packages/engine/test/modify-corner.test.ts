// fillet and chamfer: arcs tangent to both curves within 1e-9, sharp corners, half circles of
// parallel lines, line + arc, polyline corners as bulges, bevels, bad input, undo, ezdxf reload.
import { describe, expect, it } from 'vitest';
import { active, dump, fails, ok } from './helpers.js';
import { close, drawing, ezdxfRead, get, hasEzdxf, undoable } from './modify-helpers.js';

const DEG = Math.PI / 180;
const at = (c: number[], r: number, deg: number) => [c[0]! + r * Math.cos(deg * DEG), c[1]! + r * Math.sin(deg * DEG)];
/** Distance from p to the infinite line through a and b. */
const lineDist = (p: number[], a: number[], b: number[]) => Math.abs((b[0]! - a[0]!) * (p[1]! - a[1]!) - (b[1]! - a[1]!) * (p[0]! - a[0]!)) / Math.hypot(b[0]! - a[0]!, b[1]! - a[1]!);

describe('fillet', () => {
  it('rounds two lines with an arc tangent to both, keeping the picked sides', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [12, 0], layer: 'A', color: 4 },
      { type: 'Line', start: [10, -3], end: [10, 10] },
    ]);
    const r = await undoable(e, 'fillet', { handles: [h[0], h[1]], radius: 2, points: [[2, 0], [10, 8]] });
    expect(r.modified.sort()).toEqual([h[0], h[1]].sort());
    expect(r.created).toHaveLength(1);
    const a = await get(e, h[0]), b = await get(e, h[1]), arc = await get(e, r.created[0]);
    close(a.start, [0, 0, 0]);
    close(a.end, [8, 0, 0]);
    close(b.start, [10, 2, 0]);
    close(b.end, [10, 10, 0]);
    expect(arc).toMatchObject({ type: 'Arc', layer: 'A', color: 4 });
    close(arc.center, [8, 2, 0]);
    expect(arc.radius).toBeCloseTo(2, 12);
    expect(arc.start_angle).toBeCloseTo(270, 9);
    expect(arc.end_angle).toBeCloseTo(0, 9);
  });

  it('is tangent within 1e-9 on lines at any angle; radius 0 makes a sharp corner', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [1, 1], end: [11, 4] },
      { type: 'Line', start: [2, 9], end: [9, -1] },
    ]);
    const r = await ok(e, 'fillet', { handles: [h[0], h[1]], radius: 1.7 });
    const a = await get(e, h[0]), b = await get(e, h[1]), arc = await get(e, r.created[0]);
    for (const [l, o] of [[a, [1, 1, 11, 4]], [b, [2, 9, 9, -1]]] as const) {
      expect(Math.abs(lineDist(arc.center, [o[0], o[1]], [o[2], o[3]]) - 1.7)).toBeLessThan(1e-9);
      // One end of each trimmed line is an end of the arc.
      const ends = [at(arc.center, arc.radius, arc.start_angle), at(arc.center, arc.radius, arc.end_angle)];
      const d = Math.min(...ends.flatMap((p) => [l.start, l.end].map((q: number[]) => Math.hypot(p[0]! - q[0]!, p[1]! - q[1]!))));
      expect(d).toBeLessThan(1e-9);
    }
    // Radius 0 on a fresh pair: both lines end on their crossing.
    const { e: e2, h: h2 } = await drawing([{ type: 'Line', start: [0, 0], end: [5, 0] }, { type: 'Line', start: [8, 1], end: [8, 9] }]);
    const z = await undoable(e2, 'fillet', { handles: [h2[0], h2[1]], radius: 0 });
    expect(z.created).toEqual([]);
    close((await get(e2, h2[0])).end, [8, 0, 0]);
    close((await get(e2, h2[1])).start, [8, 0, 0]);
  });

  it('joins parallel lines with a half circle', async () => {
    const { e, h } = await drawing([{ type: 'Line', start: [0, 0], end: [10, 0] }, { type: 'Line', start: [0, 4], end: [7, 4] }]);
    const r = await undoable(e, 'fillet', { handles: [h[0], h[1]], radius: 1 });
    const arc = await get(e, r.created[0]);
    close(arc.center, [10, 2, 0]);
    expect(arc.radius).toBeCloseTo(2, 12);
    expect(arc.start_angle).toBeCloseTo(270, 9);
    expect(arc.end_angle).toBeCloseTo(90, 9);
    close((await get(e, h[1])).end, [10, 4, 0]);
  });

  it('rounds a line and an arc: tangent to both, the arc trimmed to its tangent point', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [-10, 0], end: [10, 0] },
      { type: 'Arc', center: [0, 2.5], radius: 2, start_angle: 180, end_angle: 360 },
    ]);
    const pick = at([0, 2.5], 2, 200);
    const r = await undoable(e, 'fillet', { handles: [h[0], h[1]], radius: 1, points: [[8, 0], pick] });
    const f = await get(e, r.created[0]);
    const cx = Math.sqrt(9 - 1.5 * 1.5);
    close(f.center, [cx, 1, 0]);
    expect(Math.abs(f.center[1] - 1)).toBeLessThan(1e-9); // tangent to the line y = 0
    expect(Math.abs(Math.hypot(f.center[0], f.center[1] - 2.5) - 3)).toBeLessThan(1e-9); // externally tangent to the arc
    close((await get(e, h[0])).start, [cx, 0, 0]);
    const arc = await get(e, h[1]);
    expect(arc.start_angle).toBeCloseTo(180, 9);
    expect(arc.end_angle).toBeCloseTo(330, 9);
  });

  it('rounds two segments of one polyline, or every corner with polyline: true (bulges)', async () => {
    const { e, h } = await drawing([
      { type: 'LWPolyline', points: [[0, 0], [10, 0], [10, 10]] },
      { type: 'LWPolyline', points: [[20, 0], [30, 0], [30, 10], [20, 10]], closed: true },
    ]);
    const r = await undoable(e, 'fillet', { handles: [h[0], h[0]], radius: 2, points: [[5, 0], [10, 5]] });
    expect(r).toEqual({ created: [], modified: [h[0]], erased: [] });
    const p = (await get(e, h[0])).points as number[][];
    expect(p).toHaveLength(4);
    close(p[1]!, [8, 0, 0, 0, Math.tan(Math.PI / 8)]);
    close(p[2]!, [10, 2, 0, 0, 0]);
    await undoable(e, 'fillet', { handles: [h[1]], radius: 1, polyline: true });
    const q = (await get(e, h[1])).points as number[][];
    expect(q).toHaveLength(8);
    for (let i = 0; i < 8; i += 2) expect(q[i]![4]).toBeCloseTo(Math.tan(Math.PI / 8), 12);
    close(q[0]!, [20, 1]);
    close(q[1]!, [21, 0]);
    if (hasEzdxf) {
      const z = await ezdxfRead(e);
      expect(z.errors + z.fixes, z.messages.join('; ')).toBe(0);
      expect(z.entities[h[1]!]!.points).toHaveLength(8);
    }
  });

  it('refuses a radius too large, wrong types, unknown handles with the drawing unchanged', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [3, 0] },
      { type: 'Line', start: [3, 0], end: [3, 3] },
      { type: 'Circle', center: [20, 20], radius: 1 },
      { type: 'LWPolyline', points: [[0, 10], [10, 10], [10, 20], [20, 20]] },
    ]);
    const before = dump(active(e).doc);
    const f = await fails(e, 'fillet', { handles: [h[0], h[1]], radius: 50 }, 'radius_too_large');
    expect(f.error).toContain(h[0]);
    await fails(e, 'fillet', { handles: [h[0], h[2]], radius: 1 }, 'wrong_type');
    await fails(e, 'fillet', { handles: [h[0], 'DEAD'], radius: 1 }, 'entity_absent');
    await fails(e, 'fillet', { handles: [h[0], h[1]], radius: -1 }, 'invalid_request');
    await fails(e, 'fillet', { handles: [h[3], h[3]], radius: 1, points: [[5, 10], [15, 20]] }, 'not_adjacent');
    await fails(e, 'fillet', { handles: [h[0], h[1]], radius: Number.POSITIVE_INFINITY }, 'invalid_request');
    expect(dump(active(e).doc)).toBe(before);
  });
});

describe('chamfer', () => {
  it('bevels two lines at the distances, and every polyline corner', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [10, 0], color: 1 },
      { type: 'Line', start: [10, 0], end: [10, 10] },
      { type: 'LWPolyline', points: [[20, 0], [30, 0], [30, 10], [20, 10]], closed: true },
    ]);
    const r = await undoable(e, 'chamfer', { handles: [h[0], h[1]], distances: [2, 3] });
    const l = await get(e, r.created[0]);
    expect(l).toMatchObject({ type: 'Line', color: 1 });
    close(l.start, [8, 0, 0]);
    close(l.end, [10, 3, 0]);
    close((await get(e, h[0])).end, [8, 0, 0]);
    close((await get(e, h[1])).start, [10, 3, 0]);
    await undoable(e, 'chamfer', { handles: [h[2]], distances: [1, 1], polyline: true });
    const q = (await get(e, h[2])).points as number[][];
    expect(q.map((p) => [p[0], p[1], p[4]])).toEqual([[20, 1, 0], [21, 0, 0], [29, 0, 0], [30, 1, 0], [30, 9, 0], [29, 10, 0], [21, 10, 0], [20, 9, 0]]);
    if (hasEzdxf) {
      const z = await ezdxfRead(e);
      expect(z.errors + z.fixes, z.messages.join('; ')).toBe(0);
    }
  });

  it('refuses parallel lines, distances too long or negative', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [10, 0] },
      { type: 'Line', start: [0, 5], end: [10, 5] },
      { type: 'Line', start: [10, 0], end: [10, 2] },
    ]);
    const before = dump(active(e).doc);
    await fails(e, 'chamfer', { handles: [h[0], h[1]], distances: [1, 1] }, 'parallel');
    await fails(e, 'chamfer', { handles: [h[0], h[2]], distances: [1, 5] }, 'distance_too_large');
    await fails(e, 'chamfer', { handles: [h[0], h[2]], distances: [-1, 1] }, 'invalid_request');
    expect(dump(active(e).doc)).toBe(before);
  });
});
