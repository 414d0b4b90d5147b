import { createHash } from 'node:crypto';
import { Kysely, PostgresDialect, sql, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { KyselyKeyStore } from './kysely-store.js';
import { currentSchema, migrateToLatest, type Database } from './migrations.js';
import type { KeyStore } from './types.js';

export interface PostgresStoreOptions {
  url: string;
  /** Schema for the tables (created if missing); default: the connection's current schema. */
  schema?: string | undefined;
  poolSize?: number;
  /** Idle pool clients can fail (server restart, network); the pool must not crash the process. */
  onPoolError?: (err: Error) => void;
}

/**
 * Runs the store's hot statements (verification) as named prepared statements: PostgreSQL parses
 * and plans them once per connection instead of on every call. Other statements pass through.
 */
function preparingPool(pool: pg.Pool, hot: Set<string>): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (!name) {
      name = `lwk_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
      names.set(text, name);
    }
    return name;
  };
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = {
          query: ((text: unknown, values?: ReadonlyArray<unknown>) => {
            if (typeof text === 'string' && hot.has(text)) {
              return client.query({ name: nameOf(text), text, values: values as unknown[] });
            }
            return client.query(text as string, values as unknown[]);
          }) as unknown as PostgresPoolClient['query'],
          release: () => client.release(),
        };
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}

async function ensureSchema(pool: pg.Pool, schema: string): Promise<void> {
  try {
    await pool.query(`create schema if not exists ${schema}`);
  } catch (err) {
    // Two processes creating the schema at once: one of them loses the race on the catalogue.
    const code = (err as { code?: string }).code;
    if (code !== '23505' && code !== '42P06') throw err;
  }
}

export async function openPostgresStore(options: PostgresStoreOptions): Promise<KeyStore> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    application_name: 'linework-keys',
    // The schema is validated as a lower-case identifier by the configuration.
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  pool.on('error', options.onPoolError ?? (() => {}));
  const hot = new Set<string>();
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(pool, hot) }) });
  try {
    if (options.schema) await ensureSchema(pool, options.schema);
    const schema = options.schema ?? (await currentSchema(db));
    await migrateToLatest(db, 'postgres', schema);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const store = new KyselyKeyStore(db, {
    dialect: 'postgres',
    bool: (value) => value,
    rowLocks: true,
    // A transaction-scoped advisory lock per owner: creations for one owner queue up behind each
    // other (across processes), while different owners never wait on each other.
    lockOwner: async (trx, owner) => {
      const key = `linework-keys:${owner.organizationId}:${owner.userId}`;
      await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
    },
    hashIn: (list) => sql<boolean>`key_hash = any(${list}::text[])`,
    hashList: (hashes) => hashes,
    countInOneTransaction: false,
    relaxedCountCommit: true,
    verifyBatchesInFlight: 3,
    externalVersion: null,
  });
  for (const text of store.hotStatements()) hot.add(text);
  return store;
}
