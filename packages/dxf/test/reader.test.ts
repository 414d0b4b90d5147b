// Document reading: sections, fixtures of every kind, streams and paths, damaged input.
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DxfError, newDocument, readDxf, readDxfSync, readTags, writeDxf } from '../src/index.js';
import type { Entity, Tag } from '../src/types.js';
import { FIXTURES, binaryDxf, dxf, minimalDxf } from './helpers.js';

function types(entities: Entity[]): string[] {
  return entities.map((e) => e.type);
}

/** Reads damaged bytes: either a DxfError or a document that writes and reads back cleanly. */
function readDamaged(b: Buffer): { doc?: ReturnType<typeof readDxfSync>; error?: DxfError } {
  let doc;
  try {
    doc = readDxfSync(b);
  } catch (e) {
    expect(e).toBeInstanceOf(DxfError);
    return { error: e as DxfError };
  }
  // a repaired document is a document: it must be writable and read back without new damage
  const again = readDxfSync(writeDxf(doc));
  expect(again.diagnostics.filter((d) => d.code === 'truncated' || d.code === 'missing-eof' || d.code === 'duplicate-handle')).toEqual([]);
  return { doc };
}

describe('fixtures', () => {
  it('reads R12 ASCII and R12 binary to the same model', () => {
    const a = readDxfSync(readFileSync(FIXTURES + 'r12_ascii.dxf'));
    const b = readDxfSync(readFileSync(FIXTURES + 'r12_binary.dxf'));
    expect(a.version).toBe('AC1009');
    expect(b.version).toBe('AC1009');
    expect(types(a.modelSpace().entities)).toEqual(['LINE', 'CIRCLE', 'ARC', 'TEXT', 'POLYLINE', 'INSERT']);
    expect(types(b.modelSpace().entities)).toEqual(types(a.modelSpace().entities));
    const line = a.modelSpace().entities[0]!;
    expect(line.attrs).toMatchObject({ layer: 'Walls', start: [0, 0, 0], end: [10, 5, 0] });
    expect(b.modelSpace().entities[0]!.attrs).toMatchObject({ layer: 'Walls', start: [0, 0, 0], end: [10, 5, 0] });
    const pl = a.modelSpace().entities[4]!;
    expect(types(pl.children ?? [])).toEqual(['VERTEX', 'VERTEX', 'VERTEX']);
    expect(pl.seqend?.type).toBe('SEQEND');
    expect(a.getBlock('door')?.entities).toHaveLength(1);
    expect(a.diagnostics.filter((d) => d.level !== 'info')).toEqual([]);
  });

  it('reads R2000 and R2018 with handles, owners and layouts', () => {
    for (const f of ['r2000.dxf', 'r2018.dxf']) {
      const doc = readDxfSync(readFileSync(FIXTURES + f));
      const ms = doc.modelSpace();
      expect(types(ms.entities)).toEqual(['LINE', 'CIRCLE', 'ARC', 'TEXT', 'POLYLINE', 'INSERT', 'LWPOLYLINE']);
      const line = ms.entities[0]!;
      expect(doc.get(line.handle)).toBe(line);
      expect(doc.get(line.owner)?.type).toBe('BLOCK_RECORD');
      expect(doc.blockOf(line.handle)).toBe(ms);
      expect(doc.layouts().map((l) => l.name)).toEqual(['Model', 'Layout1']);
      expect(doc.getTableEntry('LAYER', 'walls')?.attrs).toMatchObject({ name: 'Walls', color: 3 });
      expect(doc.objects[0]!.type).toBe('DICTIONARY');
      expect(doc.diagnostics).toEqual([]);
    }
  });

  it('decodes cp1252 text and \\U+ escapes', () => {
    const cp = readDxfSync(readFileSync(FIXTURES + 'cp1252.dxf'));
    expect(cp.getTableEntry('LAYER', 'Grüße')).toBeDefined();
    expect(cp.modelSpace().entities[0]!.attrs.text).toBe('Größe: 5 €');
    const esc = readDxfSync(readFileSync(FIXTURES + 'unicode_escapes_r12.dxf'));
    expect(esc.modelSpace().entities[0]!.attrs.text).toBe('αβγ Ω');
  });

  it('reads from a path and from a stream of tiny chunks alike', async () => {
    const path = FIXTURES + 'r2018.dxf';
    const whole = readDxfSync(readFileSync(path));
    const fromPath = await readDxf(path);
    const bytes = readFileSync(path);
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 7) chunks.push(bytes.subarray(i, i + 7));
    const fromStream = await readDxf(Readable.from(chunks));
    const fromFileStream = await readDxf(createReadStream(path, { highWaterMark: 13 }));
    for (const d of [fromPath, fromStream, fromFileStream]) {
      expect(d.modelSpace().entities.map((e) => e.attrs)).toEqual(whole.modelSpace().entities.map((e) => e.attrs));
      expect([...d.header.keys()]).toEqual([...whole.header.keys()]);
    }
  });

  it('reads a file of several read buffers (lines across their ends, CRLF) as from memory', async () => {
    const doc = newDocument();
    for (let i = 0; i < 12000; i++) {
      const x = i * 1.25;
      doc.addEntity({ kind: 'entity', type: 'LINE', handle: '', owner: '', attrs: { layer: `L${i % 7}`, start: [x, 2, 0], end: [x, 3.5, 0] } });
      doc.addEntity({ kind: 'entity', type: 'TEXT', handle: '', owner: '', attrs: { layer: 'T', insert: [x, 0, 0], height: 1, text: `text ${i} é` } });
    }
    const bytes = Buffer.from(writeDxf(doc));
    const crlf = Buffer.from(bytes.toString('latin1').replace(/\n/g, '\r\n'), 'latin1');
    expect(crlf.length).toBeGreaterThan(3 << 20);
    const attrs = (d: typeof doc) => d.modelSpace().entities.map((e) => [e.handle, e.attrs]);
    const dir = mkdtempSync(join(tmpdir(), 'lw-read-'));
    try {
      for (const b of [bytes, crlf]) {
        const path = join(dir, 'big.dxf');
        writeFileSync(path, b);
        const fromPath = await readDxf(path);
        const whole = readDxfSync(b);
        expect(attrs(fromPath)).toEqual(attrs(whole));
        expect(attrs(whole)).toEqual(attrs(doc));
      }
      // reading stops at EOF, and at a bad line, with the next buffer's read under way
      const junk = Buffer.alloc(3 << 20, 'x');
      writeFileSync(join(dir, 'after-eof.dxf'), Buffer.concat([bytes, junk]));
      expect(attrs(await readDxf(join(dir, 'after-eof.dxf')))).toEqual(attrs(doc));
      writeFileSync(join(dir, 'bad.dxf'), Buffer.concat([bytes.subarray(0, 1 << 20), Buffer.from('\nabc\ndef\n'), junk]));
      await expect(readDxf(join(dir, 'bad.dxf'))).rejects.toThrow(DxfError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('damaged input', () => {
  it('rejects an empty file and a file that is not DXF with a clear error', () => {
    expect(() => readDxfSync(Buffer.alloc(0))).toThrow(DxfError);
    expect(() => readDxfSync(Buffer.alloc(0))).toThrow('empty file');
    expect(() => readDxfSync(Buffer.from('%PDF-1.7\n1 0 obj\n'))).toThrow('line 1: expected a group code, found 8 characters of text');
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
    expect(() => readDxfSync(png)).toThrow(/line 1: expected a group code/);
    expect(() => readDxfSync(Buffer.alloc(5000, 0x41))).toThrow(/line 1: expected a group code/);
  });

  it('names the line of an odd group code deep in the file', () => {
    const good = minimalDxf([[0, 'LINE'], [8, '0'], [10, 1], [20, 2], [11, 3], [21, 4]]).toString('latin1');
    const lines = good.split('\n');
    lines[12] = '1x0';
    expect(() => readDxfSync(Buffer.from(lines.join('\n')))).toThrow('line 13: expected a group code, found 3 characters of text');
  });

  it('repairs a truncated file and says so', () => {
    const full = readFileSync(FIXTURES + 'r2000.dxf');
    for (const cut of [0.3, 0.5, 0.8, 0.95]) {
      const doc = readDxfSync(full.subarray(0, Math.floor(full.length * cut)));
      expect(doc.diagnostics.some((d) => d.code === 'truncated' || d.code === 'missing-eof')).toBe(true);
      expect(doc.modelSpace()).toBeDefined();
    }
  });

  it('closes a POLYLINE without SEQEND and a BLOCK without ENDBLK', () => {
    const b = dxf([
      [0, 'SECTION'], [2, 'HEADER'], [9, '$ACADVER'], [1, 'AC1009'], [0, 'ENDSEC'],
      [0, 'SECTION'], [2, 'BLOCKS'], [0, 'BLOCK'], [8, '0'], [2, 'B1'], [70, 0], [10, 0], [20, 0], [30, 0],
      [0, 'LINE'], [8, '0'], [10, 0], [20, 0], [11, 1], [21, 1], [0, 'ENDSEC'],
      [0, 'SECTION'], [2, 'ENTITIES'], [0, 'POLYLINE'], [8, '0'], [66, 1], [0, 'VERTEX'], [8, '0'], [10, 1], [20, 1],
      [0, 'LINE'], [8, '0'], [10, 0], [20, 0], [11, 1], [21, 1], [0, 'ENDSEC'], [0, 'EOF'],
    ]);
    const doc = readDxfSync(b);
    const codes = doc.diagnostics.map((d) => d.code);
    expect(codes).toContain('missing-seqend');
    expect(codes).toContain('missing-endblk');
    expect(doc.getBlock('B1')?.entities).toHaveLength(1);
    const [pl, line] = doc.modelSpace().entities;
    expect(pl!.seqend?.type).toBe('SEQEND');
    expect(line!.type).toBe('LINE');
  });

  it('reassigns duplicate, empty and zero handles with diagnostics', () => {
    const b = minimalDxf([
      [0, 'LINE'], [5, 'A1'], [8, '0'], [10, 0], [20, 0], [11, 1], [21, 1],
      [0, 'LINE'], [5, 'A1'], [8, '0'], [10, 0], [20, 0], [11, 2], [21, 2],
      [0, 'LINE'], [5, ''], [8, '0'], [10, 0], [20, 0], [11, 3], [21, 3],
      [0, 'LINE'], [5, '0'], [8, '0'], [10, 0], [20, 0], [11, 4], [21, 4],
    ]);
    const doc = readDxfSync(b);
    const handles = doc.modelSpace().entities.map((e) => e.handle);
    expect(new Set(handles).size).toBe(4);
    expect(handles[0]).toBe('A1');
    for (const h of handles) expect(doc.get(h)).toBeDefined();
    const codes = doc.diagnostics.map((d) => d.code);
    expect(codes).toEqual(expect.arrayContaining(['duplicate-handle', 'empty-handle', 'invalid-handle']));
    expect(doc.diagnostics.find((d) => d.code === 'duplicate-handle')?.line).toBeGreaterThan(0);
  });

  it('repairs a file cut anywhere, ASCII and binary, or names where it gave up', () => {
    const ascii = readFileSync(FIXTURES + 'r2000.dxf');
    const binary = binaryDxf(readTags(ascii).tags);
    expect(readDxfSync(binary).modelSpace().entities.length).toBe(readDxfSync(ascii).modelSpace().entities.length);
    for (const full of [ascii, binary, readFileSync(FIXTURES + 'r12_binary.dxf')]) {
      // a prime step lands inside codes, inside values (doubles included) and on boundaries
      for (let cut = 1; cut < full.length; cut += 89) {
        const { doc, error } = readDamaged(full.subarray(0, cut));
        if (error) {
          // only a cut before the first whole record can fail (a stub of a binary file reads as
          // ASCII), and the message says why
          expect(cut, error.message).toBeLessThan(40);
          expect(error.message).toMatch(/no DXF records|empty file|line 1: expected a group code/);
        } else {
          expect(doc!.diagnostics.some((d) => d.code === 'truncated' || d.code === 'missing-eof'), `cut at ${cut}`).toBe(true);
        }
      }
    }
  });

  it('says at which byte a binary file ends inside a tag, and drops the record cut short', () => {
    const tags: Tag[] = [[0, 'SECTION'], [2, 'ENTITIES'], [0, 'LINE'], [8, '0'], [10, '1.5'], [20, '2'], [11, '3'], [21, '4'], [0, 'ENDSEC'], [0, 'EOF']];
    const full = binaryDxf(tags);
    // inside the double of code 20: 22 sentinel + SECTION 10 + ENTITIES 11 + LINE 7 + layer 4 + x 10
    const doc = readDxfSync(full.subarray(0, 22 + 10 + 11 + 7 + 4 + 10 + 5));
    expect(doc.diagnostics.find((d) => d.code === 'truncated')?.message).toBe('binary DXF ends inside a tag at byte 64');
    // the LINE lost its end: it is not whole and is dropped, and an error says so
    expect(doc.modelSpace().entities.map((e) => e.type)).toEqual([]);
    expect(doc.diagnostics.find((d) => d.code === 'truncated-record')).toMatchObject({ level: 'error', message: expect.stringContaining('LINE') });
  });

  it('rejects bytes after a binary sentinel that are not DXF tags, naming the byte', () => {
    const sentinel = Buffer.from('AutoCAD Binary DXF\r\n\x1a\x00', 'latin1');
    expect(() => readDxfSync(Buffer.concat([sentinel, Buffer.alloc(200, 0xff)]))).toThrow('binary DXF: the first tag has group code 65535 at byte 22');
    expect(() => readDxfSync(Buffer.concat([sentinel, Buffer.from('hello, world\n')]))).toThrow(/at byte 22, expected 0 \(SECTION\)/);
    expect(() => readDxfSync(Buffer.concat([sentinel, Buffer.from([0, 0]), Buffer.alloc(5000, 0x41)]))).toThrow('no DXF records: binary DXF ends inside a tag at byte 22');
  });

  it('keeps odd but well-formed group codes and names the line of malformed ones', () => {
    const doc = readDxfSync(minimalDxf([[0, 'LINE'], [5, 'A1'], [8, '0'], [-5, 'minus'], [99999, 'big'], [1072, 'past xdata'], [10, 0], [20, 0], [11, 1], [21, 1]]));
    const again = readDxfSync(writeDxf(doc));
    expect(again.modelSpace().entities[0]!.extra).toEqual(doc.modelSpace().entities[0]!.extra);
    expect(JSON.stringify(doc.modelSpace().entities[0]!.extra)).toContain('past xdata');
    const text = minimalDxf([[0, 'LINE'], [8, '0'], [10, 1], [20, 2]]).toString('latin1');
    for (const odd of ['10.0', '+10', '0x0A', '99999999999999999999', '1 0']) {
      expect(() => readDxfSync(Buffer.from(text.replace(' 10\n1', `${odd}\n1`)))).toThrow(`line 19: expected a group code, found ${odd.length} characters of text`);
    }
  });

  it('replaces handles that are not 64-bit hex and hands out new ones past huge handles', () => {
    const line = (h: string): [number, string | number][] => [[0, 'LINE'], [5, h], [8, '0'], [10, 0], [20, 0], [11, 1], [21, 1]];
    const doc = readDxfSync(minimalDxf([...line('XYZ'), ...line('123456789ABCDEF0123'), ...line('-1'), ...line('FFFFFFFFFFFFFFF0'), ...line('00000000000000000A2')]));
    const invalid = doc.diagnostics.filter((d) => d.code === 'invalid-handle').map((d) => d.message);
    expect(invalid).toHaveLength(3);
    expect(invalid[1]).toContain('"123456789ABCDEF0123"');
    const handles = doc.modelSpace().entities.map((e) => e.handle);
    expect(handles[3]).toBe('FFFFFFFFFFFFFFF0');
    expect(handles[4]).toBe('00000000000000000A2');
    // above 2^53 a float seed stops counting: every new handle must still be new
    const more = Array.from({ length: 20 }, () => doc.newHandle());
    for (const h of [...handles, ...more]) expect(h).toMatch(/^[0-9A-F]{1,19}$/);
    expect(new Set([...handles, ...more]).size).toBe(25);
    expect(BigInt('0x' + more[0]!)).toBeGreaterThan(0xfffffffffffffff0n);
    // at the top of the 64-bit range new handles come from the free ones below
    const top = readDxfSync(minimalDxf([...line('FFFFFFFFFFFFFFFF'), ...line('1'), ...line('')]));
    const [, , fresh] = top.modelSpace().entities.map((e) => e.handle);
    expect(fresh).toMatch(/^[0-9A-F]{1,16}$/);
    expect(['FFFFFFFFFFFFFFFF', '1']).not.toContain(fresh);
  });

  it('never hangs on random bytes', () => {
    let seed = 42;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const good = readFileSync(FIXTURES + 'r2000.dxf');
    for (let k = 0; k < 30; k++) {
      const b = Buffer.from(good);
      for (let i = 0; i < 20; i++) b[Math.floor(rnd() * b.length)] = Math.floor(rnd() * 256);
      try {
        readDxfSync(b);
      } catch (e) {
        expect(e).toBeInstanceOf(DxfError);
      }
    }
  });

  it('never crashes on random bytes in a binary file and writes what it repaired', () => {
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const good = binaryDxf(readTags(readFileSync(FIXTURES + 'r2018.dxf')).tags);
    for (let k = 0; k < 30; k++) {
      const b = Buffer.from(good);
      for (let i = 0; i < 10; i++) b[22 + Math.floor(rnd() * (b.length - 22))] = Math.floor(rnd() * 256);
      readDamaged(b);
    }
  });
});

describe('coordinates of a record without markers, wherever they stand', () => {
  it('reads a LINE whose groups come as 10 11 20 21 30 31 (R2.6 writers) with its points, and writes them back in order', () => {
    const doc = readDxfSync(minimalDxf([
      [0, 'LINE'], [8, '1'], [10, '1.5'], [11, '2.0'], [20, '-0.25'], [21, '3.5'], [30, '0.0'], [31, '1.0'], [62, 5],
      [0, 'CIRCLE'], [8, '1'], [10, '4'], [40, '2'], [20, '5'],
    ], 'AC1003'));
    const [line, circle] = doc.modelSpace().entities;
    expect(line!.attrs).toMatchObject({ start: [1.5, -0.25, 0], end: [2, 3.5, 1], color: 5 });
    expect(line!.extra).toBeUndefined();
    expect(circle!.attrs).toMatchObject({ center: [4, 5, 0], radius: 2 });
    const again = readDxfSync(writeDxf(doc)).modelSpace().entities[0]!;
    expect(again.attrs).toMatchObject({ start: [1.5, -0.25, 0], end: [2, 3.5, 1] });
  });
});
