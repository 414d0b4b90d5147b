// The raster files a drawing links (IMAGEDEF file names), looked up inside the workspace before a
// render: the renderer then reads only files the client could have named itself, so a drawing
// cannot pull /etc/shadow (or a FIFO) into a plot.
import type { DocumentApi } from '../dxf.js';
import { imageCandidates } from '../render/renderer.js';
import type { Workspace } from '../workspace.js';

export async function linkedImages(doc: DocumentApi, workspace: Workspace, baseDir: string | undefined): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const o of doc.objects) {
    if (o.type !== 'IMAGEDEF') continue;
    const name = typeof o.attrs.filename === 'string' ? o.attrs.filename : '';
    if (!name || out.has(name)) continue;
    let found: string | null = null;
    for (const c of imageCandidates(name, baseDir)) {
      found = await workspace.forRead(c, 'image').catch(() => null);
      if (found) break;
    }
    out.set(name, found);
  }
  return out;
}
