/**
 * Starts the real `linework-keys` process (the built CLI) and stops it. Tests talk to it over HTTP
 * only, exactly like a client would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/linework-keys.js', import.meta.url));
export const TEST_SECRET = 'test-secret-for-the-linework-keys-suite-0123456789';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** The process runs `dist/`; a stale build would test old code, so refuse loudly. */
export function assertBuilt(): void {
  let built: number;
  try {
    statSync(`${PACKAGE_DIR}/dist/cli.js`);
    // tsc rewrites only the outputs of changed sources, but always its build info.
    built = statSync(`${PACKAGE_DIR}/dist/.tsbuildinfo`).mtimeMs;
  } catch {
    throw new Error('packages/keys is not built: run `npx tsc -b packages/keys` (npm test does it)');
  }
  if (newestMtime(`${PACKAGE_DIR}/src`) > built) {
    throw new Error('packages/keys/dist is older than src: run `npx tsc -b packages/keys` (npm test does it)');
  }
}

export interface StartOptions {
  /** Extra CLI arguments after `serve --port 0`. */
  args?: string[];
  /** Environment of the process; only PATH is inherited, so a developer's shell cannot leak in. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Give up waiting for the URL line after this long. */
  timeoutMs?: number;
}

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Everything written to stderr so far. */
  stderr(): string;
  stdout(): string;
  /** Sends the signal and resolves with the exit status. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function runCli(args: string[], options: { env?: Record<string, string | undefined>; cwd?: string } = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? PACKAGE_DIR,
      env: { PATH: process.env.PATH, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function startService(options: StartOptions = {}): Promise<ServiceProcess> {
  assertBuilt();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...(options.args ?? [])], {
    cwd: options.cwd ?? PACKAGE_DIR,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not print its URL within ${options.timeoutMs ?? 20_000} ms; stderr:\n${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const match = /^(http:\/\/\S+:\d+)$/m.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1]!,
          child,
          stderr: () => stderr,
          stdout: () => stdout,
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`service exited (${signal ?? code}) before listening; stderr:\n${stderr}`));
    });
  });
}
