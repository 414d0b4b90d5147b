/**
 * Rate limits and usage limits (issue 16) over HTTP, against the real process, on SQLite and (with
 * TEST_POSTGRES_URL) PostgreSQL, each in both ways of counting verifications: keys with a limit are
 * decided against the database in either mode.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListApiKeysResponse, VerifyApiKeyResponse } from '../src/schemas.js';
import { postgresBackend, sqliteBackend, type Backend } from './helpers/backends.js';
import { Client, type Reply } from './helpers/http.js';
import { startService, TEST_SECRET, type ServiceProcess } from './helpers/service.js';
import { token } from './helpers/tokens.js';
import { expectFailureBody } from './helpers/failures.js';

const DAY = 86_400_000;
/** The longest window: a test inside it cannot straddle two windows but once in years. */
const LONG = 30 * DAY;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function expectValidation(res: Reply, fieldErrors: Record<string, string[]>) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expectFailureBody(res.body, 400, { formErrors: [], fieldErrors });
}

function suite(backend: Backend, mode: Record<string, string>) {
  let service: ServiceProcess;
  let api: Client;
  let jwt: string;

  beforeAll(async () => {
    service = await startService({ args: backend.args, env: { AUTH_JWT_SECRET: TEST_SECRET, ...backend.env, ...mode } });
    api = new Client(service.url);
    jwt = await token({ sub: `u-${randomBytes(4).toString('hex')}`, org: 'limits' });
  });
  afterAll(async () => {
    await service?.stop();
    await backend.cleanup();
  });

  const create = async (body: Record<string, unknown>) => {
    const res = await api.post('/api-keys', { name: 'limited', ...body }, jwt);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data as Record<string, any>;
  };
  const verify = async (key: string, permissions?: string[]) => {
    const res = await api.post('/api-keys/verify', permissions ? { key, permissions } : { key });
    expect(res.status).toBe(200);
    expect(() => VerifyApiKeyResponse.parse(res.body)).not.toThrow();
    return res.body.data as Record<string, any>;
  };
  const verifyAll = (key: string, n: number) => Promise.all(Array.from({ length: n }, () => verify(key)));
  const listed = async (id: string) => {
    const res = await api.get('/api-keys', jwt);
    expect(() => ListApiKeysResponse.parse(res.body)).not.toThrow();
    return (res.body.data as Array<Record<string, any>>).find((k) => k.id === id)!;
  };
  /** The stored counters, read behind the service's back. */
  const stored = async (id: string) => {
    const [row] = await backend.query('SELECT request_count, remaining FROM api_keys WHERE id = ?', [id]);
    return { requestCount: Number(row!.request_count), remaining: row!.remaining === null ? null : Number(row!.remaining) };
  };
  const sql = (text: string) => text.replace(/\$\d/g, backend.name === 'sqlite' ? '?' : '$&');

  describe('rate limit', () => {
    it('answers valid with the window state, then RATE_LIMITED, and counts only the valid', async () => {
      const k = await create({ permissions: ['drawings:read'], ratelimit: { limit: 3, durationMs: LONG } });
      expect(k.ratelimit).toEqual({ limit: 3, durationMs: LONG });
      const before = Date.now();
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await verify(k.rawKey));
      const reset = answers[0]!.ratelimit.reset;
      expect(reset % LONG).toBe(0);
      expect(reset).toBeGreaterThan(before);
      expect(reset - LONG).toBeLessThanOrEqual(before);
      expect(answers).toEqual([
        { valid: true, id: k.id, userId: k.userId, organizationId: k.organizationId, permissions: ['drawings:read'], expiresAt: null, ratelimit: { limit: 3, remaining: 2, reset } },
        expect.objectContaining({ valid: true, ratelimit: { limit: 3, remaining: 1, reset } }),
        expect.objectContaining({ valid: true, ratelimit: { limit: 3, remaining: 0, reset } }),
        { valid: false, code: 'RATE_LIMITED', ratelimit: { limit: 3, remaining: 0, reset } },
        { valid: false, code: 'RATE_LIMITED', ratelimit: { limit: 3, remaining: 0, reset } },
      ]);
      expect(await stored(k.id)).toEqual({ requestCount: 3, remaining: null });
      expect((await listed(k.id)).requestCount).toBe(3);
    });

    it('lets exactly `limit` of many parallel verifications through', async () => {
      const k = await create({ ratelimit: { limit: 10, durationMs: LONG } });
      const answers = await verifyAll(k.rawKey, 60);
      expect(answers.filter((a) => a.valid)).toHaveLength(10);
      expect(answers.filter((a) => a.code === 'RATE_LIMITED')).toHaveLength(50);
      // Each valid answer saw its own place in the window.
      expect(answers.filter((a) => a.valid).map((a) => a.ratelimit.remaining).sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect((await stored(k.id)).requestCount).toBe(10);
    });

    it('starts a new window when the last one ends', async () => {
      const k = await create({ ratelimit: { limit: 2, durationMs: 1000 } });
      const answers = await verifyAll(k.rawKey, 5);
      // A window may end between the requests: per window, at most the limit is valid.
      const byWindow = new Map<number, Array<Record<string, any>>>();
      for (const a of answers) byWindow.set(a.ratelimit.reset, [...(byWindow.get(a.ratelimit.reset) ?? []), a]);
      for (const group of byWindow.values()) expect(group.filter((a) => a.valid)).toHaveLength(Math.min(2, group.length));
      const lastReset = Math.max(...byWindow.keys());
      await sleep(lastReset - Date.now() + 20);
      const next = await verify(k.rawKey);
      expect(next).toMatchObject({ valid: true, ratelimit: { limit: 2, remaining: 1 } });
      expect(next.ratelimit.reset).toBeGreaterThan(lastReset);
    });

    it('is changed and removed by PATCH: a new limit counts the window so far, a new window length starts afresh, null removes it', async () => {
      const k = await create({ ratelimit: { limit: 2, durationMs: LONG } });
      await verifyAll(k.rawKey, 2);
      expect((await verify(k.rawKey)).code).toBe('RATE_LIMITED');
      const patch = (body: Record<string, unknown>) => api.patch(`/api-keys/${k.id}`, { name: 'limited', permissions: [], ...body }, jwt);
      // Name and permissions only: the limit and its window stay.
      expect((await patch({})).body.data.ratelimit).toEqual({ limit: 2, durationMs: LONG });
      expect((await verify(k.rawKey)).code).toBe('RATE_LIMITED');
      expect((await patch({ ratelimit: { limit: 3, durationMs: LONG } })).body.data.ratelimit).toEqual({ limit: 3, durationMs: LONG });
      expect(await verify(k.rawKey)).toMatchObject({ valid: true, ratelimit: { limit: 3, remaining: 0 } });
      expect((await verify(k.rawKey)).code).toBe('RATE_LIMITED');
      await patch({ ratelimit: { limit: 3, durationMs: LONG / 2 } });
      expect(await verify(k.rawKey)).toMatchObject({ valid: true, ratelimit: { limit: 3, remaining: 2 } });
      const removed = await patch({ ratelimit: null });
      expect(removed.status).toBe(200);
      expect(removed.body.data).not.toHaveProperty('ratelimit');
      // Back to a plain key: the plain answer, exactly.
      const plain = await verifyAll(k.rawKey, 5);
      for (const a of plain) expect(a).toEqual({ valid: true, id: k.id, userId: k.userId, organizationId: k.organizationId, permissions: [], expiresAt: null });
      expect((await listed(k.id)).requestCount).toBe(2 + 1 + 1 + 5);
    });

    it('applies a limit added while this process knows the key as unlimited, by PATCH or behind its back', async () => {
      const k = await create({});
      await verifyAll(k.rawKey, 3);
      await api.patch(`/api-keys/${k.id}`, { name: 'limited', permissions: [], ratelimit: { limit: 1, durationMs: LONG } }, jwt);
      expect((await verify(k.rawKey)).valid).toBe(true);
      expect((await verify(k.rawKey)).code).toBe('RATE_LIMITED');

      const other = await create({});
      await verifyAll(other.rawKey, 3);
      // As another process sharing the database would.
      await backend.exec(sql('UPDATE api_keys SET remaining = $1, ratelimit_limit = $2, ratelimit_duration_ms = $3 WHERE id = $4'), [1, 5, LONG, other.id]);
      expect(await verify(other.rawKey)).toMatchObject({ valid: true, remaining: 0, ratelimit: { limit: 5, remaining: 4 } });
      expect(await verify(other.rawKey)).toMatchObject({ valid: false, code: 'USAGE_EXCEEDED', remaining: 0 });
      expect((await stored(other.id)).remaining).toBe(0);
      // The plain uses may still be in memory (counting behind the answers): a list writes them.
      expect((await listed(other.id)).requestCount).toBe(4);
    });
  });

  describe('usage limit', () => {
    it('decrements remaining with every valid answer, then answers USAGE_EXCEEDED, written before the answer', async () => {
      const k = await create({ remaining: 3, permissions: ['plots:create'] });
      expect(k.remaining).toBe(3);
      expect(k).not.toHaveProperty('refill');
      expect(await verify(k.rawKey)).toEqual({
        valid: true,
        id: k.id,
        userId: k.userId,
        organizationId: k.organizationId,
        permissions: ['plots:create'],
        expiresAt: null,
        remaining: 2,
      });
      // In either counting mode, the use is in the database when the answer arrives.
      expect(await stored(k.id)).toEqual({ requestCount: 1, remaining: 2 });
      // Refused requests spend nothing.
      expect(await verify(k.rawKey, ['drawings:write'])).toEqual({ valid: false, code: 'INSUFFICIENT_PERMISSIONS' });
      expect((await verify(k.rawKey)).remaining).toBe(1);
      expect((await verify(k.rawKey)).remaining).toBe(0);
      expect(await verify(k.rawKey)).toEqual({ valid: false, code: 'USAGE_EXCEEDED', remaining: 0 });
      expect(await stored(k.id)).toEqual({ requestCount: 3, remaining: 0 });
      expect(await listed(k.id)).toMatchObject({ remaining: 0, requestCount: 3 });
    });

    it('never goes below zero under many parallel verifications', async () => {
      const k = await create({ remaining: 10 });
      const answers = await verifyAll(k.rawKey, 60);
      expect(answers.filter((a) => a.valid)).toHaveLength(10);
      expect(answers.filter((a) => a.code === 'USAGE_EXCEEDED')).toHaveLength(50);
      expect(answers.filter((a) => a.valid).map((a) => a.remaining).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(await stored(k.id)).toEqual({ requestCount: 10, remaining: 0 });
    });

    it('with a rate limit too: the tighter one refuses, each with its code, and a refusal spends neither', async () => {
      const usage = await create({ remaining: 2, ratelimit: { limit: 5, durationMs: LONG } });
      const a = [];
      for (let i = 0; i < 3; i++) a.push(await verify(usage.rawKey));
      expect(a.map((x) => [x.valid, x.code, x.remaining, x.ratelimit.remaining])).toEqual([
        [true, undefined, 1, 4],
        [true, undefined, 0, 3],
        [false, 'USAGE_EXCEEDED', 0, 3],
      ]);
      const rate = await create({ remaining: 10, ratelimit: { limit: 2, durationMs: LONG } });
      const b = [];
      for (let i = 0; i < 3; i++) b.push(await verify(rate.rawKey));
      expect(b.map((x) => [x.valid, x.code, x.remaining, x.ratelimit.remaining])).toEqual([
        [true, undefined, 9, 1],
        [true, undefined, 8, 0],
        [false, 'RATE_LIMITED', 8, 0],
      ]);
      expect(await stored(rate.id)).toEqual({ requestCount: 2, remaining: 8 });
    });

    it('answers a revoked or expired limited key as any other, spending nothing', async () => {
      const k = await create({ remaining: 5, ratelimit: { limit: 5, durationMs: LONG } });
      await backend.exec(sql('UPDATE api_keys SET expires_at = $1 WHERE id = $2'), [new Date(Date.now() - 1000).toISOString(), k.id]);
      expect(await verify(k.rawKey)).toEqual({ valid: false, code: 'EXPIRED' });
      await api.delete(`/api-keys/${k.id}`, jwt);
      expect(await verify(k.rawKey)).toEqual({ valid: false, code: 'REVOKED' });
      expect(await stored(k.id)).toEqual({ requestCount: 0, remaining: 5 });
    });

    it('is set and removed by PATCH', async () => {
      const k = await create({ remaining: 1 });
      await verify(k.rawKey);
      expect((await verify(k.rawKey)).code).toBe('USAGE_EXCEEDED');
      const patch = (body: Record<string, unknown>) => api.patch(`/api-keys/${k.id}`, { name: 'limited', permissions: [], ...body }, jwt);
      expect((await patch({ remaining: 2 })).body.data.remaining).toBe(2);
      expect((await verify(k.rawKey)).remaining).toBe(1);
      const removed = await patch({ remaining: null });
      expect(removed.body.data).not.toHaveProperty('remaining');
      expect(await verify(k.rawKey)).not.toHaveProperty('remaining');
      expect(await stored(k.id)).toMatchObject({ remaining: null });
      expect((await listed(k.id)).requestCount).toBe(3);
    });
  });

  describe('refill', () => {
    it('sets remaining back to amount at the first look after a daily or monthly boundary', async () => {
      const daily = await create({ remaining: 2, refill: { interval: 'daily', amount: 5 } });
      expect(daily.refill).toEqual({ interval: 'daily', amount: 5, lastRefillAt: daily.createdAt });
      await verifyAll(daily.rawKey, 2);
      expect((await verify(daily.rawKey)).code).toBe('USAGE_EXCEEDED');
      // The last refill was yesterday, as if the service had been idle since.
      await backend.exec(sql('UPDATE api_keys SET refilled_at = $1 WHERE id = $2'), [new Date(Date.now() - DAY).toISOString(), daily.id]);
      const midnight = new Date();
      midnight.setUTCHours(0, 0, 0, 0);
      // Reads show the refill that is due before any verification made it.
      expect(await listed(daily.id)).toMatchObject({ remaining: 5, refill: { interval: 'daily', amount: 5, lastRefillAt: midnight.toISOString() } });
      expect((await api.get(`/api-keys/${daily.id}`, jwt)).body.data.remaining).toBe(5);
      expect(await verify(daily.rawKey)).toMatchObject({ valid: true, remaining: 4 });
      expect(await stored(daily.id)).toEqual({ requestCount: 3, remaining: 4 });
      // Within the same day, nothing more is refilled.
      expect((await verify(daily.rawKey)).remaining).toBe(3);

      const monthly = await create({ remaining: 1, refill: { interval: 'monthly', amount: 3 } });
      await verify(monthly.rawKey);
      expect((await verify(monthly.rawKey)).code).toBe('USAGE_EXCEEDED');
      const now = new Date();
      const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15));
      await backend.exec(sql('UPDATE api_keys SET refilled_at = $1 WHERE id = $2'), [lastMonth.toISOString(), monthly.id]);
      const answer = await verify(monthly.rawKey);
      expect(answer).toMatchObject({ valid: true, remaining: 2 });
      expect((await listed(monthly.id)).refill.lastRefillAt).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString());
    });

    it('needs remaining: refused on create, and on a PATCH that would leave a refill without it', async () => {
      const refill = { interval: 'daily', amount: 5 };
      const needs = { refill: ['Needs remaining: a refill sets a usage limit back, and there is none'] };
      expectValidation(await api.post('/api-keys', { name: 'x', refill }, jwt), needs);
      expectValidation(await api.post('/api-keys', { name: 'x', refill, remaining: null }, jwt), needs);
      const plain = await create({});
      expectValidation(await api.patch(`/api-keys/${plain.id}`, { name: 'x', permissions: [], refill }, jwt), needs);
      const k = await create({ remaining: 1, refill });
      expectValidation(await api.patch(`/api-keys/${k.id}`, { name: 'x', permissions: [], remaining: null }, jwt), needs);
      const cleared = await api.patch(`/api-keys/${k.id}`, { name: 'x', permissions: [], remaining: null, refill: null }, jwt);
      expect(cleared.status).toBe(200);
      expect(cleared.body.data).not.toHaveProperty('refill');
      expect(cleared.body.data).not.toHaveProperty('remaining');
      const added = await api.patch(`/api-keys/${plain.id}`, { name: 'x', permissions: [], remaining: 7, refill: { interval: 'monthly', amount: 7 } }, jwt);
      expect(added.body.data).toMatchObject({ remaining: 7, refill: { interval: 'monthly', amount: 7 } });
    });
  });

  describe('validation', () => {
    it('refuses malformed limits with 400, unknown fields inside them included, and stores nothing', async () => {
      const cases: Array<[Record<string, unknown>, Record<string, string[]>]> = [
        [{ ratelimit: { limit: 0, durationMs: 1000 } }, { ratelimit: ['Too small: expected number to be >=1'] }],
        [{ ratelimit: { limit: 1, durationMs: 999 } }, { ratelimit: ['Too small: expected number to be >=1000'] }],
        [{ ratelimit: { limit: 1, durationMs: 30 * DAY + 1 } }, { ratelimit: [`Too big: expected number to be <=${30 * DAY}`] }],
        [{ ratelimit: { limit: 1.5, durationMs: 1000 } }, { ratelimit: ['Invalid input: expected int, received number'] }],
        [{ ratelimit: { limit: 1 } }, { ratelimit: ['Invalid input: expected number, received undefined'] }],
        [{ ratelimit: { limit: 1, durationMs: 1000, burst: 5 } }, { ratelimit: ['Unrecognized key: "burst"'] }],
        [{ ratelimit: 10 }, { ratelimit: ['Invalid input: expected object, received number'] }],
        [{ remaining: -1 }, { remaining: ['Too small: expected number to be >=0'] }],
        [{ remaining: '5' }, { remaining: ['Invalid input: expected number, received string'] }],
        [{ remaining: 1, refill: { interval: 'weekly', amount: 1 } }, { refill: ['Invalid option: expected one of "daily"|"monthly"'] }],
        [{ remaining: 1, refill: { interval: 'daily', amount: 0 } }, { refill: ['Too small: expected number to be >=1'] }],
        [{ remaining: 1, refill: { interval: 'daily', amount: 1, day: 3 } }, { refill: ['Unrecognized key: "day"'] }],
      ];
      const k = await create({});
      for (const [body, fieldErrors] of cases) {
        expectValidation(await api.post('/api-keys', { name: 'bad', ...body }, jwt), fieldErrors);
        expectValidation(await api.patch(`/api-keys/${k.id}`, { name: 'bad', permissions: [], ...body }, jwt), fieldErrors);
      }
      const all = (await api.get('/api-keys', jwt)).body.data as Array<Record<string, any>>;
      expect(all.filter((x) => x.name === 'bad')).toEqual([]);
    });
  });
}

const OTHER_MODE = {
  sqlite: ['counting before answering', { VERIFY_COUNT_FLUSH_MS: '0' }],
  postgres: ['counting behind the answers', { VERIFY_COUNT_FLUSH_MS: '10' }],
} as const;
for (const open of [sqliteBackend, postgresBackend]) {
  for (const which of ['default', 'other'] as const) {
    const backend = open();
    const [label, mode] = which === 'default' ? ['default counting', {}] : OTHER_MODE[backend.name];
    describe.skipIf(!backend.available)(`rate and usage limits on ${backend.name}, ${label}`, () => suite(backend, mode));
  }
}
