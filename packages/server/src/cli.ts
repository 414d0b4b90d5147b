// The `linework` command: transports (--http, --tcp, --stdio, --mcp, combinable, one session),
// the DXF subcommands `info` and `convert`, and `plot`.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { realpathSync } from 'node:fs';
import { createEngine, plotCommand, type DispatcherApi } from '@linework/engine';
import { TokenCheck, resolveToken } from './auth.js';
import { loadConfig } from './config.js';
import { startHttpServer } from './http-server.js';
import { createLogger, type Logger } from './logger.js';
import { serveMcp } from './mcp.js';
import { Router } from './routes.js';
import { serveStdio } from './stdio.js';
import { startTcpServer } from './tcp.js';

export const USAGE = `Usage:
  linework --http <port> [file.dxf ...]   HTTP automation server on 127.0.0.1 (port 0: any free port)
  linework --tcp <port>                   JSON lines on a loopback TCP socket (each request carries "token")
  linework --stdio                        JSON lines on stdin/stdout (one request per line)
  linework --mcp                          Model Context Protocol server on stdin/stdout
  linework info <file.dxf> [--json]       describe a DXF file
  linework convert <in.dxf> <out.dxf> [--version R2018]
  linework plot <file.dxf> <out.pdf|svg|png> [--layout NAME | --all] [--paper A3] [--dpi N]
  linework --help | --version

Transports combine in one process and share one session, e.g. --http 8080 --tcp 8081.
Environment: SERVICE_API_TOKEN (session token; otherwise one is generated and printed),
LINEWORK_LOG_LEVEL (pino level, default info).`;

export type Command =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'info'; args: string[] }
  | { kind: 'convert'; args: string[] }
  | { kind: 'plot'; args: string[] }
  | { kind: 'serve'; http?: number; tcp?: number; stdio: boolean; mcp: boolean; files: string[] }
  | { kind: 'error'; message: string };

function port(v: string | undefined, flag: string): number | string {
  if (v === undefined || !/^\d+$/.test(v)) return `${flag} needs a port number (0-65535; 0 picks a free port)`;
  const n = Number(v);
  return n <= 65535 ? n : `${flag}: port ${v} is out of range (0-65535)`;
}

/** Parses the command line (without node and the script). */
export function parseArgs(argv: readonly string[]): Command {
  const [first, ...rest] = argv;
  if (first === 'info') return { kind: 'info', args: rest };
  if (first === 'convert') return { kind: 'convert', args: rest };
  if (first === 'plot') return { kind: 'plot', args: rest };
  if (argv.length === 0) return { kind: 'error', message: 'no transport given' };
  const cmd: Extract<Command, { kind: 'serve' }> = { kind: 'serve', stdio: false, mcp: false, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    switch (flag) {
      case '-h':
      case '--help':
        return { kind: 'help' };
      case '-v':
      case '--version':
        return { kind: 'version' };
      case '--http':
      case '--tcp': {
        const p = port(inline ?? argv[++i], flag);
        if (typeof p === 'string') return { kind: 'error', message: p };
        if (flag === '--http') cmd.http = p;
        else cmd.tcp = p;
        break;
      }
      case '--stdio':
        cmd.stdio = true;
        break;
      case '--mcp':
        cmd.mcp = true;
        break;
      default:
        if (a.startsWith('-')) return { kind: 'error', message: `unknown option ${a}` };
        cmd.files.push(a);
    }
  }
  if (cmd.stdio && cmd.mcp) return { kind: 'error', message: '--stdio and --mcp both use stdin/stdout; choose one' };
  if (cmd.http === undefined && cmd.tcp === undefined && !cmd.stdio && !cmd.mcp) return { kind: 'error', message: 'no transport given (--http, --tcp, --stdio or --mcp)' };
  if (cmd.files.length && cmd.http === undefined) return { kind: 'error', message: 'drawing files go with --http (graphical mode)' };
  return cmd;
}

export function appVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** The progress bar of `plot` is drawn only on a terminal. */
type CliStderr = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Delegates `info` / `convert` to @linework/dxf (infoCommand / convertCommand). */
async function dxfCommand(name: 'infoCommand' | 'convertCommand', args: string[], io: Io): Promise<number> {
  const mod = (await import('@linework/dxf')) as unknown as Record<string, unknown>;
  const fn = mod[name];
  if (typeof fn !== 'function') {
    io.stderr.write(`linework: ${name === 'infoCommand' ? 'info' : 'convert'} is not available in this build (@linework/dxf has no ${name})\n`);
    return 1;
  }
  const code = (await (fn as (a: string[], io: Io) => unknown)(args, io)) as unknown;
  return typeof code === 'number' ? code : 0;
}

/** Opens drawing files in the session through the same route as POST /documents {path}. */
async function openFiles(api: DispatcherApi, files: string[], log: Logger): Promise<void> {
  const router = new Router(api.catalogue);
  const open = router.match('POST', ['documents']);
  for (const file of files) {
    const fields = open?.route.fromHttp ? open.route.fromHttp({ params: {}, query: {}, body: { path: file } }) : { path: file };
    const res = await api.dispatch({ ...fields, protocol: 1, op: open?.op.name ?? 'open' });
    if (!res.ok) log.error({ file, code: res.code }, `cannot open ${file}: ${res.error ?? res.code}`);
    else log.info({ file, document_id: res.document_id }, 'opened drawing');
  }
}

/** Runs the command line; resolves with the exit code once every transport has finished. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, io: Io = process): Promise<number> {
  const cmd = parseArgs(argv);
  switch (cmd.kind) {
    case 'help':
      io.stdout.write(USAGE + '\n');
      return 0;
    case 'version':
      io.stdout.write(appVersion() + '\n');
      return 0;
    case 'error':
      io.stderr.write(`linework: ${cmd.message}\n\n${USAGE}\n`);
      return 2;
    case 'info':
      return dxfCommand('infoCommand', cmd.args, io);
    case 'convert':
      return dxfCommand('convertCommand', cmd.args, io);
    case 'plot':
      return plotCommand(cmd.args, { stdout: io.stdout, stderr: io.stderr as CliStderr });
    case 'serve':
      return serve(cmd, env, io);
  }
}

async function serve(cmd: Extract<Command, { kind: 'serve' }>, env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const log = createLogger(env);
  const config = loadConfig(env);
  const graphical = cmd.files.length > 0;
  const api = createEngine({ appVersion: appVersion(), ...(graphical ? { empty: true } : {}) });
  if (graphical) {
    io.stderr.write('linework: the graphical editor is not built yet; the drawings are opened in a headless session that serves the same routes\n');
    await openFiles(api, cmd.files, log);
  }

  const closers: Array<() => Promise<void>> = [];
  const needsToken = cmd.http !== undefined || cmd.tcp !== undefined;
  const auth = needsToken ? new TokenCheck(resolveToken(env)) : null;
  if (cmd.http !== undefined) {
    const http = await startHttpServer({ api, auth: auth!, port: cmd.http, idleMs: config.idleMs, logger: log });
    closers.push(http.close);
    io.stderr.write(`${http.url}\n`);
  }
  if (cmd.tcp !== undefined) {
    const tcp = await startTcpServer({ api, auth: auth!, port: cmd.tcp, idleMs: config.idleMs, logger: log });
    closers.push(tcp.close);
    io.stderr.write(`${tcp.url}\n`);
  }
  // A generated token is printed once; a token chosen through SERVICE_API_TOKEN never is.
  if (auth && auth.token.source === 'generated') io.stderr.write(`token: ${auth.token.value}\n`);
  log.info({ http: cmd.http, tcp: cmd.tcp, stdio: cmd.stdio, mcp: cmd.mcp, session_id: api.sessionId }, 'linework ready');

  const shutdown = async (): Promise<void> => {
    await Promise.allSettled(closers.map((c) => c()));
  };
  let stopped = false;
  const stop = new Promise<number>((resolve) => {
    const onSignal = (sig: NodeJS.Signals): void => {
      if (stopped) return;
      stopped = true;
      log.info({ signal: sig }, 'stopping');
      void shutdown().then(() => resolve(0));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });

  const stream = cmd.stdio ? serveStdio({ api }) : cmd.mcp ? serveMcp({ api }) : null;
  if (stream && closers.length === 0) {
    // stdio / MCP alone: the end of stdin ends the process after the last answer.
    const code = await Promise.race([stream.then(() => 0), stop]);
    await shutdown();
    return code;
  }
  return stop;
}

/** True when this module is the process's entry (bin/linework.js imports dist/cli.js). */
function isEntry(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    const real = realpathSync(entry);
    return /[\\/]bin[\\/]linework(\.js)?$/.test(real) || pathToFileURL(real).href === import.meta.url;
  } catch {
    return false;
  }
}

if (isEntry()) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
      // Transports closed; once stdout is flushed, pending timers must not keep the process alive.
      process.stdout.write('', () => process.exit(code));
    },
    (err: unknown) => {
      process.stderr.write(`linework: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
