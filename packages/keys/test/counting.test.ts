/**
 * Counting verifications behind the answers (VERIFY_COUNT_FLUSH_MS > 0, SQLite's default): the
 * counts reach the database on their own, before this process answers any read of them, at
 * shutdown, and after a failed write; and a second process sharing the SQLite file never answers on
 * a key as it stood before a change. The API suite runs in this mode too (api.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresBackend, sqliteBackend } from './helpers/backends.js';
import { Client } from './helpers/http.js';
import { startService, TEST_SECRET, type ServiceProcess } from './helpers/service.js';
import { token } from './helpers/tokens.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `read` answers `expected` (or the time is up), and returns its last answer. */
async function eventually<T>(read: () => Promise<T>, expected: T, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  let value = await read();
  while (value !== expected && Date.now() < until) {
    await sleep(25);
    value = await read();
  }
  return value;
}

for (const backend of [sqliteBackend(), postgresBackend()]) {
  describe.skipIf(!backend.available)(`counts written behind the answers on ${backend.name}`, () => {
    const services: ServiceProcess[] = [];
    const start = async (flushMs: number) => {
      const service = await startService({
        args: backend.args,
        env: { AUTH_JWT_SECRET: TEST_SECRET, ...backend.env, VERIFY_COUNT_FLUSH_MS: String(flushMs) },
      });
      services.push(service);
      return { service, api: new Client(service.url) };
    };
    afterAll(async () => {
      await Promise.all(services.map((s) => s.stop()));
      await backend.cleanup();
    });

    const newKey = async (api: Client) => {
      const jwt = await token({ sub: `u-${randomBytes(4).toString('hex')}`, org: 'counting' });
      const res = await api.post('/api-keys', { name: 'counted', permissions: ['drawings:read'] }, jwt);
      expect(res.status).toBe(201);
      return { jwt, key: res.body.data as { id: string; rawKey: string } };
    };
    const stored = async (id: string) => {
      const [row] = await backend.query('SELECT request_count, last_used FROM api_keys WHERE id = ?', [id]);
      return { count: Number(row!.request_count), lastUsed: row!.last_used };
    };
    const verifyTimes = async (api: Client, rawKey: string, n: number) => {
      const results = await Promise.all(Array.from({ length: n }, () => api.post('/api-keys/verify', { key: rawKey })));
      expect(results.every((r) => r.status === 200 && r.body.data.valid === true)).toBe(true);
    };

    it('writes the counts before it answers a list, and on its own within the interval', async () => {
      const slow = await start(60_000);
      const { jwt, key } = await newKey(slow.api);
      await verifyTimes(slow.api, key.rawKey, 5);
      // Answered, not yet written: the interval is a minute.
      expect(await stored(key.id)).toEqual({ count: 0, lastUsed: null });
      const listed = (await slow.api.get('/api-keys', jwt)).body.data[0];
      expect(listed.requestCount).toBe(5);
      expect(listed.lastUsed).not.toBeNull();
      expect((await stored(key.id)).count).toBe(5);
      // An update answers the key with its counts too.
      await verifyTimes(slow.api, key.rawKey, 2);
      const updated = await slow.api.patch(`/api-keys/${key.id}`, { name: 'renamed', permissions: ['drawings:read'] }, jwt);
      expect(updated.body.data.requestCount).toBe(7);

      const quick = await start(50);
      const other = await newKey(quick.api);
      await verifyTimes(quick.api, other.key.rawKey, 3);
      // Nobody reads the counts through the service: they arrive anyway.
      expect(await eventually(async () => (await stored(other.key.id)).count, 3)).toBe(3);
    });

    it('writes the counts still in memory when it shuts down', async () => {
      const { service, api } = await start(60_000);
      const { key } = await newKey(api);
      await verifyTimes(api, key.rawKey, 7);
      expect((await stored(key.id)).count).toBe(0);
      expect((await service.stop('SIGTERM')).code).toBe(0);
      expect((await stored(key.id)).count).toBe(7);
    });

    const refuseCounts = () =>
      backend.exec(
        backend.name === 'sqlite'
          ? `CREATE TRIGGER refuse_counts BEFORE UPDATE OF request_count ON api_keys BEGIN SELECT RAISE(ABORT, 'counts refused by the test'); END;`
          : `CREATE FUNCTION refuse_counts() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'counts refused by the test'; END $$;
             CREATE TRIGGER refuse_counts BEFORE UPDATE OF request_count ON api_keys FOR EACH ROW EXECUTE FUNCTION refuse_counts();`,
      );
    const acceptCounts = () =>
      backend.exec(backend.name === 'sqlite' ? 'DROP TRIGGER refuse_counts' : 'DROP TRIGGER refuse_counts ON api_keys; DROP FUNCTION refuse_counts()');

    it('keeps the counts through a failed write and writes them once it can', async () => {
      const { service, api } = await start(20);
      const { jwt, key } = await newKey(api);
      await refuseCounts();
      await verifyTimes(api, key.rawKey, 4);
      expect(await eventually(async () => service.stderr().includes('writing verification counts failed'), true)).toBe(true);
      // A list still answers, with the counts as stored.
      const listed = await api.get('/api-keys', jwt);
      expect(listed.status).toBe(200);
      expect(listed.body.data[0].requestCount).toBe(0);
      await verifyTimes(api, key.rawKey, 2);
      await acceptCounts();
      // Retried on its own (a second after a failure): every answered verification is counted once.
      expect(await eventually(async () => (await stored(key.id)).count, 6)).toBe(6);
      expect((await api.get('/api-keys', jwt)).body.data[0].requestCount).toBe(6);
    });

    it('says how many counts it could not write at shutdown, and exits 1', async () => {
      const { service, api } = await start(60_000);
      const { key } = await newKey(api);
      await refuseCounts();
      try {
        await verifyTimes(api, key.rawKey, 3);
        expect((await service.stop('SIGTERM')).code).toBe(1);
        expect(service.stderr()).toContain('3 verification counts could not be written at shutdown');
      } finally {
        await acceptCounts();
      }
      expect((await stored(key.id)).count).toBe(0);
    });

    it('adds up the counts of two processes and answers on every change the other made', async () => {
      const [a, b] = await Promise.all([start(10), start(10)]);
      const { jwt, key } = await newKey(a.api);
      // Alternating: each process answers half, and counts its half.
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).api.post('/api-keys/verify', { key: key.rawKey })));
      expect(results.every((r) => r.body.data.valid === true)).toBe(true);
      // Each list writes its own process's counts first: after A's list, B's list shows all of them.
      await a.api.get('/api-keys', jwt);
      expect((await b.api.get('/api-keys', jwt)).body.data[0].requestCount).toBe(40);
      expect((await a.api.get('/api-keys', jwt)).body.data[0].requestCount).toBe(40);

      // B has this key's permissions in memory; A changes them, then revokes the key.
      expect((await a.api.patch(`/api-keys/${key.id}`, { name: 'k', permissions: ['plots:create'] }, jwt)).status).toBe(200);
      expect((await b.api.post('/api-keys/verify', { key: key.rawKey, permissions: ['drawings:read'] })).body.data).toEqual({
        valid: false,
        code: 'INSUFFICIENT_PERMISSIONS',
      });
      expect((await b.api.post('/api-keys/verify', { key: key.rawKey, permissions: ['plots:create'] })).body.data.valid).toBe(true);
      expect((await a.api.delete(`/api-keys/${key.id}`, jwt)).status).toBe(200);
      expect((await b.api.post('/api-keys/verify', { key: key.rawKey })).body.data).toEqual({ valid: false, code: 'REVOKED' });
      expect((await a.api.delete(`/api-keys/${key.id}/permanent`, jwt)).status).toBe(200);
      expect((await b.api.post('/api-keys/verify', { key: key.rawKey })).body.data).toEqual({ valid: false, code: 'NOT_FOUND' });
    });
  });
}

