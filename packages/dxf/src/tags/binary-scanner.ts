// Reads binary DXF (after its 22-byte sentinel) from byte chunks. R12 files use one-byte group
// codes (255 escapes a following two-byte code), later ones two-byte codes; values are typed by
// the group code's range. Numbers are turned into their shortest round-trip text, so the layers
// above see the same tags as from an ASCII file.
//
// A damaged byte in a group code makes the reader take the bytes after it for values of other
// types: it soon meets a code the DXF reference does not define, or a record type that is no name.
// Then the record being read is dropped (an error diagnostic says which and where), and reading
// resumes at the next place that looks like the start of a record (a code 0 with a name, followed
// by a defined code).
import { DxfError } from '../errors.js';
import type { Diagnostic } from '../document-api.js';
import { decodeUnicodeEscapes, type ValueDecoder } from './encoding.js';
import { formatFloat } from './format.js';
import { ValueKind, isValidCode, valueKind } from './group-codes.js';
import { RecordBuffer, type DecodingControl, type RecordSink } from './record-sink.js';

export const BINARY_SENTINEL = Buffer.from('AutoCAD Binary DXF\r\n\x1a\x00', 'latin1');

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).toUpperCase().padStart(2, '0'));

/** A byte of a record type name: letters, digits, `_ $ * - .`. */
function nameByte(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 36 || c === 42 || c === 45 || c === 46;
}

/** Whether a code-0 value can be a record type (`LINE`, `ACAD_PROXY_ENTITY`, `$MODEL_SPACE` ...). */
function isTypeName(v: string): boolean {
  if (v.length === 0 || v.length > 64) return false;
  for (let i = 0; i < v.length; i++) if (!nameByte(v.charCodeAt(i))) return false;
  return true;
}

/** Longest record type name looked for when resuming after damage. */
const MAX_NAME = 64;

/**
 * A value cannot hold a line break in ASCII DXF. Inside MTEXT content (codes 1 and 3) a line break
 * is a paragraph break, `\\P`, as ezdxf reads it (a CR before it dropped); elsewhere it takes the
 * caret form the writer uses, `^J`.
 */
function lineBreaks(v: string, code: number, record: RecordBuffer): string {
  if ((code === 1 || code === 3) && record.n > 0 && record.is(0, 'MTEXT')) return v.replace(/\r\n|\n/g, '\\P').replace(/\r/g, '');
  return v.replace(/\r\n|\r|\n/g, '^J');
}

export class BinaryTagScanner implements DecodingControl {
  private readonly buf = new RecordBuffer();
  private leftover: Buffer | null = null;
  private oneByteCodes: boolean | null = null;
  private offset = 22;
  private done = false;
  private decoder: ValueDecoder | null = null;
  private escapes = false;
  /** After damage: looking for the start of a record; the absolute offset where the search began. */
  private lost = -1;

  constructor(
    private readonly sink: RecordSink,
    private readonly onDiagnostic: (d: Diagnostic) => void = () => {},
  ) {}

  setDecoder(decoder: ValueDecoder | null, unicodeEscapes: boolean): void {
    this.decoder = decoder;
    this.escapes = unicodeEscapes;
  }

  get finished(): boolean {
    return this.done;
  }

  /** Feeds bytes that follow the sentinel. */
  feed(chunk: Uint8Array): void {
    if (this.done || chunk.length === 0) return;
    let b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.leftover) {
      b = Buffer.concat([this.leftover, b]);
      this.leftover = null;
    }
    if (this.oneByteCodes === null) {
      if (b.length < 2) {
        this.leftover = Buffer.from(b);
        return;
      }
      // the first tag is `0 SECTION`: a zero second byte means the code took two bytes
      this.oneByteCodes = b[1] !== 0;
    }
    const pos = this.scan(b);
    if (pos < b.length && !this.done) this.leftover = Buffer.from(b.subarray(pos));
  }

  end(): void {
    if (this.lost >= 0) {
      this.onDiagnostic({ level: 'error', code: 'corrupt', message: `binary DXF: no record found after the damage at byte ${this.lost}: the rest of the file is dropped` });
    } else if (!this.done && this.leftover && this.leftover.length > 0) {
      this.onDiagnostic({
        level: 'error',
        code: 'truncated',
        message: `binary DXF ends inside a tag at byte ${this.offset}`,
      });
    }
    this.leftover = null;
    this.buf.flush(this.sink);
  }

  /**
   * Damage at the tag being read (`offset` is where it starts): the record being read is dropped
   * and a record start is looked for from there on.
   */
  private damaged(why: string): void {
    const buf = this.buf;
    const type = buf.n > 0 && buf.codes[0] === 0 ? buf.str(0) : '';
    buf.n = 0;
    const where = this.offset;
    this.onDiagnostic({
      level: 'error',
      code: 'corrupt',
      message: `binary DXF: ${why} at byte ${where}${type ? `: the ${type} record read there is dropped` : ''}`,
    });
    this.lost = where;
  }

  /**
   * The position from `from` on where a record starts (code 0, a type name, then a defined code),
   * -1 when there is none in `b`, -2 when `b` ends too soon to tell.
   */
  private findRecord(b: Buffer, from: number): number {
    const one = this.oneByteCodes;
    const len = b.length;
    for (let i = from; i < len; i++) {
      if (b[i] !== 0) continue;
      let s: number;
      if (one) s = i + 1;
      else {
        if (i + 1 >= len) return -2;
        if (b[i + 1] !== 0) continue;
        s = i + 2;
      }
      let z = s;
      while (z < len && z - s <= MAX_NAME && nameByte(b[z]!)) z++;
      if (z >= len) return len - i > MAX_NAME + 8 ? -1 : -2;
      if (b[z] !== 0 || z === s) continue;
      let next: number;
      if (one) {
        if (z + 1 >= len) return -2;
        next = b[z + 1]!;
        if (next === 255) {
          if (z + 4 > len) return -2;
          next = b.readUInt16LE(z + 2);
        }
      } else {
        if (z + 3 > len) return -2;
        next = b.readUInt16LE(z + 1);
      }
      if (isValidCode(next)) return i;
    }
    return -1;
  }

  /** Reads complete tags; returns the position of the first incomplete one. */
  private scan(b: Buffer): number {
    const len = b.length;
    const one = this.oneByteCodes;
    let p = 0;
    while (p < len) {
      if (this.lost >= 0) {
        const q = this.findRecord(b, p);
        if (q < 0) {
          // keep the bytes that may start a record for the next chunk
          const keep = q === -2 ? Math.min(len - p, MAX_NAME + 8) : 0;
          this.offset += len - keep - p;
          return len - keep;
        }
        this.onDiagnostic({ level: 'warning', code: 'corrupt', message: `binary DXF: reading resumes at byte ${this.offset + (q - p)}, ${this.offset + (q - p) - this.lost} bytes after the damage` });
        this.offset += q - p;
        p = q;
        this.lost = -1;
      }
      const start = p;
      let code: number;
      if (one) {
        code = b[p]!;
        p++;
        if (code === 255) {
          if (p + 2 > len) return start;
          code = b.readUInt16LE(p);
          p += 2;
        }
      } else {
        if (p + 2 > len) return start;
        code = b.readUInt16LE(p);
        p += 2;
      }
      // junk after a sentinel would otherwise be read as tags of made-up codes until its end
      if (this.offset === 22 && code !== 0 && code !== 999) {
        throw new DxfError(`binary DXF: the first tag has group code ${code} at byte 22, expected 0 (SECTION)`);
      }
      if (!isValidCode(code)) {
        this.damaged(`group code ${code}, which DXF does not define,`);
        p = start + 1;
        this.offset += 1;
        continue;
      }
      let v: string;
      switch (valueKind(code)) {
        case ValueKind.Double:
          if (p + 8 > len) return start;
          {
            const d = b.readDoubleLE(p);
            // NaN and infinities stay what they are, for the reader to report as damage
            v = d - d === 0 ? formatFloat(d) : String(d);
          }
          p += 8;
          break;
        case ValueKind.Int16:
          if (p + 2 > len) return start;
          v = String(b.readInt16LE(p));
          p += 2;
          break;
        case ValueKind.Int32:
          if (p + 4 > len) return start;
          v = String(b.readInt32LE(p));
          p += 4;
          break;
        case ValueKind.Int64:
          if (p + 8 > len) return start;
          v = String(b.readBigInt64LE(p));
          p += 8;
          break;
        case ValueKind.Bool:
          if (p + 1 > len) return start;
          v = String(b[p]);
          p += 1;
          break;
        case ValueKind.Binary: {
          if (p + 1 > len) return start;
          const n = b[p]!;
          if (p + 1 + n > len) return start;
          let hex = '';
          for (let i = p + 1; i < p + 1 + n; i++) hex += HEX[b[i]!];
          v = hex;
          p += 1 + n;
          break;
        }
        default: {
          const z = b.indexOf(0, p);
          if (z < 0) {
            if (len - p > 64 * 1024 * 1024) throw new DxfError(`unterminated string at byte ${this.offset + p}`);
            return start;
          }
          let high = 0;
          for (let i = p; i < z; i++) high |= b[i]!;
          v = high & 0x80 && this.decoder ? this.decoder(b, p, z) : b.toString('latin1', p, z);
          p = z + 1;
          if (code === 0) v = v.trim();
          else {
            if (v.includes('\n') || v.includes('\r')) v = lineBreaks(v, code, this.buf);
            if (this.escapes && v.indexOf('\\U+') !== -1) v = decodeUnicodeEscapes(v);
          }
        }
      }
      if (code === 0 && !isTypeName(v)) {
        this.damaged(`a record type that is no name (${JSON.stringify(v.slice(0, 20))})`);
        p = start + 1;
        this.offset += 1;
        continue;
      }
      this.offset += p - start;
      if (code === 0) {
        this.buf.flush(this.sink);
        this.buf.push(0, v);
        if (v === 'EOF') {
          this.buf.flush(this.sink);
          this.done = true;
          return len;
        }
      } else if (code !== 999) {
        this.buf.push(code, v);
      }
    }
    return p;
  }
}
