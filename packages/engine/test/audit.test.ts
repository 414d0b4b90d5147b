// AUDIT: each finding code on a drawing broken by hand, the fix as one undo step, and the fixed
// drawing clean for ezdxf's auditor.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { active, dump, engine, ok } from './helpers.js';
import type { DxfObject, Entity } from '../src/dxf.js';

const python = process.env.LINEWORK_PYTHON ?? '/usr/bin/python3';
const hasEzdxf = existsSync(python) && spawnSync(python, ['-c', 'import ezdxf'], { encoding: 'utf8' }).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'linework-audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('audit', () => {
  it('finds every kind of problem and fixes them in one undo step', async () => {
    const e = engine();
    const hs = (await ok(e, 'entities_create', {
      entities: [
        { type: 'Line', start: [0, 0], end: [1, 0] }, { type: 'Text', value: 't', position: [0, 0], height: 1 },
        { type: 'Point', location: [0, 0] }, { type: 'Circle', center: [0, 0], radius: 1 }, { type: 'Point', location: [2, 2] },
      ],
    })).handles;
    await ok(e, 'block_define', { name: 'B', handles: [hs[4]] });
    const [ins] = (await ok(e, 'entities_create', { entities: [{ type: 'Insert', name: 'B', position: [0, 0] }] })).handles;
    await ok(e, 'group_create', { name: 'G', handles: [hs[2], hs[3]] });
    const doc = active(e).doc;
    const line = doc.get(hs[0]) as Entity;
    line.attrs.layer = 'GHOST';
    line.attrs.linetype = 'NOPE';
    (doc.get(hs[1]) as Entity).attrs.style = 'NOSTYLE';
    (doc.get(hs[2]) as Entity).owner = 'ABCDE';
    (doc.get(ins) as Entity).attrs.name = 'MISSING';
    const group = doc.objects.find((o) => o.type === 'GROUP')!;
    (group.attrs.handles as string[]).push('FFFFFF');
    const root = doc.objects[0] as DxfObject;
    (root.attrs.entries as { name: string; handle: string; code: number }[]).push({ name: 'DEAD', handle: 'EEEEEE', code: 350 });
    const before = dump(doc);
    const a = await ok(e, 'audit', {});
    expect(a.counts).toEqual({
      missing_layer: 1, missing_linetype: 1, missing_style: 1, bad_owner: 1, missing_block: 1, broken_group: 1, broken_dictionary: 1,
    });
    expect(dump(doc)).toBe(before);
    const f = await ok(e, 'audit', { fix: true });
    expect(f).toMatchObject({ fixed: 7, remaining: 0 });
    expect((await ok(e, 'audit', {})).count).toBe(0);
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
    await ok(e, 'redo');
    expect((await ok(e, 'audit', {})).count).toBe(0);
    if (hasEzdxf) {
      const p = join(dir, 'fixed.dxf');
      await ok(e, 'save', { path: p });
      const r = spawnSync(python, [new URL('./ezdxf_audit.py', import.meta.url).pathname, p], { encoding: 'utf8' });
      const out = JSON.parse(r.stdout);
      expect(out, out.messages.join('; ')).toMatchObject({ errors: 0, fixes: 0 });
    }
  });

  it('finds duplicate handles', async () => {
    const e = engine();
    const [a, b] = (await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0] }, { type: 'Point', location: [1, 0] }] })).handles;
    const doc = active(e).doc;
    const tb = doc.tables.get('LAYER')!.entries[0]!;
    const eb = doc.get(b) as Entity;
    // a second record under an existing handle (as a damaged file can have)
    eb.handle = tb.handle;
    const r = await ok(e, 'audit', {});
    expect(r.counts.duplicate_handle).toBe(1);
    void a;
  });
});

describe('audit: the checks of ezdxf\'s auditor', () => {
  it('finds record-level problems, fixes them in one step, and ezdxf then fixes nothing', async () => {
    const e = engine();
    const hs = (await ok(e, 'entities_create', {
      entities: [
        { type: 'Circle', center: [0, 0], radius: 1 }, { type: 'Line', start: [0, 0], end: [1, 0] },
        { type: 'Ellipse', center: [5, 0], major_axis: [2, 0], ratio: 0.5, start_param: 0.5, end_param: 2 },
        { type: 'Leader', vertices: [[0, 0], [3, 3]] }, { type: 'Point', location: [9, 9] },
      ],
    })).handles;
    await ok(e, 'group_create', { name: 'G', handles: [hs[4]] });
    const doc = active(e).doc;
    (doc.get(hs[0]) as Entity).attrs.extrusion = [0, 0, 0];
    (doc.get(hs[1]) as Entity).attrs.transparency = 5;
    // The same ellipse described from its minor axis (ratio 2), as some writers leave it.
    const el = doc.get(hs[2]) as Entity;
    el.attrs.major_axis = [0, 1, 0];
    el.attrs.ratio = 2;
    el.attrs.start_param = 0.5 + Math.PI / 2;
    el.attrs.end_param = 2 + Math.PI / 2;
    (doc.get(hs[3]) as Entity).attrs.vertices = [[0, 0, 0]];
    // The group's only entity is gone: the group is empty.
    const group = doc.objects.find((o) => o.type === 'GROUP')!;
    group.attrs.handles = ['FFFFF0'];
    // A dictionary entry that names another owner, and an object whose owner does not exist.
    const root = doc.objects[0] as DxfObject;
    const entry = doc.get((root.attrs.entries as { handle: string }[])[0]!.handle)!;
    entry.owner = 'ABCDEF';
    doc.addObject({ kind: 'object', type: 'IDBUFFER', handle: '', owner: 'ABCDEE', attrs: {}, extra: { '': [[100, 'AcDbIdBuffer']] } });
    // An old file's REPEAT: not a graphical entity.
    const repeat = doc.addEntity({ kind: 'entity', type: 'REPEAT', handle: '', owner: '', attrs: { layer: '0' }, extra: { '': [[8, '0']] } }, '*Model_Space');
    const a = await ok(e, 'audit', {});
    expect(a.counts).toMatchObject({
      invalid_extrusion: 1, invalid_transparency: 1, invalid_ellipse: 1, invalid_vertex_count: 1, empty_group: 1,
      dictionary_entry_owner: 1, invalid_owner: 1, not_graphical: 1,
    });
    const f = await ok(e, 'audit', { fix: true });
    expect(f.remaining, JSON.stringify((await ok(e, 'audit', {})).findings)).toBe(0);
    // The swapped ellipse is the same curve: its major axis is the old minor one's length.
    const fixedEl = active(e).doc.get(hs[2]) as Entity;
    expect(fixedEl.attrs.ratio).toBeCloseTo(0.5, 12);
    const ax = fixedEl.attrs.major_axis as number[];
    expect(Math.hypot(ax[0]!, ax[1]!)).toBeCloseTo(2, 12);
    expect(fixedEl.attrs.start_param).toBeCloseTo(0.5, 12);
    expect(fixedEl.attrs.end_param).toBeCloseTo(2, 12);
    expect(active(e).doc.get(hs[3])).toBeUndefined();
    expect(active(e).doc.get(repeat.handle)).toBeUndefined();
    await ok(e, 'undo');
    expect((await ok(e, 'audit', {})).count).toBe(a.count);
    await ok(e, 'redo');
    if (hasEzdxf) {
      const p = join(dir, 'fixed-records.dxf');
      await ok(e, 'save', { path: p });
      const r = spawnSync(python, [new URL('./ezdxf_audit.py', import.meta.url).pathname, p], { encoding: 'utf8' });
      const out = JSON.parse(r.stdout);
      expect(out, out.messages.join('; ')).toMatchObject({ errors: 0, fixes: 0 });
    }
  });

  it('reports what reading repaired, and a damaged file as an error that no fix removes', async () => {
    const e = engine();
    const whole = join(dir, 'whole.dxf');
    await ok(e, 'entities_create', { entities: Array.from({ length: 40 }, (_, i) => ({ type: 'MText', value: `line ${i}`, position: [0, i], height: 1 })) });
    await ok(e, 'save', { path: whole });
    const bytes = readFileSync(whole);
    const cut = join(dir, 'cut.dxf');
    // Cut inside the ENTITIES section: the last MTEXT is not known to be whole.
    const at = bytes.indexOf('ENTITIES') + 4000;
    writeFileSync(cut, bytes.subarray(0, at));
    await ok(e, 'document_open', { path: cut });
    const a = await ok(e, 'audit', {});
    expect(a.counts.damaged_input).toBeGreaterThan(0);
    expect(a.counts.read_repair).toBeGreaterThan(0);
    const f = await ok(e, 'audit', { fix: true });
    expect(f.remaining).toBe(a.counts.damaged_input);
  });
});

describe('undo of the remaining mutations', () => {
  it('page_setup, purge, copy-to restore the documents exactly', async () => {
    const e = engine();
    await ok(e, 'layout_create', { name: 'S1' });
    let before = dump(active(e).doc);
    await ok(e, 'page_setup', { layout: 'S1', paper: 'A2', orientation: 'portrait', fit: false, scale: '1:50', margins: 5 });
    expect(dump(active(e).doc)).not.toBe(before);
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
    await ok(e, 'command', { cmd: '-LAYER N X,Y' });
    before = dump(active(e).doc);
    const p = await ok(e, 'purge', { types: ['layers'] });
    expect(p.purged.layers).toEqual(['X', 'Y']);
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
    const src = (await ok(e, 'entities_create', { entities: [{ type: 'Circle', center: [0, 0], radius: 1 }] })).handles;
    await ok(e, 'document_open', {});
    const target = e.documents.get(2)!;
    const tBefore = dump(target.doc);
    await ok(e, 'entities_copy_to', { handles: src, document_id: 2, source_document_id: 1 });
    expect(dump(target.doc)).not.toBe(tBefore);
    await ok(e, 'undo', { document_id: 2 });
    expect(dump(target.doc)).toBe(tBefore);
  });
});
