// break and join: exact pieces, a circle broken counter-clockwise into an arc, collinear lines
// and co-circular arcs joined, lines and arcs chained into one polyline, bad input, undo, ezdxf.
import { describe, expect, it } from 'vitest';
import { active, dump, fails } from './helpers.js';
import { close, drawing, ezdxfRead, get, hasEzdxf, undoable } from './modify-helpers.js';

describe('break', () => {
  it('splits a line at a point and removes the part between two points', async () => {
    const { e, h } = await drawing([{ type: 'Line', start: [0, 0], end: [10, 0], layer: 'L' }, { type: 'Line', start: [0, 5], end: [10, 5] }]);
    const r = await undoable(e, 'break', { handle: h[0], points: [[4, 0.5]] });
    expect(r.modified).toEqual([h[0]]);
    close((await get(e, h[0])).end, [4, 0, 0]);
    const n = await get(e, r.created[0]);
    expect(n.layer).toBe('L');
    close(n.start, [4, 0, 0]);
    close(n.end, [10, 0, 0]);
    const g = await undoable(e, 'break', { handle: h[1], points: [[7, 5], [2, 5]] });
    close((await get(e, h[1])).end, [2, 5, 0]);
    close((await get(e, g.created[0])).start, [7, 5, 0]);
  });

  it('breaks a circle counter-clockwise from the first point to the second into an arc', async () => {
    const { e, h } = await drawing([{ type: 'Circle', center: [0, 0], radius: 2 }]);
    const r = await undoable(e, 'break', { handle: h[0], points: [[2, 0], [0, 2]] });
    expect(r.erased).toEqual([h[0]]);
    const a = await get(e, r.created[0]);
    expect(a.type).toBe('Arc');
    expect(a.start_angle).toBeCloseTo(90, 9);
    expect(a.end_angle).toBeCloseTo(0, 9);
    if (hasEzdxf) {
      const z = await ezdxfRead(e);
      expect(z.errors + z.fixes, z.messages.join('; ')).toBe(0);
      expect(z.entities[r.created[0]]!.start_angle).toBeCloseTo(90, 9);
    }
  });

  it('refuses one point on a circle, an end point, unknown handles and wrong types', async () => {
    const { e, h } = await drawing([{ type: 'Circle', center: [0, 0], radius: 2 }, { type: 'Line', start: [0, 0], end: [1, 0] }, { type: 'Point', location: [0, 0] }]);
    const before = dump(active(e).doc);
    await fails(e, 'break', { handle: h[0], points: [[2, 0]] }, 'invalid_point');
    await fails(e, 'break', { handle: h[1], points: [[1, 0]] }, 'invalid_point');
    await fails(e, 'break', { handle: 'F00D', points: [[1, 0]] }, 'entity_absent');
    await fails(e, 'break', { handle: h[2], points: [[0, 0]] }, 'wrong_type');
    await fails(e, 'break', { handle: h[1], points: [] }, 'invalid_request');
    expect(dump(active(e).doc)).toBe(before);
  });
});

describe('join', () => {
  it('joins collinear lines into one, co-circular arcs into one arc or a circle', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [3, 0] },
      { type: 'Line', start: [5, 0], end: [9, 0] },
      { type: 'Arc', center: [0, 10], radius: 2, start_angle: 0, end_angle: 90 },
      { type: 'Arc', center: [0, 10], radius: 2, start_angle: 120, end_angle: 200 },
      { type: 'Arc', center: [20, 0], radius: 1, start_angle: 0, end_angle: 180 },
      { type: 'Arc', center: [20, 0], radius: 1, start_angle: 180, end_angle: 360 },
    ]);
    const r = await undoable(e, 'join', { handles: [h[0], h[1]] });
    expect(r).toEqual({ created: [], modified: [h[0]], erased: [h[1]] });
    close((await get(e, h[0])).end, [9, 0, 0]);
    await undoable(e, 'join', { handles: [h[2], h[3]] });
    const a = await get(e, h[2]);
    expect(a.start_angle).toBeCloseTo(0, 9);
    expect(a.end_angle).toBeCloseTo(200, 9);
    const c = await undoable(e, 'join', { handles: [h[4], h[5]] });
    expect((await get(e, c.created[0])).type).toBe('Circle');
  });

  it('chains lines and arcs end to end into one closed polyline with bulges', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [10, 0], color: 6 },
      { type: 'Arc', center: [10, 5], radius: 5, start_angle: 270, end_angle: 90 },
      { type: 'Line', start: [0, 10], end: [10, 10] },
      { type: 'Line', start: [0, 10], end: [0, 0] },
    ]);
    const r = await undoable(e, 'join', { handles: h });
    expect(r.created).toHaveLength(1);
    expect(r.erased.sort()).toEqual([...h].sort());
    const p = await get(e, r.created[0]);
    expect(p).toMatchObject({ type: 'LWPolyline', color: 6, flags: 1 });
    const pts = (p.points as number[][]).map((q) => [q[0]!, q[1]!, q[4]!]);
    expect(pts).toHaveLength(4);
    close(pts[0]!, [0, 0, 0]);
    close(pts[1]!, [10, 0, 1]);
    close(pts[2]!, [10, 10, 0]);
    close(pts[3]!, [0, 10, 0]);
    if (hasEzdxf) {
      const z = await ezdxfRead(e);
      expect(z.errors + z.fixes, z.messages.join('; ')).toBe(0);
      expect(z.entities[r.created[0]]!.closed).toBe(true);
    }
  });

  it('refuses entities that do not meet, and wrong types', async () => {
    const { e, h } = await drawing([{ type: 'Line', start: [0, 0], end: [1, 0] }, { type: 'Line', start: [5, 5], end: [6, 7] }, { type: 'Circle', center: [0, 0], radius: 1 }]);
    const before = dump(active(e).doc);
    const f = await fails(e, 'join', { handles: [h[0], h[1]] }, 'not_connected');
    expect(f.error).toContain(h[1]);
    await fails(e, 'join', { handles: [h[0], h[2]] }, 'wrong_type');
    await fails(e, 'join', { handles: [h[0]] }, 'invalid_request');
    expect(dump(active(e).doc)).toBe(before);
  });
});
