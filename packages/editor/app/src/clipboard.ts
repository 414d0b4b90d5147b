// Ctrl+C / Ctrl+X / Ctrl+V between the drawings of the session (AutoCAD's COPYCLIP, CUTCLIP,
// PASTECLIP) through the session's clipboard (the engine's clipboard_* ops): copy and cut put the
// entities with everything they depend on (blocks, layers, styles ...) into the clipboard's own
// drawing, as AutoCAD writes the selection to a clipboard file, and cut erases them; paste asks
// for an insertion point and copies from the clipboard into the shown drawing and layout, moved so
// that the base point (the lower left of the entities' extents) lands there: one undo step,
// the same into the source drawing, another drawing, or after the source was closed.
import type { App } from './app.js';
import { Cancelled } from './prompts.js';

export interface Clip {
  /** The drawing the entities came from. */
  documentId: number;
  count: number;
  cut: boolean;
}

let clip: Clip | null = null;

/** What this page last put on the clipboard (null: nothing yet). */
export function clipboard(): Clip | null {
  return clip;
}

export async function copyClip(app: App, cut = false): Promise<void> {
  if (app.docId === null || !app.selection.length) {
    app.note('Select objects first, then copy', true);
    return;
  }
  const documentId = app.docId;
  const r = await app.api.op(cut ? 'clipboard_cut' : 'clipboard_copy', { document_id: documentId, handles: [...app.selection] });
  const count = (r.result?.count ?? 0) as number;
  clip = { documentId, count, cut };
  app.message(`${cut ? 'CUTCLIP' : 'COPYCLIP'}: ${count} object${count === 1 ? '' : 's'}`);
}

/** PASTECLIP: asks for the insertion point (the clipboard's base point lands there). */
export async function pasteClip(app: App): Promise<string[]> {
  if (!clip) {
    app.note('The clipboard is empty', true);
    return [];
  }
  if (app.docId === null) throw new Error('no drawing is open');
  const at = await app.point('Specify insertion point:', undefined);
  if (!at) throw new Cancelled();
  const r = await app.api.op('clipboard_paste', { document_id: app.docId, point: [at[0], at[1]], layout: app.layout });
  const copies = (r.result?.handles ?? []) as string[];
  app.message(`PASTECLIP: ${copies.length} object${copies.length === 1 ? '' : 's'}`);
  return copies;
}
