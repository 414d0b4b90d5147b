// A session saved to its workspace and restored into a new engine: documents under their old ids,
// versions, modified flags, the active one; files of the user never overwritten; the manifest read
// as untrusted input.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUTOSAVE_FOLDER, createEngine, hasSavedSession, restoreSession, saveSession, Workspace, type Engine } from '../src/index.js';
import { call, ok } from './helpers.js';

let root: string;
const make = (empty = false): Engine => createEngine({ workspace: new Workspace([root]), ...(empty ? { empty: true } : {}) });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'lw-session-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('saveSession / restoreSession', () => {
  it('brings back every document under its id, with its version, changes and the active one', async () => {
    const a = make();
    await ok(a, 'entities_create', { entities: [{ type: 'Line', start: [0, 0], end: [1, 1] }] });
    // a file, saved, then changed again: its unsaved change goes to the autosave, not the file
    const file = await ok(a, 'document_open', {});
    await ok(a, 'entities_create', { document_id: file.document_id, entities: [{ type: 'Circle', center: [0, 0], radius: 2 }] });
    await ok(a, 'save', { document_id: file.document_id, path: 'plan.dxf' });
    const onDisk = readFileSync(join(root, 'plan.dxf'));
    await ok(a, 'entities_create', { document_id: file.document_id, entities: [{ type: 'Point', location: [5, 5] }] });
    // a third document, closed: its id is never given again
    const gone = await ok(a, 'document_open', {});
    await ok(a, 'document_close', { document_id: gone.document_id });
    await ok(a, 'activate', { document_id: 1 });
    const versions = [...a.documents.values()].map((d) => [d.id, d.version, d.modified]);

    const manifest = await saveSession(a);
    expect(manifest.documents.map((d) => d.autosave)).toEqual([`${AUTOSAVE_FOLDER}/1.dxf`, `${AUTOSAVE_FOLDER}/2.dxf`]);
    expect(readFileSync(join(root, 'plan.dxf')).equals(onDisk)).toBe(true);
    expect(await hasSavedSession(root)).toBe(true);

    const b = make(true);
    const report = await restoreSession(b);
    expect(report).toEqual({ restored: [1, 2], skipped: [] });
    expect([...b.documents.values()].map((d) => [d.id, d.version, d.modified])).toEqual(versions);
    expect(b.activeId).toBe(1);
    expect(b.sessionId).not.toBe(a.sessionId);
    expect((await ok(b, 'entities_list', { document_id: 1 })).count).toBe(1);
    expect((await ok(b, 'entities_list', { document_id: 2 })).count).toBe(2);
    expect(b.documents.get(2)!.path).toBe(join(root, 'plan.dxf'));
    expect((await call(b, 'document_close', { document_id: 2 })).code).toBe('document_modified');
    const fresh = await ok(b, 'document_open', {});
    expect(fresh.document_id).toBe(4);
    expect(fresh.name).toBe('Drawing4.dxf');
  });

  it('a document saved since the last release is read from its file, and stale autosaves go', async () => {
    const a = make();
    await ok(a, 'entities_create', { entities: [{ type: 'Point', location: [1, 1] }] });
    await saveSession(a);
    expect(readdirSync(join(root, AUTOSAVE_FOLDER)).sort()).toEqual(['1.dxf', 'session.json']);
    await ok(a, 'save', { path: 'kept.dxf' });
    const m = await saveSession(a);
    expect(m.documents).toMatchObject([{ id: 1, autosave: null, modified: false, path: join(root, 'kept.dxf') }]);
    expect(readdirSync(join(root, AUTOSAVE_FOLDER))).toEqual(['session.json']);
    const b = make(true);
    expect((await restoreSession(b)).restored).toEqual([1]);
    expect(b.documents.get(1)!.modified).toBe(false);
  });

  it('brings back the session\'s system variables (TRIMMODE, HPNAME ...), taking only known ones with valid values', async () => {
    const a = make();
    await ok(a, 'sysvars', { set: { TRIMMODE: 0, HPNAME: 'ANSI31', OFFSETDIST: 2.5 } });
    await saveSession(a);
    const file = join(root, AUTOSAVE_FOLDER, 'session.json');
    const m = JSON.parse(readFileSync(file, 'utf8'));
    expect(m.session_vars).toEqual({ TRIMMODE: 0, HPNAME: 'ANSI31', OFFSETDIST: 2.5 });
    // the file is the organization's: a header variable, an unknown one and a bad value are left out
    m.session_vars = { ...m.session_vars, FILLETRAD: 9, WIBBLE: 1, EDGEMODE: 7 };
    writeFileSync(file, JSON.stringify(m));
    const b = make(true);
    await restoreSession(b);
    expect(Object.fromEntries(b.sessionVars)).toEqual({ TRIMMODE: 0, HPNAME: 'ANSI31', OFFSETDIST: 2.5 });
    expect((await ok(b, 'sysvars', { get: ['TRIMMODE', 'EDGEMODE'] })).values).toEqual({ TRIMMODE: 0, EDGEMODE: 0 });
  });

  it('reads the manifest as untrusted: paths outside the workspace are refused, junk restores nothing', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'lw-outside-'));
    try {
      const a = make();
      await ok(a, 'save', { path: 'inside.dxf' });
      writeFileSync(join(outside, 'secret.dxf'), readFileSync(join(root, 'inside.dxf')));
      await saveSession(a);
      const file = join(root, AUTOSAVE_FOLDER, 'session.json');
      const m = JSON.parse(readFileSync(file, 'utf8'));
      m.documents.push({ id: 7, name: 'x', path: join(outside, 'secret.dxf'), autosave: null, modified: false, version: 0 });
      m.documents.push({ id: 8, name: 'y', path: null, autosave: '../../etc/passwd', modified: true, version: 0 });
      writeFileSync(file, JSON.stringify(m));
      const b = make(true);
      const report = await restoreSession(b);
      expect(report.restored).toEqual([1]);
      expect(report.skipped.map((s) => s.id)).toEqual([7, 8]);
      for (const s of report.skipped) expect(s.reason).toMatch(/outside the workspace/);

      writeFileSync(file, '{"format":"something else"}');
      const c = make(true);
      const junk = await restoreSession(c);
      expect(junk.restored).toEqual([]);
      expect(c.documents.size).toBe(0);
      expect(statSync(file).isFile()).toBe(true);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
