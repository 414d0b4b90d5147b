// The drawing server's OpenAPI document as OpenAPI tooling reads it (the real process): GET
// /api/v1/openapi.json validates and lints clean, /openapi is the same document under the envelope
// rule, and the document lists exactly the routes the server answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiProblems } from '../../../scripts/openapi-tools.js';
import { client, startHttpProcess, type HttpServerProcess } from './helpers.js';

let s: HttpServerProcess;
let c: ReturnType<typeof client>;

beforeAll(async () => {
  s = await startHttpProcess();
  c = client(s.port, s.token);
});
afterAll(async () => {
  await s?.proc.stop();
});

const METHODS = ['get', 'post', 'put', 'delete'] as const;

describe('OpenAPI document of the drawing server', () => {
  it('GET /api/v1/openapi.json is the bare document: valid (@readme/openapi-parser) and clean under Redocly recommended', async () => {
    const r = await c.get('/api/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    const doc = r.json;
    expect(doc).not.toHaveProperty('http_status');
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.servers).toEqual([{ url: s.url }]);
    expect(await openApiProblems(doc)).toEqual([]);
  }, 60_000);

  it('GET /api/v1/openapi keeps the envelope rule: the same document plus http_status', async () => {
    const bare = (await c.get('/api/v1/openapi.json')).json;
    const enveloped = await c.get('/api/v1/openapi');
    expect(enveloped.status).toBe(200);
    const { http_status, ...rest } = enveloped.json;
    expect(http_status).toBe(200);
    expect(rest).toEqual(bare);
    // Both need the token, like every route.
    expect((await c.get('/api/v1/openapi.json', { token: null })).status).toBe(401);
  });

  it('documents every route the server answers, and every documented route answers', async () => {
    const doc = (await c.get('/api/v1/openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) for (const m of Object.keys(item)) documented.add(`${m.toUpperCase()} ${path}`);
    // Candidate paths: the documented ones, every route and op the catalogue declares (what the
    // router is built from), and a few that must not answer.
    const caps = (await c.get('/api/v1/capabilities')).json.result.ops as Array<{ name: string; http: Array<{ path: string }> }>;
    const paths = new Set<string>(Object.keys(doc.paths));
    for (const op of caps) {
      paths.add(`/${op.name}`);
      for (const r of op.http) paths.add(r.path.replace(/^\/api\/v1/, '') || '/');
    }
    for (const p of ['/openapi', '/openapi.json', '/openapi.yaml', '/docs', '/entities/{handle}/nothing']) paths.add(p);
    // Mutations run for real; the last candidates close the session's drawing, so run them last.
    const ordered = [...paths].sort((a, b) => Number(/document_close|documents/.test(a)) - Number(/document_close|documents/.test(b)));
    // A concrete path is documented when a documented template of its method matches it
    // (GET /entities/transform is GET /entities/{handle} with handle "transform").
    const templates = [...documented].map((k) => {
      const [method, path] = k.split(' ') as [string, string];
      return { key: k, method, re: new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`) };
    });
    const answered: string[] = [];
    for (const path of ordered) {
      const concrete = path.replace(/\{[^}]+\}/g, 'x');
      for (const m of METHODS) {
        const r = await c.req(m.toUpperCase(), `/api/v1${concrete === '/' ? '' : concrete}`, m === 'get' || m === 'delete' ? {} : { body: {} });
        const routed = !(r.status === 404 && r.json?.code === 'unknown_route') && r.status !== 405;
        if (routed) answered.push(`${m.toUpperCase()} ${concrete}`);
      }
    }
    const covers = (k: string) => templates.filter((t) => k.startsWith(t.method + ' ') && t.re.test(k.slice(t.method.length + 1)));
    expect(answered.filter((k) => covers(k).length === 0), 'answered but not documented').toEqual([]);
    const reached = new Set(answered.flatMap((k) => covers(k).map((t) => t.key)));
    expect([...documented].filter((k) => !reached.has(k)), 'documented but not answered').toEqual([]);
    // One path per operation: each op is documented once (its resource route, or POST /<op>), and
    // POST /{op} says once that any op runs by name.
    const ops = Object.values(doc.paths).flatMap((item) => Object.values(item).map((o) => (o as { 'x-linework-op'?: string })['x-linework-op']));
    const named = ops.filter((o): o is string => typeof o === 'string');
    const byOp = new Map<string, number>();
    for (const o of named) byOp.set(o, (byOp.get(o) ?? 0) + 1);
    for (const op of caps) expect(byOp.get(op.name) ?? 0, op.name).toBe(Math.max(1, op.http.length));
    expect(documented.size).toBeGreaterThan(55);
  }, 120_000);
});
