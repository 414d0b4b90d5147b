// The front's side of the organizations' sessions: each organization's session runs in a worker
// process of its own (org-worker.ts), with its own heap limit, started on the organization's first
// request, stopped (and saved) when idle, and started again, its session restored from what was
// saved, when it died. The front only passes requests on and copies the encoded answers back, so
// one organization's slow or huge request neither delays nor endangers another's.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { backgroundClass, setIdlePolicy, setNiceAll, type BackgroundClass } from './cpu-class.js';
import { BackgroundPacer } from './org-pacer.js';
import { fileURLToPath } from 'node:url';
import type { ProtocolRequest } from '@linework/engine';
import type { HttpReply } from './http-wire.js';
import type { Logger } from './logger.js';
import { orgFolderName } from './org-folder.js';
import { FRAME, FrameReader, encodeFrame, frameMeta, type Frame, type FrameKind } from './org-frames.js';
import { WorkerGone, type OrgWorker, type WorkerExit, type WorkerInit } from './org-link.js';
import { OrgRunner, type OrgHttpReply, type OrgHttpRequest } from './org-runner.js';
import { encodeLine } from './jsonl.js';
import { statusForCode } from './status.js';

/** What the transports need of the organizations' sessions. */
export interface OrgHosts {
  /**
   * An HTTP request of the organization. `reusable`: its answer depends only on the session's
   * identity and active document (GET /ready, /capabilities), so the answer the worker gave last
   * may be given again while no other request has reached the session since.
   */
  http(orgId: string, req: OrgHttpRequest, opts?: { reusable?: boolean }): Promise<HttpReply>;
  /** A TCP request: its answer line, encoded. */
  line(orgId: string, req: ProtocolRequest): Promise<Buffer[]>;
  /** Organizations with a session running (for tests and logs). */
  readonly liveOrgs: string[];
  close(): Promise<void>;
}

/** Heap limit of a worker (LINEWORK_ORG_HEAP_MB replaces it). */
export const ORG_HEAP_MB = 2048;
/** A worker's session is saved this long after its last change (LINEWORK_ORG_CHECKPOINT_MS). */
export const ORG_CHECKPOINT_MS = 2000;
/** A worker's nice value: drawing work yields to routing and key checks (LINEWORK_ORG_NICE). */
export const ORG_NICE = 10;
/**
 * A request running this long moves its worker to the background class until it ends: past an
 * interactive budget (the benchmark's 1 s plot moves after a quarter of it), and long enough that
 * the two runs of chrt it costs (about 2.5 ms of the front's CPU each) do not count.
 */
export const LONG_REQUEST_MS = 250;
/** Reusable answers kept per organization (distinct method and target). */
const KEPT_ANSWERS = 8;
/** How long a stopping worker may take to save before it is killed. */
const STOP_GRACE_MS = 60_000;
/** How long a new worker may take to be ready. */
const START_MS = 30_000;

// From src/ (tests) and dist/ alike, the compiled worker lies in dist/.
const WORKER_FILE = fileURLToPath(new URL('../dist/org-worker.js', import.meta.url));

export interface OrgWorkersOptions {
  root: string;
  appVersion: string;
  log: Logger;
  idleMs: number;
  heapMb?: number;
  checkpointMs?: number;
  /** Scheduling priority (nice) of a worker process; the front keeps its own. */
  nice?: number;
  /** A request running this long moves its worker to the background (LONG_REQUEST_MS). */
  longMs?: number;
  /** How a worker is started (default: a child process on this machine). */
  startWorker?: (orgId: string) => Promise<OrgWorker>;
  /** What a long request does to its worker's scheduling (default: chosen by what this process may do). */
  background?: Promise<BackgroundClass>;
  /** Stops backgrounded workers while other organizations are served (default: one with the standard pacing). */
  pacer?: BackgroundPacer;
}

const restarting = (): string =>
  'the organization\'s session stopped while this request ran (its worker ended); it is started again from its last saved state: send the request again';
const unavailable = 'the organization\'s session cannot start right now (the server\'s log says why); try again later';

interface Entry {
  worker: Promise<OrgWorker>;
  inFlight: number;
  lastUsed: number;
  stopping: Promise<void> | null;
  /** Answers of reusable requests by method and target, valid while `changes` stays the same. */
  kept: Map<string, OrgHttpReply>;
  /** Requests sent to the session that may change what a reusable answer says. */
  changes: number;
  /** Requests in flight past LONG_REQUEST_MS (the worker yields the CPU while there are any). */
  long: number;
  /**
   * Requests sent to the worker, oldest first. The worker runs them one after the other, so only
   * the oldest is running: a request's time counts from when it reaches the head, and a burst of
   * short requests queued behind each other does not make its organization's worker "long".
   */
  queue: { start(): void }[];
}

/** The reply as the wire writes it; the chunk array is copied, for the wire empties it as it writes. */
function asHttpReply(r: OrgHttpReply): HttpReply {
  return { status: r.status, body: null, encoded: { chunks: [...r.encoded.chunks], bytes: r.encoded.bytes }, ...(r.headers ? { headers: r.headers } : {}) };
}

export class OrgWorkers implements OrgHosts {
  private readonly live = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;
  private background: Promise<BackgroundClass> | null = null;
  private readonly pacer: BackgroundPacer;

  constructor(private readonly options: OrgWorkersOptions) {
    this.pacer = options.pacer ?? new BackgroundPacer();
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.min(options.idleMs / 4, 30_000)));
    this.sweeper.unref();
  }

  get liveOrgs(): string[] {
    return [...this.live.keys()];
  }

  async http(orgId: string, req: OrgHttpRequest, opts: { reusable?: boolean } = {}): Promise<HttpReply> {
    const what = `${req.method} ${req.target}`;
    if (opts.reusable) {
      // Readiness and capabilities without the hop: the worker's own last answer, while nothing
      // that could change it has been sent to the session since.
      const entry = this.live.get(orgId);
      const kept = entry && !entry.stopping ? entry.kept.get(what) : undefined;
      if (kept) {
        entry!.lastUsed = Date.now();
        // answered here, but this organization is being served: a backgrounded worker waits
        this.pacer.started(orgId);
        this.pacer.ended(orgId);
        return asHttpReply(kept);
      }
    }
    const r = await this.run(orgId, async (w, entry) => {
      if (!opts.reusable) {
        entry.changes++;
        entry.kept.clear();
        return w.http(req);
      }
      const changes = entry.changes;
      const reply = await w.http(req);
      // a few targets at most: /ready?x=1, ?x=2 ... must not grow the front's memory
      const room = entry.kept.size < KEPT_ANSWERS || entry.kept.has(what);
      if (reply.status === 200 && room && entry.changes === changes && this.live.get(orgId) === entry) entry.kept.set(what, { ...reply, encoded: { chunks: [...reply.encoded.chunks], bytes: reply.encoded.bytes } });
      return reply;
    });
    if (typeof r === 'string') {
      const status = statusForCode(r);
      return { status, body: { ok: false, code: r, error: r === 'session_restarting' ? restarting() : unavailable, http_status: status } };
    }
    return asHttpReply(r);
  }

  async line(orgId: string, req: ProtocolRequest): Promise<Buffer[]> {
    const r = await this.run(orgId, (w, entry) => {
      entry.changes++;
      entry.kept.clear();
      return w.line(req);
    });
    if (typeof r !== 'string') return r;
    return encodeLine({ ok: false, code: r, error: r === 'session_restarting' ? restarting() : unavailable, ...(typeof req.request_id === 'string' && req.request_id ? { request_id: req.request_id } : {}) });
  }

  /** Runs `fn` on the organization's worker (started when it has none); a failure is its code. */
  private async run<T>(orgId: string, fn: (w: OrgWorker, entry: Entry) => Promise<T>, again = true): Promise<T | 'session_restarting' | 'session_unavailable'> {
    if (this.closed) return 'session_unavailable';
    let entry: Entry;
    for (;;) {
      const found = this.live.get(orgId);
      if (found?.stopping) {
        await found.stopping;
        continue;
      }
      entry = found ?? this.start(orgId);
      break;
    }
    entry.inFlight++;
    // counted as this organization's short request until it runs long
    let busy = true;
    this.pacer.started(orgId);
    try {
      let worker: OrgWorker;
      try {
        worker = await entry.worker;
      } catch {
        return 'session_unavailable';
      }
      // A long request (a heavy plot) runs on at a lower priority: on a machine whose cores are
      // short, the other organizations' short requests come first.
      let long = false;
      let timer: NodeJS.Timeout | null = null;
      const slot = {
        start: (): void => {
          timer = setTimeout(() => {
            long = true;
            busy = false;
            this.pacer.ended(orgId);
            if (entry.long++ === 0) {
              void worker.yieldCpu!(true);
              if (worker.pause) this.pacer.background(orgId, { pause: (stopped) => worker.pause!(stopped) });
            }
          }, this.options.longMs ?? LONG_REQUEST_MS);
          timer.unref();
        },
      };
      if (worker.yieldCpu) {
        entry.queue.push(slot);
        if (entry.queue[0] === slot) slot.start();
      }
      try {
        return await fn(worker, entry);
      } catch (err) {
        if (!(err instanceof WorkerGone)) throw err;
        // Sent to a worker that had died unnoticed: it never ran, so a new worker may run it.
        if (!err.delivered && again) {
          await worker.exited;
          if (this.live.get(orgId) === entry) this.live.delete(orgId);
          return this.run(orgId, fn, false);
        }
        return 'session_restarting';
      } finally {
        if (timer) clearTimeout(timer);
        const at = entry.queue.indexOf(slot);
        if (at >= 0) {
          entry.queue.splice(at, 1);
          if (at === 0) entry.queue[0]?.start();
        }
        if (long && --entry.long === 0) {
          this.pacer.foreground(orgId);
          void worker.yieldCpu!(false);
        }
      }
    } finally {
      if (busy) this.pacer.ended(orgId);
      entry.inFlight--;
      entry.lastUsed = Date.now();
    }
  }

  /** Chosen once, on the first worker's start, and logged: the operator learns when it cannot apply. */
  private backgroundClass(): Promise<BackgroundClass> {
    if (!this.background) {
      this.background = this.options.background ?? backgroundClass(this.options.nice ?? ORG_NICE);
      void this.background.then((b) => {
        if (b.kind === 'idle') this.options.log.info({ afterMs: this.options.longMs ?? LONG_REQUEST_MS }, 'a worker running a long request is moved to the background (SCHED_IDLE) until it ends');
        else this.options.log.warn({ reason: b.reason }, 'workers running long requests cannot be moved to the background');
      });
    }
    return this.background;
  }

  private start(orgId: string): Entry {
    const started = (this.options.startWorker ?? ((id) => startChildWorker(id, { ...this.options, background: this.backgroundClass() })))(orgId);
    const entry: Entry = { worker: started, inFlight: 0, lastUsed: Date.now(), stopping: null, kept: new Map(), changes: 0, long: 0, queue: [] };
    this.live.set(orgId, entry);
    const org = orgFolderName(orgId);
    started.then(
      (w) => {
        this.options.log.info({ org, worker: w.where }, 'organization worker started');
        void w.exited.then((exit) => {
          if (this.live.get(orgId) === entry) this.live.delete(orgId);
          if (!exit.expected) this.options.log.error({ org, worker: w.where, code: exit.code, signal: exit.signal }, 'organization worker ended unexpectedly; it starts again, restored, on the next request');
        });
      },
      (err: unknown) => {
        if (this.live.get(orgId) === entry) this.live.delete(orgId);
        this.options.log.error({ err, org }, 'an organization worker cannot start');
      },
    );
    return entry;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [orgId, e] of this.live) {
      if (!e.stopping && e.inFlight === 0 && now - e.lastUsed >= this.options.idleMs) void this.stopEntry(orgId, e);
    }
  }

  private stopEntry(orgId: string, e: Entry): Promise<void> {
    e.stopping ??= (async () => {
      try {
        const w = await e.worker;
        // a stopped process could not save
        this.pacer.foreground(orgId);
        await w.stop();
        this.options.log.info({ org: orgFolderName(orgId), worker: w.where }, 'organization worker saved and stopped');
      } catch {
        // never started: nothing to save
      } finally {
        if (this.live.get(orgId) === e) this.live.delete(orgId);
      }
    })();
    return e.stopping;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    this.pacer.resumeAll();
    await Promise.all([...this.live].map(([orgId, e]) => this.stopEntry(orgId, e)));
  }
}

/** A worker as a child process of this one, reached through a socket pair on its fd 3. */
export function startChildWorker(orgId: string, options: Pick<OrgWorkersOptions, 'root' | 'appVersion' | 'heapMb' | 'checkpointMs' | 'nice' | 'background'>): Promise<OrgWorker> {
  const child = spawn(process.execPath, [
    // A front profiled with --cpu-prof profiles its workers too (bench/hosted/isolation.ts --profile).
    ...process.execArgv.filter((a) => a.startsWith('--cpu-prof')),
    `--max-old-space-size=${options.heapMb ?? ORG_HEAP_MB}`,
    WORKER_FILE, orgFolderName(orgId),
  ], { stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
  // Drawing work yields to the routing and key checks of every organization: the front (and a key
  // service on the same machine) run at the normal priority, workers a step below.
  // (every thread: setPriority sets one, and a thread started before it would keep the front's)
  if (child.pid !== undefined) setNiceAll(child.pid, options.nice ?? ORG_NICE);
  return ChildWorker.attach(child, orgId, options, options.nice ?? ORG_NICE, options.background ?? Promise.resolve({ kind: 'none', reason: 'not asked for' }));
}

type Waiting = { resolve: (f: Frame) => void; reject: (e: Error) => void };

class ChildWorker implements OrgWorker {
  readonly where: string;
  readonly exited: Promise<WorkerExit>;
  private readonly pending = new Map<number, Waiting>();
  private readonly channel: Socket;
  private serial = 0;
  private stopAsked = false;
  private exit: WorkerExit | null = null;
  /** The scheduling changes, one after the other (a long request's end waits for its start's). */
  private scheduling: Promise<void> = Promise.resolve();

  private constructor(private readonly child: ChildProcess, readonly orgId: string, private readonly nice: number, private readonly background: Promise<BackgroundClass>) {
    this.where = `pid ${child.pid}`;
    this.channel = child.stdio[3] as Socket;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { expected: this.stopAsked, code, signal };
        for (const p of this.pending.values()) p.reject(new WorkerGone(this.exit));
        this.pending.clear();
        this.channel.destroy();
        resolve(this.exit);
      });
    });
    const reader = new FrameReader();
    this.channel.on('data', (chunk: Buffer) => {
      let frames: Frame[];
      try {
        frames = reader.push(chunk);
      } catch {
        // a worker that breaks the framing cannot be trusted with more requests
        child.kill('SIGKILL');
        return;
      }
      for (const f of frames) {
        const p = this.pending.get(f.id);
        if (!p) continue;
        this.pending.delete(f.id);
        p.resolve(f);
      }
    });
    // A failed write to a channel that just closed shows up as the exit above.
    this.channel.on('error', () => undefined);
    child.on('error', () => undefined);
  }

  static attach(child: ChildProcess, orgId: string, options: Pick<OrgWorkersOptions, 'root' | 'appVersion' | 'checkpointMs'>, nice: number, background: Promise<BackgroundClass>): Promise<OrgWorker> {
    const w = new ChildWorker(child, orgId, nice, background);
    return new Promise<OrgWorker>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the worker was not ready within ${START_MS} ms`));
      }, START_MS);
      // the ready frame answers id 0
      w.pending.set(0, {
        resolve: () => {
          clearTimeout(timer);
          resolve(w);
        },
        reject: () => undefined,
      });
      void w.exited.then((exit) => {
        clearTimeout(timer);
        reject(new Error(`the worker ended before it was ready (code ${exit.code}, signal ${exit.signal})`));
      });
      const init: WorkerInit = { orgId, root: options.root, appVersion: options.appVersion, checkpointMs: options.checkpointMs ?? ORG_CHECKPOINT_MS };
      w.write(encodeFrame(FRAME.init, 0, init));
    });
  }

  /** Writes a frame; false when the channel is gone (the frame was not delivered). */
  private write(frame: Buffer[]): boolean {
    if (this.exit || this.channel.destroyed || !this.channel.writable) return false;
    this.channel.cork();
    for (const b of frame) this.channel.write(b);
    this.channel.uncork();
    return true;
  }

  private ask(kind: FrameKind, meta: unknown, data: readonly Buffer[]): Promise<Frame> {
    const id = (this.serial = (this.serial % 0xffff_fffe) + 1);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (!this.write(encodeFrame(kind, id, meta, data))) {
        this.pending.delete(id);
        reject(new WorkerGone(this.exit, false));
      }
    });
  }

  async http(req: OrgHttpRequest): Promise<OrgHttpReply> {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength);
    const f = await this.ask(FRAME.http, { method: req.method, target: req.target }, body.length ? [body] : []);
    if (f.kind === FRAME.failed) throw new Error(frameMeta<{ message: string }>(f).message);
    if (f.kind !== FRAME.httpReply) throw new Error('the worker answered out of turn');
    const { status, headers } = frameMeta<{ status: number; headers?: Record<string, string> }>(f);
    return { status, ...(headers ? { headers } : {}), encoded: { chunks: f.data, bytes: f.dataBytes } };
  }

  async line(req: ProtocolRequest): Promise<Buffer[]> {
    const f = await this.ask(FRAME.line, undefined, [Buffer.from(JSON.stringify(req), 'utf8')]);
    if (f.kind === FRAME.failed) throw new Error(frameMeta<{ message: string }>(f).message);
    if (f.kind !== FRAME.lineReply) throw new Error('the worker answered out of turn');
    return f.data;
  }

  pause(stopped: boolean): boolean {
    if (this.exit) return false;
    try {
      return this.child.kill(stopped ? 'SIGSTOP' : 'SIGCONT');
    } catch {
      return false;
    }
  }

  yieldCpu(long: boolean): Promise<void> {
    this.scheduling = this.scheduling.then(async () => {
      const pid = this.child.pid;
      if (this.exit || pid === undefined || (await this.background).kind !== 'idle') return;
      await setIdlePolicy(pid, long);
      // SCHED_OTHER keeps the nice value each thread had; threads started meanwhile took the
      // policy of their parent and are set too
      if (!long) setNiceAll(pid, this.nice);
    });
    return this.scheduling;
  }

  async stop(): Promise<void> {
    this.stopAsked = true;
    if (!this.exit) {
      this.pause(false);
      if (!this.write(encodeFrame(FRAME.stop, 0))) this.child.kill('SIGKILL');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
      await this.exited;
      clearTimeout(timer);
    }
  }
}

/**
 * The organizations' sessions in this process (LINEWORK_ORG_WORKERS=0): no isolation, one process
 * for everything, as before the workers. For measuring what the workers cost, and for debugging.
 */
export class InProcessOrgs implements OrgHosts {
  private readonly runner: OrgRunner;

  constructor(options: { root: string; appVersion: string; log: Logger; idleMs: number }) {
    this.runner = new OrgRunner(options);
  }

  get liveOrgs(): string[] {
    return this.runner.sessions.liveOrgs;
  }

  async http(orgId: string, req: OrgHttpRequest): Promise<HttpReply> {
    const r = await this.runner.http(orgId, req);
    return { status: r.status, body: null, encoded: r.encoded, ...(r.headers ? { headers: r.headers } : {}) };
  }

  line(orgId: string, req: ProtocolRequest): Promise<Buffer[]> {
    return this.runner.line(orgId, req);
  }

  close(): Promise<void> {
    return this.runner.close();
  }
}
