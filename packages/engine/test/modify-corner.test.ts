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
      { type: 'Ellipse', center: [20, 20], major_axis: [2, 0], ratio: 0.5 },
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

describe('fillet of arcs and circles', () => {
  const hyp = (p: number[], q: number[]) => Math.hypot(p[0]! - q[0]!, p[1]! - q[1]!);
  /** The fillet arc touches a circle (c, r) from outside or inside: its centre at r ± radius, its end on the circle. */
  const touches = (f: any, c: number[], r: number) => {
    const d = hyp(f.center, c);
    expect(Math.min(Math.abs(d - (r + f.radius)), Math.abs(d - Math.abs(r - f.radius)))).toBeLessThan(1e-9);
    const ends = [at(f.center, f.radius, f.start_angle), at(f.center, f.radius, f.end_angle)];
    expect(Math.min(...ends.map((p) => Math.abs(hyp(p, c) - r)))).toBeLessThan(1e-9);
  };
  /** One end of an arc entity lies on point p. */
  const endsAt = (a: any, p: number[]) => expect(Math.min(hyp(at(a.center, a.radius, a.start_angle), p), hyp(at(a.center, a.radius, a.end_angle), p))).toBeLessThan(1e-9);
  const filletEnds = (f: any) => [at(f.center, f.radius, f.start_angle), at(f.center, f.radius, f.end_angle)];

  it('rounds two arcs: tangent to both within 1e-9, both trimmed to their tangent points', async () => {
    const { e, h } = await drawing([
      { type: 'Arc', center: [0, 0], radius: 5, start_angle: 0, end_angle: 180 },
      { type: 'Arc', center: [9, 0], radius: 5, start_angle: 0, end_angle: 180 },
    ]);
    const r = await undoable(e, 'fillet', { handles: [h[0], h[1]], radius: 1, points: [at([0, 0], 5, 120), at([9, 0], 5, 60)] });
    expect(r.modified.sort()).toEqual([h[0], h[1]].sort());
    const f = await get(e, r.created[0]);
    const cy = Math.sqrt(36 - 4.5 * 4.5);
    close(f.center, [4.5, cy, 0]);
    expect(f.radius).toBeCloseTo(1, 12);
    touches(f, [0, 0], 5);
    touches(f, [9, 0], 5);
    const a = await get(e, h[0]), b = await get(e, h[1]);
    const tA = Math.atan2(cy, 4.5) / DEG;
    expect(a.start_angle).toBeCloseTo(tA, 9);
    expect(a.end_angle).toBeCloseTo(180, 9);
    expect(b.start_angle).toBeCloseTo(0, 9);
    expect(b.end_angle).toBeCloseTo(180 - tA, 9);
    for (const [arc, p] of [[a, filletEnds(f)[0]!], [b, filletEnds(f)[1]!]] as const) endsAt(arc, p);
    // The fillet bows towards the crossing (below its centre), the short way.
    expect(Math.abs(((f.end_angle - f.start_angle + 360) % 360) - (180 - 2 * tA))).toBeLessThan(1e-9);
  });

  it('rounds a line and a circle (the circle left whole) and an arc and a circle', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [-10, 0], end: [10, 0] },
      { type: 'Circle', center: [0, 3], radius: 2, color: 2 },
      { type: 'Arc', center: [20, 0], radius: 5, start_angle: 90, end_angle: 270 },
      { type: 'Circle', center: [21, 0], radius: 1 },
    ]);
    const circleBefore = await get(e, h[1]);
    const r = await undoable(e, 'fillet', { handles: [h[0], h[1]], radius: 1, points: [[8, 0], [2, 3]] });
    expect(r).toMatchObject({ modified: [h[0]], erased: [] });
    expect(r.created).toHaveLength(1);
    const f = await get(e, r.created[0]);
    close(f.center, [Math.sqrt(5), 1, 0]);
    expect(Math.abs(f.center[1] - 1)).toBeLessThan(1e-9); // tangent to y = 0
    touches(f, [0, 3], 2);
    close((await get(e, h[0])).start, [Math.sqrt(5), 0, 0]);
    expect(await get(e, h[1])).toEqual(circleBefore);
    // An arc about a circle inside it: the fillet sits in the ring between them.
    const g = await undoable(e, 'fillet', { handles: [h[2], h[3]], radius: 2, points: [at([20, 0], 5, 200), at([21, 0], 1, 180)] });
    const f2 = await get(e, g.created[0]);
    expect(Math.abs(hyp(f2.center, [20, 0]) - 3)).toBeLessThan(1e-9); // 5 - 2
    expect(Math.abs(hyp(f2.center, [21, 0]) - 3)).toBeLessThan(1e-9); // 1 + 2
    expect(f2.center[1]).toBeLessThan(0); // the side of the picks (below the axis)
    touches(f2, [20, 0], 5);
    touches(f2, [21, 0], 1);
    endsAt(await get(e, h[2]), filletEnds(f2).reduce((p, q) => (Math.abs(hyp(p, [20, 0]) - 5) < Math.abs(hyp(q, [20, 0]) - 5) ? p : q)));
    if (hasEzdxf) {
      const z = await ezdxfRead(e);
      expect(z.errors + z.fixes, z.messages.join('; ')).toBe(0);
      expect(z.entities[h[1]!]).toMatchObject({ type: 'CIRCLE', radius: 2 });
    }
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
