// DXF fidelity in the engine (issue 14): an R12 drawing without $HANDLING opens with a handle on
// every record (item 4); save reports what a conversion made of what and what it left out; plot
// draws viewport contents whatever the viewport's layer (item 7) and says when a page comes out
// (nearly) empty, `fit` plotting the extents instead (item 8). Compared through ezdxf.
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

describe('save reports every conversion and every drop', () => {
  it('R2018 -> R12: what became what, what was left out', async () => {
    const e = engine();
    await ok(e, 'entities_create', {
      entities: [
        { type: 'LWPolyline', points: [[0, 0], [4, 0], [4, 4]], closed: true },
        { type: 'MText', value: 'one\\Ptwo', position: [0, 10] },
        { type: 'Hatch', boundary: [[0, 0], [2, 0], [2, 2]] },
        { type: 'Line', start: [0, 0], end: [1, 1] },
      ],
    });
    const out = join(mkdtempSync(join(tmpdir(), 'lw-save-report-')), 'r12.dxf');
    const r = await ok(e, 'save', { path: out, version: 'R12' });
    expect(r.converted).toEqual({ 'LWPOLYLINE -> POLYLINE': 1, 'MTEXT -> TEXT': 1 });
    expect(r.dropped).toMatchObject({ HATCH: 1 });
    expect(r.warnings).toContain('1 HATCH left out: R12 has no place for it');
    // the same version: nothing converted, nothing dropped
    const same = await ok(e, 'save', { path: out.replace('r12', 'same') });
    expect(same).toMatchObject({ converted: {}, dropped: {}, warnings: [] });
  });
});
