import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  sql,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  type SqliteDialectConfig,
  type SqliteStatement,
} from 'kysely';
import { KyselyKeyStore } from './kysely-store.js';
import { migrateToLatest, type Database } from './migrations.js';
import type { KeyStore } from './types.js';

/**
 * Write transactions start with BEGIN IMMEDIATE: they take the write lock up front, so a transaction
 * that reads (e.g. counts active keys) and then writes cannot be overtaken by another process
 * sharing the file, and waits (busy_timeout) instead of failing on a stale snapshot.
 */
class ImmediateTransactionDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class KeysSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateTransactionDriver(this.settings);
  }
}

/** better-sqlite3 compiles a statement on every `prepare`; the service runs a fixed set of queries. */
const STATEMENT_CACHE_LIMIT = 256;

function cachingDatabase(db: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    prepare(text: string): SqliteStatement {
      let stmt = cache.get(text);
      if (!stmt) {
        stmt = db.prepare(text) as unknown as SqliteStatement;
        if (cache.size >= STATEMENT_CACHE_LIMIT) cache.clear();
        cache.set(text, stmt);
      }
      return stmt;
    },
    close(): void {
      cache.clear();
      db.close();
    },
  };
}

export interface SqliteStoreOptions {
  /** File path, or `:memory:`. */
  path: string;
}

export async function openSqliteStore(options: SqliteStoreOptions): Promise<KeyStore> {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const raw = new BetterSqlite3(options.path, { timeout: 5000 });
  try {
    // WAL lets readers proceed during a write; NORMAL syncs at checkpoints rather than at every
    // commit, which keeps per-verification counting cheap while never corrupting the file.
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    raw.pragma('foreign_keys = ON');
  } catch (err) {
    raw.close();
    throw err;
  }
  // Moves whenever another connection (another process sharing the file) commits; a pragma read of
  // the WAL index header, no file access.
  const dataVersion = raw.prepare('pragma data_version').pluck();
  const db = new Kysely<Database>({ dialect: new KeysSqliteDialect({ database: cachingDatabase(raw) }) });
  try {
    await migrateToLatest(db, 'sqlite');
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return new KyselyKeyStore(db, {
    dialect: 'sqlite',
    bool: (value) => (value ? 1 : 0),
    rowLocks: false,
    lockOwner: async () => {},
    hashIn: (list) => sql<boolean>`key_hash in (select value from json_each(${list}))`,
    hashList: (hashes) => JSON.stringify(hashes),
    countInOneTransaction: true,
    relaxedCountCommit: false,
    verifyBatchesInFlight: 1,
    externalVersion: () => dataVersion.get() as number,
  });
}
