// Entities the DXF package has no geometry for (MLINE, MULTILEADER ...) take their box from what the
// renderer draws of them, so a window selects them and zoom extents counts them.
import { describe, expect, it } from 'vitest';
import { engine, ok } from './helpers.js';

const FIXTURE = new URL('./fixtures/closure_source.dxf', import.meta.url).pathname;

describe('boxes of entities drawn only by the renderer', () => {
  it('MLINE and MULTILEADER have bounds, a window just around each selects it', async () => {
    const e = engine();
    const id = (await ok(e, 'document_open', { path: FIXTURE })).document_id as number;
    const doc = e.documents.get(id)!.doc;
    const drawnOnly = doc.modelSpace().entities.filter((x) => x.type === 'MLINE' || x.type === 'MULTILEADER');
    expect(drawnOnly.map((x) => x.type).sort()).toEqual(['MLINE', 'MULTILEADER']);
    for (const x of drawnOnly) {
      const got = await ok(e, 'entity_get', { handle: x.handle });
      const bounds = got.entities[0].bounds as { min: number[]; max: number[] } | null;
      expect(bounds, x.type).not.toBeNull();
      expect(bounds!.max[0]!).toBeGreaterThan(bounds!.min[0]!);
      // a window just around the entity selects it
      const window = [bounds!.min[0]! - 0.01, bounds!.min[1]! - 0.01, bounds!.max[0]! + 0.01, bounds!.max[1]! + 0.01];
      const sel = await ok(e, 'select', { window, mode: 'replace' });
      expect(sel.handles, x.type).toContain(x.handle);
    }
  });
});
