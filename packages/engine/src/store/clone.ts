// Deep copies of records for transaction diffs. Records hold JSON-like data only (strings,
// numbers, booleans, arrays, plain objects), so a hand-written copy is several times faster than
// structuredClone, which matters when one request creates 100k entities.

export function deepClone<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const n = v.length;
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      const x = v[i];
      out[i] = x === null || typeof x !== 'object' ? x : deepClone(x);
    }
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const k in v as Record<string, unknown>) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined) continue;
    out[k] = x === null || typeof x !== 'object' ? x : deepClone(x);
  }
  return out as T;
}

/** Replaces every own field of `target` by the (cloned) fields of `source`, keeping its identity. */
export function assignInPlace(target: object, source: object): void {
  const t = target as Record<string, unknown>;
  for (const k of Object.keys(t)) if (!(k in source)) delete t[k];
  const s = deepClone(source) as Record<string, unknown>;
  for (const k of Object.keys(s)) t[k] = s[k];
}
