// What a token holder can throw at the drawing server without crashing it, blocking it or getting
// its input echoed back whole: answers past the reply cap, answers that cannot be encoded, slow
// clients holding connection slots, malformed heads, huge names in errors, coordinates that
// overflow.
import { connect, createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdleSweeper, serveConnection } from '../src/http-wire.js';
import { encodeJson, ReplyTooLarge } from '../src/json-reply.js';
import { encodeLine } from '../src/jsonl.js';
import { client, closedOf, rawHttp, sleep, startHttpProcess, type HttpServerProcess } from './helpers.js';

describe('answers as JSON chunks', () => {
  it('encodes exactly what JSON.stringify does, in chunks, never one string of the whole', () => {
    const values: unknown[] = [
      { ok: true, count: 3, entities: Array.from({ length: 5000 }, (_, i) => ({ handle: i.toString(16), at: [i, i / 3], s: 'é"\\\n', u: undefined, d: new Date(0) })) },
      [1, 'two', null, undefined, () => 1, { a: [undefined] }, ...Array.from({ length: 40 }, (_, i) => i)],
      'just a string', 42, null, { nested: { deeper: { list: Array.from({ length: 100 }, (_, i) => ({ i })) } } },
    ];
    for (const v of values) {
      const { chunks, bytes } = encodeJson(v);
      const text = Buffer.concat(chunks).toString('utf8');
      expect(text).toBe(JSON.stringify(v));
      expect(bytes).toBe(Buffer.byteLength(text));
      for (const c of chunks) expect(c.length).toBeLessThan(200 * 1024);
    }
    expect(encodeJson({ big: Array.from({ length: 50_000 }, () => 'x'.repeat(20)) }).chunks.length).toBeGreaterThan(10);
  });

  it('refuses an answer past the cap instead of building it', () => {
    const v = { entities: Array.from({ length: 1000 }, () => ({ text: 'y'.repeat(1000) })) };
    expect(() => encodeJson(v, 100_000)).toThrow(ReplyTooLarge);
    expect(encodeJson(v, 10_000_000).bytes).toBeGreaterThan(1_000_000);
  });

  it('turns an answer that cannot be encoded into a failure line with its request_id (TCP, stdio)', () => {
    const bad = JSON.parse(Buffer.concat(encodeLine({ ok: true, request_id: 'r7', result: { n: 10n } as unknown })).toString());
    expect(bad).toMatchObject({ ok: false, code: 'internal_error', request_id: 'r7' });
  });
});

describe('an HTTP reply that cannot be encoded', () => {
  it('becomes an internal_error reply and the server answers the next request', async () => {
    const idle = new IdleSweeper(5000);
    let calls = 0;
    const server = createServer((sock) => serveConnection(sock, async () => {
      calls++;
      return calls === 1 ? { status: 200, body: { ok: true, n: 1n as unknown } } : { status: 200, body: { ok: true } };
    }, { idle }));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    try {
      const first = await rawHttp(port, 'GET / HTTP/1.1\r\n\r\n');
      expect(first.status).toBe(400);
      expect(first.json).toMatchObject({ ok: false, code: 'internal_error', http_status: 400 });
      const second = await rawHttp(port, 'GET / HTTP/1.1\r\n\r\n');
      expect(second.json).toEqual({ ok: true });
    } finally {
      idle.stop();
      server.close();
    }
  });
});

describe('the head deadline', () => {
  it('starts with the first byte: a silent connection has the idle limit, a trickling head is cut', async () => {
    const idle = new IdleSweeper(1500);
    const server = createServer((sock) => serveConnection(sock, async () => ({ status: 200, body: { ok: true } }), { idle, headDeadlineMs: 400 }));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    try {
      // silent for twice the head deadline, then a whole request: answered
      const silent = connect(port, '127.0.0.1');
      silent.on('error', () => undefined);
      await once(silent, 'connect');
      const got: Buffer[] = [];
      silent.on('data', (c: Buffer) => got.push(c));
      await sleep(800);
      expect(silent.destroyed).toBe(false);
      silent.write('GET / HTTP/1.1\r\n\r\n');
      await closedOf(silent);
      expect(Buffer.concat(got).toString()).toMatch(/^HTTP\/1\.1 200 OK/);
      // one byte every 100 ms is never idle, but the head is late 400 ms after its first byte
      const slow = connect(port, '127.0.0.1');
      slow.on('error', () => undefined);
      await once(slow, 'connect');
      const t0 = Date.now();
      const trickle = setInterval(() => slow.write('x'), 100);
      await closedOf(slow);
      clearInterval(trickle);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(400);
      expect(Date.now() - t0).toBeLessThan(1400);
      // a connection that never sends a byte is the idle limit's (1.5 s here, 15 s by default)
      const mute = connect(port, '127.0.0.1');
      mute.on('error', () => undefined);
      await once(mute, 'connect');
      const t1 = Date.now();
      await closedOf(mute);
      expect(Date.now() - t1).toBeGreaterThanOrEqual(1400);
    } finally {
      idle.stop();
      server.close();
    }
  });
});

describe('the real server under abuse', () => {
  let s: HttpServerProcess;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    s = await startHttpProcess([], { LINEWORK_BODY_DEADLINE_MS: '1500' });
    c = client(s.port, s.token);
  });
  afterAll(async () => s?.proc.stop());

  it('answers a listing past the reply cap with reply_too_large and a way to page, and lives on', async () => {
    // 9 texts of 15 million characters: about 135 MB of JSON at full detail, past the 128 MiB cap
    const value = 'w'.repeat(15_000_000);
    for (let i = 0; i < 9; i++) {
      const r = await c.post('/api/v1/entities', { entities: [{ type: 'Text', value, position: [i, 0], height: 1 }] });
      expect(r.status).toBe(201);
    }
    const all = await c.get('/api/v1/entities?detail=full');
    expect(all.status).toBe(400);
    expect(all.json).toMatchObject({ ok: false, code: 'reply_too_large', http_status: 400 });
    expect(all.json.error).toMatch(/limit and offset/);
    expect((await c.get('/api/v1/ready')).status).toBe(200);
    const page = await c.get('/api/v1/entities?detail=full&limit=2');
    expect(page.status).toBe(200);
    expect(page.json.entities).toHaveLength(2);
    expect(page.json.entities[0].value).toHaveLength(15_000_000);
    // the listing travels once: at the top level, not again inside result
    expect(page.json.result).toMatchObject({ count: 2, total: 9, next_offset: 2 });
    expect(page.json.result).not.toHaveProperty('entities');
    const del = await c.del(`/api/v1/entities?handles=${page.json.entities.map((e: { handle: string }) => e.handle).join(',')}`);
    expect(del.status).toBe(200);
  }, 120_000);

  it('gives slots held by clients trickling their head back after the head deadline', async () => {
    const slow: Socket[] = [];
    const closed: Promise<unknown>[] = [];
    for (let i = 0; i < 8; i++) {
      const sock = connect(s.port, '127.0.0.1');
      sock.on('error', () => undefined);
      await once(sock, 'connect');
      closed.push(closedOf(sock));
      slow.push(sock);
    }
    // one byte a second: never idle for 15 s
    const head = 'GET /api/v1/ready HTTP/1.1\r\nX-Slow: ';
    let k = 0;
    const trickle = setInterval(() => {
      for (const sock of slow) if (!sock.destroyed) sock.write(head[k % head.length]!);
      k++;
    }, 1000);
    try {
      await sleep(300);
      const refused = await rawHttp(s.port, `GET /api/v1/ready HTTP/1.1\r\nAuthorization: Bearer ${s.token}\r\n\r\n`, { timeout: 2000 });
      expect(refused.status).toBe(0); // the ninth connection is dropped while all eight are held
      const t0 = Date.now();
      let ok = false;
      while (!ok && Date.now() - t0 < 9000) {
        const r = await rawHttp(s.port, `GET /api/v1/ready HTTP/1.1\r\nAuthorization: Bearer ${s.token}\r\n\r\n`, { timeout: 2000 });
        ok = r.status === 200;
        if (!ok) await sleep(250);
      }
      expect(ok).toBe(true);
      await Promise.all(closed);
    } finally {
      clearInterval(trickle);
      for (const sock of slow) sock.destroy();
    }
  }, 30_000);

  it('closes a connection whose body does not arrive by the body deadline', async () => {
    const sock = connect(s.port, '127.0.0.1');
    sock.on('error', () => undefined);
    await once(sock, 'connect');
    sock.write(`POST /api/v1/entities HTTP/1.1\r\nAuthorization: Bearer ${s.token}\r\nContent-Length: 1000\r\n\r\n{`);
    const t0 = Date.now();
    const trickle = setInterval(() => sock.write(' '), 300);
    await closedOf(sock);
    clearInterval(trickle);
    expect(Date.now() - t0).toBeLessThan(4000);
  });

  it('refuses whitespace between a header name and its colon (RFC 9112) with 400', async () => {
    const r = await rawHttp(s.port, `GET /api/v1/ready HTTP/1.1\r\nAuthorization : Bearer ${s.token}\r\n\r\n`);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ ok: false, code: 'bad_request' });
    expect(r.json.error).toMatch(/whitespace between the field name and the colon/);
    const ok = await rawHttp(s.port, `GET /api/v1/ready HTTP/1.1\r\nAuthorization: Bearer ${s.token}\r\n\r\n`);
    expect(ok.status).toBe(200);
  });

  it('cuts echoed input in error messages (a 10 MB layer name)', async () => {
    const layer = 'L'.repeat(10_000_000);
    const r = await c.post('/api/v1/entities', { entities: [{ type: 'Line', start: [0, 0], end: [1, 1], layer }] });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('unknown_layer');
    expect(r.raw.length).toBeLessThan(10_000);
    expect(r.json.error).toMatch(/more characters/);
  });

  it('refuses coordinates whose box would overflow; nothing changes', async () => {
    const before = (await c.get('/api/v1/state')).json.version;
    const r = await c.post('/api/v1/entities', { entities: [{ type: 'Circle', center: [1e308, 1e308], radius: 1e308 }] });
    expect([r.status, r.json.code]).toEqual([400, 'out_of_range']);
    expect((await c.get('/api/v1/state')).json.version).toBe(before);
    const ok = await c.post('/api/v1/entities', { entities: [{ type: 'Circle', center: [1e99, 1e99], radius: 1e98 }] });
    expect(ok.status).toBe(201);
    const got = await c.get(`/api/v1/entities/${ok.json.result.handles[0]}`);
    const { min, max } = got.json.entities[0].bounds;
    expect(min[0] / 9e98).toBeCloseTo(1, 12);
    expect(max[1] / 1.1e99).toBeCloseTo(1, 12);
  });
});

describe('binary values in JSON answers', () => {
  it('travel as base64 strings: fields of the answer and of the records of its lists', () => {
    const bytes = new Uint8Array([1, 2, 250]);
    const v = { xs: new Float32Array([1.5, -2]), images: [{ ent: 0, data: bytes }], deep: { a: { c: [{ d: Buffer.from('hi') }] } } };
    const back = JSON.parse(Buffer.concat(encodeJson(v).chunks).toString());
    expect(Buffer.from(back.xs, 'base64')).toEqual(Buffer.from(v.xs.buffer));
    expect(back.images[0]).toEqual({ ent: 0, data: Buffer.from(bytes).toString('base64') });
    expect(back.deep.a.c[0].d).toBe(Buffer.from('hi').toString('base64'));
  });
});
