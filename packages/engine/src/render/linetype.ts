// Linetypes: LTYPE table patterns (group 49 dash lengths: > 0 dash, < 0 gap, 0 dot) turned into
// back-end dash arrays ([on, off, ...] starting with a dash, plus an offset) at a given scale.
import type { TableEntry } from '../dxf.js';
import { attr, rawValues } from './records.js';

/** The dash/gap elements of an LTYPE entry, or null for continuous. */
export function ltypePattern(entry: TableEntry): number[] | null {
  let items: number[] | null = null;
  const a = attr(entry, 'pattern') ?? attr(entry, 'pattern_tags') ?? attr(entry, 'elements') ?? attr(entry, 'dashes');
  if (Array.isArray(a)) {
    items = [];
    for (const v of a as unknown[]) {
      if (typeof v === 'number') items.push(v);
      else if (Array.isArray(v) && typeof v[0] === 'number') items.push(v[0] as number);
      else if (Array.isArray(v) && v[0] === 49) items.push(Number(v[1]));
      else if (v && typeof v === 'object') {
        const o = v as Record<string, unknown>;
        const len = o.length ?? o.dash_length ?? o.value;
        if (typeof len === 'number') items.push(len);
      }
    }
  } else {
    const raw = rawValues(entry, 49);
    if (raw.length) items = raw.map(Number).filter((x) => Number.isFinite(x));
  }
  if (!items || items.length === 0) return null;
  let total = 0;
  for (const x of items) total += Math.abs(x);
  if (!(total > 0)) return null;
  return items;
}

/** Back-end dash array for a pattern at `scale`: [on, off, ...] (even count) and the offset. */
export function dashArray(pattern: readonly number[], scale: number): { dash: number[]; offset: number } | null {
  const out: number[] = [];
  // merge into alternating on/off, on first
  let lead = 0;
  let i = 0;
  while (i < pattern.length && pattern[i]! < 0) lead += -pattern[i++]!;
  for (; i < pattern.length; i++) {
    const v = pattern[i]!;
    const on = v >= 0;
    const len = Math.abs(v) * scale;
    const wantOn = out.length % 2 === 0;
    if (on === wantOn) out.push(len);
    else if (out.length) out[out.length - 1]! += len;
    else out.push(len);
  }
  if (lead > 0) {
    if (out.length % 2 === 1) out.push(lead * scale);
    else out[out.length - 1]! += lead * scale;
  } else if (out.length % 2 === 1) out.push(0);
  if (!out.length) return null;
  let total = 0;
  for (const x of out) total += x;
  if (!(total > 0)) return null;
  // leading gap: start the array at the first dash, shift by the gap
  return { dash: out, offset: lead > 0 ? total - lead * scale : 0 };
}
