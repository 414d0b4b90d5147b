// The tag scanners hand tags over a record at a time: a run of tags that starts with a group code 0
// (the first run of a file may start otherwise). Handing over whole records, in buffers that are
// reused from record to record, keeps the per-tag cost of the reader to a code and a value; and a
// value is read through the record, so that the ASCII scanner need not make a string of it: most
// values are numbers, parsed from the file's bytes, and a string made for each was most of the
// reader's garbage.
import { decodeUnicodeEscapes, type ValueDecoder } from './encoding.js';
import { isDxfNumber, parseDecimalBytes, parseNumber } from './parse-number.js';

/** The tags `[0, n)` of one record. Valid only during the sink's call: keep values, not the record. */
export interface TagRecord {
  readonly codes: Int32Array;
  readonly n: number;
  /** 1-based source line of the first tag's group code (ASCII), or 0 for binary input. */
  readonly line: number;
  /** Value `i` as text (decoded, escapes resolved; the type name of code 0 trimmed). */
  str(i: number): string;
  /** `parseNumber(str(i))`. */
  num(i: number): number;
  /** `str(i) === s`. */
  is(i: number, s: string): boolean;
  /** Whether value `i` is a number as DXF writes them (`isDxfNumber`). */
  isNumber(i: number): boolean;
  /** Replaces value `i` (a repair). */
  replace(i: number, value: string): void;
  /**
   * Where the record lies in the bytes the scanner was given whole (`AsciiTagScanner.scanWhole`):
   * [byteStart, byteEnd), from its `0` code line to the next record's; -1 when not known.
   */
  readonly byteStart: number;
  readonly byteEnd: number;
  /**
   * Whether those bytes say exactly what the tags say, in the form the writer would accept as its
   * own: LF line ends only, plain code lines, no comments, no repairs. Only such a record may be
   * kept as bytes and read later (`reader/lazy-entity.ts`).
   */
  readonly clean: boolean;
}

export interface RecordSink {
  record(r: TagRecord): void;
}

/** Decoding settings a reader may change while scanning (after it has read $ACADVER, $DWGCODEPAGE). */
export interface DecodingControl {
  /** Decoder of values with bytes > 0x7F; null keeps them as latin1 (one char per byte). */
  setDecoder(decoder: ValueDecoder | null, unicodeEscapes: boolean): void;
}

const EMPTY = Buffer.alloc(0);

/** Max group code whose values may be shared strings (`SHARED`). */
const MAX_CODE = 1071;
/**
 * Codes whose values repeat across records (type names, markers, layers, owners, linetypes, text
 * styles, block names, xdata applications): their strings are kept in a small cache and handed out
 * again, instead of a new string per record that the reader then interns anyway.
 */
const SHARED = new Uint8Array(MAX_CODE + 1);
for (const c of [0, 2, 3, 6, 7, 8, 100, 330, 1001]) SHARED[c] = 1;
const CACHE_BITS = 9;
const MAX_SHARED_LENGTH = 32;

/** A string of the latin1 bytes [s, e). */
function latin1(b: Buffer, s: number, e: number): string {
  const n = e - s;
  // a native call costs more than building the few characters most values have
  if (n <= 4) {
    if (n === 0) return '';
    if (n === 1) return String.fromCharCode(b[s]!);
    if (n === 2) return String.fromCharCode(b[s]!, b[s + 1]!);
    if (n === 3) return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!);
    return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!);
  }
  // (one call per length: characters added one by one were a string each)
  switch (n) {
    case 5:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!);
    case 6:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!);
    case 7:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!);
    case 8:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!);
  }
  return b.toString('latin1', s, e);
}

/** Whether the latin1 bytes [start, end) spell `str`. */
function bytesEqual(b: Buffer, start: number, end: number, str: string): boolean {
  if (end - start !== str.length) return false;
  for (let k = 0; k < str.length; k++) if (b[start + k] !== str.charCodeAt(k)) return false;
  return true;
}

/**
 * The record being scanned. A value is either a string (`starts[i] < 0`: `strs[i]`) or, for the
 * ASCII scanner's plain-ASCII values, the bytes [starts[i], ends[i]) of `bytes`, made a string only
 * when asked for. The scanner calls `detach` before it lets go of `bytes`.
 */
export class RecordBuffer implements TagRecord {
  codes = new Int32Array(256);
  starts = new Int32Array(256);
  ends = new Int32Array(256);
  strs: string[] = new Array<string>(256).fill('');
  /**
   * Value `i` as a number when `parsed[i]` is 1: the reader checks every numeric value before it
   * decodes the record (invalid-numbers.ts), and the decoding then takes the number parsed there.
   */
  nums = new Float64Array(256);
  parsed = new Uint8Array(256);
  bytes: Buffer = EMPTY;
  n = 0;
  line = 0;
  /** Whether values of this record (code 0 excepted) made from bytes have their `\U+` escapes decoded. */
  escapes = false;
  byteStart = -1;
  byteEnd = -1;
  clean = false;
  private readonly cache: string[] = new Array<string>(1 << CACHE_BITS).fill('');

  /** Adds a value that is a string already. */
  push(code: number, value: string): void {
    if (this.n === this.codes.length) this.grow();
    const i = this.n++;
    this.codes[i] = code;
    this.starts[i] = -1;
    this.strs[i] = value;
    this.parsed[i] = 0;
  }

  /** Adds a value that is the plain-ASCII bytes [start, end) of `bytes` (code 0: already trimmed). */
  pushBytes(code: number, start: number, end: number): void {
    if (this.n === this.codes.length) this.grow();
    const i = this.n++;
    this.codes[i] = code;
    this.starts[i] = start;
    this.ends[i] = end;
    this.parsed[i] = 0;
  }

  private grow(): void {
    const size = this.codes.length * 2;
    const codes = new Int32Array(size);
    codes.set(this.codes);
    this.codes = codes;
    const starts = new Int32Array(size);
    starts.set(this.starts);
    this.starts = starts;
    const ends = new Int32Array(size);
    ends.set(this.ends);
    this.ends = ends;
    const nums = new Float64Array(size);
    nums.set(this.nums);
    this.nums = nums;
    const parsed = new Uint8Array(size);
    parsed.set(this.parsed);
    this.parsed = parsed;
    for (let k = this.strs.length; k < size; k++) this.strs.push('');
  }

  str(i: number): string {
    if (this.starts[i]! < 0) return this.strs[i]!;
    const s = this.make(i);
    this.strs[i] = s;
    this.starts[i] = -1;
    return s;
  }

  num(i: number): number {
    if (this.parsed[i] === 1) return this.nums[i]!;
    const start = this.starts[i]!;
    if (start >= 0) {
      const v = parseDecimalBytes(this.bytes, start, this.ends[i]!);
      if (v === v) return v;
    }
    return parseNumber(this.str(i));
  }

  isNumber(i: number): boolean {
    if (this.parsed[i] === 1) return true;
    const start = this.starts[i]!;
    // a plain decimal read from the bytes is a number: the common case costs no string
    if (start >= 0) {
      const v = parseDecimalBytes(this.bytes, start, this.ends[i]!);
      if (v === v) {
        this.nums[i] = v;
        this.parsed[i] = 1;
        return true;
      }
    }
    return isDxfNumber(this.str(i));
  }

  replace(i: number, value: string): void {
    this.clean = false;
    this.strs[i] = value;
    this.starts[i] = -1;
    this.parsed[i] = 0;
  }

  is(i: number, s: string): boolean {
    const start = this.starts[i]!;
    if (start < 0) return this.strs[i] === s;
    const end = this.ends[i]!;
    const b = this.bytes;
    const same = bytesEqual(b, start, end, s);
    if (!this.escapes || this.codes[i] === 0) return same;
    // bytes without a backslash have no escape: they are the value
    let slash = false;
    for (let k = start; !slash && k < end; k++) slash = b[k] === 92;
    return slash ? this.str(i) === s : same;
  }

  /** Makes strings of the values still held as bytes, before the scanner lets go of `bytes`. */
  detach(): void {
    for (let i = 0; i < this.n; i++) if (this.starts[i]! >= 0) this.str(i);
    this.bytes = EMPTY;
  }

  private make(i: number): string {
    const b = this.bytes;
    const start = this.starts[i]!;
    const end = this.ends[i]!;
    const code = this.codes[i]!;
    if (code >= 0 && code <= MAX_CODE && SHARED[code] === 1 && end - start <= MAX_SHARED_LENGTH) {
      let h = end - start;
      let slash = false;
      for (let k = start; k < end; k++) {
        const c = b[k]!;
        h = Math.imul(h, 31) + c;
        if (c === 92) slash = true;
      }
      // a value with a backslash may hold an escape: its string differs from its bytes
      if (!slash || !this.escapes || code === 0) {
        const slot = (Math.imul(h, 0x9e3779b1) >>> (32 - CACHE_BITS));
        const had = this.cache[slot]!;
        if (bytesEqual(b, start, end, had)) return had;
        const s = latin1(b, start, end);
        this.cache[slot] = s;
        return s;
      }
    }
    const s = latin1(b, start, end);
    if (code !== 0 && this.escapes && s.length > 6 && s.indexOf('\\U+') !== -1) return decodeUnicodeEscapes(s);
    return s;
  }

  flush(sink: RecordSink): void {
    if (this.n > 0) {
      try {
        sink.record(this);
      } finally {
        this.n = 0;
      }
    }
  }
}
