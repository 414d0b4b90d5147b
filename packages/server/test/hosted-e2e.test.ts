// The hosted drawing API end to end: the real key service (`linework-keys serve`, SQLite) and the
// real `linework --http 0 --tcp 0 --keys-url ...`, two organizations with the same document names,
// over HTTP and TCP. Keys are made with the key service's HTTP API, tokens with its CLI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LineClient, client, request, sleep, spawnCli, type Spawned } from './helpers.js';
import { checkOpenApi } from './openapi-check.js';
import { startKeysService, type KeysService } from './keys-service.js';

const SESSION_TOKEN = 'hosted-session-token-0123456789';
let dir: string;
let root: string;
let keys: KeysService;
let lw: Spawned;
let port: number;
let tcpPort: number;
const tokens = { acme: '', beta: '' };
const k = { acmeAll: '', acmeRead: '', acmeReadId: '', betaAll: '', acmeLimited: '', acmeUsage: '' };

async function startLinework(args: string[], env: Record<string, string> = {}): Promise<{ proc: Spawned; port: number; tcp?: number }> {
  const proc = spawnCli(['--http', '0', '--root', root, ...args], { SERVICE_API_TOKEN: SESSION_TOKEN, LINEWORK_ROOT: '', ...env });
  const p = Number((await proc.waitStderr(/^http:\/\/127\.0\.0\.1:(\d+)\/api\/v1$/m))[1]);
  const t = args.includes('--tcp') ? Number((await proc.waitStderr(/^tcp:\/\/127\.0\.0\.1:(\d+)$/m))[1]) : undefined;
  await proc.waitStderr(/^api keys: /m);
  return { proc, port: p, ...(t !== undefined ? { tcp: t } : {}) };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lw-hosted-'));
  root = join(dir, 'drawings');
  mkdirSync(root);
  keys = await startKeysService(dir);
  tokens.acme = keys.token('alice', 'acme');
  tokens.beta = keys.token('bob', 'beta');
  k.acmeAll = (await keys.createKey(tokens.acme, { name: 'all', permissions: ['*'] })).rawKey;
  const read = await keys.createKey(tokens.acme, { name: 'read', permissions: ['drawings:read'] });
  k.acmeRead = read.rawKey;
  k.acmeReadId = read.id;
  k.betaAll = (await keys.createKey(tokens.beta, { name: 'all', permissions: ['*'] })).rawKey;
  k.acmeLimited = (await keys.createKey(tokens.acme, { name: 'limited', permissions: ['drawings:read'], ratelimit: { limit: 2, durationMs: 600_000 } })).rawKey;
  k.acmeUsage = (await keys.createKey(tokens.acme, { name: 'usage', permissions: ['drawings:read'], remaining: 1 })).rawKey;
  const s = await startLinework(['--tcp', '0', '--keys-url', keys.url], { LINEWORK_KEYS_TIMEOUT_MS: '1000' });
  lw = s.proc;
  port = s.port;
  tcpPort = s.tcp!;
});

afterAll(async () => {
  await lw?.stop();
  await keys?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const as = (key: string) => client(port, key);

describe('two organizations over HTTP', () => {
  it('same document names, same request ids: nothing crosses', async () => {
    const acme = as(k.acmeAll);
    const beta = as(k.betaAll);
    const a1 = await acme.post('/api/v1/entities', { entities: [{ type: 'Circle', center: [1, 1], radius: 1 }], request_id: 'same-id' });
    expect(a1.status, a1.text).toBe(201);
    // beta's request with the same request_id runs (it is not acme's answer replayed)
    const b1 = await beta.post('/api/v1/entities', { entities: [{ type: 'Line', start: [0, 0], end: [5, 5] }, { type: 'Point', location: [2, 2] }], request_id: 'same-id' });
    expect(b1.status, b1.text).toBe(201);
    expect(b1.json.result.handles).toHaveLength(2);
    expect((await acme.post('/api/v1/save', { path: 'plan.dxf' })).status).toBe(200);
    expect((await beta.post('/api/v1/save', { path: 'plan.dxf' })).status).toBe(200);
    expect(readFileSync(join(root, 'acme', 'plan.dxf'), 'utf8')).toContain('CIRCLE');
    expect(readFileSync(join(root, 'beta', 'plan.dxf'), 'utf8')).not.toContain('CIRCLE');
    expect(existsSync(join(root, 'plan.dxf'))).toBe(false);

    const la = await acme.get('/api/v1/entities');
    const lb = await beta.get('/api/v1/entities');
    expect(la.json.entities.map((e: any) => e.type)).toEqual(['Circle']);
    expect(lb.json.entities.map((e: any) => e.type).sort()).toEqual(['Line', 'Point']);
    // request_id records
    const opA = await acme.post('/api/v1/operation', { request_id: 'same-id' });
    expect(opA.json.result).toMatchObject({ op: 'entities_create', status: 'completed' });
    expect(opA.json.result.result.handles).toEqual(a1.json.result.handles);
    // events: acme's stream knows nothing of beta's changes
    const ev = await acme.post('/api/v1/events', {});
    const changes = ev.json.result.events.filter((e: any) => e.kind === 'changed');
    expect(changes.map((e: any) => e.added)).toEqual([1]);
    // selection and undo are per organization
    await beta.post('/api/v1/select', { handles: b1.json.result.handles });
    expect((await acme.post('/api/v1/get_selection', {})).json.result.count).toBe(0);
    expect((await beta.post('/api/v1/undo', {})).status).toBe(200);
    expect((await acme.get('/api/v1/entities')).json.count).toBe(1);
    expect((await beta.get('/api/v1/entities')).json.count).toBe(0);
    // one organization cannot name the other's files
    const peek = await acme.post('/api/v1/documents', { path: '../beta/plan.dxf' });
    expect(peek.status).toBe(403);
    expect(peek.json.code).toBe('path_outside_root');
    // the session token keeps the local session, which sees neither
    const local = client(port, SESSION_TOKEN);
    expect((await local.get('/api/v1/entities')).json.count).toBe(0);
    const states = await Promise.all([local, acme, beta].map(async (c) => (await c.get('/api/v1/state')).json.session_id));
    expect(new Set(states).size).toBe(3);
  });

  it('a read key reads (and opens its organization\'s drawings), and is refused a write with the permission named', async () => {
    const read = as(k.acmeRead);
    const opened = await read.post('/api/v1/documents', { path: 'plan.dxf' });
    expect(opened.status, opened.text).toBe(201);
    expect((await read.get('/api/v1/entities')).json.entities.map((e: any) => e.type)).toEqual(['Circle']);
    const write = await read.post('/api/v1/entities', { entities: [{ type: 'Point', location: [0, 0] }] });
    expect(write.statusLine).toBe('HTTP/1.1 403 Forbidden');
    expect(write.json).toMatchObject({ ok: false, code: 'insufficient_permissions', details: { required: ['drawings:write'] }, http_status: 403 });
    expect(write.json.error).toMatch(/drawings:write/);
    const plot = await read.post('/api/v1/plot', { path: 'out.pdf' });
    expect(plot.json).toMatchObject({ code: 'insufficient_permissions', details: { required: ['plots:create'] } });
    const close = await read.del('/api/v1/documents/1?discard=true');
    expect(close.json).toMatchObject({ code: 'insufficient_permissions', details: { required: ['drawings:delete'] } });
    const layers = await read.get('/api/v1/layers');
    expect(layers.json).toMatchObject({ code: 'insufficient_permissions', details: { required: ['layers:read'] } });
    // nothing was run: still one circle
    expect((await as(k.acmeAll).get('/api/v1/entities')).json.count).toBe(1);
  });

  it('unknown keys and other credentials are 401; unknown routes need a valid key first', async () => {
    const unknown = await request(port, 'GET', '/api/v1/ready', { token: `lwk_${'0'.repeat(48)}` });
    expect(unknown.status).toBe(401);
    expect(unknown.json).toMatchObject({ code: 'unauthorized', details: { key: 'unknown' } });
    const junk = await request(port, 'GET', '/api/v1/ready', { token: 'not-a-key' });
    expect(junk.json.code).toBe('unauthorized');
    expect(junk.json.error).toMatch(/API key/);
    expect((await request(port, 'GET', '/api/v1/nowhere', { token: `lwk_${'0'.repeat(48)}` })).status).toBe(401);
    expect((await as(k.acmeRead).get('/api/v1/nowhere')).status).toBe(404);
    expect((await as(k.acmeRead).req('PATCH', '/api/v1/ready')).status).toBe(405);
  });

  it('OpenAPI and capabilities show every op\'s permissions', async () => {
    const doc = (await as(k.acmeRead).get('/api/v1/openapi')).json;
    delete doc.http_status;
    expect(checkOpenApi(doc)).toEqual([]);
    const caps = (await as(k.acmeRead).get('/api/v1/capabilities')).json.result.ops as Array<{ name: string; permissions: string[]; http: Array<{ method: string; path: string }> }>;
    for (const op of caps) {
      expect(op.permissions.length, op.name).toBeGreaterThan(0);
      if (op.http.length === 0) expect(doc.paths[`/${op.name}`].post['x-linework-permissions'], op.name).toEqual(op.permissions);
      for (const r of op.http) {
        const p = r.path.replace(/^\/api\/v1/, '') || '/';
        expect(doc.paths[p][r.method.toLowerCase()]['x-linework-permissions'], `${r.method} ${p}`).toEqual(op.permissions);
      }
    }
    expect(doc.paths['/entities'].post.responses['429']).toBeDefined();
  });

  it('a rate-limited key: 429 with Retry-After; a used-up key: 429 usage_exceeded', async () => {
    const limited = as(k.acmeLimited);
    const first = await limited.get('/api/v1/ready');
    expect(first.status).toBe(200);
    expect(first.headers).toMatchObject({ 'ratelimit-limit': '2', 'ratelimit-remaining': '1' });
    expect((await limited.get('/api/v1/ready')).status).toBe(200);
    const over = await limited.get('/api/v1/ready');
    expect(over.statusLine).toBe('HTTP/1.1 429 Too Many Requests');
    expect(over.json).toMatchObject({ ok: false, code: 'rate_limited', details: { ratelimit: { limit: 2, remaining: 0 } }, http_status: 429 });
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    const usage = as(k.acmeUsage);
    expect((await usage.get('/api/v1/ready')).status).toBe(200);
    const spent = await usage.get('/api/v1/ready');
    expect(spent.status).toBe(429);
    expect(spent.json).toMatchObject({ code: 'usage_exceeded', details: { remaining: 0 } });
  });
});

describe('two organizations over TCP', () => {
  it('the key goes in `token`; same names, no crossing; pipelined requests run in order', async () => {
    const a = await LineClient.connect(tcpPort);
    const b = await LineClient.connect(tcpPort);
    try {
      // pipelined: create then list on one connection, without waiting in between
      a.send({ protocol: 1, op: 'entities_create', token: k.acmeAll, request_id: 'tcp-1', entities: [{ type: 'Point', location: [9, 9] }] });
      a.send({ protocol: 1, op: 'entities_list', token: k.acmeAll, type: 'Point' });
      expect(await a.next()).toMatchObject({ ok: true, request_id: 'tcp-1' });
      expect(await a.next()).toMatchObject({ ok: true, result: { count: 1 } });
      b.send({ protocol: 1, op: 'entities_list', token: k.betaAll, type: 'Point' });
      expect(await b.next()).toMatchObject({ ok: true, result: { count: 0 } });
      b.send({ protocol: 1, op: 'operation', token: k.betaAll, request_id: 'tcp-1' });
      expect(await b.next()).toMatchObject({ ok: false, code: 'unknown_operation' });
      // over HTTP the same organization sees what TCP made: one session per organization
      expect((await as(k.acmeAll).get('/api/v1/entities?type=Point')).json.count).toBe(1);
      // refusals
      a.send({ protocol: 1, op: 'entities_create', token: k.acmeRead, request_id: 'ro', entities: [{ type: 'Point', location: [0, 0] }] });
      expect(await a.next()).toMatchObject({ ok: false, code: 'insufficient_permissions', request_id: 'ro', details: { required: ['drawings:write'] } });
      a.send({ protocol: 1, op: 'ready', token: `lwk_${'1'.repeat(48)}` });
      expect(await a.next()).toMatchObject({ ok: false, code: 'unauthorized' });
      a.send({ protocol: 1, op: 'ready', token: SESSION_TOKEN });
      expect(await a.next()).toMatchObject({ ok: true });
    } finally {
      a.close();
      b.close();
    }
  });
});

describe('revocation and an unreachable key service', () => {
  it('a revoked key is refused on its next request, over HTTP and TCP', async () => {
    const read = as(k.acmeRead);
    expect((await read.get('/api/v1/ready')).status).toBe(200);
    await keys.revoke(tokens.acme, k.acmeReadId);
    const r = await read.get('/api/v1/ready');
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ code: 'unauthorized', details: { key: 'revoked' } });
    const c = await LineClient.connect(tcpPort);
    c.send({ protocol: 1, op: 'ready', token: k.acmeRead });
    expect(await c.next()).toMatchObject({ ok: false, code: 'unauthorized', details: { key: 'revoked' } });
    c.close();
  });

  it('an expired key is refused with 401 (a roll without overlap expires the old key at once)', async () => {
    const made = await keys.createKey(tokens.acme, { name: 'to-roll', permissions: ['drawings:read'] });
    expect((await as(made.rawKey).get('/api/v1/ready')).status).toBe(200);
    await keys.roll(tokens.acme, made.id, 0);
    await sleep(20);
    const r = await as(made.rawKey).get('/api/v1/ready');
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ code: 'unauthorized', details: { key: 'expired' } });
  });

  it('a key service that hangs: 503 keys_unavailable after the deadline, nothing run', async () => {
    const sockets: import('node:net').Socket[] = [];
    const hang: Server = createServer((s) => sockets.push(s)); // accepts, never answers
    await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve));
    const hangPort = (hang.address() as { port: number }).port;
    const s = await startLinework(['--keys-url', `http://127.0.0.1:${hangPort}`], { LINEWORK_KEYS_TIMEOUT_MS: '400' });
    try {
      const t0 = Date.now();
      const r = await request(s.port, 'POST', '/api/v1/entities', { token: k.acmeAll, body: { entities: [{ type: 'Point', location: [0, 0] }] } });
      expect(r.statusLine).toBe('HTTP/1.1 503 Service Unavailable');
      expect(r.json).toMatchObject({ ok: false, code: 'keys_unavailable', http_status: 503 });
      expect(r.json.error).toMatch(/400 ms/);
      expect(Date.now() - t0).toBeLessThan(3000);
      // the session token does not depend on the key service
      expect((await request(s.port, 'GET', '/api/v1/ready', { token: SESSION_TOKEN })).status).toBe(200);
    } finally {
      await s.proc.stop();
      for (const so of sockets) so.destroy();
      hang.close();
    }
  });

  it('the key service killed: 503 keys_unavailable over HTTP and TCP, never an open door', async () => {
    await keys.stop('SIGKILL');
    const r = await as(k.acmeAll).get('/api/v1/entities');
    expect(r.status).toBe(503);
    expect(r.json).toMatchObject({ code: 'keys_unavailable' });
    expect(r.json.error).toMatch(/ECONNREFUSED|closed|reached/);
    const c = await LineClient.connect(tcpPort);
    c.send({ protocol: 1, op: 'entities_list', token: k.acmeAll });
    expect(await c.next()).toMatchObject({ ok: false, code: 'keys_unavailable' });
    c.send({ protocol: 1, op: 'entities_list', token: SESSION_TOKEN });
    expect(await c.next()).toMatchObject({ ok: true });
    c.close();
  });
});

describe('idle organization sessions', () => {
  it('are saved and released after the idle time, and come back on the next request and after a restart', async () => {
    const keysAgain = await startKeysServiceAgain();
    const s = await startLinework(['--keys-url', keysAgain.url], { LINEWORK_ORG_IDLE_MS: '300' });
    let stopped = false;
    try {
      const acme = client(s.port, k.acmeAll);
      const before = await acme.get('/api/v1/state');
      const made = await acme.post('/api/v1/documents', {});
      expect(made.status).toBe(201);
      await acme.post('/api/v1/entities', { entities: [{ type: 'Text', value: 'kept', position: [0, 0], height: 1 }] });
      const autosave = join(root, 'acme', '.autosave', 'session.json');
      const savedIds = (): number[] => (existsSync(autosave) ? JSON.parse(readFileSync(autosave, 'utf8')).documents.map((d: any) => d.id) : []);
      for (let i = 0; i < 50 && !savedIds().includes(made.json.document_id); i++) await sleep(100);
      await sleep(200);
      expect(savedIds()).toContain(made.json.document_id);
      const after = await acme.get('/api/v1/state');
      expect(after.json.session_id).not.toBe(before.json.session_id);
      expect(after.json.document_id).toBe(made.json.document_id);
      const texts = await acme.get(`/api/v1/entities?type=Text&detail=full&document_id=${made.json.document_id}`);
      expect(texts.json.entities.map((e: any) => e.value)).toEqual(['kept']);
      await s.proc.stop();
      stopped = true;
      const again = await startLinework(['--keys-url', keysAgain.url]);
      try {
        const back = await client(again.port, k.acmeAll).get('/api/v1/entities?type=Text&detail=full');
        expect(back.json.entities.map((e: any) => e.value)).toEqual(['kept']);
      } finally {
        await again.proc.stop();
      }
    } finally {
      if (!stopped) await s.proc.stop();
      await keysAgain.stop();
    }
    // each release stops the organization's worker, and each request after it starts one
  }, 120_000);
});

/** The key service on the same database after it was killed (the keys made above still hold). */
async function startKeysServiceAgain(): Promise<KeysService> {
  return startKeysService(dir);
}
