// The key service's OpenAPI document as OpenAPI tooling reads it (the real process): it validates and
// lints clean, names its server, keeps no unused components, and lists exactly the routes the
// service answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiProblems } from '../../../scripts/openapi-tools.js';
import { sqliteBackend, type Backend } from './helpers/backends.js';
import { startService, TEST_SECRET, type ServiceProcess } from './helpers/service.js';
import { token } from './helpers/tokens.js';

let backend: Backend;
let service: ServiceProcess;

beforeAll(async () => {
  backend = sqliteBackend();
  service = await startService({ args: backend.args, env: { AUTH_JWT_SECRET: TEST_SECRET } });
});
afterAll(async () => {
  await service?.stop();
  await backend?.cleanup();
});

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

describe('OpenAPI document of the key service', () => {
  it('GET /openapi.json: valid (@readme/openapi-parser), clean under Redocly recommended, with servers', async () => {
    const res = await fetch(`${service.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, any>;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    // Components are what the paths use: the security scheme and the API-Version header.
    expect(Object.keys(doc.components).sort()).toEqual(['headers', 'securitySchemes']);
    expect(await openApiProblems(doc)).toEqual([]);
  }, 60_000);

  it('documents every route the service answers, and every documented route answers', async () => {
    const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) for (const m of Object.keys(item)) documented.add(`${m.toUpperCase()} ${path}`);
    const paths = new Set([...Object.keys(doc.paths), '/', '/api-keys/{id}/revoke', '/audit-logs/{id}', '/openapi', '/docs', '/metrics']);
    const jwt = await token({ role: 'OWNER' });
    // A concrete path is documented when a documented template of its method matches it
    // (GET /api-keys/verify is GET /api-keys/{id} with id "verify").
    const templates = [...documented].map((k) => {
      const [method, path] = k.split(' ') as [string, string];
      return { key: k, method, re: new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`) };
    });
    const covers = (method: string, path: string) => templates.filter((t) => t.method === method && t.re.test(path));
    const answered: Array<[string, string]> = [];
    for (const path of paths) {
      const concrete = path.replace(/\{[^}]+\}/g, 'x');
      for (const method of METHODS) {
        const res = await fetch(service.url + concrete, {
          method,
          headers: { authorization: `Bearer ${jwt}`, ...(method === 'POST' || method === 'PATCH' ? { 'content-type': 'application/json' } : {}) },
          ...(method === 'POST' || method === 'PATCH' ? { body: '{}' } : {}),
        });
        const text = await res.text();
        const notFound = res.status === 404 && (method === 'HEAD' || /"Route not found: /.test(text));
        if (!notFound) answered.push([method, concrete]);
      }
    }
    expect(answered.filter(([m, p]) => covers(m, p).length === 0), 'answered but not documented').toEqual([]);
    const reached = new Set(answered.flatMap(([m, p]) => covers(m, p).map((t) => t.key)));
    expect([...documented].filter((k) => !reached.has(k)), 'documented but not answered').toEqual([]);
    expect(documented.size).toBe(11);
  }, 60_000);
});
