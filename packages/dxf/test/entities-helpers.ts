// Test helpers: a TagSink collecting string tags as a simple writer would format them.
import type { DxfRecord, Tag, TagSink } from '../src/types.js';

export class Collect implements TagSink {
  tags: Tag[] = [];
  tag(code: number, value: string | number): void {
    this.tags.push([code, typeof value === 'number' ? String(value) : value]);
  }
  point(code: number, p: readonly number[]): void {
    p.forEach((v, k) => this.tags.push([code + k * 10, String(v)]));
  }
}

export function rec(type: string, attrs: Record<string, unknown> = {}): DxfRecord {
  return { type, handle: 'A1', owner: '1F', attrs };
}

/** Parses a compact "code value" list: [[10, '1.5'], ...] from pairs. */
export function T(...pairs: (string | number)[]): Tag[] {
  const out: Tag[] = [];
  for (let i = 0; i < pairs.length; i += 2) out.push([Number(pairs[i]), String(pairs[i + 1])]);
  return out;
}

/** Normalizes number formatting for comparison ("1.0" == "1"). */
export function norm(tags: Tag[]): [number, string][] {
  return tags.map(([c, v]) => [c, /^\s*-?\d+(\.\d*)?([eE][-+]?\d+)?\s*$/.test(v) ? String(Number(v)) : v]);
}
