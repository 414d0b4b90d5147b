/**
 * meta, GET /api-keys/{id} and rolling a key (issue 16), with their audit records and their
 * OpenAPI description, over HTTP against the real process, on SQLite and (with TEST_POSTGRES_URL)
 * PostgreSQL.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetApiKeyResponse, ListApiKeysResponse, RollApiKeyResponse, UpdateApiKeyResponse, VerifyApiKeyResponse } from '../src/schemas.js';
import { postgresBackend, sqliteBackend, type Backend } from './helpers/backends.js';
import { Client, type Reply } from './helpers/http.js';
import { startService, TEST_SECRET, type ServiceProcess } from './helpers/service.js';
import { token } from './helpers/tokens.js';
import { expectFailureBody, type Flattened } from './helpers/failures.js';

const DAY = 86_400_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function expectError(res: Reply, status: number, error: Parameters<typeof expectFailureBody>[2]) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expectFailureBody(res.body, status, error);
}

function suite(backend: Backend) {
  let service: ServiceProcess;
  let api: Client;

  beforeAll(async () => {
    service = await startService({ args: backend.args, env: { AUTH_JWT_SECRET: TEST_SECRET, ...backend.env } });
    api = new Client(service.url);
  });
  afterAll(async () => {
    await service?.stop();
    await backend.cleanup();
  });

  const owner = async () => {
    const sub = `u-${randomBytes(4).toString('hex')}`;
    const org = `o-${randomBytes(4).toString('hex')}`;
    return { sub, org, jwt: await token({ sub, org }), admin: await token({ sub: 'admin', org, role: 'ADMIN' }) };
  };
  const create = async (jwt: string, body: Record<string, unknown> = {}) => {
    const res = await api.post('/api-keys', { name: 'featured', ...body }, jwt);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data as Record<string, any>;
  };
  const verify = async (key: string) => (await api.post('/api-keys/verify', { key })).body.data as Record<string, any>;
  const audit = async (admin: string) => (await api.get('/audit-logs', admin)).body.data as Array<Record<string, any>>;

  describe('meta', () => {
    // Key order, nesting, unicode and numbers as sent.
    const meta = { plan: 'pro', zeta: { b: [1, 2.5, 'x', null, true], a: { deep: 'ü😀' } }, alpha: -3e-7, list: [] };

    it('is stored as sent and returned by create, list, get, update and valid verifications', async () => {
      const { jwt } = await owner();
      const k = await create(jwt, { meta });
      const same = (value: unknown) => expect(JSON.stringify(value)).toBe(JSON.stringify(meta));
      same(k.meta);
      same((await api.get('/api-keys', jwt)).body.data[0].meta);
      const got = await api.get(`/api-keys/${k.id}`, jwt);
      expect(() => GetApiKeyResponse.parse(got.body)).not.toThrow();
      same(got.body.data.meta);
      const answer = await api.post('/api-keys/verify', { key: k.rawKey });
      expect(() => VerifyApiKeyResponse.parse(answer.body)).not.toThrow();
      same(answer.body.data.meta);
      const [row] = await backend.query('SELECT meta FROM api_keys WHERE id = ?', [k.id]);
      expect(row!.meta).toBe(JSON.stringify(meta));
      // Refusals carry no meta.
      expect(await verify(`lwk_${randomBytes(24).toString('hex')}`)).toEqual({ valid: false, code: 'NOT_FOUND' });
      await api.delete(`/api-keys/${k.id}`, jwt);
      expect(await verify(k.rawKey)).toEqual({ valid: false, code: 'REVOKED' });
    });

    it('is kept by an update without it, replaced by one with it, and removed by null', async () => {
      const { jwt } = await owner();
      const k = await create(jwt, { meta });
      const patch = (body: Record<string, unknown>) => api.patch(`/api-keys/${k.id}`, { name: 'featured', permissions: [], ...body }, jwt);
      expect((await patch({})).body.data.meta).toEqual(meta);
      const replaced = await patch({ meta: { tier: 2 } });
      expect(() => UpdateApiKeyResponse.parse(replaced.body)).not.toThrow();
      expect(replaced.body.data.meta).toEqual({ tier: 2 });
      expect((await verify(k.rawKey)).meta).toEqual({ tier: 2 });
      const removed = await patch({ meta: null });
      expect(removed.body.data).not.toHaveProperty('meta');
      expect(await verify(k.rawKey)).not.toHaveProperty('meta');
    });

    it('refuses with 400 what is not a JSON object, over 4096 bytes, or not storable as sent', async () => {
      const { jwt } = await owner();
      const fits = { pad: 'x'.repeat(4096 - JSON.stringify({ pad: '' }).length) };
      expect(JSON.stringify(fits)).toHaveLength(4096);
      expect((await create(jwt, { meta: fits })).meta).toEqual(fits);
      const multibyte = { pad: 'é'.repeat(2050) };
      expect(Buffer.byteLength(JSON.stringify(multibyte))).toBeGreaterThan(4096);
      const k = await create(jwt);
      const cases: Array<[unknown, string]> = [
        [[1, 2], 'Invalid input: expected record, received array'],
        ['text', 'Invalid input: expected record, received string'],
        [{ pad: `${fits.pad}x` }, 'Too big: at most 4096 bytes as JSON'],
        [multibyte, 'Too big: at most 4096 bytes as JSON'],
        [{ a: 'nul\u0000' }, 'Strings and keys must not contain U+0000 (NUL) or an unpaired surrogate'],
        [{ 'key\u0000': 1 }, 'Strings and keys must not contain U+0000 (NUL) or an unpaired surrogate'],
        [{ a: [{ b: 'lone \ud800' }] }, 'Strings and keys must not contain U+0000 (NUL) or an unpaired surrogate'],
      ];
      for (const [value, message] of cases) {
        const error = { formErrors: [], fieldErrors: { meta: [message] } };
        expectError(await api.post('/api-keys', { name: 'bad', meta: value }, jwt), 400, error);
        expectError(await api.patch(`/api-keys/${k.id}`, { name: 'bad', permissions: [], meta: value }, jwt), 400, error);
      }
      // 1e400 parses as Infinity, which would be stored as null.
      const infinite = await api.request('POST', '/api-keys', { token: jwt, raw: '{"name":"bad","meta":{"n":1e400}}' });
      expectError(infinite, 400, { formErrors: [], fieldErrors: { meta: ['Numbers must be finite'] } });
      expect(((await api.get('/api-keys', jwt)).body.data as any[]).filter((x) => x.name === 'bad')).toEqual([]);
    });
  });

  describe('GET /api-keys/{id}', () => {
    it("answers the caller's key, revoked or not, as its whole record; 404 for anyone else's or an unknown id", async () => {
      const alice = await owner();
      const bob = await owner();
      const { rawKey: _raw, ...k } = await create(alice.jwt, { permissions: ['drawings:*'], expiresIn: '30d' });
      await verify(_raw);
      const got = await api.get(`/api-keys/${k.id}`, alice.jwt);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ success: true, data: { ...k, requestCount: 1, lastUsed: expect.any(String) } });
      await api.delete(`/api-keys/${k.id}`, alice.jwt);
      expect((await api.get(`/api-keys/${k.id}`, alice.jwt)).body.data.isActive).toBe(false);
      expectError(await api.get(`/api-keys/${k.id}`, bob.jwt), 404, 'API key not found');
      expectError(await api.get(`/api-keys/${randomUUID()}`, alice.jwt), 404, 'API key not found');
      expectError(await api.get('/api-keys/nope', alice.jwt), 404, 'API key not found');
      expect((await api.get(`/api-keys/${k.id}`)).status).toBe(401);
      expect((await api.get(`/api-keys/${k.id}`, await token({ sub: alice.sub, org: alice.org, role: 'VIEWER' }))).status).toBe(403);
    });
  });

  describe('POST /api-keys/{id}/roll', () => {
    it('issues a new secret with the same settings, keeps the old key valid through the overlap, and links the two', async () => {
      const { jwt, admin } = await owner();
      const old = await create(jwt, {
        name: 'rolled',
        permissions: ['plots:create'],
        expiresIn: '90d',
        meta: { env: 'ci' },
        ratelimit: { limit: 50, durationMs: 60_000 },
        remaining: 10,
        refill: { interval: 'monthly', amount: 10 },
      });
      await verify(old.rawKey);
      await verify(old.rawKey);
      const before = Date.now();
      const res = await api.post(`/api-keys/${old.id}/roll`, { overlapSeconds: 3600 }, jwt);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(() => RollApiKeyResponse.parse(res.body)).not.toThrow();
      const { data: fresh, previous } = res.body;
      expect(res.body.message).toMatch(/not be shown again/);
      expect(fresh.rawKey).toMatch(/^lwk_[0-9a-f]{48}$/);
      expect(fresh.rawKey).not.toBe(old.rawKey);
      expect(fresh.id).not.toBe(old.id);
      expect(fresh).toMatchObject({
        name: 'rolled',
        permissions: ['plots:create'],
        expiresAt: old.expiresAt,
        meta: { env: 'ci' },
        ratelimit: { limit: 50, durationMs: 60_000 },
        // What was left of the usage limit, not what it started at.
        remaining: 8,
        refill: { interval: 'monthly', amount: 10 },
        rolledFrom: old.id,
        requestCount: 0,
        lastUsed: null,
        isActive: true,
      });
      expect(fresh).not.toHaveProperty('replacedBy');
      expect(previous).toMatchObject({ id: old.id, replacedBy: fresh.id, isActive: true, requestCount: 2, remaining: 8 });
      const overlapEnd = Date.parse(previous.expiresAt);
      expect(overlapEnd).toBeGreaterThanOrEqual(before + 3600_000 - 5);
      expect(overlapEnd).toBeLessThanOrEqual(Date.now() + 3600_000 + 5);

      // Both keys are valid during the overlap; each has its own counts.
      expect(await verify(old.rawKey)).toMatchObject({ valid: true, id: old.id, remaining: 7 });
      expect(await verify(fresh.rawKey)).toMatchObject({ valid: true, id: fresh.id, remaining: 7, meta: { env: 'ci' } });
      const listed = (await api.get('/api-keys', jwt)).body;
      expect(() => ListApiKeysResponse.parse(listed)).not.toThrow();
      expect(listed.data.map((k: any) => [k.id, k.rolledFrom, k.replacedBy])).toEqual([
        [fresh.id, old.id, undefined],
        [old.id, undefined, fresh.id],
      ]);

      const entries = await audit(admin);
      expect(entries.slice(0, 2).map((e) => [e.action, e.level, e.message, e.meta])).toEqual([
        ['API_KEY_CREATE', 'INFO', 'key named rolled created', { apiKeyId: fresh.id, rolledFrom: old.id }],
        ['API_KEY_ROLL', 'WARNING', 'key named rolled rolled', { apiKeyId: old.id, replacedBy: fresh.id, overlapSeconds: 3600, expiresAt: previous.expiresAt }],
      ]);
      expect((await api.get('/audit-logs?action=API_KEY_ROLL', admin)).body.data).toHaveLength(1);
    });

    it('with no overlap, the old key answers EXPIRED at once; with one, once it ends', async () => {
      const { jwt } = await owner();
      const now = await create(jwt);
      const rolled = await api.post(`/api-keys/${now.id}/roll`, { overlapSeconds: 0 }, jwt);
      expect(await verify(now.rawKey)).toEqual({ valid: false, code: 'EXPIRED' });
      expect((await verify(rolled.body.data.rawKey)).valid).toBe(true);

      const soon = await create(jwt);
      await verify(soon.rawKey);
      const next = await api.post(`/api-keys/${soon.id}/roll`, { overlapSeconds: 1 }, jwt);
      expect((await verify(soon.rawKey)).valid).toBe(true);
      await sleep(Date.parse(next.body.previous.expiresAt) - Date.now() + 20);
      expect(await verify(soon.rawKey)).toEqual({ valid: false, code: 'EXPIRED' });
      expect((await verify(next.body.data.rawKey)).valid).toBe(true);
    });

    it('never lets the old key outlive its own expiry', async () => {
      const { jwt } = await owner();
      const k = await create(jwt, { expiresIn: '30d' });
      const rolled = await api.post(`/api-keys/${k.id}/roll`, { overlapSeconds: 30 * 86_400 }, jwt);
      expect(rolled.body.previous.expiresAt).toBe(k.expiresAt);
      expect(rolled.body.data.expiresAt).toBe(k.expiresAt);
    });

    it('refuses a key already rolled, an expired, revoked, unknown or foreign key, and a bad body', async () => {
      const alice = await owner();
      const bob = await owner();
      const k = await create(alice.jwt);
      expect((await api.post(`/api-keys/${k.id}/roll`, { overlapSeconds: 60 }, alice.jwt)).status).toBe(201);
      expectError(await api.post(`/api-keys/${k.id}/roll`, { overlapSeconds: 60 }, alice.jwt), 409, 'API key was already rolled; roll the key that replaced it (replacedBy)');

      const expired = await create(alice.jwt, { expiresIn: '30d' });
      await backend.exec('UPDATE api_keys SET expires_at = $1 WHERE id = $2'.replace(/\$\d/g, backend.name === 'sqlite' ? '?' : '$&'), [new Date(Date.now() - DAY).toISOString(), expired.id]);
      expectError(await api.post(`/api-keys/${expired.id}/roll`, { overlapSeconds: 0 }, alice.jwt), 409, 'API key has expired; renew it (PATCH with expiresIn) before rolling it');

      const revoked = await create(alice.jwt);
      await api.delete(`/api-keys/${revoked.id}`, alice.jwt);
      for (const [id, jwt] of [[revoked.id, alice.jwt], [randomUUID(), alice.jwt], ['x'.repeat(300), alice.jwt], [expired.id, bob.jwt]] as const) {
        expectError(await api.post(`/api-keys/${id}/roll`, { overlapSeconds: 0 }, jwt), 404, 'Active API key not found');
      }
      const plain = await create(alice.jwt);
      const cases: Array<[unknown, Flattened]> = [
        [{}, { formErrors: [], fieldErrors: { overlapSeconds: ['Invalid input: expected number, received undefined'] } }],
        [{ overlapSeconds: -1 }, { formErrors: [], fieldErrors: { overlapSeconds: ['Too small: expected number to be >=0'] } }],
        [{ overlapSeconds: 2_592_001 }, { formErrors: [], fieldErrors: { overlapSeconds: ['Too big: expected number to be <=2592000'] } }],
        [{ overlapSeconds: 1.5 }, { formErrors: [], fieldErrors: { overlapSeconds: ['Invalid input: expected int, received number'] } }],
        [{ overlapSeconds: 1, name: 'new' }, { formErrors: ['Unrecognized key: "name"'], fieldErrors: {} }],
      ];
      for (const [body, error] of cases) expectError(await api.post(`/api-keys/${plain.id}/roll`, body, alice.jwt), 400, error);
      expect((await api.get(`/api-keys/${plain.id}`, alice.jwt)).body.data).not.toHaveProperty('replacedBy');
      // Anonymous callers are refused before the body is read.
      expect((await api.post(`/api-keys/${plain.id}/roll`, { overlapSeconds: 0 })).status).toBe(401);
    });

    it('counts towards the active-key limit like a create', async () => {
      const { jwt } = await owner();
      const made = await Promise.all(Array.from({ length: 100 }, (_, i) => api.post('/api-keys', { name: `k${i}` }, jwt)));
      expect(made.every((r) => r.status === 201)).toBe(true);
      const res = await api.post(`/api-keys/${made[0]!.body.data.id}/roll`, { overlapSeconds: 0 }, jwt);
      expectError(res, 409, 'Active API key limit reached: at most 100 active keys per user per organization; revoke a key first');
      expect((await api.get(`/api-keys/${made[0]!.body.data.id}`, jwt)).body.data.expiresAt).toBeNull();
    });

    it('rolls one key once when asked twice at the same time', async () => {
      const { jwt } = await owner();
      const k = await create(jwt);
      const both = await Promise.all([0, 1].map(() => api.post(`/api-keys/${k.id}/roll`, { overlapSeconds: 60 }, jwt)));
      expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
      expect((await api.get('/api-keys', jwt)).body.data).toHaveLength(2);
    });
  });

  describe('audit of the new settings', () => {
    it('records the settings a create or an update named, and nothing more for those that named none', async () => {
      const { jwt, admin } = await owner();
      const k = await create(jwt, { remaining: 5, meta: { a: 1 } });
      await api.patch(`/api-keys/${k.id}`, { name: 'featured', permissions: [], ratelimit: { limit: 1, durationMs: 1000 }, meta: null }, jwt);
      await api.patch(`/api-keys/${k.id}`, { name: 'featured', permissions: [] }, jwt);
      const entries = await audit(admin);
      expect(entries.map((e) => [e.action, e.meta])).toEqual([
        ['API_KEY_UPDATE', { apiKeyId: k.id }],
        ['API_KEY_UPDATE', { apiKeyId: k.id, settings: { ratelimit: { limit: 1, durationMs: 1000 }, meta: null } }],
        ['API_KEY_CREATE', { apiKeyId: k.id, settings: { remaining: 5, meta: { a: 1 } } }],
      ]);
    });
  });

  describe('OpenAPI', () => {
    it('describes every new field, the new routes and the new verification codes', async () => {
      const doc = (await api.get('/openapi.json')).body;
      const create = doc.paths['/api-keys'].post.requestBody.content['application/json'].schema;
      expect(Object.keys(create.properties)).toEqual(['name', 'permissions', 'expiresIn', 'ratelimit', 'remaining', 'refill', 'meta']);
      expect(create.required).toEqual(['name']);
      const ratelimit = create.properties.ratelimit.anyOf.find((s: any) => s.type === 'object');
      expect(ratelimit).toMatchObject({ additionalProperties: false, required: ['limit', 'durationMs'] });
      expect(ratelimit.properties.durationMs).toMatchObject({ minimum: 1000, maximum: 30 * DAY });
      const update = doc.paths['/api-keys/{id}'].patch.requestBody.content['application/json'].schema;
      expect(Object.keys(update.properties)).toEqual(['name', 'permissions', 'expiresIn', 'ratelimit', 'remaining', 'refill', 'meta']);
      const roll = doc.paths['/api-keys/{id}/roll'].post;
      expect(roll.requestBody.content['application/json'].schema).toMatchObject({
        additionalProperties: false,
        required: ['overlapSeconds'],
        properties: { overlapSeconds: { minimum: 0, maximum: 2_592_000 } },
      });
      expect(Object.keys(roll.responses).sort()).toEqual(['201', '400', '401', '403', '404', '409', '413']);
      expect(doc.paths['/api-keys/{id}'].get.responses['200']).toBeDefined();
      // The answers' schemas are where the paths use them (the document keeps no unused components).
      const verifyResult = doc.paths['/api-keys/verify'].post.responses['200'].content['application/json'].schema.properties.data;
      const result = verifyResult.oneOf ?? verifyResult.anyOf;
      const refused = result.find((s: any) => s.properties.valid.const === false);
      expect(refused.properties.code.enum).toEqual(['NOT_FOUND', 'REVOKED', 'EXPIRED', 'INSUFFICIENT_PERMISSIONS', 'USAGE_EXCEEDED', 'RATE_LIMITED']);
      const valid = result.find((s: any) => s.properties.valid.const === true);
      expect(Object.keys(valid.properties)).toEqual(expect.arrayContaining(['meta', 'remaining', 'ratelimit']));
      expect(valid.required).toEqual(['valid', 'id', 'userId', 'organizationId', 'permissions', 'expiresAt']);
      const listed = doc.paths['/api-keys'].get.responses['200'].content['application/json'].schema.properties.data.items;
      expect(Object.keys(listed.properties)).toEqual(expect.arrayContaining(['ratelimit', 'remaining', 'refill', 'meta', 'rolledFrom', 'replacedBy']));
      expect(listed.required).not.toContain('meta');
      expect(doc.paths['/audit-logs'].get.parameters[0].schema.enum).toContain('API_KEY_ROLL');
    });
  });
}

for (const backend of [sqliteBackend(), postgresBackend()]) {
  describe.skipIf(!backend.available)(`meta, get and roll on ${backend.name}`, () => suite(backend));
}
