// files_list: a workspace folder as a file dialog sees it (sub-folders and DXF drawings only, links
// leading out of the workspace left out, nothing outside the workspace listed).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Workspace } from '../src/workspace.js';
import { engine, fails, ok } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'lw-files-'));
const outside = mkdtempSync(join(tmpdir(), 'lw-files-out-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('files_list', () => {
  mkdirSync(join(root, 'plans', 'deep'), { recursive: true });
  mkdirSync(join(root, '.hidden'));
  writeFileSync(join(root, 'b.dxf'), '0\nEOF\n');
  writeFileSync(join(root, 'A.DXF'), '0\nEOF\n');
  writeFileSync(join(root, 'notes.txt'), 'x');
  writeFileSync(join(root, 'plans', 'p1.dxf'), '0\nEOF\n');
  writeFileSync(join(outside, 'secret.dxf'), '0\nEOF\n');
  symlinkSync(outside, join(root, 'link-out'));
  symlinkSync(join(root, 'plans'), join(root, 'link-in'));
  const e = engine({ workspace: new Workspace([root]) });

  it('lists folders first, then drawings; no other files, no hidden folders, no links leading out', async () => {
    const r = await ok(e, 'files_list');
    expect(r.folder).toBe('');
    expect(r.parent).toBeNull();
    expect(r.entries.map((x: { name: string; kind: string }) => `${x.kind}:${x.name}`)).toEqual(['folder:link-in', 'folder:plans', 'drawing:A.DXF', 'drawing:b.dxf']);
    expect(r.entries.find((x: { name: string }) => x.name === 'b.dxf')).toMatchObject({ path: 'b.dxf', size: 6 });
  });

  it('walks into a folder and back up to the root', async () => {
    const r = await ok(e, 'files_list', { folder: 'plans' });
    expect(r.folder).toBe('plans');
    expect(r.parent).toBe('');
    expect(r.entries.map((x: { path: string }) => x.path)).toEqual(['plans/deep', 'plans/p1.dxf']);
  });

  it('refuses folders outside the workspace, by name or through a link', async () => {
    await fails(e, 'files_list', { folder: '..' }, 'path_outside_root');
    await fails(e, 'files_list', { folder: outside }, 'path_outside_root');
    await fails(e, 'files_list', { folder: 'link-out' }, 'path_outside_root');
    await fails(e, 'files_list', { folder: 'missing' }, 'file_not_found');
    await fails(e, 'files_list', { folder: 'b.dxf' }, 'not_a_file');
  });
});
