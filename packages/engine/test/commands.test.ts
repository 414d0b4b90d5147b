// The command line through the dispatcher: each command one undo step, coordinate forms, errors.
import { describe, expect, it } from 'vitest';
import { active, dump, engine, fails, ok } from './helpers.js';

const close = (a: number[], b: number[]) => a.forEach((x, i) => expect(x).toBeCloseTo(b[i]!, 6));

describe('command line', () => {
  it('LINE with absolute, relative, polar input and Close', async () => {
    const e = engine();
    const r = await ok(e, 'command', { cmd: 'LINE 0,0 @10,0 @10<90 C' });
    expect(r.handles).toHaveLength(3);
    const lines = (await ok(e, 'entities_list', { detail: 'full' })).entities;
    close(lines[0].end, [10, 0, 0]);
    close(lines[1].end, [10, 10, 0]);
    close(lines[2].start, [10, 10, 0]);
    close(lines[2].end, [0, 0, 0]);
  });

  it('CIRCLE, ARC, PLINE, POINT, TEXT', async () => {
    const e = engine();
    await ok(e, 'command', { cmd: 'CIRCLE 5,5 2\nCIRCLE 0,0 D 4\nARC 1,0 0,1 -1,0\nPLINE 0,0 5,0 5,5 C\nPOINT 3,3\nTEXT 0,0 2.5 0 hello there' });
    const list = (await ok(e, 'entities_list', { detail: 'full' })).entities;
    expect(list.map((x: { type: string }) => x.type)).toEqual(['Circle', 'Circle', 'Arc', 'LWPolyline', 'Point', 'Text']);
    expect(list[1].radius).toBe(2);
    close(list[2].center, [0, 0, 0]);
    expect(list[2].radius).toBeCloseTo(1, 9);
    expect(list[2].start_angle).toBeCloseTo(0, 9);
    expect(list[2].end_angle).toBeCloseTo(180, 9);
    expect(list[5].value).toBe('hello there');
    expect(active(e).undoStack).toHaveLength(6);
  });

  it('each command is one undo step; UNDO and REDO commands', async () => {
    const e = engine();
    const empty = dump(active(e).doc);
    await ok(e, 'command', { cmd: 'LINE 0,0 1,1' });
    const one = dump(active(e).doc);
    await ok(e, 'command', { cmd: 'CIRCLE 0,0 1' });
    await ok(e, 'command', { cmd: 'UNDO' });
    expect(dump(active(e).doc)).toBe(one);
    await ok(e, 'command', { cmd: 'UNDO' });
    expect(dump(active(e).doc)).toBe(empty);
    await ok(e, 'command', { cmd: 'REDO' });
    expect(dump(active(e).doc)).toBe(one);
  });

  it('errors: invalid_command, invalid_point, nothing_selected; failing command leaves nothing', async () => {
    const e = engine();
    await fails(e, 'command', { cmd: 'FROB 1,2' }, 'invalid_command');
    await fails(e, 'command', { cmd: 'LINE 0,0 x,y' }, 'invalid_point');
    await fails(e, 'command', { cmd: 'LINE 0,0' }, 'invalid_command');
    await fails(e, 'command', { cmd: 'CIRCLE 0,0' }, 'invalid_command');
    await fails(e, 'command', { cmd: 'ERASE' }, 'nothing_selected');
    expect(active(e).doc.modelSpace().entities).toHaveLength(0);
    expect(active(e).undoStack).toHaveLength(0);
  });

  it('-LAYER New/Set/Color/Off/On/Freeze/Thaw', async () => {
    const e = engine();
    await ok(e, 'command', { cmd: '-LAYER N A,B C 1 A S A' });
    let layers = (await ok(e, 'layers')).layers;
    expect(layers.find((l: { name: string }) => l.name === 'A')).toMatchObject({ color: 1, current: true });
    await ok(e, 'command', { cmd: 'LAYER OFF B F B' });
    layers = (await ok(e, 'layers')).layers;
    expect(layers.find((l: { name: string }) => l.name === 'B')).toMatchObject({ on: false, frozen: true });
    await ok(e, 'command', { cmd: 'LAYER ON B T B' });
    layers = (await ok(e, 'layers')).layers;
    expect(layers.find((l: { name: string }) => l.name === 'B')).toMatchObject({ on: true, frozen: false });
    await fails(e, 'command', { cmd: 'LAYER F A' }, 'invalid_command');
    await fails(e, 'command', { cmd: 'LAYER S NOPE' }, 'unknown_layer');
    // new entities go on the current layer
    await ok(e, 'command', { cmd: 'POINT 0,0' });
    expect((await ok(e, 'entities_list', {})).entities[0].layer).toBe('A');
  });

  it('ERASE by handle and L(ast), -INSERT, PURGE, -RENAME', async () => {
    const e = engine();
    const [p] = (await ok(e, 'command', { cmd: 'POINT 1,1' })).handles;
    await ok(e, 'command', { cmd: 'CIRCLE 0,0 1' });
    await ok(e, 'command', { cmd: 'ERASE L' });
    expect(active(e).doc.modelSpace().entities).toHaveLength(1);
    await ok(e, 'block_define', { name: 'BLK', handles: [p] });
    const ins = await ok(e, 'command', { cmd: '-INSERT BLK 5,5 2 2 45' });
    const rec = (await ok(e, 'entity_get', { handle: ins.handles[0] })).entities[0];
    expect(rec).toMatchObject({ name: 'BLK', xscale: 2, yscale: 2, rotation: 45 });
    await ok(e, 'command', { cmd: '-RENAME B BLK BLK2' });
    expect(active(e).doc.getBlock('BLK2')).toBeDefined();
    await fails(e, 'command', { cmd: `-RENAME B ${active(e).doc.modelSpace().name} X` }, 'block_protected');
    await ok(e, 'command', { cmd: `ERASE ${ins.handles[0]}` });
    const pr = await ok(e, 'command', { cmd: 'PURGE B * N' });
    expect(pr.commands[0].purged.blocks).toEqual(['BLK2']);
  });
});

describe('command line transforms', () => {
  it('MOVE, COPY, ROTATE, SCALE, MIRROR', async () => {
    const e = engine();
    const [l] = (await ok(e, 'command', { cmd: 'LINE 1,0 2,0' })).handles;
    const start = async (h: string) => (await ok(e, 'entity_get', { handle: h })).entities[0].start;
    await ok(e, 'command', { cmd: `MOVE ${l} 0,0 1,1` });
    close(await start(l), [2, 1, 0]);
    await ok(e, 'command', { cmd: `MOVE ${l} @-1,-1` });
    close(await start(l), [1, 0, 0]);
    const c = await ok(e, 'command', { cmd: `COPY ${l} 0,0 0,5 0,10` });
    expect(c.handles).toHaveLength(2);
    await ok(e, 'command', { cmd: `ROTATE ${l} 0,0 90` });
    close(await start(l), [0, 1, 0]);
    await ok(e, 'command', { cmd: `SCALE ${l} 0,0 3` });
    close(await start(l), [0, 3, 0]);
    const m = await ok(e, 'command', { cmd: `MIRROR ${l} 0,0 1,0 N` });
    close(await start(m.handles[0]), [0, -3, 0]);
    close(await start(l), [0, 3, 0]);
  });
});
