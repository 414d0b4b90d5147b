/**
 * The databases a suite runs on: SQLite always, PostgreSQL when TEST_POSTGRES_URL is set. Each
 * backend instance owns a fresh database (a temporary file, or a random schema it drops after).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

export interface Backend {
  name: 'sqlite' | 'postgres';
  available: boolean;
  /** CLI arguments and environment that point a service process at this database. */
  args: string[];
  env: Record<string, string>;
  /** Runs SQL directly against the database (test set-up only: triggers, clock changes). */
  exec(sqlText: string, params?: unknown[]): Promise<void>;
  /** Reads rows directly from the database, behind the service's back (`?` placeholders on both). */
  query(sqlText: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  /** Triggers that make the audit insert fail when the message contains FAIL-AUDIT. */
  failingAuditTriggerSql: string;
  cleanup(): Promise<void>;
}

export const POSTGRES_URL = process.env.TEST_POSTGRES_URL;

export function sqliteBackend(): Backend {
  const dir = mkdtempSync(join(tmpdir(), 'linework-keys-test-'));
  const path = join(dir, 'keys.db');
  return {
    name: 'sqlite',
    available: true,
    args: ['--db', path],
    env: {},
    async exec(sqlText, params = []) {
      const db = new Database(path, { timeout: 5000 });
      try {
        if (params.length) db.prepare(sqlText).run(...params);
        else db.exec(sqlText);
      } finally {
        db.close();
      }
    },
    async query(sqlText, params = []) {
      const db = new Database(path, { timeout: 5000, readonly: true });
      try {
        return db.prepare(sqlText).all(...params) as Array<Record<string, unknown>>;
      } finally {
        db.close();
      }
    },
    failingAuditTriggerSql: `CREATE TRIGGER fail_audit BEFORE INSERT ON audit_logs WHEN NEW.message LIKE '%FAIL-AUDIT%'
      BEGIN SELECT RAISE(ABORT, 'audit insert refused by the test trigger'); END;`,
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function postgresBackend(url = POSTGRES_URL): Backend {
  const schema = `keys_test_${randomBytes(6).toString('hex')}`;
  const connect = async () => {
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await client.connect();
    return client;
  };
  return {
    name: 'postgres',
    available: Boolean(url),
    args: [],
    env: url ? { DATABASE_URL: url, DATABASE_SCHEMA: schema } : {},
    async exec(sqlText, params = []) {
      const client = await connect();
      try {
        await client.query(sqlText, params);
      } finally {
        await client.end();
      }
    },
    async query(sqlText, params = []) {
      const client = await connect();
      try {
        let n = 0;
        return (await client.query(sqlText.replace(/\?/g, () => `$${++n}`), params)).rows as Array<Record<string, unknown>>;
      } finally {
        await client.end();
      }
    },
    failingAuditTriggerSql: `
      CREATE FUNCTION fail_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.message LIKE '%FAIL-AUDIT%' THEN RAISE EXCEPTION 'audit insert refused by the test trigger'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER fail_audit BEFORE INSERT ON audit_logs FOR EACH ROW EXECUTE FUNCTION fail_audit();`,
    async cleanup() {
      if (!url) return;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
