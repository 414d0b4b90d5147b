// The process that holds one organization's session (started by org-workers.ts with a heap limit
// of its own): it runs the requests the front passes on and answers them as encoded bytes. Its
// session is saved a moment after each change (so a crash loses at most that moment) and when the
// front stops it. The front is its only client: it is reached through the IPC channel alone.
import { createLogger } from './logger.js';
import type { FromWorker, ToWorker } from './org-link.js';
import { OrgRunner } from './org-runner.js';

const log = createLogger(process.env).child({ worker: process.argv[2] ?? '?' });
let runner: OrgRunner | null = null;
let orgId = '';
let checkpointMs = 2000;
let timer: NodeJS.Timeout | null = null;
let stopping = false;

function send(msg: FromWorker): void {
  if (process.connected) process.send!(msg);
}

/** A checkpoint a moment after the last request: a burst of changes is saved once. */
function scheduleCheckpoint(): void {
  if (timer || stopping) return;
  timer = setTimeout(() => {
    timer = null;
    void runner?.checkpoint();
  }, checkpointMs);
}

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (timer) clearTimeout(timer);
  try {
    await runner?.close();
  } catch (err) {
    log.error({ err }, 'saving the organization session at its end failed');
  }
  process.disconnect?.();
  process.exit(0);
}

process.on('message', (msg: ToWorker) => {
  switch (msg.t) {
    case 'init':
      orgId = msg.orgId;
      checkpointMs = msg.checkpointMs;
      runner = new OrgRunner({ root: msg.root, appVersion: msg.appVersion, log, idleMs: Infinity });
      // Start (or restore) the session now: the request that follows finds it ready.
      void runner.sessions.acquire(orgId).then((lease) => lease.release(), () => undefined);
      send({ t: 'ready', pid: process.pid });
      return;
    case 'http':
      runner!.http(orgId, msg.req).then(
        (reply) => send({ t: 'http', id: msg.id, reply }),
        (err: unknown) => send({ t: 'failed', id: msg.id, message: (err as Error)?.message ?? String(err) }),
      ).finally(scheduleCheckpoint);
      return;
    case 'line':
      runner!.line(orgId, msg.req).then(
        (chunks) => send({ t: 'line', id: msg.id, chunks }),
        (err: unknown) => send({ t: 'failed', id: msg.id, message: (err as Error)?.message ?? String(err) }),
      ).finally(scheduleCheckpoint);
      return;
    case 'stop':
      void stop();
      return;
  }
});

// The front gone (killed, crashed): save and end rather than linger without a client.
process.on('disconnect', () => void stop());
// Ctrl-C in a terminal reaches the whole process group: the front stops its workers itself.
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => void stop());
process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection (a bug); the worker goes on'));
