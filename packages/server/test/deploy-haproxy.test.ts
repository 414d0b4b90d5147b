// The deployment of deploy/: Debian's HAProxy with deploy/haproxy.cfg as written (TLS with a
// self-signed certificate made here, per-source rate limiting and connection cap, health checks) in front of the real
// key service and the real drawing server in hosted mode, and the README's hosted flow run through
// it over HTTPS. Skipped where haproxy or openssl is missing (.ci/run installs haproxy).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { globalAgent, request as httpsRequest } from 'node:https';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, sleep, spawnCli, type Spawned } from './helpers.js';
import { startKeysService, type KeysService } from './keys-service.js';

const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const HAPROXY = has('haproxy') ? 'haproxy' : has('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : null;
const ready = HAPROXY !== null && has('openssl');
const SESSION_TOKEN = 'deploy-session-token-0123456789abcdef';
const RATE = 40;
const CONN_PER_SRC = 10;

let dir: string;
let keys: KeysService;
let lw: Spawned;
let proxy: ChildProcess;
let proxyLog = '';
let port: number;
let ca: Buffer;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const p = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return p;
}

interface Answer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

function https(method: string, path: string, token?: string, body?: unknown, keepAlive = true): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = httpsRequest(
      {
        host: '127.0.0.1', port, path, method, ca, servername: 'localhost', ...(keepAlive ? {} : { agent: false }),
        headers: {
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...(data !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = text;
          try { json = JSON.parse(text); } catch { /* not JSON: kept as text */ }
          resolve({ status: res.statusCode ?? 0, body: json, headers: res.headers });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

describe.skipIf(!ready)('deploy/: HAProxy over HTTPS in front of both services', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lw-deploy-'));
    const root = join(dir, 'drawings');
    mkdirSync(join(root, 'acme'), { recursive: true });
    copyFileSync(join(ROOT, 'packages/dxf/fixtures/r2018.dxf'), join(root, 'acme', 'plan.dxf'));
    // A self-signed certificate for "localhost", key and chain in one PEM as HAProxy takes it.
    const gen = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { encoding: 'utf8' });
    if (gen.status !== 0) throw new Error(`openssl failed: ${gen.stderr}`);
    ca = readFileSync(join(dir, 'cert.pem'));
    writeFileSync(join(dir, 'tls.pem'), Buffer.concat([ca, readFileSync(join(dir, 'key.pem'))]));

    keys = await startKeysService(dir);
    lw = spawnCli(['--http', '0', '--root', root, '--keys-url', keys.url], { SERVICE_API_TOKEN: SESSION_TOKEN, LINEWORK_ROOT: '' });
    const drawingPort = Number((await lw.waitStderr(/^http:\/\/127\.0\.0\.1:(\d+)\/api\/v1$/m))[1]);
    await lw.waitStderr(/^api keys: /m);

    port = await freePort();
    proxy = spawn(HAPROXY!, ['-db', '-f', join(ROOT, 'deploy/haproxy.cfg')], {
      env: {
        PATH: process.env.PATH,
        LINEWORK_TLS_PEM: join(dir, 'tls.pem'),
        LINEWORK_BIND: `127.0.0.1:${port}`,
        LINEWORK_DRAWING_ADDR: `127.0.0.1:${drawingPort}`,
        LINEWORK_KEYS_ADDR: keys.url.replace(/^http:\/\//, ''),
        LINEWORK_RATE_PER_10S: String(RATE),
        LINEWORK_CONN_PER_SRC: String(CONN_PER_SRC),
        SERVICE_API_TOKEN: SESSION_TOKEN,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proxy.stdout!.on('data', (c: Buffer) => { proxyLog += c.toString(); });
    proxy.stderr!.on('data', (c: Buffer) => { proxyLog += c.toString(); });
    // Up when both backends pass their health checks (a DOWN backend answers 503).
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (proxy.exitCode !== null) throw new Error(`haproxy exited: ${proxyLog}`);
      const h = await https('GET', '/health').catch(() => null);
      const r = await https('GET', '/api/v1/ready', SESSION_TOKEN).catch(() => null);
      if (h?.status === 200 && r?.status === 200) break;
      if (Date.now() > deadline) throw new Error(`the proxy never answered 200 on both services: ${proxyLog}`);
      await sleep(200);
    }
  }, 60_000);

  afterAll(async () => {
    if (proxy && proxy.exitCode === null) {
      proxy.kill('SIGTERM');
      await new Promise((r) => proxy.once('exit', r));
    }
    await lw?.stop();
    await keys?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the configuration passes haproxy -c', () => {
    const r = spawnSync(HAPROXY!, ['-c', '-f', join(ROOT, 'deploy/haproxy.cfg')], {
      env: { PATH: process.env.PATH, LINEWORK_TLS_PEM: join(dir, 'tls.pem'), LINEWORK_BIND: `127.0.0.1:${port}` }, encoding: 'utf8',
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it("runs the README's hosted flow through the proxy over HTTPS", async () => {
    const token = keys.token('alice', 'acme');
    const created = await https('POST', '/api-keys', token, { name: 'reader', permissions: ['drawings:read'] });
    expect(created.status).toBe(201);
    const key = created.body.data.rawKey as string;
    const id = created.body.data.id as string;

    const opened = await https('POST', '/api/v1/documents', key, { path: 'plan.dxf' });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const listed = await https('GET', '/api/v1/entities?limit=5', key);
    expect(listed.status).toBe(200);
    expect(listed.body.ok).toBe(true);
    expect(listed.body.entities.length).toBeGreaterThan(0);

    const write = await https('POST', '/api/v1/entities', key, { entities: [{ type: 'Line', start: [0, 0], end: [10, 5] }] });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('insufficient_permissions');
    expect(write.body.details.required).toEqual(['drawings:write']);

    expect((await https('DELETE', `/api-keys/${id}`, token)).status).toBe(200);
    const revoked = await https('GET', '/api/v1/entities?limit=5', key);
    expect(revoked.status).toBe(401);
    expect(revoked.body.code).toBe('unauthorized');
  });

  it('answers paths of neither service with a JSON 404 from the proxy', async () => {
    const r = await https('GET', '/etc/passwd');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });

  it('rate limits one source address at the configured rate', async () => {
    // The tracked rate is over the last 10 s: a burst past the limit gets 429s from HAProxy.
    const statuses: number[] = [];
    for (let i = 0; i < RATE + 10; i++) statuses.push((await https('GET', '/health')).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(statuses.slice(0, 5).every((s) => s === 200 || s === 429)).toBe(true);
  });

  it('caps the connections one source address holds at once', async () => {
    // the keep-alive connections of the tests above would count: closed first
    globalAgent.destroy();
    const held: Socket[] = [];
    let closed = 0;
    for (let i = 0; i < CONN_PER_SRC + 3; i++) {
      const sock = connect(port, '127.0.0.1');
      sock.on('error', () => undefined);
      sock.on('close', () => closed++);
      // (a connection turned away may be reset before its connect event)
      await new Promise((r) => {
        sock.once('connect', r);
        sock.once('close', r);
      });
      held.push(sock);
    }
    try {
      // the ones beyond the cap are closed as HAProxy accepts them (the others wait for TLS, 30 s)
      const deadline = Date.now() + 10_000;
      while (closed < 3 && Date.now() < deadline) await sleep(50);
      expect(closed).toBeGreaterThanOrEqual(3);
      expect(held.length - closed).toBeLessThanOrEqual(CONN_PER_SRC);
      // a request from the same address is turned away too
      await expect(https('GET', '/health', undefined, undefined, false)).rejects.toThrow();
    } finally {
      for (const s of held) s.destroy();
    }
    // connections given back: the address is answered again (200, or 429 while the burst of the
    // rate test above is still within its 10 s)
    const deadline = Date.now() + 10_000;
    for (;;) {
      const r = await https('GET', '/health', undefined, undefined, false).catch(() => null);
      if (r?.status === 200 || r?.status === 429) break;
      if (Date.now() > deadline) throw new Error(`not served again after the connections closed: ${proxyLog}`);
      await sleep(100);
    }
  });
});
