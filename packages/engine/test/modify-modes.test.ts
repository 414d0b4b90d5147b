// The modify ops' AutoCAD modes: trim and extend along a fence (Fence and Crossing) and with
// edges counted as extended (EDGEMODE 1), fillet and chamfer without trimming (TRIMMODE 0), one
// hatch from several internal points, the rolled-back preview, and the remembered values kept
// in the header (FILLETRAD, CHAMFERA-D) or by the session (OFFSETDIST, TRIMMODE, HPNAME ...).
import { describe, expect, it } from 'vitest';
import { active, dump, fails, ok } from './helpers.js';
import { close, drawing, get, undoable } from './modify-helpers.js';

describe('trim and extend along a fence', () => {
  it('trims every piece the fence crosses, in one undo step, as the same picks one by one would', async () => {
    const lines = [
      { type: 'Line', start: [0, 0], end: [0, 20] },
      { type: 'Line', start: [10, 0], end: [10, 20] },
      { type: 'Line', start: [-5, 5], end: [15, 5] },
      { type: 'Line', start: [-5, 15], end: [15, 15] },
    ];
    const a = await drawing(lines);
    // the fence crosses both verticals between the horizontals, and the lower horizontal's left end
    const r = await undoable(a.e, 'trim', { fence: [[-2, 10], [12, 10]] });
    expect(r.modified.sort()).toEqual([a.h[0], a.h[1]].sort());
    expect(r.created).toHaveLength(2);
    const b = await drawing(lines);
    await ok(b.e, 'trim', { handle: b.h[0], point: [0, 10] });
    await ok(b.e, 'trim', { handle: b.h[1], point: [10, 10] });
    const shapes = async (e: typeof a.e) => ((await ok(e, 'entities_list', { detail: 'full' })).entities as Record<string, unknown>[]).map((x) => JSON.stringify({ ...x, handle: '' })).sort();
    expect(await shapes(a.e)).toEqual(await shapes(b.e));
  });

  it('a fence in a paper-space layout trims that layout\'s entities, not model space\'s', async () => {
    const lines = [
      { type: 'Line', start: [0, 0], end: [0, 20] },
      { type: 'Line', start: [-5, 5], end: [5, 5] },
      { type: 'Line', start: [-5, 15], end: [5, 15] },
    ];
    const { e, h } = await drawing(lines);
    const paper = (await ok(e, 'entities_create', { entities: lines, layout: 'Layout1' })).handles as string[];
    const r = await undoable(e, 'trim', { fence: [[-2, 10], [2, 10]], layout: 'Layout1' });
    expect(r.modified).toEqual([paper[0]]);
    // model space untouched; the layout's vertical cut between its horizontals
    close((await get(e, h[0])).end, [0, 20, 0]);
    expect(r.created).toHaveLength(1);
    // without the layout the fence is model space's
    const m = await ok(e, 'trim', { fence: [[-2, 10], [2, 10]] });
    expect(m.modified).toEqual([h[0]]);
    await fails(e, 'trim', { fence: [[-2, 10], [2, 10]], layout: 'Nowhere' }, 'unknown_layout');
  });

  it('passes over a piece an earlier crossing removed and refuses a fence that trims nothing', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [20, 0] },
      { type: 'Line', start: [5, -5], end: [5, 5] },
      { type: 'Line', start: [15, -5], end: [15, 5] },
    ]);
    // the fence runs along the middle piece of the long line, crossing it nowhere but where... it
    // crosses it twice (a zig-zag), the second crossing lands on the piece the first removed
    const r = await ok(e, 'trim', { fence: [[8, -1], [9, 1], [10, -1]] });
    expect(r.modified).toEqual([h[0]]);
    close((await get(e, h[0])).end, [5, 0, 0]);
    close((await get(e, r.created[0])).start, [15, 0, 0]);
    await fails(e, 'trim', { fence: [[100, 100], [110, 110]] }, 'no_intersection');
    await fails(e, 'trim', { fence: [[0, 0]] }, 'invalid_request');
    await fails(e, 'trim', { fence: [[0, 0], [1, 1]], handle: h[0], point: [1, 0] }, 'invalid_request');
    await fails(e, 'trim', {}, 'invalid_request');
  });

  it('counts the pieces an earlier crossing made as edges of the later ones', async () => {
    const lines = [
      { type: 'Line', start: [0, 0], end: [20, 0] },
      { type: 'Line', start: [5, -5], end: [5, 5] },
      { type: 'Line', start: [10, -5], end: [10, 5] },
      { type: 'Line', start: [15, -5], end: [15, 5] },
    ];
    const fence = [[7, -1], [7, 1], [16, -3]];
    const a = await drawing(lines);
    await undoable(a.e, 'trim', { fence });
    // the vertical at x = 15 is cut by the piece of the long line the first crossing left (15, 0)
    close((await get(a.e, a.h[3])).start, [15, 0, 0]);
    close((await get(a.e, a.h[3])).end, [15, 5, 0]);
    // the same as trimming at the crossings one op at a time (the crossing on the removed piece passed over)
    const b = await drawing(lines);
    await ok(b.e, 'trim', { handle: b.h[0], point: [7, 0] });
    await ok(b.e, 'trim', { handle: b.h[2], point: [10, 1 - 4 * (3 / 9)] });
    await ok(b.e, 'trim', { handle: b.h[3], point: [15, 1 - 4 * (8 / 9)] });
    const shapes = async (e: typeof a.e) => ((await ok(e, 'entities_list', { detail: 'full' })).entities as Record<string, unknown>[]).map((x) => JSON.stringify({ ...x, handle: '' })).sort();
    expect(await shapes(a.e)).toEqual(await shapes(b.e));
  });

  it('extends each end a fence crosses near', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [5, 0] },
      { type: 'Line', start: [0, 2], end: [6, 2] },
      { type: 'Line', start: [10, -5], end: [10, 5] },
    ]);
    const r = await undoable(e, 'extend', { fence: [[4, -1], [4, 3]] });
    expect(r.modified.sort()).toEqual([h[0], h[1]].sort());
    close((await get(e, h[0])).end, [10, 0, 0]);
    close((await get(e, h[1])).end, [10, 2, 0]);
  });
});

describe('extended edges (EDGEMODE 1)', () => {
  it('trims and extends to where an edge would reach if carried on', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [20, 0] },
      // ends short of the long line; carried on it would cross it at x = 10
      { type: 'Line', start: [10, 5], end: [10, 15] },
      { type: 'Line', start: [0, 10], end: [4, 10] },
      { type: 'Arc', center: [30, 10], radius: 5, start_angle: 90, end_angle: 150 },
    ]);
    await fails(e, 'trim', { handle: h[0], point: [15, 0] }, 'no_intersection');
    await undoable(e, 'trim', { handle: h[0], point: [15, 0], extended_edges: true });
    close((await get(e, h[0])).end, [10, 0, 0]);
    // the arc carried on round its circle meets the extended line at x = 25
    await fails(e, 'extend', { handle: h[2], point: [4, 10], edges: [h[3]!] }, 'no_boundary');
    await undoable(e, 'extend', { handle: h[2], point: [4, 10], edges: [h[3]!], extended_edges: true });
    close((await get(e, h[2])).end, [25, 10, 0]);
  });
});

describe('fillet and chamfer without trimming (TRIMMODE 0)', () => {
  it('adds the arc or the bevel and leaves both objects whole', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [10, 0] },
      { type: 'Line', start: [10, 0], end: [10, 10] },
      { type: 'LWPolyline', points: [[20, 0], [30, 0], [30, 10]] },
    ]);
    const before = [await get(e, h[0]), await get(e, h[1])];
    const f = await undoable(e, 'fillet', { handles: [h[0], h[1]], radius: 2, trim: false });
    expect(f.modified).toEqual([]);
    expect([await get(e, h[0]), await get(e, h[1])]).toEqual(before);
    const arc = await get(e, f.created[0]);
    expect(arc.type).toBe('Arc');
    close(arc.center, [8, 2, 0]);
    const c = await undoable(e, 'chamfer', { handles: [h[0], h[1]], distances: [1, 3], trim: false });
    expect(c.modified).toEqual([]);
    const bevel = await get(e, c.created[0]);
    expect([bevel.start, bevel.end].map((p: number[]) => p.map((v) => Math.round(v * 1e9) / 1e9)).sort()).toEqual([[10, 3, 0], [9, 0, 0]].sort());
    const pl = await get(e, h[2]);
    const p = await undoable(e, 'fillet', { handles: [h[2]], polyline: true, radius: 2, trim: false });
    expect(p.modified).toEqual([]);
    expect(await get(e, h[2])).toEqual(pl);
    const parc = await get(e, p.created[0]);
    close(parc.center, [28, 2, 0]);
    expect(parc.radius).toBeCloseTo(2, 9);
  });
});

describe('hatch of several internal points', () => {
  it('makes one hatch with the boundaries of every region; a region picked twice counts once', async () => {
    const { e } = await drawing([
      { type: 'LWPolyline', points: [[0, 0], [10, 0], [10, 10], [0, 10]], closed: true },
      { type: 'LWPolyline', points: [[20, 0], [30, 0], [30, 10], [20, 10]], closed: true },
      { type: 'Circle', center: [25, 5], radius: 2 },
    ]);
    const r = await undoable(e, 'hatch', { points: [[5, 5], [21, 1], [6, 6]] });
    expect(r.created).toHaveLength(1);
    const hatch = await get(e, r.created[0]);
    // the first square; the second square with the circle a hole in it
    expect(hatch.paths.map((p: { vertices: unknown[] }) => p.vertices.length)).toEqual([4, 4, 2]);
    expect(hatch.paths.map((p: { flags: number }) => p.flags & 1)).toEqual([1, 1, 0]);
    expect(hatch.seed_points).toHaveLength(3);
    await fails(e, 'hatch', { points: [] }, 'invalid_request');
    await fails(e, 'hatch', { points: [[5, 5]], point: [5, 5] }, 'invalid_request');
  });
});

describe('modify_preview', () => {
  it('gives what fillet would make and changes nothing', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [10, 0] },
      { type: 'Line', start: [12, 2], end: [12, 10] },
    ]);
    const before = dump(active(e).doc);
    const v = active(e).version;
    const p = await ok(e, 'modify_preview', { edit: 'fillet', fields: { handles: [h[0], h[1]], radius: 2 } });
    expect(dump(active(e).doc)).toBe(before);
    expect(active(e).version).toBe(v);
    const r = await ok(e, 'fillet', { handles: [h[0], h[1]], radius: 2 });
    expect(p.created).toHaveLength(1);
    expect(p.modified.sort()).toEqual(r.modified.sort());
    const made = [...r.created, ...r.modified].sort();
    const now = await Promise.all(made.map((x) => get(e, x)));
    const strip = (x: Record<string, unknown>) => ({ ...x, handle: '', bounds: undefined });
    expect(p.entities.map(strip).sort((a: any, b: any) => a.type.localeCompare(b.type))).toEqual(now.map(strip).sort((a: any, b: any) => a.type.localeCompare(b.type)));
    await fails(e, 'modify_preview', { edit: 'fillet', fields: { handles: [h[0]], radius: -1 } }, 'invalid_request');
  });
});

describe('the modify commands\' system variables', () => {
  it('keeps FILLETRAD and CHAMFERA-D in the header, OFFSETDIST, TRIMMODE, HPNAME ... in the session', async () => {
    const { e } = await drawing([{ type: 'Line', start: [0, 0], end: [1, 0] }]);
    expect((await ok(e, 'sysvars', { get: ['FILLETRAD', 'CHAMFERC', 'CHAMFERD', 'OFFSETDIST', 'TRIMMODE', 'CHAMMODE', 'EDGEMODE', 'HPNAME', 'HPSCALE', 'HPANG'] })).values)
      .toEqual({ FILLETRAD: 10, CHAMFERC: 0, CHAMFERD: 0, OFFSETDIST: -1, TRIMMODE: 1, CHAMMODE: 0, EDGEMODE: 0, HPNAME: 'SOLID', HPSCALE: 1, HPANG: 0 });
    const v = active(e).version;
    await ok(e, 'sysvars', { set: { OFFSETDIST: 2.5, TRIMMODE: 0, HPNAME: 'ANSI31' } });
    // no change of the drawing: no undo step, nothing in the header
    expect(active(e).version).toBe(v);
    expect(active(e).doc.getHeader('$TRIMMODE')).toBeUndefined();
    await ok(e, 'sysvars', { set: { FILLETRAD: 4, CHAMFERC: 3, CHAMFERD: 30 } });
    expect(active(e).version).toBe(v + 1);
    expect(active(e).doc.getHeader('$FILLETRAD')).toBe(4);
    expect(active(e).doc.getHeader('$CHAMFERD')).toBe(30);
    // the session's values hold in every drawing
    await ok(e, 'document_new', {});
    expect((await ok(e, 'sysvars', { get: ['OFFSETDIST', 'TRIMMODE', 'HPNAME', 'FILLETRAD'] })).values).toEqual({ OFFSETDIST: 2.5, TRIMMODE: 0, HPNAME: 'ANSI31', FILLETRAD: 10 });
    await fails(e, 'sysvars', { set: { OFFSETDIST: -0.5 } }, 'invalid_sysvar');
    await fails(e, 'sysvars', { set: { TRIMMODE: 2 } }, 'invalid_sysvar');
  });
});
