// Blocks: define (entities move into the definition), delete with references and force,
// protected blocks, rename and purge sharing one validation; undo of each.
import { describe, expect, it } from 'vitest';
import { active, dump, engine, fails, ok } from './helpers.js';

describe('blocks', () => {
  it('block_define moves the entities into the definition (one undo step)', async () => {
    const e = engine();
    const hs = (await ok(e, 'entities_create', { entities: [{ type: 'Line', start: [0, 0], end: [1, 0] }, { type: 'Circle', center: [0, 0], radius: 1 }] })).handles;
    const before = dump(active(e).doc);
    const r = await ok(e, 'block_define', { name: 'B1', base: [0, 0, 0], handles: hs });
    expect(r).toMatchObject({ name: 'B1', count: 2, insert: null });
    expect(active(e).doc.modelSpace().entities).toHaveLength(0);
    expect(active(e).doc.getBlock('B1')!.entities).toHaveLength(2);
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
    await ok(e, 'redo');
    expect(active(e).doc.getBlock('B1')).toBeDefined();
    await fails(e, 'block_define', { name: 'B1', handles: ['FFFFF'] }, 'entity_absent');
  });

  it('replace puts an insert in place; an existing name needs redefine', async () => {
    const e = engine();
    const hs = (await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [5, 5] }] })).handles;
    const r = await ok(e, 'block_define', { name: 'P', base: [5, 5, 0], handles: hs, replace: true });
    expect(r.insert).toBeTruthy();
    const ins = (await ok(e, 'entity_get', { handle: r.insert })).entities[0];
    expect(ins).toMatchObject({ type: 'Insert', name: 'P', insert: [5, 5, 0] });
    const more = (await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0] }] })).handles;
    await fails(e, 'block_define', { name: 'P', handles: more }, 'block_exists');
    await ok(e, 'block_define', { name: 'P', handles: more, redefine: true });
    expect(active(e).doc.getBlock('P')!.entities).toHaveLength(1);
  });

  it('delete: block_referenced without force, nothing changes; force erases inserts in one step', async () => {
    const e = engine();
    const hs = (await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0] }] })).handles;
    await ok(e, 'block_define', { name: 'B', handles: hs });
    await ok(e, 'entities_create', { entities: [{ type: 'Insert', name: 'B', position: [1, 1] }, { type: 'Insert', name: 'B', position: [2, 2] }] });
    const before = dump(active(e).doc);
    const v = active(e).version;
    const r = await fails(e, 'block_delete', { name: 'B' }, 'block_referenced');
    expect(r.details).toMatchObject({ references: 2 });
    expect(dump(active(e).doc)).toBe(before);
    expect(active(e).version).toBe(v);
    const d = await ok(e, 'block_delete', { name: 'B', force: true });
    expect(d).toMatchObject({ references: 2, erased: 2 });
    expect(active(e).doc.getBlock('B')).toBeUndefined();
    expect(active(e).doc.modelSpace().entities).toHaveLength(0);
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
    await fails(e, 'block_delete', { name: 'NOPE' }, 'unknown_block');
  });

  it('delete without references reports 0/0', async () => {
    const e = engine();
    const hs = (await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0] }] })).handles;
    await ok(e, 'block_define', { name: 'Lonely', handles: hs });
    expect(await ok(e, 'block_delete', { name: 'Lonely' })).toMatchObject({ references: 0, erased: 0, deleted: true });
  });

  it('protected: layout, anonymous and open-in-editor blocks (delete and rename)', async () => {
    const e = engine();
    const ms = active(e).doc.modelSpace().name;
    const r = await fails(e, 'block_delete', { name: ms, force: true }, 'block_protected');
    expect(r.error).toContain('layout');
    await fails(e, 'block_rename', { name: ms, new_name: 'X' }, 'block_protected');
    const hs = (await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0] }] })).handles;
    await ok(e, 'block_define', { name: 'Edit', handles: hs });
    active(e).blocksInEditor.add('Edit');
    await fails(e, 'block_delete', { name: 'Edit' }, 'block_protected');
    active(e).blocksInEditor.clear();
    await ok(e, 'block_delete', { name: 'Edit' });
  });

  it('rename renames inserts too; undo restores', async () => {
    const e = engine();
    const hs = (await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0] }] })).handles;
    await ok(e, 'block_define', { name: 'Old', handles: hs });
    const [ins] = (await ok(e, 'entities_create', { entities: [{ type: 'Insert', name: 'Old', position: [1, 1] }] })).handles;
    const before = dump(active(e).doc);
    await ok(e, 'block_rename', { name: 'Old', new_name: 'New' });
    expect(active(e).doc.getBlock('New')).toBeDefined();
    expect((await ok(e, 'property', { handle: ins, name: 'name' })).value).toBe('New');
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
    expect(active(e).doc.getBlock('Old')).toBeDefined();
  });

  it('purge removes unreferenced blocks and layers only', async () => {
    const e = engine();
    await ok(e, 'command', { cmd: '-LAYER N Unused,Used' });
    const hs = (await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0], layer: 'Used' }, { type: 'Point', location: [1, 0] }] })).handles;
    await ok(e, 'block_define', { name: 'Kept', handles: [hs[0]] });
    await ok(e, 'block_define', { name: 'Gone', handles: [hs[1]] });
    await ok(e, 'entities_create', { entities: [{ type: 'Insert', name: 'Kept', position: [0, 0] }] });
    const r = await ok(e, 'purge', {});
    expect(r.purged.blocks).toEqual(['Gone']);
    expect(r.purged.layers).toEqual(['Unused']);
    expect(active(e).doc.getBlock('Kept')).toBeDefined();
  });
});
