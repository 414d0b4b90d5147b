// The one interface through which the front reaches an organization's worker. What crosses is
// plain data (a request's method, target and body bytes; an answer's status, headers and JSON
// bytes) in the frames of org-frames.ts, which run on any byte stream: today a socket pair to a
// child process, next a TCP connection to a worker on another machine (docs/server.md, "Several
// machines").
import type { ProtocolRequest } from '@linework/engine';
import type { OrgHttpReply, OrgHttpRequest } from './org-runner.js';

/** What the front sends first: the worker holds this organization's session. */
export interface WorkerInit {
  orgId: string;
  root: string;
  appVersion: string;
  checkpointMs: number;
}

/** How a worker ended: `expected` when the front asked it to stop. */
export interface WorkerExit {
  expected: boolean;
  code: number | null;
  signal: string | null;
}

/**
 * One organization's session, wherever it runs. Requests may be sent concurrently; the worker
 * runs them in the order they were sent. When the worker dies, the requests it had not answered
 * reject with {@link WorkerGone}, and `exited` resolves.
 */
export interface OrgWorker {
  readonly orgId: string;
  /** An operator's handle on it (a process id, a host and port). */
  readonly where: string;
  http(req: OrgHttpRequest): Promise<OrgHttpReply>;
  line(req: ProtocolRequest): Promise<Buffer[]>;
  /** Saves the session and ends the worker (killed if it does not end within the grace time). */
  stop(): Promise<void>;
  readonly exited: Promise<WorkerExit>;
  /**
   * Lowers the worker's scheduling priority while it runs a long request (`true`), and gives it
   * back (`false`): other organizations' short requests come first when the cores are short. A
   * worker on another host may ignore it (its host has its own cores).
   */
  yieldCpu?(long: boolean): void | Promise<void>;
  /**
   * Stops (true) or resumes (false) the worker while it runs a long request and other
   * organizations are served (org-pacer.ts); false when it is gone. A worker on another host may
   * leave it out.
   */
  pause?(stopped: boolean): boolean;
}

/** The worker ended before it answered. */
export class WorkerGone extends Error {
  /**
   * @param delivered false when the request never reached the worker (it was gone already): such a
   * request can safely be sent again to a new worker, a delivered one cannot (it may have run).
   */
  constructor(readonly exit: WorkerExit | null, readonly delivered = true) {
    super('the organization\'s worker ended before it answered');
    this.name = 'WorkerGone';
  }
}
