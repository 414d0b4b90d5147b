/**
 * Logs must never carry a raw key, a key hash or a token. The service runs at trace level (every
 * line the code can write) through a full key life cycle, failures included, and its stderr is
 * searched for every secret it handled.
 */
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, scrubSecrets } from '../src/logger.js';
import { sqliteBackend } from './helpers/backends.js';
import { Client } from './helpers/http.js';
import { startService, TEST_SECRET, type ServiceProcess } from './helpers/service.js';
import { token } from './helpers/tokens.js';

describe('service logs hold no secrets', () => {
  const backend = sqliteBackend();
  let service: ServiceProcess;
  afterAll(() => backend.cleanup());

  beforeAll(async () => {
    service = await startService({ args: backend.args, env: { AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'trace' } });
  });

  it('through create, list, verify, update, revoke, remove, audit, auth failures and a 500', async () => {
    const api = new Client(service.url);
    const jwt = await token({ sub: 'logger', org: 'org-logs', role: 'OWNER' });
    const badJwt = await token({ secret: 'some-other-secret-some-other-secret' });
    const expiredJwt = await token({ expiresIn: -60 });
    const secrets = [TEST_SECRET, jwt, badJwt, expiredJwt];

    const created = await api.post('/api-keys', { name: 'logged', permissions: ['*'] }, jwt);
    expect(created.status).toBe(201);
    const { rawKey, id } = created.body.data;
    const keyHash = createHash('sha256').update(rawKey).digest('hex');
    secrets.push(rawKey, keyHash);
    await api.get('/api-keys', jwt);
    await api.post('/api-keys/verify', { key: rawKey, permissions: ['drawings:read'] });
    await api.post('/api-keys/verify', { key: rawKey, permissions: ['nope'] });
    await api.request('POST', '/api-keys/verify', { raw: `{"key":"${rawKey}"` });
    await api.patch(`/api-keys/${id}`, { name: 'renamed', permissions: [] }, jwt);
    await api.get('/audit-logs', jwt);
    await api.get('/api-keys', badJwt);
    await api.get('/api-keys', expiredJwt);
    await api.request('GET', `/api-keys?token=${jwt}`, { headers: { authorization: `Basic ${jwt}` } });

    // An internal failure: the database refuses the audit insert; its error is logged.
    await backend.exec(backend.failingAuditTriggerSql);
    const failed = await api.post('/api-keys', { name: `FAIL-AUDIT ${rawKey}` }, jwt);
    expect(failed.status).toBe(500);

    await api.delete(`/api-keys/${id}`, jwt);
    await api.delete(`/api-keys/${id}/permanent`, jwt);
    expect((await service.stop()).code).toBe(0);

    const log = service.stderr();
    // The capture is real: request lines and the internal error are there.
    expect(log).toMatch(/"url":"\/api-keys\/verify".*"statusCode":200/);
    expect(log).toMatch(/"statusCode":201/);
    expect(log).toMatch(/"level":50.*audit insert refused/);
    for (const line of log.split('\n').filter((l) => l.startsWith('{'))) expect(() => JSON.parse(line)).not.toThrow();
    for (const secret of secrets) expect(log.includes(secret), `log contains ${secret.slice(0, 12)}...`).toBe(false);
    // Nor any fragment long enough to matter.
    expect(log).not.toContain(rawKey.slice(4, 40));
    expect(log).not.toContain(keyHash.slice(0, 40));
    expect(log).not.toContain(jwt.split('.')[2]);
  });
});

describe('service logs hold no secrets of rolled and limited keys', () => {
  const backend = sqliteBackend();
  afterAll(() => backend.cleanup());

  it('through a limited key, its verifications, a roll and the new key', async () => {
    const service = await startService({ args: backend.args, env: { AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'trace' } });
    const api = new Client(service.url);
    const jwt = await token({ sub: 'roller', org: 'org-logs', role: 'OWNER' });
    const created = await api.post('/api-keys', { name: 'limited', remaining: 2, ratelimit: { limit: 5, durationMs: 60_000 }, meta: { a: 1 } }, jwt);
    const { rawKey, id } = created.body.data;
    const keyHash = createHash('sha256').update(rawKey).digest('hex');
    for (let i = 0; i < 3; i++) await api.post('/api-keys/verify', { key: rawKey });
    const rolled = await api.post(`/api-keys/${id}/roll`, { overlapSeconds: 0 }, jwt);
    expect(rolled.status).toBe(201);
    const fresh = rolled.body.data;
    await api.post('/api-keys/verify', { key: fresh.rawKey });
    await api.get(`/api-keys/${fresh.id}`, jwt);
    expect((await service.stop()).code).toBe(0);

    const log = service.stderr();
    expect(log).toMatch(/"url":"\/api-keys\/[0-9a-f-]{36}\/roll".*"statusCode":201/);
    const freshHash = createHash('sha256').update(fresh.rawKey).digest('hex');
    for (const secret of [rawKey, keyHash, fresh.rawKey, freshHash, jwt]) expect(log.includes(secret), `log contains ${secret.slice(0, 12)}...`).toBe(false);
    expect(log).not.toContain(fresh.rawKey.slice(4, 40));
  });
});

describe('logger', () => {
  it('redacts known fields and scrubs secrets from any text', () => {
    let out = '';
    const sink = new Writable({
      write(chunk, _enc, cb) {
        out += chunk.toString();
        cb();
      },
    });
    const logger = createLogger('info', sink as any);
    const rawKey = `lwk_${'ab'.repeat(24)}`;
    const hash = 'cd'.repeat(32);
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    logger.info({ req: { headers: { authorization: `Bearer ${jwt}` } }, body: { key: rawKey }, rawKey, keyHash: hash }, 'redaction');
    logger.error({ err: new Error(`duplicate key_hash (${hash}) for ${rawKey} with ${jwt}`) }, 'failure');
    expect(out).not.toContain(rawKey);
    expect(out).not.toContain(hash);
    expect(out).not.toContain(jwt);
    expect(out).toContain('[REDACTED]');
    expect(out).toContain('duplicate key_hash');
    expect(scrubSecrets(`x ${rawKey} y`)).toBe('x lwk_[REDACTED] y');
  });
});
