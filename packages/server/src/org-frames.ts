// The wire between the front and an organization's worker: length-prefixed frames on a byte stream
// (a socket pair to a child process today, a TCP connection to another host tomorrow). Node's IPC
// channel serialized every request and answer as a V8 message and wrote it in blocking mode from
// the worker; here a request's body and an answer's JSON bytes cross as they are, never parsed or
// copied into another encoding, and the only structured part of a frame is a few bytes of meta.
//
// A frame: u32 length of what follows, u8 kind, u32 request id, u32 meta length, meta (small
// JSON), data (raw bytes: a request body, an encoded answer).

/** What a frame carries. */
export const FRAME = {
  /** front -> worker: meta {orgId, root, appVersion, checkpointMs} */
  init: 1,
  /** worker -> front: meta {pid} */
  ready: 2,
  /** front -> worker: save the session and end */
  stop: 3,
  /** front -> worker: meta {method, target}, data the request body */
  http: 4,
  /** front -> worker: data a protocol request (JSON, as the TCP client sent it) */
  line: 5,
  /** worker -> front: meta {status, headers?}, data the answer's JSON bytes */
  httpReply: 6,
  /** worker -> front: data the answer line */
  lineReply: 7,
  /** worker -> front: meta {message}: the request failed in the worker (a bug) */
  failed: 8,
} as const;

export type FrameKind = (typeof FRAME)[keyof typeof FRAME];

export interface Frame {
  kind: number;
  id: number;
  meta: Buffer;
  /** The data as it arrived, in pieces (a large answer is never joined into one buffer here). */
  data: Buffer[];
  dataBytes: number;
}

const HEAD = 13;
const EMPTY = Buffer.alloc(0);

/** The buffers of one frame, to be written in order (`socket.cork()` around them, or `writev`). */
export function encodeFrame(kind: FrameKind, id: number, meta?: unknown, data: readonly Buffer[] = []): Buffer[] {
  const metaBytes = meta === undefined ? EMPTY : Buffer.from(JSON.stringify(meta), 'utf8');
  let dataBytes = 0;
  for (const d of data) dataBytes += d.length;
  const head = Buffer.allocUnsafe(HEAD);
  head.writeUInt32BE(HEAD - 4 + metaBytes.length + dataBytes, 0);
  head.writeUInt8(kind, 4);
  head.writeUInt32BE(id >>> 0, 5);
  head.writeUInt32BE(metaBytes.length, 9);
  return [head, ...(metaBytes.length ? [metaBytes] : []), ...data];
}

/** The meta of a frame, parsed. */
export function frameMeta<T>(f: Frame): T {
  return (f.meta.length ? JSON.parse(f.meta.toString('utf8')) : {}) as T;
}

/** The data of a frame as one buffer (for the small ones: requests, protocol lines). */
export function frameData(f: Frame): Buffer {
  return f.data.length === 1 ? f.data[0]! : Buffer.concat(f.data, f.dataBytes);
}

/** Cuts a byte stream into frames; pieces of data are kept as slices of the chunks that brought them. */
export class FrameReader {
  private held: Buffer = EMPTY;
  private current: Frame | null = null;
  private dataLeft = 0;

  /** Everything `chunk` completes, in order. */
  push(chunk: Buffer): Frame[] {
    const out: Frame[] = [];
    let buf = this.held.length ? Buffer.concat([this.held, chunk]) : chunk;
    this.held = EMPTY;
    for (;;) {
      if (this.current) {
        if (this.dataLeft > 0) {
          if (buf.length === 0) break;
          const take = Math.min(this.dataLeft, buf.length);
          this.current.data.push(buf.subarray(0, take));
          this.dataLeft -= take;
          buf = buf.subarray(take);
        }
        if (this.dataLeft > 0) break;
        out.push(this.current);
        this.current = null;
        continue;
      }
      if (buf.length < HEAD) break;
      const length = buf.readUInt32BE(0);
      const metaLength = buf.readUInt32BE(9);
      if (metaLength > length - (HEAD - 4)) throw new Error('a frame whose meta is longer than the frame');
      if (buf.length < HEAD + metaLength) break;
      this.current = {
        kind: buf.readUInt8(4),
        id: buf.readUInt32BE(5),
        // copied: the meta is small, and a slice would keep the whole chunk alive
        meta: Buffer.from(buf.subarray(HEAD, HEAD + metaLength)),
        data: [],
        dataBytes: length - (HEAD - 4) - metaLength,
      };
      this.dataLeft = this.current.dataBytes;
      buf = buf.subarray(HEAD + metaLength);
    }
    if (buf.length) this.held = Buffer.from(buf);
    return out;
  }
}
