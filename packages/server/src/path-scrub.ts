// Answers to an organization's key show paths relative to its workspace folder, never where the
// server keeps it: the engine reports absolute paths (its local clients own the machine), so the
// organization's answers are rewritten on the way out. Messages that quote a path (a file that
// cannot be read, a path outside the workspace) are rewritten the same way.
import { sep } from 'node:path';

export interface PathScrubber {
  /** The value with every occurrence of the hidden folders replaced; unchanged parts are shared. */
  scrub<T>(value: T): T;
}

/**
 * Rewrites `folder/x` to `x`, `folder` alone to `.`, and anything else under `root` (the parent
 * holding every organization's folder) to `../x`. `aliases` are other spellings of the same
 * folders (the root as configured, before symlinks were resolved).
 */
export function pathScrubber(folder: string, root: string, aliases: readonly string[] = []): PathScrubber {
  // Longest first: the folder lies inside the root, and a configured root may contain the real one.
  const rules: Array<{ from: string; to: string }> = [];
  const add = (from: string, to: string): void => {
    if (from && from !== sep && !rules.some((r) => r.from === from)) rules.push({ from, to });
  };
  add(folder + sep, '');
  add(folder, '.');
  for (const r of [root, ...aliases]) {
    add(r + sep, '..' + sep);
    add(r, '..');
  }
  rules.sort((a, b) => b.from.length - a.from.length);
  // One pass over each string; a folder named without a separator after it must end there
  // (`/srv/acme` is the folder, `/srv/acme-two` is not).
  const to = new Map(rules.map((r) => [r.from, r.to]));
  const pattern = new RegExp(
    rules.map((r) => escapeRegExp(r.from) + (r.from.endsWith(sep) ? '' : '(?![A-Za-z0-9_~.\\-])')).join('|'),
    'g',
  );
  // A quick test before the expression: most strings hold no path at all.
  const needle = commonStart(rules.map((r) => r.from));
  const rewrite = (s: string): string => {
    if (!s.includes(needle)) return s;
    return s.replace(pattern, (m) => to.get(m) ?? m);
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return rewrite(v);
    if (typeof v !== 'object' || v === null || ArrayBuffer.isView(v)) return v;
    if (Array.isArray(v)) {
      let copy: unknown[] | null = null;
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        const y = walk(x);
        if (y !== x) (copy ??= v.slice())[i] = y;
      }
      return copy ?? v;
    }
    let copy: Record<string, unknown> | null = null;
    for (const [k, x] of Object.entries(v)) {
      const y = walk(x);
      if (y !== x) (copy ??= { ...(v as Record<string, unknown>) })[k] = y;
    }
    return copy ?? v;
  };
  return { scrub: <T>(value: T): T => walk(value) as T };
}

function commonStart(list: string[]): string {
  let p = list[0] ?? '';
  for (const s of list) while (!s.startsWith(p)) p = p.slice(0, -1);
  return p;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
