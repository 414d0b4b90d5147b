import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DEFAULT_MAX_TOKEN_LIFETIME_S, type AuthSettings } from './auth.js';
import { parseAllowedPermissions } from './permissions.js';

export type DatabaseConfig =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string; schema: string | undefined; poolSize: number };

export interface Config {
  host: string;
  port: number;
  database: DatabaseConfig;
  permissions: string[];
  jwt: {
    secret: string | undefined;
    jwksUrl: string | undefined;
    issuer: string | undefined;
    audience: string | undefined;
    /** AUTH_MAX_TOKEN_LIFETIME in seconds. */
    maxLifetimeSeconds: number;
  };
  /** Where a generated development secret lives when neither a secret nor a JWKS is configured. */
  devSecretPath: string;
  /** Refuse to run on a generated secret (NODE_ENV=production). */
  requireConfiguredAuth: boolean;
  logLevel: string;
  maxActiveKeysPerOwner: number;
  bodyLimit: number;
  /** VERIFY_COUNT_FLUSH_MS; undefined: the database's default. */
  countFlushMs: number | undefined;
}

export interface ConfigFlags {
  port?: string | undefined;
  host?: string | undefined;
  db?: string | undefined;
}

export const DEFAULT_PORT = 8090;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_DB_PATH = join('data', 'keys.db');
export const DEV_SECRET_FILE = 'jwt-secret';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
// Lower-case only: PostgreSQL folds unquoted names, so the name is used as written everywhere.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

const SPAN_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** AUTH_MAX_TOKEN_LIFETIME: seconds, or a number with s, m, h or d (`24h`); default 24 h. */
function parseLifetime(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_TOKEN_LIFETIME_S;
  const m = /^(\d+)\s*([smhd]?)$/i.exec(value);
  const seconds = m ? Number(m[1]) * SPAN_SECONDS[(m[2] || 's').toLowerCase()]! : NaN;
  if (!(seconds >= 1 && seconds <= 366 * 86400)) {
    throw new ConfigError(`invalid AUTH_MAX_TOKEN_LIFETIME "${value}": expected seconds or a span such as 30m, 24h, 7d (1 s to 366 d)`);
  }
  return seconds;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new ConfigError(`invalid port "${value}": expected 0 to 65535`);
  return port;
}

/**
 * Builds the configuration from CLI flags and the environment. Flags win over the environment, so
 * `--db` selects SQLite even when DATABASE_URL is set.
 */
export function loadConfig(flags: ConfigFlags = {}, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const databaseUrl = nonEmpty(env.DATABASE_URL);
  const dbFlag = nonEmpty(flags.db);
  let database: DatabaseConfig;
  if (databaseUrl && !dbFlag) {
    if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
      throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
    }
    const schema = nonEmpty(env.DATABASE_SCHEMA);
    if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
      throw new ConfigError(`DATABASE_SCHEMA "${schema}" is not a lower-case SQL identifier (a-z, 0-9, _)`);
    }
    const poolSize = Number(nonEmpty(env.DATABASE_POOL_SIZE) ?? 10);
    if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 1000) {
      throw new ConfigError('DATABASE_POOL_SIZE must be an integer from 1 to 1000');
    }
    database = { kind: 'postgres', url: databaseUrl, schema, poolSize };
  } else {
    database = { kind: 'sqlite', path: resolve(cwd, dbFlag ?? nonEmpty(env.KEYS_DB_PATH) ?? DEFAULT_DB_PATH) };
  }

  const logLevel = (nonEmpty(env.LOG_LEVEL) ?? 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  let permissions: string[];
  try {
    permissions = parseAllowedPermissions(env.API_KEY_PERMISSIONS);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }

  const flush = nonEmpty(env.VERIFY_COUNT_FLUSH_MS);
  if (flush !== undefined && !(/^\d+$/.test(flush) && Number(flush) <= 60_000)) {
    throw new ConfigError('VERIFY_COUNT_FLUSH_MS must be an integer from 0 to 60000 (milliseconds)');
  }

  const jwksUrl = nonEmpty(env.AUTH_JWKS_URL);
  if (jwksUrl !== undefined && !/^https?:\/\//.test(jwksUrl)) throw new ConfigError('AUTH_JWKS_URL must be an http(s) URL');

  return {
    host: nonEmpty(flags.host) ?? DEFAULT_HOST,
    port: flags.port !== undefined ? parsePort(flags.port) : DEFAULT_PORT,
    database,
    permissions,
    jwt: {
      // A secret is used verbatim: surrounding spaces could be part of it.
      secret: env.AUTH_JWT_SECRET === undefined || env.AUTH_JWT_SECRET === '' ? undefined : env.AUTH_JWT_SECRET,
      jwksUrl,
      issuer: nonEmpty(env.AUTH_JWT_ISSUER),
      audience: nonEmpty(env.AUTH_JWT_AUDIENCE),
      maxLifetimeSeconds: parseLifetime(nonEmpty(env.AUTH_MAX_TOKEN_LIFETIME)),
    },
    devSecretPath: join(database.kind === 'sqlite' ? dirname(database.path) : resolve(cwd, 'data'), DEV_SECRET_FILE),
    requireConfiguredAuth: env.NODE_ENV === 'production',
    logLevel,
    maxActiveKeysPerOwner: 100,
    bodyLimit: 64 * 1024,
    countFlushMs: flush === undefined ? undefined : Number(flush),
  };
}

export interface ResolvedAuth {
  settings: AuthSettings;
  /** Set when the service runs on the generated development secret. */
  devSecretPath: string | undefined;
}

/**
 * The verification settings, falling back to a development secret persisted next to the database
 * so that `linework-keys token` (another process) can mint tokens this service accepts.
 */
export function resolveAuth(config: Config): ResolvedAuth {
  const { secret, jwksUrl, issuer, audience, maxLifetimeSeconds } = config.jwt;
  const claims = { ...(issuer ? { issuer } : {}), ...(audience ? { audience } : {}), maxLifetimeSeconds };
  if (secret !== undefined || jwksUrl !== undefined) {
    return {
      settings: { ...(secret !== undefined ? { secret: new TextEncoder().encode(secret) } : {}), ...(jwksUrl ? { jwksUrl } : {}), ...claims },
      devSecretPath: undefined,
    };
  }
  if (config.requireConfiguredAuth) {
    throw new ConfigError('NODE_ENV=production: set AUTH_JWT_SECRET or AUTH_JWKS_URL; a generated development secret is not used in production');
  }
  return { settings: { secret: new TextEncoder().encode(readOrCreateDevSecret(config.devSecretPath)), ...claims }, devSecretPath: config.devSecretPath };
}

/** The secret a local token must be signed with, for `linework-keys token`. */
export function signingSecret(config: Config): string {
  if (config.jwt.secret !== undefined) return config.jwt.secret;
  if (config.jwt.jwksUrl !== undefined) {
    throw new ConfigError('the service verifies tokens through AUTH_JWKS_URL; mint tokens with your identity provider');
  }
  return readOrCreateDevSecret(config.devSecretPath);
}

/**
 * Creates the file atomically (write a temporary file, then hard-link it into place, which fails if
 * the name exists) so that two processes starting together agree on one secret.
 */
export function readOrCreateDevSecret(path: string): string {
  try {
    return readDevSecret(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    chmodSync(tmp, 0o600);
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(tmp);
  }
  return readDevSecret(path);
}

function readDevSecret(path: string): string {
  const secret = readFileSync(path, 'utf8').trim();
  if (secret.length < 32) throw new ConfigError(`${path} holds fewer than 32 characters; delete it to generate a new secret`);
  if ((statSync(path).mode & 0o077) !== 0) {
    process.emitWarning(`${path} is readable by other users; chmod 600 it`);
  }
  return secret;
}
