// Values that are not numbers in numeric groups (NaN, `q.5`, blanks, hex, inf): damaged input. The
// reader reports each (an error, so convert writes nothing without --recover) and reads the
// declared default in its place; with --recover the output is one ezdxf loads.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { convertCommand, readDxf, readDxfSync } from '@linework/dxf';
import { isDxfNumber } from '../src/tags/parse-number.js';
import { PYTHON, binaryDxf } from './helpers.js';

const fixture = new URL('./fixtures/invalid_numbers.dxf', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'linework-numbers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hasEzdxf = existsSync(PYTHON) && spawnSync(PYTHON, ['-c', 'import ezdxf'], { encoding: 'utf8' }).status === 0;

describe('numbers as DXF writes them', () => {
  it('takes decimals, signs, exponents and white space; not NaN, inf, hex, blanks or letters', () => {
    for (const s of ['0', '-1', '+2.5', '.5', '5.', '1e5', '1.5E-3', ' 7', '\t256', '3 ', '-0.0']) expect(isDxfNumber(s), s).toBe(true);
    for (const s of ['', ' ', 'NaN', 'nan', 'inf', 'Infinity', '0x10', 'q.5', '1e', '1e+', '.', '-', '1.2.3', '1e999', '5 5']) expect(isDxfNumber(s), s).toBe(false);
  });
});

describe('binary data that is not hex', () => {
  it('is damage: reported with its line, the chunk read as no data, and the good chunks kept', async () => {
    const { newDocument, writeDxf } = await import('@linework/dxf');
    const doc = newDocument();
    const plain = writeDxf(doc).toString('latin1');
    // an XRECORD of three chunks, owned by the root dictionary, last in OBJECTS
    const root = doc.objects[0]!.handle;
    const at = plain.lastIndexOf('  0\nENDSEC\n');
    const text = `${plain.slice(0, at)}  0\nXRECORD\n  5\nFFF0\n330\n${root}\n100\nAcDbXrecord\n280\n1\n310\n0A1B\n310\n0A1B\n310\n0a1b\n${plain.slice(at)}`;
    for (const bad of ['q.5', '0A1', '0A 1B']) {
      const damaged = text.replace('310\n0A1B\n310\n0A1B', `310\n0A1B\n310\n${bad}`);
      const read = readDxfSync(Buffer.from(damaged, 'latin1'));
      const errors = read.diagnostics.filter((d) => d.level === 'error');
      expect(errors.map((d) => d.message), bad).toEqual([expect.stringMatching(new RegExp(`XRECORD #[0-9A-F]+: group code 310 holds "${bad}", which is not hex data; read as no data`))]);
      expect(damaged.split('\n')[errors[0]!.line! - 1], bad).toBe(bad);
      const x = read.objects.find((o) => o.type === 'XRECORD')!;
      expect(JSON.stringify(x.extra), bad).toContain('"0a1b"');
    }
    // lower-case hex is hex
    expect(readDxfSync(Buffer.from(text, 'latin1')).diagnostics.filter((d) => d.level === 'error')).toEqual([]);
  });
});

describe('reading invalid numbers', () => {
  it('reports each, per record, with its line, and reads the default in its place', async () => {
    const doc = await readDxf(fixture);
    const errors = doc.diagnostics.filter((d) => d.code === 'invalid-number');
    expect(errors.map((d) => [d.level, d.line, d.message])).toEqual([
      ['error', 12, 'header variable $LTSCALE: group code 40 holds "NaN", which is not a number; read as 0'],
      ['error', 52, 'CIRCLE #2A: group code 20 holds "", which is not a number; read as 0'],
      ['error', 56, 'CIRCLE #2A: group code 40 holds "q.5", which is not a number; read as 1'],
      ['error', 64, 'LINE #2B: group code 10 holds "0x10", which is not a number; read as 0'],
      ['error', 74, 'LINE #2B: group code 1040 holds "inf", which is not a number; read as 0'],
    ]);
    const [circle, line] = doc.modelSpace().entities;
    expect(circle!.attrs).toMatchObject({ center: [1, 0, 0], radius: 1 });
    expect(line!.attrs).toMatchObject({ start: [0, 0, 0], end: [10, -0.5, 0] });
    // a tab before a number is white space, not damage
    expect(doc.tables.get('LAYER')!.entries[0]!.attrs.flags ?? 0).toBe(0);
  });

  it('binary DXF: a NaN double is damage too', () => {
    const bytes = binaryDxf([
      [0, 'SECTION'], [2, 'ENTITIES'], [0, 'CIRCLE'], [8, '0'], [10, '1'], [20, '2'], [30, '0'], [40, 'NaN'], [0, 'ENDSEC'], [0, 'EOF'],
    ]);
    const doc = readDxfSync(bytes);
    expect(doc.diagnostics.filter((d) => d.code === 'invalid-number').map((d) => d.message)).toEqual([
      'CIRCLE: group code 40 holds "NaN", which is not a number; read as 1',
    ]);
  });

  it('convert: exit 1 and nothing written; --recover writes the repaired drawing', async () => {
    const err: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => err.push(s) } } as never;
    const out = join(dir, 'out.dxf');
    expect(await convertCommand([fixture, out], io)).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(err.join('')).toMatch(/error: line 56: CIRCLE #2A: group code 40 holds "q\.5", which is not a number; read as 1/);
    expect(err.join('')).toMatch(/is damaged \(5 errors above\): nothing written; --recover/);
    expect(await convertCommand([fixture, out, '--recover'], io)).toBe(0);
    const again = readDxfSync(readFileSync(out));
    expect(again.diagnostics.filter((d) => d.level === 'error')).toEqual([]);
    if (hasEzdxf) {
      const r = spawnSync(PYTHON, ['-c', 'import sys, ezdxf\nd = ezdxf.readfile(sys.argv[1])\nprint(len(d.modelspace()), d.modelspace()[0].dxf.radius)', out], { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('2 1.0');
    }
  });
});
