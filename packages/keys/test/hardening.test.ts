/**
 * Inputs a client can send that the databases cannot store as sent, ids the router used to refuse
 * before the service saw them, and tokens that never expire (issue 13, item 7). On SQLite and,
 * with TEST_POSTGRES_URL, on PostgreSQL: the answers must be the same on both.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
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

    // Signed with jose, exactly as a careless (or hostile) issuer would.
    const signed = (claims: Record<string, unknown>) =>
      new SignJWT({ org: 'o-life', role: 'DEVELOPER', sub: 'u-life', ...claims }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(TEST_SECRET));
    const now = () => Math.floor(Date.now() / 1000);

    it('refuses exp beyond AUTH_MAX_TOKEN_LIFETIME (24 h) after iat, or after now without iat: 401 token_lifetime_too_long', async () => {
      for (const claims of [{ iat: now(), exp: 1e308 }, { exp: 1e308 }, { iat: now(), exp: now() + 86_400 + 120 }, { exp: now() + 30 * 86_400 }, { iat: now() - 3600, exp: now() + 86_400 }]) {
        const res = await api.get('/api-keys', await signed(claims));
        expect(res.status, JSON.stringify(claims)).toBe(401);
        expect(res.body).toMatchObject({ success: false, code: 'token_lifetime_too_long' });
        expect(res.body.error).toMatch(/^Token lifetime too long: .*at most 86400 s \(AUTH_MAX_TOKEN_LIFETIME\)$/);
      }
      expect((await api.get('/api-keys', await signed({ iat: now(), exp: now() + 86_400 }))).status).toBe(200);
      expect((await api.get('/api-keys', await signed({ exp: now() + 3600 }))).status).toBe(200);
    });

    it('refuses iat more than 60 s ahead: 401 token_issued_in_future; 30 s ahead (clock skew) passes', async () => {
      for (const ahead of [365 * 86_400, 120]) {
        const res = await api.get('/api-keys', await signed({ iat: now() + ahead, exp: now() + ahead + 60 }));
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ success: false, code: 'token_issued_in_future' });
        expect(res.body.error).toMatch(/^Token issued in the future: iat is \d+ s ahead/);
      }
      expect((await api.get('/api-keys', await signed({ iat: now() + 30, exp: now() + 3600 }))).status).toBe(200);
    });
  });

  describe('attempts on another organization\'s key', () => {
    it('answer 404 as for no key, and are audited in the key\'s organization (API_KEY_ACCESS_DENIED), naming who tried', async () => {
      const tag = randomBytes(4).toString('hex');
      const owner = await token({ sub: `owner-${tag}`, org: `victim-${tag}`, role: 'OWNER' });
      const intruder = await token({ sub: `intruder-${tag}`, org: `attacker-${tag}`, role: 'OWNER' });
      const made = await api.post('/api-keys', { name: 'target' }, owner);
      expect(made.status).toBe(201);
      const id = made.body.data.id as string;
      const tries: Array<[string, () => Promise<Reply>]> = [
        ['read', () => api.get(`/api-keys/${id}`, intruder)],
        ['update', () => api.patch(`/api-keys/${id}`, { name: 'mine', permissions: [] }, intruder)],
        ['roll', () => api.post(`/api-keys/${id}/roll`, { overlapSeconds: 0 }, intruder)],
        ['revoke', () => api.delete(`/api-keys/${id}`, intruder)],
      ];
      for (const [, attempt] of tries) expect((await attempt()).status).toBe(404);
      // an id that is nobody's: the same 404, and no record
      expect((await api.get(`/api-keys/${randomUUID()}`, intruder)).status).toBe(404);
      const victimLog = (await api.get('/audit-logs?action=API_KEY_ACCESS_DENIED', owner)).body.data as Array<Record<string, any>>;
      expect(victimLog.map((e) => e.meta.attempt).sort()).toEqual(['read', 'revoke', 'roll', 'update']);
      for (const e of victimLog) {
        expect(e).toMatchObject({ action: 'API_KEY_ACCESS_DENIED', level: 'WARNING', organizationId: `victim-${tag}`, meta: { apiKeyId: id, byUserId: `intruder-${tag}`, byOrganizationId: `attacker-${tag}` } });
        expect(e.message).toMatch(/another organization .* key named target/);
      }
      // nothing on the caller's side: its admins learn no other organization's key ids
      expect((await api.get('/audit-logs', intruder)).body.data).toEqual([]);
      // the key is untouched
      expect((await api.get(`/api-keys/${id}`, owner)).body.data).toMatchObject({ name: 'target', isActive: true });
    });
  });

  describe('AUTH_MAX_TOKEN_LIFETIME', () => {
    it('sets the bound (here 1 h)', async () => {
      const short = await startService({ args: backend.args, env: { AUTH_JWT_SECRET: TEST_SECRET, AUTH_MAX_TOKEN_LIFETIME: '1h', ...backend.env } });
      try {
        const c = new Client(short.url);
        const tok = (life: number) => new SignJWT({ org: 'o-short', role: 'DEVELOPER', sub: 'u' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(Math.floor(Date.now() / 1000) + life).sign(new TextEncoder().encode(TEST_SECRET));
        expect((await c.get('/api-keys', await tok(3000))).status).toBe(200);
        const long = await c.get('/api-keys', await tok(7200));
        expect([long.status, long.body.code]).toEqual([401, 'token_lifetime_too_long']);
        expect(long.body.error).toMatch(/at most 3600 s/);
      } finally {
        await short.stop();
      }
    });
  });
}

for (const backend of [sqliteBackend(), postgresBackend()]) {
  describe.skipIf(!backend.available)(`key service hardening on ${backend.name}`, () => suite(backend));
}
