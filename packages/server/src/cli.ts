// The `linework` command: transports (--http, --tcp, --stdio, --mcp, combinable, one session),
// and the file commands info, convert, plot and audit (one file, or a batch on worker threads).
import { realpathSync } from 'node:fs';
import { isIP } from 'node:net';
import { pathToFileURL } from 'node:url';
import { appVersion } from './version.js';

export const USAGE = `Usage:
  linework --http <port> [file.dxf ...]   HTTP automation server on 127.0.0.1 (port 0: any free port);
    [--gui] [--gui-port <port>]           with files or --gui, the web editor on a second loopback port
  linework --tcp <port>                   JSON lines on a loopback TCP socket (each request carries "token")
  linework --stdio                        JSON lines on stdin/stdout (one request per line)
  linework --mcp [--tools G1,G2|all]      Model Context Protocol server on stdin/stdout (--tools: the tool
                                          groups listed; default documents,entities,query,modify)
    [--root DIR ...]                      the workspace: the only folders clients may name files in
                                          (default: the current folder; relative paths start at the first)
    [--keys-url URL]                      with --http/--tcp: accept API keys of this key service too, each
                                          organization in its own session and folder of the workspace
    [--host ADDR]                         with --keys-url: listen for HTTP/TCP on ADDR (e.g. 0.0.0.0, behind
                                          a reverse proxy); without keys the server stays on loopback
  linework info FILE... [--json]          describe DXF and DWG files (DWG: docs/files.md)
  linework convert IN OUT [--version R2018] [--recover]   rewrite a DXF or DWG file as DXF (OUT must be .dxf)
  linework plot FILE OUT.pdf|svg|png [--layout NAME | --all] [--paper A3] [--dpi N] [--fit]
  linework audit FILE [--fix OUT.dxf]     check a drawing (exit 1 when it has errors)
  linework plot FILE... --out ONE.pdf     every page of many drawings in one PDF; plot also takes
    [--scale 1:100] [--margins MM] [--monochrome | --ctb FILE.ctb]   (linework plot --help)
  linework run SCRIPT FILE... [--out-dir DIR]   a .scr of command lines or a .jsonl of protocol-1
                                          requests on each drawing; SAVE/PLOT write into DIR
  linework convert|plot|info|audit|run FILE... --out-dir DIR [--jobs N] [--quiet] [--json]
                                          many files (names, folders, patterns) on worker threads
  linework COMMAND --help                 the options of one command
  linework --help | --version

Transports combine in one process and share one session, e.g. --http 8080 --tcp 8081.
Environment: SERVICE_API_TOKEN (session token; otherwise one is generated and printed),
LINEWORK_ROOT (workspace folders when no --root is given, separated by ':'),
LINEWORK_KEYS_URL (the key service when no --keys-url is given),
LINEWORK_LOG_LEVEL (pino level, default info).`;

const FILE_COMMANDS = ['info', 'convert', 'plot', 'audit', 'run'] as const;
type FileCommandName = (typeof FILE_COMMANDS)[number];
const isFileCommand = (s: string | undefined): s is FileCommandName => (FILE_COMMANDS as readonly string[]).includes(s ?? '');
const TRANSPORTS = ['--http', '--tcp', '--stdio', '--mcp'];

export type Command =
  | { kind: 'version' }
  | { kind: 'file'; command: FileCommandName; args: string[] }
  | { kind: 'help'; command?: FileCommandName }
  | { kind: 'serve'; http?: number; tcp?: number; stdio: boolean; mcp: boolean; files: string[]; roots: string[]; gui?: boolean; guiPort?: number; keysUrl?: string; host?: string; tools?: string[] }
  | { kind: 'error'; message: string };

function port(v: string | undefined, flag: string): number | string {
  if (v === undefined || !/^\d+$/.test(v)) return `${flag} needs a port number (0-65535; 0 picks a free port)`;
  const n = Number(v);
  return n <= 65535 ? n : `${flag}: port ${v} is out of range (0-65535)`;
}

/** Parses the command line (without node and the script). */
export function parseArgs(argv: readonly string[]): Command {
  const [first, ...rest] = argv;
  if (isFileCommand(first)) return { kind: 'file', command: first, args: rest };
  if (first === 'help') {
    if (rest[0] !== undefined && !isFileCommand(rest[0])) return { kind: 'error', message: `no command ${rest[0]}: the commands are ${FILE_COMMANDS.join(', ')}` };
    return rest[0] !== undefined ? { kind: 'help', command: rest[0] as FileCommandName } : { kind: 'help' };
  }
  if (argv.length === 0) return { kind: 'error', message: 'nothing to do: give a command (info, convert, plot, audit, run) or a transport (--http, --tcp, --stdio, --mcp)' };
  // A first word that is neither a command nor an option, and no transport: a mistyped command.
  const transport = argv.some((a) => TRANSPORTS.includes(a.split('=')[0]!));
  if (first !== undefined && !first.startsWith('-') && !transport && !argv.some((a) => a === '-h' || a === '--help' || a === '-v' || a === '--version')) {
    return { kind: 'error', message: `unknown command ${first}: the commands are ${FILE_COMMANDS.join(', ')}; a server needs a transport (--http, --tcp, --stdio or --mcp)` };
  }
  const cmd: Extract<Command, { kind: 'serve' }> = { kind: 'serve', stdio: false, mcp: false, files: [], roots: [] };
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
      case '--tcp':
      case '--gui-port': {
        const p = port(inline ?? argv[++i], flag);
        if (typeof p === 'string') return { kind: 'error', message: p };
        if (flag === '--http') cmd.http = p;
        else if (flag === '--tcp') cmd.tcp = p;
        else cmd.guiPort = p;
        break;
      }
      case '--gui':
        cmd.gui = true;
        break;
      case '--root': {
        const dir = inline ?? argv[++i];
        if (dir === undefined || dir === '') return { kind: 'error', message: '--root needs a folder' };
        cmd.roots.push(dir);
        break;
      }
      case '--host': {
        const addr = inline ?? argv[++i];
        if (addr === undefined || isIP(addr) === 0) return { kind: 'error', message: '--host needs an IP address to listen on (e.g. 0.0.0.0, or :: for IPv6 too)' };
        cmd.host = addr;
        break;
      }
      case '--keys-url': {
        const url = inline ?? argv[++i];
        if (url === undefined || url === '') return { kind: 'error', message: '--keys-url needs the key service URL (e.g. http://127.0.0.1:8090)' };
        cmd.keysUrl = url;
        break;
      }
      case '--stdio':
        cmd.stdio = true;
        break;
      case '--mcp':
        cmd.mcp = true;
        break;
      case '--tools': {
        const list = inline ?? argv[++i];
        const names = (list ?? '').split(',').map((t) => t.trim()).filter((t) => t.length > 0);
        if (names.length === 0) return { kind: 'error', message: '--tools needs tool groups, e.g. --tools documents,entities,query' };
        cmd.tools = names;
        break;
      }
      default:
        if (a.startsWith('-')) return { kind: 'error', message: `unknown option ${a}` };
        cmd.files.push(a);
    }
  }
  if (cmd.tools && !cmd.mcp) return { kind: 'error', message: '--tools goes with --mcp (it chooses the MCP tool groups)' };
  if (cmd.stdio && cmd.mcp) return { kind: 'error', message: '--stdio and --mcp both use stdin/stdout; choose one' };
  if (cmd.http === undefined && cmd.tcp === undefined && !cmd.stdio && !cmd.mcp) return { kind: 'error', message: 'no transport given (--http, --tcp, --stdio or --mcp)' };
  if (cmd.keysUrl !== undefined && cmd.http === undefined && cmd.tcp === undefined) {
    return { kind: 'error', message: '--keys-url goes with --http or --tcp (stdio and MCP are local and take no keys)' };
  }
  if (cmd.host !== undefined && cmd.http === undefined && cmd.tcp === undefined) {
    return { kind: 'error', message: '--host goes with --http or --tcp (the address they listen on)' };
  }
  // The local automation server answers only on loopback, its session token its one credential;
  // another address is for the hosted mode, where API keys of a key service decide.
  if (cmd.host !== undefined && !isLoopback(cmd.host) && cmd.keysUrl === undefined) {
    return { kind: 'error', message: `--host ${cmd.host} goes with --keys-url: a server without API keys listens on loopback only (127.0.0.1), its session token being its one credential` };
  }
  if ((cmd.files.length || cmd.gui || cmd.guiPort !== undefined) && cmd.http === undefined) {
    return { kind: 'error', message: 'the graphical mode (drawing files, --gui, --gui-port) goes with --http' };
  }
  return cmd;
}

/** An address of this machine only (127.0.0.0/8, ::1). */
export function isLoopback(addr: string): boolean {
  return /^127\.\d+\.\d+\.\d+$/.test(addr) || addr === '::1' || /^::ffff:127\./i.test(addr);
}

/** Progress is drawn only on a terminal. */
type CliStderr = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Runs the command line; resolves with the exit code once every transport has finished. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, io: Io = process): Promise<number> {
  const cmd = parseArgs(argv);
  switch (cmd.kind) {
    case 'help':
      if (cmd.command) return (await import('./files/run.js')).runFileCommand(cmd.command, ['--help'], io);
      io.stdout.write(USAGE + '\n');
      return 0;
    case 'version':
      io.stdout.write(appVersion() + '\n');
      return 0;
    case 'error':
      io.stderr.write(`linework: ${cmd.message}\n\n${USAGE}\n`);
      return 2;
    // The engine and the transports load only for the commands that use them: a one-shot
    // `info` or `plot` should not pay for the MCP SDK at start-up. `plot` takes the engine's
    // plot-only entry, which leaves out the op catalogue and its zod schemas (about 130 ms).
    case 'file':
      return (await import('./files/run.js')).runFileCommand(cmd.command, cmd.args, { stdout: io.stdout, stderr: io.stderr as CliStderr });
    case 'serve':
      try {
        return await (await import('./serve.js')).serve(cmd, env, io);
      } catch (err) {
        const e = err as NodeJS.ErrnoException & { port?: number };
        if (e?.code !== 'EADDRINUSE' && e?.code !== 'EACCES' && e?.code !== 'EADDRNOTAVAIL') throw err;
        io.stderr.write(`linework: ${listenFailure(cmd, e)}\n`);
        return 1;
      }
  }
}

/** One line for a port that cannot be listened on, naming the option that chose it. */
function listenFailure(cmd: Extract<Command, { kind: 'serve' }>, e: NodeJS.ErrnoException & { port?: number }): string {
  const port = e.port;
  const flag = port === cmd.http ? '--http' : port === cmd.tcp ? '--tcp' : port === cmd.guiPort ? '--gui-port' : 'the port option';
  if (e.code === 'EACCES') return `port ${port} needs privileges this process lacks (${flag}); choose one above 1023, or 0 for any free port`;
  if (e.code === 'EADDRNOTAVAIL') return `address ${cmd.host} is not one of this machine's (--host ${cmd.host}): give one of its addresses, or 0.0.0.0 for all`;
  const host = flag === '--gui-port' || cmd.host === undefined ? '127.0.0.1' : cmd.host;
  return `port ${port} on ${host} is in use (${flag} ${port}): stop what listens there, or choose another port (${flag} 0 picks a free one)`;
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
