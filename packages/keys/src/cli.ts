/**
 * `linework-keys`: serve the API key service, mint a development token, or apply migrations.
 */
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, DEFAULT_DB_PATH, loadConfig, resolveAuth, signingSecret, type Config } from './config.js';
import { isRole, ROLES } from './roles.js';
import { SERVICE_VERSION } from './version.js';

// Commands load what they use (dynamic imports): `token` and `--help` start without the HTTP
// stack or the database drivers.

const COMMAND_USAGE = {
  serve: `  linework-keys serve [--port <port>] [--host <host>] [--db <path>]
      Run the API key service. --port 0 picks a free port (default 8090); --host defaults to
      127.0.0.1; --db is the SQLite file (default ./data/keys.db, or KEYS_DB_PATH).
      DATABASE_URL=postgres://... runs on PostgreSQL instead (unless --db is given).
      Prints http://<host>:<port> on stderr once listening.`,
  token: `  linework-keys token --sub <user> --org <organization> [--role <role>] [--expires <span>] [--db <path>]
      Print an HS256 token signed with AUTH_JWT_SECRET, or with the development secret the service
      uses when none is configured. --role: VIEWER, DEVELOPER (default), ADMIN or OWNER;
      --expires: a span such as 30m, 1h (default), 12h, at most AUTH_MAX_TOKEN_LIFETIME (24h by
      default). Every token carries exp: the service refuses tokens without one, or living longer.`,
  migrate: `  linework-keys migrate [--db <path>]
      Apply pending database migrations and exit (serve also does this at start-up).`,
};

const ENVIRONMENT = `Environment: DATABASE_URL, DATABASE_SCHEMA, DATABASE_POOL_SIZE, KEYS_DB_PATH, AUTH_JWT_SECRET,
AUTH_JWKS_URL, AUTH_JWT_ISSUER, AUTH_JWT_AUDIENCE, AUTH_MAX_TOKEN_LIFETIME, API_KEY_PERMISSIONS, LOG_LEVEL, NODE_ENV.
See docs/keys.md.
`;

const USAGE = `Usage:
${COMMAND_USAGE.serve}
${COMMAND_USAGE.token}
${COMMAND_USAGE.migrate}
  linework-keys --version | --help | COMMAND --help

${ENVIRONMENT}`;

/** `linework-keys COMMAND --help`: that command's usage, on stdout. */
function commandHelp(command: keyof typeof COMMAND_USAGE, argv: string[]): boolean {
  if (!argv.includes('--help') && !argv.includes('-h')) return false;
  process.stdout.write(`Usage:\n${COMMAND_USAGE[command]}\n\n${ENVIRONMENT}`);
  return true;
}

class UsageError extends Error {}

function fail(message: string, code: number): never {
  process.stderr.write(`linework-keys: ${message}\n`);
  process.exit(code);
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

async function serve(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { port: { type: 'string' }, host: { type: 'string' }, db: { type: 'string' } },
    strict: true,
    allowPositionals: false,
  });
  const config = loadConfig(values);
  const [{ createAuthenticator }, { createLogger }, { buildServer }, { openStore }] = await Promise.all([
    import('./auth.js'),
    import('./logger.js'),
    import('./server.js'),
    import('./store/index.js'),
  ]);
  const logger = createLogger(config.logLevel);
  const auth = resolveAuth(config);
  if (auth.devSecretPath) {
    process.stderr.write(
      `linework-keys: WARNING: neither AUTH_JWT_SECRET nor AUTH_JWKS_URL is set; tokens are verified with the ` +
        `development secret in ${auth.devSecretPath}. Mint one with: npx linework-keys token --sub <user> --org <org> --role DEVELOPER` +
        `${config.database.kind === 'sqlite' && config.database.path !== resolve(DEFAULT_DB_PATH) ? ` --db ${config.database.path}` : ''}\n`,
    );
  }
  const authenticate = await createAuthenticator(auth.settings);
  const store = await openStore(config.database, { onPoolError: (err) => logger.error({ err }, 'database pool error') });
  const app = await buildServer({
    store,
    authenticate,
    logger,
    permissions: config.permissions,
    maxActiveKeysPerOwner: config.maxActiveKeysPerOwner,
    bodyLimit: config.bodyLimit,
    ...(config.countFlushMs !== undefined ? { countFlushMs: config.countFlushMs } : {}),
    closeStore: true,
  });

  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) {
      logger.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    closing = true;
    logger.info({ signal }, 'shutting down: finishing requests in flight');
    // A request that never finishes must not keep the process alive forever.
    setTimeout(() => {
      logger.error('shutdown timed out');
      process.exit(1);
    }, 10_000).unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app.close();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new ConfigError(`port ${config.port} on ${config.host} is in use: stop what listens there, or choose another with --port (--port 0 picks a free one)`);
    }
    if (code === 'EACCES') throw new ConfigError(`port ${config.port} needs privileges this process lacks: choose one above 1023 with --port (or --port 0)`);
    throw err;
  }
  const { port } = app.server.address() as AddressInfo;
  logger.info({ database: config.database.kind, port, host: config.host }, 'listening');
  process.stderr.write(`http://${urlHost(config.host)}:${port}\n`);
}

async function token(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      sub: { type: 'string' },
      org: { type: 'string' },
      role: { type: 'string', default: 'DEVELOPER' },
      expires: { type: 'string', default: '1h' },
      db: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (!values.sub || !values.org) throw new UsageError('token needs --sub <user> and --org <organization>');
  const role = values.role.toUpperCase();
  if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  if (!/^\d+\s*(s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|week|weeks|y|yr|yrs|year|years)$/i.test(values.expires)) {
    throw new UsageError('--expires must be a span such as 30m, 1h, 7d');
  }
  // The service refuses tokens without exp; one that expires as it is minted is of no use either.
  if (/^0+\s*[a-z]/i.test(values.expires)) throw new UsageError('--expires must be longer than zero');
  const config: Config = loadConfig({ db: values.db });
  if (spanSeconds(values.expires) > config.jwt.maxLifetimeSeconds) {
    throw new UsageError(`--expires ${values.expires} is longer than AUTH_MAX_TOKEN_LIFETIME (${config.jwt.maxLifetimeSeconds} s): the service would refuse the token`);
  }
  const { mintToken } = await import('./auth.js');
  const secret = new TextEncoder().encode(signingSecret(config));
  const jwt = await mintToken({
    secret,
    sub: values.sub,
    org: values.org,
    role,
    expiresIn: values.expires,
    ...(config.jwt.issuer ? { issuer: config.jwt.issuer } : {}),
    ...(config.jwt.audience ? { audience: config.jwt.audience } : {}),
  });
  process.stdout.write(`${jwt}\n`);
}

/** Seconds of a span the --expires check accepted (jose's units). */
function spanSeconds(span: string): number {
  const m = /^(\d+)\s*([a-z]+)$/i.exec(span)!;
  const unit = m[2]!.toLowerCase();
  const per = unit.startsWith('s') ? 1 : unit.startsWith('mi') || unit === 'm' ? 60 : unit.startsWith('h') ? 3600 : unit.startsWith('d') ? 86400 : unit.startsWith('w') ? 604800 : 31557600;
  return Number(m[1]) * per;
}

async function migrate(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { db: { type: 'string' } }, strict: true, allowPositionals: false });
  const config = loadConfig({ db: values.db });
  const { openStore } = await import('./store/index.js');
  const store = await openStore(config.database);
  await store.close();
  const where = config.database.kind === 'sqlite' ? config.database.path : 'PostgreSQL';
  process.stderr.write(`linework-keys: schema up to date (${where})\n`);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return commandHelp('serve', rest) ? undefined : serve(rest);
    case 'token':
      return commandHelp('token', rest) ? undefined : token(rest);
    case 'migrate':
      return commandHelp('migrate', rest) ? undefined : migrate(rest);
    case '--version':
    case '-v':
      process.stdout.write(`${SERVICE_VERSION}\n`);
      return;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return;
    default:
      throw new UsageError(`unknown command "${command}": the commands are serve, token and migrate`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(USAGE);
    fail((err as Error).message, 2);
  }
  if (err instanceof ConfigError) fail(err.message, 1);
  fail(`failed to start: ${(err as Error).message ?? String(err)}`, 1);
});
