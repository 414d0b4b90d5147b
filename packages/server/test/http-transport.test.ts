// Transport-level tests of the HTTP server against the test scaffold dispatcher (in process):
// request forms of the wrapper and the passthrough, the retry, concurrency, limits on raw sockets.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { once } from 'node:events';
import { TokenCheck } from '../src/auth.js';
import { startHttpServer, type RunningHttpServer } from '../src/http-server.js';
import { Scaffold } from './scaffold.js';
import { closedOf, client, rawHttp, request, sleep } from './helpers.js';
import { checkOpenApi } from './openapi-check.js';

const TOKEN = 'c0ffee'.repeat(10) + 'abcd';
let d: Scaffold;
let srv: RunningHttpServer;
let c: ReturnType<typeof client>;

beforeAll(async () => {
  d = new Scaffold();
  srv = await startHttpServer({ api: d, auth: new TokenCheck({ value: TOKEN, source: 'env' }), port: 0, idleMs: 400 });
  c = client(srv.port, TOKEN);
});
afterAll(async () => {
  await srv.close();
});
beforeEach(() => {
  d.log.length = 0;
});

describe('responses', () => {
  it('serves GET /ready and the API root with http_status, reason phrase and Connection: close', async () => {
    for (const path of ['/api/v1/ready', '/api/v1', '/api/v1/', '/api/v1/ready/']) {
      const r = await c.get(path);
      expect(r.statusLine).toBe('HTTP/1.1 200 OK');
      expect(r.json).toMatchObject({ ok: true, ready: true, version: '9.9.9-test', session_id: 'scaffold-session', document_id: 1, http_status: 200 });
      expect(r.headers.connection).toBe('close');
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.text));
      expect(r.closed).toBe(true);
      expect(r.headerNames.some((h) => h.toLowerCase().startsWith('access-control-'))).toBe(false);
    }
    expect(srv.url).toBe(`http://127.0.0.1:${srv.port}/api/v1`);
  });

  it('answers one request per connection, even when two are sent', async () => {
    const one = `GET /api/v1/ready HTTP/1.1\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`;
    const r = await rawHttp(srv.port, one + one);
    expect(r.raw.toString().match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(r.closed).toBe(true);
  });

  it('answers a client that half-closes after its request', async () => {
    const r = await rawHttp(srv.port, `GET /api/v1/ready HTTP/1.1\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`, { end: true });
    expect(r.status).toBe(200);
  });

  it('sends 100 Continue for Expect: 100-continue', async () => {
    const sock = connect(srv.port, '127.0.0.1');
    await once(sock, 'connect');
    const got: Buffer[] = [];
    sock.on('data', (b: Buffer) => got.push(b));
    sock.write(`POST /api/v1/echo HTTP/1.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 9\r\nExpect: 100-continue\r\n\r\n`);
    await sleep(100);
    expect(Buffer.concat(got).toString()).toBe('HTTP/1.1 100 Continue\r\n\r\n');
    sock.write('{"a":"b"}');
    await closedOf(sock);
    expect(Buffer.concat(got).toString()).toContain('"a":"b"');
  });
});

describe('authentication', () => {
  it('rejects a missing, malformed or wrong token with 401 and does not dispatch', async () => {
    const cases: Array<Record<string, string>> = [
      {},
      { Authorization: `bearer ${TOKEN}` },
      { Authorization: `Bearer  ${TOKEN}` },
      { Authorization: `Basic ${TOKEN}` },
      { Authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { Authorization: `Bearer ${TOKEN}0` },
      { Authorization: 'Bearer ' },
    ];
    for (const headers of cases) {
      const r = await request(srv.port, 'GET', '/api/v1/ready', { token: null, headers });
      expect(r.statusLine).toBe('HTTP/1.1 401 Unauthorized');
      expect(r.json).toEqual({ ok: false, code: 'unauthorized', error: expect.stringContaining('Authorization'), http_status: 401 });
      expect(r.json.error).toContain('SERVICE_API_TOKEN');
    }
    expect(d.log).toHaveLength(0);
  });

  it('accepts the header name in any case', async () => {
    const r = await request(srv.port, 'GET', '/api/v1/ready', { token: null, headers: { aUTHORIZATION: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(200);
  });

  it('checks the token after the size checks (431 without a token)', async () => {
    const r = await rawHttp(srv.port, `GET /api/v1/${'a'.repeat(9000)} HTTP/1.1\r\n\r\n`);
    expect(r.status).toBe(431);
  });

  it('401 for every method and path without a token (before 404/405)', async () => {
    expect((await request(srv.port, 'OPTIONS', '/api/v1/ready', { token: null })).status).toBe(401);
    expect((await request(srv.port, 'GET', '/elsewhere', { token: null })).status).toBe(401);
  });
});

describe('routing', () => {
  it('404 unknown_route under and outside /api/v1; 405 for other methods', async () => {
    for (const [m, p] of [['GET', '/api/v1/nope'], ['POST', '/api/v1/entities/x/y/z'], ['PUT', '/api/v1/ready'], ['DELETE', '/api/v1/state'], ['GET', '/'], ['GET', '/api/v2/ready'], ['GET', '/api/v1ready'], ['POST', '/other']]) {
      const r = await c.req(m!, p!);
      expect(r.statusLine, `${m} ${p}`).toBe('HTTP/1.1 404 Not Found');
      expect(r.json).toMatchObject({ ok: false, code: 'unknown_route', http_status: 404 });
    }
    for (const m of ['OPTIONS', 'PATCH', 'TRACE', 'CONNECT_X', 'get']) {
      const r = await c.req(m, '/api/v1/ready');
      expect(r.statusLine, m).toBe('HTTP/1.1 405 Method Not Allowed');
      expect(r.json).toMatchObject({ ok: false, code: 'method_not_allowed', http_status: 405 });
    }
    const head = await c.req('HEAD', '/api/v1/ready');
    expect(head.statusLine).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(head.text).toBe('');
    expect(d.log).toHaveLength(0);
  });

  it('decodes percent-escapes and + in path parameters, query keys and values', async () => {
    const r = await c.get('/api/v1/echo/a%2Fb+c/%E2%9C%93?k%20ey=v+1%26x&plain=%zz&empty&dup=1&dup=2');
    expect(r.status).toBe(200);
    const req = r.json.result.request;
    expect(req.params).toEqual({ a: 'a/b c', b: '✓' });
    expect(req.query).toEqual({ 'k ey': 'v 1&x', plain: '%zz', empty: '', dup: '1' });
  });

  it('prefers literal segments over parameters', async () => {
    const r = await c.get('/api/v1/echo/fixed/2');
    expect(r.json.result.request).toMatchObject({ fixed: true, params: { b: '2' } });
  });

  it('maps failure codes to statuses in one place', async () => {
    const absent = await c.get('/api/v1/entities/NOPE');
    expect(absent.statusLine).toBe('HTTP/1.1 404 Not Found');
    expect(absent.json).toMatchObject({ ok: false, code: 'entity_absent', http_status: 404 });
    const gui = await c.post('/api/v1/user_select', {});
    expect(gui.statusLine).toBe('HTTP/1.1 409 Conflict');
    expect(gui.json).toMatchObject({ code: 'gui_required', http_status: 409 });
    const busy = await c.post('/api/v1/busy_op', {});
    expect(busy.statusLine).toBe('HTTP/1.1 503 Service Unavailable');
    const other = await c.post('/api/v1/echo_nope', {});
    expect(other.status).toBe(404);
    const where = await c.get('/api/v1/entities?where=%5Bnot-json');
    expect(where.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(where.json).toMatchObject({ ok: false, code: 'invalid_where', http_status: 400 });
    expect(d.log.filter((r) => r.op === 'entities_query')).toHaveLength(0);
  });
});

describe('bodies', () => {
  it('treats empty and invalid JSON as {} and keeps arrays', async () => {
    const empty = await c.post('/api/v1/echo');
    expect(empty.json.result.request).toEqual({ protocol: 1, op: 'echo' });
    const invalid = await c.post('/api/v1/echo', undefined, { rawBody: '{oops' });
    expect(invalid.json.result.request).toEqual({ protocol: 1, op: 'echo' });
    const arr = await c.put('/api/v1/echo', [1, 2]);
    expect(arr.json.result.request.body).toEqual([1, 2]);
    const nul = await c.put('/api/v1/echo', undefined, { rawBody: 'null' });
    expect(nul.json.result.request.body).toBeNull();
  });

  it('PUT xdata: null or invalid body means an empty array', async () => {
    for (const rawBody of ['null', 'nonsense', '']) {
      const r = await c.put('/api/v1/entities/1A/xdata/MYAPP', undefined, { rawBody });
      expect(r.status).toBe(200);
      expect(r.json.result).toEqual({ handle: '1A', app: 'MYAPP', count: 0 });
    }
    const r = await c.put('/api/v1/entities/1A/xdata/MY%20APP', [{ code: 1000, value: 'x' }]);
    expect(r.json.result).toEqual({ handle: '1A', app: 'MY APP', count: 1 });
  });

  it('reads Content-Length case-insensitively; an unparseable value counts as 0', async () => {
    const body = '{"x":1}';
    const lower = await rawHttp(srv.port, `POST /api/v1/echo HTTP/1.1\r\nauthorization: Bearer ${TOKEN}\r\ncontent-LENGTH: ${body.length}\r\n\r\n${body}`);
    expect(lower.json.result.request).toMatchObject({ x: 1 });
    const bad = await rawHttp(srv.port, `POST /api/v1/echo HTTP/1.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 7x\r\n\r\n${body}`);
    expect(bad.status).toBe(200);
    expect(bad.json.result.request).toEqual({ protocol: 1, op: 'echo' });
  });

  it('a declared body above 16 MiB is treated as empty and not buffered', async () => {
    const t0 = Date.now();
    const r = await rawHttp(srv.port, [`POST /api/v1/echo HTTP/1.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: ${16 * 1024 * 1024 + 1}\r\n\r\n`, Buffer.alloc(1024 * 1024, 0x41)]);
    expect(r.status).toBe(200);
    expect(r.json.result.request).toEqual({ protocol: 1, op: 'echo' });
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('a body of exactly 16 MiB is read', async () => {
    const shell = '{"ms":1,"p":""}';
    const body = `{"ms":1,"p":"${'z'.repeat(16 * 1024 * 1024 - shell.length)}"}`;
    expect(body.length).toBe(16 * 1024 * 1024);
    const r = await c.post('/api/v1/slow', undefined, { rawBody: body });
    expect(r.status).toBe(200);
    expect(r.json.result).toEqual({ waited: 1 });
  });
});

describe('mutation wrapper and passthrough', () => {
  it('builds protocol-1 requests with http-<pid>-<counter> ids and the cached document id; strips state', async () => {
    const r1 = await c.post('/api/v1/entities', { entities: [{ type: 'Line' }] });
    expect(r1.statusLine).toBe('HTTP/1.1 201 Created');
    expect(r1.json).toMatchObject({ ok: true, http_status: 201, result: { handles: [expect.any(String)] } });
    expect(r1.json).not.toHaveProperty('state');
    const r2 = await c.post('/api/v1/entities', { entities: [] });
    const [a, b] = d.log;
    expect(a).toMatchObject({ protocol: 1, op: 'entities_create', request_id: expect.stringMatching(new RegExp(`^http-${process.pid}-\\d+$`)), document_id: 1 });
    const n1 = Number(a!.request_id!.split('-')[2]);
    expect(b!.request_id).toBe(`http-${process.pid}-${n1 + 1}`);
    expect(r2.json).not.toHaveProperty('state');
  });

  it('lets body fields override the generated id and the cached document id', async () => {
    await c.post('/api/v1/view_focus', { document_id: 7, request_id: 'mine' });
    expect(d.log[0]).toMatchObject({ op: 'view_focus', document_id: 7, request_id: 'mine', protocol: 1 });
  });

  it('retries once after a state refresh on a retryable code', async () => {
    await c.get('/api/v1/ready');
    const before = srv.httpApi.documentId;
    const now = d.switchDocument();
    d.log.length = 0;
    const r = await c.post('/api/v1/entities', { entities: [{ type: 'Point' }] });
    expect(r.status).toBe(201);
    expect(d.log.map((x) => x.op)).toEqual(['entities_create', 'state', 'entities_create']);
    expect(d.log[0]!.document_id).toBe(before);
    expect(d.log[2]!.document_id).toBe(now);
    expect(d.log[2]!.request_id).toBe(d.log[0]!.request_id);
    expect(srv.httpApi.documentId).toBe(now);
  });

  it('retries only once, and a body document_id still wins on the retry', async () => {
    d.log.length = 0;
    const r = await c.post('/api/v1/entities', { entities: [], document_id: 999 });
    expect(r.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(r.json).toMatchObject({ ok: false, code: 'document_closed', http_status: 400 });
    expect(d.log.map((x) => [x.op, x.document_id])).toEqual([['entities_create', 999], ['state', undefined], ['entities_create', 999]]);
  });

  it('POST /{wrapper op} goes through the wrapper with status 200', async () => {
    const r = await c.post('/api/v1/entities_create', { entities: [{ type: 'Circle' }] });
    expect(r.statusLine).toBe('HTTP/1.1 200 OK');
    expect(d.log[0]!.request_id).toMatch(/^http-\d+-\d+$/);
    expect(r.json).not.toHaveProperty('state');
  });

  it('POST /{other op} runs as protocol 1 with rest-<serial> unless the caller gives an id', async () => {
    d.log.length = 0;
    await c.post('/api/v1/state', {});
    await c.post('/api/v1/state', { request_id: '' });
    await c.post('/api/v1/state', { request_id: 'given' });
    const ids = d.log.map((x) => x.request_id);
    expect(ids[0]).toMatch(/^rest-\d+$/);
    expect(Number(ids[1]!.slice(5))).toBe(Number(ids[0]!.slice(5)) + 1);
    expect(ids[2]).toBe('given');
  });
});

describe('limits', () => {
  const auth = `Authorization: Bearer ${TOKEN}\r\n`;

  it('request line: 8192 bytes pass, 8193 give 431 and close without dispatch', async () => {
    const line = (n: number): string => {
      const base = 'GET /api/v1/ready?x= HTTP/1.1';
      return base.replace('x=', 'x=' + 'a'.repeat(n - base.length));
    };
    expect(line(8192).length).toBe(8192);
    const ok = await rawHttp(srv.port, `${line(8192)}\r\n${auth}\r\n`);
    expect(ok.status).toBe(200);
    d.log.length = 0;
    const big = await rawHttp(srv.port, `${line(8193)}\r\n${auth}\r\n`);
    expect(big.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(big.json).toMatchObject({ ok: false, code: 'header_too_large', http_status: 431 });
    expect(big.json.error).toMatch(/request line/);
    expect(big.closed).toBe(true);
    expect(d.log).toHaveLength(0);
  });

  it('a request line without any line break is refused as soon as it passes 8 KiB', async () => {
    const r = await rawHttp(srv.port, 'GET /' + 'b'.repeat(20000), { timeout: 3000 });
    expect(r.status).toBe(431);
  });

  it('header line: 8192 bytes pass, 8193 give 431', async () => {
    const hdr = (n: number): string => 'X-Pad: ' + 'p'.repeat(n - 7);
    expect((await rawHttp(srv.port, `GET /api/v1/ready HTTP/1.1\r\n${auth}${hdr(8192)}\r\n\r\n`)).status).toBe(200);
    const r = await rawHttp(srv.port, `GET /api/v1/ready HTTP/1.1\r\n${auth}${hdr(8193)}\r\n\r\n`);
    expect(r.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(r.json.error).toMatch(/header line/);
  });

  it('header block over 64 KiB gives 431 even with short lines', async () => {
    const lines = (count: number): string => Array.from({ length: count }, (_, i) => `X-H${String(i).padStart(4, '0')}: ${'v'.repeat(1000)}\r\n`).join('');
    // each line: 1009 bytes + CRLF = 1011
    const fits = lines(60);
    expect((await rawHttp(srv.port, `GET /api/v1/ready HTTP/1.1\r\n${auth}${fits}\r\n`)).status).toBe(200);
    const r = await rawHttp(srv.port, `GET /api/v1/ready HTTP/1.1\r\n${auth}${lines(70)}\r\n`);
    expect(r.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(r.json.error).toMatch(/header block/);
    expect(r.closed).toBe(true);
  });

  it('drops a ninth simultaneous connection without a response until one finishes', async () => {
    const held = await Promise.all(Array.from({ length: 8 }, async () => {
      const s = connect(srv.port, '127.0.0.1');
      s.on('error', () => undefined);
      await once(s, 'connect');
      return s;
    }));
    await sleep(50);
    const ninth = await rawHttp(srv.port, `GET /api/v1/ready HTTP/1.1\r\n${auth}\r\n`, { timeout: 2000 });
    expect(ninth.raw.length).toBe(0);
    expect(ninth.closed).toBe(true);
    held[0]!.destroy();
    await sleep(50);
    const after = await rawHttp(srv.port, `GET /api/v1/ready HTTP/1.1\r\n${auth}\r\n`);
    expect(after.status).toBe(200);
    for (const s of held) s.destroy();
    await sleep(50);
  });

  it('gives up an idle connection (reading) without a response', async () => {
    const t0 = Date.now();
    const silent = await rawHttp(srv.port, [], { timeout: 5000 });
    expect(silent.closed).toBe(true);
    expect(silent.raw.length).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(350);
    const partial = await rawHttp(srv.port, `GET /api/v1/ready HTTP/1.1\r\n${auth}`, { timeout: 5000 });
    expect(partial.closed).toBe(true);
    expect(partial.raw.length).toBe(0);
    const body = await rawHttp(srv.port, `POST /api/v1/echo HTTP/1.1\r\n${auth}Content-Length: 10\r\n\r\n{"a"`, { timeout: 5000 });
    expect(body.closed).toBe(true);
    expect(body.raw.length).toBe(0);
  });

  it('does not count dispatcher time as idle', async () => {
    const r = await c.post('/api/v1/slow', { ms: 900 });
    expect(r.status).toBe(200);
    expect(r.json.result).toEqual({ waited: 900 });
  });
});

describe('concurrency', () => {
  it('reads other connections while the dispatcher runs one request at a time', async () => {
    d.maxRunning = 0;
    const stalled = connect(srv.port, '127.0.0.1');
    stalled.on('error', () => undefined);
    stalled.write('GET /api/v1/ready HTTP/1.1\r\n');
    const slow = c.post('/api/v1/slow', { ms: 300 });
    await sleep(20);
    const t0 = Date.now();
    const [r, s] = await Promise.all([c.get('/api/v1/ready'), slow]);
    expect(r.status).toBe(200);
    expect(s.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(d.maxRunning).toBe(1);
    stalled.destroy();
  });
});

describe('openapi', () => {
  it('GET /openapi describes every catalogue route', async () => {
    const r = await c.get('/api/v1/openapi');
    expect(r.status).toBe(200);
    const doc = r.json;
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.servers[0].url).toBe(srv.url);
    const { http_status: _h, ...spec } = doc;
    expect(checkOpenApi(spec)).toEqual([]);
    for (const op of d.catalogue) {
      for (const route of op.http) {
        const p = route.path === '' ? '/' : route.path;
        expect(doc.paths[p]?.[route.method.toLowerCase()], `${route.method} ${p}`).toBeDefined();
      }
      if (op.http.length === 0) expect(doc.paths[`/${op.name}`]?.post).toBeDefined();
      else expect(doc.paths['/{op}'].post.parameters[0].schema.enum).toContain(op.name);
    }
    const list = doc.paths['/entities'].get;
    expect(list.parameters.map((p: any) => p.name).sort()).toEqual(['layer', 'type', 'where']);
    const xdata = doc.paths['/entities/{handle}/xdata/{app}'].put;
    expect(xdata.parameters.map((p: any) => [p.name, p.in])).toEqual([['handle', 'path'], ['app', 'path']]);
    expect(xdata.requestBody.content['application/json'].schema.type).toBe('array');
    expect(doc.paths['/entities'].post.responses['201']).toBeDefined();
  });
});
