// `linework --tcp 0` as a real child process: auth per request, concurrent clients, limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { once } from 'node:events';
import { closedOf, LineClient, sleep, spawnCli, type Spawned } from './helpers.js';

const TOKEN = 'tcp-test-token-0123456789';
const IDLE_MS = 800;
let p: Spawned;
let port: number;

beforeAll(async () => {
  p = spawnCli(['--tcp', '0'], { SERVICE_API_TOKEN: TOKEN, LINEWORK_IDLE_MS: String(IDLE_MS) });
  port = Number((await p.waitStderr(/^tcp:\/\/127\.0\.0\.1:(\d+)$/m))[1]);
});
afterAll(async () => {
  await p.stop();
});

describe('--tcp', () => {
  it('prints its URL, not the chosen token', () => {
    expect(p.stderr()).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/m);
    expect(p.stderr()).not.toContain(TOKEN);
  });

  it('prints a generated token once when none is chosen', async () => {
    const g = spawnCli(['--tcp', '0']);
    try {
      const tok = (await g.waitStderr(/^token: ([0-9a-f]{64})$/m))[1]!;
      const gp = Number((await g.waitStderr(/^tcp:\/\/127\.0\.0\.1:(\d+)$/m))[1]);
      const c = await LineClient.connect(gp);
      c.send({ protocol: 1, op: 'ready', token: tok });
      expect(await c.next()).toMatchObject({ ok: true });
      c.close();
    } finally {
      await g.stop();
    }
  });

  it('answers requests carrying the token; missing or wrong token gives unauthorized without dispatch', async () => {
    const c = await LineClient.connect(port);
    c.send({ protocol: 1, op: 'entities_create', entities: [{ type: 'Point', location: [0, 0] }], request_id: 'no-token' });
    const missing = await c.next();
    expect(missing).toMatchObject({ ok: false, code: 'unauthorized', request_id: 'no-token' });
    expect(missing.error).toMatch(/token/);
    c.send({ protocol: 1, op: 'entities_create', entities: [{ type: 'Point', location: [0, 0] }], token: TOKEN + 'x' });
    expect(await c.next()).toMatchObject({ ok: false, code: 'unauthorized' });
    c.send({ protocol: 1, op: 'entities_create', entities: [{ type: 'Point', location: [0, 0] }], token: 42 });
    expect(await c.next()).toMatchObject({ ok: false, code: 'unauthorized' });
    c.send({ protocol: 1, op: 'operation', id: 'no-token', token: TOKEN });
    expect(await c.next()).toMatchObject({ ok: false, code: 'unknown_operation' });
    c.send({ protocol: 1, op: 'entities_list', token: TOKEN });
    const list = await c.next();
    expect(list).toMatchObject({ ok: true, result: { count: 0 } });
    c.send('{broken');
    expect(await c.next()).toMatchObject({ ok: false, code: 'invalid_request' });
    c.send({ protocol: 1, op: 'ready', token: TOKEN });
    expect(await c.next()).toMatchObject({ ok: true, result: { ready: true } });
    c.close();
  });

  it('serves several clients concurrently, answers in order per client', async () => {
    const clients = await Promise.all(Array.from({ length: 6 }, () => LineClient.connect(port)));
    clients.forEach((c, i) => {
      for (let k = 0; k < 20; k++) c.send({ protocol: 1, op: 'entities_create', request_id: `c${i}-${k}`, entities: [{ type: 'Point', location: [i, k] }], token: TOKEN });
    });
    const answers = await Promise.all(clients.map(async (c) => {
      const got: string[] = [];
      for (let k = 0; k < 20; k++) got.push((await c.next()).request_id);
      return got;
    }));
    answers.forEach((ids, i) => expect(ids).toEqual(Array.from({ length: 20 }, (_, k) => `c${i}-${k}`)));
    const c = clients[0]!;
    c.send({ protocol: 1, op: 'entities_list', limit: 1, token: TOKEN });
    expect((await c.next()).result.total).toBe(120);
    for (const x of clients) x.close();
  });

  it('answers what was sent before a half-close, then closes', async () => {
    const c = await LineClient.connect(port);
    c.sock.end(JSON.stringify({ protocol: 1, op: 'ready', token: TOKEN }) + '\n');
    expect(await c.next()).toMatchObject({ ok: true });
    expect(await c.waitClosed()).toBe(true);
  });

  it('a line over 16 MiB gives an error and closes the connection', async () => {
    const c = await LineClient.connect(port);
    const big = Buffer.alloc(16 * 1024 * 1024 + 10, 0x61);
    c.sock.write(big);
    const res = await c.next(20_000);
    expect(res).toMatchObject({ ok: false, code: 'request_too_large' });
    expect(await c.waitClosed()).toBe(true);
  });

  it('closes a connection idle for the limit', async () => {
    const sock = connect(port, '127.0.0.1');
    await once(sock, 'connect');
    const t0 = Date.now();
    await closedOf(sock);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(IDLE_MS - 100);
  });

  it('binds to loopback only and shares the session with HTTP when combined', async () => {
    const both = spawnCli(['--http', '0', '--tcp', '0'], { SERVICE_API_TOKEN: TOKEN });
    try {
      const httpPort = Number((await both.waitStderr(/^http:\/\/127\.0\.0\.1:(\d+)\/api\/v1$/m))[1]);
      const tcpPort = Number((await both.waitStderr(/^tcp:\/\/127\.0\.0\.1:(\d+)$/m))[1]);
      const c = await LineClient.connect(tcpPort);
      c.send({ protocol: 1, op: 'entities_create', entities: [{ type: 'Point', location: [3, 3] }], token: TOKEN });
      const h = (await c.next()).result.handles[0];
      const { request } = await import('./helpers.js');
      const r = await request(httpPort, 'GET', `/api/v1/entities/${h}`, { token: TOKEN });
      expect(r.status).toBe(200);
      const ready = await request(httpPort, 'GET', '/api/v1/ready', { token: TOKEN });
      c.send({ protocol: 1, op: 'ready', token: TOKEN });
      expect((await c.next()).result.session_id).toBe(ready.json.session_id);
      c.close();
    } finally {
      await both.stop();
    }
    await sleep(10);
  });
});
