// The smaller ops: document_new, view_focus, blocks list, header filter, select, toHttp shapes,
// protected block kinds.
import { describe, expect, it } from 'vitest';
import { active, call, engine, fails, ok } from './helpers.js';

describe('misc ops', () => {
  it('document_new makes an active drawing of the asked version', async () => {
    const e = engine();
    const r = await call(e, 'document_new', { version: 'R2000' });
    expect(r.ok).toBe(true);
    expect(r.document_id).toBe(2);
    expect(r.result).toMatchObject({ document_id: 2, dxf_version: 'AC1015', created: true });
    expect(e.activeId).toBe(2);
    await fails(e, 'document_new', { version: 'R99' }, 'invalid_version');
    const t = await call(e, 'document_open', { template: 'R12' });
    expect(t.ok).toBe(true);
    expect((t.result as { dxf_version: string }).dxf_version).toBe('AC1009');
  });

  it('header with a names filter', async () => {
    const e = engine();
    const h = await ok(e, 'header', { names: ['ACADVER', '$CLAYER'] });
    expect(Object.keys(h.header).sort()).toEqual(['$ACADVER', '$CLAYER']);
  });

  it('select modes and the selection_changed event', async () => {
    const e = engine();
    const hs = (await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0] }, { type: 'Point', location: [1, 0] }] })).handles;
    expect((await ok(e, 'select', { handles: [hs[1]] })).handles).toEqual([hs[1]]);
    expect((await ok(e, 'select', { handles: [hs[0]], mode: 'add' })).handles).toEqual([hs[1], hs[0]]);
    expect((await ok(e, 'select', { handles: [hs[1]], mode: 'remove' })).handles).toEqual([hs[0]]);
    expect((await ok(e, 'select', { mode: 'clear' })).count).toBe(0);
    await fails(e, 'select', { handles: ['FFFFF'] }, 'entity_absent');
    const ev = await ok(e, 'events', {});
    expect(ev.events.filter((x: { kind: string }) => x.kind === 'selection_changed')).toHaveLength(4);
  });

  it('blocks list with references and protection', async () => {
    const e = engine();
    const hs = (await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0] }] })).handles;
    await ok(e, 'block_define', { name: 'B', handles: hs, replace: true });
    const r = await ok(e, 'block_list');
    expect(r.blocks).toContainEqual(expect.objectContaining({ name: 'B', entities: 1, references: 1, protected: null }));
  });

  it('protects anonymous and xref blocks', async () => {
    const e = engine();
    const hs = (await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0] }, { type: 'Point', location: [1, 0] }] })).handles;
    await ok(e, 'block_define', { name: 'XR', handles: [hs[0]] });
    await ok(e, 'block_define', { name: 'AN', handles: [hs[1]] });
    active(e).doc.getBlock('XR')!.block.attrs.flags = 4;
    active(e).doc.getBlock('AN')!.block.attrs.flags = 1;
    expect((await fails(e, 'block_delete', { name: 'XR' }, 'block_protected')).error).toContain('xref');
    expect((await fails(e, 'block_delete', { name: 'AN' }, 'block_protected')).error).toContain('anonymous');
    await fails(e, 'block_rename', { name: 'XR', new_name: 'Y' }, 'block_protected');
  });

  it('HTTP shapes: GET /entities hoists count and entities; GET /state spreads the snapshot', async () => {
    const e = engine();
    await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0] }] });
    const route = e.catalogue.find((o) => o.name === 'entities_list')!.http[0]!;
    const res = await call(e, 'entities_list', {});
    const body = route.toHttp!(res);
    expect(body).toMatchObject({ ok: true, count: 1, entities: [expect.objectContaining({ type: 'Point' })] });
    const st = e.catalogue.find((o) => o.name === 'state')!.http[0]!.toHttp!(await call(e, 'state'));
    expect(st).toMatchObject({ ok: true, version: 1, session_id: e.sessionId, document_id: 1, documents: [expect.objectContaining({ document_id: 1 })] });
  });
});

describe('view_focus', () => {
  it('focuses on entities, a box or the extents', async () => {
    const e = engine();
    const hs = (await ok(e, 'entities_create', { entities: [{ type: 'Line', start: [0, 0], end: [10, 0] }, { type: 'Circle', center: [100, 100], radius: 5 }] })).handles;
    const a = await ok(e, 'view_focus', { handles: [hs[1]], margin: 0 });
    expect(a.center).toEqual([100, 100]);
    expect(a.width).toBeCloseTo(10, 6);
    const b = await ok(e, 'view_focus', { bounds: [0, 0, 20, 10], margin: 0 });
    expect(b).toMatchObject({ center: [10, 5], width: 20, height: 10 });
    const c = await ok(e, 'view_focus', {});
    expect(c.bounds.max[0]).toBeCloseTo(105, 6);
    expect(active(e).view).toMatchObject({ center: c.center });
    await fails(e, 'view_focus', { handles: ['FFFFF'] }, 'entity_absent');
  });
});
