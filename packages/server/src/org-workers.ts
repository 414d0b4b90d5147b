// The front's side of the organizations' sessions: each organization's session runs in a worker
// process of its own (org-worker.ts), with its own heap limit, started on the organization's first
// request, stopped (and saved) when idle, and started again, its session restored from what was
// saved, when it died. The front only passes requests on and copies the encoded answers back, so
// one organization's slow or huge request neither delays nor endangers another's.
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ProtocolRequest } from '@linework/engine';
import type { HttpReply } from './http-wire.js';
import type { Logger } from './logger.js';
import { orgFolderName } from './org-folder.js';
import { WorkerGone, type FromWorker, type OrgWorker, type ToWorker, type WorkerExit } from './org-link.js';
import { OrgRunner, type OrgHttpReply, type OrgHttpRequest } from './org-runner.js';
import { encodeLine } from './jsonl.js';
import { statusForCode } from './status.js';

/** What the transports need of the organizations' sessions. */
export interface OrgHosts {
  http(orgId: string, req: OrgHttpRequest): Promise<HttpReply>;
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
  /** How a worker is started (default: a child process on this machine). */
  startWorker?: (orgId: string) => Promise<OrgWorker>;
}

const restarting = (): string =>
  'the organization\'s session stopped while this request ran (its worker ended); it is started again from its last saved state: send the request again';
const unavailable = 'the organization\'s session cannot start right now (the server\'s log says why); try again later';

interface Entry {
  worker: Promise<OrgWorker>;
  inFlight: number;
  lastUsed: number;
  stopping: Promise<void> | null;
}

export class OrgWorkers implements OrgHosts {
  private readonly live = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: OrgWorkersOptions) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.min(options.idleMs / 4, 30_000)));
    this.sweeper.unref();
  }

  get liveOrgs(): string[] {
    return [...this.live.keys()];
  }

  async http(orgId: string, req: OrgHttpRequest): Promise<HttpReply> {
    const r = await this.run(orgId, (w) => w.http(req));
    if (typeof r === 'string') {
      const status = statusForCode(r);
      return { status, body: { ok: false, code: r, error: r === 'session_restarting' ? restarting() : unavailable, http_status: status } };
    }
    return { status: r.status, body: null, encoded: r.encoded, ...(r.headers ? { headers: r.headers } : {}) };
  }

  async line(orgId: string, req: ProtocolRequest): Promise<Buffer[]> {
    const r = await this.run(orgId, (w) => w.line(req));
    if (typeof r !== 'string') return r;
    return encodeLine({ ok: false, code: r, error: r === 'session_restarting' ? restarting() : unavailable, ...(typeof req.request_id === 'string' && req.request_id ? { request_id: req.request_id } : {}) });
  }

  /** Runs `fn` on the organization's worker (started when it has none); a failure is its code. */
  private async run<T>(orgId: string, fn: (w: OrgWorker) => Promise<T>, again = true): Promise<T | 'session_restarting' | 'session_unavailable'> {
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
    try {
      let worker: OrgWorker;
      try {
        worker = await entry.worker;
      } catch {
        return 'session_unavailable';
      }
      try {
        return await fn(worker);
      } catch (err) {
        if (!(err instanceof WorkerGone)) throw err;
        // Sent to a worker that had died unnoticed: it never ran, so a new worker may run it.
        if (!err.delivered && again) {
          await worker.exited;
          if (this.live.get(orgId) === entry) this.live.delete(orgId);
          return this.run(orgId, fn, false);
        }
        return 'session_restarting';
      }
    } finally {
      entry.inFlight--;
      entry.lastUsed = Date.now();
    }
  }

  private start(orgId: string): Entry {
    const started = (this.options.startWorker ?? ((id) => startChildWorker(id, this.options)))(orgId);
    const entry: Entry = { worker: started, inFlight: 0, lastUsed: Date.now(), stopping: null };
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
    await Promise.all([...this.live].map(([orgId, e]) => this.stopEntry(orgId, e)));
  }
}

/** A worker as a child process of this one, reached through its IPC channel. */
export function startChildWorker(orgId: string, options: Pick<OrgWorkersOptions, 'root' | 'appVersion' | 'heapMb' | 'checkpointMs' | 'nice'>): Promise<OrgWorker> {
  const child = fork(WORKER_FILE, [orgFolderName(orgId)], {
    execArgv: [`--max-old-space-size=${options.heapMb ?? ORG_HEAP_MB}`],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  // Drawing work yields to the routing and key checks of every organization: the front (and a key
  // service on the same machine) run at the normal priority, workers a step below.
  if (child.pid !== undefined) {
    try {
      setPriority(child.pid, options.nice ?? ORG_NICE);
    } catch {
      // not permitted here: the worker runs at the front's priority
    }
  }
  return ChildWorker.attach(child, orgId, options);
}

class ChildWorker implements OrgWorker {
  readonly where: string;
  readonly exited: Promise<WorkerExit>;
  private readonly pending = new Map<number, { resolve: (m: FromWorker) => void; reject: (e: Error) => void }>();
  private serial = 0;
  private stopAsked = false;
  private exit: WorkerExit | null = null;

  private constructor(private readonly child: ChildProcess, readonly orgId: string) {
    this.where = `pid ${child.pid}`;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { expected: this.stopAsked, code, signal };
        for (const p of this.pending.values()) p.reject(new WorkerGone(this.exit));
        this.pending.clear();
        resolve(this.exit);
      });
    });
    child.on('message', (m: FromWorker) => {
      if (m.t === 'ready') return;
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      p.resolve(m);
    });
    // A failed write to a channel that just closed shows up as the exit above.
    child.on('error', () => undefined);
  }

  static attach(child: ChildProcess, orgId: string, options: Pick<OrgWorkersOptions, 'root' | 'appVersion' | 'checkpointMs'>): Promise<OrgWorker> {
    const w = new ChildWorker(child, orgId);
    return new Promise<OrgWorker>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the worker was not ready within ${START_MS} ms`));
      }, START_MS);
      const onMessage = (m: FromWorker): void => {
        if (m.t !== 'ready') return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(w);
      };
      child.on('message', onMessage);
      void w.exited.then((exit) => {
        clearTimeout(timer);
        reject(new Error(`the worker ended before it was ready (code ${exit.code}, signal ${exit.signal})`));
      });
      w.post({ t: 'init', orgId, root: options.root, appVersion: options.appVersion, checkpointMs: options.checkpointMs ?? ORG_CHECKPOINT_MS });
    });
  }

  /** Sends a message; `undelivered` runs when it could not be written (the worker is gone). */
  private post(msg: ToWorker, undelivered?: () => void): void {
    if (!this.child.connected) {
      undelivered?.();
      return;
    }
    this.child.send(msg, (err) => {
      if (!err) return;
      undelivered?.();
      this.child.kill('SIGKILL');
    });
  }

  private ask(msg: { t: 'http'; req: OrgHttpRequest } | { t: 'line'; req: ProtocolRequest }): Promise<FromWorker> {
    if (this.exit || !this.child.connected) return Promise.reject(new WorkerGone(this.exit, false));
    const id = ++this.serial;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ ...msg, id } as ToWorker, () => {
        if (this.pending.delete(id)) reject(new WorkerGone(this.exit, false));
      });
    });
  }

  async http(req: OrgHttpRequest): Promise<OrgHttpReply> {
    const m = await this.ask({ t: 'http', req });
    if (m.t === 'failed') throw new Error(m.message);
    if (m.t !== 'http') throw new Error('the worker answered out of turn');
    // Byte arrays arrive as Uint8Array: viewed as Buffers, not copied.
    const chunks = m.reply.encoded.chunks.map(asBuffer);
    return { ...m.reply, encoded: { chunks, bytes: m.reply.encoded.bytes } };
  }

  async line(req: ProtocolRequest): Promise<Buffer[]> {
    const m = await this.ask({ t: 'line', req });
    if (m.t === 'failed') throw new Error(m.message);
    if (m.t !== 'line') throw new Error('the worker answered out of turn');
    return m.chunks.map(asBuffer);
  }

  async stop(): Promise<void> {
    this.stopAsked = true;
    if (!this.exit) {
      this.post({ t: 'stop' });
      const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
      await this.exited;
      clearTimeout(timer);
    }
  }
}

function asBuffer(u: Uint8Array): Buffer {
  return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
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
