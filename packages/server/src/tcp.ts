// `--tcp <port>`: JSON lines on a loopback socket. Every request carries the session token (or,
// with --keys-url, an API key) as `token`; clients are served concurrently while the dispatcher
// runs one request at a time.
import { createServer, type Server, type Socket } from 'node:net';
import { type DispatchOptions, type DispatcherApi, type OpDef, type ProtocolRequest, type ProtocolResponse } from '@linework/engine';
import type { TokenCheck } from './auth.js';
import { looksLikeApiKey, type HostedAccess } from './hosted.js';
import { LIMITS } from './config.js';
import { listenLoopback, LOOPBACK, urlHost } from './http-server.js';
import { EncodedLine, LineSplitter, OrderedWriter, parseLine, tooLargeResponse } from './jsonl.js';
import { silentLogger, type Logger } from './logger.js';

export interface TcpServerOptions {
  api: DispatcherApi;
  auth: TokenCheck;
  port: number;
  /** The address to listen on (default 127.0.0.1). */
  host?: string;
  idleMs?: number;
  maxLineBytes?: number;
  logger?: Logger;
  /** API keys of the key service beside the session token (`--keys-url`). */
  hosted?: HostedAccess;
}

export interface RunningTcpServer {
  readonly port: number;
  /** `tcp://127.0.0.1:<port>` */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

const opMaps = new WeakMap<DispatcherApi, Map<string, OpDef>>();
function opsOf(api: DispatcherApi): Map<string, OpDef> {
  let m = opMaps.get(api);
  if (!m) opMaps.set(api, (m = new Map(api.catalogue.map((o) => [o.name, o]))));
  return m;
}

/** Runs a request once it may: a function that starts it (dispatches, in the right session). */
type Start = () => Promise<ProtocolResponse | EncodedLine>;

/**
 * Decides whether and where a request runs: the session token runs it in the local session; an
 * API key is verified for the op's permissions first, and the request runs in the key's
 * organization's session (leased until it is answered). Never rejects.
 */
async function decide(options: TcpServerOptions, token: unknown, req: ProtocolRequest, via: DispatchOptions): Promise<Start> {
  const refuse = (code: string, error: string, details?: Record<string, unknown>): Start => {
    const res: ProtocolResponse = { ok: false, code, error, ...(details ? { details } : {}) };
    if (typeof req.request_id === 'string' && req.request_id) res.request_id = req.request_id;
    return () => Promise.resolve(res);
  };
  if (options.auth.matches(token)) return () => options.api.dispatch(req, via);
  const hosted = options.hosted;
  if (!hosted || !looksLikeApiKey(token)) return refuse('unauthorized', options.auth.tcpMessage(token, hosted !== undefined));
  const op = typeof req.op === 'string' ? opsOf(options.api).get(req.op) : undefined;
  const admission = await hosted.check(token, op ? op.permissions : [], `op ${op ? op.name : JSON.stringify(String(req.op).slice(0, 64))}`);
  if (!admission.ok) return refuse(admission.denial.code, admission.denial.message, admission.denial.details);
  // Runs in the organization's worker, which answers with the encoded line.
  const orgId = admission.orgId;
  return () => hosted.orgs.line(orgId, req).then((chunks) => new EncodedLine(chunks));
}

/**
 * Starts a connection's requests in the order they arrived, although deciding about one (a key's
 * verification) takes a round trip: a request is handed to the dispatcher only after every earlier
 * one was, so a pipelined create-then-list still lists what was created.
 */
class StartInOrder {
  private last: Promise<unknown> = Promise.resolve();

  push(decided: Promise<Start>): Promise<ProtocolResponse | EncodedLine> {
    // The answer's promise is wrapped so that the next request waits for this one to start, not to finish.
    const started = this.last.then(() => decided).then((start) => ({ answer: start() }));
    this.last = started;
    return started.then((s) => s.answer);
  }
}

function serveTcpConnection(socket: Socket, options: TcpServerOptions, idleMs: number, maxLine: number): void {
  socket.setNoDelay(true);
  // The client closing its side (or the connection dropping) takes the picks its requests wait
  // for with it: it can no longer send `cancel`, and a pick must never hang. Other requests are
  // still answered.
  const gone = new AbortController();
  socket.once('end', () => gone.abort());
  socket.once('close', () => gone.abort());
  const via: DispatchOptions = { signal: gone.signal };
  let inFlight = 0;
  let closing = false;
  const setIdle = (): void => {
    // The idle limit applies while the client is expected to read or write, not while it waits.
    if (!socket.destroyed) socket.setTimeout(inFlight > 0 ? 0 : idleMs);
  };
  socket.setTimeout(idleMs);
  socket.on('timeout', () => socket.destroy());
  socket.on('error', () => socket.destroy());
  const writer = new OrderedWriter(
    (chunk) =>
      new Promise<void>((resolve) => {
        if (socket.destroyed || socket.writableEnded) return resolve();
        socket.write(chunk, () => resolve());
      }),
  );
  const answer = async (p: Promise<ProtocolResponse | EncodedLine> | ProtocolResponse): Promise<void> => {
    inFlight++;
    setIdle();
    await writer.push(p);
    inFlight--;
    setIdle();
  };
  const order = new StartInOrder();
  const splitter = new LineSplitter(
    maxLine,
    (line) => {
      if (closing) return;
      const parsed = parseLine(line);
      if (parsed.kind === 'blank') return;
      if (parsed.kind === 'invalid') {
        void answer(parsed.response);
        return;
      }
      const { token, ...req } = parsed.req;
      void answer(order.push(decide(options, token, req, via)));
    },
    () => {
      // A line above the limit: answer with the error, then close.
      closing = true;
      void answer(tooLargeResponse(maxLine)).then(() => socket.end());
    },
  );
  socket.on('data', (chunk: Buffer) => {
    if (!closing) splitter.push(chunk);
  });
  socket.on('end', () => {
    // The client finished sending: answer what is left, then close our side.
    splitter.end();
    void writer.drained().then(() => socket.end());
  });
}

export async function startTcpServer(options: TcpServerOptions): Promise<RunningTcpServer> {
  const log = options.logger ?? silentLogger();
  const idleMs = options.idleMs ?? LIMITS.idleMs;
  const maxLine = options.maxLineBytes ?? LIMITS.maxJsonLineBytes;
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    serveTcpConnection(socket, options, idleMs, maxLine);
  });
  // A failure to listen is the caller's to report (one line); errors after that are logged.
  const host = options.host ?? LOOPBACK;
  const port = await listenLoopback(server, options.port, host);
  server.on('error', (err) => log.error({ err }, 'tcp server error'));
  return {
    port,
    url: `tcp://${urlHost(host)}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
