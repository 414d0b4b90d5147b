// The OpenAPI documents of both services as their users consume them: a client generated with
// openapi-typescript + openapi-fetch, a strict TypeScript program that compiles against it, run
// against the real process. A wrongly typed call must not compile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startHttpProcess, type HttpServerProcess } from './helpers.js';
import { generateClient, type GeneratedClient } from './generated-client.js';
import { startKeysService, type KeysService } from './keys-service.js';
import { scratchDir } from '../../dxf/test/helpers.js';

describe('a generated client of the drawing server', () => {
  let s: HttpServerProcess;
  let gen: GeneratedClient;
  beforeAll(async () => {
    s = await startHttpProcess();
    gen = await generateClient((await client(s.port, s.token).get('/api/v1/openapi.json')).json);
  }, 60_000);
  afterAll(async () => {
    gen?.remove();
    await s?.proc.stop();
  });

  const HEAD = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';
const [baseUrl, token] = process.argv.slice(2) as [string, string];
const api = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token}\` } });
`;

  it('compiles a typed program (create a Line, list with limit 5, read handles) and runs it against the server', async () => {
    const errors = gen.compile(`${HEAD}
const created = await api.POST('/entities', { body: { entities: [{ type: 'Line', start: [0, 0], end: [10, 0] }], create_layers: true } });
if (!created.data) throw new Error(JSON.stringify(created.error));
const newHandle: string | undefined = created.data.result.handles[0];
const list = await api.GET('/entities', { params: { query: { limit: 5, detail: 'geometry' } } });
if (!list.data) throw new Error(JSON.stringify(list.error));
const first: string | undefined = list.data.entities[0]?.handle;
const total: number = list.data.result.total;
const undo = await api.POST('/undo', { body: { steps: 1 } });
const undone: number | undefined = undo.data?.result.undone;
const sel = await api.POST('/get_selection', { body: {} });
const selected: number | undefined = sel.data?.result.count;
console.log(JSON.stringify({ newHandle, first, total, count: list.data.entities.length, undone, selected }));
`);
    expect(errors).toEqual([]);
    const out = await gen.run([s.url, s.token]);
    expect(out.newHandle).toMatch(/^[0-9A-F]+$/);
    expect(out.first).toBe(out.newHandle);
    expect(out).toMatchObject({ total: 1, count: 1, undone: 1, selected: 0 });
  }, 60_000);

  it('does not compile a limit given as a string, an unknown answer field, or a body field of the wrong type', () => {
    const errors = gen.compile(`${HEAD}
const list = await api.GET('/entities', { params: { query: { limit: 'five' } } });
const wrong: number = list.data!.entities[0]!.handle;
const created = await api.POST('/entities', { body: { entities: 'Line' } });
void wrong; void created;
`);
    // The program's lines after HEAD: 1 the limit, 2 the handle read as a number, 3 the entities.
    const line = (n: number): RegExp => new RegExp(`^main\\.ts:${HEAD.split('\n').length + n} TS2322`);
    for (const n of [1, 2, 3]) expect(errors.some((e) => line(n).test(e)), errors.join('\n')).toBe(true);
  }, 60_000);
});

describe('a generated client of the key service', () => {
  const store = scratchDir('lw-keys-client-');
  let keys: KeysService;
  let gen: GeneratedClient;
  beforeAll(async () => {
    keys = await startKeysService(store);
    gen = await generateClient(await (await fetch(`${keys.url}/openapi.json`)).json());
  }, 60_000);
  afterAll(async () => {
    gen?.remove();
    await keys?.stop();
  });

  it('creates, verifies and lists keys through typed calls, and reads a failure in the one error shape', async () => {
    const errors = gen.compile(`
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';
const [baseUrl, jwt] = process.argv.slice(2) as [string, string];
const api = createClient<paths>({ baseUrl });
const auth = { headers: { authorization: \`Bearer \${jwt}\` } };
const created = await api.POST('/api-keys', { body: { name: 'ci', permissions: ['drawings:read'] }, ...auth });
if (!created.data) throw new Error(JSON.stringify(created.error));
const rawKey: string = created.data.data.rawKey;
const verified = await api.POST('/api-keys/verify', { body: { key: rawKey, permissions: ['drawings:read'] } });
if (!verified.data) throw new Error(JSON.stringify(verified.error));
const result = verified.data.data;
const owner: string | null = result.valid ? result.organizationId : null;
const listed = await api.GET('/api-keys', auth);
const names: string[] = (listed.data?.data ?? []).map((k) => k.name);
const refused = await api.POST('/api-keys', { body: { name: '' , permissions: [] }, ...auth });
const failure = refused.error ? { error: refused.error.error, code: refused.error.code, issues: refused.error.details?.issues?.length ?? 0 } : null;
console.log(JSON.stringify({ prefix: rawKey.slice(0, 4), valid: result.valid, owner, names, failure }));
`);
    expect(errors).toEqual([]);
    const out = await gen.run([keys.url, keys.token('u1', 'org1')]);
    expect(out).toEqual({
      prefix: 'lwk_', valid: true, owner: 'org1', names: ['ci'],
      failure: { error: 'Invalid request: field `name`: Too small: expected string to have >=1 characters', code: 'invalid_request', issues: 1 },
    });
  }, 60_000);
});
