// The command-line forms: AutoCAD's token order and keywords, aliases, objects picked by point,
// one undo step per command.
import { describe, expect, it } from 'vitest';
import { active, dump, engine, fails, ok } from './helpers.js';

type E = ReturnType<typeof engine>;
const rec = (e: E, h: string) => active(e).doc.get(h) as unknown as { type: string; attrs: Record<string, any> };

describe('construct and modify commands', () => {
  it('HATCH by internal point, with Properties; H alias; islands as holes', async () => {
    const e = engine();
    await ok(e, 'command', { cmd: 'PLINE 0,0 20,0 20,10 0,10 C; CIRCLE 5,5 2' });
    const before = dump(active(e).doc);
    const r = await ok(e, 'command', { cmd: '-HATCH P ANSI31 2 15 LA 0 10,5' });
    const h = rec(e, r.handles[0]);
    expect(h.type).toBe('HATCH');
    expect(h.attrs).toMatchObject({ pattern_name: 'ANSI31', pattern_scale: 2, pattern_angle: 15 });
    expect(h.attrs.paths).toHaveLength(2);
    await ok(e, 'command', { cmd: 'U' });
    expect(dump(active(e).doc)).toBe(before);
    // S(elect objects): the circle picked on its outline is the boundary
    const s = await ok(e, 'command', { cmd: 'H S 5,7' });
    expect(rec(e, s.handles[0]).attrs.pattern_name).toBe('SOLID');
    await fails(e, 'command', { cmd: 'HATCH 50,50' }, 'no_boundary');
  });

  it('DIMLINEAR, DIMALIGNED, DIMRADIUS, DIMDIAMETER, DIMANGULAR and their aliases', async () => {
    const e = engine();
    await ok(e, 'command', { cmd: 'LINE 0,0 10,0; LINE 0,0 10,10; CIRCLE 30,0 4; ARC C 50,0 54,0 50,4' });
    const m = async (cmd: string) => rec(e, (await ok(e, 'command', { cmd })).handles[0]).attrs;
    expect((await m('DIMLINEAR 0,0 10,10 5,-5')).actual_measurement).toBe(10);
    expect((await m('DLI 0,0 10,10 V 15,5')).actual_measurement).toBe(10);
    expect((await m('DIMLINEAR 0,0 10,10 R 45 T "diag <>" 0,5')).actual_measurement).toBeCloseTo(Math.hypot(10, 10), 9);
    expect((await m('DAL 0,0 10,10 2,8')).actual_measurement).toBeCloseTo(Math.hypot(10, 10), 9);
    // the circle picked by a point on it
    expect((await m('DIMRADIUS 34,0 40,5')).actual_measurement).toBe(4);
    expect((await m('DDI 26,0 31,1')).actual_measurement).toBe(8);
    // two lines picked near their middles; the arc of the dimension in their 45 degree angle
    expect((await m('DAN 5,0 5,5 8,3')).actual_measurement).toBeCloseTo(Math.PI / 4, 12);
    // an arc picked: its own angle
    expect((await m('DIMANGULAR 54,0 55,5')).actual_measurement).toBeCloseTo(Math.PI / 2, 12);
    await fails(e, 'command', { cmd: 'DIMRADIUS 100,100 5,5' }, 'nothing_selected');
  });

  it('EXPLODE, MIRROR, SCALE, ARRAY, STRETCH with objects picked by point', async () => {
    const e = engine();
    const [pl] = (await ok(e, 'command', { cmd: 'PLINE 0,0 10,0 10,10 C' })).handles;
    const x = await ok(e, 'command', { cmd: 'X 5,0' });
    expect(x.commands[0]).toMatchObject({ command: 'EXPLODE', erased: [pl] });
    expect(x.handles).toHaveLength(3);
    const [bottom] = x.handles;
    const mi = await ok(e, 'command', { cmd: 'MI 5,0 0,-1 10,-1 N' });
    expect(rec(e, mi.handles[0]).attrs.start).toEqual([0, -2, 0]);
    await ok(e, 'command', { cmd: `SC ${bottom} 0,0 2` });
    expect(rec(e, bottom).attrs.end).toEqual([20, 0, 0]);
    const ar = await ok(e, 'command', { cmd: 'AR 10,-2 R 3 1 -5' });
    expect(ar.handles).toHaveLength(2);
    expect(rec(e, ar.handles[1]).attrs.start).toEqual([0, -12, 0]);
    const polar = await ok(e, 'command', { cmd: 'ARRAY 10,-2 P 0,0 4 360 Y' });
    expect(polar.handles).toHaveLength(3);
    // by handle, P is the polar type (not the previous selection)
    const byHandle = await ok(e, 'command', { cmd: `ARRAY ${bottom} P 0,0 2 180 N` });
    expect(byHandle.handles).toHaveLength(1);
    await ok(e, 'command', { cmd: 'U' });
    const st = await ok(e, 'command', { cmd: 'S C 18,-1 22,1 0,0 @5,0' });
    expect(st.commands[0].modified).toContain(bottom);
    expect(rec(e, bottom).attrs.end).toEqual([25, 0, 0]);
    // each command one step: undo the stretch
    await ok(e, 'command', { cmd: 'UNDO' });
    expect(rec(e, bottom).attrs.end).toEqual([20, 0, 0]);
    await fails(e, 'command', { cmd: 'EXPLODE 500,500' }, 'nothing_selected');
    await fails(e, 'command', { cmd: 'SCALE 5,0 0,0 0' }, 'invalid_command');
  });
});
