// The process that holds one organization's session (started by org-workers.ts with a heap limit
// of its own): it runs the requests the front passes on and answers them as encoded bytes. Its
// session is saved a moment after each change (so a crash loses at most that moment) and when the
// front stops it. The front is its only client: it is reached through the socket on fd 3 alone,
// in the frames of org-frames.ts.
import { Socket } from 'node:net';
import type { ProtocolRequest } from '@linework/engine';
import { createLogger } from './logger.js';
import { FRAME, FrameReader, encodeFrame, frameData, frameMeta, type Frame, type FrameKind } from './org-frames.js';
import type { WorkerInit } from './org-link.js';
import { OrgRunner } from './org-runner.js';

const log = createLogger(process.env).child({ worker: process.argv[2] ?? '?' });
let runner: OrgRunner | null = null;
let orgId = '';
let checkpointMs = 2000;
let timer: NodeJS.Timeout | null = null;
let stopping = false;

const channel = new Socket({ fd: 3, readable: true, writable: true });

function send(kind: FrameKind, id: number, meta?: unknown, data?: readonly Buffer[]): void {
  if (channel.destroyed || !channel.writable) return;
  channel.cork();
  for (const b of encodeFrame(kind, id, meta, data)) channel.write(b);
  channel.uncork();
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
  channel.destroy();
  process.exit(0);
}

const failed = (id: number) => (err: unknown): void => send(FRAME.failed, id, { message: (err as Error)?.message ?? String(err) });

function onFrame(f: Frame): void {
  switch (f.kind) {
    case FRAME.init: {
      const init = frameMeta<WorkerInit>(f);
      orgId = init.orgId;
      checkpointMs = init.checkpointMs;
      runner = new OrgRunner({ root: init.root, appVersion: init.appVersion, log, idleMs: Infinity });
      // Start (or restore) the session now: the request that follows finds it ready.
      void runner.sessions.acquire(orgId).then((lease) => lease.release(), () => undefined);
      send(FRAME.ready, 0, { pid: process.pid });
      return;
    }
    case FRAME.http: {
      const { method, target } = frameMeta<{ method: string; target: string }>(f);
      runner!.http(orgId, { method, target, body: frameData(f) }).then(
        (reply) => send(FRAME.httpReply, f.id, { status: reply.status, ...(reply.headers ? { headers: reply.headers } : {}) }, reply.encoded.chunks),
        failed(f.id),
      ).finally(scheduleCheckpoint);
      return;
    }
    case FRAME.line: {
      let req: ProtocolRequest;
      try {
        req = JSON.parse(frameData(f).toString('utf8')) as ProtocolRequest;
      } catch (err) {
        failed(f.id)(err);
        return;
      }
      runner!.line(orgId, req).then((chunks) => send(FRAME.lineReply, f.id, undefined, chunks), failed(f.id)).finally(scheduleCheckpoint);
      return;
    }
    case FRAME.stop:
      void stop();
      return;
  }
}

const reader = new FrameReader();
channel.on('data', (chunk: Buffer) => {
  for (const f of reader.push(chunk)) onFrame(f);
});
// The front gone (killed, crashed): save and end rather than linger without a client.
channel.on('end', () => void stop());
channel.on('error', () => void stop());
// Ctrl-C in a terminal reaches the whole process group: the front stops its workers itself.
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => void stop());
process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection (a bug); the worker goes on'));
