// Issue 14, item 4: an R12 drawing without $HANDLING opens with a handle on every record, so
// queries, edits and the spatial index address each entity; what is saved is the same drawing as
// ezdxf sees it (handles aside).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ezdxfView, skipWithoutEzdxf, viewDifferences } from '../../dxf/test/helpers.js';
import { engine, ok } from './helpers.js';

const FIXTURE = new URL('../../dxf/test/fixtures/r12_no_handles.dxf', import.meta.url).pathname;

describe('4. R12 without $HANDLING opens with handles', () => {
  it('every entity has its own handle, bounds and box queries find them, also after creations', async () => {
    expect(readFileSync(FIXTURE, 'latin1')).not.toContain('$HANDLING');
    const e = engine();
    await ok(e, 'document_open', { path: FIXTURE });
    const all = (await ok(e, 'entities_list', { detail: 'geometry' })).entities as { handle: string; type: string; bounds: { min: number[]; max: number[] } }[];
    expect(all.map((x) => x.type)).toEqual(['Insert', 'Polyline', 'Circle', 'Line']);
    const handles = all.map((x) => x.handle);
    for (const h of handles) expect(h).toMatch(/^[0-9A-F]+$/);
    expect(new Set(handles).size).toBe(handles.length);
    const circle = all.find((x) => x.type === 'Circle')!;
    expect(circle.bounds.min.slice(0, 2)).toEqual([2.5, 2.5]);
    expect(circle.bounds.max.slice(0, 2)).toEqual([7.5, 7.5]);
    const inBox = async (): Promise<string[]> => (await ok(e, 'entities_list', { bounds: [4, 4, 6, 6] })).entities.map((x: { type: string }) => x.type);
    expect(await inBox()).toEqual(['Circle', 'Line']);
    await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [5, 5] }] });
    expect(await inBox()).toEqual(['Circle', 'Line', 'Point']);
    expect((await ok(e, 'entity_get', { handle: circle.handle })).entities[0].type).toBe('Circle');
    await ok(e, 'entities_delete', { handles: [circle.handle] });
    expect(await inBox()).toEqual(['Line', 'Point']);
  });

  it.skipIf(skipWithoutEzdxf())('what a box query finds is what an edit changes: ezdxf sees exactly those entities gone', async () => {
    const e = engine();
    await ok(e, 'document_open', { path: FIXTURE });
    const found = (await ok(e, 'entities_list', { bounds: [4, 4, 6, 6] })).entities.map((x: { handle: string }) => x.handle);
    expect(found).toHaveLength(2);
    await ok(e, 'entities_delete', { handles: found });
    const out = join(mkdtempSync(join(tmpdir(), 'lw-r12-open-')), 'saved.dxf');
    await ok(e, 'save', { path: out });
    const [r] = ezdxfView([{ original: FIXTURE, written: out }]);
    expect(r!.written_audit).toEqual([0, 0]);
    // the CIRCLE and the LINE (model space records 2 and 3, the LINE with its xdata) are gone;
    // nothing else changed
    expect(r!.differences?.entities).toMatchObject({ changed: 0, lost: 2, added: 0 });
    expect(r!.differences?.xdata).toMatchObject({ changed: 0, lost: 1, added: 0, example: 'lost *MODEL_SPACE#3' });
    expect(viewDifferences(r!, ['blocks', 'tables'])).toEqual([]);
  });
});
