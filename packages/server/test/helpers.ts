// Test helpers: raw HTTP over `net` (exact bytes in, exact bytes out), the real CLI as a child
// process, and JSON-lines clients.
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { delimiter } from 'node:path';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const BIN = fileURLToPath(new URL('../bin/linework.js', import.meta.url));

/** Resolves when the socket closes, however it closes: a reset by the server is an ending too
 * (`events.once` would reject on the 'error' that precedes such a close). */
export function closedOf(sock: Socket): Promise<void> {
  return new Promise((resolve) => {
    if (sock.destroyed) return resolve();
    sock.on('error', () => undefined);
    sock.once('close', () => resolve());
  });
}

export interface BinRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a bin to its end with a bare environment (PATH, a quiet log, and `env`); no stdin. */
export function runBin(bin: string, args: readonly string[], opts: { cwd: string; env?: Record<string, string> }): Promise<BinRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '', LINEWORK_LOG_LEVEL: 'warn', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface RawResponse {
  /** Everything the server wrote. */
  raw: Buffer;
  statusLine: string;
  status: number;
  reason: string;
  headers: Record<string, string>;
  /** Header names exactly as written. */
  headerNames: string[];
  text: string;
  json: any;
  /** True when the server closed the connection. */
  closed: boolean;
}

export function parseRaw(raw: Buffer, closed: boolean): RawResponse {
  let text = raw.toString('latin1');
  // Skip an interim 100 Continue.
  while (text.startsWith('HTTP/1.1 100 ')) {
    const e = text.indexOf('\r\n\r\n');
    text = text.slice(e + 4);
    raw = raw.subarray(raw.length - Buffer.byteLength(text, 'latin1'));
  }
  const end = text.indexOf('\r\n\r\n');
  const head = end === -1 ? text : text.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const m = /^HTTP\/1\.1 (\d{3}) (.*)$/.exec(statusLine);
  const headers: Record<string, string> = {};
  const headerNames: string[] = [];
  for (const l of lines) {
    const c = l.indexOf(':');
    if (c > 0) {
      headers[l.slice(0, c).toLowerCase()] = l.slice(c + 1).trim();
      headerNames.push(l.slice(0, c));
    }
  }
  const body = end === -1 ? '' : raw.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1')).toString('utf8');
  let json: unknown;
  try {
    json = body ? JSON.parse(body) : undefined;
  } catch {
    json = undefined;
  }
  return { raw, statusLine, status: m ? Number(m[1]) : 0, reason: m ? m[2]! : '', headers, headerNames, text: body, json, closed };
}

export interface RawOptions {
  /** Give up after this long (ms) and return what was received. */
  timeout?: number;
  /** Half-close after writing (default false: the server must close by itself). */
  end?: boolean;
}

/** Sends bytes on a fresh connection and collects everything until the server closes. */
export async function rawHttp(port: number, data: string | Buffer | Array<string | Buffer>, opts: RawOptions = {}): Promise<RawResponse> {
  const sock = connect(port, '127.0.0.1');
  sock.on('error', () => undefined);
  await once(sock, 'connect');
  const chunks: Buffer[] = [];
  let closed = false;
  const done = new Promise<void>((resolve) => {
    sock.on('data', (c: Buffer) => chunks.push(c));
    sock.on('close', () => {
      closed = true;
      resolve();
    });
  });
  const parts = Array.isArray(data) ? data : [data];
  for (const p of parts) sock.write(p);
  if (opts.end) sock.end();
  const timer = new Promise<void>((resolve) => setTimeout(resolve, opts.timeout ?? 10_000));
  await Promise.race([done, timer]);
  sock.destroy();
  return parseRaw(Buffer.concat(chunks), closed);
}

export interface ReqOptions {
  token?: string | null;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** Give up after this long (ms; default 10 s, rawHttp's). */
  timeout?: number;
}

/** One HTTP request with exact control over the bytes (Content-Length from the body unless given). */
export function request(port: number, method: string, path: string, opts: ReqOptions = {}): Promise<RawResponse> {
  const body = opts.rawBody !== undefined ? Buffer.from(opts.rawBody) : opts.body !== undefined ? Buffer.from(JSON.stringify(opts.body)) : Buffer.alloc(0);
  const headers: Record<string, string> = { Host: `127.0.0.1:${port}` };
  if (opts.token !== null && opts.token !== undefined) headers.Authorization = `Bearer ${opts.token}`;
  if (body.length) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(body.length);
  }
  Object.assign(headers, opts.headers ?? {});
  let head = `${method} ${path} HTTP/1.1\r\n`;
  for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
  head += '\r\n';
  return rawHttp(port, [head, body], opts.timeout !== undefined ? { timeout: opts.timeout } : {});
}

/** A bound request function for one server. */
export function client(port: number, token: string) {
  return {
    get: (path: string, o: ReqOptions = {}) => request(port, 'GET', path, { token, ...o }),
    post: (path: string, body?: unknown, o: ReqOptions = {}) => request(port, 'POST', path, { token, body, ...o }),
    put: (path: string, body?: unknown, o: ReqOptions = {}) => request(port, 'PUT', path, { token, body, ...o }),
    del: (path: string, o: ReqOptions = {}) => request(port, 'DELETE', path, { token, ...o }),
    req: (method: string, path: string, o: ReqOptions = {}) => request(port, method, path, { token, ...o }),
  };
}

export interface Spawned {
  child: ChildProcess;
  stderr: () => string;
  stdout: () => string;
  /** Waits until stderr matches (returns the match). */
  waitStderr(re: RegExp, ms?: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/** Starts the real CLI (the built bin) with the given arguments. */
export function spawnCli(args: string[], env: Record<string, string | undefined> = {}, opts: { cwd?: string } = {}): Spawned {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    // The workspace of the test servers: the checkout (fixtures) and the temporary folder (each
    // test's files); tests of the workspace itself pass --root or LINEWORK_ROOT.
    env: { ...process.env, LINEWORK_LOG_LEVEL: 'warn', SERVICE_API_TOKEN: '', LINEWORK_ROOT: [ROOT, tmpdir()].join(delimiter), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  const waiters: Array<() => void> = [];
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString('utf8');
    for (const w of waiters.splice(0)) w();
  });
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
      for (const w of waiters.splice(0)) w();
    });
  });
  return {
    child,
    stderr: () => err,
    stdout: () => out,
    exited,
    async waitStderr(re: RegExp, ms = 20_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const m = err.match(re);
        if (m) return m;
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`stderr never matched ${re}; stderr:\n${err}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

export interface HttpServerProcess {
  proc: Spawned;
  port: number;
  url: string;
  token: string;
}

/** `linework --http 0` with a generated token; parses the URL and token from stderr. */
export async function startHttpProcess(extraArgs: string[] = [], env: Record<string, string | undefined> = {}, opts: { cwd?: string } = {}): Promise<HttpServerProcess> {
  const proc = spawnCli(['--http', '0', ...extraArgs], env, opts);
  const url = (await proc.waitStderr(/^http:\/\/127\.0\.0\.1:(\d+)\/api\/v1$/m))[0];
  const port = Number(/:(\d+)\//.exec(url)![1]);
  const chosen = env.SERVICE_API_TOKEN?.trim();
  const token = chosen ? chosen : (await proc.waitStderr(/^token: ([0-9a-f]{64})$/m))[1]!;
  return { proc, port, url, token };
}

/** A JSON-lines connection to the TCP transport. */
export class LineClient {
  private buf = '';
  private lines: string[] = [];
  private waiters: Array<() => void> = [];
  closed = false;
  readonly ready: Promise<unknown>;

  constructor(readonly sock: Socket) {
    sock.setEncoding('utf8');
    sock.on('error', () => undefined);
    sock.on('data', (d: string) => {
      this.buf += d;
      let i;
      while ((i = this.buf.indexOf('\n')) !== -1) {
        this.lines.push(this.buf.slice(0, i));
        this.buf = this.buf.slice(i + 1);
      }
      for (const w of this.waiters.splice(0)) w();
    });
    sock.on('close', () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    });
    this.ready = once(sock, 'connect');
  }

  static async connect(port: number): Promise<LineClient> {
    const c = new LineClient(connect(port, '127.0.0.1'));
    await c.ready;
    return c;
  }

  send(obj: unknown): void {
    this.sock.write((typeof obj === 'string' ? obj : JSON.stringify(obj)) + '\n');
  }

  /** The next answer line (parsed), or null when the connection closed first. */
  async next(ms = 10_000): Promise<any> {
    const deadline = Date.now() + ms;
    while (this.lines.length === 0) {
      if (this.closed) return null;
      if (Date.now() > deadline) throw new Error('no answer line in time');
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return JSON.parse(this.lines.shift()!);
  }

  async waitClosed(ms = 10_000): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return this.closed;
  }

  close(): void {
    this.sock.destroy();
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
