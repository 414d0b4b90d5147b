// An opened drawing keeps its entities as their bytes (the DXF reader's lazy mode) until after the
// open: the open boxes them from their bytes, the first display lists read them through their
// fields, and they become plain records in slices after it, or at once before any other op (one
// that copies records as data would copy an accessor's object without its attributes).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { dxf, LazyEntity, type DocumentApi, type Entity } from '../src/dxf.js';
import { DocStore } from '../src/store/document-store.js';
import { active, dump, engine, ok } from './helpers.js';
import { scratchDir } from '../../dxf/test/helpers.js';

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A drawing of `n` mixed entities (a block and its references, tilted ones among them) saved to a file. */
function drawingFile(n: number): string {
  const doc = dxf.newDocument();
  const block = doc.addBlock('MARK', [0, 0, 0]);
  doc.addEntity({ kind: 'entity', type: 'CIRCLE', handle: '', owner: '', attrs: { layer: '0', center: [0, 0, 0], radius: 0.5 } }, block.name);
  doc.addEntity({ kind: 'entity', type: 'LINE', handle: '', owner: '', attrs: { layer: '0', start: [-1, 0, 0], end: [1, 0, 0] } }, block.name);
  const add = (type: string, attrs: Record<string, unknown>): void => void doc.addEntity({ kind: 'entity', type, handle: '', owner: '', attrs: { layer: '0', ...attrs } } as Entity);
  for (let i = 0; i < n; i++) {
    const x = (i % 300) * 10, y = Math.floor(i / 300) * 10;
    switch (i % 9) {
      case 0: add('LINE', { start: [x, y, 0], end: [x + 5, y + 3, 1] }); break;
      case 1: add('CIRCLE', { center: [x, y, 0], radius: 2 }); break;
      case 2: add('ARC', { center: [x, y, 0], radius: 3, start_angle: 15, end_angle: 195 }); break;
      case 3: add('TEXT', { insert: [x, y, 0], height: 1.5, text: `T${i}` }); break;
      case 4: add('LWPOLYLINE', { flags: 1, points: [[x, y, 0, 0, 0], [x + 4, y, 0, 0, 0.5], [x + 4, y + 4, 0, 0, 0], [x, y + 4, 0, 0, 0]] }); break;
      case 5: add('INSERT', { name: 'MARK', insert: [x, y, 0], rotation: 30 }); break;
      case 6: add('CIRCLE', { center: [x, y, 1], radius: 1, extrusion: [0.6, 0, 0.8] }); break;
      case 7: add('LWPOLYLINE', { flags: 0, points: [[x, y, 0, 0, 0], [x + 2, y + 1, 0, 0, 0]], extrusion: [0, 0, -1] }); break;
      default: add('POINT', { location: [x, y, 0] });
    }
  }
  const path = join(scratchDir('lw-lazy-'), 'drawing.dxf');
  writeFileSync(path, dxf.writeDxf(doc));
  return path;
}

/** Every entity of every block (children and SEQEND too). */
function* records(doc: DocumentApi): Iterable<Entity> {
  for (const b of doc.blocks.values()) for (const e of b.entities) {
    yield e;
    for (const c of e.children ?? []) yield c;
    if (e.seqend) yield e.seqend;
  }
}

describe('opening a drawing: entities kept as their bytes until after the open', () => {
  // above the spatial index's bulk size (50 000): the open keeps the boxes as arrays too
  const path = drawingFile(60_000);

  it('the open keeps them as bytes, and boxes them as the eager reading does', async () => {
    const e = engine();
    await ok(e, 'document_open', { path });
    const store = active(e);
    expect(store.lazy).toBe(true);
    const ms = store.doc.modelSpace().entities;
    expect(ms.filter((x) => x instanceof LazyEntity && !x.decoded).length).toBeGreaterThan(50_000);
    const eager = new DocStore(99, await dxf.readDxf(path), 'eager', null);
    const a = store.index.boxArrays();
    const b = eager.index.boxArrays();
    expect(a.n).toBe(60_000);
    expect(a.handles).toEqual(b.handles);
    expect([...a.boxes]).toEqual([...b.boxes]);
    expect(store.index.extents()).toEqual(eager.index.extents());
    // the work the open leaves waits a while (a screen's first part comes first) ...
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect((store.index as unknown as { flat: unknown }).flat).not.toBeNull();
    expect(store.lazy).toBe(true);
    // ... unless a query needs it
    const hits = store.index.search(0, 0, 5, 5).map((x) => x.handle).sort();
    expect(hits).toEqual(eager.index.search(0, 0, 5, 5).map((x) => x.handle).sort());
    expect((store.index as unknown as { flat: unknown }).flat).toBeNull();
  });

  it('an edit right after the open sees plain records: it is undone exactly', async () => {
    const e = engine();
    await ok(e, 'document_open', { path });
    const store = active(e);
    const line = store.doc.modelSpace().entities.find((x) => x.type === 'LINE')!;
    expect(line).toBeInstanceOf(LazyEntity);
    const x0 = (line.attrs.start as number[])[0]!;
    await ok(e, 'entities_transform', { handles: [line.handle], action: 'move', vector: [10, 0] });
    expect(store.lazy).toBe(false);
    expect([...records(store.doc)].some((x) => x instanceof LazyEntity)).toBe(false);
    const moved = store.doc.get(line.handle) as Entity;
    expect(moved).not.toBeInstanceOf(LazyEntity);
    expect((moved.attrs.start as number[])[0]).toBe(x0 + 10);
    await ok(e, 'undo');
    expect(dump(store.doc)).toBe(dump(await dxf.readDxf(path)));
  });

  it('display lists read them as they are; the slices after the open make them all plain records', async () => {
    const e = engine();
    await ok(e, 'document_open', { path });
    const store = active(e);
    const made = vi.spyOn(store, 'materialize');
    const some = store.doc.modelSpace().entities.slice(0, 500).map((x) => x.handle);
    const part = await ok(e, 'display_list', { handles: some });
    expect(part.handles).toHaveLength(500);
    await ok(e, 'state');
    await ok(e, 'sysvars', { get: ['OSMODE'] });
    // the layer panel's counts, each entity's layer read from its bytes alone
    const layers = await ok(e, 'layers');
    const eager = engine();
    await ok(eager, 'document_open', { path });
    active(eager).materialize();
    expect(layers).toEqual(await ok(eager, 'layers'));
    expect(store.doc.modelSpace().entities.filter((x) => x instanceof LazyEntity && x.decoded).length).toBeLessThanOrEqual(500);
    expect(made).not.toHaveBeenCalled();
    // (the slices start a second after the open, the index's first)
    for (const until = Date.now() + 60_000; store.lazy && Date.now() < until;) await pause(10);
    expect(store.lazy).toBe(false);
    const doc = store.doc;
    for (const x of records(doc)) {
      expect(x).not.toBeInstanceOf(LazyEntity);
      expect(doc.get(x.handle)).toBe(x);
    }
    expect((doc as { hasLazyRecords?: boolean }).hasLazyRecords).toBe(false);
    expect(dump(doc)).toBe(dump(await dxf.readDxf(path)));
    // the next op has nothing left to make
    await ok(e, 'entities_list', { limit: 1 });
    expect(made).toHaveBeenCalled();
  });
});
