/**
 * A database made by the first release (migration 0001 only, with keys and audit records in it) is
 * brought up to date by the service at start-up, and its keys answer exactly as they did: no meta,
 * no limits, the nine list fields. On SQLite and, with TEST_POSTGRES_URL, PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { hashKey } from '../src/keys.js';
import { KeysMigrationProvider, MIGRATION_LOCK_TABLE, MIGRATION_TABLE } from '../src/store/migrations.js';
import { postgresBackend, sqliteBackend, type Backend } from './helpers/backends.js';
import { Client } from './helpers/http.js';
import { startService, TEST_SECRET } from './helpers/service.js';
import { token } from './helpers/tokens.js';

const FIRST = '0001_api_keys_and_audit_logs';

/** Applies the first migration only, as the first release did, and inserts one key the way it did. */
async function firstRelease(backend: Backend, rawKey: string, id: string): Promise<void> {
  let db: Kysely<any>;
  if (backend.name === 'sqlite') {
    db = new Kysely({ dialect: new SqliteDialect({ database: new Database(backend.args[1]!) }) });
  } else {
    const pool = new pg.Pool({ connectionString: backend.env.DATABASE_URL, max: 1, options: `-c search_path=${backend.env.DATABASE_SCHEMA}` });
    await pool.query(`create schema if not exists ${backend.env.DATABASE_SCHEMA}`);
    db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  }
  try {
    const migrator = new Migrator({
      db,
      provider: new KeysMigrationProvider(backend.name),
      migrationTableName: MIGRATION_TABLE,
      migrationLockTableName: MIGRATION_LOCK_TABLE,
      ...(backend.name === 'postgres' ? { migrationTableSchema: backend.env.DATABASE_SCHEMA } : {}),
    });
    const { error } = await migrator.migrateTo(FIRST);
    if (error) throw error;
    await db
      .insertInto('api_keys')
      .values({
        id,
        user_id: 'old-user',
        organization_id: 'old-org',
        name: 'from the first release',
        key_hash: hashKey(rawKey),
        key_prefix: `${rawKey.slice(0, 12)}_`,
        permissions: JSON.stringify(['drawings:read']),
        last_used: null,
        expires_at: null,
        is_active: backend.name === 'sqlite' ? 1 : true,
        request_count: 7,
        created_at: new Date().toISOString(),
      })
      .execute();
  } finally {
    await db.destroy();
  }
}

for (const backend of [sqliteBackend(), postgresBackend()]) {
  describe.skipIf(!backend.available)(`upgrading a first-release database on ${backend.name}`, () => {
    afterAll(() => backend.cleanup());

    it('applies the new migration once and answers the old keys exactly as before', async () => {
      const rawKey = `lwk_${'5'.repeat(48)}`;
      const id = randomUUID();
      await firstRelease(backend, rawKey, id);
      const service = await startService({ args: backend.args, env: { AUTH_JWT_SECRET: TEST_SECRET, ...backend.env } });
      try {
        const api = new Client(service.url);
        const verified = await api.post('/api-keys/verify', { key: rawKey });
        expect(verified.body.data).toEqual({ valid: true, id, userId: 'old-user', organizationId: 'old-org', permissions: ['drawings:read'], expiresAt: null });
        const jwt = await token({ sub: 'old-user', org: 'old-org' });
        const [listed] = (await api.get('/api-keys', jwt)).body.data;
        expect(Object.keys(listed).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'isActive', 'keyPrefix', 'lastUsed', 'name', 'permissions', 'requestCount']);
        expect(listed.requestCount).toBe(8);
        // The new settings work on the old key.
        const patched = await api.patch(`/api-keys/${id}`, { name: 'upgraded', permissions: ['drawings:read'], remaining: 1 }, jwt);
        expect(patched.body.data.remaining).toBe(1);
        expect((await api.post('/api-keys/verify', { key: rawKey })).body.data.remaining).toBe(0);
      } finally {
        await service.stop();
      }
      const applied = await backend.query(`SELECT name FROM ${MIGRATION_TABLE} ORDER BY name`);
      expect(applied.map((r) => r.name)).toEqual([FIRST, '0002_key_meta_limits_and_roll']);
    });
  });
}
