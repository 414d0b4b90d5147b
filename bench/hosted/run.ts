// Hosted API benchmark: `npx tsx bench/hosted/run.ts [--duration 5] [--connections 8]` (also
// `npm run bench -- hosted`).
//
// Requests per second through an API key against through the session token, in one run, on one
// `linework --http 0 --keys-url ...` process: the same GET, one request per fresh connection (the
// spec's rule), 8 concurrent connections, alternating one-second slices so every row sees the
// same machine load. A keyed request costs one verification round trip to the key service
// (`POST /api-keys/verify`, never cached) before it runs in its organization's session. The key
// service runs on SQLite; with BENCH_POSTGRES_URL or TEST_POSTGRES_URL set, a second key service
// on PostgreSQL (its own schema) with its own drawing server adds a row. Each row also gives the CPU
// time the drawing server and the key service used per answered request (/proc, Linux): under a
// shared, busy machine the rates swing, the CPU per request much less. After the load, the key
// service's request count of each key must equal the keyed requests answered: every request was
// verified. Then bench/hosted/isolation.ts: what the organizations' worker processes cost (the
// routing hop) and buy (organization B while organization A plots); `--no-isolation` skips it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Sample, load } from '../server/load.js';
import { runIsolation } from './isolation.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const args = process.argv.slice(2);
const arg = (name: string, def: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : def;
};
const DURATION_S = arg('duration', args.includes('--quick') ? 2 : 5);
const CONNECTIONS = arg('connections', 8);
const TOKEN = 'bench-session-token-0123456789abcdef';
const SECRET = 'bench-hosted-secret-0123456789abcdef0123456789';
const KEYS_BIN = root + 'packages/keys/bin/linework-keys.js';
const LINEWORK_BIN = root + 'packages/server/bin/linework.js';
const PG = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL;
const SCHEMA = `hosted_bench_${randomBytes(4).toString('hex')}`;

interface Proc {
  child: ChildProcess;
  url: string;
}

function start(argv: string[], env: NodeJS.ProcessEnv, urlRe: RegExp): Promise<Proc> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = urlRe.exec(err);
      if (m) resolve({ child, url: m[1]! });
    });
    child.on('exit', (code) => reject(new Error(`${argv[0]} exited (${code}): ${err}`)));
  });
}

interface Backend {
  name: string;
  keys: Proc;
  linework: Proc;
  port: number;
  key: string;
  keyId: string;
  jwt: string;
}

async function backend(name: string, dir: string, keysEnv: NodeJS.ProcessEnv): Promise<Backend> {
  const env = { AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'warn', ...keysEnv };
  const keys = await start([KEYS_BIN, 'serve', '--port', '0'], env, /^(http:\/\/127\.0\.0\.1:\d+)$/m);
  const minted = spawnSync(process.execPath, [KEYS_BIN, 'token', '--sub', 'bench', '--org', `bench-${name}`, '--role', 'DEVELOPER'], { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' });
  const jwt = minted.stdout.trim();
  const res = await fetch(`${keys.url}/api-keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${jwt}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'bench', permissions: ['*'] }),
  });
  const created = (await res.json()) as { data: { rawKey: string; id: string } };
  const linework = await start(
    [LINEWORK_BIN, '--http', '0', '--root', dir, '--keys-url', keys.url],
    { SERVICE_API_TOKEN: TOKEN, LINEWORK_LOG_LEVEL: 'warn' },
    /(http:\/\/127\.0\.0\.1:\d+)\/api\/v1$/m,
  );
  return { name, keys, linework, port: Number(/:(\d+)$/.exec(linework.url)![1]), key: created.data.rawKey, keyId: created.data.id, jwt };
}

async function fill(port: number, credential: string): Promise<void> {
  const entities = Array.from({ length: 100 }, (_, i) => ({ type: 'Line', start: [i, 0], end: [i, 10] }));
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/entities`, { method: 'POST', headers: { Authorization: `Bearer ${credential}` }, body: JSON.stringify({ entities }) });
  if (res.status !== 201) throw new Error(`filling the drawing: ${res.status} ${await res.text()}`);
}

async function requestCount(b: Backend): Promise<number> {
  const res = await fetch(`${b.keys.url}/api-keys`, { headers: { Authorization: `Bearer ${b.jwt}` } });
  const list = (await res.json()) as { data: { id: string; requestCount: number }[] };
  return list.data.find((k) => k.id === b.keyId)!.requestCount;
}

const fmt = (n: number, d = 0): string => n.toFixed(d);

interface Row {
  name: string;
  port: number;
  token: string;
  sample: Sample;
  /** The drawing server's and the key service's process ids, and the CPU each used in this row's slices (µs). */
  pids: number[];
  cpu: number[];
}

/** CPU time a process has used so far, in µs (utime + stime of /proc/<pid>/stat; NaN off Linux). */
function cpuMicros(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return NaN;
  }
}

async function main(): Promise<void> {
  const dirs = [mkdtempSync(join(tmpdir(), 'lw-bench-hosted-'))];
  const backends: Backend[] = [];
  try {
    backends.push(await backend('sqlite', dirs[0]!, { KEYS_DB_PATH: join(dirs[0]!, 'keys.db') }));
    if (PG) {
      dirs.push(mkdtempSync(join(tmpdir(), 'lw-bench-hosted-pg-')));
      backends.push(await backend('postgresql', dirs[1]!, { DATABASE_URL: PG, DATABASE_SCHEMA: SCHEMA }));
    }
    const first = backends[0]!;
    await fill(first.port, TOKEN);
    for (const b of backends) await fill(b.port, b.key);
    const before = await Promise.all(backends.map(requestCount));
    /** Keyed requests made per backend (warm-up included). */
    const made = backends.map(() => 0);

    for (const path of ['/api/v1/ready', '/api/v1/entities?limit=100']) {
      const rows: Row[] = [
        { name: 'session token', port: first.port, token: TOKEN, sample: new Sample(), pids: [first.linework.child.pid!, first.keys.child.pid!], cpu: [0, 0] },
        ...backends.map((b) => ({
          name: `API key (key service on ${b.name === 'sqlite' ? 'SQLite' : 'PostgreSQL'})`, port: b.port, token: b.key, sample: new Sample(),
          pids: [b.linework.child.pid!, b.keys.child.pid!], cpu: [0, 0],
        })),
      ];
      for (const [i, r] of rows.entries()) {
        const warm = await load(r.port, path, 0.5, { token: r.token, connections: CONNECTIONS });
        if (i > 0) made[i - 1]! += warm.latencies.length;
      }
      for (let i = 0; i < DURATION_S; i++) {
        for (const r of rows) {
          const cpu0 = r.pids.map(cpuMicros);
          await load(r.port, path, 1, { token: r.token, connections: CONNECTIONS }, r.sample);
          r.pids.forEach((pid, j) => (r.cpu[j]! += cpuMicros(pid) - cpu0[j]!));
        }
      }
      const base = rows[0]!.sample.result();
      console.log(`\nGET ${path.replace('/api/v1', '')}, one request per fresh connection, ${CONNECTIONS} connections, ${DURATION_S} s per row in alternating 1 s slices\n`);
      console.log('| credential | requests | errors | req/s | p50 ms | p99 ms | vs session token | drawing server CPU µs/request | key service CPU µs/request |');
      console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
      for (const r of rows) {
        const x = r.sample.result();
        const [server, keys] = r.cpu.map((c) => fmt(c / x.requests));
        console.log(`| ${r.name} | ${x.requests} | ${x.errors} | ${fmt(x.rps)} | ${fmt(x.p50, 2)} | ${fmt(x.p99, 2)} | ${fmt((100 * x.rps) / base.rps)} % | ${server} | ${r === rows[0] ? '-' : keys} |`);
      }
      for (const [i, r] of rows.slice(1).entries()) made[i]! += r.sample.latencies.length;
    }
    // Every keyed request was verified, and counted, once: no verification was skipped or cached.
    const after = await Promise.all(backends.map(requestCount));
    for (const [i, b] of backends.entries()) {
      const counted = after[i]! - before[i]!;
      console.log(`\n${b.name}: ${made[i]} keyed requests made, ${counted} verifications counted by the key service`);
      if (counted !== made[i]) throw new Error(`${b.name}: ${made[i]} keyed requests but ${counted} verifications`);
    }
  } finally {
    for (const b of backends) {
      b.linework.child.kill('SIGTERM');
      b.keys.child.kill('SIGTERM');
    }
    await new Promise((r) => setTimeout(r, 500));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    if (PG) {
      const client = new pg.Client({ connectionString: PG });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
      await client.end();
    }
  }
}

await main();
if (!args.includes('--no-isolation')) await runIsolation({ duration: DURATION_S, connections: CONNECTIONS });
