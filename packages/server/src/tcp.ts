// `--tcp <port>`: JSON lines on a loopback socket. Every request carries the session token as
// `token`; clients are served concurrently while the dispatcher runs one request at a time.
import { createServer, type Server, type Socket } from 'node:net';
import type { DispatcherApi, ProtocolResponse } from '@linework/engine';
import type { TokenCheck } from './auth.js';
import { LIMITS } from './config.js';
import { listenLoopback, LOOPBACK } from './http-server.js';
import { LineSplitter, OrderedWriter, parseLine, tooLargeResponse } from './jsonl.js';
import { silentLogger, type Logger } from './logger.js';

export interface TcpServerOptions {
  api: DispatcherApi;
  auth: TokenCheck;
  port: number;
  idleMs?: number;
  maxLineBytes?: number;
  logger?: Logger;
}

export interface RunningTcpServer {
  readonly port: number;
  /** `tcp://127.0.0.1:<port>` */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

function serveTcpConnection(socket: Socket, options: TcpServerOptions, idleMs: number, maxLine: number): void {
  socket.setNoDelay(true);
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
  const answer = async (p: Promise<ProtocolResponse> | ProtocolResponse): Promise<void> => {
    inFlight++;
    setIdle();
    await writer.push(p);
    inFlight--;
    setIdle();
  };
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
      if (!options.auth.matches(token)) {
        const res: ProtocolResponse = { ok: false, code: 'unauthorized', error: options.auth.tcpMessage(token) };
        if (typeof req.request_id === 'string' && req.request_id) res.request_id = req.request_id;
        void answer(res);
        return;
      }
      void answer(options.api.dispatch(req));
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
  const port = await listenLoopback(server, options.port);
  server.on('error', (err) => log.error({ err }, 'tcp server error'));
  return {
    port,
    url: `tcp://${LOOPBACK}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
