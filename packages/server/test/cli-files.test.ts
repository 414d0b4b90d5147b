// The command line as batch and CI users meet it (the real bins): --help everywhere, unknown
// commands, `audit`, several files per run on worker threads with one line per file and a total,
// --json and --quiet, progress on a terminal only, outputs the tool cannot write, ports in use.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runBin, type BinRun } from './helpers.js';

const KEYS_BIN = join(ROOT, 'packages', 'keys', 'bin', 'linework-keys.js');
const FIXTURES = join(ROOT, 'packages', 'dxf', 'fixtures');

type Run = BinRun;

function run(bin: string, args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return runBin(bin, args, { cwd: opts.cwd ?? dir, env: opts.env });
}
const linework = (args: string[], opts?: Parameters<typeof run>[2]) => run(BIN, args, opts);

/** An R12 drawing whose LINE is on a layer the (absent) LAYER table does not hold. */
const GHOST_LAYER = ['0', 'SECTION', '2', 'ENTITIES', '0', 'LINE', '8', 'GHOST', '10', '0', '20', '0', '30', '0', '11', '5', '21', '5', '31', '0', '0', 'ENDSEC', '0', 'EOF', ''].join('\n');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'linework-cli-'));
  mkdirSync(join(dir, 'in'));
  for (const f of ['r12_ascii.dxf', 'r2000.dxf', 'r2018.dxf']) copyFileSync(join(FIXTURES, f), join(dir, 'in', f));
  writeFileSync(join(dir, 'in', 'broken.dxf'), 'this is not a drawing\n');
  writeFileSync(join(dir, 'ghost.dxf'), GHOST_LAYER);
  copyFileSync(join(FIXTURES, 'r2018.dxf'), join(dir, 'clean.dxf'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--help and unknown commands', () => {
  it('every command and subcommand prints its usage on stdout and exits 0', async () => {
    const cases: Array<[string, string[], RegExp]> = [
      [BIN, ['--help'], /linework convert\|plot\|info\|audit\|run FILE\.\.\. --out-dir DIR/],
      [BIN, ['help'], /^Usage:/],
      [BIN, ['--http', '0', '--help'], /^Usage:/],
      [BIN, ['info', '--help'], /usage: linework info FILE/],
      [BIN, ['convert', '--help'], /usage: linework convert IN OUT[\s\S]*--out-dir DIR/],
      [BIN, ['plot', '--help'], /usage: linework plot FILE OUT[\s\S]*--jobs N/],
      [BIN, ['audit', '--help'], /usage: linework audit FILE \[--fix OUT\.dxf\]/],
      [BIN, ['help', 'convert'], /usage: linework convert IN OUT/],
      [BIN, ['convert', 'a.dxf', 'b.dxf', '-h'], /usage: linework convert/],
      [KEYS_BIN, ['--help'], /linework-keys serve/],
      [KEYS_BIN, ['serve', '--help'], /linework-keys serve \[--port <port>\]/],
      [KEYS_BIN, ['token', '--help'], /linework-keys token --sub <user>/],
      [KEYS_BIN, ['migrate', '--help'], /linework-keys migrate/],
    ];
    for (const [bin, args, usage] of cases) {
      const r = await run(bin, args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout, args.join(' ')).toMatch(usage);
      expect(r.stderr, args.join(' ')).toBe('');
    }
  });

  it('an unknown command names the commands (exit 2), not a missing transport', async () => {
    const r = await linework(['bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^linework: unknown command bogus: the commands are info, convert, plot, audit/);
    expect(r.stderr).not.toMatch(/no transport/);
    const k = await run(KEYS_BIN, ['bogus']);
    expect(k.code).toBe(2);
    expect(k.stderr).toMatch(/unknown command "bogus": the commands are serve, token and migrate/);
  });
});

describe('linework audit', () => {
  it('reports the errors and exits 1; a clean drawing exits 0', async () => {
    const bad = await linework(['audit', 'ghost.dxf']);
    expect(bad.code).toBe(1);
    // The file has no tables: reading adds the symbols every drawing has (reported), layer GHOST is missing.
    expect(bad.stdout).toMatch(/^ghost\.dxf: 7 errors \(read_repair 6, missing_layer 1\)\n {2}missing_layer 2: layer GHOST used by LINE 2 is not in the LAYER table/);
    expect(bad.stdout).toMatch(/read_repair: repaired while reading: the drawing had no LAYER "0"/);
    const clean = await linework(['audit', 'clean.dxf']);
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).toBe('clean.dxf: no errors\n');
    const json = await linework(['audit', 'ghost.dxf', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ file: 'ghost.dxf', count: 7, counts: { missing_layer: 1, read_repair: 6 }, fixed: 0 });
  });

  it('--fix OUT writes the repaired drawing (the input stays as it was), which then audits clean', async () => {
    const before = readFileSync(join(dir, 'ghost.dxf'), 'utf8');
    const r = await linework(['audit', 'ghost.dxf', '--fix', 'fixed.dxf']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/fixed 7, 0 left; repaired drawing written to fixed\.dxf/);
    expect(readFileSync(join(dir, 'ghost.dxf'), 'utf8')).toBe(before);
    expect((await linework(['audit', 'fixed.dxf'])).code).toBe(0);
    const refused = await linework(['audit', 'ghost.dxf', '--fix', 'fixed.dwg']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/cannot write fixed\.dwg/);
    expect((await linework(['audit', 'missing.dxf'])).code).toBe(1);
  });

  it('a damaged file (cut short) is an error, with or without --fix: exit 1', async () => {
    const whole = readFileSync(join(FIXTURES, 'r2018.dxf'));
    writeFileSync(join(dir, 'cut.dxf'), whole.subarray(0, whole.indexOf('ENTITIES') + 300));
    const r = await linework(['audit', 'cut.dxf']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/damaged_input/);
    const f = await linework(['audit', 'cut.dxf', '--fix', 'cut-fixed.dxf']);
    expect(f.code).toBe(1);
    expect(f.stdout).toMatch(/1 left; repaired drawing written to cut-fixed\.dxf/);
  });
});

describe('linework audit of damaged values', () => {
  it('lists a value that is not a number as damaged input (exit 1), and --fix writes the stand-ins', async () => {
    copyFileSync(join(ROOT, 'packages', 'dxf', 'test', 'fixtures', 'invalid_numbers.dxf'), join(dir, 'numbers.dxf'));
    const r = await linework(['audit', 'numbers.dxf']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/damaged_input: the file is damaged \(line 56\): CIRCLE #2A: group code 40 holds "q\.5", which is not a number; read as 1 \(fix: none: the value is lost/);
    const f = await linework(['audit', 'numbers.dxf', '--fix', 'numbers-fixed.dxf']);
    expect(f.code).toBe(1);
    expect(f.stdout).toMatch(/repaired drawing written to numbers-fixed\.dxf/);
    // what was written has numbers where the damage was: it audits with no damage left
    const again = await linework(['audit', 'numbers-fixed.dxf']);
    expect(again.stdout).not.toMatch(/damaged_input/);
  });
});

describe('several files per run', () => {
  it('convert FILE... --out-dir: worker threads, one line per file, a total; a bad file does not stop the others (exit 1)', async () => {
    const r = await linework(['convert', 'in/r12_ascii.dxf', 'in/broken.dxf', 'in/r2000.dxf', 'in/missing.dxf', 'in/r2018.dxf', '--out-dir', 'out', '--version', 'R2013', '--jobs', '2']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n');
    const fileLines = lines.filter((l) => /^\[\d\/5\] /.test(l));
    expect(fileLines).toHaveLength(5);
    for (const f of ['r12_ascii', 'r2000', 'r2018']) expect(fileLines.some((l) => l.includes(`ok     in/${f}.dxf -> out/${f}.dxf`)), f).toBe(true);
    expect(fileLines.filter((l) => l.includes('FAILED'))).toHaveLength(2);
    // the command's own report and the failures' reasons, indented under each file
    expect(r.stderr).toMatch(/\n {4}converted in\/r2000\.dxf \(R2000\) -> out\/r2000\.dxf \(R2013\)/);
    expect(r.stderr).toMatch(/FAILED in\/broken\.dxf[^\n]*\n {4}linework convert: .*line 1/);
    expect(lines.at(-2)).toMatch(/^convert: 5 files in [\d.]+ s on 2 worker threads: 3 ok, 2 failed$/);
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(['r12_ascii.dxf', 'r2000.dxf', 'r2018.dxf']);
    expect(readFileSync(join(dir, 'out', 'r2000.dxf'), 'latin1')).toMatch(/\$ACADVER\r?\n {2}1\r?\nAC1027/);
    const ok = await linework(['convert', 'in/r12_ascii.dxf', 'in/r2000.dxf', '--out-dir', 'out2']);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('takes folders and quoted patterns; plot and info batch too', async () => {
    const plot = await linework(['plot', 'in/r*.dxf', '--out-dir', 'plots', '--format', 'svg']);
    expect(plot.code, plot.stderr).toBe(0);
    expect(readdirSync(join(dir, 'plots')).sort()).toEqual(['r12_ascii.svg', 'r2000.svg', 'r2018.svg']);
    expect(plot.stdout).toMatch(/plots\/r2000\.svg: Model on/);
    const info = await linework(['info', 'in']);
    expect(info.code).toBe(1);
    expect(info.stdout.match(/^file: {6}in\//gm)).toHaveLength(3);
    expect(info.stderr).toMatch(/FAILED in\/broken\.dxf/);
    expect(info.stderr).toMatch(/^info: 4 files in .* 3 ok, 1 failed$/m);
    const audit = await linework(['audit', 'ghost.dxf', 'clean.dxf', '--fix', '--out-dir', 'fixed']);
    expect(audit.code, audit.stderr).toBe(0);
    expect(readdirSync(join(dir, 'fixed')).sort()).toEqual(['clean.dxf', 'ghost.dxf']);
  });

  it('--json: one object per file and a summary on stdout, nothing else', async () => {
    const r = await linework(['info', 'in/r12_ascii.dxf', 'in/broken.dxf', '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    const records = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(records).toHaveLength(3);
    const byFile = Object.fromEntries(records.slice(0, 2).map((x) => [x.file, x]));
    expect(byFile['in/r12_ascii.dxf']).toMatchObject({ status: 'ok', exit_code: 0, result: { version: 'AC1009' } });
    expect(byFile['in/broken.dxf']).toMatchObject({ status: 'failed', exit_code: 1, messages: [expect.stringMatching(/line 1/)] });
    expect(records[2]).toMatchObject({ summary: { command: 'info', files: 2, ok: 1, failed: 1 } });
    const single = await linework(['convert', 'in/r12_ascii.dxf', 'single.dxf', '--json']);
    expect(JSON.parse(single.stdout)).toMatchObject({ file: 'in/r12_ascii.dxf', status: 'ok', output: 'single.dxf' });
  });

  it('--quiet: nothing on success; the failures and the total when one fails', async () => {
    const ok = await linework(['convert', 'in/r12_ascii.dxf', 'in/r2000.dxf', '--out-dir', 'quiet', '--quiet']);
    expect(ok).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const bad = await linework(['convert', 'in/r12_ascii.dxf', 'in/broken.dxf', '--out-dir', 'quiet', '--quiet']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^\[\d\/2\] FAILED in\/broken\.dxf/);
    expect(bad.stderr).not.toMatch(/ ok /);
    expect(bad.stderr).toMatch(/1 ok, 1 failed\n$/);
  });

  it('refuses before any work: an output the tool cannot write, two inputs writing one output, an input overwritten', async () => {
    const dwg = await linework(['convert', 'in/r12_ascii.dxf', 'a0h.dwg']);
    expect(dwg.code).toBe(2);
    expect(dwg.stderr).toBe('linework convert: cannot write a0h.dwg: convert writes DXF only; name the output .dxf (DWG is read, not written: see docs/files.md)\n');
    expect(existsSync(join(dir, 'a0h.dwg'))).toBe(false);
    expect((await linework(['plot', 'in/r12_ascii.dxf', 'a0h.dwg'])).code).toBe(2);
    mkdirSync(join(dir, 'twin'), { recursive: true });
    copyFileSync(join(FIXTURES, 'r2000.dxf'), join(dir, 'twin', 'r2000.dxf'));
    const clash = await linework(['convert', 'in/r2000.dxf', 'twin/r2000.dxf', '--out-dir', 'clash']);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/in\/r2000\.dxf and twin\/r2000\.dxf would both write clash\/r2000\.dxf/);
    const self = await linework(['convert', 'in/r2000.dxf', '--out-dir', 'in']);
    expect(self.code).toBe(2);
    expect(self.stderr).toMatch(/would be overwritten by its own output/);
    const many = await linework(['convert', 'in/r2000.dxf', 'in/r2018.dxf', 'x.dxf']);
    expect(many.code).toBe(2);
    expect(many.stderr).toMatch(/several inputs need --out-dir DIR/);
  });
});

const ESC = String.fromCharCode(27);
const hasScript = spawnSync('sh', ['-c', 'command -v script'], { stdio: 'ignore' }).status === 0;

/** Runs a command line on a pseudo-terminal (util-linux `script`): stderr is a TTY there. */
function onTerminal(command: string): Run {
  const r = spawnSync('script', ['-qec', command, '/dev/null'], {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', LINEWORK_LOG_LEVEL: 'warn', LINEWORK_PROGRESS_AFTER_MS: '0', COLUMNS: '100' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!hasScript)('progress', () => {
  const node = JSON.stringify(process.execPath);
  const bin = JSON.stringify(BIN);

  it('is drawn on stderr when it is a terminal (batch and one file), never on stdout', () => {
    const batch = onTerminal(`${node} ${bin} info in/r12_ascii.dxf in/r2000.dxf in/r2018.dxf > batch-stdout.txt`);
    expect(batch.code).toBe(0);
    expect(batch.stdout).toMatch(/\r\[[#-]{20}\] \d\/3 files/);
    expect(batch.stdout).toMatch(/info: 3 files in/);
    const stdout = readFileSync(join(dir, 'batch-stdout.txt'), 'utf8');
    expect(stdout).toMatch(/^file: {6}in\//m);
    expect(stdout).not.toMatch(/\r|\[[#-]+\]/);
    expect(stdout).not.toContain(ESC);
    const one = onTerminal(`${node} ${bin} plot in/r2018.dxf one.pdf > one-stdout.txt`);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/\rplot r2018\.dxf: [\d.]+ s/);
    expect(readFileSync(join(dir, 'one-stdout.txt'), 'utf8')).toMatch(/one\.pdf: Model on /);
  });

  it('--quiet draws none, and neither does a pipe', async () => {
    const quiet = onTerminal(`${node} ${bin} info in/r12_ascii.dxf in/r2000.dxf --quiet > /dev/null`);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toBe('');
    const piped = await linework(['info', 'in/r12_ascii.dxf', 'in/r2000.dxf'], { env: { LINEWORK_PROGRESS_AFTER_MS: '0' } });
    expect(piped.stderr).not.toMatch(/\r/);
    expect(piped.stderr).not.toContain(ESC);
  });
});

describe('ports in use', () => {
  let blocker: Server;
  let port: number;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    port = (blocker.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => blocker.close(() => r())));

  it('is one line with a hint, no stack trace (linework and linework-keys)', async () => {
    for (const flag of ['--http', '--tcp']) {
      const r = await linework([flag, String(port)]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`linework: port ${port} on 127.0.0.1 is in use (${flag} ${port}): stop what listens there, or choose another port (${flag} 0 picks a free one)\n`);
    }
    const k = await run(KEYS_BIN, ['serve', '--port', String(port), '--db', join(dir, 'keys.db')], { env: { AUTH_JWT_SECRET: 'a-secret-of-at-least-32-characters-0123', LOG_LEVEL: 'warn' } });
    expect(k.code).toBe(1);
    expect(k.stderr).toBe(`linework-keys: port ${port} on 127.0.0.1 is in use: stop what listens there, or choose another with --port (--port 0 picks a free one)\n`);
  });
});
