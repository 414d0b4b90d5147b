// Writes tags as binary DXF: the 22-byte sentinel, then per tag its group code (one byte for R12
// and older, 255 escaping a two-byte code; two bytes little-endian from R13 on) and its value typed
// by the code's range (`tags/group-codes.ts`, the same table the binary reader uses): doubles in 8
// bytes, 16/32/64-bit integers, booleans in one byte, binary chunks as a length byte and the bytes,
// everything else a zero-terminated string in the file's encoding. Values are the ones the ASCII
// writer would write (text with line breaks in caret form), so both forms of a drawing read back
// to the same records. No number is formatted as text, which is why this is the faster writer.
import { DxfError } from '../errors.js';
import type { TagSink } from '../types.js';
import type { ValueEncoder } from '../tags/encoding.js';
import { ValueKind, valueKind } from '../tags/group-codes.js';
import { BINARY_SENTINEL } from '../tags/binary-scanner.js';

const CHUNK_BYTES = 1 << 16;
/** Room always left for one tag of fixed size (code and an 8-byte value). */
const SLACK = 32;
const NEWLINES = /\r\n|\r|\n/g;

export class BinaryTagWriter implements TagSink {
  private buf: Buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  // numbers go through a DataView of the chunk: V8 inlines its setters, where Buffer's
  // writeDoubleLE/writeUInt16LE are calls with range checks (about a fifth of the writer's time)
  private view = new DataView(this.buf.buffer, this.buf.byteOffset, CHUNK_BYTES);
  private pos = 0;
  /** Bytes handed out so far. */
  bytes = 0;

  /**
   * @param emit receives each chunk (never written to again once emitted)
   * @param encoder turns non-ASCII text into code-page bytes (one char per byte); null for UTF-8
   * @param oneByteCodes R12 and older: group codes in one byte
   */
  constructor(
    private readonly emit: (chunk: Buffer) => void,
    private readonly encoder: ValueEncoder | null,
    private readonly oneByteCodes: boolean,
  ) {
    BINARY_SENTINEL.copy(this.buf, 0);
    this.pos = BINARY_SENTINEL.length;
  }

  tag(code: number, value: string | number): void {
    if (this.pos > CHUNK_BYTES - SLACK) this.flush();
    const kind = valueKind(code);
    if (kind === ValueKind.Str) {
      this.code(code);
      this.text(typeof value === 'string' ? value : String(value));
      return;
    }
    if (kind === ValueKind.Binary) {
      this.chunks(code, typeof value === 'string' ? value : String(value));
      return;
    }
    this.code(code);
    const view = this.view;
    switch (kind) {
      case ValueKind.Double:
        view.setFloat64(this.pos, typeof value === 'number' ? value : number(code, value), true);
        this.pos += 8;
        return;
      case ValueKind.Int16: {
        // an integer beyond 16 bits keeps its low 16 bits, as a C short would
        view.setInt16(this.pos, Math.trunc(typeof value === 'number' ? value : number(code, value)) & 0xffff, true);
        this.pos += 2;
        return;
      }
      case ValueKind.Int32:
        view.setInt32(this.pos, Math.trunc(typeof value === 'number' ? value : number(code, value)) | 0, true);
        this.pos += 4;
        return;
      case ValueKind.Int64: {
        const big = typeof value === 'number' ? BigInt(Math.trunc(value)) : bigint(code, value);
        view.setBigInt64(this.pos, BigInt.asIntN(64, big), true);
        this.pos += 8;
        return;
      }
      case ValueKind.Bool:
        this.buf[this.pos++] = (typeof value === 'number' ? value : number(code, value)) !== 0 ? 1 : 0;
        return;
    }
  }

  point(code: number, p: readonly number[]): void {
    // a point's codes are doubles (10-39, 110-139, 210-239, 1010-1039): written straight, without
    // the kind lookup per coordinate; anything else goes through tag() as one value each
    if (valueKind(code) !== ValueKind.Double || this.pos > CHUNK_BYTES - 3 * SLACK) {
      this.tag(code, p[0] ?? 0);
      this.tag(code + 10, p[1] ?? 0);
      if (p.length > 2) this.tag(code + 20, p[2]!);
      return;
    }
    const view = this.view;
    const n = p.length > 2 ? 3 : 2;
    for (let i = 0; i < n; i++) {
      const v = p[i] ?? 0;
      this.code(code + 10 * i);
      view.setFloat64(this.pos, typeof v === 'number' ? v : number(code + 10 * i, String(v)), true);
      this.pos += 8;
    }
  }

  flush(): void {
    if (this.pos === 0) return;
    const chunk = this.buf.subarray(0, this.pos);
    this.buf = Buffer.allocUnsafe(CHUNK_BYTES);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, CHUNK_BYTES);
    this.pos = 0;
    this.bytes += chunk.length;
    this.emit(chunk);
  }

  private code(code: number): void {
    const buf = this.buf;
    let pos = this.pos;
    if (this.oneByteCodes) {
      if (code < 255) {
        buf[pos] = code;
        this.pos = pos + 1;
        return;
      }
      buf[pos++] = 255;
    }
    buf[pos] = code & 0xff;
    buf[pos + 1] = code >>> 8;
    this.pos = pos + 2;
  }

  /** A binary value (hex text in the model): a length byte and at most 127 bytes per tag, as AutoCAD writes them. */
  private chunks(code: number, hex: string): void {
    const bytes = Buffer.from(hex.trim(), 'hex');
    let at = 0;
    do {
      const n = Math.min(127, bytes.length - at);
      if (this.pos > CHUNK_BYTES - SLACK - n) this.flush();
      this.code(code);
      this.buf[this.pos++] = n;
      bytes.copy(this.buf, this.pos, at, at + n);
      this.pos += n;
      at += n;
    } while (at < bytes.length);
  }

  /** A text value and its terminating zero. */
  private text(s: string): void {
    const n = s.length;
    if (n < CHUNK_BYTES - this.pos - 1) {
      const buf = this.buf;
      const start = this.pos;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f || c === 10 || c === 13 || c === 0) break;
        buf[start + i] = c;
      }
      if (i === n) {
        buf[start + n] = 0;
        this.pos = start + n + 1;
        return;
      }
    }
    this.bytesOf(this.encode(s));
  }

  /** Text with special characters as bytes: line breaks in caret form, as the ASCII writer writes them. */
  private encode(s: string): Buffer {
    if (s.includes('\n') || s.includes('\r')) s = s.replace(NEWLINES, '^J');
    // a zero byte would end the string early
    if (s.includes('\0')) s = s.replace(/\0/g, '');
    return this.encoder ? Buffer.from(this.encoder(s), 'latin1') : Buffer.from(s, 'utf8');
  }

  private bytesOf(b: Buffer): void {
    if (b.length + 1 > CHUNK_BYTES - this.pos) {
      this.flush();
      if (b.length + 1 > CHUNK_BYTES) {
        const big = Buffer.concat([b, Buffer.from([0])]);
        this.bytes += big.length;
        this.emit(big);
        return;
      }
    }
    b.copy(this.buf, this.pos);
    this.pos += b.length;
    this.buf[this.pos++] = 0;
  }
}

function number(code: number, v: string): number {
  const n = Number(v.trim());
  if (v.trim() === '' || !Number.isFinite(n)) throw new DxfError(`cannot write binary DXF: group code ${code} holds ${JSON.stringify(v.slice(0, 40))}, which is not a number`);
  return n;
}

function bigint(code: number, v: string): bigint {
  try {
    return BigInt(v.trim());
  } catch {
    return BigInt(Math.trunc(number(code, v)));
  }
}
