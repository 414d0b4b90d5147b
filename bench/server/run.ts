// Server benchmark: `npx tsx bench/server/run.ts [--duration 10] [--skip-engine]`.
//
// 1. GET /api/v1/ready, one request per connection (fresh socket each time, `Connection: close`),
//    8 concurrent connections, against the real `linework --http 0` process and, in the same run,
//    a bare `node:http` server answering a similar JSON body the same way. Goal: >= 80 % of bare.
// 2. Engine-heavy rows through HTTP: POST /entities with 100k entities, GET /entities?where= and
//    ?bounds= over them, POST /entities up to 1M and a bounds query there.
// Prints markdown tables. Both servers run as child processes; the load generator is this process.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const args = process.argv.slice(2);
const arg = (name: string, def: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : def;
};
const DURATION_S = arg('duration', args.includes('--quick') ? 3 : 10);
const CONNECTIONS = arg('connections', 8);
const TOKEN = 'bench-token-0123456789abcdef';

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

/** One request on a fresh connection; resolves with the status code when the server closes. */
function oneRequest(port: number, payload: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.setNoDelay(true);
    let first: Buffer | null = null;
    sock.on('connect', () => sock.write(payload));
    sock.on('data', (b: Buffer) => {
      first ??= b;
    });
    sock.on('error', () => undefined);
    sock.on('close', () => {
      const m = first ? /^HTTP\/1\.1 (\d{3})/.exec(first.toString('latin1', 0, 16)) : null;
      resolve(m ? Number(m[1]) : 0);
    });
  });
}

interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
}

class Sample {
  latencies: number[] = [];
  errors = 0;
  seconds = 0;

  result(): LoadResult {
    const l = [...this.latencies].sort((a, b) => a - b);
    const pct = (p: number): number => l[Math.min(l.length - 1, Math.floor((l.length * p) / 100))] ?? 0;
    return { requests: l.length, errors: this.errors, rps: l.length / this.seconds, p50: pct(50), p99: pct(99) };
  }
}

/** Runs CONNECTIONS workers for `seconds`, each sending one request per fresh connection. */
async function load(port: number, path: string, seconds: number, into = new Sample()): Promise<Sample> {
  const payload = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`);
  const end = performance.now() + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const status = await oneRequest(port, payload);
      into.latencies.push(performance.now() - t0);
      if (status !== 200) into.errors++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  into.seconds += (performance.now() - t0) / 1000;
  return into;
}

/** A JSON request through fetch (bodies of the engine rows are large). */
async function api(port: number, method: string, path: string, body?: unknown): Promise<{ status: number; json: any; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  return { status: res.status, json, ms: performance.now() - t0 };
}

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
  const linework = await startProcess([root + 'packages/server/bin/linework.js', '--http', '0'], { SERVICE_API_TOKEN: TOKEN, LINEWORK_LOG_LEVEL: 'warn' }, /127\.0\.0\.1:(\d+)\/api\/v1/);
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
    console.log('\nEngine-heavy requests through HTTP (one request each, wall time including transfer)\n');
    console.log('| request | status | ms | note |');
    console.log('|---|---:|---:|---|');
    const row = (name: string, r: { status: number; ms: number }, note: string): void => console.log(`| ${name} | ${r.status} | ${fmt(r.ms, 0)} | ${note} |`);
    const c100 = await api(linework.port, 'POST', '/entities', { entities: entities(100_000, 0) });
    row('POST /entities (100k)', c100, `${c100.json.result?.handles?.length ?? c100.json.code} handles`);
    const where = await api(linework.port, 'GET', `/entities?limit=1&where=${encodeURIComponent(JSON.stringify([{ path: '/radius', op: 'gt', value: 6 }]))}`);
    row('GET /entities?where= radius > 6 (100k)', where, `total ${where.json.total ?? where.json.code}`);
    const b100 = await api(linework.port, 'GET', '/entities?limit=10&bounds=100,100,200,200');
    row('GET /entities?bounds= (100k)', b100, `total ${b100.json.total ?? b100.json.code}`);
    const ext = await api(linework.port, 'POST', '/view_focus', {});
    row('POST /view_focus (extents, 100k)', ext, ext.json.ok ? 'ok' : String(ext.json.code));
    for (let i = 1; i < 10; i++) {
      const r = await api(linework.port, 'POST', '/entities', { entities: entities(100_000, i * 100_000) });
      if (r.status !== 201) throw new Error(`POST /entities failed: ${JSON.stringify(r.json).slice(0, 300)}`);
    }
    const b1m = await api(linework.port, 'GET', '/entities?limit=10&bounds=100,100,200,200');
    row('GET /entities?bounds= (1M)', b1m, `total ${b1m.json.total ?? b1m.json.code}`);
    const w1m = await api(linework.port, 'GET', `/entities?limit=1&where=${encodeURIComponent(JSON.stringify([{ path: '/radius', op: 'gt', value: 6 }]))}`);
    row('GET /entities?where= (1M)', w1m, `total ${w1m.json.total ?? w1m.json.code}`);
    const ready = await api(linework.port, 'GET', '/ready');
    row('GET /ready (1M in the drawing)', ready, '');
  } finally {
    linework.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
