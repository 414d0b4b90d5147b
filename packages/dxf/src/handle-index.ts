// Records by handle. Reading a drawing indexes every record, so this is on the reader's hot path:
// a Map keyed by strings cost about as much as scanning the file. Canonical handles (upper-case
// hex without leading zeros, up to 8 digits) are kept by value in an open-addressing table of
// 32-bit numbers; anything else ("00AB", lower case, longer) in a Map, so that every string is
// still its own key exactly as before.
import type { DxfRecord } from './types.js';

const MIN_BITS = 10;

/** The value of a canonical handle, or -1 when `h` is not one. */
function canonicalValue(h: string): number {
  const n = h.length;
  if (n === 0 || n > 8 || h.charCodeAt(0) === 48) return -1;
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
  private keys = new Uint32Array(1 << MIN_BITS);
  /** Where the record of each table slot is in `recs`. */
  private slots = new Int32Array(1 << MIN_BITS);
  // Records are kept apart from the table, in the order they came: growing the table then moves
  // numbers only, and the garbage collector sees one plain array instead of a table of pointers.
  // Deleting leaves a hole, filled in when holes are half the array.
  private recs: (DxfRecord | undefined)[] = [];
  private count = 0;
  private readonly other = new Map<string, DxfRecord>();

  get size(): number {
    return this.count + this.other.size;
  }

  /**
   * Runs of 16 consecutive handles share one 64-byte line of `keys` (and of `slots`), placed by
   * Fibonacci hashing of the run: a reader registers handles mostly in increasing order, and
   * scattering each one over tables of megabytes made every insert a cache miss.
   */
  private home(v: number): number {
    return ((Math.imul(v >>> 4, 0x9e3779b1) >>> (32 - this.bits)) & ~15) | (v & 15);
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

  /** Sets `h` to `rec` unless another record has it; false then. One lookup for get-then-set. */
  claim(h: string, rec: DxfRecord): boolean {
    const v = canonicalValue(h);
    if (v < 0) {
      const had = this.other.get(h);
      if (had !== undefined && had !== rec) return false;
      this.other.set(h, rec);
      return true;
    }
    const i = this.slot(v);
    if (this.keys[i] === v) {
      const at = this.slots[i]!;
      const had = this.recs[at];
      if (had !== undefined && had !== rec) return false;
      this.recs[at] = rec;
      return true;
    }
    this.insertAt(i, v, rec);
    return true;
  }

  set(h: string, rec: DxfRecord): void {
    const v = canonicalValue(h);
    if (v < 0) {
      this.other.set(h, rec);
      return;
    }
    const i = this.slot(v);
    if (this.keys[i] === v) {
      this.recs[this.slots[i]!] = rec;
      return;
    }
    this.insertAt(i, v, rec);
  }

  /** Adds `v` (absent, `i` its free slot) for `rec`. */
  private insertAt(i: number, v: number, rec: DxfRecord): void {
    if ((this.count + 1) * 2 > this.keys.length) {
      this.rehash(this.bits + 1);
      i = this.slot(v);
    }
    this.keys[i] = v;
    this.slots[i] = this.recs.length;
    this.recs.push(rec);
    this.count++;
  }

  delete(h: string): boolean {
    const v = canonicalValue(h);
    if (v < 0) return this.other.delete(h);
    const keys = this.keys;
    const slots = this.slots;
    const mask = keys.length - 1;
    let i = this.slot(v);
    if (keys[i] !== v) return false;
    this.recs[slots[i]!] = undefined;
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
    this.count--;
    if (this.recs.length > 64 && this.count * 2 < this.recs.length) this.rehash(this.bits);
    return true;
  }

  /** Rebuilds the table with 2^bits slots, and `recs` without holes. */
  private rehash(bits: number): void {
    const oldKeys = this.keys;
    const oldSlots = this.slots;
    const oldRecs = this.recs;
    this.bits = bits;
    this.keys = new Uint32Array(1 << bits);
    this.slots = new Int32Array(1 << bits);
    const compact = this.count < oldRecs.length;
    if (compact) this.recs = [];
    for (let j = 0; j < oldKeys.length; j++) {
      const k = oldKeys[j]!;
      if (k === 0) continue;
      const i = this.slot(k);
      this.keys[i] = k;
      if (compact) {
        this.slots[i] = this.recs.length;
        this.recs.push(oldRecs[oldSlots[j]!]);
      } else this.slots[i] = oldSlots[j]!;
    }
  }

  /** Every handle and its record (canonical handles are spelt back from their value). */
  *entries(): IterableIterator<[string, DxfRecord]> {
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] !== 0) yield [keys[i]!.toString(16).toUpperCase(), this.recs[this.slots[i]!]!];
    }
    yield* this.other;
  }

  /** Values of the canonical handles as numbers, and the other handles as strings, for the seed. */
  forEachValue(num: (v: number) => void, str: (h: string) => void): void {
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== 0) num(keys[i]!);
    for (const h of this.other.keys()) str(h);
  }

  [Symbol.iterator](): IterableIterator<[string, DxfRecord]> {
    return this.entries();
  }
}
