// DWG read through converters: what is told apart by the first bytes, the errors when no converter
// is installed or it fails (a library that throws, one that aborts its process, an ODA File
// Converter that writes nothing), the ODA File Converter's command line, and, over the DWG corpus
// with the real LibreDWG build, entity counts by type, layers, blocks and extents equal to those
// of AutoCAD's DXF of the same drawing.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DwgError, documentInfo, dwgFileVersion, findLibreDwg, infoCommand, readDrawing, readDwg, readDxf } from '@linework/dxf';
import { dwgVersionOf } from '../src/dwg/detect.js';

const dir = mkdtempSync(join(tmpdir(), 'linework-dwg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname;

/** A file that starts as DWG of `version` does and then holds junk. */
function fakeDwg(name: string, version = 'AC1015'): string {
  const path = join(dir, name);
  const junk = Buffer.alloc(4000);
  for (let i = 0; i < junk.length; i++) junk[i] = (i * 7919) & 0xff;
  writeFileSync(path, Buffer.concat([Buffer.from(version, 'latin1'), junk]));
  return path;
}

/** A stand-in for @mlightcad/libredwg-web whose dwg_write_dxf runs `body` (the real one is GPL and optional). */
function fakeLibrary(name: string, body: string): string {
  const root = join(dir, name);
  const pkg = join(root, 'node_modules', '@mlightcad', 'libredwg-web');
  mkdirSync(join(pkg, 'dist'), { recursive: true });
  mkdirSync(join(pkg, 'wasm'), { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: '@mlightcad/libredwg-web', version: '0.0.0-test' }));
  writeFileSync(join(pkg, 'wasm', 'libredwg-web.wasm'), '');
  writeFileSync(join(pkg, 'dist', 'libredwg-web.js'), `export class LibreDwg {
  static async create() { return new LibreDwg(); }
  dwg_write_dxf(bytes) { ${body} }
  dwg_read_data() { return 0; }
  dwg_getall_LAYER() { return []; }
}
`);
  return root;
}

/** Env without any converter but the ones named. */
function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: '/usr/bin:/bin', LINEWORK_LIBREDWG: join(dir, 'nowhere'), ...extra };
}

describe('telling DWG from DXF', () => {
  it('reads the version string DWG files start with', async () => {
    expect(dwgVersionOf(Buffer.from('AC1032\0\0'))).toBe('AC1032');
    expect(dwgVersionOf(Buffer.from('AC10'))).toBeNull();
    expect(dwgVersionOf(Buffer.from('  0\nSECTION'))).toBeNull();
    expect(dwgVersionOf(Buffer.from('ACADVER'))).toBeNull();
    expect(await dwgFileVersion(fakeDwg('v.dwg', 'AC1027'))).toBe('AC1027');
    expect(await dwgFileVersion(fixture('codes_r2018_ascii.dxf'))).toBeNull();
    expect(await dwgFileVersion(fixture('codes_r2018_binary.dxf'))).toBeNull();
  });

  it('refuses DWG versions before R13 and after R2018', async () => {
    const e = env({ LINEWORK_LIBREDWG: fakeLibrary('any', 'return null;') });
    for (const v of ['AC1009', 'AC1040']) {
      const err = await readDwg(fakeDwg(`old-${v}.dwg`, v), {}, e).catch((x: unknown) => x);
      expect(err).toBeInstanceOf(DwgError);
      expect((err as DwgError).code).toBe('invalid_dwg');
      expect((err as Error).message).toMatch(/R13 \(AC1012\) to R2018 \(AC1032\)/);
    }
  });
});

describe('no converter installed', () => {
  it('says how to install one', async () => {
    const err = await readDrawing(fakeDwg('a.dwg'), {}, env({})).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(DwgError);
    expect((err as DwgError).code).toBe('dwg_reader_missing');
    expect((err as Error).message).toMatch(/npm install @mlightcad\/libredwg-web/);
    expect((err as Error).message).toMatch(/GPL-3\.0/);
    expect((err as Error).message).toMatch(/LINEWORK_LIBREDWG/);
    expect((err as Error).message).toMatch(/ODA File Converter/);
  });

  it('linework info says so, exit 1', async () => {
    const out: string[] = [];
    const saved = process.env.LINEWORK_LIBREDWG;
    process.env.LINEWORK_LIBREDWG = join(dir, 'nowhere');
    try {
      const code = await infoCommand([fakeDwg('b.dwg')], { stdout: { write: (s: string) => out.push(s) } as never, stderr: { write: (s: string) => out.push(s) } as never });
      expect(code).toBe(1);
      expect(out.join('')).toMatch(/linework info: .*b\.dwg: reading DWG needs LibreDWG/);
    } finally {
      if (saved === undefined) delete process.env.LINEWORK_LIBREDWG;
      else process.env.LINEWORK_LIBREDWG = saved;
    }
  });
});

describe('LibreDWG runs in a child process', () => {
  it('a library that throws: an error naming the library and its message', async () => {
    const lib = fakeLibrary('throws', "throw new WebAssembly.RuntimeError('function signature mismatch');");
    const err = await readDrawing(fakeDwg('c.dwg'), {}, env({ LINEWORK_LIBREDWG: lib })).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(DwgError);
    expect((err as DwgError).code).toBe('invalid_dwg');
    expect((err as Error).message).toBe('LibreDWG (@mlightcad/libredwg-web 0.0.0-test) cannot read this DWG: function signature mismatch');
  });

  it('a library that aborts its process: an error, and this process goes on', async () => {
    const lib = fakeLibrary('aborts', "console.error('Aborted(OOM)'); process.abort();");
    const err = await readDrawing(fakeDwg('d.dwg'), {}, env({ LINEWORK_LIBREDWG: lib })).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(DwgError);
    expect((err as Error).message).toMatch(/^LibreDWG \(@mlightcad\/libredwg-web 0\.0\.0-test\) cannot read this DWG: its process ended by SIGABRT: Aborted\(OOM\)$/);
  });

  it('a library that gives no DXF: its error code in words', async () => {
    const lib = fakeLibrary('nothing', "console.log('Convert dwg to dxf with error code: ', 2048 | 4); return null;");
    const err = await readDrawing(fakeDwg('e.dwg'), {}, env({ LINEWORK_LIBREDWG: lib })).catch((x: unknown) => x);
    expect((err as Error).message).toMatch(/returned no DXF \(it printed: Convert dwg to dxf with error code 2052 \(unhandled class, invalid DWG\)\)/);
  });

  it('DXF from the library is read, with the DWG\'s version and the reader named', async () => {
    const dxf = readFileSync(fixture('codes_r2018_ascii.dxf')).toString('latin1');
    const lib = fakeLibrary('gives', `return new TextEncoder().encode(${JSON.stringify(dxf)});`);
    const doc = await readDrawing(fakeDwg('f.dwg', 'AC1032'), {}, env({ LINEWORK_LIBREDWG: lib }));
    const direct = await readDxf(fixture('codes_r2018_ascii.dxf'));
    expect(documentInfo(doc, 'x').countsByType).toEqual(documentInfo(direct, 'x').countsByType);
    expect(doc.source).toEqual({ format: 'dwg', dwgVersion: 'AC1032', reader: 'LibreDWG (@mlightcad/libredwg-web 0.0.0-test)' });
  });
});

describe('ODA File Converter', () => {
  /** A stand-in ODAFileConverter: notes its arguments, then copies `dxf` (or nothing) to the output folder. */
  function fakeOda(name: string, dxf: string | null): string {
    const bin = join(dir, name);
    mkdirSync(bin, { recursive: true });
    const script = join(bin, 'ODAFileConverter');
    writeFileSync(script, `#!/bin/sh
printf '%s\\n' "$@" > "${bin}/args"
${dxf ? `cp "${dxf}" "$2/drawing.dxf"` : "echo 'Unsupported file format' >&2"}
exit 1
`);
    chmodSync(script, 0o755);
    return bin;
  }

  it('is used when on PATH: DWG to DXF in a temporary folder, in the DWG\'s version', async () => {
    const bin = fakeOda('oda-ok', fixture('codes_r2018_ascii.dxf'));
    const before = readdirSync(tmpdir()).filter((n) => n.startsWith('linework-dwg-')).length;
    const doc = await readDrawing(fakeDwg('g.dwg', 'AC1015'), {}, env({ PATH: `${bin}:/usr/bin:/bin` }));
    expect(doc.source).toMatchObject({ format: 'dwg', dwgVersion: 'AC1015', reader: 'ODA File Converter' });
    const args = readFileSync(join(bin, 'args'), 'utf8').trim().split('\n');
    expect(args.slice(2)).toEqual(['ACAD2000', 'DXF', '0', '0', 'drawing.dwg']);
    // the converter's folders are gone again
    expect(existsSync(args[0]!)).toBe(false);
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith('linework-dwg-')).length).toBeLessThanOrEqual(before);
  });

  it('no DXF out: an error with its words', async () => {
    const bin = fakeOda('oda-fails', null);
    const err = await readDrawing(fakeDwg('h.dwg'), {}, env({ PATH: `${bin}:/usr/bin:/bin` })).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(DwgError);
    expect((err as Error).message).toBe('the ODA File Converter cannot read this DWG: Unsupported file format');
  });

  it('LINEWORK_DWG_READER chooses', async () => {
    const bin = fakeOda('oda-chosen', fixture('codes_r2018_ascii.dxf'));
    const lib = fakeLibrary('unchosen', "throw new Error('not me');");
    const viaLib = await readDrawing(fakeDwg('i.dwg'), {}, env({ PATH: `${bin}:/usr/bin:/bin`, LINEWORK_LIBREDWG: lib, LINEWORK_DWG_READER: 'libredwg' })).catch((x: unknown) => x);
    expect((viaLib as Error).message).toMatch(/not me/);
    const missing = await readDrawing(fakeDwg('j.dwg'), {}, env({ LINEWORK_DWG_READER: 'oda' })).catch((x: unknown) => x);
    expect((missing as DwgError).code).toBe('dwg_reader_missing');
  });
});

// ---- the real LibreDWG build over the DWG corpus ----------------------------------------------
const corpus = process.env.LINEWORK_DWG_CORPUS;
const libredwg = findLibreDwg();
const realEnv = { ...process.env, LINEWORK_DWG_READER: 'libredwg' };

describe.skipIf(!libredwg)('LibreDWG itself', () => {
  it('damaged DWG: an error naming the library, nothing else', async () => {
    const err = await readDrawing(fakeDwg('junk.dwg', 'AC1018'), {}, realEnv).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(DwgError);
    expect((err as Error).message).toMatch(/^LibreDWG \(@mlightcad\/libredwg-web [\d.]+\) cannot read this DWG: /);
  });
});

describe.skipIf(!corpus || !libredwg)('DWG corpus (LINEWORK_DWG_CORPUS) through LibreDWG', () => {
  const files = corpus ? readdirSync(corpus).filter((f) => f.toLowerCase().endsWith('.dwg')).sort() : [];
  const close = (a: number[] | undefined, b: number[] | undefined) => {
    expect(a && b).toBeTruthy();
    for (let i = 0; i < 3; i++) expect(Math.abs(a![i]! - b![i]!)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(b![i]!)));
  };
  for (const f of files) {
    it(f, async () => {
      const path = join(corpus!, f);
      const doc = await readDrawing(path, {}, realEnv);
      const version = await dwgFileVersion(path);
      expect(doc.version).toBe(version);
      expect(doc.source).toMatchObject({ format: 'dwg', dwgVersion: version });
      const info = documentInfo(doc, f);
      expect(info.entities).toBeGreaterThan(0);
      // every layer the DWG has on is on (the library's DXF writer says every layer is off)
      expect(info.layers.length).toBeGreaterThan(0);
      const beside = path.replace(/\.dwg$/i, '.dxf');
      if (!existsSync(beside)) return;
      const want = documentInfo(await readDxf(beside), f);
      expect(info.countsByType).toEqual(want.countsByType);
      expect(info.layers).toEqual(want.layers);
      expect(info.blocks.sort()).toEqual(want.blocks.sort());
      expect(info.layouts).toEqual(want.layouts);
      close(info.extents?.min, want.extents?.min);
      close(info.extents?.max, want.extents?.max);
      const layerColors = (d: typeof doc) => (d.tables.get('LAYER')?.entries ?? []).map((e) => [e.attrs.name, e.attrs.color]);
      expect(layerColors(doc)).toEqual(layerColors(await readDxf(beside)));
    }, 120_000);
  }
});
