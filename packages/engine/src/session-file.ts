// A session saved to its workspace and brought back: the hosted server releases an idle
// organization's session this way and restores it on the organization's next request.
//
// What is saved: every open document, in order, with its id, name, file path, version and whether
// it has unsaved changes, and which one is active; the session's system variables (OFFSETDIST,
// TRIMMODE, HPNAME ...: those AutoCAD keeps out of the drawing). A document with unsaved changes (an untitled
// drawing, or a file changed since it was saved) is written to `.autosave/<id>.dxf` in the
// workspace's first root; its own file is never touched (saving over a user's file is the user's
// decision). What is not saved: undo history, selection, named selection sets, views, events and
// the answers kept by request_id; the restored session has a new session_id, which tells clients
// so (`session_changed`).
import { checkSessionRoom, noteDocumentBytes } from './session-budget.js';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { dxf } from './dxf.js';
import type { Engine } from './engine.js';
import { readDocument } from './ops/documents.js';
import { restoreSessionVars } from './ops/sysvars.js';

/** The folder (in the workspace's first root) that holds the saved session. */
export const AUTOSAVE_FOLDER = '.autosave';
const MANIFEST = 'session.json';

const SavedDocument = z.object({
  id: z.number().int().min(1),
  name: z.string().max(1000),
  path: z.string().nullable(),
  /** Where the document's unsaved state was written (relative to the root), else null. */
  autosave: z.string().nullable(),
  modified: z.boolean(),
  version: z.number().int().min(0),
});

// The manifest lies in a folder the session's own clients may write to: it is read as untrusted
// input (every path goes through the workspace's checks again when it is read back).
const Manifest = z.object({
  format: z.literal('linework-session'),
  version: z.literal(1),
  saved_at: z.string(),
  active_document_id: z.number().int().nullable(),
  next_document_id: z.number().int().min(1),
  untitled: z.number().int().min(0),
  documents: z.array(SavedDocument).max(100_000),
  /** The session's system variables (absent in files saved before they existed). */
  session_vars: z.record(z.string(), z.unknown()).optional(),
});
export type SessionManifest = z.infer<typeof Manifest>;

export interface RestoreReport {
  restored: number[];
  /** Documents that could not be read back (file gone, not DXF), with the reason. */
  skipped: { id: number; name: string; reason: string }[];
}

/** True when the workspace holds a saved session to restore. */
export async function hasSavedSession(root: string): Promise<boolean> {
  return readFile(join(root, AUTOSAVE_FOLDER, MANIFEST)).then(() => true, () => false);
}

/** Writes the session's documents and its manifest; autosaves of documents no longer open are removed. */
export async function saveSession(engine: Engine): Promise<SessionManifest> {
  const ws = engine.workspace;
  const documents: SessionManifest['documents'] = [];
  const kept = new Set<string>();
  for (const store of engine.documents.values()) {
    let autosave: string | null = null;
    if (store.modified || store.path === null) {
      autosave = `${AUTOSAVE_FOLDER}/${store.id}.dxf`;
      await dxf.saveDxf(store.doc, await ws.forWrite(autosave, 'autosave', { createFolders: true }));
      kept.add(`${store.id}.dxf`);
    }
    documents.push({ id: store.id, name: store.name, path: store.path, autosave, modified: store.modified, version: store.version });
  }
  const c = engine.counters;
  const manifest: SessionManifest = {
    format: 'linework-session', version: 1, saved_at: new Date().toISOString(),
    active_document_id: engine.activeId, next_document_id: c.nextDocumentId, untitled: c.untitled, documents,
    ...(engine.sessionVars.size ? { session_vars: Object.fromEntries(engine.sessionVars) } : {}),
  };
  const target = await ws.forWrite(`${AUTOSAVE_FOLDER}/${MANIFEST}`, 'session file', { createFolders: true });
  const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, JSON.stringify(manifest, null, 1));
  await rename(tmp, target);
  const folder = join(ws.primary, AUTOSAVE_FOLDER);
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    if (/^\d+\.dxf$/.test(name) && !kept.has(name)) await rm(join(folder, name), { force: true });
  }
  return manifest;
}

/**
 * Reads the saved session of the engine's workspace back into the engine (made `empty`): the
 * documents under their old ids, their versions and modified flags, the active one. A document
 * that cannot be read is skipped and reported; a manifest that is not one restores nothing.
 */
export async function restoreSession(engine: Engine): Promise<RestoreReport> {
  const report: RestoreReport = { restored: [], skipped: [] };
  let manifest: SessionManifest;
  try {
    const text = await readFile(join(engine.workspace.primary, AUTOSAVE_FOLDER, MANIFEST), 'utf8');
    manifest = Manifest.parse(JSON.parse(text));
  } catch (err) {
    report.skipped.push({ id: 0, name: MANIFEST, reason: `no readable session file: ${(err as Error).message.slice(0, 200)}` });
    return report;
  }
  for (const saved of manifest.documents) {
    const source = saved.autosave ?? saved.path;
    if (source === null || engine.documents.has(saved.id)) continue;
    try {
      // the manifest is the organization's file: its documents count against the session's budget too
      const { doc, size } = await readDocument(engine.workspace, source, (bytes) => checkSessionRoom(engine, bytes));
      const path = saved.path !== null && engine.workspace.contains(saved.path) ? saved.path : null;
      const store = engine.restoreDocument(saved.id, doc, saved.name, path);
      noteDocumentBytes(engine, saved.id, size);
      store.version = saved.version;
      store.modified = saved.modified;
      report.restored.push(saved.id);
    } catch (err) {
      report.skipped.push({ id: saved.id, name: saved.name, reason: (err as Error).message.slice(0, 300) });
    }
  }
  engine.continueCounters({ nextDocumentId: manifest.next_document_id, untitled: manifest.untitled });
  if (manifest.session_vars) restoreSessionVars(engine.sessionVars as Map<string, unknown>, manifest.session_vars);
  const active = manifest.active_document_id;
  if (active !== null && engine.documents.has(active)) engine.activeId = active;
  else if (engine.documents.size) engine.activeId = [...engine.documents.keys()].at(-1)!;
  return report;
}
