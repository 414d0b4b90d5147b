// Ctrl+C / Ctrl+X / Ctrl+V between the drawings of the session (AutoCAD's COPYCLIP, CUTCLIP,
// PASTECLIP): the clipboard holds handles of a drawing and their base point (the lower left of
// their extents); paste asks for an insertion point and copies through the session's ops
// (entities_transform copy within a drawing: one undo step; entities_copy_to between drawings,
// which brings the layers, styles and blocks along, then a move to the point). Cut erases the
// entities, so the clipboard keeps their records (entity_get) and paste creates them again.
import type { App } from './app.js';
import { Cancelled, type Point } from './prompts.js';

export interface Clip {
  documentId: number;
  handles: string[];
  base: Point;
  /** Cut: the entities are gone from the drawing, so the clipboard holds their records. */
  records?: Record<string, unknown>[];
}

let clip: Clip | null = null;

export function clipboard(): Clip | null {
  return clip;
}

async function boundsOf(app: App, handles: string[]): Promise<Point> {
  const r = await app.api.op('get_selection', { document_id: app.docId });
  const entries = (r.result?.entities ?? []) as { handle: string; bounds: { min: number[]; max: number[] } | null }[];
  let x = Infinity, y = Infinity;
  for (const e of entries) {
    if (!handles.includes(e.handle) || !e.bounds) continue;
    x = Math.min(x, e.bounds.min[0]!);
    y = Math.min(y, e.bounds.min[1]!);
  }
  return Number.isFinite(x) ? [x, y] : [0, 0];
}

export async function copyClip(app: App, cut = false): Promise<void> {
  if (app.docId === null || !app.selection.length) {
    app.note('Select objects first, then copy', true);
    return;
  }
  const handles = [...app.selection];
  const documentId = app.docId;
  const base = await boundsOf(app, handles);
  if (!cut) {
    clip = { documentId, handles, base };
    app.message(`COPYCLIP: ${handles.length} object${handles.length === 1 ? '' : 's'}`);
    return;
  }
  const records: Record<string, unknown>[] = [];
  for (const h of handles) {
    const r = await app.api.op('entity_get', { document_id: documentId, handle: h, detail: 'full' });
    const e = (r.result?.entities?.[0] ?? null) as Record<string, unknown> | null;
    if (e) records.push(e);
  }
  await app.api.op('entities_delete', { document_id: documentId, handles });
  clip = { documentId, handles, base, records };
  app.message(`CUTCLIP: ${handles.length} object${handles.length === 1 ? '' : 's'}`);
}

/** PASTECLIP: asks for the insertion point (the clipboard's base point lands there). */
export async function pasteClip(app: App): Promise<string[]> {
  const c = clip;
  if (!c) {
    app.note('The clipboard is empty', true);
    return [];
  }
  if (app.docId === null) throw new Error('no drawing is open');
  const at = await app.point('Specify insertion point:', undefined);
  if (!at) throw new Cancelled();
  const vector = [at[0] - c.base[0], at[1] - c.base[1]];
  let copies: string[];
  if (c.records) {
    const r = await app.api.op('entities_create', { document_id: app.docId, entities: c.records, create_layers: true });
    copies = (r.result?.handles ?? []) as string[];
    if (vector[0] !== 0 || vector[1] !== 0) await app.api.op('entities_transform', { document_id: app.docId, handles: copies, action: 'move', vector });
  } else if (c.documentId === app.docId) {
    const r = await app.api.op('entities_transform', { document_id: app.docId, handles: c.handles, action: 'copy', vector });
    copies = (r.result?.handles ?? []) as string[];
  } else {
    const r = await app.api.op('entities_copy_to', { document_id: app.docId, source_document_id: c.documentId, handles: c.handles });
    copies = (r.result?.handles ?? []) as string[];
    if (vector[0] !== 0 || vector[1] !== 0) await app.api.op('entities_transform', { document_id: app.docId, handles: copies, action: 'move', vector });
  }
  app.message(`PASTECLIP: ${copies.length} object${copies.length === 1 ? '' : 's'}`);
  return copies;
}
