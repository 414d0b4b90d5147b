// hatch by point and by boundary: the region found around a point (islands as holes, normal
// style), exact areas, gaps reported, the spatial index keeping the search local, undo, ezdxf.
import { describe, expect, it } from 'vitest';
import { active, dump, engine, fails, ok } from './helpers.js';
import { loopArea } from '../src/construct-more/boundary.js';

type Loop = [number, number, number][];

function hatchArea(e: ReturnType<typeof engine>, h: string): number {
  const rec = active(e).doc.get(h) as unknown as { attrs: { paths: { vertices: Loop }[] } };
  // even-odd over the paths: the outer loop counter-clockwise, islands clockwise
  return rec.attrs.paths.reduce((s, p) => s + loopArea(p.vertices), 0);
}

async function room(e: ReturnType<typeof engine>) {
  return (await ok(e, 'entities_create', {
    entities: [
      { type: 'Line', start: [0, 0], end: [10, 0] },
      { type: 'Line', start: [10, 0], end: [10, 8] },
      { type: 'Line', start: [10, 8], end: [0, 8] },
      { type: 'Line', start: [0, 8], end: [0, 0] },
      { type: 'Circle', center: [3, 3], radius: 1 },
      { type: 'LWPolyline', points: [[6, 1], [9, 1], [9, 4], [6, 4]], closed: true },
      { type: 'Circle', center: [7.5, 2.5], radius: 0.5 },
      // a wall stub: dangling, it must not change the region
      { type: 'Line', start: [10, 5], end: [8, 5] },
    ],
  })).handles as string[];
}

describe('hatch by point', () => {
  it('hatches the room with its islands (normal style): exact area', async () => {
    const e = engine();
    await room(e);
    const before = dump(active(e).doc);
    const r = await ok(e, 'hatch', { point: [1, 7], pattern: 'ANSI31' });
    expect(r).toEqual({ created: [expect.any(String)], modified: [], erased: [] });
    const area = hatchArea(e, r.created[0]);
    expect(area).toBeCloseTo(80 - Math.PI - 9 + Math.PI / 4, 9);
    const rec = active(e).doc.get(r.created[0]) as { attrs: Record<string, unknown> };
    expect(rec.attrs.pattern_name).toBe('ANSI31');
    expect((rec.attrs.pattern_lines as unknown[]).length).toBeGreaterThan(0);
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
  });

  it('hatches an island from inside it, and a region bounded by arcs and lines', async () => {
    const e = engine();
    await room(e);
    const r = await ok(e, 'hatch', { point: [3, 3.2] });
    expect(hatchArea(e, r.created[0])).toBeCloseTo(Math.PI, 9);
    // between the square and the small circle: the square with the circle as a hole
    const s = await ok(e, 'hatch', { point: [6.5, 3.5] });
    expect(hatchArea(e, s.created[0])).toBeCloseTo(9 - Math.PI / 4, 9);
    // a D shape: a line and an arc crossing it
    const f = engine();
    await ok(f, 'entities_create', { entities: [
      { type: 'Line', start: [-5, 0], end: [5, 0] },
      { type: 'Arc', center: [0, 0], radius: 3, start_angle: 0, end_angle: 180 },
    ] });
    const d = await ok(f, 'hatch', { point: [0, 1] });
    expect(hatchArea(f, d.created[0])).toBeCloseTo((Math.PI * 9) / 2, 9);
  });

  it('reports the nearest gap when nothing closes around the point', async () => {
    const e = engine();
    await ok(e, 'entities_create', { entities: [
      { type: 'Line', start: [0, 0], end: [10, 0] },
      { type: 'Line', start: [10, 0], end: [10, 10] },
      { type: 'Line', start: [10, 10], end: [0, 10] },
      { type: 'Line', start: [0, 10], end: [0, 0.5] },
    ] });
    const before = dump(active(e).doc);
    const r = await fails(e, 'hatch', { point: [5, 5] }, 'no_boundary');
    expect(r.error).toMatch(/gap is between \(0, 0\.5\) and \(0, 0\), 0\.5 apart/);
    expect(dump(active(e).doc)).toBe(before);
  });
});
