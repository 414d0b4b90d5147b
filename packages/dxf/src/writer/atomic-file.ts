// Replacing a file atomically: the bytes go to a temporary file beside the target, are flushed,
// take over the mode and owner of the file they replace, and are renamed over it, so a reader (or
// a crash) never sees half a file. A process killed mid-write leaves its temporary file behind;
// the names carry the writer's pid, so the next write to that folder (and a server at start)
// removes the ones whose writer is gone.
import { closeSync, fchmodSync, fchownSync, fsyncSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

const TEMP_NAME = /^\..+\.linework-(\d+)-[0-9a-f]{8}\.tmp$/;

/** Temporary files this thread is writing now (never removed as stale). */
const inFlight = new Set<string>();

/**
 * When this process started. A temporary file with our pid made since then belongs to a write in
 * progress on another thread of this process (the batch command's workers each have their own
 * `inFlight`); one made before it was left by an earlier process that had the same pid.
 */
const processStartedMs = Date.now() - process.uptime() * 1000;

function tempNameFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.linework-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary files of writes that never finished in `dir`: ours (by name) whose
 * process is gone, or whose pid is this process's but which were made before this process
 * started (a container restarted with the same pid). Returns how many were removed; errors are
 * ignored.
 */
export function removeStaleTempFiles(dir: string): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m) continue;
    const file = join(dir, name);
    const pid = Number(m[1]);
    if (inFlight.has(file) || (pid !== process.pid && alive(pid))) continue;
    if (pid === process.pid && !madeBeforeThisProcess(file)) continue;
    try {
      unlinkSync(file);
      removed++;
    } catch {
      // gone already, or not ours to remove
    }
  }
  return removed;
}

function madeBeforeThisProcess(file: string): boolean {
  try {
    return statSync(file).mtimeMs < processStartedMs;
  } catch {
    return false;
  }
}

/**
 * Writes `path` atomically: `write(fd)` fills a temporary file in the same folder, which is
 * flushed, given the mode and owner of the file it replaces, and renamed over it.
 */
export function writeFileAtomicSync(path: string, write: (fd: number) => void): void {
  removeStaleTempFiles(dirname(path));
  const previous = (() => {
    try {
      return statSync(path);
    } catch {
      return null;
    }
  })();
  const tmp = tempNameFor(path);
  inFlight.add(tmp);
  let fd: number | null = null;
  let ok = false;
  try {
    fd = openSync(tmp, 'wx', previous ? previous.mode & 0o7777 : 0o666);
    write(fd);
    fsyncSync(fd);
    if (previous) {
      // The replacement keeps what the user set on the old file (a 0600 drawing stays private).
      fchmodSync(fd, previous.mode & 0o7777);
      try {
        fchownSync(fd, previous.uid, previous.gid);
      } catch {
        // only root may give a file away; the mode is what protects it
      }
    }
    closeSync(fd);
    fd = null;
    renameSync(tmp, path);
    ok = true;
  } finally {
    inFlight.delete(tmp);
    if (!ok) {
      if (fd !== null) {
        try {
          closeSync(fd);
        } catch {
          // already closed
        }
      }
      try {
        unlinkSync(tmp);
      } catch {
        // never created
      }
    }
  }
}

/** Writes all of `data` to `fd`. */
export function writeAll(fd: number, data: Uint8Array): void {
  let off = 0;
  while (off < data.length) off += writeSync(fd, data, off, data.length - off);
}
