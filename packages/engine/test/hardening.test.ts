// The dispatcher's own defences: replays of forgotten request ids, the memory the answers kept may
// hold, coordinates out of range, the workspace's checks and the images a render may read.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Resvg } from '@resvg/resvg-js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LIMITS, Workspace } from '../src/index.js';
import { linkedImages } from '../src/plot/linked-images.js';
import { active, call, engine, fails, ok } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'lw-hard-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('request ids', () => {
  it('a mutation replayed after its answer was let go is refused as expired, not run again', async () => {
    const e = engine();
    const first = await call(e, 'entities_create', { request_id: 'once', entities: [{ type: 'Point', location: [1, 1] }] });
    expect(first.ok).toBe(true);
    // a replay within the window gives the first answer
    expect((await call(e, 'entities_create', { request_id: 'once', entities: [{ type: 'Point', location: [1, 1] }] })).result).toEqual(first.result);
    for (let i = 0; i < LIMITS.maxOperations + 5; i++) await call(e, 'ready', { request_id: `r${i}` });
    const v = active(e).version;
    const late = await fails(e, 'entities_create', { request_id: 'once', entities: [{ type: 'Point', location: [1, 1] }] }, 'request_id_expired');
    expect(late.error).toMatch(/already ran \(entities_create\)/);
    expect(active(e).version).toBe(v);
    const list = await ok(e, 'entities_list', {});
    expect(list.total).toBe(1);
  });
});

describe('answers kept for replays', () => {
  const saved = LIMITS.maxRetainedItems;
  afterEach(() => {
    (LIMITS as { maxRetainedItems: number }).maxRetainedItems = saved;
  });

  it('hold at most maxRetainedItems list items: older answers are let go (and really freed)', async () => {
    (LIMITS as { maxRetainedItems: number }).maxRetainedItems = 1000;
    const e = engine();
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'Point', location: [i, 0] }));
    const create = async (id: string) => new WeakRef((await call(e, 'entities_create', { request_id: id, entities: items(600) })).result as object);
    const ref = await create('a');
    await call(e, 'entities_create', { request_id: 'b', entities: items(600) });
    // b's answer pushed the total past the budget: a's answer went, its id is remembered
    expect(e.operations.has('a')).toBe(false);
    expect(e.operations.has('b')).toBe(true);
    await fails(e, 'entities_create', { request_id: 'a', entities: items(1) }, 'request_id_expired');
    await fails(e, 'operation', { id: 'a' }, 'unknown_operation');
    gc();
    await new Promise((r) => setTimeout(r, 0));
    gc();
    expect(ref.deref()).toBeUndefined();
  });

  it('keep no result for reads (a listing is run again, not replayed)', async () => {
    const e = engine();
    await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0] }] });
    await ok(e, 'entities_list', { request_id: 'list-1', detail: 'full' });
    const rec = await ok(e, 'operation', { id: 'list-1' });
    expect(rec).toMatchObject({ op: 'entities_list', status: 'completed', ok: true, result: null });
  });
});

describe('coordinates', () => {
  it('refuses creations and transforms that would leave ±1e100, changing nothing', async () => {
    const e = engine();
    const { handles } = await ok(e, 'entities_create', { entities: [{ type: 'Line', start: [0, 0], end: [1e90, 1] }] });
    const v = active(e).version;
    await fails(e, 'entities_create', { entities: [{ type: 'Circle', center: [0, 0], radius: 1e300 }] }, 'out_of_range');
    await fails(e, 'entities_transform', { handles, action: 'scale', base: [0, 0], factor: 1e20 }, 'out_of_range');
    await fails(e, 'command', { cmd: 'CIRCLE 0,0 1e200' }, 'out_of_range');
    expect(active(e).version).toBe(v);
    const list = await ok(e, 'entities_list', { detail: 'full' });
    expect(list.entities).toHaveLength(1);
    expect(list.entities[0].end).toEqual([1e90, 1, 0]);
  });
});

describe('the workspace', () => {
  const root = join(dir, 'root');
  const out = join(dir, 'out');
  mkdirSync(root);
  mkdirSync(out);
  writeFileSync(join(out, 'x.png'), 'x');
  symlinkSync(out, join(root, 'link'));

  it('refuses paths that leave the roots before looking them up', async () => {
    const ws = new Workspace([root]);
    for (const p of ['../out/x.png', join(out, 'x.png'), 'link/x.png', join(out, 'none.png'), 'link/none.png']) {
      await expect(ws.forRead(p), p).rejects.toMatchObject({ code: 'path_outside_root' });
    }
    await expect(ws.forRead('none.png')).rejects.toMatchObject({ code: 'file_not_found' });
    await expect(ws.forRead('.')).rejects.toMatchObject({ code: 'not_a_file' });
    await expect(ws.forRead('a\u0000b')).rejects.toMatchObject({ code: 'invalid_path' });
    await expect(ws.forWrite('link/new.pdf', 'file', { createFolders: true })).rejects.toMatchObject({ code: 'path_outside_root' });
    await expect(ws.forWrite('deep/er/new.dxf')).rejects.toMatchObject({ code: 'folder_not_found' });
    expect(await ws.forWrite('deep/er/new.dxf', 'file', { createFolders: true })).toBe(join(root, 'deep', 'er', 'new.dxf'));
    expect(Workspace.unrestricted(root).contains(join(out, 'x.png'))).toBe(true);
  });

  it('lets a render read only the linked images that lie inside', async () => {
    const png = new Resvg('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>').render().asPng();
    writeFileSync(join(root, 'in.png'), png);
    writeFileSync(join(root, 'in2.png'), png);
    writeFileSync(join(out, 'secret.png'), png);
    const e = engine({ workspace: new Workspace([root]) });
    await ok(e, 'embed_image', { path: 'in.png', insert: [0, 0] });
    // a drawing (from anywhere) may name any file: point a second IMAGEDEF outside
    const doc = active(e).doc;
    await ok(e, 'embed_image', { path: 'in2.png', insert: [10, 0] });
    const defs = doc.objects.filter((o) => o.type === 'IMAGEDEF');
    expect(defs).toHaveLength(2);
    defs.find((d) => d.attrs.filename === join(root, 'in2.png'))!.attrs.filename = join(out, 'secret.png');
    const images = await linkedImages(doc, e.workspace, root);
    expect(images.get(join(root, 'in.png'))).toBe(join(root, 'in.png'));
    expect(images.get(join(out, 'secret.png'))).toBeNull();
  });
});
