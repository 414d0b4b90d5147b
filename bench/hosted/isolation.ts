// What the organizations' workers cost and buy (issue 21): `npx tsx bench/hosted/isolation.ts
// [--duration 5] [--connections 8] [--hop-only] [--profile DIR]`, also the last part of
// `bench/hosted/run.ts`. `--profile DIR` writes V8 CPU profiles of the drawing servers and their
// workers (`--cpu-prof`) into DIR, to see where the hop's CPU goes.
//
// One key service (SQLite) and two drawing servers on it: one with each organization in a worker
// process (the default), one with every organization in the server's own process
// (LINEWORK_ORG_WORKERS=0, as before the workers). Two tables:
//  1. the routing hop: the same keyed GET on both servers, in alternating one-second slices;
//  2. organization B's GET /ready and a page of its entities while organization A runs heavy plots,
//     against the same with A idle, on both servers: slices alternate between A idle and A plotting.
// Both tables hold the worker figures beside the one-process figures of the same run, with the
// load average (the development machine is shared).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sample, load } from '../server/load.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const KEYS_BIN = root + 'packages/keys/bin/linework-keys.js';
const LINEWORK_BIN = root + 'packages/server/bin/linework.js';
const SECRET = 'bench-isolation-secret-0123456789abcdef012345';

interface Proc {
  child: ChildProcess;
  url: string;
}

function start(argv: string[], env: NodeJS.ProcessEnv, urlRe: RegExp, nodeArgs: string[] = []): Promise<Proc> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, ...argv], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = urlRe.exec(err);
      if (m) resolve({ child, url: m[1]! });
    });
    child.on('exit', (code) => reject(new Error(`${argv[0]} exited (${code}): ${err}`)));
  });
}

async function makeKey(keysUrl: string, dir: string, org: string): Promise<string> {
  const env = { ...process.env, AUTH_JWT_SECRET: SECRET };
  const jwt = spawnSync(process.execPath, [KEYS_BIN, 'token', '--sub', 'bench', '--org', org], { cwd: dir, env, encoding: 'utf8' }).stdout.trim();
  const res = await fetch(`${keysUrl}/api-keys`, {
    method: 'POST', headers: { Authorization: `Bearer ${jwt}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'bench', permissions: ['*'] }),
  });
  return ((await res.json()) as { data: { rawKey: string } }).data.rawKey;
}

async function post(port: number, key: string, path: string, body: unknown): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/api/v1${path}`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
}

const fmt = (n: number, d = 0): string => n.toFixed(d);

/** The machine's load average (1, 5, 15 min): other work on it moves every figure. */
const loadAverage = (): string => {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
};

/** CPU time used so far (µs, utime + stime from /proc) by a process (`own`) and its children (the workers); NaN off Linux. */
function treeCpuMicros(pid: number): { own: number; children: number } {
  const of = (p: number | string): number => {
    const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * 10_000;
  };
  try {
    const own = of(pid);
    let children = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) {
        try {
          children += of(child);
        } catch {
          // ended meanwhile
        }
      }
    }
    return { own, children };
  } catch {
    return { own: NaN, children: NaN };
  }
}

interface Server {
  name: string;
  port: number;
  proc: Proc;
}

export async function runIsolation(opts: { duration: number; connections: number; hopOnly?: boolean; profileDir?: string }): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lw-bench-iso-'));
  const procs: Proc[] = [];
  try {
    const keys = await start([KEYS_BIN, 'serve', '--port', '0'], { AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'warn', KEYS_DB_PATH: join(dir, 'keys.db') }, /^(http:\/\/127\.0\.0\.1:\d+)$/m);
    procs.push(keys);
    const keyA = await makeKey(keys.url, dir, 'org-a');
    const keyB = await makeKey(keys.url, dir, 'org-b');
    const servers: Server[] = [];
    for (const [name, workers] of [['workers', '1'], ['one process', '0']] as const) {
      const sub = mkdtempSync(join(dir, 'root-'));
      const p = await start([LINEWORK_BIN, '--http', '0', '--root', sub, '--keys-url', keys.url],
        { SERVICE_API_TOKEN: 'bench-isolation-token-0123456789', LINEWORK_LOG_LEVEL: 'warn', LINEWORK_ORG_WORKERS: workers },
        /(http:\/\/127\.0\.0\.1:\d+)\/api\/v1$/m,
        // the front passes --cpu-prof on to its workers
        opts.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.profileDir}`] : []);
      procs.push(p);
      servers.push({ name, port: Number(/:(\d+)\//.exec(p.url + '/')![1]), proc: p });
    }
    // A's drawing: enough lines that a 300 dpi plot takes a while; B's: 100 lines to list.
    const lines = (n: number, w: number) => Array.from({ length: n }, (_, i) => ({ type: 'Line', start: [i % w, Math.floor(i / w)], end: [(i % w) + 0.7, Math.floor(i / w) + 0.7] }));
    for (const s of servers) {
      for (const [key, n] of [[keyA, 20_000], [keyB, 100]] as const) {
        const r = await post(s.port, key, '/entities', { entities: lines(n, n > 1000 ? 150 : 10) });
        if (r.status !== 201) throw new Error(`filling the drawing: ${r.status} ${await r.text()}`);
      }
    }

    // 1. The routing hop
    for (const path of ['/api/v1/ready', '/api/v1/entities?limit=100']) {
      const rows = servers.map((s) => ({ s, sample: new Sample(), cpu: 0, front: 0 }));
      for (const r of rows) await load(r.s.port, path, 0.5, { token: keyB, connections: opts.connections });
      for (let i = 0; i < opts.duration; i++) {
        for (const r of rows) {
          const c0 = treeCpuMicros(r.s.proc.child.pid!);
          await load(r.s.port, path, 1, { token: keyB, connections: opts.connections }, r.sample);
          const c1 = treeCpuMicros(r.s.proc.child.pid!);
          r.cpu += c1.own + c1.children - c0.own - c0.children;
          r.front += c1.own - c0.own;
        }
      }
      const baseRow = rows.find((r) => r.s.name === 'one process')!;
      const base = baseRow.sample.result();
      const baseCpu = baseRow.cpu / base.requests;
      console.log(`\nThe routing hop: GET ${path.replace('/api/v1', '')} with an API key, ${opts.connections} connections, ${opts.duration} s per row in alternating 1 s slices; load average ${loadAverage()}\n`);
      console.log('| organizations\' sessions | requests | errors | req/s | p50 ms | p99 ms | req/s vs one process | drawing server CPU µs/request (front + workers) | of it the front\'s | requests per CPU second vs one process |');
      console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
      for (const r of rows) {
        const x = r.sample.result();
        const cpu = r.cpu / x.requests;
        console.log(`| ${r.s.name === 'workers' ? 'a worker process each' : 'in the server\'s process (before)'} | ${x.requests} | ${x.errors} | ${fmt(x.rps)} | ${fmt(x.p50, 2)} | ${fmt(x.p99, 2)} | ${fmt((100 * x.rps) / base.rps)} % | ${fmt(cpu)} | ${fmt(r.front / x.requests)} | ${fmt((100 * baseCpu) / cpu)} % |`);
      }
    }

    if (opts.hopOnly) return;
    // 2. B while A plots; B keeps one connection fewer, for A's (the server takes 8 at a time)
    const bConnections = Math.max(1, opts.connections - 1);
    // /ready may be answered by the front (its answer reused); a page of entities always goes to B's session
    const bPaths = ['/api/v1/ready', '/api/v1/entities?limit=100'];
    console.log(`\nOrganization B's GET /ready and GET /entities?limit=100 (API key, ${bConnections} connections) while organization A plots its 20 000 lines at 300 dpi, one plot after another, against A idle; ${opts.duration} s per row in alternating 1 s slices; load average ${loadAverage()}\n`);
    console.log('| organizations\' sessions | B\'s GET | organization A | B requests | B errors | B req/s | B p50 ms | B p99 ms | vs A idle | A plots done |');
    console.log('|---|---|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const s of servers) {
      for (const bPath of bPaths) {
        const idle = new Sample();
        const busy = new Sample();
        let plots = 0;
        let plotting = false;
        let loop: Promise<void> = Promise.resolve();
        const startPlots = (): void => {
          plotting = true;
          loop = (async () => {
            while (plotting) {
              const r = await post(s.port, keyA, '/plot', { path: 'heavy.png', dpi: 300 });
              if (r.status !== 200) throw new Error(`A's plot: ${r.status} ${await r.text()}`);
              plots++;
            }
          })();
        };
        await load(s.port, bPath, 0.5, { token: keyB, connections: bConnections });
        for (let i = 0; i < opts.duration; i++) {
          await load(s.port, bPath, 1, { token: keyB, connections: bConnections }, idle);
          startPlots();
          // the plot under way before B's slice starts
          await new Promise((r) => setTimeout(r, 200));
          await load(s.port, bPath, 1, { token: keyB, connections: bConnections }, busy);
          plotting = false;
          await loop;
        }
        const a = idle.result();
        const b = busy.result();
        const label = `${s.name === 'workers' ? 'a worker process each' : 'in the server\'s process (before)'} | ${bPath.replace('/api/v1', '')}`;
        console.log(`| ${label} | idle | ${a.requests} | ${a.errors} | ${fmt(a.rps)} | ${fmt(a.p50, 2)} | ${fmt(a.p99, 2)} | 100 % | - |`);
        console.log(`| ${label} | plotting | ${b.requests} | ${b.errors} | ${fmt(b.rps)} | ${fmt(b.p50, 2)} | ${fmt(b.p99, 2)} | ${fmt((100 * b.rps) / a.rps)} % | ${plots} |`);
      }
    }
    console.log(`\nload average at the end: ${loadAverage()}`);
  } finally {
    for (const p of procs.reverse()) p.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const arg = (name: string, def: number): number => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 && args[i + 1] ? Number(args[i + 1]) : def;
  };
  const profile = args.indexOf('--profile');
  await runIsolation({
    duration: arg('duration', 5), connections: arg('connections', 8), hopOnly: args.includes('--hop-only'),
    ...(profile >= 0 && args[profile + 1] ? { profileDir: args[profile + 1] } : {}),
  });
}
