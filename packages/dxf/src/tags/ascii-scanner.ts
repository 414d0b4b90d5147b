// Reads ASCII DXF from byte chunks, line by line, without ever holding more than a chunk (plus one
// unfinished line). Plain-ASCII values stay bytes of the chunk until the reader asks for them (as
// a number, mostly: no string is made then); values with bytes above 0x7F are decoded at once with
// the file's code page. Only LF ends a line (a CR before it is dropped), so 0x85 and lone CRs
// inside values stay what they are.
import { DxfError } from '../errors.js';
import type { Diagnostic } from '../document-api.js';
import { decodeUnicodeEscapes, type ValueDecoder } from './encoding.js';
import { RecordBuffer, type DecodingControl, type RecordSink } from './record-sink.js';

/** A group code line longer than this cannot be one: fail early instead of buffering binary junk. */
const MAX_CODE_LINE = 256;
/** Longer value lines are treated as a corrupt file rather than buffered without end. */
const MAX_VALUE_LINE = 64 * 1024 * 1024;

const NOT_A_CODE = -0x7fffffff;

/** Parses a group code from bytes [start, end): optional blanks, optional '-', digits, blanks. */
function parseCode(b: Uint8Array, start: number, end: number): number {
  let i = start;
  while (i < end && (b[i] === 32 || b[i] === 9)) i++;
  let neg = false;
  if (i < end && b[i] === 45) {
    neg = true;
    i++;
  }
  const digitsStart = i;
  let code = 0;
  while (i < end) {
    const d = b[i]! - 48;
    if (d < 0 || d > 9) break;
    code = code * 10 + d;
    i++;
  }
  if (i === digitsStart || i - digitsStart > 9) return NOT_A_CODE;
  while (i < end && (b[i] === 32 || b[i] === 9 || b[i] === 13)) i++;
  if (i !== end) return NOT_A_CODE;
  return neg ? -code : code;
}

function isBlank(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = b[i];
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

/**
 * What a line that should hold a group code holds, described without quoting it: the file may not
 * be a drawing at all, and an error message must never hand its bytes to whoever asked to open it.
 */
function describeLine(b: Uint8Array, start: number, end: number): string {
  const n = end - start;
  if (n === 0) return 'an empty line';
  let printable = true;
  for (let i = start; i < end && printable; i++) printable = b[i]! >= 32 && b[i]! < 127;
  const one = n === 1;
  return printable ? `${n} character${one ? '' : 's'} of text` : `${n} byte${one ? '' : 's'} of binary data`;
}

function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

function toBuffer(u: Uint8Array): Buffer {
  return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

export class AsciiTagScanner implements DecodingControl {
  private readonly buf = new RecordBuffer();
  private leftover: Uint8Array | null = null;
  private havePending = false;
  private pendingCode = 0;
  private pendingLine = 0;
  private line = 0;
  private blankCodeLine = 0;
  private started = false;
  private done = false;
  private decoder: ValueDecoder | null = null;
  private escapes = false;
  /** Scanning one buffer holding the whole input (`scanWhole`): records know their byte range. */
  private whole = false;
  /** Where the pending code line starts, and whether it is other than `[blanks]digits` LF. */
  private pendingPos = 0;
  private pendingDirty = false;

  constructor(
    private readonly sink: RecordSink,
    private readonly onDiagnostic: (d: Diagnostic) => void = () => {},
  ) {}

  setDecoder(decoder: ValueDecoder | null, unicodeEscapes: boolean): void {
    this.decoder = decoder;
    this.escapes = unicodeEscapes;
  }

  /** True once `0 EOF` was read; later input is ignored. */
  get finished(): boolean {
    return this.done;
  }

  /** Makes the scanner ready for another input (its decoder stays). */
  reset(): void {
    this.buf.n = 0;
    this.leftover = null;
    this.havePending = false;
    this.line = 0;
    this.blankCodeLine = 0;
    this.started = false;
    this.done = false;
    this.whole = false;
  }

  /**
   * Scans `bytes`, the whole input, in one pass: each record handed over knows where it lies in
   * them (`TagRecord.byteStart`), so a reader may keep a record as its bytes. `end()` follows.
   */
  scanWhole(bytes: Uint8Array): void {
    if (this.done || bytes.length === 0) return;
    this.whole = true;
    this.started = true;
    const pos = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    const stop = this.scan(bytes, pos, true);
    this.buf.byteEnd = stop;
  }

  feed(chunk: Uint8Array): void {
    if (this.done || chunk.length === 0) return;
    let b = chunk;
    let pos = 0;
    const left = this.leftover;
    if (left) {
      this.leftover = null;
      const lf = this.started ? chunk.indexOf(10) : -1;
      if (lf >= 0) {
        // the unfinished line is completed on its own: the chunk is scanned where it lies, not
        // copied behind the line (a megabyte of fresh memory per chunk)
        this.scan(join(left, chunk.subarray(0, lf + 1)), 0, false);
        if (this.done) return;
        pos = lf + 1;
      } else b = join(left, chunk);
    }
    if (!this.started) {
      if (b.length < 3 && b[0] === 0xef) {
        this.leftover = Uint8Array.prototype.slice.call(b);
        return;
      }
      this.started = true;
      if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) pos = 3; // UTF-8 byte order mark
    }
    pos = this.scan(b, pos, false);
    if (pos < b.length && !this.done) {
      const rest = b.length - pos;
      if (!this.havePending && rest > MAX_CODE_LINE) this.badCode(b, pos, pos + MAX_CODE_LINE, this.line + 1);
      if (rest > MAX_VALUE_LINE) throw new DxfError('value line too long, not a DXF file?', this.line + 1);
      // a copy: the caller may reuse the chunk's memory for the next one
      this.leftover = Uint8Array.prototype.slice.call(b, pos);
    }
  }

  /** Finishes the input: the last line may lack its line feed; a missing value is reported. */
  end(): void {
    if (!this.done && this.leftover) {
      const b = this.leftover;
      this.leftover = null;
      this.scan(b, 0, true);
    }
    if (!this.done && this.havePending) {
      this.onDiagnostic({
        level: 'error',
        code: 'truncated',
        message: `file ends after group code ${this.pendingCode} without its value`,
        line: this.pendingLine,
      });
      this.havePending = false;
    }
    this.buf.flush(this.sink);
  }

  /** Scans complete lines of `b` from `pos`; returns where the first unfinished line starts. */
  private scan(chunk: Uint8Array, pos: number, final: boolean): number {
    const b = toBuffer(chunk);
    const len = b.length;
    const buf = this.buf;
    buf.bytes = b;
    const whole = this.whole;
    // the line state lives in locals while scanning (this loop runs twice per tag) and goes back
    // to the fields whenever the loop is left; the sink may change the decoder, which is read anew
    let line = this.line;
    let pending = this.havePending;
    let pendingCode = this.pendingCode;
    let pendingLine = this.pendingLine;
    let pendingPos = this.pendingPos;
    let pendingDirty = this.pendingDirty;
    // Up to the chunk's last line feed every line ends inside the chunk. There, the usual tag (a
    // code line of blanks and digits, then a value line of plain ASCII, code neither 0 nor 999)
    // is read in one pass without bounds checks; anything else takes the general path below, one
    // line at a time.
    const safe = b.lastIndexOf(10);
    while (pos < len) {
      // (after a blank code line only the end of the file may follow: the general path checks)
      while (!pending && pos < safe && this.blankCodeLine === 0) {
        let i = pos;
        let c = b[i]!;
        while (c === 32) c = b[++i]!;
        const first = i;
        let code = 0;
        while (c >= 48 && c <= 57) {
          code = code * 10 + (c - 48);
          c = b[++i]!;
        }
        let cr = false;
        if (c === 13) {
          c = b[++i]!;
          cr = true;
        }
        // the value line must end before `safe` too
        if (c !== 10 || i >= safe || i === first || i - first > 9 || code === 0 || code === 999) break;
        const start = i + 1;
        let e = start;
        let high = 0;
        for (;;) {
          const v = b[e]!;
          if (v === 10) break;
          high |= v;
          e++;
        }
        // a value with bytes above 0x7F is decoded by the general path
        if (high & 0x80) break;
        let end = e;
        if (e > start && b[e - 1] === 13) {
          end = e - 1;
          cr = true;
        }
        if (buf.n === 0) {
          buf.line = line + 1;
          buf.escapes = this.escapes;
        }
        if (cr) buf.clean = false;
        buf.pushBytes(code, start, end);
        line += 2;
        pos = e + 1;
      }
      if (pos >= len) break;
      if (!pending && this.blankCodeLine === 0) {
        // the usual group code line, `  10` or `330` with LF or CRLF, read in one pass; anything
        // else (tabs, trailing blanks, junk, the chunk's end) takes the general path below
        let i = pos;
        while (i < len && b[i] === 32) i++;
        const first = i;
        let code = 0;
        let c = -1;
        while (i < len) {
          c = b[i]!;
          if (c < 48 || c > 57) break;
          code = code * 10 + (c - 48);
          i++;
        }
        const digits = i - first;
        let cr = false;
        if (c === 13 && i + 1 < len) {
          c = b[++i]!;
          cr = true;
        }
        if (c === 10 && i < len && digits > 0 && digits <= 9) {
          line++;
          pending = true;
          pendingCode = code;
          pendingLine = line;
          pendingPos = pos;
          pendingDirty = cr;
          pos = i + 1;
          continue;
        }
      }
      let e = pos;
      let high = 0;
      while (e < len) {
        const c = b[e]!;
        if (c === 10) break;
        high |= c;
        e++;
      }
      if (e === len && !final) break;
      let end = e;
      let cr = false;
      if (end > pos && b[end - 1] === 13) {
        end--;
        cr = true;
      }
      line++;
      if (!pending) {
        const code = parseCode(b, pos, end);
        if (code === NOT_A_CODE) {
          if (isBlank(b, pos, end)) {
            // blank lines are only acceptable at the very end of the file
            if (this.blankCodeLine === 0) this.blankCodeLine = line;
          } else {
            this.line = line;
            this.badCode(b, pos, end, this.blankCodeLine || line, this.blankCodeLine !== 0);
          }
        } else {
          if (this.blankCodeLine !== 0) this.badCode(b, pos, pos, this.blankCodeLine, true);
          pending = true;
          pendingCode = code;
          pendingLine = line;
          pendingPos = pos;
          // not the plain form: the writer would write this line otherwise
          pendingDirty = true;
        }
      } else {
        pending = false;
        // a value with bytes above 0x7F is decoded now, with the decoder of now
        let v: string | null = null;
        if (high & 0x80) v = this.decoder ? this.decoder(b, pos, end) : b.toString('latin1', pos, end);
        if (pendingCode === 0) {
          buf.byteEnd = whole ? pendingPos : -1;
          buf.flush(this.sink);
          buf.line = pendingLine;
          buf.escapes = this.escapes;
          buf.byteStart = whole ? pendingPos : -1;
          buf.clean = whole && !pendingDirty && !cr && v === null;
          if (v !== null) buf.push(0, v.trim());
          else {
            // the type name is trimmed as `trim` would: ASCII blanks and controls 9..13
            let ts = pos;
            let te = end;
            while (ts < te && (b[ts] === 32 || (b[ts]! >= 9 && b[ts]! <= 13))) ts++;
            while (te > ts && (b[te - 1] === 32 || (b[te - 1]! >= 9 && b[te - 1]! <= 13))) te--;
            if (ts !== pos || te !== end) buf.clean = false;
            buf.pushBytes(0, ts, te);
          }
          if (buf.is(0, 'EOF')) {
            buf.byteEnd = whole ? e + 1 : -1;
            buf.flush(this.sink);
            this.done = true;
            this.line = line;
            this.havePending = false;
            return len;
          }
        } else if (pendingCode !== 999) {
          if (buf.n === 0) {
            buf.line = pendingLine;
            buf.escapes = this.escapes;
          }
          if (pendingDirty || cr) buf.clean = false;
          if (v === null) buf.pushBytes(pendingCode, pos, end);
          else {
            if (this.escapes && v.length > 6 && v.indexOf('\\U+') !== -1) v = decodeUnicodeEscapes(v);
            buf.push(pendingCode, v);
          }
        } else buf.clean = false; // a comment lies among the record's bytes
      }
      pos = e + 1;
    }
    this.line = line;
    this.havePending = pending;
    this.pendingCode = pendingCode;
    this.pendingLine = pendingLine;
    this.pendingPos = pendingPos;
    this.pendingDirty = pendingDirty;
    // the record under way keeps its values, not this chunk
    if (!whole) buf.detach();
    return pos < len ? pos : len;
  }

  private badCode(b: Uint8Array, start: number, end: number, line: number, blank = false): never {
    throw new DxfError(`expected a group code, found ${blank ? 'an empty line' : describeLine(b, start, end)}`, line);
  }
}
