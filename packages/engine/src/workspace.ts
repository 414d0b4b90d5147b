// The workspace: the folders a client may name files in. Every path an op reads or writes (open,
// save, plot and its pages, wblock, embed_image, the images a drawing links) goes through here:
// relative paths resolve against the first root (never the process's working folder), symlinks
// are resolved before the check, and only regular files are read, so a FIFO or a device cannot
// stall the dispatcher. A path outside every root is refused before anything about it is looked
// up, so the answer never tells whether it exists.
import { realpathSync } from 'node:fs';
import { lstat, mkdir, readlink, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { OpError } from './protocol.js';

/** How long one file-system lookup (stat, realpath, mkdir) may take before the op gives up. */
export const FS_LOOKUP_DEADLINE_MS = 5_000;

/** Longest piece of a client's input quoted back in an error message. */
const QUOTE_MAX = 200;

export class Workspace {
  /** The roots as real paths (symlinks resolved); relative paths resolve against the first. */
  readonly roots: readonly string[];

  /** True for the command-line tools, which act for the user who runs them: no confinement. */
  readonly unrestricted: boolean;

  constructor(roots: readonly string[], opts: { unrestricted?: boolean } = {}) {
    if (roots.length === 0) throw new Error('a workspace needs at least one root folder');
    this.unrestricted = opts.unrestricted ?? false;
    const out: string[] = [];
    for (const r of roots) {
      const real = realpathSync(resolve(r));
      if (!out.includes(real)) out.push(real);
    }
    this.roots = out;
  }

  /** No confinement, relative paths from `base`: the command-line tools act for their user. */
  static unrestricted(base = process.cwd()): Workspace {
    return new Workspace([base], { unrestricted: true });
  }

  get primary(): string {
    return this.roots[0]!;
  }

  /** Adds a root (graphical mode: the folder of a file opened from the command line). */
  addRoot(dir: string): void {
    const real = realpathSync(resolve(dir));
    if (!this.roots.includes(real)) (this.roots as string[]).push(real);
  }

  /** True when `abs` (absolute, normalised) lies in one of the roots. */
  contains(abs: string): boolean {
    if (this.unrestricted) return true;
    return this.roots.some((r) => inside(r, abs));
  }

  /** The absolute, normalised form of what a client named (relative to the primary root). */
  absolute(p: string): string {
    return resolve(this.primary, p);
  }

  /**
   * A file to read: inside a root after resolving symlinks, and a regular file. Returns its real
   * path. Fails with path_outside_root, file_not_found or not_a_file.
   */
  async forRead(p: string, what = 'file'): Promise<string> {
    const abs = this.checkName(p, what);
    let real: string;
    try {
      real = await deadline(realpath(abs), `looking up ${quote(p)}`);
    } catch (err) {
      if (err instanceof OpError) throw err;
      // Missing: say so only when the path would have been inside (a dangling link may point out).
      const target = await this.whereMissingLeads(abs);
      if (!this.contains(target)) throw outside(p, what);
      throw new OpError('file_not_found', `no ${what} ${quote(p)} in the workspace`, { path: clip(p) });
    }
    if (!this.contains(real)) throw outside(p, what);
    const st = await deadline(stat(real), `looking up ${quote(p)}`);
    if (!st.isFile()) throw notAFile(p, what, st);
    return real;
  }

  /**
   * A file to write (it may not exist yet): its folder, after resolving symlinks, lies inside a
   * root; an existing target must be a regular file (a symlink to one inside the workspace is
   * followed, so the link stays). Missing folders are created only with `createFolders`.
   */
  async forWrite(p: string, what = 'file', opts: { createFolders?: boolean } = {}): Promise<string> {
    const abs = this.checkName(p, what);
    if (abs === this.primary || basename(abs) === '') throw new OpError('invalid_path', `${quote(p)} names a folder, not a ${what}`, { path: clip(p) });
    // The deepest folder that exists, with its symlinks resolved; the rest is created below it.
    const missing: string[] = [];
    let dir = dirname(abs);
    let realDir: string;
    for (;;) {
      try {
        realDir = await deadline(realpath(dir), `looking up ${quote(p)}`);
        break;
      } catch (err) {
        if (err instanceof OpError) throw err;
        const parent = dirname(dir);
        if (parent === dir) throw outside(p, what);
        missing.unshift(basename(dir));
        dir = parent;
      }
    }
    if (!this.contains(realDir)) throw outside(p, what);
    const folder = join(realDir, ...missing);
    if (!this.contains(folder)) throw outside(p, what);
    let target = join(folder, basename(abs));
    if (missing.length > 0) {
      if (!opts.createFolders) throw new OpError('folder_not_found', `the folder of ${quote(p)} does not exist`, { path: clip(p) });
      await deadline(mkdir(folder, { recursive: true }), `creating the folder of ${quote(p)}`);
      return target;
    }
    const st = await lstat(target).catch(() => null);
    if (st?.isSymbolicLink()) {
      const real = await deadline(realpath(target), `looking up ${quote(p)}`).catch(() => null);
      if (real === null || !this.contains(real)) throw outside(p, what);
      target = real;
      const rs = await stat(real);
      if (!rs.isFile()) throw notAFile(p, what, rs);
    } else if (st && !st.isFile()) {
      throw notAFile(p, what, st);
    }
    return target;
  }

  /** The absolute path a client names (relative to the primary root), refused when empty, holding NUL, or outside every root by name (links are resolved by the callers). */
  private checkName(p: string, what: string): string {
    if (typeof p !== 'string' || p.length === 0) throw new OpError('invalid_path', `the ${what} path is empty`);
    if (p.includes('\u0000')) throw new OpError('invalid_path', `the ${what} path holds a NUL character`);
    const abs = this.absolute(p);
    if (!this.contains(abs)) throw outside(p, what);
    return abs;
  }

  /** Where a path that does not resolve would lead: through dangling links, to its last real folder. */
  private async whereMissingLeads(abs: string, hops = 0): Promise<string> {
    if (hops > 40) return '/';
    const st = await lstat(abs).catch(() => null);
    if (st?.isSymbolicLink()) {
      const link = await readlink(abs).catch(() => null);
      if (link === null) return '/';
      return this.whereMissingLeads(isAbsolute(link) ? resolve(link) : resolve(dirname(abs), link), hops + 1);
    }
    const parent = dirname(abs);
    if (parent === abs) return abs;
    try {
      return join(await realpath(parent), basename(abs));
    } catch {
      return join(await this.whereMissingLeads(parent, hops + 1), basename(abs));
    }
  }
}

function inside(root: string, abs: string): boolean {
  if (abs === root) return true;
  const rel = relative(root, abs);
  return rel !== '' && !rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel);
}

function outside(p: string, what: string): OpError {
  return new OpError(
    'path_outside_root',
    `the ${what} ${quote(p)} is outside the workspace: paths must stay inside the workspace root (relative paths start there)`,
    { path: clip(p) },
  );
}

function notAFile(p: string, what: string, st: { isDirectory(): boolean }): OpError {
  const kind = st.isDirectory() ? 'a folder' : 'not a regular file (a pipe, socket or device)';
  return new OpError('not_a_file', `the ${what} ${quote(p)} is ${kind}`, { path: clip(p) });
}

/** Client input as quoted in a message: JSON-escaped and cut to a readable length. */
export function quote(s: string): string {
  return JSON.stringify(clip(s));
}

export function clip(s: string, max = QUOTE_MAX): string {
  return s.length <= max ? s : `${s.slice(0, max)}… (${s.length - max} more characters)`;
}

/** Races a file-system call against a deadline: a hung file system fails the op, not the server. */
export function deadline<T>(p: Promise<T>, what: string, ms = FS_LOOKUP_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OpError('io_timeout', `${what} took longer than ${ms / 1000} s; the file system does not answer`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
