// Records by handle. Reading a drawing indexes every record, so this is on the reader's hot path:
// a Map keyed by strings cost about as much as scanning the file. Canonical handles (upper-case
// hex without leading zeros, up to 13 digits, so exact as doubles) are kept by value in an
// open-addressing table; anything else ("00AB", lower case, 64-bit) in a Map, so that every
// string is still its own key exactly as before.
import type { DxfRecord } from './types.js';

const MIN_BITS = 10;

/** The value of a canonical handle, or -1 when `h` is not one. */
function canonicalValue(h: string): number {
  const n = h.length;
  if (n === 0 || n > 13 || h.charCodeAt(0) === 48) return -1;
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = h.charCodeAt(i);
    let d: number;
    if (c >= 48 && c <= 57) d = c - 48;
    else if (c >= 65 && c <= 70) d = c - 55;
    else return -1;
    v = v * 16 + d;
  }
  return v;
}

export class HandleIndex {
  private bits = MIN_BITS;
  /** Hash table of handle values; 0 marks a free slot (0 is no canonical handle). */
  private keys = new Float64Array(1 << MIN_BITS);
  /** Where the record of each table slot is in `recs`. */
  private slots = new Int32Array(1 << MIN_BITS);
  // Records are kept densely, apart from the table: growing the table then moves numbers only,
  // and the garbage collector sees one plain array instead of a hash table of pointers.
  private readonly recs: DxfRecord[] = [];
  private readonly recKeys: number[] = [];
  private readonly other = new Map<string, DxfRecord>();

  get size(): number {
    return this.recs.length + this.other.size;
  }

  /** Fibonacci hashing of both 32-bit halves: consecutive handles land far apart. */
  private home(v: number): number {
    const lo = v >>> 0;
    const hi = (v / 4294967296) >>> 0;
    return Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> (32 - this.bits);
  }

  /** The slot holding `v`, or the free slot where it would go. */
  private slot(v: number): number {
    const keys = this.keys;
    const mask = keys.length - 1;
    let i = this.home(v);
    for (;;) {
      const k = keys[i]!;
      if (k === v || k === 0) return i;
      i = (i + 1) & mask;
    }
  }

  get(h: string): DxfRecord | undefined {
    const v = canonicalValue(h);
    if (v < 0) return this.other.get(h);
    const i = this.slot(v);
    return this.keys[i] === v ? this.recs[this.slots[i]!] : undefined;
  }

  has(h: string): boolean {
    return this.get(h) !== undefined;
  }

  set(h: string, rec: DxfRecord): void {
    const v = canonicalValue(h);
    if (v < 0) {
      this.other.set(h, rec);
      return;
    }
    let i = this.slot(v);
    if (this.keys[i] === v) {
      this.recs[this.slots[i]!] = rec;
      return;
    }
    if ((this.recs.length + 1) * 2 > this.keys.length) {
      this.grow();
      i = this.slot(v);
    }
    this.keys[i] = v;
    this.slots[i] = this.recs.length;
    this.recs.push(rec);
    this.recKeys.push(v);
  }

  delete(h: string): boolean {
    const v = canonicalValue(h);
    if (v < 0) return this.other.delete(h);
    const keys = this.keys;
    const slots = this.slots;
    const mask = keys.length - 1;
    let i = this.slot(v);
    if (keys[i] !== v) return false;
    // the last record fills the gap in `recs`
    const at = slots[i]!;
    const last = this.recs.length - 1;
    if (at !== last) {
      const lastKey = this.recKeys[last]!;
      this.recs[at] = this.recs[last]!;
      this.recKeys[at] = lastKey;
      slots[this.slot(lastKey)] = at;
    }
    this.recs.pop();
    this.recKeys.pop();
    // backward-shift deletion: later entries of the probe run move up, so no tombstones pile up
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const k = keys[j]!;
      if (k === 0) break;
      const home = this.home(k);
      // the entry at j may fill the hole at i unless its home lies cyclically in (i, j]
      if (i <= j ? home <= i || home > j : home <= i && home > j) {
        keys[i] = k;
        slots[i] = slots[j]!;
        i = j;
      }
    }
    keys[i] = 0;
    return true;
  }

  private grow(): void {
    this.bits++;
    this.keys = new Float64Array(1 << this.bits);
    this.slots = new Int32Array(1 << this.bits);
    const recKeys = this.recKeys;
    for (let at = 0; at < recKeys.length; at++) {
      const i = this.slot(recKeys[at]!);
      this.keys[i] = recKeys[at]!;
      this.slots[i] = at;
    }
  }

  /** Every handle and its record (canonical handles are spelt back from their value). */
  *entries(): IterableIterator<[string, DxfRecord]> {
    for (let at = 0; at < this.recs.length; at++) yield [this.recKeys[at]!.toString(16).toUpperCase(), this.recs[at]!];
    yield* this.other;
  }

  /** Values of the canonical handles as numbers, and the other handles as strings, for the seed. */
  forEachValue(num: (v: number) => void, str: (h: string) => void): void {
    for (const v of this.recKeys) num(v);
    for (const h of this.other.keys()) str(h);
  }

  [Symbol.iterator](): IterableIterator<[string, DxfRecord]> {
    return this.entries();
  }
}
