/**
 * Two service processes on one PostgreSQL database: nothing one process keeps in memory may make
 * the other answer wrong. Runs when TEST_POSTGRES_URL is set; visibly skipped otherwise.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresBackend } from './helpers/backends.js';
import { Client } from './helpers/http.js';
import { startService, TEST_SECRET, type ServiceProcess } from './helpers/service.js';
import { token } from './helpers/tokens.js';

const backend = postgresBackend();

describe.skipIf(!backend.available)('two service processes sharing one PostgreSQL database', () => {
  let a: ServiceProcess;
  let b: ServiceProcess;
  let A: Client;
  let B: Client;
  const org = `org-${randomBytes(4).toString('hex')}`;
  let dev: string;
  let admin: string;

  beforeAll(async () => {
    const env = { AUTH_JWT_SECRET: TEST_SECRET, ...backend.env };
    // Started together: both run the migrations at once and must agree.
    [a, b] = await Promise.all([startService({ env }), startService({ env })]);
    A = new Client(a.url);
    B = new Client(b.url);
    dev = await token({ sub: 'dev-1', org });
    admin = await token({ sub: 'admin-1', org, role: 'ADMIN' });
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await backend.cleanup();
  });

  it('sees keys created, updated and revoked through the other process at once', async () => {
    const created = await A.post('/api-keys', { name: 'shared', permissions: ['drawings:read'] }, dev);
    expect(created.status).toBe(201);
    const key = created.body.data;
    expect((await B.get('/api-keys', dev)).body.data.map((k: any) => k.id)).toEqual([key.id]);
    expect((await B.post('/api-keys/verify', { key: key.rawKey, permissions: ['drawings:read'] })).body.data.valid).toBe(true);

    expect((await B.patch(`/api-keys/${key.id}`, { name: 'shared', permissions: ['plots:create'] }, dev)).status).toBe(200);
    expect((await A.post('/api-keys/verify', { key: key.rawKey, permissions: ['drawings:read'] })).body.data).toEqual({
      valid: false,
      code: 'INSUFFICIENT_PERMISSIONS',
    });

    expect((await A.delete(`/api-keys/${key.id}`, dev)).status).toBe(200);
    expect((await B.post('/api-keys/verify', { key: key.rawKey })).body.data).toEqual({ valid: false, code: 'REVOKED' });
    expect((await B.delete(`/api-keys/${key.id}/permanent`, dev)).status).toBe(200);
    expect((await A.post('/api-keys/verify', { key: key.rawKey })).body.data).toEqual({ valid: false, code: 'NOT_FOUND' });

    const actions = (await B.get('/audit-logs', admin)).body.data.map((e: any) => e.action);
    expect(actions).toEqual(['API_KEY_REMOVE', 'API_KEY_REVOKE', 'API_KEY_UPDATE', 'API_KEY_CREATE']);
    expect((await A.get('/audit-logs', admin)).body.data.map((e: any) => e.action)).toEqual(actions);
  });

  it('adds up verification counts from both processes exactly', async () => {
    const key = (await A.post('/api-keys', { name: 'counted' }, dev)).body.data;
    const calls = Array.from({ length: 40 }, (_, i) => (i % 2 ? A : B).post('/api-keys/verify', { key: key.rawKey }));
    const results = await Promise.all(calls);
    expect(results.every((r) => r.body.data.valid === true)).toBe(true);
    const seenByA = (await A.get('/api-keys', dev)).body.data.find((k: any) => k.id === key.id);
    const seenByB = (await B.get('/api-keys', dev)).body.data.find((k: any) => k.id === key.id);
    expect(seenByA.requestCount).toBe(40);
    expect(seenByB).toEqual(seenByA);
    expect(seenByA.lastUsed).not.toBeNull();
  });

  it('holds the 100-active-key limit across processes', async () => {
    const user = await token({ sub: 'bulk', org });
    const first = await Promise.all(Array.from({ length: 94 }, (_, i) => (i % 2 ? A : B).post('/api-keys', { name: `k${i}` }, user)));
    expect(first.every((r) => r.status === 201)).toBe(true);
    const burst = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? A : B).post('/api-keys', { name: `b${i}` }, user)));
    expect(burst.filter((r) => r.status === 201)).toHaveLength(6);
    expect(burst.filter((r) => r.status === 409)).toHaveLength(10);
    const active = (await A.get('/api-keys', user)).body.data.filter((k: any) => k.isActive);
    expect(active).toHaveLength(100);
  });
});
