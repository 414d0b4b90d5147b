// `--http <port>`: the loopback listener (another address with --host, in the hosted mode only). A `net` server feeds each connection to the wire layer
// (http-wire.ts), which hands whole requests to the HTTP API (http-api.ts).
import { createServer, type Server, type Socket } from 'node:net';
import type { DispatcherApi } from '@linework/engine';
import { TokenCheck } from './auth.js';
import { LIMITS } from './config.js';
import { HttpApi } from './http-api.js';
import { ANONYMOUS_BUCKET, ConnectionGate } from './connection-gate.js';
import { IdleSweeper, serveConnection } from './http-wire.js';
import type { Logger } from './logger.js';
import { silentLogger } from './logger.js';
import { API_PREFIX } from './routes.js';

export const LOOPBACK = '127.0.0.1';

/** `host` as the host part of a URL (an IPv6 address in brackets). */
export const urlHost = (host: string): string => (host.includes(':') ? `[${host}]` : host);

/**
 * Listens on `host` (default: the loopback address; port 0: the system picks); resolves with the
 * port. Another host is the CLI's to allow (--host goes with --keys-url).
 */
export async function listenLoopback(server: Server, port: number, host: string = LOOPBACK): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}

export interface HttpServerOptions {
  api: DispatcherApi;
  auth: TokenCheck;
  /** 0 lets the system choose. */
  port: number;
  /** The address to listen on (default 127.0.0.1). */
  host?: string;
  idleMs?: number;
  headDeadlineMs?: number;
  bodyDeadlineMs?: number;
  maxConnections?: number;
  /**
   * Connections shared out per bucket (hosted mode: each organization, the session token,
   * anonymous), `bucketOf` naming a request's bucket from its head. Default: the spec's rule,
   * `maxConnections` in one bucket.
   */
  gate?: { total: number; perBucket: number; bucketOf: (headers: Record<string, string>) => string };
  logger?: Logger;
  /** The HTTP surface to serve (shared with the editor's port); default: one made here. */
  httpApi?: HttpApi;
}

/** The debug log of each request: method, path (never the query), status, op, milliseconds. */
export function requestLogger(log: Logger): ((i: { method: string; target: string; status: number; ms: number; op?: string }) => void) | undefined {
  if (!log.isLevelEnabled('debug')) return undefined;
  return (i) => log.debug({ method: i.method, path: i.target.split('?')[0], status: i.status, op: i.op, ms: Math.round(i.ms * 10) / 10 }, 'http request');
}

export interface RunningHttpServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>/api/v1` (the --host address instead of 127.0.0.1) */
  readonly url: string;
  readonly httpApi: HttpApi;
  readonly server: Server;
  close(): Promise<void>;
}

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const log = options.logger ?? silentLogger();
  const idleMs = options.idleMs ?? LIMITS.idleMs;
  let url = '';
  const httpApi = options.httpApi ?? new HttpApi(options.api, options.auth, { baseUrl: () => url, onRequest: requestLogger(log) });
  const handler = httpApi.handle.bind(httpApi);
  const sockets = new Set<Socket>();
  const idle = new IdleSweeper(idleMs);
  const maxConnections = options.maxConnections ?? LIMITS.maxConnections;
  // Connections still being served (not yet answered). A connection beyond the limit is closed at
  // once, without a response. A connection stops counting when its response is written, even
  // while it waits for the client to close its side ("until one finishes").
  const shared = options.gate;
  const gate = new ConnectionGate(shared
    ? { total: shared.total, perBucket: shared.perBucket, evictHeads: true, openBucket: ANONYMOUS_BUCKET }
    : { total: maxConnections, perBucket: maxConnections, evictHeads: false });
  const bucketOf = shared?.bucketOf ?? (() => 'all');
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    const ticket = gate.accept(socket);
    if (!ticket) {
      socket.destroy();
      log.debug('connection dropped: too many simultaneous connections');
      return;
    }
    const release = (): void => gate.release(ticket);
    socket.once('close', release);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    serveConnection(socket, handler, {
      idle, headDeadlineMs: options.headDeadlineMs, bodyDeadlineMs: options.bodyDeadlineMs,
      onError: (err) => log.error({ err }, 'http handler failed'),
      onHead: (head) => {
        const bucket = bucketOf(head.headers);
        if (gate.admit(ticket, bucket)) return true;
        release();
        log.debug({ bucket: bucket.startsWith('org:') ? 'an organization' : bucket }, 'connection dropped: its bucket holds its share of connections');
        return false;
      },
      onRequest: () => gate.requestRead(ticket),
      onAnswered: release,
    });
  });
  const host = options.host ?? LOOPBACK;
  const port = await listenLoopback(server, options.port, host);
  url = `http://${urlHost(host)}:${port}${API_PREFIX}`;
  return {
    port,
    url,
    httpApi,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        idle.stop();
        server.close(() => resolve());
      }),
  };
}
