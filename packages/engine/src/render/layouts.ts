// Finding a layout and its LAYOUT object: shared by the renderer and the page setups, which both
// need them and must not import each other.
import type { Block, DocumentApi, DxfRecord } from '../dxf.js';

/** Finds a layout by name (case-insensitive); 'Model' / '*Model_Space' is model space. */
export function findLayout(doc: DocumentApi, name: string | undefined): { name: string; block: Block; handle: string } | undefined {
  const all = doc.layouts();
  if (name === undefined || name === '') return all.find((l) => l.block.name.toUpperCase() === '*MODEL_SPACE') ?? all[0];
  const up = name.toUpperCase();
  return all.find((l) => l.name.toUpperCase() === up) ?? (up === 'MODEL' ? all.find((l) => l.block.name.toUpperCase() === '*MODEL_SPACE') : undefined);
}

/** The LAYOUT object of a layout: by its handle, else by name; undefined in R12 drawings. */
export function layoutObject(doc: DocumentApi, layout: { name: string; handle: string }): DxfRecord | undefined {
  const rec = layout.handle ? doc.get(layout.handle) : undefined;
  if (rec && rec.type === 'LAYOUT') return rec;
  const up = layout.name.toUpperCase();
  return doc.objects.find((o) => o.type === 'LAYOUT' && String(o.attrs.name ?? '').toUpperCase() === up);
}
