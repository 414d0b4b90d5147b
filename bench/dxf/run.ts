// DXF read/write benchmark: Linework beside ezdxf (Python) and the npm dxf-parser, same files,
// same run. Each measurement runs in its own process; times are taken inside the process (no
// start-up), memory is the process's peak RSS. Linework runs from its build (packages/dxf/dist,
// brought up to date first) under plain node, as it ships.
//   npx tsx bench/dxf/run.ts [--sizes 10000,100000,1000000] [--full] [--quick] [--corpus DIR] [--no-peers] [--runs 3]
// Whole processes too, as a user runs them: `linework info FILE` beside a script that parses the
// file with dxf-parser, and `linework convert IN OUT` beside a Python process that reads and saves
// it with ezdxf, each from its start to its exit (start-up, imports, reading, writing): wall time,
// and the CPU time of the process (user + system, from /usr/bin/time when it is there), which a
// busy machine disturbs less than the wall time.
// Default: 10k and 100k generated entities plus the three largest files of LINEWORK_DXF_CORPUS;
// 1M with --full or BENCH_FULL=1; --quick: 10k only, one run each, the largest corpus file only. Every tool is measured `--runs` times in fresh processes (the
// median time and the highest peak memory are reported), except that a measurement taking over
// 20 s is not repeated: on a shared virtual machine single runs of a second or two vary by a
// quarter, while the long ones vary by a few percent.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');
const worker = join(here, 'worker.mjs');
const node = process.execPath;
const python = process.env.LINEWORK_PYTHON || '/usr/bin/python3';

const args = process.argv.slice(2);
function opt(name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : args.find((a) => a.startsWith(name + '='))?.slice(name.length + 1);
}
const full = args.includes('--full') || process.env.BENCH_FULL === '1';
const quick = args.includes('--quick');
const sizes = (opt('--sizes') ?? (full ? '10000,100000,1000000' : quick ? '10000' : '10000,100000')).split(',').map(Number).filter((n) => n > 0);
const corpus = opt('--corpus') ?? process.env.LINEWORK_DXF_CORPUS;
const peers = !args.includes('--no-peers');
const runs = Math.max(1, Number(opt('--runs') ?? (quick ? 1 : 3)) | 0);
/** Measurements longer than this are taken once. */
const REPEAT_BELOW_SECONDS = 20;

interface Measure {
  seconds: number;
  entities: number;
  maxRss: number;
  /** User + system CPU seconds of a whole process (whole-process rows only). */
  cpu?: number;
}

/** `runs` measurements in fresh processes (fewer when one takes long): median time, highest peak. */
function run(cmd: string, argv: string[], input?: string): Measure | { error: string } {
  const first = runOnce(cmd, argv, input);
  if ('error' in first || first.seconds > REPEAT_BELOW_SECONDS) return first;
  const all: Measure[] = [first];
  for (let i = 1; i < runs; i++) {
    const m = runOnce(cmd, argv, input);
    if ('error' in m) return m;
    all.push(m);
  }
  const times = all.map((m) => m.seconds).sort((a, b) => a - b);
  return { seconds: times[Math.floor((times.length - 1) / 2)]!, entities: first.entities, maxRss: Math.max(...all.map((m) => m.maxRss)) };
}

function runOnce(cmd: string, argv: string[], input?: string): Measure | { error: string } {
  const r = spawnSync(cmd, argv, { encoding: 'utf8', input, maxBuffer: 16 << 20, cwd: root, env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=8192' } });
  if (r.status !== 0) return { error: (r.stderr || r.stdout || `exit ${r.status}`).trim().split('\n').slice(-1)[0]! };
  const line = r.stdout.trim().split('\n').at(-1)!;
  return JSON.parse(line) as Measure;
}

const bin = join(root, 'packages', 'server', 'bin', 'linework.js');
const gnuTime = '/usr/bin/time';
const haveGnuTime = spawnSync(gnuTime, ['-f', '%e', 'true']).status === 0;

/** A whole process from start to exit, `runs` times: median wall and CPU time, highest peak memory. */
function runWhole(cmd: string, argv: string[], entities: number): Measure | { error: string } {
  const all: Measure[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = haveGnuTime
      ? spawnSync(gnuTime, ['-f', 'TIME %e %U %S %M', cmd, ...argv], { encoding: 'utf8', maxBuffer: 64 << 20, cwd: root })
      : spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 64 << 20, cwd: root });
    const wall = (performance.now() - t0) / 1000;
    if (r.status !== 0) return { error: (r.stderr || r.stdout || `exit ${r.status}`).trim().split('\n').slice(-1)[0]! };
    const t = haveGnuTime ? r.stderr.trim().split('\n').reverse().find((l) => l.startsWith('TIME '))?.split(' ').map(Number) : undefined;
    all.push({ seconds: t ? t[1]! : wall, entities, maxRss: t ? t[4]! * 1024 : 0, ...(t ? { cpu: t[2]! + t[3]! } : {}) });
    if (all[0]!.seconds > REPEAT_BELOW_SECONDS) break;
  }
  const med = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
  const cpus = all.flatMap((m) => (m.cpu === undefined ? [] : [m.cpu]));
  return { seconds: med(all.map((m) => m.seconds)), entities, maxRss: Math.max(...all.map((m) => m.maxRss)), ...(cpus.length ? { cpu: med(cpus) } : {}) };
}

const DXF_PARSER_PROCESS = `
const fs = require('node:fs');
const DxfParser = require('dxf-parser');
const dxf = new DxfParser().parseSync(fs.readFileSync(process.argv[1], 'utf8'));
let n = dxf.entities.length;
for (const b of Object.values(dxf.blocks || {})) n += (b.entities || []).length;
console.log(n);
`;

const EZDXF_CONVERT_PROCESS = `
import sys, ezdxf
ezdxf.readfile(sys.argv[1]).saveas(sys.argv[2])
`;

const EZDXF = `
import sys, time, resource, ezdxf
mode, path = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
doc = ezdxf.readfile(path)
t1 = time.perf_counter()
n = sum(len(b) for b in doc.blocks)
if mode == 'write':
    t1 = time.perf_counter(); doc.saveas(sys.argv[3]); t2 = time.perf_counter(); secs = t2 - t1
else:
    secs = t1 - t0
print('{"seconds": %f, "entities": %d, "maxRss": %d}' % (secs, n, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024))
`;

const DXF_PARSER = `
const fs = require('node:fs');
const DxfParser = require('dxf-parser');
const path = process.argv[1];
const t0 = performance.now();
const text = fs.readFileSync(path, 'utf8');
const dxf = new DxfParser().parseSync(text);
const seconds = (performance.now() - t0) / 1000;
let n = dxf.entities.length;
for (const b of Object.values(dxf.blocks || {})) n += (b.entities || []).length;
console.log(JSON.stringify({ seconds, entities: n, maxRss: process.resourceUsage().maxRSS * 1024 }));
`;

interface Row {
  file: string;
  size: number;
  tool: string;
  op: string;
  m: Measure | { error: string };
}

// a stale dist would measure some other code than the sources (the server: the `linework` bin)
const build = spawnSync(join(root, 'node_modules', '.bin', 'tsc'), ['-b', join(root, 'packages', 'dxf'), join(root, 'packages', 'server')], { encoding: 'utf8', cwd: root });
if (build.status !== 0) throw new Error(`building packages/dxf and packages/server failed:\n${build.stdout}${build.stderr}`);

const rows: Row[] = [];
const tmp = mkdtempSync(join(tmpdir(), 'lw-bench-'));

function measureFile(file: string, label: string, entitiesHint?: number): void {
  const size = statSync(file).size;
  const add = (tool: string, op: string, m: Measure | { error: string }): void => {
    if (!('error' in m) && entitiesHint && !m.entities) m.entities = entitiesHint;
    rows.push({ file: label, size, tool, op, m });
    const line = 'error' in m ? `error: ${m.error}` : `${m.seconds.toFixed(2)} s, ${(m.maxRss / 1e6).toFixed(0)} MB`;
    process.stderr.write(`  ${label} ${tool} ${op}: ${line}\n`);
  };
  const out = join(tmp, 'out.dxf');
  add('linework', 'read', run(node, [worker, 'read', file]));
  add('linework', 'write', run(node, [worker, 'write', file, out]));
  add('linework', 'write binary', run(node, [worker, 'write-binary', file, out]));
  const read = rows.at(-3)!.m;
  const n = 'error' in read ? 0 : read.entities;
  add('linework', 'info (process)', runWhole(node, [bin, 'info', file], n));
  add('linework', 'convert (process)', runWhole(node, [bin, 'convert', file, out], n));
  if (!peers) return;
  add('ezdxf', 'read', run(python, ['-c', EZDXF, 'read', file]));
  add('ezdxf', 'write', run(python, ['-c', EZDXF, 'write', file, out]));
  add('dxf-parser', 'read', run(process.execPath, ['-e', DXF_PARSER, file]));
  add('dxf-parser', 'parse (process)', runWhole(process.execPath, ['-e', DXF_PARSER_PROCESS, file], n));
  add('ezdxf', 'convert (process)', runWhole(python, ['-c', EZDXF_CONVERT_PROCESS, file, out], n));
}

for (const n of sizes) {
  const file = join(tmp, `generated-${n}.dxf`);
  process.stderr.write(`generating ${n} entities...\n`);
  const g = runOnce(node, [worker, 'generate', String(n), file]);
  if ('error' in g) throw new Error(`generating failed: ${g.error}`);
  measureFile(file, `generated ${n >= 1e6 ? n / 1e6 + 'M' : n / 1e3 + 'k'}`);
}

if (corpus) {
  const largest = readdirSync(corpus)
    .filter((f) => f.toLowerCase().endsWith('.dxf'))
    .map((f) => ({ f, size: statSync(join(corpus, f)).size }))
    .sort((a, b) => b.size - a.size)
    .slice(0, quick ? 1 : 3);
  for (const { f } of largest) measureFile(join(corpus, f), basename(f));
}

rmSync(tmp, { recursive: true, force: true });

// ---- the table ---------------------------------------------------------------------------------
function cell(m: Measure | { error: string } | undefined, size: number): string[] {
  if (!m) return ['-', '-', '-', '-', '-'];
  if ('error' in m) return ['failed', '-', '-', '-', '-'];
  const perEntity = m.entities && m.maxRss ? (m.maxRss - size) / m.entities : NaN;
  return [
    m.seconds.toFixed(2), m.cpu === undefined ? '-' : m.cpu.toFixed(2), m.entities ? Math.round(m.entities / m.seconds).toLocaleString('en-US') : '-',
    m.maxRss ? (m.maxRss / 1e6).toFixed(0) : '-', Number.isFinite(perEntity) ? Math.round(perEntity).toString() : '-',
  ];
}

const header = '| file | size MB | entities | tool | op | seconds | CPU s (process) | entities/s | peak MB | bytes/entity above file |';
console.log(`\nMedian of ${runs} runs in fresh processes per tool and operation (one run when it takes over ${REPEAT_BELOW_SECONDS} s); peak memory: the highest of the runs.`);
console.log(`\n${header}\n|${header.split('|').slice(1, -1).map(() => '---').join('|')}|`);
for (const r of rows) {
  const entities = 'error' in r.m ? '-' : r.m.entities.toLocaleString('en-US');
  console.log(`| ${r.file} | ${(r.size / 1e6).toFixed(1)} | ${entities} | ${r.tool} | ${r.op} | ${cell(r.m, r.size).join(' | ')} |`);
}

// speed-ups against the peers, per file
console.log('\n| file | read vs ezdxf | write vs ezdxf | read vs dxf-parser | binary write vs ASCII write | `info` vs dxf-parser, process (wall; CPU) | `convert` vs ezdxf, process (wall; CPU) |\n|---|---|---|---|---|---|---|');
const files = [...new Set(rows.map((r) => r.file))];
for (const f of files) {
  const get = (tool: string, op: string): Measure | undefined => {
    const m = rows.find((r) => r.file === f && r.tool === tool && r.op === op)?.m;
    return m && !('error' in m) ? m : undefined;
  };
  const ratio = (a?: Measure, b?: Measure): string => (a && b ? `${(b.seconds / a.seconds).toFixed(1)}x` : '-');
  const both = (a?: Measure, b?: Measure): string =>
    a && b ? `${ratio(a, b)}${a.cpu !== undefined && b.cpu !== undefined ? `; ${(b.cpu / a.cpu).toFixed(1)}x` : ''}` : '-';
  console.log(
    `| ${f} | ${ratio(get('linework', 'read'), get('ezdxf', 'read'))} | ${ratio(get('linework', 'write'), get('ezdxf', 'write'))} | ${ratio(get('linework', 'read'), get('dxf-parser', 'read'))} | ${ratio(get('linework', 'write binary'), get('linework', 'write'))} | ` +
      `${both(get('linework', 'info (process)'), get('dxf-parser', 'parse (process)'))} | ${both(get('linework', 'convert (process)'), get('ezdxf', 'convert (process)'))} |`,
  );
}
