// Reads binary DXF (after its 22-byte sentinel) from byte chunks. R12 files use one-byte group
// codes (255 escapes a following two-byte code), later ones two-byte codes; values are typed by
// the group code's range. Numbers are turned into their shortest round-trip text, so the layers
// above see the same tags as from an ASCII file.
import { DxfError } from '../errors.js';
import type { Diagnostic } from '../document-api.js';
import { decodeUnicodeEscapes, type ValueDecoder } from './encoding.js';
import { formatFloat } from './format.js';
import { ValueKind, valueKind } from './group-codes.js';
import { RecordBuffer, type DecodingControl, type RecordSink } from './record-sink.js';

export const BINARY_SENTINEL = Buffer.from('AutoCAD Binary DXF\r\n\x1a\x00', 'latin1');

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).toUpperCase().padStart(2, '0'));

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
    if (!this.done && this.leftover && this.leftover.length > 0) {
      this.onDiagnostic({
        level: 'warning',
        code: 'truncated',
        message: `binary DXF ends inside a tag at byte ${this.offset}`,
      });
    }
    this.leftover = null;
    this.buf.flush(this.sink);
  }

  /** Reads complete tags; returns the position of the first incomplete one. */
  private scan(b: Buffer): number {
    const len = b.length;
    const one = this.oneByteCodes;
    let p = 0;
    while (p < len) {
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
      let v: string;
      switch (valueKind(code)) {
        case ValueKind.Double:
          if (p + 8 > len) return start;
          v = formatFloat(b.readDoubleLE(p));
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
