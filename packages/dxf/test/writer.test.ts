// Writing: golden output of small records, encodings, version gating, conversions, atomic save.
import { readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newDocument, readDxfSync, saveDxf, writeDxf, writeDxfWithResult } from '../src/index.js';
import { TagWriter } from '../src/writer/tag-writer.js';
import { codecFor } from '../src/tags/encoding.js';
import { formatFloat, formatInt } from '../src/tags/format.js';
import type { Entity } from '../src/types.js';
import { FIXTURES, minimalDxf, scratchDir } from './helpers.js';

function sink(encoder = codecFor('ANSI_1252', false).encode): { w: TagWriter; text: () => string; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const w = new TagWriter((c) => chunks.push(c), encoder);
  return { w, text: () => (w.flush(), Buffer.concat(chunks).toString('latin1')), bytes: () => (w.flush(), Buffer.concat(chunks)) };
}

describe('tag writer', () => {
  it('right-aligns codes and formats numbers by the code type', () => {
    const { w, text } = sink();
    w.tag(0, 'LINE');
    w.tag(10, 1);
    w.tag(40, 0.1 + 0.2);
    w.tag(70, 3);
    w.tag(1071, 7);
    w.point(11, [1, 2.5, -0]);
    w.tag(42, 1e-12);
    expect(text()).toBe('  0\nLINE\n 10\n1.0\n 40\n0.30000000000000004\n 70\n3\n1071\n7\n 11\n1.0\n 21\n2.5\n 31\n0.0\n 42\n1e-12\n');
  });

  it('encodes text by code page with \\U+ escapes, or as UTF-8', () => {
    const cp = sink();
    cp.w.tag(1, 'Grüße α');
    expect(cp.bytes()).toEqual(Buffer.concat([Buffer.from('  1\nGr'), Buffer.from([0xfc, 0xdf]), Buffer.from('e \\U+03B1\n')]));
    const chunks: Buffer[] = [];
    const utf = new TagWriter((c) => chunks.push(c), null);
    utf.tag(1, 'Grüße α');
    utf.flush();
    expect(Buffer.concat(chunks).toString('utf8')).toBe('  1\nGrüße α\n');
  });

  it('writes numbers exactly as formatFloat and formatInt format them', () => {
    // the writer formats numbers into bytes itself: any double must come out as the string forms do
    const values: number[] = [0, -0, NaN, Infinity, -Infinity, 1e-5, 9.999999e-6, 1e-7, 0.1 + 0.2, 1e9, 1e9 - 0.5, 999999.9999999, 1e6 + 0.25];
    for (const b of [2 ** 31 - 1, 2 ** 31, 2 ** 32, Number.MAX_SAFE_INTEGER, 2 ** 53, 2 ** 53 + 2, 1e16, 1e21, 1e22]) values.push(b, -b, b + 0.5, b - 1);
    let seed = 12345;
    const rnd = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const bits = new DataView(new ArrayBuffer(8));
    for (let i = 0; i < 20000; i++) {
      const mag = 10 ** Math.floor(rnd() * 24 - 8);
      const decimals = Math.floor(rnd() * 13);
      values.push(Number((rnd() * mag).toFixed(Math.min(decimals, 100))), -rnd() * mag, Math.round(rnd() * mag) * (rnd() < 0.5 ? -1 : 1));
      bits.setUint32(0, (rnd() * 2 ** 32) >>> 0);
      bits.setUint32(4, (rnd() * 2 ** 32) >>> 0);
      values.push(bits.getFloat64(0));
    }
    const { w, text } = sink();
    for (const v of values) {
      w.tag(40, v);
      w.tag(90, v);
    }
    expect(text()).toBe(values.map((v) => ` 40\n${formatFloat(v)}\n 90\n${formatInt(v)}\n`).join(''));
  });

  it('keeps a value on one line', () => {
    const { w, text } = sink();
    w.tag(1, 'a\nb\r\nc');
    expect(text()).toBe('  1\na^Jb^Jc\n');
  });
});

describe('document writer', () => {
  it('writes a new drawing in golden section order', () => {
    const text = writeDxf(newDocument()).toString('latin1');
    const sections = [...text.matchAll(/ {2}0\nSECTION\n {2}2\n(\w+)\n/g)].map((m) => m[1]);
    expect(sections).toEqual(['HEADER', 'CLASSES', 'TABLES', 'BLOCKS', 'ENTITIES', 'OBJECTS']);
    expect(text.startsWith('  0\nSECTION\n  2\nHEADER\n  9\n$ACADVER\n  1\nAC1032\n')).toBe(true);
    expect(text.endsWith('  0\nEOF\n')).toBe(true);
  });

  it('writes a LINE exactly as AutoCAD lays it out', () => {
    const doc = readDxfSync(minimalDxf([[0, 'LINE'], [5, '2F'], [330, '1F'], [100, 'AcDbEntity'], [8, 'Walls'], [100, 'AcDbLine'], [10, 1], [20, 2], [30, 0], [11, 3], [21, 4], [31, 0]]));
    const text = writeDxf(doc).toString('latin1');
    expect(text).toContain('  0\nLINE\n  5\n2F\n330\n1F\n100\nAcDbEntity\n  8\nWalls\n100\nAcDbLine\n 10\n1.0\n 20\n2.0\n 30\n0.0\n 11\n3.0\n 21\n4.0\n 31\n0.0\n');
  });

  it('writes undeclared records and unknown tags back unchanged', () => {
    const tags: [number, string][] = [[0, 'ACME_THING'], [5, '30'], [330, '1F'], [100, 'AcDbEntity'], [8, '0'], [100, 'AcmeThing'], [1, '  spaced  '], [40, '1.50000'], [1001, 'ACME'], [1000, 'x']];
    const doc = readDxfSync(minimalDxf(tags));
    const text = writeDxf(doc).toString('latin1');
    expect(text).toContain(tags.map(([c, v]) => `${String(c).padStart(3)}\n${v}\n`).join(''));
  });

  it('honours a layer set on an undeclared entity', () => {
    const doc = readDxfSync(minimalDxf([[0, 'ACME_THING'], [5, '30'], [100, 'AcDbEntity'], [8, 'A'], [62, '  1'], [100, 'AcmeThing'], [1, 'x']]));
    const e = doc.modelSpace().entities[0]!;
    expect(e.attrs).toMatchObject({ layer: 'A', color: 1 });
    e.attrs.layer = 'B';
    const text = writeDxf(doc).toString('latin1');
    expect(text).toContain('100\nAcDbEntity\n  8\nB\n 62\n  1\n100\nAcmeThing\n');
  });

  it('reads back what it writes for every fixture', () => {
    for (const f of readdirSync(FIXTURES).filter((n) => n.endsWith('.dxf'))) {
      const doc = readDxfSync(readFileSync(FIXTURES + f));
      const again = readDxfSync(writeDxf(doc));
      expect(again.version).toBe(doc.version);
      expect(again.modelSpace().entities.map((e) => e.attrs)).toEqual(doc.modelSpace().entities.map((e) => e.attrs));
    }
  });

  it('saves atomically and leaves no temporary file behind', async () => {
    const dir = scratchDir('lw-dxf-');
    const path = join(dir, 'out.dxf');
    writeFileSync(path, 'old');
    await saveDxf(newDocument(), path);
    expect(readdirSync(dir)).toEqual(['out.dxf']);
    expect(readDxfSync(readFileSync(path)).version).toBe('AC1032');
    await expect(saveDxf(newDocument(), join(dir, 'missing', 'x.dxf'))).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['out.dxf']);
  });
});

describe('conversion', () => {
  it('converts R2018 down to R12, converting what R12 has another form for, dropping what it cannot hold, saying what', () => {
    const doc = readDxfSync(readFileSync(FIXTURES + 'r2018.dxf'));
    const { buffer, dropped, converted, diagnostics } = writeDxfWithResult(doc, { version: 'R12' });
    expect(converted).toEqual({ 'LWPOLYLINE -> POLYLINE': 1 });
    expect(dropped.LWPOLYLINE).toBeUndefined();
    expect(dropped['objects (OBJECTS section)']).toBeGreaterThan(0);
    expect(diagnostics.some((d) => d.code === 'dropped')).toBe(true);
    expect(diagnostics.some((d) => d.code === 'converted')).toBe(true);
    const r12 = readDxfSync(buffer);
    expect(r12.version).toBe('AC1009');
    expect(r12.modelSpace().entities.map((e) => e.type)).toEqual(['LINE', 'CIRCLE', 'ARC', 'TEXT', 'POLYLINE', 'INSERT', 'POLYLINE']);
    const text = buffer.toString('latin1');
    expect(text).not.toContain('AcDbEntity');
    expect(text).not.toContain('BLOCK_RECORD');
    expect(text).toContain('$MODEL_SPACE');
    // the source document is untouched
    expect(doc.version).toBe('AC1032');
    expect(doc.modelSpace().entities).toHaveLength(7);
  });

  it('converts R12 up to R2000 with handles, owners, block records and layouts', () => {
    const doc = readDxfSync(readFileSync(FIXTURES + 'r12_ascii.dxf'));
    const up = readDxfSync(writeDxf(doc, { version: 'R2000' }));
    expect(up.version).toBe('AC1015');
    const ms = up.modelSpace();
    expect(ms.name).toBe('*Model_Space');
    expect(ms.entities.map((e) => e.type)).toEqual(['LINE', 'CIRCLE', 'ARC', 'TEXT', 'POLYLINE', 'INSERT']);
    for (const e of ms.entities) {
      expect(e.handle).not.toBe('');
      expect(up.get(e.owner)?.type).toBe('BLOCK_RECORD');
    }
    const pl = ms.entities[4] as Entity;
    for (const v of pl.children ?? []) expect(v.owner).toBe(pl.handle);
    expect(up.getTableEntry('BLOCK_RECORD', 'DOOR')).toBeDefined();
    expect(up.getTableEntry('LAYER', 'Walls')?.attrs.color).toBe(3);
    expect(up.layouts().map((l) => l.name)).toEqual(['Model', 'Layout1']);
  });

  it('rejects unknown versions', () => {
    expect(() => writeDxf(newDocument(), { version: 'R99' })).toThrow('unknown DXF version');
  });
});

describe('atomic save beside other writers', () => {
  it("keeps a temporary file of this process that another thread is writing; removes one left before this process started", async () => {
    const dir = scratchDir('lw-dxf-');
    // Another worker thread of this process is half-way through writing b.dxf ...
    const sibling = join(dir, `.b.dxf.linework-${process.pid}-0a1b2c3d.tmp`);
    writeFileSync(sibling, 'half a drawing');
    // ... and an earlier process with the same pid (a restarted container) left one behind.
    const leftover = join(dir, `.c.dxf.linework-${process.pid}-4e5f6a7b.tmp`);
    writeFileSync(leftover, 'old');
    const before = (Date.now() - process.uptime() * 1000) / 1000 - 60;
    utimesSync(leftover, before, before);
    await saveDxf(newDocument(), join(dir, 'a.dxf'));
    expect(readdirSync(dir).sort()).toEqual([`.b.dxf.linework-${process.pid}-0a1b2c3d.tmp`, 'a.dxf']);
  });
});
