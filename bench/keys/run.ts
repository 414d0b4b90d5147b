/**
 * API key service benchmark: creates/s, verifications/s with p50/p99 at 8 concurrent clients,
 * list latency with 100 keys, beside a bare node:http server answering the same JSON in the same
 * run. The services run in child processes; autocannon (this process) generates the load.
 *
 * Verification is measured in rounds that alternate the bare server and the service, and each
 * round's ratio is taken from two back-to-back measurements: on a shared machine the load from
 * other processes drifts over a run, and alternating keeps that drift out of the ratio. The table
 * gives medians over the rounds, and each server's CPU time per answered verification (from /proc):
 * when both servers are CPU-bound, the ratio of those explains the ratio of the rates.
 *
 * Each database runs in both ways of counting verifications (VERIFY_COUNT_FLUSH_MS, docs/keys.md):
 * its default first, then the other one; --default-only skips the other.
 *
 *   npx tsx bench/keys/run.ts [--duration=5] [--rounds=3] [--connections=8] [--quick] [--default-only]
 *
 * KEYS_BIN=<path to bin/linework-keys.js> measures another build.
 *
 * PostgreSQL is measured too when BENCH_POSTGRES_URL or TEST_POSTGRES_URL is set (a fresh schema,
 * dropped afterwards).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { SignJWT } from 'jose';
import pg from 'pg';

const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}`));
const numberFlag = (name: string, fallback: number) => {
  const value = flag(name)?.split('=')[1];
  return value === undefined ? fallback : Number(value);
};
const QUICK = flag('quick') !== undefined;
const DURATION = numberFlag('duration', QUICK ? 2 : 5);
const ROUNDS = numberFlag('rounds', QUICK ? 2 : 3);
const WARMUP = QUICK ? 1 : 2;
const CONNECTIONS = numberFlag('connections', 8);
/** Only each database's default counting mode (half the run). */
const DEFAULT_ONLY = flag('default-only') !== undefined;
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL;
const SECRET = randomBytes(32).toString('hex');
// KEYS_BIN: another build's bin (e.g. a checkout of the previous commit) for a before/after run.
const BIN = process.env.KEYS_BIN ?? fileURLToPath(new URL('../../packages/keys/bin/linework-keys.js', import.meta.url));
const BARE = fileURLToPath(new URL('./bare-server.mjs', import.meta.url));

interface Child {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** CPU time the process has used so far, in microseconds; NaN where /proc cannot tell (not Linux). */
function cpuMicros(pid: number): number {
  try {
    // utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second on Linux)
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return NaN;
  }
}

function startChild(args: string[], env: Record<string, string>): Promise<Child> {
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 20 s:\n${stderr}`)), 20_000);
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const match = /^(http:\/\/\S+:\d+)$/m.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1]!,
          pid: child.pid!,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before listening:\n${stderr}`));
    });
  });
}

function mint(sub: string, org: string): Promise<string> {
  return new SignJWT({ org, role: 'DEVELOPER' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(SECRET));
}

async function call(method: string, url: string, body?: unknown, jwt?: string): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(jwt ? { authorization: `Bearer ${jwt}` } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}

interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  failures: number;
  /** CPU time of the measured server process per answered request, in microseconds. */
  cpuUs?: number;
}

/** Exact latency percentiles (autocannon's own histogram rounds to whole milliseconds). */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** One load of `seconds`; with `server`, also that server process's CPU time per answered request. */
async function load(options: Parameters<typeof autocannon>[0], seconds: number, server?: Child): Promise<Measurement> {
  const cpuBefore = server ? cpuMicros(server.pid) : NaN;
  const latencies: number[] = [];
  const instance = autocannon({ connections: CONNECTIONS, ...options, duration: seconds });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status < 300) latencies.push(ms);
  });
  const result = await instance;
  const sorted = Float64Array.from(latencies).sort();
  return {
    rps: result.requests.average,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    requests: result['2xx'],
    failures: result.non2xx + result.errors + result.timeouts,
    ...(server ? { cpuUs: (cpuMicros(server.pid) - cpuBefore) / result['2xx'] } : {}),
  };
}

async function measure(options: Parameters<typeof autocannon>[0], server?: Child): Promise<Measurement> {
  await load(options, WARMUP);
  return load(options, DURATION, server);
}

interface Row {
  target: string;
  creates?: Measurement;
  /** Medians over the rounds. */
  verify: Measurement;
  /** Median over the rounds of service/bare, each round measured back to back. */
  ratio?: number;
  /** The bare server's measurements in this target's rounds. */
  bares?: Measurement[];
  list?: Measurement;
  /** Verifications the database counted minus those the load generator saw answered. */
  uncounted?: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function medianOf(ms: Measurement[]): Measurement {
  return {
    rps: median(ms.map((m) => m.rps)),
    p50: median(ms.map((m) => m.p50)),
    p99: median(ms.map((m) => m.p99)),
    cpuUs: median(ms.map((m) => m.cpuUs ?? NaN)),
    requests: ms.reduce((n, m) => n + m.requests, 0),
    failures: ms.reduce((n, m) => n + m.failures, 0),
  };
}

async function benchService(name: string, env: Record<string, string>, args: string[], bare: Child, bareBody: string): Promise<Row> {
  // LOG_LEVEL=warn: one access-log line per request is a production choice, not the service's cost.
  const service = await startChild([BIN, 'serve', '--port', '0', ...args], { AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'warn', ...env });
  try {
    const org = `bench-${randomBytes(3).toString('hex')}`;

    // Creates: each user may hold 100 active keys, so the load rotates over many users.
    const users = await Promise.all(Array.from({ length: 3000 }, (_, i) => mint(`creator-${i}`, org)));
    let next = 0;
    const creates = await measure({
      url: `${service.url}/api-keys`,
      requests: [
        {
          method: 'POST',
          path: '/api-keys',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'bench', permissions: ['drawings:*'] }),
          setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${users[next++ % users.length]}` } }),
        },
      ],
    });

    // Verifications of one key, with a permission check; afterwards its count must equal the 2xx.
    const owner = await mint('verifier', org);
    const created = await call('POST', `${service.url}/api-keys`, { name: 'verified', permissions: ['drawings:read', 'plots:create'] }, owner);
    const body = JSON.stringify({ key: created.data.rawKey, permissions: ['drawings:read'] });
    const verifyLoad = { url: `${service.url}/api-keys/verify`, method: 'POST' as const, headers: { 'content-type': 'application/json' }, body };
    const bareLoad = { url: bare.url, method: 'POST' as const, headers: { 'content-type': 'application/json' }, body: bareBody };
    let answered = 0;
    const rounds: Measurement[] = [];
    const bares: Measurement[] = [];
    const ratios: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const b = await measure(bareLoad, bare);
      const warm = await load(verifyLoad, WARMUP);
      const v = await load(verifyLoad, DURATION, service);
      answered += warm.requests + v.requests;
      bares.push(b);
      rounds.push(v);
      ratios.push(v.rps / b.rps);
    }
    const listed = await call('GET', `${service.url}/api-keys`, undefined, owner);
    // Requests still in flight when autocannon stops are counted by the service but not by autocannon.
    const uncounted = listed.data[0].requestCount - answered;
    const verify = medianOf(rounds);

    // Listing 100 keys, one client: the latency of one list call.
    const lister = await mint('lister', org);
    for (let i = 0; i < 10; i++) {
      await Promise.all(Array.from({ length: 10 }, (_, j) => call('POST', `${service.url}/api-keys`, { name: `k${i * 10 + j}`, permissions: ['*'] }, lister)));
    }
    const list = await measure({ url: `${service.url}/api-keys`, headers: { authorization: `Bearer ${lister}` }, connections: 1 });
    return { target: name, creates, verify, ratio: median(ratios), bares, list, uncounted };
  } finally {
    await service.stop();
  }
}

async function verifyBodyOf(): Promise<string> {
  // The exact bytes the service answers to a valid verification, for the bare server to send.
  const dir = mkdtempSync(join(tmpdir(), 'linework-keys-bench-'));
  const service = await startChild([BIN, 'serve', '--port', '0', '--db', join(dir, 'keys.db')], { AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'warn' });
  try {
    const jwt = await mint('sample', 'bench-sample');
    const created = await call('POST', `${service.url}/api-keys`, { name: 'sample', permissions: ['drawings:read', 'plots:create'] }, jwt);
    const res = await fetch(`${service.url}/api-keys/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: created.data.rawKey, permissions: ['drawings:read'] }),
    });
    return await res.text();
  } finally {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const countOk = (n: number) => n >= 0 && n <= 2 * ROUNDS * CONNECTIONS;
const countNote = (n: number) => (n === 0 ? 'exact' : countOk(n) ? `exact (+${n} in flight at stop)` : `WRONG by ${n}`);
const f = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

async function main(): Promise<void> {
  const rows: Row[] = [];
  const sample = await verifyBodyOf();

  const bare = await startChild([BARE], { BARE_BODY: sample });
  const bareBody = JSON.stringify({ key: `lwk_${'0'.repeat(48)}`, permissions: ['drawings:read'] });
  try {
    // Each database in both counting modes: its default, and the other one (VERIFY_COUNT_FLUSH_MS).
    const modes = (database: 'sqlite' | 'postgres'): Array<{ label: string; env: Record<string, string> }> =>
      database === 'sqlite'
        ? [
            { label: 'counts written behind the answers (default)', env: {} },
            { label: 'counted before answering, VERIFY_COUNT_FLUSH_MS=0', env: { VERIFY_COUNT_FLUSH_MS: '0' } },
          ]
        : [
            { label: 'counted before answering (default)', env: {} },
            { label: 'counts written behind the answers, VERIFY_COUNT_FLUSH_MS=10', env: { VERIFY_COUNT_FLUSH_MS: '10' } },
          ];
    const picked = (database: 'sqlite' | 'postgres') => (DEFAULT_ONLY ? modes(database).slice(0, 1) : modes(database));
    for (const mode of picked('sqlite')) {
      const dir = mkdtempSync(join(tmpdir(), 'linework-keys-bench-'));
      try {
        rows.push(await benchService(`linework-keys, SQLite, ${mode.label}`, mode.env, ['--db', join(dir, 'keys.db')], bare, bareBody));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    if (POSTGRES_URL) {
      for (const mode of picked('postgres')) {
        const schema = `keys_bench_${randomBytes(4).toString('hex')}`;
        try {
          rows.push(await benchService(`linework-keys, PostgreSQL, ${mode.label}`, { DATABASE_URL: POSTGRES_URL, DATABASE_SCHEMA: schema, ...mode.env }, [], bare, bareBody));
        } finally {
          const client = new pg.Client({ connectionString: POSTGRES_URL });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await client.end();
        }
      }
    }
  } finally {
    await bare.stop();
  }
  const bares = rows.flatMap((r) => r.bares ?? []);
  const bareRps = bares.map((b) => b.rps);
  rows.unshift({ target: 'bare node:http (same JSON)', verify: medianOf(bares), ratio: 1 });
  console.log(
    `API key service: ${CONNECTIONS} concurrent clients (autocannon, keep-alive), ${ROUNDS} rounds alternating bare server and service, ` +
      `${DURATION} s per measurement after ${WARMUP} s warm-up; medians over the rounds; ` +
      `${cpus().length} CPUs, Node ${process.version}; load generator and services in separate processes on this machine.\n`,
  );
  console.log('| target | verify req/s | vs bare (per-round ratio) | verify p50 ms | verify p99 ms | server CPU us/verification | creates/s | list(100 keys) p50 ms | list p99 ms | verifications counted |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|');
  for (const r of rows) {
    console.log(
      `| ${r.target} | ${f(r.verify.rps)} | ${f(100 * (r.ratio ?? NaN))}% | ${f(r.verify.p50, 2)} | ${f(r.verify.p99, 2)} | ${f(r.verify.cpuUs ?? NaN, 1)} | ` +
        `${r.creates ? f(r.creates.rps) : '-'} | ${r.list ? f(r.list.p50, 2) : '-'} | ${r.list ? f(r.list.p99, 2) : '-'} | ` +
        `${r.uncounted === undefined ? '-' : countNote(r.uncounted)} |`,
    );
  }
  console.log(`\nBare node:http verification rates per round: ${bareRps.map((x) => f(x)).join(', ')} req/s (the spread is the machine's noise).`);
  console.log(
    'Server CPU is the measured server process alone (user + system time from /proc over the measured seconds, per answered request); ' +
      "a database server's own time is not in it.",
  );
  if (!POSTGRES_URL) console.log('\n(PostgreSQL skipped: set BENCH_POSTGRES_URL or TEST_POSTGRES_URL)');
  const failures = rows.flatMap((r) => [r.creates, r.verify, r.list].filter((m) => m && m.failures > 0).map((m) => `${r.target}: ${m!.failures} failed requests`));
  if (failures.length) console.log(`\nFailures: ${failures.join('; ')}`);
  if (rows.some((r) => r.uncounted !== undefined && !countOk(r.uncounted))) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
