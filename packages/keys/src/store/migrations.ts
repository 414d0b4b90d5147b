import {
  Migrator,
  sql,
  type ColumnType,
  type CreateTableBuilder,
  type Generated,
  type Kysely,
  type Migration,
  type MigrationProvider,
} from 'kysely';
import type { Dialect } from './types.js';

/**
 * Table shapes as the drivers see them. SQLite keeps timestamps as ISO 8601 text and booleans as
 * 0/1; PostgreSQL uses timestamptz, boolean, bigint and jsonb. Writes always pass ISO strings (both
 * databases accept them for their column type) and reads normalise in the store.
 */
type DbTime = ColumnType<string | Date, string, string>;
type DbBool = ColumnType<number | boolean, number | boolean, number | boolean>;
type DbCount = ColumnType<number | string, number | undefined, never>;
/** bigint on PostgreSQL, which the driver answers as a string. */
type DbNumber = ColumnType<number | string, number, number>;

export interface ApiKeysTable {
  /** Insertion order: the deterministic tie-break for keys created in the same millisecond. */
  seq: Generated<number | string>;
  id: string;
  user_id: string;
  organization_id: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  /** JSON array text in both dialects, so that it can be compared as a whole in a guard. */
  permissions: string;
  last_used: DbTime | null;
  expires_at: DbTime | null;
  is_active: DbBool;
  request_count: DbCount;
  created_at: DbTime;
  // Added by 0002. All nullable (or defaulted), so rows of 0001 read as keys without the features.
  /** A JSON object's text, kept as sent (key order included); jsonb would reorder it. */
  meta: string | null;
  ratelimit_limit: DbNumber | null;
  ratelimit_duration_ms: DbNumber | null;
  /** Start (ms since the epoch) of the window `ratelimit_window_used` counts in. */
  ratelimit_window_start: DbNumber | null;
  ratelimit_window_used: ColumnType<number | string, number | undefined, number>;
  remaining: DbNumber | null;
  refill_interval: string | null;
  refill_amount: DbNumber | null;
  refilled_at: DbTime | null;
  rolled_from: string | null;
  replaced_by: string | null;
}

export interface AuditLogsTable {
  /** Insertion order: newest-first listing and the pagination cursor. */
  seq: Generated<number | string>;
  id: string;
  category: string;
  action: string;
  level: string;
  message: string;
  user_id: string;
  organization_id: string;
  meta: ColumnType<string | Record<string, unknown>, string, string>;
  created_at: DbTime;
}

export interface Database {
  api_keys: ApiKeysTable;
  audit_logs: AuditLogsTable;
}

export const MIGRATION_TABLE = 'keys_migration';
export const MIGRATION_LOCK_TABLE = 'keys_migration_lock';

/**
 * Migrations are dialect-aware: one ordered list whose steps pick column types per dialect. Names
 * sort in application order; never edit a released step, add a new one.
 */
function migrations(dialect: Dialect): Record<string, Migration> {
  const pg = dialect === 'postgres';
  const time = pg ? 'timestamptz' : 'text';
  // The insertion-order key is the rowid on SQLite and an identity column on PostgreSQL.
  const withSeq = (table: CreateTableBuilder<string, never>) =>
    pg
      ? table.addColumn('seq', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      : table.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement());

  return {
    '0001_api_keys_and_audit_logs': {
      async up(db: Kysely<any>) {
        await withSeq(db.schema.createTable('api_keys'))
          .addColumn('id', pg ? 'uuid' : 'text', (c) => c.notNull().unique())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('organization_id', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('key_hash', 'text', (c) => c.notNull().unique())
          .addColumn('key_prefix', 'text', (c) => c.notNull())
          .addColumn('permissions', 'text', (c) => c.notNull())
          .addColumn('last_used', time)
          .addColumn('expires_at', time)
          .addColumn('is_active', pg ? 'boolean' : 'integer', (c) => c.notNull())
          .addColumn('request_count', pg ? 'bigint' : 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('created_at', time, (c) => c.notNull())
          .execute();
        // Listing and the active-key count both filter by owner; the listing also sorts.
        await db.schema
          .createIndex('api_keys_owner_idx')
          .on('api_keys')
          .columns(['organization_id', 'user_id', 'created_at desc', 'seq desc'])
          .execute();

        await withSeq(db.schema.createTable('audit_logs'))
          .addColumn('id', pg ? 'uuid' : 'text', (c) => c.notNull().unique())
          .addColumn('category', 'text', (c) => c.notNull())
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('level', 'text', (c) => c.notNull())
          .addColumn('message', 'text', (c) => c.notNull())
          .addColumn('user_id', 'text', (c) => c.notNull())
          .addColumn('organization_id', 'text', (c) => c.notNull())
          .addColumn('meta', pg ? 'jsonb' : 'text', (c) => c.notNull())
          .addColumn('created_at', time, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('audit_logs_org_idx').on('audit_logs').columns(['organization_id', 'seq desc']).execute();
        await db.schema
          .createIndex('audit_logs_org_action_idx')
          .on('audit_logs')
          .columns(['organization_id', 'action', 'seq desc'])
          .execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.dropTable('audit_logs').execute();
        await db.schema.dropTable('api_keys').execute();
      },
    },
    // Issue 16: meta, a rate limit, a usage limit with its refill, and the links of a rolled key.
    '0002_key_meta_limits_and_roll': {
      async up(db: Kysely<any>) {
        const big = pg ? 'bigint' : 'integer';
        const columns: Array<[string, string]> = [
          ['meta', 'text'],
          ['ratelimit_limit', big],
          ['ratelimit_duration_ms', big],
          ['ratelimit_window_start', big],
          ['remaining', big],
          ['refill_interval', 'text'],
          ['refill_amount', big],
          ['refilled_at', time],
          ['rolled_from', pg ? 'uuid' : 'text'],
          ['replaced_by', pg ? 'uuid' : 'text'],
        ];
        // One column per statement: SQLite's ALTER TABLE adds one at a time.
        for (const [name, type] of columns) await db.schema.alterTable('api_keys').addColumn(name, sql.raw(type)).execute();
        await db.schema
          .alterTable('api_keys')
          .addColumn('ratelimit_window_used', sql.raw(big), (c) => c.notNull().defaultTo(0))
          .execute();
      },
      async down(db: Kysely<any>) {
        for (const name of [
          'ratelimit_window_used',
          'replaced_by',
          'rolled_from',
          'refilled_at',
          'refill_amount',
          'refill_interval',
          'remaining',
          'ratelimit_window_start',
          'ratelimit_duration_ms',
          'ratelimit_limit',
          'meta',
        ]) {
          await db.schema.alterTable('api_keys').dropColumn(name).execute();
        }
      },
    },
  };
}

/** The service's migrations for one dialect (exported for tests that start from an older schema). */
export class KeysMigrationProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations(this.dialect);
  }
}

export interface MigrationOutcome {
  applied: string[];
}

/**
 * Brings the schema up to date. On PostgreSQL the migrator holds an advisory lock, so processes
 * starting together apply each step once.
 */
export async function migrateToLatest(db: Kysely<any>, dialect: Dialect, schema?: string): Promise<MigrationOutcome> {
  const migrator = new Migrator({
    db,
    provider: new KeysMigrationProvider(dialect),
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    const where = failed ? ` (step ${failed.migrationName})` : '';
    throw new Error(`database migration failed${where}: ${(error as Error).message ?? String(error)}`, { cause: error });
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

/** The schema PostgreSQL resolves unqualified names in, so the migration table lands beside ours. */
export async function currentSchema(db: Kysely<any>): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('PostgreSQL has no current schema: check search_path or DATABASE_SCHEMA');
  return schema;
}
