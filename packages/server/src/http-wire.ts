// HTTP/1.1 on the wire, for exactly what the spec asks: one request per connection, the request
// line and header limits measured on the raw bytes before anything is parsed, bodies sized by
// Content-Length only (an unparseable value counts as 0, a value above the limit gives an empty body
// that is discarded, never buffered), the server's own reason phrases, and `Connection: close`.
//
// `node:http` is not used for the wire because its parser answers some of these cases itself
// (an unparseable Content-Length is its own 400, header limits are one total including the request
// line); a small parser for one request per connection is shorter than working around it.
import type { Socket } from 'node:net';
import { LIMITS } from './config.js';
import { REASONS } from './status.js';
import { ReplyTooLarge, encodeJson, type EncodedJson } from './json-reply.js';

export interface RawRequest {
  method: string;
  /** The request target as sent (origin-form path and query). */
  target: string;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body bytes (empty when absent, or when the declared length was above the limit). */
  body: Buffer;
  /** True when a declared Content-Length above the limit made the body empty. */
  bodyTooLarge: boolean;
  /** Aborted when the client goes away before its answer is written (a pick it waits for ends). */
  signal?: AbortSignal;
}

export interface HttpReply {
  status: number;
  /** JSON body (written with Content-Type application/json); null: no body. */
  body: Record<string, unknown> | null;
  headers?: Record<string, string>;
  /** The JSON body already encoded (by the process that ran the request); wins over `body`. */
  encoded?: EncodedJson;
}

export type RequestHandler = (req: RawRequest) => Promise<HttpReply>;

export interface WireOptions {
  /** Watches the connection's idle time (one sweep for all connections instead of a timer each). */
  idle: IdleSweeper;
  /**
   * Time from the request's first byte until the whole request head has arrived (ms). A connection
   * that sends nothing is the idle limit's (15 s, the spec's), not this deadline's.
   */
  headDeadlineMs?: number;
  /** Time from the end of the head until the whole body has arrived (ms). */
  bodyDeadlineMs?: number;
  /** Called for failures of the handler itself (the handler should not throw). */
  onError?: (err: unknown) => void;
  /**
   * Called once a well-formed head has arrived, before the body is read: false drops the
   * connection without a response (its bucket of connections is full, connection-gate.ts).
   */
  onHead?: (head: { method: string; target: string; headers: Record<string, string> }) => boolean;
  /** Called when the whole request has arrived (it goes to the handler). */
  onRequest?: () => void;
  /** Called when the whole answer has been handed to the system (the connection stops counting). */
  onAnswered?: () => void;
}

interface Watched {
  socket: Socket;
  /** Last time bytes arrived or left (ms, the sweeper's clock). */
  lastActive: number;
  /** Bytes waiting to be written at the last sweep. */
  pending: number;
  busy: () => boolean;
  /**
   * When the request must have arrived whole (sweeper clock): a client trickling one byte a second
   * is never idle, but it cannot hold a connection slot past this. Infinity until the first byte.
   */
  deadline: number;
}

/**
 * Enforces the idle limit of many connections with one interval: a connection that has neither
 * received nor written a byte for `idleMs` (and is not waiting on the dispatcher) is destroyed.
 * Cheaper than a timer per socket, which every read and write would have to re-arm.
 */
export class IdleSweeper {
  private readonly conns = new Set<Watched>();
  private timer: NodeJS.Timeout | null = null;
  private readonly every: number;

  constructor(readonly idleMs: number) {
    this.every = Math.max(10, Math.min(1000, Math.floor(idleMs / 8)));
  }

  now(): number {
    return performance.now();
  }

  add(w: Watched): void {
    this.conns.add(w);
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), this.every);
      this.timer.unref();
    }
  }

  delete(w: Watched): void {
    this.conns.delete(w);
    if (this.conns.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  sweep(): void {
    const now = this.now();
    for (const w of this.conns) {
      const pending = w.socket.writableLength;
      if (w.busy() || pending < w.pending) w.lastActive = now;
      w.pending = pending;
      if (now - w.lastActive >= this.idleMs || now >= w.deadline) {
        this.conns.delete(w);
        w.socket.destroy();
      }
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.conns.clear();
  }
}

const CR = 13;
const EMPTY = Buffer.alloc(0);

/** Waits until the socket can take more (true) or is gone (false). */
function drained(socket: Socket): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => () => {
      socket.off('drain', onDrain);
      socket.off('close', onClose);
      resolve(ok);
    };
    const onDrain = done(true);
    const onClose = done(false);
    socket.once('drain', onDrain);
    socket.once('close', onClose);
  });
}
const LF = 10;

type HeadResult =
  | { kind: 'more' }
  | { kind: 'too_large'; what: 'request line' | 'header line' | 'header block' }
  | { kind: 'done'; requestLine: string; headerLines: string[]; rest: Buffer };

/**
 * Reads the request line and header lines incrementally, measuring every line as it arrives so an
 * oversized head is refused after at most limit + one chunk of bytes.
 */
export class HeadReader {
  private partial: Buffer[] = [];
  private partialLen = 0;
  private requestLine: string | null = null;
  private headerLines: string[] = [];
  private blockBytes = 0;

  push(chunk: Buffer): HeadResult {
    let pos = 0;
    while (pos < chunk.length) {
      const lf = chunk.indexOf(LF, pos);
      const end = lf === -1 ? chunk.length : lf;
      if (end > pos) {
        this.partial.push(chunk.subarray(pos, end));
        this.partialLen += end - pos;
      }
      if (lf === -1) {
        // No line break yet: the line so far (a trailing CR may belong to the coming CRLF).
        const lastIsCr = chunk[chunk.length - 1] === CR;
        const len = this.partialLen - (lastIsCr ? 1 : 0);
        if (len > LIMITS.maxLineBytes) return this.tooLarge('line');
        if (this.requestLine !== null && this.blockBytes + len > LIMITS.maxHeaderBlockBytes) return { kind: 'too_large', what: 'header block' };
        return { kind: 'more' };
      }
      pos = lf + 1;
      let line = this.partial.length === 1 ? this.partial[0]! : Buffer.concat(this.partial, this.partialLen);
      const hadCr = line.length > 0 && line[line.length - 1] === CR;
      if (hadCr) line = line.subarray(0, line.length - 1);
      this.partial = [];
      this.partialLen = 0;
      if (line.length > LIMITS.maxLineBytes) return this.tooLarge('line');
      if (this.requestLine === null) {
        // Empty lines before the request line are ignored (RFC 9112, 2.2).
        if (line.length > 0) this.requestLine = line.toString('latin1');
        continue;
      }
      if (line.length === 0) {
        return { kind: 'done', requestLine: this.requestLine, headerLines: this.headerLines, rest: chunk.subarray(pos) };
      }
      this.blockBytes += line.length + (hadCr ? 2 : 1);
      if (this.blockBytes > LIMITS.maxHeaderBlockBytes) return { kind: 'too_large', what: 'header block' };
      this.headerLines.push(line.toString('latin1'));
    }
    return { kind: 'more' };
  }

  private tooLarge(_kind: 'line'): HeadResult {
    return { kind: 'too_large', what: this.requestLine === null ? 'request line' : 'header line' };
  }
}

/** Parses header lines into lower-case names; obsolete line folding is joined to the previous value. */
export function parseHeaderLines(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  let last: string | null = null;
  for (const line of lines) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && last !== null) {
      headers[last] = `${headers[last]} ${line.trim()}`.trim();
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!name) continue;
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    last = name;
  }
  return headers;
}

const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Why a header line is malformed, or null. RFC 9112 (5.1) requires a 400 for whitespace between a
 * field name and its colon (request smuggling hides in it); a name that is not a token, or a line
 * without a colon, is no header either. Continuation lines (obsolete folding) are allowed.
 */
export function malformedHeaderLine(lines: string[]): string | null {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if ((line.startsWith(' ') || line.startsWith('\t')) && i > 0) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return `header line ${i + 1} has no field name and colon`;
    const name = line.slice(0, colon);
    if (/[ \t]$/.test(name)) return `header line ${i + 1} has whitespace between the field name and the colon`;
    if (!FIELD_NAME.test(name)) return `header line ${i + 1} has a field name with characters a header name cannot hold`;
  }
  return null;
}

/** Content-Length as the spec reads it: digits only (surrounding spaces allowed); anything else is 0. */
export function contentLength(value: string | undefined): number {
  if (value === undefined) return 0;
  const v = value.trim();
  if (!/^\d+$/.test(v)) return 0;
  const n = Number(v);
  return Number.isFinite(n) ? n : Number.MAX_VALUE;
}

/** The status line and headers of a response whose body has `bodyBytes` bytes. */
function responseHead(reply: HttpReply, bodyBytes: number): string {
  const reason = REASONS[reply.status] ?? 'Unknown';
  let head = `HTTP/1.1 ${reply.status} ${reason}\r\n`;
  if (reply.body !== null || reply.encoded) head += 'Content-Type: application/json; charset=utf-8\r\n';
  head += `Content-Length: ${bodyBytes}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n`;
  if (reply.headers) for (const [k, v] of Object.entries(reply.headers)) head += `${k}: ${v}\r\n`;
  return head + 'Connection: close\r\n\r\n';
}

/** A response as bytes: the head, then the JSON body in chunks (never one string of the whole body). */
export function encodeResponse(reply: HttpReply, headOnly = false): { head: string; chunks: Buffer[] } {
  const body = reply.encoded ?? (reply.body === null ? { chunks: [], bytes: 0 } : encodeJson(reply.body));
  return { head: responseHead(reply, body.bytes), chunks: headOnly ? [] : body.chunks };
}

/** A reply as node:http writes it (the editor's port): status, headers and the body in chunks. */
export function replyForNodeHttp(reply: HttpReply): { status: number; headers: Record<string, string>; chunks: Buffer[] } {
  let r = reply;
  let body: { chunks: Buffer[]; bytes: number };
  try {
    body = r.encoded ?? (r.body === null ? { chunks: [], bytes: 0 } : encodeJson(r.body));
  } catch (err) {
    r = unencodable(err);
    body = encodeJson(r.body);
  }
  const headers: Record<string, string> = { 'Content-Length': String(body.bytes), 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', ...(r.headers ?? {}) };
  if (r.body !== null || r.encoded) headers['Content-Type'] = 'application/json; charset=utf-8';
  return { status: r.status, headers, chunks: body.chunks };
}

/** A (small) response as one string: status line with the spec's reason phrase, JSON body, Connection: close. */
export function formatResponse(reply: HttpReply, headOnly = false): string {
  const { head, chunks } = encodeResponse(reply, headOnly);
  return head + Buffer.concat(chunks).toString('utf8');
}

/** The answer that replaces one whose encoding failed: the server lives on and says why. */
export function unencodable(err: unknown): HttpReply {
  if (err instanceof ReplyTooLarge) {
    return failure(400, 'reply_too_large',
      `${err.message}; ask for less per request: GET /entities and GET /records take limit and offset (page through with next_offset), ` +
      'and GET /entities takes detail=summary or fields=... for smaller entities');
  }
  return failure(400, 'internal_error', `internal error: the answer could not be encoded (${(err as Error)?.message ?? String(err)})`);
}

function failure(status: number, code: string, error: string): HttpReply {
  return { status, body: { ok: false, code, error, http_status: status } };
}

const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) (\S+) HTTP\/(\d)\.(\d)$/;

/**
 * Serves one connection: reads one request, hands it to `handler`, writes the reply, closes.
 * The idle timer runs while reading and writing and is paused while the dispatcher works.
 */
export function serveConnection(socket: Socket, handler: RequestHandler, opts: WireOptions): void {
  let phase: 'head' | 'body' | 'handling' | 'done' = 'head';
  const head = new HeadReader();
  let method = '';
  let target = '';
  let headers: Record<string, string> = {};
  let expected = 0;
  let bodyParts: Buffer[] = [];
  let bodyLen = 0;

  // Bytes the client sent that this request does not consume (a body above the limit, a second
  // request): closing with them unread would reset the connection and could lose the response.
  let unread = false;

  // The idle limit covers reading and writing; time spent in the dispatcher does not count. The
  // head deadline starts with the first byte: a silent new connection gets the spec's full idle
  // limit (15 s), a trickling one is still cut once its head is late.
  const headDeadlineMs = opts.headDeadlineMs ?? LIMITS.headDeadlineMs;
  const watch: Watched = {
    socket, lastActive: opts.idle.now(), pending: 0, busy: () => phase === 'handling',
    deadline: Infinity,
  };
  let firstByte = true;
  opts.idle.add(watch);
  socket.once('close', () => opts.idle.delete(watch));
  socket.on('error', () => socket.destroy());

  const finish = (reply: HttpReply, headOnly = false): void => {
    if (phase === 'done') return;
    phase = 'done';
    if (socket.destroyed) return;
    let out: { head: string; chunks: Buffer[] };
    try {
      out = encodeResponse(reply, headOnly);
    } catch (err) {
      opts.onError?.(err);
      out = encodeResponse(unencodable(err), headOnly);
    }
    writeOut(out.head, out.chunks, unread || reply.status === 431).catch((err: unknown) => {
      opts.onError?.(err);
      socket.destroy();
    });
  };

  // The body goes out chunk by chunk as the socket drains; each written chunk is let go at once.
  const writeOut = async (head: string, chunks: Buffer[], halfClose: boolean): Promise<void> => {
    socket.write(head, 'latin1');
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i]!;
      chunks[i] = EMPTY;
      if (!socket.write(c)) {
        if (!(await drained(socket))) return;
        // a client reading a long answer is not idle
        watch.lastActive = opts.idle.now();
      }
    }
    // Handed to the system: the connection no longer holds a place, even while the client has
    // yet to close its side (a client that saw the answer may open its next connection at once).
    if (socket.writableLength === 0) opts.onAnswered?.();
    else socket.once('finish', () => opts.onAnswered?.());
    if (halfClose) {
      // Half-close: the rest of what the client sends is read and dropped; the connection ends
      // when the client closes or the idle limit passes.
      socket.end();
    } else {
      // The whole request was read: close as soon as the response is handed to the system.
      socket.end(() => socket.destroy());
    }
  };

  const dispatch = (body: Buffer, bodyTooLarge: boolean): void => {
    phase = 'handling';
    opts.onRequest?.();
    // read whole: from here on only the idle limit applies (the dispatcher's time does not count)
    watch.deadline = Infinity;
    bodyParts = [];
    // The client closing its side while the request runs means it went away: the only clients
    // that half-close and still read (none seen in practice) would lose a pending pick.
    const gone = new AbortController();
    const abort = (): void => {
      if (phase === 'handling') gone.abort();
    };
    socket.once('end', abort);
    socket.once('close', abort);
    const req: RawRequest = { method, target, headers, body, bodyTooLarge, signal: gone.signal };
    let p: Promise<HttpReply>;
    try {
      p = handler(req);
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then(
      (reply) => finish(reply, method === 'HEAD'),
      (err: unknown) => {
        opts.onError?.(err);
        finish(failure(400, 'internal_error', `internal error: ${(err as Error)?.message ?? String(err)}`));
      },
    );
  };

  const onBodyBytes = (chunk: Buffer): void => {
    if (chunk.length === 0) return;
    const need = expected - bodyLen;
    if (chunk.length > need) unread = true;
    const take = chunk.length > need ? chunk.subarray(0, need) : chunk;
    bodyParts.push(take);
    bodyLen += take.length;
    if (bodyLen >= expected) dispatch(bodyParts.length === 1 ? bodyParts[0]! : Buffer.concat(bodyParts, bodyLen), false);
  };

  const onHead = (requestLine: string, headerLines: string[], rest: Buffer): void => {
    const m = REQUEST_LINE.exec(requestLine);
    if (!m || m[3] !== '1') {
      finish(failure(400, 'bad_request', 'the request line is not "METHOD /path HTTP/1.1"'));
      return;
    }
    const malformed = malformedHeaderLine(headerLines);
    if (malformed) {
      unread = true; // a body may follow: read it away so the client gets the answer
      finish(failure(400, 'bad_request', `malformed request head: ${malformed}`));
      return;
    }
    method = m[1]!;
    target = m[2]!;
    headers = parseHeaderLines(headerLines);
    if (opts.onHead && !opts.onHead({ method, target, headers })) {
      phase = 'done';
      socket.destroy();
      return;
    }
    const declared = contentLength(headers['content-length']);
    if (declared > LIMITS.maxBodyBytes) {
      // Above the limit: the body counts as empty and whatever arrives is dropped unread.
      unread = true;
      dispatch(Buffer.alloc(0), true);
      return;
    }
    expected = declared;
    if (expected === 0) {
      if (rest.length > 0) unread = true;
      dispatch(Buffer.alloc(0), false);
      return;
    }
    phase = 'body';
    watch.deadline = opts.idle.now() + (opts.bodyDeadlineMs ?? LIMITS.bodyDeadlineMs);
    if (rest.length === 0 && headers.expect?.toLowerCase() === '100-continue') {
      socket.write('HTTP/1.1 100 Continue\r\n\r\n');
    }
    onBodyBytes(rest);
  };

  socket.on('data', (chunk: Buffer) => {
    watch.lastActive = opts.idle.now();
    if (firstByte) {
      firstByte = false;
      if (phase === 'head') watch.deadline = watch.lastActive + headDeadlineMs;
    }
    if (phase === 'head') {
      const r = head.push(chunk);
      if (r.kind === 'more') return;
      if (r.kind === 'too_large') {
        finish(failure(431, 'header_too_large', `the ${r.what} exceeds the size limit (request line and each header line: ${LIMITS.maxLineBytes} bytes; header block: ${LIMITS.maxHeaderBlockBytes} bytes)`));
        return;
      }
      onHead(r.requestLine, r.headerLines, r.rest);
    } else if (phase === 'body') {
      onBodyBytes(chunk);
    } else {
      // 'handling' and 'done': extra bytes (a body above the limit, a second request) are dropped.
      unread = true;
    }
  });

  socket.on('end', () => {
    // The client stopped sending before a whole request arrived: nothing to answer.
    if (phase === 'head' || phase === 'body') socket.destroy();
  });
}
