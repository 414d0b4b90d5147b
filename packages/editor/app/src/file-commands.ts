// NEW, OPEN, SAVE / QSAVE, SAVEAS, CLOSE: the session's document ops (document_new,
// document_open, save, document_close) behind AutoCAD's dialogs. Paths stay inside the workspace
// (the ops refuse others); the page remembers recent files in its own storage.
import type { App, DocInfo } from './app.js';
import { fileDialog, rememberFile, saveChangesDialog } from './dialogs.js';
import { Cancelled } from './prompts.js';

/** The drawing's path relative to the workspace when the listing knows it; else as the session has it. */
function docOf(app: App): (DocInfo & { path?: string | null }) | null {
  return (app.documents.find((d) => d.document_id === app.docId) as (DocInfo & { path?: string | null }) | undefined) ?? null;
}

export async function newDrawing(app: App): Promise<void> {
  const r = await app.api.op('document_new', {});
  app.message(`NEW: ${String(r.result?.name ?? 'drawing')}`);
}

export async function openDrawing(app: App, path?: string): Promise<void> {
  const chosen = path ?? (await fileDialog(app.api, { title: 'Select File' }))?.path;
  if (!chosen) throw new Cancelled();
  const r = await app.api.send('POST', '/documents', { path: chosen });
  rememberFile(chosen);
  app.message(`OPEN: ${String(r.result?.name ?? chosen)}`);
}

/** QSAVE: to the drawing's file; an untitled drawing asks for a name (SAVEAS). */
export async function quickSave(app: App): Promise<boolean> {
  const d = docOf(app);
  if (!d) throw new Error('no drawing is open');
  if (!d.path) return saveAs(app);
  const r = await app.api.op('save', { document_id: d.document_id });
  app.message(`Saved ${String(r.result?.path ?? d.name)}`);
  await app.refreshDocuments();
  return true;
}

/** SAVEAS: a name and a DXF version (R12 ... R2018); `path` / `version` typed on the command line skip the dialog. */
export async function saveAs(app: App, path?: string, version?: string): Promise<boolean> {
  const d = docOf(app);
  if (!d) throw new Error('no drawing is open');
  let target: { path: string; version?: string } | null = path ? { path, ...(version ? { version } : {}) } : null;
  if (!target) {
    const base = (d.name || 'drawing.dxf').replace(/\.dxf$/i, '') + '.dxf';
    target = await fileDialog(app.api, { title: 'Save Drawing As', save: { name: base } });
  }
  if (!target) return false;
  const r = await app.api.op('save', { document_id: d.document_id, path: target.path, ...(target.version ? { version: target.version } : {}) });
  rememberFile(target.path);
  const res = r.result as { path: string; dxf_version: string; dropped?: unknown[] };
  app.message(`Saved ${res.path} (${res.dxf_version})${res.dropped?.length ? `; left out: ${res.dropped.length} kinds of records` : ''}`);
  await app.refreshDocuments();
  return true;
}

/** CLOSE: a modified drawing asks "Save changes?" first (Yes saves, No discards, Cancel keeps it open). */
export async function closeDrawing(app: App): Promise<void> {
  const d = docOf(app);
  if (!d) throw new Error('no drawing is open');
  let discard = false;
  if (d.modified) {
    const answer = await saveChangesDialog(d.name);
    if (answer === null) throw new Cancelled();
    if (answer === 'yes') {
      if (!(await quickSave(app))) throw new Cancelled();
    } else discard = true;
  }
  await app.api.op('document_close', { document_id: d.document_id, ...(discard ? { discard: true } : {}) });
  app.message(`CLOSE: ${d.name}`);
}
