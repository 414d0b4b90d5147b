/**
 * Inputs a client can send that the databases cannot store as sent, ids the router used to refuse
 * before the service saw them, and tokens that never expire (issue 13, item 7). On SQLite and,
 * with TEST_POSTGRES_URL, on PostgreSQL: the answers must be the same on both.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresBackend, sqliteBackend, type Backend } from './helpers/backends.js';
import { Client, type Reply } from './helpers/http.js';
import { startService, TEST_SECRET, type ServiceProcess } from './helpers/service.js';
import { token } from './helpers/tokens.js';
import { expectFailureBody } from './helpers/failures.js';

const BAD_TEXT = 'Must not contain U+0000 (NUL) or an unpaired surrogate';
const BAD_IDENTITY = 'Token sub and org claims must not contain U+0000 (NUL) or an unpaired surrogate';
const NO_EXPIRY = 'Token lacks an exp claim: tokens must expire';

// Lone halves of a surrogate pair, at the start, in the middle and at the end; and NUL.
const UNSTORABLE = ['a\u0000b', '\u0000', 'x\ud800y', '\udc00', 'tail\ud83d', '\ude00head'];

function expectFailure(res: Reply, status: number, error: Parameters<typeof expectFailureBody>[2]) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expectFailureBody(res.body, status, error);
  expect(res.headers.get('api-version')).toBe('1');
  expect(res.headers.get('cache-control')).toBe('no-store');
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

  const caller = async () => token({ sub: `u-${randomBytes(4).toString('hex')}`, org: `o-${randomBytes(4).toString('hex')}` });

  describe('text the databases cannot hold as sent', () => {
    it('refuses a name with U+0000 or an unpaired surrogate with 400, on create and on update', async () => {
      const jwt = await caller();
      const kept = await api.post('/api-keys', { name: 'kept' }, jwt);
      expect(kept.status).toBe(201);
      for (const name of UNSTORABLE) {
        const invalid = { formErrors: [], fieldErrors: { name: [BAD_TEXT] } };
        expectFailure(await api.post('/api-keys', { name }, jwt), 400, invalid);
        expectFailure(await api.patch(`/api-keys/${kept.body.data.id}`, { name, permissions: [] }, jwt), 400, invalid);
      }
      const listed = (await api.get('/api-keys', jwt)).body.data;
      expect(listed.map((k: any) => k.name)).toEqual(['kept']);
    });

    it('stores and answers well-formed text exactly as sent, astral characters included', async () => {
      const jwt = await caller();
      const names = ['😀'.repeat(63), 'ü\u00a0\ufffd\u2028x', '\ud83d\ude00 paired'];
      for (const name of names) {
        const created = await api.post('/api-keys', { name }, jwt);
        expect(created.status).toBe(201);
        expect(created.body.data.name).toBe(name);
        const updated = await api.patch(`/api-keys/${created.body.data.id}`, { name: `${name}!`, permissions: [] }, jwt);
        expect(updated.body.data.name).toBe(`${name}!`);
      }
      const listed = (await api.get('/api-keys', jwt)).body.data.map((k: any) => k.name);
      expect(listed.sort()).toEqual(names.map((n) => `${n}!`).sort());
      const [row] = await backend.query('SELECT name FROM api_keys WHERE name = ?', [`${names[0]}!`]);
      expect(row!.name).toBe(`${names[0]}!`);
    });

    it('refuses a token whose sub or org holds U+0000 or an unpaired surrogate with 401', async () => {
      for (const text of UNSTORABLE) {
        for (const jwt of [await token({ sub: text }), await token({ org: text })]) {
          const res = await api.post('/api-keys', { name: 'x' }, jwt);
          expectFailure(res, 401, BAD_IDENTITY);
          expect(res.headers.get('www-authenticate')).toBe('Bearer');
          expectFailure(await api.get('/api-keys', jwt), 401, BAD_IDENTITY);
        }
      }
      // A well-formed identity outside ASCII is fine.
      const jwt = await token({ sub: 'üser-😀', org: 'örg\u00a01' });
      const created = await api.post('/api-keys', { name: 'x' }, jwt);
      expect(created.body.data).toMatchObject({ userId: 'üser-😀', organizationId: 'örg\u00a01' });
    });
  });

  describe('ids of any length', () => {
    it('answers an id longer than the router keeps 404 like any unknown id, with the usual headers', async () => {
      const jwt = await caller();
      for (const length of [199, 201, 2000, 12_000]) {
        const id = 'a'.repeat(length);
        expectFailure(await api.patch(`/api-keys/${id}`, { name: 'x', permissions: [] }, jwt), 404, 'Active API key not found');
        expectFailure(await api.delete(`/api-keys/${id}`, jwt), 404, 'API key not found');
        expectFailure(await api.delete(`/api-keys/${id}/permanent`, jwt), 404, 'API key not found');
      }
      // Still authenticated first.
      expectFailure(await api.delete(`/api-keys/${'a'.repeat(500)}`), 401, 'Authentication required: send an Authorization: Bearer <token> header');
      expectFailure(await api.delete(`/api-keys/${randomUUID()}`, jwt), 404, 'API key not found');
    });

    it('answers a URL the router cannot decode in the envelope, with the usual headers', async () => {
      const res = await fetch(`${service.url}/api-keys/%E0%A4%A`, { method: 'DELETE', headers: { authorization: `Bearer ${await caller()}` } });
      expect(res.status).toBe(400);
      expect(res.headers.get('api-version')).toBe('1');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(((await res.json()) as { success: boolean }).success).toBe(false);
    });
  });

  describe('token lifetime', () => {
    it('refuses a token without exp with 401, and accepts the same token with one', async () => {
      const claims = { sub: 'forever', org: 'o-forever' };
      expectFailure(await api.get('/api-keys', await token({ ...claims, omit: ['exp'] })), 401, NO_EXPIRY);
      expectFailure(await api.post('/api-keys', { name: 'x' }, await token({ ...claims, omit: ['exp'] })), 401, NO_EXPIRY);
      expect((await api.get('/api-keys', await token(claims))).status).toBe(200);
    });
  });
}

for (const backend of [sqliteBackend(), postgresBackend()]) {
  describe.skipIf(!backend.available)(`key service hardening on ${backend.name}`, () => suite(backend));
}
