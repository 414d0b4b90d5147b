// Batch conversion benchmark: every DXF file of the corpus (LINEWORK_DXF_CORPUS) read and written
// again (convert, same version) four ways, in the same run:
//  - one `linework convert CORPUS --out-dir DIR` run (worker threads, one per core), and the same
//    with --jobs 1;
//  - one `linework convert IN OUT` process per file, one after the other (a shell loop, as
//    `for f in *.dxf; do ...; done` or an accoreconsole loop does);
//  - ezdxf in a loop: one Python process reading and saving each file in turn (imports before
//    the clock starts are not counted; ezdxf users batch this way).
// Wall time of the whole batch, median of --runs (default 3); files that failed are counted.
// Needs the built packages (npx tsc -b). Outputs go to bench/out/cli/.
//
//   npx tsx bench/cli/run.ts [--runs 3] [--corpus DIR] [--no-peers] [--quick]
// Without a corpus the batch is 24 generated drawings of 2 000 entities each (12 with --quick,
// which also takes one run of each way).
import { spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = new URL('../..', import.meta.url).pathname;
const bin = join(root, 'packages/server/bin/linework.js');
const out = join(root, 'bench/out/cli');
const args = process.argv.slice(2);
function opt(name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : args.find((a) => a.startsWith(name + '='))?.slice(name.length + 1);
}
const quick = args.includes('--quick');
const runs = Math.max(1, Number(opt('--runs') ?? (quick ? 1 : 3)) | 0);
const peers = !args.includes('--no-peers');
const python = process.env.LINEWORK_PYTHON || '/usr/bin/python3';
const given = opt('--corpus') ?? process.env.LINEWORK_DXF_CORPUS;
const corpus = given ?? generatedCorpus(quick ? 12 : 24, 2000);
const what = given ? 'of the corpus' : 'generated (no LINEWORK_DXF_CORPUS)';

/** A folder of `count` generated drawings of `entities` entities (bench/dxf/worker.mjs generate). */
function generatedCorpus(count: number, entities: number): string {
  const dir = join(root, 'bench/out/cli-corpus');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const first = join(dir, 'generated-00.dxf');
  const g = spawnSync(process.execPath, [join(root, 'bench/dxf/worker.mjs'), 'generate', String(entities), first], { encoding: 'utf8' });
  if (g.status !== 0) throw new Error(`generating failed: ${g.stderr}`);
  for (let i = 1; i < count; i++) copyFileSync(first, join(dir, `generated-${String(i).padStart(2, '0')}.dxf`));
  return dir;
}

const files = readdirSync(corpus)
  .filter((f) => f.toLowerCase().endsWith('.dxf'))
  .sort()
  .map((f) => join(corpus, f));
const bytes = files.reduce((a, f) => a + statSync(f).size, 0);

const build = spawnSync(join(root, 'node_modules/.bin/tsc'), ['-b'], { cwd: root, encoding: 'utf8' });
if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);

interface Result {
  seconds: number;
  failed: number;
}

function fresh(dir: string): string {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** One `linework convert` run over the corpus folder; the failures from its --json summary. */
function batch(jobs?: number): Result {
  const dir = fresh(join(out, 'batch'));
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [bin, 'convert', corpus!, '--out-dir', dir, '--json', ...(jobs ? ['--jobs', String(jobs)] : [])], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const seconds = (performance.now() - t0) / 1000;
  const summary = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { summary: { failed: number; files: number } };
  if (summary.summary.files !== files.length) throw new Error(`batch saw ${summary.summary.files} files, expected ${files.length}`);
  return { seconds, failed: summary.summary.failed };
}

/** One process per file, one after the other. */
function perFile(): Result {
  const dir = fresh(join(out, 'per-file'));
  let failed = 0;
  const t0 = performance.now();
  for (const f of files) {
    const r = spawnSync(process.execPath, [bin, 'convert', f, join(dir, f.slice(corpus!.length + 1))], { encoding: 'utf8' });
    if (r.status !== 0) failed++;
  }
  return { seconds: (performance.now() - t0) / 1000, failed };
}

const EZDXF_LOOP = `
import sys, time, os, json, ezdxf
from ezdxf import recover
out = sys.argv[1]
files = sys.argv[2:]
failed = 0
t0 = time.perf_counter()
for f in files:
    try:
        doc = ezdxf.readfile(f)
        doc.saveas(os.path.join(out, os.path.basename(f)))
    except Exception:
        failed += 1
print(json.dumps({"seconds": time.perf_counter() - t0, "failed": failed}))
`;

/** ezdxf reading and saving every file in one Python process; its own clock (imports excluded). */
function ezdxfLoop(): Result {
  const dir = fresh(join(out, 'ezdxf'));
  const r = spawnSync(python, ['-c', EZDXF_LOOP, dir, ...files], { encoding: 'utf8', maxBuffer: 16 << 20 });
  if (r.status !== 0) throw new Error(`ezdxf loop failed: ${r.stderr.slice(-500)}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Result;
}

function median(f: () => Result): Result {
  const all: Result[] = [];
  for (let i = 0; i < runs; i++) {
    all.push(f());
    process.stderr.write('.');
  }
  const sorted = all.map((r) => r.seconds).sort((a, b) => a - b);
  return { seconds: sorted[Math.floor((sorted.length - 1) / 2)]!, failed: all[0]!.failed };
}

const cores = availableParallelism();
// Other work on the machine takes cores from the worker threads: the table says how busy it was.
const loadBefore = loadavg()[0]!;
const rows: Array<{ way: string; r: Result }> = [];
process.stderr.write(`${files.length} files, ${(bytes / 1e6).toFixed(1)} MB, ${runs} runs each `);
rows.push({ way: `\`linework convert CORPUS --out-dir DIR\` (one process, ${cores} worker threads)`, r: median(() => batch()) });
rows.push({ way: '`linework convert CORPUS --out-dir DIR --jobs 1` (one process, one worker thread)', r: median(() => batch(1)) });
rows.push({ way: '`linework convert IN OUT`, one process per file, one after the other', r: median(perFile) });
if (peers) {
  const probe = spawnSync(python, ['-c', 'import ezdxf; print(ezdxf.__version__)'], { encoding: 'utf8' });
  if (probe.status === 0) rows.push({ way: `ezdxf ${probe.stdout.trim()}: \`readfile\` + \`saveas\` in a loop, one Python process (imports not counted)`, r: median(ezdxfLoop) });
  else rows.push({ way: 'ezdxf (not installed)', r: { seconds: NaN, failed: NaN } });
}
process.stderr.write('\n');
rmSync(out, { recursive: true, force: true });
if (!given) rmSync(corpus, { recursive: true, force: true });

const base = rows[0]!.r.seconds;
console.log(
  `Converting (read + write, same version) the ${files.length} DXF files ${what} (${(bytes / 1e6).toFixed(1)} MB), wall time of the whole batch, ` +
    `median of ${runs} runs, on ${cores} cores (load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after).\n`,
);
console.log('| way | seconds | files/s | MB/s | failed | time vs one batch run |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const { way, r } of rows) {
  const ok = Number.isFinite(r.seconds);
  console.log(`| ${way} | ${ok ? r.seconds.toFixed(2) : '-'} | ${ok ? (files.length / r.seconds).toFixed(1) : '-'} | ${ok ? (bytes / 1e6 / r.seconds).toFixed(1) : '-'} | ${ok ? r.failed : '-'} | ${ok ? `${(r.seconds / base).toFixed(1)}x` : '-'} |`);
}
