// Answers as JSON bytes without ever building one string of the whole: a listing of 100k entities
// at full detail is tens of megabytes, and a string past V8's limit (about 512 MB) throws inside
// JSON.stringify. Large arrays are encoded element by element into chunks of about 64 KiB, which
// the transports write with backpressure; an answer above the reply cap is refused with a clear
// code instead of being built at all.

import { LIMITS } from '@linework/engine';

/** Largest answer the server sends (bytes of JSON); larger ones fail with `reply_too_large`. */
export const MAX_REPLY_BYTES = LIMITS.maxReplyBytes;

const CHUNK = 64 * 1024;

/** An answer whose JSON would pass the cap (or cannot be encoded at all). */
export class ReplyTooLarge extends Error {
  constructor(readonly cap: number) {
    super(`the answer is larger than the reply cap of ${cap / (1024 * 1024)} MiB`);
    this.name = 'ReplyTooLarge';
  }
}

export interface EncodedJson {
  chunks: Buffer[];
  bytes: number;
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';

/** A small array or an object that holds typed arrays one level down (walked, so they become base64). */
function holdsBinary(v: unknown): boolean {
  const direct = (o: unknown): boolean => isPlain(o) && Object.values(o).some((y) => ArrayBuffer.isView(y));
  if (Array.isArray(v)) return v.length <= 64 && v.some(direct);
  return direct(v);
}

/**
 * `JSON.stringify(value)` as Buffer chunks, except that typed arrays and Buffers become base64
 * strings. Arrays (and the objects holding them, near the top)
 * are walked so no single string grows with the answer; everything else is encoded natively.
 * Throws ReplyTooLarge past `cap` bytes.
 */
export function encodeJson(value: unknown, cap = MAX_REPLY_BYTES): EncodedJson {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let acc = '';
  const flush = (): void => {
    if (acc.length === 0) return;
    const b = Buffer.from(acc, 'utf8');
    acc = '';
    bytes += b.length;
    if (bytes > cap) throw new ReplyTooLarge(cap);
    chunks.push(b);
  };
  const push = (s: string): void => {
    // a piece longer than the cap in UTF-16 units is longer in bytes too
    if (s.length > cap) throw new ReplyTooLarge(cap);
    acc += s;
    if (acc.length >= CHUNK) flush();
  };
  const native = (v: unknown): string | undefined => {
    try {
      return JSON.stringify(v);
    } catch (err) {
      if (err instanceof RangeError) throw new ReplyTooLarge(cap);
      throw err;
    }
  };
  const walk = (v: unknown, depth: number): void => {
    if (ArrayBuffer.isView(v)) {
      // binary values (a display list's typed arrays) travel as base64 strings
      push(`"${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')}"`);
      return;
    }
    if (Array.isArray(v) && (v.length > 16 || holdsBinary(v))) {
      push('[');
      for (let i = 0; i < v.length; i++) {
        if (i) push(',');
        const el = v[i];
        if (el === undefined || typeof el === 'function' || typeof el === 'symbol') push('null');
        else walk(el, depth + 1);
      }
      push(']');
      return;
    }
    if (isPlain(v) && (depth < 3 || holdsBinary(v))) {
      push('{');
      let first = true;
      for (const k of Object.keys(v)) {
        const x = v[k];
        if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
        push(first ? `${JSON.stringify(k)}:` : `,${JSON.stringify(k)}:`);
        first = false;
        walk(x, depth + 1);
      }
      push('}');
      return;
    }
    push(native(v) ?? 'null');
  };
  walk(value, 0);
  flush();
  return { chunks, bytes };
}

/** The whole encoding as one string (small answers, tests). */
export function jsonText(value: unknown, cap = MAX_REPLY_BYTES): string {
  return Buffer.concat(encodeJson(value, cap).chunks).toString('utf8');
}
