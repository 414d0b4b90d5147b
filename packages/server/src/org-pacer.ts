// Paces the workers that run a long request while other organizations are being served.
//
// The background class (cpu-class.ts) leaves a long request only the CPU nobody else wants. On a
// quiet two-core machine that is still a lot: the other organizations' traffic (front, worker,
// clients) waits on sockets between its steps, the long request fills each gap, and every wake-up
// of theirs has to push it off a core whose caches it has filled. Measured (bench/hosted/
// isolation.ts, load 1.4): B kept 72-78 % of its idle rate while A plotted in SCHED_IDLE, where
// the goal is 80 %. So while another organization has a request in flight (or had one within
// QUIET_MS), a backgrounded worker is stopped (SIGSTOP) and runs only in a slice of each period
// (SHARE_MS of PERIOD_MS), enough that its request still ends; once the others are quiet it runs
// on at once. This is what a cgroup's CPU quota does, without the privileges a cgroup needs.
//
// A stopped worker reads nothing, so frames sent to it wait in its socket; the pacer resumes every
// worker before one is stopped for good (stop, close) and when the front exits. Should the front
// die while a worker is stopped, the worker's process group is orphaned with a stopped member, and
// the kernel sends the group SIGHUP and SIGCONT (POSIX): the worker ends.

/** Ticks of the pacer while some worker is backgrounded. */
export const PACE_TICK_MS = 5;
/** The pacing period and the slice of it a backgrounded worker always runs in. */
export const PACE_PERIOD_MS = 100;
export const PACE_SHARE_MS = 20;
/** Another organization counts as busy this long after its last request started or ended. */
export const PACE_QUIET_MS = 20;

export interface Pausable {
  /** Stops (true) or resumes (false) the worker's process; false when it is gone. */
  pause(stopped: boolean): boolean;
}

export interface PacerOptions {
  periodMs?: number;
  shareMs?: number;
  quietMs?: number;
  tickMs?: number;
  now?: () => number;
}

interface Paced {
  worker: Pausable;
  stopped: boolean;
}

export class BackgroundPacer {
  private readonly paced = new Map<string, Paced>();
  /** When each organization last started or ended a request. */
  private readonly lastActive = new Map<string, number>();
  /** Requests in flight per organization that are not backgrounded. */
  private readonly busy = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private forgotAt = -Infinity;
  private readonly periodMs: number;
  private readonly shareMs: number;
  private readonly quietMs: number;
  private readonly tickMs: number;
  private readonly now: () => number;
  private readonly onExit = (): void => this.resumeAll();

  constructor(options: PacerOptions = {}) {
    this.periodMs = options.periodMs ?? PACE_PERIOD_MS;
    this.shareMs = options.shareMs ?? PACE_SHARE_MS;
    this.quietMs = options.quietMs ?? PACE_QUIET_MS;
    this.tickMs = options.tickMs ?? PACE_TICK_MS;
    this.now = options.now ?? (() => performance.now());
  }

  /** An organization's request started (counted as busy until `ended`). */
  started(orgId: string): void {
    this.busy.set(orgId, (this.busy.get(orgId) ?? 0) + 1);
    this.lastActive.set(orgId, this.now());
    // a request arriving while a worker runs in the background stops it now, not at the next tick
    if (this.paced.size > 0) this.tick();
  }

  /** An organization's request ended, or was backgrounded (it no longer counts as busy). */
  ended(orgId: string): void {
    const n = (this.busy.get(orgId) ?? 0) - 1;
    if (n > 0) this.busy.set(orgId, n);
    else this.busy.delete(orgId);
    const now = this.now();
    this.lastActive.set(orgId, now);
    // without a paced worker nothing ticks: the map is kept to the organizations active of late
    if (this.lastActive.size > 256 && now - this.forgotAt > 10 * this.quietMs) this.forget(now);
  }

  /** The organization's worker runs a long request (paced until `foreground`). */
  background(orgId: string, worker: Pausable): void {
    if (this.paced.has(orgId)) return;
    this.paced.set(orgId, { worker, stopped: false });
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), this.tickMs);
      this.timer.unref();
      process.once('exit', this.onExit);
    }
    this.tick();
  }

  /** The long request ended (or the worker is being stopped): it runs freely again. */
  foreground(orgId: string): void {
    const p = this.paced.get(orgId);
    if (!p) return;
    if (p.stopped) p.worker.pause(false);
    this.paced.delete(orgId);
    if (this.paced.size === 0) this.idle();
  }

  /** Whether the organization's worker is stopped right now. */
  isStopped(orgId: string): boolean {
    return this.paced.get(orgId)?.stopped ?? false;
  }

  resumeAll(): void {
    for (const orgId of [...this.paced.keys()]) this.foreground(orgId);
  }

  private othersBusy(orgId: string, now: number): boolean {
    for (const [other, n] of this.busy) if (other !== orgId && n > 0) return true;
    for (const [other, t] of this.lastActive) if (other !== orgId && now - t < this.quietMs) return true;
    return false;
  }

  private tick(): void {
    const now = this.now();
    const inShare = now % this.periodMs < this.shareMs;
    for (const [orgId, p] of this.paced) {
      const stop = !inShare && this.othersBusy(orgId, now);
      if (stop === p.stopped) continue;
      if (!p.worker.pause(stop)) {
        // gone: nothing left to pace
        this.paced.delete(orgId);
        continue;
      }
      p.stopped = stop;
    }
    this.forget(now);
    if (this.paced.size === 0) this.idle();
  }

  /** Forgets organizations quiet for long (the map stays about as small as the busy set). */
  private forget(now: number): void {
    this.forgotAt = now;
    for (const [orgId, t] of this.lastActive) if (now - t > 10 * this.quietMs && !this.busy.has(orgId)) this.lastActive.delete(orgId);
  }

  private idle(): void {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
      process.removeListener('exit', this.onExit);
    }
  }
}
