// Entities kept as their bytes (ReadOptions.lazy): read lazily, a drawing is the drawing read
// eagerly; written in its own version, untouched entities are their bytes and everything else is
// encoded, so a changed record, a renumbered handle or a new owner never comes from stale bytes.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { LazyEntity, extents, materializeLazy, newDocument, readDxfSync, writeDxf, type DxfDocument, type Entity } from '../src/index.js';
import { normalize } from './normalize.js';

const canonical = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
const same = (a: DxfDocument, b: DxfDocument): boolean => isDeepStrictEqual(canonical(normalize(a)), canonical(normalize(b)));

/** A small R2018 drawing of our own writer: every entity of it can be kept as bytes. */
function drawing(): Buffer {
  const doc = newDocument();
  doc.addTableEntry('LAYER', 'WALLS', { color: 3 });
  doc.addEntity({ kind: 'entity', type: 'LINE', handle: '', owner: '', attrs: { layer: 'WALLS', start: [0, 0, 0], end: [10, 5, 0] } });
  doc.addTableEntry('LAYER', 'WALLS_AND_DOORS', { color: 4 });
  doc.addEntity({ kind: 'entity', type: 'LINE', handle: '', owner: '', attrs: { layer: 'WALLS_AND_DOORS', start: [1, 0, 0], end: [1, 5, 0] } });
  doc.addEntity({ kind: 'entity', type: 'CIRCLE', handle: '', owner: '', attrs: { layer: '0', center: [3, 3, 0], radius: 2 } });
  doc.addEntity({ kind: 'entity', type: 'TEXT', handle: '', owner: '', attrs: { layer: '0', insert: [1, 1, 0], height: 2.5, text: 'Größe ±1' } });
  doc.addEntity({ kind: 'entity', type: 'LWPOLYLINE', handle: '', owner: '', attrs: { layer: '0', flags: 1, points: [[0, 0, 0, 0, 0], [4, 0, 0, 0, 0.5], [4, 4, 0, 0, 0]] } });
  return writeDxf(doc);
}

const model = (doc: DxfDocument): Entity[] => doc.modelSpace().entities;

describe('lazy entities', () => {
  it('are kept as bytes, and a drawing written untouched is the file it was read from', () => {
    const bytes = drawing();
    const doc = readDxfSync(bytes, { lazy: true });
    expect(model(doc).every((e) => e instanceof LazyEntity && !e.decoded)).toBe(true);
    expect(writeDxf(doc).equals(bytes)).toBe(true);
    // read, they are the records an eager reading gives (from a Buffer or a plain Uint8Array)
    expect(same(doc, readDxfSync(bytes))).toBe(true);
    const plainBytes = new Uint8Array(bytes.length);
    plainBytes.set(bytes);
    const fromArray = readDxfSync(plainBytes, { lazy: true });
    expect(model(fromArray).map((e) => e.attrs.layer)).toContain('WALLS_AND_DOORS');
    expect(same(fromArray, readDxfSync(bytes))).toBe(true);
  });

  it('extents read them without keeping them decoded: the box of the eager reading, and the file still copied', () => {
    const bytes = drawing();
    const doc = readDxfSync(bytes, { lazy: true });
    const eager = readDxfSync(bytes);
    expect(extents(model(doc), doc)).toEqual(extents(model(eager), eager));
    expect(extents(model(doc), doc)).not.toBeNull();
    expect(model(doc).every((e) => !(e as LazyEntity).decoded)).toBe(true);
    expect(writeDxf(doc).equals(bytes)).toBe(true);
  });

  it('an entity changed through its attributes is encoded again; the others stay their bytes', () => {
    const bytes = drawing();
    const doc = readDxfSync(bytes, { lazy: true });
    const line = model(doc).find((e) => e.type === 'LINE')!;
    (line.attrs.end as number[])[0] = 20;
    const out = writeDxf(doc);
    expect(out.equals(bytes)).toBe(false);
    const again = readDxfSync(out);
    expect(model(again).find((e) => e.type === 'LINE')!.attrs.end).toEqual([20, 5, 0]);
    const eager = readDxfSync(bytes);
    (model(eager).find((e) => e.type === 'LINE')!.attrs.end as number[])[0] = 20;
    expect(out.equals(writeDxf(eager))).toBe(true);
    // the untouched ones were copied, not decoded
    expect(model(doc).filter((e) => e.type !== 'LINE').every((e) => !(e as LazyEntity).decoded)).toBe(true);
  });

  it('an entity given another handle or owner is never written from its bytes', () => {
    const bytes = drawing();
    const doc = readDxfSync(bytes, { lazy: true });
    const circle = model(doc).find((e) => e.type === 'CIRCLE')!;
    const old = circle.handle;
    doc.unindexRecord(circle);
    circle.handle = doc.newHandle();
    doc.indexRecord(circle);
    const text = model(doc).find((e) => e.type === 'TEXT')!;
    text.owner = circle.owner === '1F' ? '1E' : '1F';
    const again = readDxfSync(writeDxf(doc));
    expect(again.get(old)).toBeUndefined();
    expect(again.get(circle.handle)?.type).toBe('CIRCLE');
    expect(model(again).find((e) => e.type === 'TEXT')?.owner ?? again.get(text.handle)?.owner).toBe(text.owner);
  });

  it('a handle the file repeats is renumbered on reading, and written so', () => {
    // two LINEs with handle 30: the second is given a new one
    const text = drawing().toString('latin1');
    const first = text.indexOf('\n  0\nLINE\n  5\n') + 1;
    const handle = /^ {2}0\nLINE\n {2}5\n([0-9A-F]+)\n/.exec(text.slice(first))![1]!;
    const circleAt = text.indexOf('\n  0\nCIRCLE\n  5\n') + 1;
    const circleHandle = /^ {2}0\nCIRCLE\n {2}5\n([0-9A-F]+)\n/.exec(text.slice(circleAt))![1]!;
    const dup = text.slice(0, circleAt) + text.slice(circleAt).replace(`  5\n${circleHandle}\n`, `  5\n${handle}\n`);
    const bytes = Buffer.from(dup, 'latin1');
    const lazy = readDxfSync(bytes, { lazy: true });
    const eager = readDxfSync(bytes);
    expect(lazy.diagnostics.map((d) => d.code)).toEqual(eager.diagnostics.map((d) => d.code));
    expect(lazy.diagnostics.some((d) => d.code === 'duplicate-handle')).toBe(true);
    const renamed = model(lazy).find((e) => e.type === 'CIRCLE')!;
    expect(renamed.handle).not.toBe(handle);
    const out = writeDxf(lazy);
    expect(out.equals(writeDxf(eager))).toBe(true);
    const again = readDxfSync(out);
    expect(again.diagnostics.filter((d) => d.code === 'duplicate-handle')).toEqual([]);
    expect(again.get(renamed.handle)?.type).toBe('CIRCLE');
  });

  it('CRLF files, comments and repaired values are read as any other, and written as the eager reading writes them', () => {
    const crlf = Buffer.from(drawing().toString('latin1').replace(/\n/g, '\r\n'), 'latin1');
    const lazy = readDxfSync(crlf, { lazy: true });
    expect(model(lazy).some((e) => e instanceof LazyEntity)).toBe(false);
    expect(writeDxf(lazy).equals(writeDxf(readDxfSync(crlf)))).toBe(true);
    const broken = Buffer.from(drawing().toString('latin1').replace(/( 40\n)2(\.0)?\n/, '$1q.5\n').replace('  0\nLINE\n', '999\na comment\n  0\nLINE\n'), 'latin1');
    const l2 = readDxfSync(broken, { lazy: true });
    const e2 = readDxfSync(broken);
    expect(l2.diagnostics.some((d) => d.code === 'invalid-number')).toBe(true);
    expect(l2.diagnostics).toEqual(e2.diagnostics);
    expect(writeDxf(l2).equals(writeDxf(e2))).toBe(true);
  });

  it('materializeLazy makes plain records (structuredClone keeps them whole); conversions and binary output match the eager reading', () => {
    const bytes = drawing();
    const doc = readDxfSync(bytes, { lazy: true });
    expect(writeDxf(doc, { version: 'R12' }).equals(writeDxf(readDxfSync(bytes), { version: 'R12' }))).toBe(true);
    expect(writeDxf(doc, { version: 'R2000' }).equals(writeDxf(readDxfSync(bytes), { version: 'R2000' }))).toBe(true);
    const fresh = readDxfSync(bytes, { lazy: true });
    expect(writeDxf(fresh, { binary: true }).equals(writeDxf(readDxfSync(bytes), { binary: true }))).toBe(true);
    expect(model(fresh).some((e) => e instanceof LazyEntity)).toBe(true);
    const doc2 = readDxfSync(bytes, { lazy: true });
    materializeLazy(doc2);
    for (const e of model(doc2)) {
      expect(e instanceof LazyEntity).toBe(false);
      expect(doc2.get(e.handle)).toBe(e);
      expect(structuredClone(e)).toEqual(e);
    }
    expect(doc2.hasLazyRecords).toBe(false);
  });

  it('the fixtures read lazily are the drawings read eagerly, and written lazily they are written alike', () => {
    const dirs = [new URL('../fixtures/', import.meta.url).pathname, new URL('./fixtures/', import.meta.url).pathname];
    const files = dirs.flatMap((d) => readdirSync(d).filter((f) => f.endsWith('.dxf')).map((f) => join(d, f)));
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const bytes = readFileSync(f);
      const lazy = readDxfSync(bytes, { lazy: true });
      const eager = readDxfSync(bytes);
      const out = writeDxf(lazy);
      expect(same(readDxfSync(out), readDxfSync(writeDxf(eager))), f).toBe(true);
      expect(lazy.diagnostics, f).toEqual(eager.diagnostics);
      expect(same(lazy, eager), f).toBe(true);
    }
  });
});
