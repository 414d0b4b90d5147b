// Inputs of a batch: file names as given, folders (their DXF files), and glob patterns the shell did
// not expand (quoted, or a shell without globbing): `*`, `?`, `[abc]` within a name and `**` for any
// number of folders. Node 20 has no fs.glob, and a dependency is not worth these few lines.
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join, sep } from 'node:path';

const MAGIC = /[*?[]/;

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** A glob segment (no `/`) as a regular expression. */
export function segmentRegExp(segment: string): RegExp {
  let re = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = segment.indexOf(']', i + 2);
      if (end === -1) re += '\\[';
      else {
        let set = segment.slice(i + 1, end);
        if (set.startsWith('!')) set = '^' + set.slice(1);
        re += `[${set.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Files matching a glob pattern, sorted; names starting with a dot only when the pattern says so. */
export function expandGlob(pattern: string): string[] {
  const parts = pattern.split(/[\\/]+/);
  const absolute = pattern.startsWith('/') || pattern.startsWith(sep);
  let bases: string[] = [absolute ? sep : '.'];
  let prefix = absolute ? sep : '';
  // The literal folders before the first pattern segment.
  while (parts.length && !MAGIC.test(parts[0]!)) {
    const p = parts.shift()!;
    if (p === '') continue;
    prefix = prefix ? join(prefix, p) : p;
  }
  if (prefix) bases = [prefix];
  if (parts.length === 0) return isDir(bases[0]!) ? [] : [bases[0]!];
  const out = new Set<string>();
  const walk = (dir: string, rest: string[]): void => {
    const [seg, ...tail] = rest;
    if (seg === undefined) return;
    const show = (d: string, name: string): string => (d === '.' ? name : join(d, name));
    if (seg === '**') {
      // zero folders ...
      walk(dir, tail);
      // ... or one more, and still `**`
      for (const e of entries(dir)) if (e.isDirectory() && !e.name.startsWith('.')) walk(show(dir, e.name), rest);
      return;
    }
    const re = segmentRegExp(seg);
    for (const e of entries(dir)) {
      if (e.name.startsWith('.') && !seg.startsWith('.')) continue;
      if (!re.test(e.name)) continue;
      const path = show(dir, e.name);
      if (tail.length === 0) {
        if (!e.isDirectory() && !(e.isSymbolicLink() && isDir(path))) out.add(path);
      } else if (e.isDirectory() || (e.isSymbolicLink() && isDir(path))) walk(path, tail);
    }
  };
  for (const b of bases) walk(b, parts);
  return [...out].sort();
}

/**
 * The files of a batch, in the order given: a folder stands for its `*.dxf` files (any case), a
 * pattern for its matches. A pattern that matches nothing stays as given, so that file fails with
 * "no such file" like any other missing input.
 */
export function expandInputs(given: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (f: string): void => {
    if (!seen.has(f)) {
      seen.add(f);
      out.push(f);
    }
  };
  for (const g of given) {
    if (isDir(g)) {
      const dxf = entries(g)
        .filter((e) => !e.isDirectory() && e.name.toLowerCase().endsWith('.dxf'))
        .map((e) => join(g, e.name))
        .sort();
      for (const f of dxf) add(f);
    } else if (MAGIC.test(g) && !exists(g)) {
      const matches = expandGlob(g);
      if (matches.length) for (const f of matches) add(f);
      else add(g);
    } else add(g);
  }
  return out;
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
