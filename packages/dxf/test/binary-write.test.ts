// Binary DXF output: what it reads back to, the default (binary in, binary out), and ezdxf's view
// of every binary file against the ASCII one of the same drawing (its own ASCII and binary tag
// loaders must see the same tags; it loads the binary file whenever it loads the ASCII one).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DxfError, convertCommand, readDxf, readDxfSync, saveDxf, writeDxf } from '@linework/dxf';
import { FIXTURES, PYTHON } from './helpers.js';

const SENTINEL = 'AutoCAD Binary DXF\r\n\x1a\0';
const dir = mkdtempSync(join(tmpdir(), 'linework-binary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const own = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname;
const script = new URL('./ezdxf_binary.py', import.meta.url).pathname;
const hasEzdxf = existsSync(PYTHON) && spawnSync(PYTHON, ['-c', 'import ezdxf'], { encoding: 'utf8' }).status === 0;

const FILES = [
  join(FIXTURES, 'r12_ascii.dxf'), join(FIXTURES, 'r12_binary.dxf'), join(FIXTURES, 'r2000.dxf'), join(FIXTURES, 'r2018.dxf'),
  join(FIXTURES, 'cp1252.dxf'), join(FIXTURES, 'unicode_escapes_r12.dxf'),
  own('codes_r2018_ascii.dxf'), own('codes_r2018_binary.dxf'), own('r12_handles.dxf'), own('r2018_to_r12.dxf'),
];

interface EzdxfPair { loads: boolean; error?: string; ascii_tags: number; binary_tags: number; first_difference: unknown }

/** ezdxf's comparison of ASCII/binary pairs, one process for all. */
function ezdxfPairs(pairs: [string, string][]): EzdxfPair[] {
  const r = spawnSync(PYTHON, [script, ...pairs.flat()], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`ezdxf_binary.py failed: ${r.stderr}`);
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l) as EzdxfPair);
}

/** ASCII DXF texts equal line by line, numbers compared as numbers. */
function sameValues(a: Buffer, b: Buffer): boolean {
  const x = a.toString('latin1').split('\n');
  const y = b.toString('latin1').split('\n');
  if (x.length !== y.length) return false;
  return x.every((line, i) => line === y[i] || (line.trim() !== '' && Number(line) === Number(y[i])));
}

function writePair(path: string, name: string): [string, string] {
  const doc = readDxfSync(readFileSync(path));
  const a = join(dir, `${name}.ascii.dxf`);
  const b = join(dir, `${name}.binary.dxf`);
  writeFileSync(a, writeDxf(doc, { binary: false }));
  writeFileSync(b, writeDxf(doc, { binary: true }));
  return [a, b];
}

describe('binary DXF writer', () => {
  it('reads back to the same drawing as the ASCII output, smaller', () => {
    for (const f of FILES) {
      const doc = readDxfSync(readFileSync(f));
      const ascii = writeDxf(doc, { binary: false });
      const binary = writeDxf(doc, { binary: true });
      expect(binary.subarray(0, 22).toString('latin1'), f).toBe(SENTINEL);
      expect(binary.length, f).toBeLessThan(ascii.length);
      // both forms read back to documents whose ASCII output is the same (a number read from
      // binary is a double: 1e+20 in the text comes back as 100000000000000000000)
      expect(sameValues(writeDxf(readDxfSync(binary), { binary: false }), ascii), f).toBe(true);
      expect(readDxfSync(binary).source.format).toBe('binary');
    }
  });

  it('R12 has one-byte group codes, later versions two-byte ones', () => {
    const r12 = writeDxf(readDxfSync(readFileSync(join(FIXTURES, 'r12_ascii.dxf'))), { binary: true });
    // `0 SECTION`: code 0 in one byte, then the name
    expect(r12.subarray(22, 31).toString('latin1')).toBe('\0SECTION\0');
    const r2018 = writeDxf(readDxfSync(readFileSync(join(FIXTURES, 'r2018.dxf'))), { binary: true });
    expect(r2018.subarray(22, 32).toString('latin1')).toBe('\0\0SECTION\0');
  });

  it('binary in, binary out by default; ASCII when asked', async () => {
    const doc = await readDxf(join(FIXTURES, 'r12_binary.dxf'));
    expect(doc.source.format).toBe('binary');
    expect(writeDxf(doc).subarray(0, 22).toString('latin1')).toBe(SENTINEL);
    expect(writeDxf(doc, { binary: false }).subarray(0, 22).toString('latin1')).not.toBe(SENTINEL);
    const ascii = await readDxf(join(FIXTURES, 'r2000.dxf'));
    expect(writeDxf(ascii).subarray(0, 22).toString('latin1')).not.toBe(SENTINEL);
    // a conversion to another version keeps the form too
    const out = join(dir, 'r12-binary-to-r2000.dxf');
    await saveDxf(doc, out, { version: 'R2000' });
    expect(readFileSync(out).subarray(0, 22).toString('latin1')).toBe(SENTINEL);
  });

  it('a value that is not a number in a numeric group is refused, not written', () => {
    const doc = readDxfSync(readFileSync(join(FIXTURES, 'r2000.dxf')));
    const line = doc.modelSpace().entities.find((e) => e.type === 'LINE') ?? doc.modelSpace().entities[0]!;
    (line.extra ??= {})['AcDbEntity'] = [[40, 'q.5']];
    expect(() => writeDxf(doc, { binary: true })).toThrow(DxfError);
    expect(() => writeDxf(doc, { binary: true })).toThrow(/group code 40 holds "q\.5", which is not a number/);
  });

  it('convert --binary, --ascii, and the two together refused', async () => {
    const err: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => err.push(s) } } as never;
    const b = join(dir, 'cli-b.dxf');
    expect(await convertCommand([join(FIXTURES, 'r2000.dxf'), b, '--binary'], io)).toBe(0);
    expect(readFileSync(b).subarray(0, 22).toString('latin1')).toBe(SENTINEL);
    expect(err.join('')).toMatch(/\(R2000, binary\)/);
    const kept = join(dir, 'cli-kept.dxf');
    expect(await convertCommand([b, kept], io)).toBe(0);
    expect(readFileSync(kept).subarray(0, 22).toString('latin1')).toBe(SENTINEL);
    const a = join(dir, 'cli-a.dxf');
    expect(await convertCommand([b, a, '--ascii'], io)).toBe(0);
    expect(readFileSync(a).subarray(0, 22).toString('latin1')).not.toBe(SENTINEL);
    expect(await convertCommand([b, a, '--ascii', '--binary'], io)).toBe(2);
  });

  it.skipIf(!hasEzdxf)('ezdxf: the same tags in both forms, and the binary file loads', () => {
    const pairs = FILES.map((f, i) => writePair(f, `fixture-${i}`));
    const results = ezdxfPairs(pairs);
    results.forEach((r, i) => {
      expect(r.first_difference, FILES[i]).toBeNull();
      expect(r.binary_tags, FILES[i]).toBe(r.ascii_tags);
      expect(r.error ?? '', FILES[i]).toBe('');
      expect(r.loads, FILES[i]).toBe(true);
    });
  });
});

const corpus = process.env.LINEWORK_DXF_CORPUS;
describe.skipIf(!corpus || !hasEzdxf)('binary DXF of the corpus (LINEWORK_DXF_CORPUS), through ezdxf', () => {
  it('every file: the same tags as its ASCII output; loads whenever the ASCII output loads', () => {
    const files = readdirSync(corpus!).filter((f) => f.toLowerCase().endsWith('.dxf')).sort();
    const pairs: [string, string][] = [];
    const names: string[] = [];
    for (const f of files) {
      // damaged input is written only with --recover; its repaired records are compared all the same
      pairs.push(writePair(join(corpus!, f), `corpus-${names.length}`));
      names.push(f);
    }
    const results = ezdxfPairs(pairs);
    const asciiLoads = spawnSync(PYTHON, ['-c', 'import sys, ezdxf\nfor p in sys.argv[1:]:\n    try:\n        ezdxf.readfile(p); print(1)\n    except Exception:\n        print(0)', ...pairs.map((p) => p[0])], { encoding: 'utf8', maxBuffer: 16 << 20 }).stdout.trim().split('\n');
    results.forEach((r, i) => {
      expect(r.first_difference, names[i]).toBeNull();
      expect(r.binary_tags, names[i]).toBe(r.ascii_tags);
      expect(r.loads, `${names[i]}: ${r.error}`).toBe(asciiLoads[i] === '1');
    });
    expect(results.length).toBe(files.length);
  }, 600_000);
});
