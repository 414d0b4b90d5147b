// The command line's OFFSET, TRIM, EXTEND, FILLET, CHAMFER, BREAK and JOIN (and their aliases):
// objects picked by point, AutoCAD's keywords, one undo step per command.
import { describe, expect, it } from 'vitest';
import { active, dump, fails, ok } from './helpers.js';
import { close, drawing, get } from './modify-helpers.js';

describe('modify commands', () => {
  it('OFFSET by distance and Through, objects picked by point', async () => {
    const { e } = await drawing([{ type: 'Line', start: [0, 0], end: [10, 0] }, { type: 'Circle', center: [30, 0], radius: 5 }]);
    const r = await ok(e, 'command', { cmd: 'OFFSET 2 5,0 5,5 35,0 40,0' });
    const c = r.commands[0];
    expect(c.command).toBe('OFFSET');
    expect(c.created).toHaveLength(2);
    close((await get(e, c.created[0])).start, [0, 2, 0]);
    expect((await get(e, c.created[1])).radius).toBeCloseTo(7, 12);
    const t = await ok(e, 'command', { cmd: 'O T 30,5 30,9' });
    expect((await get(e, t.commands[0].created[0])).radius).toBeCloseTo(9, 12);
    await ok(e, 'command', { cmd: 'U' });
    expect(await ok(e, 'entities_list', {})).toMatchObject({ total: 4 });
  });

  it('TRIM and EXTEND with all visible edges or given ones; FILLET and CHAMFER with options', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [10, 0] },
      { type: 'Line', start: [4, -2], end: [4, 2] },
      { type: 'Line', start: [0, 10], end: [3, 10] },
      { type: 'Line', start: [8, 5], end: [8, 15] },
    ]);
    await ok(e, 'command', { cmd: 'TR 9,0' });
    close((await get(e, h[0])).end, [4, 0, 0]);
    await ok(e, 'command', { cmd: `EXTEND B ${h[3]} 2.9,10` });
    close((await get(e, h[2])).end, [8, 10, 0]);
    const f = await ok(e, 'command', { cmd: 'F R 1 1,10 8,14' });
    const arc = await get(e, f.commands[0].created[0]);
    close(arc.center, [7, 11, 0]);
    expect((await ok(e, 'sysvars', { get: ['FILLETRAD'] })).values.FILLETRAD).toBe(1);
    const ch = await ok(e, 'command', { cmd: 'CHA D 1 2 1,0 4,-1.5' });
    const l = await get(e, ch.commands[0].created[0]);
    close(l.start, [3, 0, 0]);
    close(l.end, [4, -2, 0]);
  });

  it('BREAK at a point (@) and between two points, JOIN by points', async () => {
    const { e, h } = await drawing([{ type: 'Line', start: [0, 0], end: [10, 0] }, { type: 'Line', start: [0, 5], end: [10, 5] }]);
    const b = await ok(e, 'command', { cmd: 'BR 4,0 @' });
    expect(b.commands[0]).toMatchObject({ command: 'BREAK', modified: [h[0]] });
    const j = await ok(e, 'command', { cmd: 'J 1,0 6,0' });
    expect(j.commands[0]).toMatchObject({ command: 'JOIN', modified: [h[0]] });
    close((await get(e, h[0])).end, [10, 0, 0]);
    await ok(e, 'command', { cmd: 'BREAK 2,5 F 3,5 7,5' });
    close((await get(e, h[1])).end, [3, 5, 0]);
  });

  it('refuses a point on no object with the drawing unchanged', async () => {
    const { e } = await drawing([{ type: 'Line', start: [0, 0], end: [10, 0] }]);
    const before = dump(active(e).doc);
    const r = await fails(e, 'command', { cmd: 'TRIM 5,500' }, 'point_off_entity');
    expect(r.error).toContain('TRIM');
    await fails(e, 'command', { cmd: 'OFFSET -1 5,0 5,1' }, 'invalid_command');
    expect(dump(active(e).doc)).toBe(before);
  });
});
