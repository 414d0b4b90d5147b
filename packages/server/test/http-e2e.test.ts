// The HTTP interface of the REAL server process (`linework --http 0`, built bin): every row of the
// route table, the rules, the error codes, the limits (raw sockets), authentication.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { once } from 'node:events';
import { client, rawHttp, request, sleep, spawnCli, startHttpProcess, LineClient, type HttpServerProcess } from './helpers.js';
import { checkOpenApi } from './openapi-check.js';

let s: HttpServerProcess;
let c: ReturnType<typeof client>;
let dir: string;
const IDLE_MS = 1200;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'linework-http-'));
  s = await startHttpProcess([], { LINEWORK_IDLE_MS: String(IDLE_MS) });
  c = client(s.port, s.token);
});
afterAll(async () => {
  await s?.proc.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function create(entities: unknown[]): Promise<string[]> {
  const r = await c.post('/api/v1/entities', { entities });
  expect(r.status, r.text).toBe(201);
  return r.json.result.handles;
}

describe('startup', () => {
  it('prints the base URL and the generated token once on stderr, nothing on stdout', () => {
    expect(s.url).toBe(`http://127.0.0.1:${s.port}/api/v1`);
    expect(s.token).toMatch(/^[0-9a-f]{64}$/);
    expect(s.proc.stderr().split(s.token).length - 1).toBe(1);
    expect(s.proc.stdout()).toBe('');
  });

  it('never prints a token chosen through SERVICE_API_TOKEN', async () => {
    const p = await startHttpProcess([], { SERVICE_API_TOKEN: '  chosen-secret-value  ', LINEWORK_LOG_LEVEL: 'debug' });
    try {
      const r = await request(p.port, 'GET', '/api/v1/ready', { token: 'chosen-secret-value' });
      expect(r.status).toBe(200);
      expect((await request(p.port, 'GET', '/api/v1/ready', { token: '  chosen-secret-value  ' })).status).toBe(401);
      await sleep(100);
      expect(p.proc.stderr()).not.toContain('chosen-secret-value');
      expect(p.proc.stderr()).not.toMatch(/^token: /m);
    } finally {
      await p.proc.stop();
    }
  });

  it('listens on 127.0.0.1 only', async () => {
    const { networkInterfaces } = await import('node:os');
    const other = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal);
    if (!other) return;
    const sock = connect(s.port, other.address);
    const result = await new Promise<string>((resolve) => {
      sock.once('connect', () => resolve('connected'));
      sock.once('error', () => resolve('refused'));
    });
    sock.destroy();
    expect(result).toBe('refused');
  });
});

describe('route table', () => {
  it('GET /ready and the /api/v1 root', async () => {
    for (const p of ['/api/v1/ready', '/api/v1', '/api/v1/']) {
      const r = await c.get(p);
      expect(r.statusLine).toBe('HTTP/1.1 200 OK');
      expect(r.json).toMatchObject({ ok: true, ready: true, version: '0.1.0', session_id: expect.any(String), document_id: 1, http_status: 200 });
    }
  });

  it('GET /capabilities', async () => {
    const r = await c.get('/api/v1/capabilities');
    expect(r.status).toBe(200);
    expect(r.json.result.ops.length).toBeGreaterThan(20);
    expect(r.json.http_status).toBe(200);
  });

  it('GET /state and GET /documents', async () => {
    for (const p of ['/api/v1/state', '/api/v1/documents']) {
      const r = await c.get(p);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ document_id: expect.any(Number), version: expect.any(Number), session_id: expect.any(String), http_status: 200 });
    }
  });

  it('GET/POST /sysvars', async () => {
    const g = await c.get('/api/v1/sysvars?names=CLAYER,LTSCALE');
    expect(g.status).toBe(200);
    expect(Object.keys(g.json.result.values).sort()).toEqual(['CLAYER', 'LTSCALE']);
    const none = await c.get('/api/v1/sysvars');
    expect(none.json.result.values).toEqual({});
    const p = await c.post('/api/v1/sysvars', { get: ['CLAYER'], set: { LTSCALE: 2 } });
    expect(p.status).toBe(200);
    expect(p.json.result.values).toMatchObject({ CLAYER: '0', LTSCALE: 2 });
  });

  it('POST /layouts (201) and PUT /layouts/{layout}/page-setup', async () => {
    const r = await c.post('/api/v1/layouts', { name: 'Sheet A' });
    expect(r.statusLine).toBe('HTTP/1.1 201 Created');
    expect(r.json.result.layouts).toContain('Sheet A');
    const ps = await c.put('/api/v1/layouts/Sheet%20A/page-setup', { paper: 'A3', orientation: 'landscape', fit: true, center: true });
    expect(ps.status, ps.text).toBe(200);
    expect(ps.json.result).toMatchObject({ layout: 'Sheet A', paper: expect.anything(), scale: { fit: true } });
  });

  it('POST /entities (201), GET /entities with filters, GET /entities/{handle}', async () => {
    const [line, circle] = await create([
      { type: 'Line', start: [0, 0], end: [10, 0], layer: '0' },
      { type: 'Circle', center: [50, 50], radius: 5 },
      { type: 'Text', value: 'hi there', position: [1, 1], height: 2 },
      { type: 'Point', location: [3, 4] },
    ]);
    const list = await c.get('/api/v1/entities?type=Circle&detail=full');
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ count: 1, http_status: 200 });
    expect(list.json.entities[0]).toMatchObject({ handle: circle, type: 'Circle', radius: 5, center: [50, 50, 0] });
    const where = await c.get(`/api/v1/entities?where=${encodeURIComponent(JSON.stringify([{ path: '/radius', op: 'gt', value: 4 }]))}`);
    expect(where.json.count).toBe(1);
    // (bounds need the DXF library's geometry; until it computes boxes the box filter finds nothing)
    const bounds = await c.get('/api/v1/entities?bounds=40,40,60,60');
    expect(bounds.status).toBe(200);
    for (const e of bounds.json.entities) expect(e.handle).toBe(circle);
    const ignored = await c.get('/api/v1/entities?bounds=40,40,60');
    expect(ignored.json.count).toBeGreaterThanOrEqual(4);
    const handles = await c.get(`/api/v1/entities?handles=${line},${circle}&fields=handle,type`);
    expect(handles.json.count).toBe(2);
    const paged = await c.get('/api/v1/entities?limit=1&offset=1');
    expect(paged.json.entities).toHaveLength(1);
    const one = await c.get(`/api/v1/entities/${line}`);
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ count: 1, entities: [{ handle: line, type: 'Line', start: [0, 0, 0], end: [10, 0, 0] }] });
  });

  it('GET /entities with invalid where gives 400 invalid_where', async () => {
    const r = await c.get('/api/v1/entities?where=%5Bnot%20json');
    expect(r.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(r.json).toMatchObject({ ok: false, code: 'invalid_where', http_status: 400 });
  });

  it('POST /entities/transform (wrapper) and DELETE /entities by query and by body', async () => {
    const [a, b, d] = await create([
      { type: 'Point', location: [0, 0] },
      { type: 'Point', location: [1, 1] },
      { type: 'Point', location: [2, 2] },
    ]);
    const t = await c.post('/api/v1/entities/transform', { handles: [a], action: 'move', vector: [5, 5] });
    expect(t.json).not.toHaveProperty('state');
    expect(t.json.request_id).toMatch(new RegExp(`^http-${s.proc.child.pid}-\\d+$`));
    expect(t.status, t.text).toBe(200);
    const moved = await c.get(`/api/v1/entities/${a}`);
    expect(moved.json.entities[0].location).toEqual([5, 5, 0]);
    const q = await c.del(`/api/v1/entities?handles=${a},${b}`);
    expect(q.status, q.text).toBe(200);
    const body = await c.req('DELETE', '/api/v1/entities', { body: { handles: [d] } });
    expect(body.status, body.text).toBe(200);
    expect((await c.get(`/api/v1/entities/${d}`)).status).toBe(404);
  });

  it('POST /entities/copy-to (201) into another document', async () => {
    const [h] = await create([{ type: 'Circle', center: [0, 0], radius: 1 }]);
    const before = (await c.get('/api/v1/state')).json.document_id;
    const doc = await c.post('/api/v1/documents', {});
    expect(doc.status).toBe(201);
    const target = doc.json.document_id;
    expect(target).not.toBe(before);
    const copy = await c.post('/api/v1/entities/copy-to', { handles: [h], document_id: target, source_document_id: before });
    expect(copy.statusLine, copy.text).toBe('HTTP/1.1 201 Created');
    expect(copy.json.result.count).toBe(1);
    // back to the first document for the rest of the suite
    const act = await c.post('/api/v1/activate', { document_id: before });
    expect(act.status, act.text).toBe(200);
    const closed = await c.del(`/api/v1/documents/${target}?discard=1`);
    expect(closed.status, closed.text).toBe(200);
    expect(closed.json.result.closed).toBe(true);
  });

  it('POST /documents: template, path, untitled; DELETE /documents/{id} needs discard when modified', async () => {
    const path = join(dir, 'saved.dxf');
    const saved = await c.post('/api/v1/save', { path });
    expect(saved.status, saved.text).toBe(200);
    expect(existsSync(path)).toBe(true);
    const opened = await c.post('/api/v1/documents', { path });
    expect(opened.statusLine).toBe('HTTP/1.1 201 Created');
    const fromTemplate = await c.post('/api/v1/documents', { template: path, path: '/ignored.dxf' });
    expect(fromTemplate.status).toBe(201);
    expect(fromTemplate.json.result.path).toBeNull();
    const untitled = await c.post('/api/v1/documents', undefined, { rawBody: 'not json' });
    expect(untitled.status).toBe(201);
    const id = untitled.json.document_id;
    expect((await c.get('/api/v1/state')).json.document_id).toBe(id);
    await create([{ type: 'Point', location: [0, 0] }]);
    const refused = await c.del(`/api/v1/documents/${id}`);
    expect(refused.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(refused.json.code).toBe('document_modified');
    for (const d of [id, fromTemplate.json.document_id, opened.json.document_id]) {
      const r = await c.del(`/api/v1/documents/${d}?discard=true`);
      expect(r.status, r.text).toBe(200);
      expect(r.json.result.closed).toBe(true);
    }
    expect((await c.get('/api/v1/ready')).json.document_id).toBe(1);
  });

  it('POST /groups, POST /selection-sets, GET /selection-sets/{name}', async () => {
    const hs = await create([{ type: 'Point', location: [0, 0] }, { type: 'Point', location: [9, 9] }]);
    const g = await c.post('/api/v1/groups', { name: 'G1', handles: hs });
    expect(g.statusLine, g.text).toBe('HTTP/1.1 201 Created');
    const ss = await c.post('/api/v1/selection-sets', { name: 'my set', handles: hs });
    expect(ss.status, ss.text).toBe(201);
    const passive = await c.get('/api/v1/selection-sets/my%20set');
    expect(passive.json.result).toMatchObject({ handles: hs, selected: 0 });
    const sel = await c.get('/api/v1/selection-sets/my+set?select=1');
    expect(sel.json.result).toMatchObject({ handles: hs, selected: 2 });
    const gs = await c.post('/api/v1/get_selection', {});
    expect(gs.status).toBe(200);
    expect(gs.json.result.count).toBe(2);
    expect(await c.post('/api/v1/get_selection', {}).then((r) => r.json.result)).toEqual(gs.json.result);
  });

  it('xdata: PUT, GET, DELETE', async () => {
    const [h] = await create([{ type: 'Line', start: [0, 0], end: [1, 1] }]);
    const put = await c.put(`/api/v1/entities/${h}/xdata/MY_APP`, [{ code: 1000, value: 'hello' }, { code: 1070, value: 7 }]);
    expect(put.status, put.text).toBe(200);
    expect(put.json).not.toHaveProperty('state');
    const get = await c.get(`/api/v1/entities/${h}/xdata?app=MY_APP`);
    expect(get.status).toBe(200);
    expect(get.json.result.items[0].xdata.MY_APP).toEqual(['hello', 7]);
    const nul = await c.put(`/api/v1/entities/${h}/xdata/MY_APP`, undefined, { rawBody: 'null' });
    expect(nul.status, nul.text).toBe(200);
    expect((await c.get(`/api/v1/entities/${h}/xdata?app=MY_APP`)).json.result.items[0].xdata.MY_APP).toEqual([]);
    await c.put(`/api/v1/entities/${h}/xdata/MY_APP`, [{ code: 1000, value: 'x' }]);
    const del = await c.del(`/api/v1/entities/${h}/xdata/MY_APP`);
    expect(del.status, del.text).toBe(200);
    expect((await c.get(`/api/v1/entities/${h}/xdata?app=MY_APP`)).json.result.items[0].xdata.MY_APP).toEqual([]);
  });

  it('POST /blocks (201), DELETE /blocks/{name}: block_referenced without force, erases with force', async () => {
    const hs = await create([{ type: 'Circle', center: [0, 0], radius: 1 }]);
    const b = await c.post('/api/v1/blocks', { name: 'BOLT', base: [0, 0, 0], handles: hs, replace: true });
    expect(b.statusLine, b.text).toBe('HTTP/1.1 201 Created');
    const refused = await c.del('/api/v1/blocks/BOLT');
    expect(refused.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(refused.json).toMatchObject({ ok: false, code: 'block_referenced', http_status: 400 });
    const forced = await c.del('/api/v1/blocks/BOLT?force=true');
    expect(forced.status, forced.text).toBe(200);
    expect(forced.json.result).toMatchObject({ references: 1, erased: expect.any(Number) });
  });

  it('POST /file-identity', async () => {
    const r = await c.post('/api/v1/file-identity', {});
    expect(r.status).toBe(200);
    expect(r.json.result.identity).toHaveLength(36);
  });

  it('POST /plot, /wblock (200) and /images (201) answer with the envelope', async () => {
    for (const [p, ok] of [['/api/v1/plot', 200], ['/api/v1/wblock', 200], ['/api/v1/images', 201]] as const) {
      const r = await c.post(p, { path: join(dir, 'out.pdf'), insert: [0, 0] });
      expect([ok, 400], `${p}: ${r.text}`).toContain(r.status);
      expect(r.json.http_status).toBe(r.status);
      expect(r.json).not.toHaveProperty('state');
    }
  });

  it('POST /commands, /undo, /redo, /save', async () => {
    const before = (await c.get('/api/v1/entities?type=Line')).json.count;
    const cmd = await c.post('/api/v1/commands', { cmd: 'LINE 0,0 10,10' });
    expect(cmd.status, cmd.text).toBe(200);
    expect((await c.get('/api/v1/entities?type=Line')).json.count).toBe(before + 1);
    expect((await c.post('/api/v1/undo')).status).toBe(200);
    expect((await c.get('/api/v1/entities?type=Line')).json.count).toBe(before);
    expect((await c.post('/api/v1/redo')).status).toBe(200);
    expect((await c.get('/api/v1/entities?type=Line')).json.count).toBe(before + 1);
    const bad = await c.post('/api/v1/commands', { cmd: 'LINE 0,0 nonsense' });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('invalid_point');
    const path = join(dir, 'second.dxf');
    expect((await c.post('/api/v1/save', { path })).status).toBe(200);
    expect(existsSync(path)).toBe(true);
  });

  it('GET /layers, /header, /records', async () => {
    const l = await c.get('/api/v1/layers');
    expect(l.status).toBe(200);
    expect(l.json.result.layers.some((x: any) => x.name === '0')).toBe(true);
    const h = await c.get('/api/v1/header');
    expect(h.status).toBe(200);
    expect(h.json.result.header).toHaveProperty('$ACADVER');
    const r = await c.get('/api/v1/records?collection=layers&limit=5');
    expect(r.status, r.text).toBe(200);
  });

  it('GET /openapi: OpenAPI 3.0.3 with every catalogue route', async () => {
    const r = await c.get('/api/v1/openapi');
    expect(r.status).toBe(200);
    const { http_status: _h, ...doc } = r.json;
    expect(doc.openapi).toBe('3.0.3');
    expect(checkOpenApi(doc)).toEqual([]);
    const caps = (await c.get('/api/v1/capabilities')).json.result.ops as Array<{ name: string; http: Array<{ method: string; path: string }> }>;
    let routes = 0;
    for (const op of caps) {
      for (const route of op.http) {
        const p = route.path.replace(/^\/api\/v1/, '') || '/';
        expect(doc.paths[p]?.[route.method.toLowerCase()], `${route.method} ${p}`).toBeDefined();
        routes++;
      }
      // One path per operation: an op without a resource route has its own POST /<op>; the others
      // are named in the generic POST /{op}.
      if (op.http.length === 0) expect(doc.paths[`/${op.name}`]?.post, op.name).toBeDefined();
      else expect(doc.paths['/{op}'].post.parameters[0].schema.enum, op.name).toContain(op.name);
    }
    expect(routes).toBeGreaterThan(30);
    // Typed: query parameters with their types, answers with the op's result schema.
    const params = Object.fromEntries(doc.paths['/entities'].get.parameters.map((p: any) => [p.name, p]));
    expect(params.limit.schema.type).toBe('integer');
    expect(params.fields).toMatchObject({ schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: false });
    const listed = doc.paths['/entities'].get.responses['200'].content['application/json'].schema;
    expect(listed.properties.entities.items.required).toEqual(expect.arrayContaining(['handle', 'type']));
    const created = doc.paths['/entities'].post.responses['201'].content['application/json'].schema;
    expect(created.properties.result.$ref).toBe('#/components/schemas/entities_create_result');
    expect(doc.components.schemas.entities_create_result.required).toEqual(['handles', 'count']);
    const list = doc.paths['/entities'].get.parameters.map((p: any) => p.name);
    expect(list).toEqual(expect.arrayContaining(['type', 'layer', 'detail', 'offset', 'limit', 'fields', 'handles', 'bounds', 'near', 'contains_point', 'intersections', 'where']));
    expect(doc.paths['/entities'].post.requestBody.content['application/json'].schema.properties).toHaveProperty('entities');
    expect(doc.paths['/entities/{handle}/xdata/{app}'].put.requestBody.content['application/json'].schema.type).toBe('array');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('POST /{op}: wrapper ops through the wrapper, others with rest-<serial>', async () => {
    const vf = await c.post('/api/v1/view_focus', {});
    expect(vf.status, vf.text).toBe(200);
    expect(vf.json.request_id).toMatch(/^http-\d+-\d+$/);
    expect(vf.json).not.toHaveProperty('state');
    const created = await c.post('/api/v1/entities_create', { entities: [{ type: 'Point', location: [7, 7] }] });
    expect(created.statusLine).toBe('HTTP/1.1 200 OK');
    const us = await c.post('/api/v1/user_select', {});
    expect(us.statusLine).toBe('HTTP/1.1 409 Conflict');
    expect(us.json).toMatchObject({ ok: false, code: 'gui_required', http_status: 409 });
    const gp = await c.post('/api/v1/getpoint', {});
    expect(gp.status).toBe(409);
    expect(gp.json.request_id).toMatch(/^http-\d+-\d+$/);
    const op1 = await c.post('/api/v1/operation', {});
    expect(op1.json).toMatchObject({ ok: false, code: 'unknown_operation', http_status: 400 });
    expect(op1.json.request_id).toMatch(/^rest-\d+$/);
    const op2 = await c.post('/api/v1/operation', { request_id: '' });
    expect(Number(op2.json.request_id.slice(5))).toBe(Number(op1.json.request_id.slice(5)) + 1);
    const mine = await c.post('/api/v1/operation', { id: created.json.request_id, request_id: 'caller-id' });
    expect(mine.status).toBe(200);
    expect(mine.json.request_id).toBe('caller-id');
    expect(mine.json.result).toMatchObject({ op: 'entities_create', status: 'completed' });
    expect((await c.post('/api/v1/no_such_op', {})).json.code).toBe('unknown_route');
  });
});

describe('rules and errors', () => {
  it('retries a wrapper request once after a state refresh (document closed through TCP)', async () => {
    // The same session over TCP changes the active document behind the HTTP server's cache.
    const p = await startHttpProcess(['--tcp', '0'], { SERVICE_API_TOKEN: 'shared-token' });
    try {
      const port = Number((await p.proc.waitStderr(/^tcp:\/\/127\.0\.0\.1:(\d+)$/m))[1]);
      const h = client(p.port, 'shared-token');
      const first = await h.post('/api/v1/entities_create', { entities: [{ type: 'Point', location: [0, 0] }] });
      expect(first.json.document_id).toBe(1);
      const t = await LineClient.connect(port);
      t.send({ protocol: 1, op: 'document_new', token: 'shared-token' });
      const created = await t.next();
      t.send({ protocol: 1, op: 'document_close', document_id: 1, discard: true, token: 'shared-token' });
      expect((await t.next()).ok).toBe(true);
      t.close();
      const again = await h.post('/api/v1/entities_create', { entities: [{ type: 'Point', location: [1, 1] }] });
      expect(again.status, again.text).toBe(200);
      expect(again.json.document_id).toBe(created.document_id);
      const ops = await h.post('/api/v1/operation', { id: again.json.request_id });
      expect(ops.json.result.status).toBe('completed');
    } finally {
      await p.proc.stop();
    }
  });

  it('a body document_id overrides the cached one (and a closed one fails after one retry)', async () => {
    const r = await c.post('/api/v1/entities_create', { entities: [{ type: 'Point', location: [0, 0] }], document_id: 4242 });
    expect(r.status).toBe(400);
    expect(['unknown_document', 'document_closed']).toContain(r.json.code);
  });

  it('maps stale_state and session_changed to 409, entity_absent to 404', async () => {
    const stale = await c.post('/api/v1/entities', { entities: [{ type: 'Point', location: [0, 0] }], expected_version: 123456 });
    expect(stale.statusLine).toBe('HTTP/1.1 409 Conflict');
    expect(stale.json).toMatchObject({ ok: false, code: 'stale_state', http_status: 409 });
    const session = await c.post('/api/v1/entities_transform', { handles: ['1'], action: 'move', vector: [1, 1], session_id: 'another' });
    expect(session.status).toBe(409);
    expect(session.json.code).toBe('session_changed');
    const absent = await c.get('/api/v1/entities/DEAD');
    expect(absent.statusLine).toBe('HTTP/1.1 404 Not Found');
    expect(absent.json.code).toBe('entity_absent');
  });

  it('401 without, with a malformed or with a wrong token — for every route, OpenAPI included', async () => {
    for (const path of ['/api/v1/ready', '/api/v1/openapi', '/api/v1/entities']) {
      for (const headers of [{}, { Authorization: `bearer ${s.token}` }, { Authorization: `Bearer ${s.token.slice(1)}` }, { authorization: 'Bearer x' }] as Record<string, string>[]) {
        const r = await request(s.port, 'GET', path, { token: null, headers });
        expect(r.statusLine).toBe('HTTP/1.1 401 Unauthorized');
        expect(r.json).toEqual({ ok: false, code: 'unauthorized', error: expect.stringMatching(/Authorization/), http_status: 401 });
        expect(r.json.error).toMatch(/generated at startup/);
      }
    }
    expect((await request(s.port, 'GET', '/api/v1/ready', { token: null, headers: { AUTHORIZATION: `Bearer ${s.token}` } })).status).toBe(200);
  });

  it('404 unknown_route, 405 method_not_allowed, trailing slash, no CORS headers', async () => {
    expect((await c.get('/api/v1/nothing')).json).toMatchObject({ code: 'unknown_route', http_status: 404 });
    expect((await c.get('/index.html')).statusLine).toBe('HTTP/1.1 404 Not Found');
    expect((await c.put('/api/v1/state', {})).status).toBe(404);
    for (const m of ['OPTIONS', 'HEAD', 'PATCH']) {
      const r = await c.req(m, '/api/v1/ready', { headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'GET' } });
      expect(r.statusLine).toBe('HTTP/1.1 405 Method Not Allowed');
      expect(Object.keys(r.headers).filter((h) => h.startsWith('access-control'))).toEqual([]);
    }
    const slash = await c.get('/api/v1/layers/');
    expect(slash.status).toBe(200);
    const withOrigin = await c.get('/api/v1/ready', { headers: { Origin: 'http://evil.example' } });
    expect(Object.keys(withOrigin.headers).filter((h) => h.startsWith('access-control'))).toEqual([]);
  });

  it('decodes percent-escapes and + in query values', async () => {
    const [h] = await create([{ type: 'Text', value: 'a b', position: [0, 0], height: 1 }]);
    const r = await c.get(`/api/v1/entities?handles=${h}&fields=handle%2Ctype&type=T%65xt`);
    expect(r.json.count).toBe(1);
    const plus = await c.get(`/api/v1/entities?where=${encodeURIComponent(JSON.stringify([{ path: '/value', op: 'eq', value: 'a b' }])).replace(/%20/g, '+')}`);
    expect(plus.status, plus.text).toBe(200);
    expect(plus.json.entities.map((e: any) => e.handle)).toContain(h);
  });
});

describe('limits (raw sockets)', () => {
  const auth = () => `Authorization: Bearer ${s.token}\r\n`;

  it('431 for a request line over 8 KiB, a header line over 8 KiB, a header block over 64 KiB', async () => {
    const longLine = await rawHttp(s.port, `GET /api/v1/ready?${'q'.repeat(8200)} HTTP/1.1\r\n${auth()}\r\n`);
    const longHeader = await rawHttp(s.port, `GET /api/v1/ready HTTP/1.1\r\n${auth()}X-Big: ${'h'.repeat(8190)}\r\n\r\n`);
    const block = Array.from({ length: 80 }, (_, i) => `X-N${i}: ${'b'.repeat(900)}\r\n`).join('');
    const bigBlock = await rawHttp(s.port, `GET /api/v1/ready HTTP/1.1\r\n${auth()}${block}\r\n`);
    for (const r of [longLine, longHeader, bigBlock]) {
      expect(r.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
      expect(r.json).toMatchObject({ ok: false, code: 'header_too_large', http_status: 431 });
      expect(r.json.error).toMatch(/exceeds the size limit/);
      expect(r.headers.connection).toBe('close');
      expect(r.closed).toBe(true);
    }
    const noToken = await rawHttp(s.port, `GET /api/v1/ready HTTP/1.1\r\nX-Big: ${'h'.repeat(9000)}\r\n\r\n`);
    expect(noToken.status).toBe(431);
  });

  it('a body declared above 16 MiB counts as {}', async () => {
    const r = await rawHttp(s.port, [`POST /api/v1/layouts HTTP/1.1\r\n${auth()}Content-Length: 20000000\r\n\r\n`, '{"name":"Never"}']);
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('invalid_request');
    expect((await c.get('/api/v1/sysvars')).status).toBe(200);
  });

  it('an unparseable Content-Length counts as 0', async () => {
    const body = '{"name":"L2"}';
    const r = await rawHttp(s.port, `POST /api/v1/layouts HTTP/1.1\r\n${auth()}Content-Length: twelve\r\n\r\n${body}`);
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('invalid_request');
    const ok = await rawHttp(s.port, `POST /api/v1/layouts HTTP/1.1\r\n${auth()}CONTENT-LENGTH: ${body.length}\r\n\r\n${body}`);
    expect(ok.status, ok.text).toBe(201);
  });

  it('eight simultaneous connections; the ninth is dropped without a response until one finishes', async () => {
    const held = await Promise.all(Array.from({ length: 8 }, async () => {
      const sock = connect(s.port, '127.0.0.1');
      sock.on('error', () => undefined);
      await once(sock, 'connect');
      sock.write('GET /api/v1/ready HTTP/1.1\r\n');
      return sock;
    }));
    await sleep(100);
    const ninth = await rawHttp(s.port, `GET /api/v1/ready HTTP/1.1\r\n${auth()}\r\n`, { timeout: 3000 });
    expect(ninth.raw.length).toBe(0);
    expect(ninth.closed).toBe(true);
    // finish one held request: its answer frees a slot
    const answered = new Promise<string>((resolve) => {
      let got = '';
      held[0]!.on('data', (b: Buffer) => (got += b.toString()));
      held[0]!.on('close', () => resolve(got));
    });
    held[0]!.write(`${auth()}\r\n`);
    expect(await answered).toMatch(/^HTTP\/1\.1 200 OK/);
    await sleep(50);
    const tenth = await rawHttp(s.port, `GET /api/v1/ready HTTP/1.1\r\n${auth()}\r\n`);
    expect(tenth.status).toBe(200);
    for (const sock of held) sock.destroy();
    await sleep(100);
  });

  it('gives up a connection idle for the limit (LINEWORK_IDLE_MS here) without a response', async () => {
    const t0 = Date.now();
    const r = await rawHttp(s.port, `GET /api/v1/ready HTTP/1.1\r\n${auth()}`, { timeout: IDLE_MS * 5 });
    expect(r.closed).toBe(true);
    expect(r.raw.length).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(IDLE_MS - 100);
  });

  it('one request per connection with Connection: close', async () => {
    const one = `GET /api/v1/ready HTTP/1.1\r\n${auth()}\r\n`;
    const r = await rawHttp(s.port, one + one);
    expect(r.headers.connection).toBe('close');
    expect(r.raw.toString().split('HTTP/1.1 ').length - 1).toBe(1);
    expect(r.closed).toBe(true);
  });

  it('serves other connections while a client stalls', async () => {
    const stalled = connect(s.port, '127.0.0.1');
    stalled.on('error', () => undefined);
    stalled.write('POST /api/v1/entities HTTP/1.1\r\nContent-Length: 100\r\n\r\n{"ent');
    const t0 = Date.now();
    expect((await c.get('/api/v1/ready')).status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(IDLE_MS);
    stalled.destroy();
  });
});

describe('graphical mode (files on the command line)', () => {
  it('opens the files in the session, serves the same routes and prints the editor address', async () => {
    const path = join(dir, 'saved.dxf');
    const p = await startHttpProcess([path]);
    try {
      const editor = (await p.proc.waitStderr(/^editor: http:\/\/127\.0\.0\.1:(\d+)\/#token=([0-9a-f]{64})$/m));
      expect(editor[2]).toBe(p.token);
      expect(Number(editor[1])).not.toBe(p.port);
      const st = await request(p.port, 'GET', '/api/v1/state', { token: p.token });
      expect(st.status).toBe(200);
      const ready = await request(p.port, 'GET', '/api/v1/ready', { token: p.token });
      expect(ready.json.document_id).toBe(st.json.document_id);
      expect(JSON.stringify(st.json)).toContain('saved.dxf');
    } finally {
      await p.proc.stop();
    }
  });

  it('exits non-zero on a bad command line', async () => {
    const p = spawnCli(['--http']);
    const { code } = await p.exited;
    expect(code).toBe(2);
    expect(p.stderr()).toMatch(/port/);
  });
});
