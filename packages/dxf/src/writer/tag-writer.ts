// Formats tags as ASCII DXF into chunks of bytes: group codes right-aligned in three columns as
// AutoCAD writes them, numbers by their code's type, text in the file's encoding (code page bytes
// with `\U+XXXX` for what it lacks before R2007, UTF-8 after). Chunks go to a callback, so a
// file of any size is written without one big string.
import type { TagSink } from '../types.js';
import { formatFloat, formatInt } from '../tags/format.js';
import { isFloatCode } from '../tags/group-codes.js';
import type { ValueEncoder } from '../tags/encoding.js';

const CHUNK_CHARS = 1 << 16;

const CODE_LINES: string[] = [];
for (let c = 0; c <= 1071; c++) CODE_LINES.push(String(c).padStart(3, ' ') + '\n');

function codeLine(code: number): string {
  return (code >= 0 && code <= 1071 ? CODE_LINES[code] : undefined) ?? String(code).padStart(3, ' ') + '\n';
}

const NEWLINES = /\r\n|\r|\n/g;

export class TagWriter implements TagSink {
  private buf = '';
  /** Bytes handed out so far. */
  bytes = 0;

  /**
   * @param emit receives each chunk
   * @param encoder turns non-ASCII text into code-page bytes (one char per byte); null for UTF-8
   */
  constructor(
    private readonly emit: (chunk: Buffer) => void,
    private readonly encoder: ValueEncoder | null,
  ) {}

  tag(code: number, value: string | number): void {
    const v = typeof value === 'number' ? (isFloatCode(code) ? formatFloat(value) : formatInt(value)) : this.text(value);
    this.buf += codeLine(code) + v + '\n';
    if (this.buf.length > CHUNK_CHARS) this.flush();
  }

  point(code: number, p: readonly number[]): void {
    let s = codeLine(code) + formatFloat(p[0] ?? 0) + '\n' + codeLine(code + 10) + formatFloat(p[1] ?? 0) + '\n';
    if (p.length > 2) s += codeLine(code + 20) + formatFloat(p[2]!) + '\n';
    this.buf += s;
    if (this.buf.length > CHUNK_CHARS) this.flush();
  }

  /** Text as it goes into the file: line breaks cannot be part of a value, other chars are encoded. */
  private text(s: string): string {
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

  flush(): void {
    if (this.buf.length === 0) return;
    const chunk = Buffer.from(this.buf, 'latin1');
    this.buf = '';
    this.bytes += chunk.length;
    this.emit(chunk);
  }
}
