// Server benchmark: `npx tsx bench/server/run.ts [--duration 10] [--skip-engine] [--quick]` (--quick: 3 s slices, and the engine rows on a tenth: 10k per request, 100k drawing).
//
// 1. GET /api/v1/ready, one request per connection (fresh socket each time, `Connection: close`),
//    8 concurrent connections, against the real `linework --http 0` process and, in the same run,
//    a bare `node:http` server answering a similar JSON body the same way. Goal: >= 80 % of bare.
// 2. Engine-heavy rows through HTTP (goals of the issue): POST /entities of 100k entities in one
//    request (< 1 s); on a drawing of 1M entities, GET /entities?bounds= for a box of ~100
//    entities (p50 < 5 ms) beside a linear scan of the same boxes in this process, the extents of
//    all 1M (< 1 s), and `where` radius > 5 (< 0.1 s). With python3-ezdxf present, ezdxf's
//    bbox.extents and query on the same drawing saved at 100k run as the peer (--no-peers skips).
// Prints markdown tables. Both servers run as child processes; the load generator is this process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sample, load as loadWith } from './load.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const args = process.argv.slice(2);
const arg = (name: string, def: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : def;
};
const DURATION_S = arg('duration', args.includes('--quick') ? 3 : 10);
/** Entities per request in the engine rows; the drawing grows to ten times this (--quick: a tenth). */
const CHUNK = args.includes('--quick') ? 10_000 : 100_000;
const count = (n: number): string => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);
const CONNECTIONS = arg('connections', 8);
const TOKEN = 'bench-token-0123456789abcdef';
const load = (port: number, path: string, seconds: number, into?: Sample): Promise<Sample> => loadWith(port, path, seconds, { token: TOKEN, connections: CONNECTIONS }, into);

interface Server {
  child: ChildProcess;
  port: number;
}

function startProcess(argv: string[], env: Record<string, string>, portRe: RegExp): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = portRe.exec(err);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${err}`)));
  });
}

const BARE = `
import { createServer } from 'node:http';
const token = ${JSON.stringify(TOKEN)};
const s = createServer((req, res) => {
  if (req.headers.authorization !== 'Bearer ' + token) { res.writeHead(401, { 'Content-Type': 'application/json', Connection: 'close' }); res.end('{"ok":false}'); return; }
  const body = JSON.stringify({ ok: true, ready: true, version: '0.1.0', session_id: '00000000-0000-0000-0000-000000000000', document_id: 1, http_status: 200 });
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
});
s.listen(0, '127.0.0.1', () => process.stderr.write('port ' + s.address().port + '\\n'));
`;

function entities(n: number, offset: number): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const k = offset + i;
    const x = (k % 1000) * 10;
    const y = Math.floor(k / 1000) * 10;
    out.push(k % 2 ? { type: 'Circle', center: [x, y], radius: 1 + (k % 7) } : { type: 'Line', start: [x, y], end: [x + 5, y + 5] });
  }
  return out;
}

const fmt = (n: number, d = 1): string => n.toFixed(d);

async function main(): Promise<void> {
  // The workspace: the checkout and the temporary folder the 100k drawing is saved in.
  const linework = await startProcess([root + 'packages/server/bin/linework.js', '--http', '0'], { SERVICE_API_TOKEN: TOKEN, LINEWORK_LOG_LEVEL: 'warn', LINEWORK_ROOT: [root, tmpdir()].join(delimiter) }, /127\.0\.0\.1:(\d+)\/api\/v1/);
  const bare = await startProcess(['--input-type=module', '-e', BARE], {}, /port (\d+)/);
  try {
    // Warm up both, then alternate one-second slices so both see the same machine load.
    await load(linework.port, '/api/v1/ready', 1);
    await load(bare.port, '/ready', 1);
    const lwS = new Sample();
    const nbS = new Sample();
    for (let i = 0; i < DURATION_S; i++) {
      await load(linework.port, '/api/v1/ready', 1, lwS);
      await load(bare.port, '/ready', 1, nbS);
    }
    const lw = lwS.result();
    const nb = nbS.result();
    console.log(`GET /ready, one request per fresh connection, ${CONNECTIONS} connections, ${DURATION_S} s each in alternating 1 s slices (same run, same client)\n`);
    console.log('| server | requests | errors | req/s | p50 ms | p99 ms | vs bare |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    console.log(`| linework --http | ${lw.requests} | ${lw.errors} | ${fmt(lw.rps, 0)} | ${fmt(lw.p50, 2)} | ${fmt(lw.p99, 2)} | ${fmt((100 * lw.rps) / nb.rps, 0)} % |`);
    console.log(`| bare node:http | ${nb.requests} | ${nb.errors} | ${fmt(nb.rps, 0)} | ${fmt(nb.p50, 2)} | ${fmt(nb.p99, 2)} | 100 % |`);

    if (args.includes('--skip-engine')) return;
    await engineRows(linework.port);
  } finally {
    linework.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
  }
}

function median(xs: number[]): number {
  const l = [...xs].sort((a, b) => a - b);
  return l[Math.floor(l.length / 2)] ?? 0;
}

function pct(xs: number[], p: number): number {
  const l = [...xs].sort((a, b) => a - b);
  return l[Math.min(l.length - 1, Math.floor((l.length * p) / 100))] ?? 0;
}

/** Times one already-serialised request: the client's JSON work stays outside the clock. */
async function timed(port: number, method: string, path: string, body?: string): Promise<{ status: number; json: any; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, { method, headers: { Authorization: `Bearer ${TOKEN}` }, body });
  const text = await res.text();
  const ms = performance.now() - t0;
  return { status: res.status, json: JSON.parse(text), ms };
}

function expectStatus(r: { status: number; json: any }, status: number, what: string): void {
  if (r.status !== status) throw new Error(`${what}: HTTP ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
}

/** The boxes of the generated entities, for the linear-scan baseline. */
function boxesOf(n: number): Float64Array {
  const b = new Float64Array(n * 4);
  for (let k = 0; k < n; k++) {
    const x = (k % 1000) * 10;
    const y = Math.floor(k / 1000) * 10;
    const r = 1 + (k % 7);
    if (k % 2) b.set([x - r, y - r, x + r, y + r], k * 4);
    else b.set([x, y, x + 5, y + 5], k * 4);
  }
  return b;
}

function scan(b: Float64Array, x0: number, y0: number, x1: number, y1: number): number {
  let hits = 0;
  for (let i = 0; i < b.length; i += 4) if (b[i]! <= x1 && b[i + 2]! >= x0 && b[i + 1]! <= y1 && b[i + 3]! >= y0) hits++;
  return hits;
}

const WHERE_R5 = encodeURIComponent(JSON.stringify([{ path: '/radius', op: 'gt', value: 5 }]));

async function engineRows(port: number): Promise<void> {
  const rows: string[] = [];
  const row = (what: string, ms: number, goal: string, note: string): void => {
    rows.push(`| ${what} | ${fmt(ms, ms < 10 ? 2 : 0)} | ${goal} | ${note} |`);
  };

  // CHUNK in one request (100k; 10k with --quick), three times on fresh documents; the median
  // counts. Then the last document grows to ten chunks (1M; 100k with --quick).
  const body100k = JSON.stringify({ entities: entities(CHUNK, 0) });
  const creates: number[] = [];
  for (let i = 0; i < 3; i++) {
    expectStatus(await timed(port, 'POST', '/documents', '{}'), 201, 'POST /documents');
    const r = await timed(port, 'POST', '/entities', body100k);
    expectStatus(r, 201, 'POST /entities');
    if (r.json.result.handles.length !== CHUNK) throw new Error('POST /entities: wrong handle count');
    creates.push(r.ms);
  }
  row(`POST /entities, ${count(CHUNK)} in one request (median of 3)`, median(creates), '< 1000', `runs ${creates.map((m) => fmt(m, 0)).join(', ')} ms`);

  const dir = mkdtempSync(join(tmpdir(), 'lw-bench-server-'));
  const dxf100k = join(dir, 'bench-100k.dxf');
  expectStatus(await timed(port, 'POST', '/save', JSON.stringify({ path: dxf100k })), 200, 'POST /save');

  for (let i = 1; i < 10; i++) expectStatus(await timed(port, 'POST', '/entities', JSON.stringify({ entities: entities(CHUNK, i * CHUNK) })), 201, 'POST /entities');
  const N = CHUNK * 10;
  const boxes = boxesOf(N);

  // Boxes of 85 x 85 drawing units around random spots hold about 100 entity boxes.
  const samples: number[] = [];
  const scans: number[] = [];
  let totals = 0;
  for (let i = 0; i < 200; i++) {
    const x = 20 + ((i * 7919) % 9900);
    const y = 20 + ((i * 104729) % 9900);
    const r = await timed(port, 'GET', `/entities?limit=1000&fields=handle&bounds=${x},${y},${x + 85},${y + 85}`);
    expectStatus(r, 200, 'GET /entities?bounds=');
    samples.push(r.ms);
    totals += r.json.total;
    const t0 = performance.now();
    const hits = scan(boxes, x, y, x + 85, y + 85);
    scans.push(performance.now() - t0);
    if (hits !== r.json.total) throw new Error(`bounds query found ${r.json.total}, the linear scan ${hits}`);
  }
  row(`GET /entities?bounds= on ${count(N)}, p50 of 200 boxes`, median(samples), '< 5', `p99 ${fmt(pct(samples, 99), 2)} ms, ${fmt(totals / 200, 0)} entities per box`);
  row(`  linear scan of the same ${count(N)} boxes (in process, no HTTP)`, median(scans), '', 'the baseline the index beats');

  const ext = await timed(port, 'POST', '/view_focus', '{}');
  expectStatus(ext, 200, 'POST /view_focus');
  const state = await timed(port, 'GET', '/state');
  row(`extents of ${count(N)} (POST /view_focus)`, ext.ms, '< 1000', `GET /state with extents: ${fmt(state.ms, 1)} ms`);

  const wheres: number[] = [];
  let whereTotal = 0;
  for (let i = 0; i < 5; i++) {
    const r = await timed(port, 'GET', `/entities?limit=1&fields=handle&where=${WHERE_R5}`);
    expectStatus(r, 200, 'GET /entities?where=');
    wheres.push(r.ms);
    whereTotal = r.json.total;
  }
  row(`GET /entities?where= radius > 5 on ${count(N)} (median of 5)`, median(wheres), '< 100', `${whereTotal} matches`);

  if (!args.includes('--no-peers')) {
    const peer = ezdxfPeer(dxf100k);
    if (peer) {
      row(`ezdxf bbox.extents, ${count(CHUNK)} (x10 for ${count(N)})`, peer.extents * 1000, '', `about ${fmt(peer.extents * 10, 1)} s for ${count(N)}`);
      row(`ezdxf query CIRCLE[radius>5], ${count(CHUNK)} (x10 for ${count(N)})`, peer.query * 1000, '', `about ${fmt(peer.query * 10, 2)} s for ${count(N)}`);
    }
  }
  rmSync(dir, { recursive: true, force: true });

  console.log('\nEngine-heavy requests through HTTP (wall time of the request, body built beforehand)\n');
  console.log('| request | ms | goal ms | note |');
  console.log('|---|---:|---:|---|');
  for (const r of rows) console.log(r);
}

const EZDXF_PEER = `
import sys, time, ezdxf
from ezdxf import bbox
doc = ezdxf.readfile(sys.argv[1])
msp = doc.modelspace()
t = time.perf_counter(); bbox.extents(msp); e = time.perf_counter() - t
t = time.perf_counter(); n = len(msp.query('CIRCLE[radius>5]')); q = time.perf_counter() - t
print(e, q)
`;

/** ezdxf's extents and query on the same drawing; null without python3-ezdxf. */
function ezdxfPeer(file: string): { extents: number; query: number } | null {
  const python = process.env.LINEWORK_PYTHON || '/usr/bin/python3';
  const r = spawnSync(python, ['-c', EZDXF_PEER, file], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) {
    console.error(`bench: ezdxf peer skipped: ${(r.stderr || r.error?.message || '').trim().split('\n').at(-1)}`);
    return null;
  }
  const [extents, query] = r.stdout.trim().split(/\s+/).map(Number);
  return { extents: extents!, query: query! };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
