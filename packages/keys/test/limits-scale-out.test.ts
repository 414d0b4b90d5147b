/**
 * Two service processes on one database, one in each way of counting verifications: a rate limit
 * and a usage limit hold exactly across them, and each valid use is counted once. On SQLite (two
 * processes on one file) and, with TEST_POSTGRES_URL, on PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresBackend, sqliteBackend } from './helpers/backends.js';
import { Client } from './helpers/http.js';
import { startService, TEST_SECRET, type ServiceProcess } from './helpers/service.js';
import { token } from './helpers/tokens.js';

const LONG = 30 * 86_400_000;

for (const backend of [sqliteBackend(), postgresBackend()]) {
  describe.skipIf(!backend.available)(`limits shared by two processes on ${backend.name}`, () => {
    let a: ServiceProcess;
    let b: ServiceProcess;
    let A: Client;
    let B: Client;
    let jwt: string;

    beforeAll(async () => {
      const env = { AUTH_JWT_SECRET: TEST_SECRET, ...backend.env };
      // The migrations must run once on the shared database before the second process starts on SQLite.
      a = await startService({ args: backend.args, env: { ...env, VERIFY_COUNT_FLUSH_MS: '0' } });
      b = await startService({ args: backend.args, env: { ...env, VERIFY_COUNT_FLUSH_MS: '10' } });
      A = new Client(a.url);
      B = new Client(b.url);
      jwt = await token({ sub: `u-${randomBytes(4).toString('hex')}`, org: 'shared-limits' });
    });
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await backend.cleanup();
    });

    const create = async (body: Record<string, unknown>) => {
      const res = await A.post('/api-keys', { name: 'shared', ...body }, jwt);
      expect(res.status).toBe(201);
      return res.body.data as { id: string; rawKey: string };
    };
    /** n verifications, alternating between the processes, all in flight at once. */
    const verifyBoth = async (rawKey: string, n: number) => {
      const res = await Promise.all(Array.from({ length: n }, (_, i) => (i % 2 ? A : B).post('/api-keys/verify', { key: rawKey })));
      return res.map((r) => r.body.data as Record<string, any>);
    };
    const stored = async (id: string) => {
      const [row] = await backend.query('SELECT request_count, remaining FROM api_keys WHERE id = ?', [id]);
      return { requestCount: Number(row!.request_count), remaining: row!.remaining === null ? null : Number(row!.remaining) };
    };

    it('holds one rate limit across both processes, counting each valid use once', async () => {
      const k = await create({ ratelimit: { limit: 20, durationMs: LONG } });
      const answers = await verifyBoth(k.rawKey, 80);
      expect(answers.filter((x) => x.valid)).toHaveLength(20);
      expect(answers.filter((x) => x.code === 'RATE_LIMITED')).toHaveLength(60);
      expect(new Set(answers.filter((x) => x.valid).map((x) => x.ratelimit.remaining)).size).toBe(20);
      // Written before each answer, by whichever process gave it.
      expect(await stored(k.id)).toEqual({ requestCount: 20, remaining: null });
      expect((await B.get(`/api-keys/${k.id}`, jwt)).body.data.requestCount).toBe(20);
    });

    it('never spends a usage limit below zero across both processes', async () => {
      const k = await create({ remaining: 25 });
      const answers = await verifyBoth(k.rawKey, 80);
      expect(answers.filter((x) => x.valid)).toHaveLength(25);
      expect(answers.filter((x) => x.code === 'USAGE_EXCEEDED')).toHaveLength(55);
      expect(answers.filter((x) => x.valid).map((x) => x.remaining).sort((p, q) => p - q)).toEqual(Array.from({ length: 25 }, (_, i) => i));
      expect(await stored(k.id)).toEqual({ requestCount: 25, remaining: 0 });
    });

    it('applies a limit set through one process on the next request to the other', async () => {
      const k = await create({});
      // Both processes know the key as unlimited.
      expect((await verifyBoth(k.rawKey, 4)).every((x) => x.valid)).toBe(true);
      expect((await A.patch(`/api-keys/${k.id}`, { name: 'shared', permissions: [], remaining: 3 }, jwt)).status).toBe(200);
      const answers = await verifyBoth(k.rawKey, 10);
      expect(answers.filter((x) => x.valid)).toHaveLength(3);
      expect((await stored(k.id)).remaining).toBe(0);
      expect((await B.patch(`/api-keys/${k.id}`, { name: 'shared', permissions: [], remaining: null }, jwt)).status).toBe(200);
      expect((await verifyBoth(k.rawKey, 6)).every((x) => x.valid && !('remaining' in x))).toBe(true);
    });
  });
}
