// `linework run SCRIPT FILE...` as a CAD user runs a script over a folder of drawings (the real
// bin): .scr command lines and .jsonl protocol requests, SAVE/SAVEAS/PLOT into --out-dir, a failing
// line stops that drawing only, nothing is ever written beside the inputs; and `plot --quiet`.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runBin, type BinRun } from './helpers.js';

const FIXTURES = join(ROOT, 'packages', 'dxf', 'fixtures');

function linework(args: string[], cwd = dir): Promise<BinRun> {
  return runBin(BIN, args, { cwd });
}

/** Entity counts by type of a DXF file, as `linework info --json` reads it. */
async function counts(file: string): Promise<Record<string, number>> {
  const r = await linework(['info', file, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).countsByType as Record<string, number>;
}

let dir: string;
const inputs = ['r2000.dxf', 'r2018.dxf'];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'linework-run-'));
  mkdirSync(join(dir, 'in'));
  for (const f of inputs) copyFileSync(join(FIXTURES, f), join(dir, 'in', f));
  writeFileSync(join(dir, 'in', 'broken.dxf'), 'this is not a drawing\n');
  writeFileSync(join(dir, 'draw.scr'), [
    '; AutoCAD-style script: comments, _ and . prefixes',
    '_.LINE 0,0 100,0',
    '_CIRCLE 50,50 10',
    'OFFSET 5 60,50 70,50',
    'SAVE',
    'SAVEAS R12 {name}-r12',
    'PLOT',
    '',
  ].join('\n'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('linework run', () => {
  it('runs a .scr on each drawing on worker threads: SAVE, SAVEAS and PLOT write into --out-dir', async () => {
    const before = readFileSync(join(dir, 'in', 'r2000.dxf'));
    const r = await linework(['run', 'draw.scr', 'in/r2000.dxf', 'in/r2018.dxf', '--out-dir', 'out']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/run: 2 files in .* on 2 worker threads: 2 ok, 0 failed/);
    expect(r.stdout).toMatch(/r2000\.dxf: 6 lines run; wrote out\/r2000\.dxf, out\/r2000-r12\.dxf, out\/r2000\.pdf/);
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(['r2000-r12.dxf', 'r2000.dxf', 'r2000.pdf', 'r2018-r12.dxf', 'r2018.dxf', 'r2018.pdf']);
    for (const f of inputs) {
      const was = await counts(join(dir, 'in', f));
      const now = await counts(join(dir, 'out', f));
      expect(now.LINE ?? 0).toBe((was.LINE ?? 0) + 1);
      // the circle and its offset
      expect(now.CIRCLE ?? 0).toBe((was.CIRCLE ?? 0) + 2);
    }
    expect(readFileSync(join(dir, 'out', 'r2000-r12.dxf'), 'latin1')).toMatch(/\$ACADVER\s+1\s+AC1009/);
    expect(readFileSync(join(dir, 'out', 'r2000.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    // inputs untouched
    expect(readFileSync(join(dir, 'in', 'r2000.dxf')).equals(before)).toBe(true);
  });

  it('stops a drawing at its failing line (exit 1, the line named); the other drawings go on', async () => {
    writeFileSync(join(dir, 'bad.scr'), 'LINE 0,0 10,10\nFROB 1,2\nSAVE\n');
    const r = await linework(['run', 'bad.scr', 'in/r2000.dxf', 'in/broken.dxf', '--out-dir', 'bad']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/r2000\.dxf: line 2 FROB 1,2: invalid_command: unknown command FROB/);
    expect(r.stderr).toMatch(/broken\.dxf: cannot open the drawing: invalid_dxf/);
    expect(r.stderr).toMatch(/0 ok, 2 failed/);
    // nothing saved: SAVE comes after the failing line
    expect(existsSync(join(dir, 'bad', 'r2000.dxf'))).toBe(false);

    writeFileSync(join(dir, 'ok.scr'), 'LINE 0,0 10,10\nSAVE\n');
    const mixed = await linework(['run', 'ok.scr', 'in/r2018.dxf', 'in/broken.dxf', '--out-dir', 'mixed', '--json']);
    expect(mixed.code).toBe(1);
    const records = mixed.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const byFile = Object.fromEntries(records.filter((x) => x.file).map((x) => [x.file.replace(/\\/g, '/'), x]));
    expect(byFile['in/r2018.dxf'].status).toBe('ok');
    expect(byFile['in/r2018.dxf'].result.steps.map((s: { op: string }) => s.op)).toEqual(['command', 'save']);
    expect(byFile['in/broken.dxf'].status).toBe('failed');
    expect(records.at(-1).summary).toMatchObject({ command: 'run', files: 2, ok: 1, failed: 1 });
  });

  it('never writes beside its inputs: a script that saves needs --out-dir, paths stay inside it', async () => {
    const before = readFileSync(join(dir, 'in', 'r2018.dxf'));
    const r = await linework(['run', 'ok.scr', 'in/r2018.dxf']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/line 2 save writes a file: give --out-dir DIR/);
    expect(readFileSync(join(dir, 'in', 'r2018.dxf')).equals(before)).toBe(true);
    writeFileSync(join(dir, 'escape.jsonl'), '{"op":"save","path":"../escaped.dxf"}\n');
    const e = await linework(['run', 'escape.jsonl', 'in/r2018.dxf', '--out-dir', 'esc']);
    expect(e.code).toBe(1);
    expect(e.stderr).toMatch(/save writes "\.\.\/escaped\.dxf", outside --out-dir/);
    expect(existsSync(join(dir, 'escaped.dxf'))).toBe(false);
  });

  it('runs a .jsonl of protocol-1 requests (document_id and protocol implied; save without path to --out-dir)', async () => {
    writeFileSync(join(dir, 'reqs.jsonl'), [
      JSON.stringify({ op: 'command', cmd: 'LAYER New NOTES' }),
      JSON.stringify({ protocol: 1, op: 'layer_set', name: 'NOTES', color: 3 }),
      JSON.stringify({ op: 'entities_create', entities: [{ type: 'Text', insert: [0, 0], height: 2.5, value: 'checked', layer: 'NOTES' }] }),
      JSON.stringify({ op: 'save', version: 'R2010' }),
      '',
    ].join('\n'));
    const r = await linework(['run', 'reqs.jsonl', 'in/r2018.dxf', '--out-dir', 'j', '--json']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const rec = JSON.parse(r.stdout.trim().split('\n')[0]!);
    expect(rec.result.steps.map((s: { ok: boolean }) => s.ok)).toEqual([true, true, true, true]);
    const text = readFileSync(join(dir, 'j', 'r2018.dxf'), 'latin1');
    expect(text).toMatch(/\$ACADVER\s+1\s+AC1024/);
    expect(text).toContain('checked');
  });

  it('refuses what it cannot run with exit 2: no script kind, a bad SAVEAS, no files', async () => {
    writeFileSync(join(dir, 'x.txt'), 'LINE 0,0 1,1\n');
    const kind = await linework(['run', 'x.txt', 'in/r2018.dxf']);
    expect([kind.code, kind.stderr]).toEqual([2, expect.stringMatching(/a script is a \.scr \(command lines\) or a \.jsonl/)]);
    writeFileSync(join(dir, 'v.scr'), 'SAVEAS R99\n');
    const v = await linework(['run', 'v.scr', 'in/r2018.dxf', '--out-dir', 'v']);
    expect(v.code).not.toBe(0);
    expect(v.stderr).toMatch(/line 1: SAVEAS needs the DXF version first/);
    const none = await linework(['run', 'v.scr']);
    expect(none.code).toBe(2);
    const help = await linework(['run', '--help']);
    expect([help.code, help.stdout]).toEqual([0, expect.stringMatching(/usage: linework run SCRIPT FILE[\s\S]*SAVEAS VERSION/)]);
  });

  const corpus = process.env.LINEWORK_DXF_CORPUS;
  it.skipIf(!corpus)('runs a script over the whole DXF corpus', async () => {
    writeFileSync(join(dir, 'corpus.scr'), 'LINE 0,0 100,100\nSAVE\n');
    const r = await linework(['run', 'corpus.scr', corpus!, '--out-dir', 'corpus', '--json']);
    const records = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const summary = records.at(-1).summary;
    const files = readdirSync(corpus!).filter((f) => f.toLowerCase().endsWith('.dxf'));
    expect(summary.files).toBe(files.length);
    // every drawing the engine opens takes the script and is saved
    const failed = records.filter((x) => x.status === 'failed');
    for (const f of failed) expect(f.messages.join(' ')).toMatch(/cannot open the drawing/);
    expect(summary.ok).toBeGreaterThanOrEqual(files.length - failed.length);
    expect(readdirSync(join(dir, 'corpus')).length).toBe(summary.ok);
  }, 300_000);
});

describe('plot on the command line', () => {
  it('--quiet prints nothing but errors; --out puts many drawings into one PDF', async () => {
    const q = await linework(['plot', 'in/r2018.dxf', 'q.pdf', '--quiet', '--scale', '1:1000000']);
    expect([q.code, q.stdout, q.stderr]).toEqual([0, '', '']);
    const loud = await linework(['plot', 'in/r2018.dxf', 'l.pdf', '--scale', '1:1000000']);
    expect(loud.stdout).toMatch(/l\.pdf: Model on/);
    expect(loud.stderr).toMatch(/warning: page Model is (nearly )?empty/);
    const bad = await linework(['plot', 'in/broken.dxf', 'b.pdf', '--quiet']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/linework plot:/);
    const batch = await linework(['plot', 'in/r2000.dxf', 'in/r2018.dxf', '--out-dir', 'qp', '--quiet']);
    expect([batch.code, batch.stdout, batch.stderr]).toEqual([0, '', '']);
    const one = await linework(['plot', 'in/r2000.dxf', 'in/r2018.dxf', '--out', 'both.pdf', '--monochrome']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/both\.pdf page 1: r2000\.dxf Model[\s\S]*page 2: r2018\.dxf Model/);
    const pdfinfo = spawnSync('pdfinfo', [join(dir, 'both.pdf')], { encoding: 'utf8' });
    if (pdfinfo.status === 0) expect(pdfinfo.stdout).toMatch(/Pages:\s+2/);
    const clash = await linework(['plot', 'in/r2000.dxf', '--out', 'x.pdf', '--out-dir', 'y']);
    expect([clash.code, clash.stderr]).toEqual([2, expect.stringMatching(/--out writes one PDF and --out-dir one file per drawing/)]);
  });
});
