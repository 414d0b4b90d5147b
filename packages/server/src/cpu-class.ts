// How a worker that runs past its interactive budget is moved to the background and back, on
// Linux. What this machine's kernel does, measured (docs/server.md, "Background class"):
// - `os.setPriority(pid)` sets the nice value of ONE thread (the one whose id is pid); the V8 and
//   libuv threads the process already has keep theirs. So every thread is set, one by one.
// - A nice value only weighs threads on the same run queue: a worker at nice 19 still gets a core
//   of its own when the scheduler places it alone there, and the wake-ups of the other
//   organizations' requests avoid that busy core. SCHED_IDLE threads run only when nothing else
//   wants the core, and a core that runs only SCHED_IDLE threads counts as idle when a woken
//   thread is placed: that is the background class.
// - Going back (SCHED_IDLE to SCHED_OTHER, nice 19 to 10) is a raise of priority: Linux permits it
//   with CAP_SYS_NICE, or when RLIMIT_NICE covers the nice value, and refuses it otherwise.
//   Without that, a worker moved to the background would stay there; the front then does not move
//   it (see `backgroundClass`) and says so in its log.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/** A thread's scheduling, from /proc/<pid>/task/<tid>/stat. */
export interface ThreadScheduling {
  tid: number;
  nice: number;
  /** 0 SCHED_OTHER, 3 SCHED_BATCH, 5 SCHED_IDLE (others are real-time). */
  policy: number;
}

export const SCHED_OTHER = 0;
export const SCHED_IDLE = 5;

/** The threads of a process and their scheduling; empty when it is gone (or off Linux). */
export function threadScheduling(pid: number): ThreadScheduling[] {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: ThreadScheduling[] = [];
  for (const tid of tids) {
    try {
      // the command name (field 2) may hold spaces and parentheses: the fields after it count from its last ')'
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ tid: Number(tid), nice: Number(f[16]), policy: Number(f[38]) });
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

/**
 * Sets the nice value of every thread of a process; false when one was refused. A thread started
 * by one not yet set (node starts its helper threads lazily) keeps the old value: the threads are
 * read again until none is left with another value, a few passes at most.
 */
export function setNiceAll(pid: number, nice: number): boolean {
  let ok = true;
  for (let pass = 0; pass < 5; pass++) {
    const left = threadScheduling(pid).filter((t) => t.nice !== nice);
    if (left.length === 0) break;
    for (const t of left) {
      try {
        setPriority(t.tid, nice);
      } catch (err) {
        // a thread that ended meanwhile is not a refusal
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') ok = false;
      }
    }
    if (!ok) break;
  }
  return ok;
}

/**
 * Sets the policy of every thread of a process with util-linux's `chrt -a` (Node has no binding
 * for sched_setscheduler). Resolves false when chrt is missing or refused.
 */
export function setIdlePolicy(pid: number, idle: boolean, chrt = 'chrt'): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(chrt, [idle ? '--idle' : '--other', '--all-tasks', '--pid', '0', String(pid)], { timeout: 5000 }, (err) => resolve(!err));
  });
}

/** What the front can do with a worker running a long request, decided once at its start. */
export type BackgroundClass =
  /** SCHED_IDLE for every thread during the long request, SCHED_OTHER and the worker's nice after. */
  | { kind: 'idle' }
  /** Nothing: the worker keeps its priority (the reason is logged). */
  | { kind: 'none'; reason: string };

/** Whether this process may raise a thread's priority back to `nice` (CAP_SYS_NICE, or RLIMIT_NICE). */
export function mayRaiseTo(nice: number, status = readProc('/proc/self/status'), limits = readProc('/proc/self/limits')): boolean {
  const cap = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  // CAP_SYS_NICE is capability 23
  if (cap && (BigInt('0x' + cap) >> 23n) & 1n) return true;
  // RLIMIT_NICE n permits nice values down to 20 - n; workers inherit the front's limit
  const soft = /^Max nice priority\s+(\S+)/m.exec(limits)?.[1];
  const limit = soft === 'unlimited' ? Infinity : Number(soft);
  return Number.isFinite(limit) ? 20 - limit <= nice : limit === Infinity;
}

function readProc(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/**
 * Chooses the background class for workers whose normal nice value is `nice`: SCHED_IDLE when
 * the front may give it back afterwards and chrt is there, none otherwise.
 */
export async function backgroundClass(nice: number, chrt = 'chrt'): Promise<BackgroundClass> {
  if (process.platform !== 'linux') return { kind: 'none', reason: 'scheduling classes are set on Linux only' };
  if (!mayRaiseTo(nice)) {
    return { kind: 'none', reason: `the server may not give a worker its priority back (needs CAP_SYS_NICE, or RLIMIT_NICE of at least ${20 - nice}: systemd LimitNICE=${20 - nice}, docker --cap-add SYS_NICE), so a worker stays at its priority during long requests` };
  }
  // asking for our own policy changes nothing and proves chrt is there
  const ok = await new Promise<boolean>((resolve) => execFile(chrt, ['--pid', String(process.pid)], { timeout: 5000 }, (err) => resolve(!err)));
  if (!ok) return { kind: 'none', reason: `${chrt} (util-linux) is missing or refused, so a worker stays at its priority during long requests` };
  return { kind: 'idle' };
}
