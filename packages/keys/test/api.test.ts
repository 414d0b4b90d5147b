/**
 * The API key service over HTTP, against the real process, on SQLite and (with TEST_POSTGRES_URL)
 * on PostgreSQL. Expected values come from api-keys.md and DECISIONS.md, not from the code.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateApiKeyResponse, ListApiKeysResponse, UpdateApiKeyResponse, AuditLogsResponse, VerifyApiKeyResponse } from '../src/schemas.js';
import { postgresBackend, sqliteBackend, type Backend } from './helpers/backends.js';
import { Client, type Reply } from './helpers/http.js';
import { startService, TEST_SECRET, type ServiceProcess } from './helpers/service.js';
import { token } from './helpers/tokens.js';
import { expectFailureBody, type Flattened } from './helpers/failures.js';

const ALLOWED = [
  'drawings:read',
  'drawings:write',
  'drawings:delete',
  'blocks:read',
  'blocks:write',
  'layers:read',
  'layers:write',
  'plots:create',
];
const LIST_FIELDS = ['createdAt', 'expiresAt', 'id', 'isActive', 'keyPrefix', 'lastUsed', 'name', 'permissions', 'requestCount'];
const RECORD_FIELDS = [...LIST_FIELDS, 'organizationId', 'userId'].sort();
const DAY = 86_400_000;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;

interface Caller {
  sub: string;
  org: string;
  role: string;
  jwt: string;
}

async function caller(role = 'DEVELOPER', org = unique('org'), sub = unique('user')): Promise<Caller> {
  return { sub, org, role, jwt: await token({ sub, org, role }) };
}

function expectError(res: Reply, status: number, error: Parameters<typeof expectFailureBody>[2]) {
  expect(res.status).toBe(status);
  expectFailureBody(res.body, status, error);
  expect(res.headers.get('api-version')).toBe('1');
}

function suite(backend: Backend, mode: Record<string, string>) {
  let service: ServiceProcess;
  let api: Client;

  const start = async () => {
    service = await startService({ args: backend.args, env: { AUTH_JWT_SECRET: TEST_SECRET, ...backend.env, ...mode } });
    api = new Client(service.url);
  };

  beforeAll(start);
  afterAll(async () => {
    await service?.stop();
    await backend.cleanup();
  });

  const create = async (who: Caller, body: Record<string, unknown> = {}) => {
    const res = await api.post('/api-keys', { name: 'key', ...body }, who.jwt);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data as Record<string, any>;
  };
  const audit = async (admin: Caller, query = '') => {
    const res = await api.get(`/audit-logs${query}`, admin.jwt);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as Array<Record<string, any>>;
  };

  describe('authentication and roles', () => {
    const protectedRoutes: Array<[string, string]> = [
      ['GET', '/api-keys'],
      ['POST', '/api-keys'],
      ['PATCH', `/api-keys/${randomUUID()}`],
      ['DELETE', `/api-keys/${randomUUID()}`],
      ['DELETE', `/api-keys/${randomUUID()}/permanent`],
      ['GET', '/audit-logs'],
    ];

    it('answers 401 without a token on every protected route', async () => {
      for (const [method, path] of protectedRoutes) {
        const res = await api.request(method, path, method === 'POST' || method === 'PATCH' ? { body: { name: 'x', permissions: [] } } : {});
        expectError(res, 401, 'Authentication required: send an Authorization: Bearer <token> header');
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
      }
    });

    it('answers 401 for a malformed header, a malformed token, a bad signature, an expired token', async () => {
      const good = await token();
      expectError(await api.request('GET', '/api-keys', { headers: { authorization: `Basic ${good}` } }), 401, 'Malformed Authorization header: expected Bearer <token>');
      expectError(await api.request('GET', '/api-keys', { headers: { authorization: 'Bearer' } }), 401, 'Malformed Authorization header: expected Bearer <token>');
      expectError(await api.get('/api-keys', 'not-a-jwt'), 401, 'Invalid token');
      expectError(await api.get('/api-keys', `${good.slice(0, good.lastIndexOf('.'))}.`), 401, 'Invalid token signature');
      expectError(await api.get('/api-keys', await token({ secret: 'another-secret-another-secret-another' })), 401, 'Invalid token signature');
      expectError(await api.get('/api-keys', await token({ expiresIn: -120 })), 401, 'Token expired');
      // An unsigned token (alg none) is never accepted.
      const [, payload] = good.split('.');
      const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
      expectError(await api.get('/api-keys', none), 401, 'Invalid token');
    });

    it('answers 401 when the token lacks sub or org', async () => {
      expectError(await api.get('/api-keys', await token({ omit: ['sub'] })), 401, 'Token lacks a string sub or org claim');
      expectError(await api.get('/api-keys', await token({ omit: ['org'] })), 401, 'Token lacks a string sub or org claim');
    });

    it('answers 403 below DEVELOPER, and accepts DEVELOPER, ADMIN and OWNER', async () => {
      for (const role of ['VIEWER', 'GUEST']) {
        const jwt = await token({ role });
        for (const [method, path] of protectedRoutes.slice(0, 5)) {
          const res = await api.request(method, path, { token: jwt, ...(method === 'POST' || method === 'PATCH' ? { body: { name: 'x', permissions: [] } } : {}) });
          expectError(res, 403, 'Insufficient role: DEVELOPER or higher required');
        }
      }
      expectError(await api.get('/api-keys', await token({ omit: ['role'] })), 403, 'Insufficient role: DEVELOPER or higher required');
      for (const role of ['DEVELOPER', 'ADMIN', 'OWNER']) {
        const res = await api.get('/api-keys', await token({ role }));
        expect(res.status).toBe(200);
      }
    });

    it('lets ADMIN and OWNER read audit logs, not DEVELOPER or VIEWER', async () => {
      expectError(await api.get('/audit-logs', await token({ role: 'DEVELOPER' })), 403, 'Insufficient role: ADMIN or higher required');
      expectError(await api.get('/audit-logs', await token({ role: 'VIEWER' })), 403, 'Insufficient role: ADMIN or higher required');
      expect((await api.get('/audit-logs', await token({ role: 'ADMIN' }))).status).toBe(200);
      expect((await api.get('/audit-logs', await token({ role: 'OWNER' }))).status).toBe(200);
    });

    it('checks the token before reading the body', async () => {
      const res = await api.request('POST', '/api-keys', { raw: '{"name":' });
      expect(res.status).toBe(401);
    });
  });

  describe('POST /api-keys', () => {
    it('creates a key and returns the whole stored record with the raw key once', async () => {
      const alice = await caller();
      const before = Date.now();
      const res = await api.post('/api-keys', { name: 'CI pipeline', permissions: ['drawings:read'] }, alice.jwt);
      const after = Date.now();
      expect(res.status).toBe(201);
      expect(res.headers.get('api-version')).toBe('1');
      expect(() => CreateApiKeyResponse.parse(res.body)).not.toThrow();
      expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'success']);
      expect(res.body.success).toBe(true);
      expect(res.body.message).toMatch(/not be shown again/);
      const d = res.body.data;
      expect(Object.keys(d).sort()).toEqual([...RECORD_FIELDS, 'rawKey'].sort());
      expect(d.rawKey).toMatch(/^lwk_[0-9a-f]{48}$/);
      expect(d.rawKey).toHaveLength(52);
      expect(d.keyPrefix).toBe(`${d.rawKey.slice(0, 12)}_`);
      // the hash is the database's: no answer carries it
      expect(JSON.stringify(res.body)).not.toContain(sha256(d.rawKey));
      expect(d).toMatchObject({
        name: 'CI pipeline',
        permissions: ['drawings:read'],
        userId: alice.sub,
        organizationId: alice.org,
        isActive: true,
        requestCount: 0,
        lastUsed: null,
        expiresAt: null,
      });
      expect(d.id).toMatch(/^[0-9a-f-]{36}$/);
      const created = Date.parse(d.createdAt);
      expect(d.createdAt).toBe(new Date(created).toISOString());
      expect(created).toBeGreaterThanOrEqual(before - 5);
      expect(created).toBeLessThanOrEqual(after + 5);
      // The raw key never appears again.
      const list = await api.get('/api-keys', alice.jwt);
      expect(JSON.stringify(list.body)).not.toContain(d.rawKey);
      expect(JSON.stringify(list.body)).not.toContain(sha256(d.rawKey));
      const got = await api.get(`/api-keys/${d.id}`, alice.jwt);
      expect(got.body.data).not.toHaveProperty('keyHash');
      expect(JSON.stringify(got.body)).not.toContain(sha256(d.rawKey));
    });

    it('defaults permissions to [] and expiry to never, and does not trim the name on create', async () => {
      const alice = await caller();
      const d = await create(alice, { name: '  spaced  ' });
      expect(d.permissions).toEqual([]);
      expect(d.expiresAt).toBeNull();
      expect(d.name).toBe('  spaced  ');
    });

    it('sets expiresAt from expiresIn: 30d, 90d, 1y (365 days), never', async () => {
      const alice = await caller();
      for (const [expiresIn, days] of [['30d', 30], ['90d', 90], ['1y', 365]] as const) {
        const d = await create(alice, { expiresIn });
        expect(Date.parse(d.expiresAt) - Date.parse(d.createdAt)).toBe(days * DAY);
      }
      expect((await create(alice, { expiresIn: 'never' })).expiresAt).toBeNull();
    });

    it('generates a distinct key every time', async () => {
      const alice = await caller();
      const a = await create(alice);
      const b = await create(alice);
      expect(a.rawKey).not.toBe(b.rawKey);
      expect(a.id).not.toBe(b.id);
    });

    it('answers 400 with the flattened validation error', async () => {
      const alice = await caller();
      const cases: Array<[unknown, Flattened]> = [
        [{}, { formErrors: [], fieldErrors: { name: ['Invalid input: expected string, received undefined'] } }],
        [{ name: '' }, { formErrors: [], fieldErrors: { name: ['Too small: expected string to have >=1 characters'] } }],
        [{ name: 'x'.repeat(65) }, { formErrors: [], fieldErrors: { name: ['Too big: expected string to have <=64 characters'] } }],
        [
          { name: 'ok', permissions: 'drawings:read', expiresIn: '2y' },
          {
            formErrors: [],
            fieldErrors: {
              permissions: ['Invalid input: expected array, received string'],
              expiresIn: ['Invalid option: expected one of "never"|"30d"|"90d"|"1y"'],
            },
          },
        ],
        [{ name: 'ok', permissions: [1] }, { formErrors: [], fieldErrors: { permissions: ['Invalid input: expected string, received number'] } }],
        [['name'], { formErrors: ['Invalid input: expected object, received array'], fieldErrors: {} }],
        ['text', { formErrors: ['Invalid input: expected object, received string'], fieldErrors: {} }],
      ];
      for (const [body, error] of cases) {
        expectError(await api.post('/api-keys', body, alice.jwt), 400, error);
      }
      expect((await create(alice, { name: 'x'.repeat(64) })).name).toHaveLength(64);
      expect(await api.get('/api-keys', alice.jwt).then((r) => r.body.data.length)).toBe(1);
    });

    it('answers 400 with the invalid entries (as submitted, trimmed) and the allowed list', async () => {
      const alice = await caller();
      const res = await api.post('/api-keys', { name: 'x', permissions: [' Foo:Bar ', 'drawings:read', 'nope:*', 'admin'] }, alice.jwt);
      expect(res.status).toBe(400);
      expectFailureBody(res.body, 400, 'Invalid API key permissions: Foo:Bar, nope:*, admin', { allowedPermissions: ALLOWED });
      expect((await api.get('/api-keys', alice.jwt)).body.data).toEqual([]);
    });

    it('normalises permissions: trim, lower-case, wildcards, duplicates, allowed-list order', async () => {
      const alice = await caller();
      const cases: Array<[string[], string[]]> = [
        [[' Plots:Create ', 'DRAWINGS:READ', 'drawings:read'], ['drawings:read', 'plots:create']],
        [['layers:*', 'drawings:write'], ['drawings:write', 'layers:read', 'layers:write']],
        [['*'], ALLOWED],
        [['blocks:write', '*', 'BLOCKS:*'], ALLOWED],
        [['Drawings:*', 'drawings:delete'], ['drawings:read', 'drawings:write', 'drawings:delete']],
        [[], []],
      ];
      for (const [submitted, stored] of cases) {
        const d = await create(alice, { permissions: submitted });
        expect(d.permissions, JSON.stringify(submitted)).toEqual(stored);
      }
    });

    it('answers 400 (malformed JSON), 415 (not JSON) and 413 (over 64 KiB) in the envelope', async () => {
      const alice = await caller();
      expectError(await api.request('POST', '/api-keys', { token: alice.jwt, raw: '{"name": "x",' }), 400, 'Malformed JSON in request body');
      expectError(await api.request('POST', '/api-keys', { token: alice.jwt, raw: '' }), 400, 'Malformed JSON in request body');
      expectError(
        await api.request('POST', '/api-keys', { token: alice.jwt, raw: 'name=x', contentType: 'text/plain' }),
        415,
        'Unsupported Content-Type: send application/json',
      );
      const big = JSON.stringify({ name: 'x', permissions: Array.from({ length: 7000 }, () => 'drawings:read') });
      expect(big.length).toBeGreaterThan(64 * 1024);
      expectError(await api.request('POST', '/api-keys', { token: alice.jwt, raw: big }), 413, 'Request body too large');
      // Just under the limit is accepted.
      const fits = JSON.stringify({ name: 'x', permissions: Array.from({ length: 4000 }, () => 'drawings:read') });
      expect(fits.length).toBeLessThan(64 * 1024);
      expect((await api.request('POST', '/api-keys', { token: alice.jwt, raw: fits })).status).toBe(201);
      expect((await api.get('/api-keys', alice.jwt)).body.data).toHaveLength(1);
    });

    it('creates 50 keys in parallel, all distinct', async () => {
      const alice = await caller();
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => api.post('/api-keys', { name: `p${i}` }, alice.jwt)));
      expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
      expect(new Set(results.map((r) => r.body.data.rawKey)).size).toBe(50);
      expect(new Set(results.map((r) => r.body.data.id)).size).toBe(50);
      const list = await api.get('/api-keys', alice.jwt);
      expect(list.body.data).toHaveLength(50);
    });

    it('allows at most 100 active keys per user per organization, even under parallel creates', async () => {
      const alice = await caller();
      const first = await Promise.all(Array.from({ length: 95 }, (_, i) => api.post('/api-keys', { name: `k${i}` }, alice.jwt)));
      expect(first.every((r) => r.status === 201)).toBe(true);
      const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => api.post('/api-keys', { name: `b${i}` }, alice.jwt)));
      const statuses = burst.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(5);
      expect(statuses.filter((s) => s === 409)).toHaveLength(7);
      const refused = burst.find((r) => r.status === 409)!;
      expectError(refused, 409, 'Active API key limit reached: at most 100 active keys per user per organization; revoke a key first');
      const keys = (await api.get('/api-keys', alice.jwt)).body.data as Array<Record<string, any>>;
      expect(keys.filter((k) => k.isActive)).toHaveLength(100);

      // The limit is per user and per organization: others are unaffected.
      await create({ ...alice, jwt: await token({ sub: alice.sub, org: unique('org') }) });
      await create(await caller('DEVELOPER', alice.org));
      // Revoked keys do not count.
      expect((await api.delete(`/api-keys/${keys[0]!.id}`, alice.jwt)).status).toBe(200);
      await create(alice);
      expect((await api.post('/api-keys', { name: 'over' }, alice.jwt)).status).toBe(409);
    });
  });

  describe('GET /api-keys', () => {
    it('lists only the nine fields, newest first, revoked keys included', async () => {
      const alice = await caller();
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await create(alice, { name: `n${i}` }));
      await api.delete(`/api-keys/${made[1]!.id}`, alice.jwt);
      const res = await api.get('/api-keys', alice.jwt);
      expect(res.status).toBe(200);
      expect(() => ListApiKeysResponse.parse(res.body)).not.toThrow();
      const data = res.body.data as Array<Record<string, any>>;
      expect(data.map((k) => k.name)).toEqual(['n4', 'n3', 'n2', 'n1', 'n0']);
      for (const k of data) expect(Object.keys(k).sort()).toEqual(LIST_FIELDS);
      expect(data.find((k) => k.name === 'n1')!.isActive).toBe(false);
      const { rawKey: _r, userId: _u, organizationId: _o, ...listed } = made[0]!;
      expect(data[4]).toEqual(listed);
    });

    it('orders keys created in the same millisecond deterministically, newest first', async () => {
      const alice = await caller();
      const made = await Promise.all(Array.from({ length: 10 }, (_, i) => create(alice, { name: `s${i}` })));
      const a = (await api.get('/api-keys', alice.jwt)).body.data.map((k: any) => k.id);
      const b = (await api.get('/api-keys', alice.jwt)).body.data.map((k: any) => k.id);
      expect(a).toEqual(b);
      const createdAt = new Map(made.map((k) => [k.id, Date.parse(k.createdAt)]));
      const times = a.map((id: string) => createdAt.get(id)!);
      expect([...times].sort((x, y) => y - x)).toEqual(times);
    });

    it('shows a user only their own keys in the calling organization', async () => {
      const alice = await caller();
      const bob = await caller('DEVELOPER', alice.org);
      const aliceElsewhere = { ...alice, org: unique('org') };
      aliceElsewhere.jwt = await token({ sub: alice.sub, org: aliceElsewhere.org });
      const a = await create(alice, { name: 'alice-key' });
      const b = await create(bob, { name: 'bob-key' });
      const c = await create(aliceElsewhere, { name: 'alice-other-org' });
      expect((await api.get('/api-keys', alice.jwt)).body.data.map((k: any) => k.id)).toEqual([a.id]);
      expect((await api.get('/api-keys', bob.jwt)).body.data.map((k: any) => k.id)).toEqual([b.id]);
      expect((await api.get('/api-keys', aliceElsewhere.jwt)).body.data.map((k: any) => k.id)).toEqual([c.id]);
    });
  });

  describe('PATCH /api-keys/{id}', () => {
    it('replaces name (trimmed) and permissions (normalised); keeps expiry when expiresIn is absent', async () => {
      const alice = await caller();
      const k = await create(alice, { name: 'old', permissions: ['drawings:read'], expiresIn: '90d' });
      const res = await api.patch(`/api-keys/${k.id}`, { name: '  new name  ', permissions: ['PLOTS:create', 'blocks:*', 'plots:create'] }, alice.jwt);
      expect(res.status).toBe(200);
      expect(() => UpdateApiKeyResponse.parse(res.body)).not.toThrow();
      expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
      expect(Object.keys(res.body.data).sort()).toEqual(RECORD_FIELDS);
      const { rawKey: _r, ...stored } = k;
      expect(res.body.data).toEqual({ ...stored, name: 'new name', permissions: ['blocks:read', 'blocks:write', 'plots:create'] });
      const listed = (await api.get('/api-keys', alice.jwt)).body.data[0];
      expect(listed.name).toBe('new name');
      expect(listed.expiresAt).toBe(k.expiresAt);
    });

    it('applies the expiry rule: never clears it, 30d/90d/1y count from now', async () => {
      const alice = await caller();
      const k = await create(alice, { expiresIn: '30d' });
      const cleared = await api.patch(`/api-keys/${k.id}`, { name: 'k', permissions: [], expiresIn: 'never' }, alice.jwt);
      expect(cleared.body.data.expiresAt).toBeNull();
      for (const [expiresIn, days] of [['30d', 30], ['90d', 90], ['1y', 365]] as const) {
        const before = Date.now();
        const res = await api.patch(`/api-keys/${k.id}`, { name: 'k', permissions: [], expiresIn }, alice.jwt);
        const after = Date.now();
        const at = Date.parse(res.body.data.expiresAt);
        expect(at).toBeGreaterThanOrEqual(before + days * DAY - 5);
        expect(at).toBeLessThanOrEqual(after + days * DAY + 5);
      }
    });

    it('answers 400 for an invalid body and for invalid permissions (no allowedPermissions)', async () => {
      const alice = await caller();
      const k = await create(alice, { name: 'keep' });
      expectError(await api.patch(`/api-keys/${k.id}`, { name: 'x' }, alice.jwt), 400, {
        formErrors: [],
        fieldErrors: { permissions: ['Invalid input: expected array, received undefined'] },
      });
      expectError(await api.patch(`/api-keys/${k.id}`, { name: '   ', permissions: [] }, alice.jwt), 400, {
        formErrors: [],
        fieldErrors: { name: ['Too small: expected string to have >=1 characters'] },
      });
      expectError(await api.patch(`/api-keys/${k.id}`, { name: 'x', permissions: [], expiresIn: 'forever' }, alice.jwt), 400, {
        formErrors: [],
        fieldErrors: { expiresIn: ['Invalid option: expected one of "never"|"30d"|"90d"|"1y"'] },
      });
      expectError(
        await api.patch(`/api-keys/${k.id}`, { name: 'x', permissions: ['drawings:read', ' Root:All '] }, alice.jwt),
        400,
        'Invalid API key permissions: Root:All',
      );
      expect((await api.get('/api-keys', alice.jwt)).body.data[0].name).toBe('keep');
    });

    it("answers 404 for a revoked key, an unknown id, and another user's or organization's key", async () => {
      const alice = await caller();
      const bob = await caller('DEVELOPER', alice.org);
      const elsewhere = await caller('DEVELOPER', unique('org'), alice.sub);
      const body = { name: 'hijack', permissions: ['*'] };
      const k = await create(alice, { name: 'mine' });
      for (const who of [bob, elsewhere]) expectError(await api.patch(`/api-keys/${k.id}`, body, who.jwt), 404, 'Active API key not found');
      expectError(await api.patch(`/api-keys/${randomUUID()}`, body, alice.jwt), 404, 'Active API key not found');
      expectError(await api.patch('/api-keys/not-a-uuid', body, alice.jwt), 404, 'Active API key not found');
      await api.delete(`/api-keys/${k.id}`, alice.jwt);
      expectError(await api.patch(`/api-keys/${k.id}`, body, alice.jwt), 404, 'Active API key not found');
      const listed = (await api.get('/api-keys', alice.jwt)).body.data[0];
      expect(listed).toMatchObject({ name: 'mine', permissions: [], isActive: false });
    });
  });

  describe('DELETE /api-keys/{id} (revoke)', () => {
    it('revokes, idempotently, and keeps the record', async () => {
      const alice = await caller();
      const k = await create(alice);
      for (let i = 0; i < 2; i++) {
        const res = await api.delete(`/api-keys/${k.id}`, alice.jwt);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ success: true, message: 'API key revoked' });
      }
      const listed = (await api.get('/api-keys', alice.jwt)).body.data;
      expect(listed).toHaveLength(1);
      expect(listed[0].isActive).toBe(false);
    });

    it('ignores an empty body labelled application/json, as some clients send on DELETE', async () => {
      const alice = await caller();
      const k = await create(alice);
      const opts = { token: alice.jwt, raw: '' };
      expect((await api.request('DELETE', `/api-keys/${k.id}`, opts)).body).toEqual({ success: true, message: 'API key revoked' });
      expect((await api.request('GET', '/api-keys', { token: alice.jwt, headers: { 'content-type': 'application/json' } })).status).toBe(200);
      expect((await api.request('DELETE', `/api-keys/${k.id}/permanent`, opts)).body).toEqual({ success: true, message: 'API key permanently removed' });
    });

    it("answers 404 for an unknown id and for another user's or organization's key", async () => {
      const alice = await caller();
      const bob = await caller('ADMIN', alice.org);
      const elsewhere = await caller('OWNER', unique('org'), alice.sub);
      const k = await create(alice);
      for (const who of [bob, elsewhere]) expectError(await api.delete(`/api-keys/${k.id}`, who.jwt), 404, 'API key not found');
      expectError(await api.delete(`/api-keys/${randomUUID()}`, alice.jwt), 404, 'API key not found');
      expectError(await api.delete('/api-keys/0', alice.jwt), 404, 'API key not found');
      expect((await api.get('/api-keys', alice.jwt)).body.data[0].isActive).toBe(true);
    });
  });

  describe('DELETE /api-keys/{id}/permanent', () => {
    it('refuses (409) while active, removes once revoked, then 404', async () => {
      const alice = await caller();
      const k = await create(alice);
      expectError(await api.delete(`/api-keys/${k.id}/permanent`, alice.jwt), 409, 'API key is still active; revoke it before removing it permanently');
      expect((await api.get('/api-keys', alice.jwt)).body.data).toHaveLength(1);
      await api.delete(`/api-keys/${k.id}`, alice.jwt);
      const res = await api.delete(`/api-keys/${k.id}/permanent`, alice.jwt);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: 'API key permanently removed' });
      expect((await api.get('/api-keys', alice.jwt)).body.data).toEqual([]);
      expectError(await api.delete(`/api-keys/${k.id}/permanent`, alice.jwt), 404, 'API key not found');
      expectError(await api.delete(`/api-keys/${k.id}`, alice.jwt), 404, 'API key not found');
    });

    it("answers 404 for another user's or organization's revoked key", async () => {
      const alice = await caller();
      const bob = await caller('DEVELOPER', alice.org);
      const elsewhere = await caller('DEVELOPER', unique('org'), alice.sub);
      const k = await create(alice);
      await api.delete(`/api-keys/${k.id}`, alice.jwt);
      for (const who of [bob, elsewhere]) expectError(await api.delete(`/api-keys/${k.id}/permanent`, who.jwt), 404, 'API key not found');
      expect((await api.get('/api-keys', alice.jwt)).body.data).toHaveLength(1);
    });
  });

  describe('audit records', () => {
    it('writes one record per mutation with the spec message forms, levels, meta and caller', async () => {
      const alice = await caller();
      const admin = await caller('ADMIN', alice.org);
      const k = await create(alice, { name: 'alpha' });
      await api.patch(`/api-keys/${k.id}`, { name: 'beta', permissions: [] }, alice.jwt);
      await api.delete(`/api-keys/${k.id}`, alice.jwt);
      await api.delete(`/api-keys/${k.id}`, alice.jwt);
      await api.delete(`/api-keys/${k.id}/permanent`, alice.jwt);
      const res = await api.get('/audit-logs', admin.jwt);
      expect(() => AuditLogsResponse.parse(res.body)).not.toThrow();
      const entries = res.body.data as Array<Record<string, any>>;
      expect(entries.map((e) => [e.action, e.level, e.message])).toEqual([
        ['API_KEY_REMOVE', 'WARNING', 'revoked key named beta permanently removed'],
        ['API_KEY_REVOKE', 'WARNING', 'key named beta revoked'],
        ['API_KEY_REVOKE', 'WARNING', 'key named beta revoked'],
        ['API_KEY_UPDATE', 'WARNING', 'key named alpha updated'],
        ['API_KEY_CREATE', 'INFO', 'key named alpha created'],
      ]);
      for (const e of entries) {
        expect(Object.keys(e).sort()).toEqual(['action', 'category', 'createdAt', 'id', 'level', 'message', 'meta', 'organizationId', 'userId']);
        expect(e).toMatchObject({ category: 'AUTH', userId: alice.sub, organizationId: alice.org, meta: { apiKeyId: k.id } });
        expect(e.createdAt).toBe(new Date(Date.parse(e.createdAt)).toISOString());
      }
      expect(new Set(entries.map((e) => e.id)).size).toBe(5);
      // The envelope of DECISIONS.md exactly; no next page.
      expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
      expect(res.headers.get('link')).toBeNull();
    });

    it("is scoped to the caller's organization (all users of it), newest first", async () => {
      const alice = await caller();
      const bob = await caller('DEVELOPER', alice.org);
      const outsider = await caller('DEVELOPER');
      const admin = await caller('ADMIN', alice.org);
      const otherAdmin = await caller('OWNER', outsider.org);
      await create(alice, { name: 'a1' });
      await create(outsider, { name: 'x1' });
      await create(bob, { name: 'b1' });
      expect((await audit(admin)).map((e) => e.message)).toEqual(['key named b1 created', 'key named a1 created']);
      expect((await audit(otherAdmin)).map((e) => e.message)).toEqual(['key named x1 created']);
    });

    it('filters by action, pages with limit and before, defaults to 50 and caps at 500', async () => {
      const alice = await caller();
      const admin = await caller('ADMIN', alice.org);
      const keys = await Promise.all(Array.from({ length: 55 }, (_, i) => create(alice, { name: `k${i}` })));
      for (const k of keys.slice(0, 3)) await api.delete(`/api-keys/${k.id}`, alice.jwt);

      const first = await api.get('/audit-logs', admin.jwt);
      expect(first.body.data).toHaveLength(50);
      expect(Object.keys(first.body).sort()).toEqual(['data', 'success']);
      const oldest = first.body.data[49].id;
      expect(first.headers.get('link')).toBe(`</audit-logs?limit=50&before=${oldest}>; rel="next"`);
      const revokes = await audit(admin, '?action=API_KEY_REVOKE');
      expect(revokes.map((e) => e.meta.apiKeyId)).toEqual([keys[2]!.id, keys[1]!.id, keys[0]!.id]);

      // Walk all 58 records 7 at a time, each page's last id as the next cursor: no gaps, no repeats.
      const seen: string[] = [];
      let before: string | null = null;
      let pages = 0;
      for (;;) {
        const res: Reply = await api.get(`/audit-logs?limit=7${before ? `&before=${before}` : ''}`, admin.jwt);
        expect(res.status).toBe(200);
        seen.push(...res.body.data.map((e: any) => e.id));
        pages++;
        const link = res.headers.get('link');
        if (!link) break;
        before = res.body.data[res.body.data.length - 1].id;
        expect(link).toBe(`</audit-logs?limit=7&before=${before}>; rel="next"`);
      }
      expect(pages).toBe(Math.ceil(58 / 7));
      const all = await audit(admin, '?limit=500');
      expect(all).toHaveLength(58);
      expect(seen).toEqual(all.map((e) => e.id));
      expect(all.slice(0, 3).every((e) => e.action === 'API_KEY_REVOKE')).toBe(true);
      // Any record id works as a cursor, also without a Link to follow.
      expect((await audit(admin, `?before=${all[10]!.id}&limit=500`)).map((e) => e.id)).toEqual(all.slice(11).map((e) => e.id));

      const filteredPage = await api.get('/audit-logs?action=API_KEY_CREATE&limit=50', admin.jwt);
      const next = /^<([^>]+)>; rel="next"$/.exec(filteredPage.headers.get('link') ?? '')![1]!;
      expect(next).toContain('action=API_KEY_CREATE');
      const rest = (await api.get(next, admin.jwt)).body.data as Array<Record<string, any>>;
      expect(rest).toHaveLength(5);
      expect(rest.every((e) => e.action === 'API_KEY_CREATE')).toBe(true);

      expectError(await api.get('/audit-logs?limit=501', admin.jwt), 400, { formErrors: [], fieldErrors: { limit: ['Too big: expected number to be <=500'] } });
      expectError(await api.get('/audit-logs?limit=0', admin.jwt), 400, { formErrors: [], fieldErrors: { limit: ['Too small: expected number to be >=1'] } });
      expect((await api.get('/audit-logs?action=DELETE_EVERYTHING', admin.jwt)).status).toBe(400);
      expectError(await api.get('/audit-logs?before=garbage', admin.jwt), 400, { formErrors: [], fieldErrors: { before: ['Invalid UUID'] } });
      const noSuchRecord = 'Invalid before: no audit record with this id in your organization';
      expectError(await api.get(`/audit-logs?before=${randomUUID()}`, admin.jwt), 400, noSuchRecord);
      // A record of another organization is no cursor here.
      const outsider = await caller('DEVELOPER');
      await create(outsider);
      const foreign = (await audit(await caller('ADMIN', outsider.org)))[0]!.id;
      expectError(await api.get(`/audit-logs?before=${foreign}`, admin.jwt), 400, noSuchRecord);
    });

    it('writes no record for a refused mutation', async () => {
      const alice = await caller();
      const admin = await caller('ADMIN', alice.org);
      const k = await create(alice, { name: 'only' });
      await api.patch(`/api-keys/${randomUUID()}`, { name: 'x', permissions: [] }, alice.jwt);
      await api.patch(`/api-keys/${k.id}`, { name: 'x', permissions: ['bad'] }, alice.jwt);
      await api.post('/api-keys', { name: 'x', permissions: ['bad'] }, alice.jwt);
      await api.post('/api-keys', { name: '' }, alice.jwt);
      await api.delete(`/api-keys/${k.id}/permanent`, alice.jwt);
      await api.delete(`/api-keys/${randomUUID()}`, alice.jwt);
      expect((await audit(admin)).map((e) => e.action)).toEqual(['API_KEY_CREATE']);
    });

    it('commits the change and its audit record together: a failing audit insert undoes the change', async () => {
      const alice = await caller();
      const admin = await caller('ADMIN', alice.org);
      const survivor = await create(alice, { name: 'survivor' });
      await api.patch(`/api-keys/${survivor.id}`, { name: 'FAIL-AUDIT victim', permissions: ['drawings:read'] }, alice.jwt);
      const revoked = await create(alice, { name: 'FAIL-AUDIT revoked' });
      await api.delete(`/api-keys/${revoked.id}`, alice.jwt);
      await backend.exec(backend.failingAuditTriggerSql);
      try {
        // Update (audited under the name before the change): name, permissions and expiry stay.
        expectError(await api.patch(`/api-keys/${survivor.id}`, { name: 'renamed', permissions: ['*'], expiresIn: '30d' }, alice.jwt), 500, 'Internal server error');
        // Permanent removal: the revoked record stays.
        expectError(await api.delete(`/api-keys/${revoked.id}/permanent`, alice.jwt), 500, 'Internal server error');
        // Creation: the key row must not survive its failed audit insert.
        expectError(await api.post('/api-keys', { name: 'FAIL-AUDIT create' }, alice.jwt), 500, 'Internal server error');
        // Revocation: the key must stay active.
        expectError(await api.delete(`/api-keys/${survivor.id}`, alice.jwt), 500, 'Internal server error');
        const keys = (await api.get('/api-keys', alice.jwt)).body.data;
        expect(keys.map((k: any) => [k.name, k.isActive, k.permissions, k.expiresAt])).toEqual([
          ['FAIL-AUDIT revoked', false, [], null],
          ['FAIL-AUDIT victim', true, ['drawings:read'], null],
        ]);
        expect((await api.post('/api-keys/verify', { key: survivor.rawKey })).body.data.valid).toBe(true);
        expect((await audit(admin)).map((e) => e.action)).toEqual(['API_KEY_REVOKE', 'API_KEY_CREATE', 'API_KEY_UPDATE', 'API_KEY_CREATE']);
      } finally {
        await backend.exec('DROP TRIGGER fail_audit' + (backend.name === 'postgres' ? ' ON audit_logs; DROP FUNCTION fail_audit()' : ''));
      }
      expect((await api.delete(`/api-keys/${survivor.id}`, alice.jwt)).status).toBe(200);
    });
  });

  describe('POST /api-keys/verify', () => {
    it('answers valid:true with the key identity, without a JWT, and counts the use', async () => {
      const alice = await caller();
      const k = await create(alice, { permissions: ['drawings:*', 'plots:create'], expiresIn: '30d' });
      const before = Date.now();
      const res = await api.post('/api-keys/verify', { key: k.rawKey });
      expect(res.status).toBe(200);
      expect(() => VerifyApiKeyResponse.parse(res.body)).not.toThrow();
      expect(res.body).toEqual({
        success: true,
        data: {
          valid: true,
          id: k.id,
          userId: alice.sub,
          organizationId: alice.org,
          permissions: ['drawings:read', 'drawings:write', 'drawings:delete', 'plots:create'],
          expiresAt: k.expiresAt,
        },
      });
      const listed = (await api.get('/api-keys', alice.jwt)).body.data[0];
      expect(listed.requestCount).toBe(1);
      expect(Date.parse(listed.lastUsed)).toBeGreaterThanOrEqual(before - 5);
    });

    it('checks requested permissions after normalising them', async () => {
      const alice = await caller();
      const k = await create(alice, { permissions: ['layers:*', 'drawings:read'] });
      const ok = async (permissions: string[]) => (await api.post('/api-keys/verify', { key: k.rawKey, permissions })).body.data;
      expect((await ok(['LAYERS:*', ' drawings:read ', 'layers:read'])).valid).toBe(true);
      expect((await ok([])).valid).toBe(true);
      expect(await ok(['drawings:write'])).toEqual({ valid: false, code: 'INSUFFICIENT_PERMISSIONS' });
      expect(await ok(['layers:read', 'plots:create'])).toEqual({ valid: false, code: 'INSUFFICIENT_PERMISSIONS' });
      expect(await ok(['*'])).toEqual({ valid: false, code: 'INSUFFICIENT_PERMISSIONS' });
      expectError(await api.post('/api-keys/verify', { key: k.rawKey, permissions: ['layers:read', 'Bogus'] }), 400, 'Invalid API key permissions: Bogus');
      expect((await api.get('/api-keys', alice.jwt)).body.data[0].requestCount).toBe(2);
    });

    it('answers NOT_FOUND, REVOKED and EXPIRED, and counts none of them', async () => {
      const alice = await caller();
      const k = await create(alice);
      const verify = async (key: string) => (await api.post('/api-keys/verify', { key })).body.data;
      expect(await verify(`lwk_${randomBytes(24).toString('hex')}`)).toEqual({ valid: false, code: 'NOT_FOUND' });
      expect(await verify('garbage')).toEqual({ valid: false, code: 'NOT_FOUND' });
      expect(await verify(k.rawKey.toUpperCase())).toEqual({ valid: false, code: 'NOT_FOUND' });
      expect(await verify(sha256(k.rawKey))).toEqual({ valid: false, code: 'NOT_FOUND' });

      const expiring = await create(alice, { expiresIn: '30d' });
      await backend.exec('UPDATE api_keys SET expires_at = $1 WHERE id = $2'.replace(/\$\d/g, backend.name === 'sqlite' ? '?' : '$&'), [
        new Date(Date.now() - 1000).toISOString(),
        expiring.id,
      ]);
      expect(await verify(expiring.rawKey)).toEqual({ valid: false, code: 'EXPIRED' });

      await api.delete(`/api-keys/${k.id}`, alice.jwt);
      expect(await verify(k.rawKey)).toEqual({ valid: false, code: 'REVOKED' });
      const listed = (await api.get('/api-keys', alice.jwt)).body.data as Array<Record<string, any>>;
      for (const key of listed) {
        expect(key.requestCount).toBe(0);
        expect(key.lastUsed).toBeNull();
      }
      // A removed key is simply unknown.
      await api.delete(`/api-keys/${k.id}/permanent`, alice.jwt);
      expect(await verify(k.rawKey)).toEqual({ valid: false, code: 'NOT_FOUND' });
    });

    it('validates its body', async () => {
      expectError(await api.post('/api-keys/verify', {}), 400, { formErrors: [], fieldErrors: { key: ['Invalid input: expected string, received undefined'] } });
      expectError(await api.post('/api-keys/verify', { key: 'lwk_x', permissions: 'drawings:read' }), 400, {
        formErrors: [],
        fieldErrors: { permissions: ['Invalid input: expected array, received string'] },
      });
      expectError(await api.request('POST', '/api-keys/verify', { raw: `{"key":"${'a'.repeat(70_000)}"}` }), 413, 'Request body too large');
    });

    it('answers the same whether the request takes the hot path or fastify', async () => {
      // Bodies of known length and type application/json are answered outside fastify; chunked ones
      // (no content-length) go through fastify. Both must give the same status, headers and body.
      const alice = await caller();
      const k = await create(alice, { permissions: ['drawings:read'] });
      const url = new URL('/api-keys/verify', api.baseUrl);
      const send = (body: string, chunked: boolean, path = url.pathname) =>
        new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
          const req = httpRequest({ host: url.hostname, port: url.port, method: 'POST', path, headers: { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': Buffer.byteLength(body) }) } }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (text += d));
            res.on('end', () => {
              const { date: _date, ...headers } = res.headers;
              resolve({ status: res.statusCode!, headers, body: text });
            });
          });
          req.on('error', reject);
          if (chunked) req.setHeader('transfer-encoding', 'chunked');
          req.end(body);
        });
      const bodies = [
        JSON.stringify({ key: k.rawKey }),
        JSON.stringify({ key: k.rawKey, permissions: ['drawings:read'] }),
        JSON.stringify({ key: k.rawKey, permissions: ['plots:create'] }),
        JSON.stringify({ key: k.rawKey, permissions: ['Bogus'] }),
        JSON.stringify({ key: `lwk_${'0'.repeat(48)}` }),
        JSON.stringify({ key: 5 }),
        JSON.stringify([1, 2]),
        '{"key":',
        '',
        '{"key":"x","__proto__":{"polluted":true}}',
      ];
      for (const body of bodies) {
        const hot = await send(body, false);
        const slow = await send(body, true);
        expect({ sent: body, ...hot }).toEqual({ sent: body, ...slow });
        expect(hot.headers['api-version']).toBe('1');
      }
      expect((await send(bodies[0]!, false, `${url.pathname}/`)).body).toBe((await send(bodies[0]!, true)).body);
      // Two valid verifications per way: 2 bodies above and the trailing-slash pair.
      expect((await api.get('/api-keys', alice.jwt)).body.data[0].requestCount).toBe(6);
      // A client that goes away halfway through its body leaves the service answering.
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname, () => {
          socket.write(`POST ${url.pathname} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"key":`);
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 50);
        });
        socket.on('error', reject);
      });
      expect((await send(bodies[0]!, false)).status).toBe(200);
      // Header names and the media type in any case, and `Expect`, are answered like the plain case.
      const raw = (head: string, body: string) =>
        new Promise<string>((resolve, reject) => {
          let text = '';
          const socket = connect(Number(url.port), url.hostname, () => {
            socket.write(`POST ${url.pathname} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${head}Content-LENGTH: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
          });
          socket.setEncoding('utf8');
          socket.on('data', (d: string) => (text += d));
          socket.on('end', () => resolve(text));
          socket.on('error', reject);
        });
      for (const head of ['CONTENT-TYPE: Application/JSON\r\n', 'content-type: application/json;charset=UTF-8\r\nExpect: 100-continue\r\n']) {
        const answer = (await raw(head, bodies[1]!)).replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
        expect(answer, head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
        expect(answer.slice(answer.indexOf('\r\n\r\n') + 4), head).toBe((await send(bodies[1]!, true)).body);
      }
      expect(await raw('Content-Type: text/plain\r\n', bodies[1]!)).toMatch(/^HTTP\/1\.1 415 /);
    });

    it('adds exactly N to requestCount for N parallel verifications', async () => {
      const alice = await caller();
      const k = await create(alice, { permissions: ['plots:create'] });
      const results = await Promise.all(Array.from({ length: 20 }, () => api.post('/api-keys/verify', { key: k.rawKey, permissions: ['plots:create'] })));
      expect(results.every((r) => r.status === 200 && r.body.data.valid === true)).toBe(true);
      expect((await api.get('/api-keys', alice.jwt)).body.data[0].requestCount).toBe(20);
    });

    it('decides and counts each of many parallel verifications of several keys on its own', async () => {
      const alice = await caller();
      const bob = await caller();
      const a = await create(alice, { name: 'a', permissions: ['drawings:read'] });
      const b = await create(bob, { name: 'b', permissions: ['*'] });
      const revoked = await create(alice, { name: 'revoked' });
      await api.delete(`/api-keys/${revoked.id}`, alice.jwt);
      const unknown = `lwk_${randomBytes(24).toString('hex')}`;
      const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
        [{ key: a.rawKey }, { valid: true, id: a.id, userId: alice.sub }],
        [{ key: a.rawKey, permissions: ['drawings:read'] }, { valid: true, id: a.id }],
        [{ key: a.rawKey, permissions: ['plots:create'] }, { valid: false, code: 'INSUFFICIENT_PERMISSIONS' }],
        [{ key: b.rawKey, permissions: ['plots:create'] }, { valid: true, id: b.id, userId: bob.sub, organizationId: bob.org }],
        [{ key: revoked.rawKey }, { valid: false, code: 'REVOKED' }],
        [{ key: unknown }, { valid: false, code: 'NOT_FOUND' }],
      ];
      const calls = Array.from({ length: 60 }, (_, i) => cases[i % cases.length]!);
      const results = await Promise.all(calls.map(([body]) => api.post('/api-keys/verify', body)));
      results.forEach((r, i) => {
        expect(r.status).toBe(200);
        expect(r.body.data).toMatchObject(calls[i]![1]);
      });
      const count = async (who: Caller, id: string) => (await api.get('/api-keys', who.jwt)).body.data.find((k: any) => k.id === id).requestCount;
      expect(await count(alice, a.id)).toBe(20);
      expect(await count(bob, b.id)).toBe(10);
      expect(await count(alice, revoked.id)).toBe(0);
    });

    it('refuses a key on every request answered after its revocation, and counts only valid answers', async () => {
      const alice = await caller();
      const k = await create(alice);
      const verify = async () => ({ data: (await api.post('/api-keys/verify', { key: k.rawKey })).body.data });
      const early = Array.from({ length: 30 }, verify);
      const revocation = api.delete(`/api-keys/${k.id}`, alice.jwt);
      const racing = Array.from({ length: 30 }, verify);
      expect((await revocation).status).toBe(200);
      // Sent once the revocation was answered: refused, whichever batch they land in.
      const late = Array.from({ length: 10 }, verify);
      const results = await Promise.all([...early, ...racing, ...late]);
      for (const r of results.slice(60)) expect(r.data).toEqual({ valid: false, code: 'REVOKED' });
      const valid = results.filter((r) => r.data.valid === true).length;
      expect(results.every((r) => r.data.valid === true || r.data.code === 'REVOKED')).toBe(true);
      expect((await api.get('/api-keys', alice.jwt)).body.data[0].requestCount).toBe(valid);
    });

    it('decides a batch mixing valid and refused requests for one key request by request, counting only the valid', async () => {
      const alice = await caller();
      const k = await create(alice, { permissions: ['drawings:read', 'plots:create'] });
      const needs = [['drawings:read'], ['drawings:write'], [], ['plots:create', 'drawings:read'], ['layers:read']];
      // Twice: once with the key never verified before, once with its permissions already seen.
      for (let round = 1; round <= 2; round++) {
        const calls = Array.from({ length: 25 }, (_, i) => needs[i % needs.length]!);
        const results = await Promise.all(calls.map((permissions) => api.post('/api-keys/verify', { key: k.rawKey, permissions })));
        results.forEach((r, i) => {
          const valid = calls[i]!.every((p) => p === 'drawings:read' || p === 'plots:create');
          expect(r.body.data).toEqual(valid ? expect.objectContaining({ valid: true, id: k.id }) : { valid: false, code: 'INSUFFICIENT_PERMISSIONS' });
        });
        expect((await api.get('/api-keys', alice.jwt)).body.data[0].requestCount).toBe(15 * round);
      }
      // Only refusals for a key whose permissions were seen before: still decided on fresh data.
      const refused = await Promise.all(Array.from({ length: 10 }, () => api.post('/api-keys/verify', { key: k.rawKey, permissions: ['layers:read'] })));
      for (const r of refused) expect(r.body.data).toEqual({ valid: false, code: 'INSUFFICIENT_PERMISSIONS' });
      expect((await api.get('/api-keys', alice.jwt)).body.data[0].requestCount).toBe(30);
    });

    it('answers on the stored key when another process changed it after this one verified it', async () => {
      const alice = await caller();
      const k = await create(alice, { permissions: ['drawings:read'], expiresIn: '30d' });
      const sqlText = (text: string) => text.replace(/\$\d/g, backend.name === 'sqlite' ? '?' : '$&');
      const verify = async (permissions: string[]) => (await api.post('/api-keys/verify', { key: k.rawKey, permissions })).body.data;
      const count = async () => (await api.get('/api-keys', alice.jwt)).body.data[0].requestCount;
      expect((await verify(['drawings:read'])).valid).toBe(true);

      // Written behind this service's back, as another process sharing the database would.
      await backend.exec(sqlText('UPDATE api_keys SET permissions = $1 WHERE id = $2'), [JSON.stringify(['plots:create']), k.id]);
      // Withdrawn since this process last read the key.
      expect(await verify(['drawings:read'])).toEqual({ valid: false, code: 'INSUFFICIENT_PERMISSIONS' });
      // Granted since this process last read the key.
      await backend.exec(sqlText('UPDATE api_keys SET permissions = $1 WHERE id = $2'), [JSON.stringify(['plots:create', 'layers:read']), k.id]);
      expect(await verify(['layers:read'])).toMatchObject({ valid: true, permissions: ['plots:create', 'layers:read'] });
      expect(await count()).toBe(2);

      const renewed = new Date(Date.now() + 90 * DAY).toISOString();
      await backend.exec(sqlText('UPDATE api_keys SET expires_at = $1 WHERE id = $2'), [renewed, k.id]);
      expect(await verify([])).toMatchObject({ valid: true, expiresAt: renewed });
      await backend.exec(sqlText('UPDATE api_keys SET expires_at = $1 WHERE id = $2'), [new Date(Date.now() - 1000).toISOString(), k.id]);
      expect(await verify([])).toEqual({ valid: false, code: 'EXPIRED' });
      await backend.exec(sqlText('UPDATE api_keys SET expires_at = $1, is_active = $2 WHERE id = $3'), [renewed, backend.name === 'sqlite' ? 0 : false, k.id]);
      expect(await verify([])).toEqual({ valid: false, code: 'REVOKED' });
      await backend.exec(sqlText('DELETE FROM api_keys WHERE id = $1'), [k.id]);
      expect(await verify([])).toEqual({ valid: false, code: 'NOT_FOUND' });
    });

    it('treats an expired key as still active for PATCH and revoke, and valid again once renewed', async () => {
      const alice = await caller();
      const k = await create(alice, { name: 'old', expiresIn: '30d' });
      const past = new Date(Date.now() - 1000).toISOString();
      await backend.exec('UPDATE api_keys SET expires_at = $1 WHERE id = $2'.replace(/\$\d/g, backend.name === 'sqlite' ? '?' : '$&'), [past, k.id]);
      expect((await api.post('/api-keys/verify', { key: k.rawKey })).body.data).toEqual({ valid: false, code: 'EXPIRED' });
      const listed = (await api.get('/api-keys', alice.jwt)).body.data[0];
      expect(listed).toMatchObject({ isActive: true, expiresAt: past, requestCount: 0 });
      // A PATCH without expiresIn keeps the past expiry; with one it renews the key.
      const kept = await api.patch(`/api-keys/${k.id}`, { name: 'still expired', permissions: [] }, alice.jwt);
      expect(kept.body.data.expiresAt).toBe(past);
      expect((await api.post('/api-keys/verify', { key: k.rawKey })).body.data).toEqual({ valid: false, code: 'EXPIRED' });
      const renewed = await api.patch(`/api-keys/${k.id}`, { name: 'renewed', permissions: [], expiresIn: '30d' }, alice.jwt);
      expect(Date.parse(renewed.body.data.expiresAt)).toBeGreaterThan(Date.now());
      expect((await api.post('/api-keys/verify', { key: k.rawKey })).body.data.valid).toBe(true);
      expect((await api.delete(`/api-keys/${k.id}`, alice.jwt)).status).toBe(200);
    });
  });

  describe('service surface', () => {
    it('answers unknown routes with 404 in the envelope, with API-Version', async () => {
      const res = await api.get('/no/such/route');
      expectError(res, 404, 'Route not found: GET /no/such/route');
      expectError(await api.request('PUT', '/api-keys'), 404, 'Route not found: PUT /api-keys');
    });

    it('puts API-Version: 1 on every response', async () => {
      const alice = await caller();
      const responses = [
        await api.get('/api-keys', alice.jwt),
        await api.get('/api-keys'),
        await api.get('/audit-logs', alice.jwt),
        await api.post('/api-keys', { name: '' }, alice.jwt),
        await api.post('/api-keys/verify', { key: 'x' }),
        await api.get('/openapi.json'),
        await api.get('/health'),
        await api.get('/missing'),
      ];
      for (const r of responses) expect(r.headers.get('api-version'), String(r.status)).toBe('1');
      // Even a URL the router cannot decode.
      const bad = await fetch(`${service.url}/api-keys/%E0%A4%A`, { headers: { authorization: `Bearer ${alice.jwt}` } });
      expect(bad.status).toBe(400);
      expect(bad.headers.get('api-version')).toBe('1');
      expect(((await bad.json()) as { success: boolean }).success).toBe(false);
    });

    it('serves an OpenAPI 3.1 document generated from the request schemas', async () => {
      const res = await api.get('/openapi.json');
      expect(res.status).toBe(200);
      const doc = res.body;
      expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
      expect(doc.info.title).toBeTruthy();
      const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, m]) => Object.keys(m).map((k) => `${k.toUpperCase()} ${p}`));
      expect(ops.sort()).toEqual(
        [
          'GET /api-keys',
          'POST /api-keys',
          'GET /api-keys/{id}',
          'PATCH /api-keys/{id}',
          'POST /api-keys/{id}/roll',
          'DELETE /api-keys/{id}',
          'DELETE /api-keys/{id}/permanent',
          'POST /api-keys/verify',
          'GET /audit-logs',
          'GET /openapi.json',
          'GET /health',
        ].sort(),
      );
      const createOp = doc.paths['/api-keys'].post;
      const body = createOp.requestBody.content['application/json'].schema;
      expect(body.required).toEqual(['name']);
      expect(body.properties.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 64 });
      expect(body.properties.expiresIn.enum).toEqual(['never', '30d', '90d', '1y']);
      expect(createOp.security).toEqual([{ bearerAuth: [] }]);
      expect(doc.paths['/api-keys/verify'].post.security).toEqual([]);
      expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
      // The documented create answer lists exactly the fields the service sends.
      const alice = await caller();
      const sent = await create(alice);
      const documented = createOp.responses['201'].content['application/json'].schema.properties.data;
      expect([...documented.required].sort()).toEqual(Object.keys(sent).sort());
      const auditQuery = doc.paths['/audit-logs'].get.parameters.map((p: any) => [p.name, p.in, p.required]);
      expect(auditQuery).toEqual([['action', 'query', false], ['limit', 'query', false], ['before', 'query', false]]);
      expect(doc.paths['/api-keys/{id}'].patch.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
      // Every local reference resolves.
      const refs = JSON.stringify(doc).match(/"\$ref":"#\/[^"]+"/g) ?? [];
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) {
        const path = ref.slice(9, -1).split('/').slice(1);
        let node: any = doc;
        for (const part of path) node = node?.[part];
        expect(node, ref).toBeDefined();
      }
    });

    it('reports health with the database in use', async () => {
      const res = await api.get('/health');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { status: 'ok', database: backend.name } });
    });

    it('keeps everything across a restart on the same database', async () => {
      const alice = await caller();
      const admin = await caller('ADMIN', alice.org);
      const k = await create(alice, { name: 'durable', permissions: ['blocks:*'], expiresIn: '90d' });
      await api.post('/api-keys/verify', { key: k.rawKey });
      const keysBefore = (await api.get('/api-keys', alice.jwt)).body.data;
      const auditBefore = await audit(admin);
      const exit = await service.stop('SIGTERM');
      expect(exit.code).toBe(0);
      await start();
      expect((await api.get('/api-keys', alice.jwt)).body.data).toEqual(keysBefore);
      expect(await audit(admin)).toEqual(auditBefore);
      expect((await api.post('/api-keys/verify', { key: k.rawKey })).body.data.valid).toBe(true);
      expect((await api.get('/api-keys', alice.jwt)).body.data[0].requestCount).toBe(2);
    });
  });
}

// Each database in its default counting mode and in the other one: every rule holds in both.
const OTHER_MODE = {
  sqlite: ['counting before answering', { VERIFY_COUNT_FLUSH_MS: '0' }],
  postgres: ['counting behind the answers', { VERIFY_COUNT_FLUSH_MS: '10' }],
} as const;
for (const open of [sqliteBackend, postgresBackend]) {
  for (const which of ['default', 'other'] as const) {
    const backend = open();
    const [label, mode] = which === 'default' ? ['default counting', {}] : OTHER_MODE[backend.name];
    describe.skipIf(!backend.available)(`API key service over HTTP on ${backend.name}, ${label}`, () => suite(backend, mode));
  }
}
