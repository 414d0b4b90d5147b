/**
 * `meta`: a JSON object the owner stores with a key and gets back from every read and every valid
 * verification. It is kept as its JSON text, so it comes back exactly as it was sent (key order
 * included) on both databases.
 */
import { isStorableText } from './text.js';

/** The cap on a key's meta, as UTF-8 bytes of its JSON text: small enough to ride on every answer. */
export const META_MAX_BYTES = 4096;

/** Why this meta cannot be stored as sent, or null when it can. */
export function metaProblem(meta: Record<string, unknown>): string | null {
  // Measured first: it bounds the walk below (no deeper than the text is long).
  if (Buffer.byteLength(JSON.stringify(meta)) > META_MAX_BYTES) return `Too big: at most ${META_MAX_BYTES} bytes as JSON`;
  return unstorable(meta);
}

function unstorable(value: unknown): string | null {
  if (typeof value === 'string') return isStorableText(value) ? null : 'Strings and keys must not contain U+0000 (NUL) or an unpaired surrogate';
  // JSON.parse reads 1e400 as Infinity, which JSON.stringify would write back as null.
  if (typeof value === 'number') return Number.isFinite(value) ? null : 'Numbers must be finite';
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = unstorable(item);
      if (problem) return problem;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    const problem = unstorable(key) ?? unstorable(item);
    if (problem) return problem;
  }
  return null;
}
