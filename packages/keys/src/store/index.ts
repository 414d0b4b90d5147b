import type { DatabaseConfig } from '../config.js';
import type { KeyStore } from './types.js';

export type * from './types.js';
export { KyselyKeyStore } from './kysely-store.js';
export type { PostgresStoreOptions } from './postgres.js';
export type { SqliteStoreOptions } from './sqlite.js';

// Each driver loads only when its database is used (pg is not needed on SQLite and vice versa).
export async function openSqliteStore(options: import('./sqlite.js').SqliteStoreOptions): Promise<KeyStore> {
  return (await import('./sqlite.js')).openSqliteStore(options);
}

export async function openPostgresStore(options: import('./postgres.js').PostgresStoreOptions): Promise<KeyStore> {
  return (await import('./postgres.js')).openPostgresStore(options);
}

export interface OpenStoreHooks {
  onPoolError?: (err: Error) => void;
}

/** Opens the configured database and brings its schema up to date. */
export async function openStore(database: DatabaseConfig, hooks: OpenStoreHooks = {}): Promise<KeyStore> {
  if (database.kind === 'sqlite') return openSqliteStore({ path: database.path });
  return openPostgresStore({
    url: database.url,
    schema: database.schema,
    poolSize: database.poolSize,
    ...(hooks.onPoolError ? { onPoolError: hooks.onPoolError } : {}),
  });
}
