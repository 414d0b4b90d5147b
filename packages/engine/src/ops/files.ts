// The workspace's drawings as a file dialog sees them: one folder at a time, its sub-folders and
// its DXF files, never a path outside the workspace (the editor's OPEN and SAVEAS dialogs).
import { readdir, realpath, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { z } from 'zod';
import { OpError } from '../protocol.js';
import { deadline, quote, type Workspace } from '../workspace.js';
import { defineOp } from './types.js';

/** Entries listed at most per folder (a folder of a million files must not make a huge answer). */
const MAX_ENTRIES = 2000;

export interface FileEntry {
  name: string;
  /** What to give document_open / save: relative to the workspace's first root, else absolute. */
  path: string;
  kind: 'folder' | 'drawing';
  size?: number;
  modified?: string;
}

/** How a client names a path of the workspace: relative to the first root when inside it. */
function clientPath(ws: Workspace, abs: string): string {
  const rel = relative(ws.primary, abs);
  if (rel === '') return '';
  return rel.startsWith('..') || rel.startsWith(sep) ? abs : rel.split(sep).join('/');
}

export const filesList = defineOp({
  name: 'files_list',
  summary: 'The sub-folders and drawings (DXF, DWG) of a workspace folder (default: the workspace root), for a file dialog: {folder?} -> {folder, parent, roots, entries[{name, path, kind, size, modified}]}.',
  input: z.object({
    folder: z.string().optional().describe('folder to list, relative to the workspace root (default: the root)'),
  }),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: false,
  // no resource route of its own (the spec's route table is fixed): POST /files_list
  http: [],
  mcpGroup: 'session',
  output: z.object({
    folder: z.string().describe('the folder listed, as the workspace names it'),
    parent: z.string().nullable().describe('the folder above (null at a workspace root)'),
    roots: z.array(z.string()),
    entries: z.array(z.object({
      name: z.string(), path: z.string().describe('what document_open and save take'), kind: z.enum(['folder', 'drawing']),
      size: z.number().int().optional(), modified: z.string().optional(),
    })),
    truncated: z.boolean().describe('more entries than are listed'),
  }),
  errors: ['path_outside_root', 'file_not_found', 'not_a_file', 'invalid_path', 'io_timeout'],
  handler: async (ctx, input) => {
    const ws = ctx.engine.workspace;
    const named = input.folder ?? '';
    if (named.includes('\u0000')) throw new OpError('invalid_path', 'the folder path holds a NUL character');
    const abs = ws.absolute(named);
    if (!ws.contains(abs)) throw outsideFolder(named);
    const real = await deadline(realpath(abs), `looking up ${quote(named)}`).catch((err: unknown) => {
      if (err instanceof OpError) throw err;
      throw new OpError('file_not_found', `no folder ${quote(named)} in the workspace`, { path: named.slice(0, 200) });
    });
    if (!ws.contains(real)) throw outsideFolder(named);
    const st = await deadline(stat(real), `looking up ${quote(named)}`);
    if (!st.isDirectory()) throw new OpError('not_a_file', `${quote(named)} is not a folder`, { path: named.slice(0, 200) });
    const dirents = await deadline(readdir(real, { withFileTypes: true }), `listing ${quote(named)}`);
    const entries: FileEntry[] = [];
    let truncated = false;
    for (const d of dirents) {
      if (d.name.startsWith('.')) continue;
      const full = join(real, d.name);
      let kind: FileEntry['kind'] | null = null;
      let info: Awaited<ReturnType<typeof stat>> | null = null;
      if (d.isDirectory() || d.isSymbolicLink() || d.isFile()) {
        // links are followed, and kept only when they lead inside the workspace
        const target = d.isSymbolicLink() ? await realpath(full).catch(() => null) : full;
        if (target === null || !ws.contains(target)) continue;
        info = await stat(target).catch(() => null);
        if (info?.isDirectory()) kind = 'folder';
        else if (info?.isFile() && /\.(dxf|dwg)$/i.test(d.name)) kind = 'drawing';
      }
      if (!kind || !info) continue;
      if (entries.length >= MAX_ENTRIES) {
        truncated = true;
        break;
      }
      entries.push({
        name: d.name, path: clientPath(ws, full), kind,
        ...(kind === 'drawing' ? { size: info.size, modified: info.mtime.toISOString() } : {}),
      });
    }
    entries.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === 'folder' ? -1 : 1));
    const isRoot = ws.roots.includes(real);
    return {
      folder: clientPath(ws, real),
      parent: isRoot ? null : clientPath(ws, dirname(real)),
      roots: ws.roots.map((r) => clientPath(ws, r)),
      entries,
      truncated,
    };
  },
});

function outsideFolder(p: string): OpError {
  return new OpError('path_outside_root', `the folder ${quote(p)} is outside the workspace: paths must stay inside the workspace root`, { path: p.slice(0, 200) });
}

export const FILE_OPS = [filesList];
