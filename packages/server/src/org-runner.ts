// Where an organization's requests run: its session (org-sessions.ts), the HTTP side of it (routes,
// mutation wrapper), answers rewritten to workspace-relative paths (path-scrub.ts) and encoded
// as JSON bytes here, so the process that only routes (the front) copies bytes and never walks
// or builds a large answer. An organization's worker process holds one of these (org-worker.ts).
import { randomBytes } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { DispatcherApi, ProtocolRequest } from '@linework/engine';
import { OpError } from '@linework/engine';
import { TokenCheck } from './auth.js';
import { HttpApi } from './http-api.js';
import { unencodable, type HttpReply } from './http-wire.js';
import { encodeJson, type EncodedJson } from './json-reply.js';
import { encodeLine } from './jsonl.js';
import type { Logger } from './logger.js';
import { orgFolderName } from './org-folder.js';
import { OrgSessions } from './org-sessions.js';
import { pathScrubber, type PathScrubber } from './path-scrub.js';
import { statusForCode } from './status.js';

/** An HTTP request of an organization, as the front passes it on (the key was checked there). */
export interface OrgHttpRequest {
  method: string;
  target: string;
  body: Uint8Array;
}

/** Its answer: status, headers and the JSON body as bytes. */
export interface OrgHttpReply {
  status: number;
  headers?: Record<string, string>;
  encoded: EncodedJson;
}

export interface OrgRunnerOptions {
  root: string;
  appVersion: string;
  log: Logger;
  /** Idle time after which a session is saved and released (Infinity in a worker: the front decides). */
  idleMs?: number;
}

export class OrgRunner {
  readonly sessions: OrgSessions;
  private readonly apis = new WeakMap<DispatcherApi, HttpApi>();
  private readonly scrubbers = new Map<string, Promise<PathScrubber>>();
  // HttpApi wants a session token; nothing reaches this one with it (runTrusted skips the check).
  private readonly unusedAuth = new TokenCheck({ value: randomBytes(32).toString('hex'), source: 'generated' });

  constructor(private readonly options: OrgRunnerOptions) {
    this.sessions = new OrgSessions({ root: options.root, appVersion: options.appVersion, log: options.log, ...(options.idleMs !== undefined ? { idleMs: options.idleMs } : {}) });
  }

  async http(orgId: string, req: OrgHttpRequest): Promise<OrgHttpReply> {
    let reply: HttpReply;
    const scrub = await this.scrubber(orgId);
    try {
      const lease = await this.sessions.acquire(orgId);
      try {
        let api = this.apis.get(lease.api);
        if (!api) this.apis.set(lease.api, (api = new HttpApi(lease.api, this.unusedAuth)));
        reply = await api.runTrusted({ method: req.method, target: req.target, body: Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength) });
      } finally {
        lease.release();
      }
    } catch (err) {
      if (!(err instanceof OpError)) throw err;
      const status = statusForCode(err.code);
      reply = { status, body: { ok: false, code: err.code, error: err.message, http_status: status } };
    }
    return encodeReply({ ...reply, body: reply.body && scrub.scrub(reply.body) });
  }

  /** A protocol request of the TCP transport: the answer as one JSON line in chunks. */
  async line(orgId: string, req: ProtocolRequest): Promise<Buffer[]> {
    const scrub = await this.scrubber(orgId);
    try {
      const lease = await this.sessions.acquire(orgId);
      try {
        return encodeLine(scrub.scrub(await lease.api.dispatch(req)));
      } finally {
        lease.release();
      }
    } catch (err) {
      if (!(err instanceof OpError)) throw err;
      return encodeLine({ ok: false, code: err.code, error: err.message, ...(typeof req.request_id === 'string' && req.request_id ? { request_id: req.request_id } : {}) });
    }
  }

  /** Saves the sessions whose documents changed since they were last saved. */
  checkpoint(): Promise<void> {
    return this.sessions.checkpoint();
  }

  close(): Promise<void> {
    return this.sessions.close();
  }

  private scrubber(orgId: string): Promise<PathScrubber> {
    let s = this.scrubbers.get(orgId);
    if (!s) {
      const root = this.options.root;
      s = (async () => {
        const real = await realpath(root).catch(() => root);
        // The folder as ensureOrgFolder makes it (below the real root).
        return pathScrubber(join(real, orgFolderName(orgId)), real, root === real ? [] : [root]);
      })();
      this.scrubbers.set(orgId, s);
    }
    return s;
  }
}

/** Encodes a reply's body; one past the reply cap (or unencodable) becomes its failure answer. */
export function encodeReply(reply: HttpReply): OrgHttpReply {
  let r = reply;
  let encoded: EncodedJson;
  try {
    encoded = r.encoded ?? encodeJson(r.body ?? {});
  } catch (err) {
    r = unencodable(err);
    encoded = encodeJson(r.body);
  }
  return { status: r.status, ...(r.headers ? { headers: r.headers } : {}), encoded };
}
