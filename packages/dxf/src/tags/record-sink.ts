// The tag scanners hand tags over a record at a time: a run of tags that starts with a group code 0
// (the first run of a file may start otherwise). Handing over whole records, in arrays that are
// reused from record to record, keeps the per-tag cost of the reader to a code and a string.
import type { ValueDecoder } from './encoding.js';

export interface RecordSink {
  /**
   * One record: tags `[0, n)` of `codes` / `values`. The arrays are reused after the call returns,
   * so keep values, not the arrays. `line` is the 1-based source line of the first tag's group
   * code (ASCII), or 0 for binary input.
   */
  record(codes: Int32Array, values: string[], n: number, line: number): void;
}

/** Decoding settings a reader may change while scanning (after it has read $ACADVER, $DWGCODEPAGE). */
export interface DecodingControl {
  /** Decoder of values with bytes > 0x7F; null keeps them as latin1 (one char per byte). */
  setDecoder(decoder: ValueDecoder | null, unicodeEscapes: boolean): void;
}

/** Growable record buffers shared by the scanners. */
export class RecordBuffer {
  codes = new Int32Array(256);
  values: string[] = new Array<string>(256);
  n = 0;
  line = 0;

  push(code: number, value: string): void {
    if (this.n === this.codes.length) this.grow();
    this.codes[this.n] = code;
    this.values[this.n++] = value;
  }

  private grow(): void {
    const codes = new Int32Array(this.codes.length * 2);
    codes.set(this.codes);
    this.codes = codes;
    this.values.length = codes.length;
  }

  flush(sink: RecordSink): void {
    if (this.n > 0) {
      const n = this.n;
      this.n = 0;
      sink.record(this.codes, this.values, n, this.line);
    }
  }
}
