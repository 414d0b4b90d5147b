// document_open of DWG (hence the editor and plot): read through the converter, errors as codes,
// and a drawing read from DWG is saved as DXF only. A stand-in library is used here (the real
// LibreDWG build is optional and GPL; packages/dxf/test/dwg.test.ts runs it over the DWG corpus).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { engine, fails, ok } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'linework-dwg-open-'));
const savedEnv = { lib: process.env.LINEWORK_LIBREDWG, reader: process.env.LINEWORK_DWG_READER };
afterEach(() => {
  if (savedEnv.lib === undefined) delete process.env.LINEWORK_LIBREDWG;
  else process.env.LINEWORK_LIBREDWG = savedEnv.lib;
  if (savedEnv.reader === undefined) delete process.env.LINEWORK_DWG_READER;
  else process.env.LINEWORK_DWG_READER = savedEnv.reader;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const dxfFixture = new URL('../../dxf/test/fixtures/codes_r2018_ascii.dxf', import.meta.url).pathname;

function useLibrary(name: string, body: string): void {
  const pkg = join(dir, name, 'node_modules', '@mlightcad', 'libredwg-web');
  mkdirSync(join(pkg, 'dist'), { recursive: true });
  mkdirSync(join(pkg, 'wasm'), { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: '@mlightcad/libredwg-web', version: '0.0.0-test' }));
  writeFileSync(join(pkg, 'wasm', 'libredwg-web.wasm'), '');
  writeFileSync(join(pkg, 'dist', 'libredwg-web.js'), `export class LibreDwg {
  static async create() { return new LibreDwg(); }
  dwg_write_dxf() { ${body} }
}
`);
  process.env.LINEWORK_LIBREDWG = join(dir, name);
  process.env.LINEWORK_DWG_READER = 'libredwg';
}

const dwg = join(dir, 'plan.dwg');
writeFileSync(dwg, Buffer.concat([Buffer.from('AC1032'), Buffer.alloc(200, 7)]));

describe('document_open of DWG', () => {
  it('opens through the converter; saving to .dwg is refused, to .dxf works', async () => {
    const text = readFileSync(dxfFixture, 'latin1');
    useLibrary('gives', `return new TextEncoder().encode(${JSON.stringify(text)});`);
    const e = engine();
    const r = await ok(e, 'document_open', { path: dwg });
    expect(r.name).toBe('plan.dwg');
    expect(r.dxf_version).toBe('AC1032');
    expect(r.entities).toBeGreaterThan(0);
    const refused = await fails(e, 'save', {}, 'save_failed');
    expect(refused.error).toMatch(/DWG is read, not written/);
    const out = join(dir, 'plan.dxf');
    await ok(e, 'save', { path: out });
    expect(readFileSync(out, 'latin1').slice(0, 20)).toMatch(/^\s*0\r?\nSECTION/);
  });

  it('no converter: dwg_reader_missing, saying how to install one', async () => {
    process.env.LINEWORK_LIBREDWG = join(dir, 'nowhere');
    process.env.LINEWORK_DWG_READER = 'libredwg';
    const r = await fails(engine(), 'document_open', { path: dwg }, 'dwg_reader_missing');
    expect(r.error).toMatch(/npm install @mlightcad\/libredwg-web/);
  });

  it('the library fails: invalid_dwg naming it and its message', async () => {
    useLibrary('throws', "throw new Error('function signature mismatch');");
    const r = await fails(engine(), 'document_open', { path: dwg }, 'invalid_dwg');
    expect(r.error).toMatch(/LibreDWG \(@mlightcad\/libredwg-web 0\.0\.0-test\) cannot read this DWG: function signature mismatch/);
  });
});
