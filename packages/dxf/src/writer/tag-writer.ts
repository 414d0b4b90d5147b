// Formats tags as ASCII DXF into chunks of bytes: group codes right-aligned in three columns as
// AutoCAD writes them, numbers by their code's type, text in the file's encoding (code page bytes
// with `\U+XXXX` for what it lacks before R2007, UTF-8 after). Chunks go to a callback, so a
// file of any size is written without one big string.
//
// Tags are written straight into a byte buffer: building a string per tag and converting it
// afterwards cost more than the rest of the writer together on drawings of a million entities.
// The output is byte for byte that of `formatFloat` / `formatInt` and the code-page encoders.
import type { TagSink } from '../types.js';
import { formatFloat, formatInt } from '../tags/format.js';
import { isFloatCode } from '../tags/group-codes.js';
import type { ValueEncoder } from '../tags/encoding.js';

const CHUNK_BYTES = 1 << 16;
/** Room left at the end of a chunk for one code line and one number (at most ~30 bytes). */
const SLACK = 64;
const LIMIT = CHUNK_BYTES - SLACK;

const NEWLINES = /\r\n|\r|\n/g;

export class TagWriter implements TagSink {
  private buf: Buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private pos = 0;
  /** Bytes handed out so far. */
  bytes = 0;

  /**
   * @param emit receives each chunk (a chunk is never written to again once emitted)
   * @param encoder turns non-ASCII text into code-page bytes (one char per byte); null for UTF-8
   */
  constructor(
    private readonly emit: (chunk: Buffer) => void,
    private readonly encoder: ValueEncoder | null,
  ) {}

  // A run of records copied as they were read (`raw`): consecutive ones lie next to each other in
  // the file's bytes, and are handed on as one slice of them when the run ends.
  private rawSrc: Uint8Array | null = null;
  private rawStart = 0;
  private rawEnd = 0;

  /**
   * Writes bytes [start, end) of `src` as they are: whole records read from a file in this
   * writer's version and code page, with LF line ends. `src` must not change until the writing
   * is done (a long run is handed to `emit` as a view of it).
   */
  raw(src: Uint8Array, start: number, end: number): void {
    if (this.rawSrc === src && this.rawEnd === start) {
      this.rawEnd = end;
      return;
    }
    if (this.rawSrc !== null) this.endRaw();
    this.rawSrc = src;
    this.rawStart = start;
    this.rawEnd = end;
  }

  private endRaw(): void {
    const src = this.rawSrc!;
    this.rawSrc = null;
    const n = this.rawEnd - this.rawStart;
    if (n <= CHUNK_BYTES - this.pos) {
      this.buf.set(src.subarray(this.rawStart, this.rawEnd), this.pos);
      this.pos += n;
      return;
    }
    this.flush();
    this.bytes += n;
    this.emit(Buffer.from(src.buffer, src.byteOffset + this.rawStart, n));
  }

  tag(code: number, value: string | number): void {
    if (this.rawSrc !== null) this.endRaw();
    if (this.pos > LIMIT) this.flush();
    this.code(code);
    if (typeof value === 'number') {
      if (isFloatCode(code)) this.float(value);
      else this.int(value);
      this.buf[this.pos++] = 10;
    } else this.text(value);
  }

  point(code: number, p: readonly number[]): void {
    if (this.rawSrc !== null) this.endRaw();
    if (this.pos > CHUNK_BYTES - 3 * SLACK) this.flush();
    const buf = this.buf;
    this.code(code);
    this.float(p[0] ?? 0);
    buf[this.pos++] = 10;
    this.code(code + 10);
    this.float(p[1] ?? 0);
    buf[this.pos++] = 10;
    if (p.length > 2) {
      this.code(code + 20);
      this.float(p[2]!);
      buf[this.pos++] = 10;
    }
  }

  flush(): void {
    if (this.rawSrc !== null) this.endRaw();
    if (this.pos === 0) return;
    const chunk = this.buf.subarray(0, this.pos);
    this.buf = Buffer.allocUnsafe(CHUNK_BYTES);
    this.pos = 0;
    this.bytes += chunk.length;
    this.emit(chunk);
  }

  /** The code line: right-aligned in three columns, wider codes as they are. */
  private code(code: number): void {
    const buf = this.buf;
    let p = this.pos;
    if (code >= 0 && code < 1000) {
      buf[p] = code >= 100 ? 48 + ((code / 100) | 0) : 32;
      buf[p + 1] = code >= 10 ? 48 + (((code / 10) | 0) % 10) : 32;
      buf[p + 2] = 48 + (code % 10);
      buf[p + 3] = 10;
      this.pos = p + 4;
      return;
    }
    const s = String(code).padStart(3, ' ');
    for (let i = 0; i < s.length; i++) buf[p++] = s.charCodeAt(i);
    buf[p] = 10;
    this.pos = p + 1;
  }

  /** Writes `formatFloat(n)`. */
  private float(n: number): void {
    const a = n < 0 ? -n : n;
    if (Number.isInteger(n)) {
      if (a <= Number.MAX_SAFE_INTEGER) {
        if (n < 0) this.buf[this.pos++] = 45;
        if (a <= 0x7fffffff) this.smallDigits(a);
        else this.digits(a);
        this.buf[this.pos++] = 46;
        this.buf[this.pos++] = 48;
        return;
      }
    } else if (a >= 1e-5 && a < 1e9) {
      // A decimal with at most 15 significant digits that rounds to `n` is the only such decimal
      // (two of them are further apart than a double's rounding interval), so it is exactly the
      // shortest round-trip form String(n) prints; the division proves the rounding.
      const small = a < 1e6;
      const scale = small ? 1e9 : 1e6;
      const m = Math.round(a * scale);
      if (m / scale === a) {
        // both parts stay below 2^31: a < 1e9, and the fraction has at most 9 digits
        let ip = Math.floor(m / scale);
        let frac = m - ip * scale;
        if (frac < 0) {
          ip -= 1;
          frac += scale;
        } else if (frac >= scale) {
          ip += 1;
          frac -= scale;
        }
        let f = frac | 0;
        if (f !== 0) {
          const buf = this.buf;
          if (n < 0) buf[this.pos++] = 45;
          this.smallDigits(ip | 0);
          buf[this.pos++] = 46;
          let len = small ? 9 : 6;
          let q = (f / 10) | 0;
          while (f === q * 10) {
            f = q;
            q = (f / 10) | 0;
            len--;
          }
          let p = this.pos + len;
          this.pos = p;
          for (let i = 0; i < len; i++) {
            q = (f / 10) | 0;
            buf[--p] = 48 + f - q * 10;
            f = q;
          }
          return;
        }
      }
    }
    this.ascii(formatFloat(n));
  }

  /** Writes `formatInt(n)`. */
  private int(n: number): void {
    if (Number.isInteger(n) && n <= Number.MAX_SAFE_INTEGER && n >= -Number.MAX_SAFE_INTEGER) {
      const a = n < 0 ? -n : n;
      if (n < 0) this.buf[this.pos++] = 45;
      if (a <= 0x7fffffff) this.smallDigits(a);
      else this.digits(a);
      return;
    }
    this.ascii(formatInt(n));
  }

  /** Decimal digits of an integer in [0, 2^31). */
  private smallDigits(v: number): void {
    const buf = this.buf;
    const len = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5 : v < 1000000 ? 6 : v < 10000000 ? 7 : v < 100000000 ? 8 : v < 1000000000 ? 9 : 10;
    let p = this.pos + len;
    this.pos = p;
    do {
      const q = (v / 10) | 0;
      buf[--p] = 48 + v - q * 10;
      v = q;
    } while (v > 0);
  }

  /** Decimal digits of a safe integer of 2^31 or more. */
  private digits(v: number): void {
    const hi = Math.floor(v / 1e8);
    const lo = v - hi * 1e8;
    this.smallDigits(hi);
    // the low half with its leading zeros
    const buf = this.buf;
    let p = this.pos + 8;
    this.pos = p;
    let x = lo | 0;
    for (let i = 0; i < 8; i++) {
      const q = (x / 10) | 0;
      buf[--p] = 48 + x - q * 10;
      x = q;
    }
  }

  /** A short ASCII string (numbers): always fits the slack. */
  private ascii(s: string): void {
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < s.length; i++) buf[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** A text value and its line feed: line breaks cannot be part of a value, other chars are encoded. */
  private text(s: string): void {
    const n = s.length;
    if (n < CHUNK_BYTES - this.pos) {
      const buf = this.buf;
      const start = this.pos;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f || c === 10 || c === 13) break;
        buf[start + i] = c;
      }
      if (i === n) {
        buf[start + n] = 10;
        this.pos = start + n + 1;
        return;
      }
    }
    this.bytesOf(this.encode(s));
  }

  /** Text with special characters, as one char per output byte. */
  private encode(s: string): string {
    let special = false;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f || c === 10 || c === 13) {
        special = true;
        break;
      }
    }
    if (!special) return s;
    // AutoCAD's caret notation for a line feed: the value stays on one line
    if (s.includes('\n') || s.includes('\r')) s = s.replace(NEWLINES, '^J');
    return this.encoder ? this.encoder(s) : Buffer.from(s, 'utf8').toString('latin1');
  }

  /** A latin1 string (one char per byte) of any length, and its line feed. */
  private bytesOf(s: string): void {
    if (s.length + 1 > CHUNK_BYTES - this.pos) {
      this.flush();
      if (s.length + 1 > CHUNK_BYTES) {
        const big = Buffer.from(s + '\n', 'latin1');
        this.bytes += big.length;
        this.emit(big);
        return;
      }
    }
    this.pos += this.buf.write(s, this.pos, 'latin1');
    this.buf[this.pos++] = 10;
  }
}
