// AUDIT: each finding code on a drawing broken by hand, the fix as one undo step, and the fixed
// drawing clean for ezdxf's auditor.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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
