// JSON lines (stdio and TCP): splitting with a size limit, and turning a line into a request.
import type { ProtocolRequest, ProtocolResponse } from '@linework/engine';
import { ReplyTooLarge, encodeJson, type EncodedJson } from './json-reply.js';

/**
 * Splits a byte stream into lines (LF or CRLF). A line longer than `maxBytes` is reported once
 * through `onOversize` and skipped up to its line break, without being buffered.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private len = 0;
  private skipping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onOversize: () => void,
  ) {}

  push(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      const lf = chunk.indexOf(10, pos);
      const end = lf === -1 ? chunk.length : lf;
      if (!this.skipping) {
        this.parts.push(chunk.subarray(pos, end));
        this.len += end - pos;
        if (this.len > this.maxBytes + 1) {
          this.parts = [];
          this.len = 0;
          this.skipping = true;
          this.onOversize();
        }
      }
      if (lf === -1) return;
      pos = lf + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      this.emitLine();
    }
  }

  /** The stream ended: a last line without a line break still counts. */
  end(): void {
    if (!this.skipping && this.len > 0) this.emitLine();
    this.parts = [];
    this.len = 0;
  }

  private emitLine(): void {
    let line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.len);
    this.parts = [];
    this.len = 0;
    if (line.length && line[line.length - 1] === 13) line = line.subarray(0, line.length - 1);
    if (line.length > this.maxBytes) {
      this.onOversize();
      return;
    }
    this.onLine(line);
  }
}

export type ParsedLine = { kind: 'blank' } | { kind: 'request'; req: ProtocolRequest } | { kind: 'invalid'; response: ProtocolResponse };

/** A line as a request: blank lines are skipped; anything that is not a JSON object is `invalid_request`. */
export function parseLine(line: Buffer): ParsedLine {
  const text = line.toString('utf8');
  if (text.trim() === '') return { kind: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { kind: 'invalid', response: { ok: false, code: 'invalid_request', error: `the line is not valid JSON: ${(err as Error).message}` } };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'invalid', response: { ok: false, code: 'invalid_request', error: 'a request must be a JSON object with `protocol` 1 and `op`' } };
  }
  return { kind: 'request', req: value as ProtocolRequest };
}

export function tooLargeResponse(maxBytes: number): ProtocolResponse {
  return { ok: false, code: 'request_too_large', error: `the line exceeds the size limit of ${maxBytes} bytes` };
}

const NEWLINE = Buffer.from('\n');

/** An answer as one JSON line in chunks; an answer that cannot be encoded becomes a failure line. */
export function encodeLine(res: ProtocolResponse): Buffer[] {
  let out: EncodedJson;
  try {
    out = encodeJson(res);
  } catch (err) {
    const failure: ProtocolResponse = err instanceof ReplyTooLarge
      ? { ok: false, code: 'reply_too_large', error: `${err.message}; ask for less per request (entities_list and records take limit and offset; entities_list takes detail "summary" or fields)` }
      : { ok: false, code: 'internal_error', error: `internal error: the answer could not be encoded (${(err as Error)?.message ?? String(err)})` };
    if (res.request_id !== undefined) failure.request_id = res.request_id;
    out = encodeJson(failure);
  }
  // most answers are one small chunk: one write with its line break
  if (out.chunks.length === 1) return [Buffer.concat([out.chunks[0]!, NEWLINE])];
  return [...out.chunks, NEWLINE];
}

/** An answer line encoded elsewhere (by an organization's worker): written as it is. */
export class EncodedLine {
  constructor(readonly chunks: Buffer[]) {}
}

/** Writes answers in request order while requests run ahead (the dispatcher queues them). */
export class OrderedWriter {
  private chain: Promise<void> = Promise.resolve();
  private inFlight = 0;

  /** `write` takes the chunks of one line in turn; a promise it returns holds the next chunk back. */
  constructor(private readonly write: (chunk: Buffer) => Promise<void> | void) {}

  get pending(): number {
    return this.inFlight;
  }

  push(answer: Promise<ProtocolResponse | EncodedLine> | ProtocolResponse | EncodedLine): Promise<void> {
    this.inFlight++;
    const p = Promise.resolve(answer);
    this.chain = this.chain.then(async () => {
      let res: ProtocolResponse | EncodedLine;
      try {
        res = await p;
      } catch (err) {
        res = { ok: false, code: 'internal_error', error: `internal error: ${(err as Error)?.message ?? String(err)}` };
      }
      try {
        const chunks = res instanceof EncodedLine ? res.chunks : encodeLine(res);
        for (let i = 0; i < chunks.length; i++) {
          const c = chunks[i]!;
          chunks[i] = NEWLINE;
          await this.write(c);
        }
      } finally {
        this.inFlight--;
      }
    }).catch(() => undefined);
    return this.chain;
  }

  /** Resolves when every answer pushed so far is written. */
  drained(): Promise<void> {
    return this.chain;
  }
}
