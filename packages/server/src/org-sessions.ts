// One engine session per organization, for requests made with an API key. Each organization's
// session has its own documents, undo history, selection, events and request_id records, and a
// workspace rooted at its own folder (org-folder.ts), so nothing of one is visible to another.
// A session idle for `idleMs` is saved into its folder (session-file.ts of the engine) and let
// go; the organization's next request brings it back.
import { Workspace, createEngine, hasSavedSession, restoreSession, saveSession, type DispatcherApi, type Engine } from '@linework/engine';
import { removeStaleTempFiles } from '@linework/dxf';
import { OpError } from '@linework/engine';
import type { Logger } from './logger.js';
import { ensureOrgFolder, orgFolderName } from './org-folder.js';

/** Sessions untouched this long are saved and released (LINEWORK_ORG_IDLE_MS replaces it). */
export const ORG_IDLE_MS = 10 * 60_000;

/** How long a release or shutdown waits for the requests already queued in a session. */
const DRAIN_MS = 10_000;

export interface OrgSessionsOptions {
  /** The workspace root the organization folders are made in. */
  root: string;
  appVersion: string;
  idleMs?: number;
  log: Logger;
}

/** A session held for one request; `release` marks the end of its use. */
export interface OrgLease {
  readonly orgId: string;
  readonly api: DispatcherApi;
  release(): void;
}

interface Entry {
  orgId: string;
  ready: Promise<Engine>;
  engine: Engine | null;
  inFlight: number;
  lastUsed: number;
  /** Set while the session is being saved; requests wait for it, then start a new one (or go on after a checkpoint). */
  releasing: Promise<void> | null;
  /** The documents as last saved (fingerprint), or null. */
  savedAs: string | null;
}

export class OrgSessions {
  private readonly live = new Map<string, Entry>();
  private readonly idleMs: number;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: OrgSessionsOptions) {
    this.idleMs = options.idleMs ?? ORG_IDLE_MS;
    this.sweeper = setInterval(() => void this.sweep(), Math.max(50, Math.min(this.idleMs / 4, 30_000)));
    this.sweeper.unref();
  }

  /** Organizations with a session in memory (for tests and logs). */
  get liveOrgs(): string[] {
    return [...this.live.keys()];
  }

  /** The organization's session, started (or restored from its folder) when it has none. */
  async acquire(orgId: string): Promise<OrgLease> {
    if (this.closed) throw new OpError('session_unavailable', 'the server is stopping');
    for (;;) {
      let entry = this.live.get(orgId);
      if (!entry) {
        entry = this.start(orgId);
        this.live.set(orgId, entry);
      }
      if (entry.releasing) {
        await entry.releasing;
        continue;
      }
      let engine: Engine;
      try {
        engine = await entry.ready;
      } catch (err) {
        if (this.live.get(orgId) === entry) this.live.delete(orgId);
        // The reason names the server's folders: it is the operator's, the client learns the fact.
        this.options.log.error({ err, org: orgFolderName(orgId) }, 'an organization session cannot start');
        throw new OpError('session_unavailable', 'the organization\'s session cannot start right now (the server\'s log says why); try again later');
      }
      if (entry.releasing) continue;
      const held = entry;
      held.inFlight++;
      let released = false;
      return {
        orgId,
        api: engine,
        release: () => {
          if (released) return;
          released = true;
          held.inFlight--;
          held.lastUsed = Date.now();
        },
      };
    }
  }

  private start(orgId: string): Entry {
    const entry: Entry = { orgId, engine: null, inFlight: 0, lastUsed: Date.now(), releasing: null, savedAs: null, ready: Promise.resolve(null as unknown as Engine) };
    entry.ready = (async () => {
      const dir = await ensureOrgFolder(this.options.root, orgId);
      removeStaleTempFiles(dir);
      const saved = await hasSavedSession(dir);
      const engine = createEngine({ appVersion: this.options.appVersion, workspace: new Workspace([dir]), ...(saved ? { empty: true } : {}) });
      if (saved) {
        const report = await restoreSession(engine);
        this.options.log.info({ org: orgFolderName(orgId), restored: report.restored, skipped: report.skipped }, 'organization session restored');
      }
      entry.engine = engine;
      entry.savedAs = saved ? fingerprint(engine) : null;
      return engine;
    })();
    // A failed start is reported to the request that waits for it; nothing else may see it unhandled.
    entry.ready.catch(() => undefined);
    return entry;
  }

  /**
   * Saves every session whose documents changed since its last save, and keeps it: what a crash
   * of the process can lose is then what changed since. Requests wait while it is written.
   */
  async checkpoint(): Promise<void> {
    const due = [...this.live.values()].filter((e) => e.engine && !e.releasing && e.inFlight === 0 && fingerprint(e.engine) !== e.savedAs);
    await Promise.all(due.map((entry) => {
      entry.releasing = (async () => {
        const engine = entry.engine!;
        try {
          await drained(engine);
          const print = fingerprint(engine);
          await saveSession(engine);
          entry.savedAs = print;
        } catch (err) {
          this.options.log.error({ err, org: orgFolderName(entry.orgId) }, 'saving an organization session failed; it is tried again');
        } finally {
          entry.releasing = null;
        }
      })();
      return entry.releasing;
    }));
  }

  /** Saves and releases the sessions idle for longer than the idle time. */
  private async sweep(): Promise<void> {
    const now = Date.now();
    const idle = [...this.live.values()].filter((e) => e.engine && !e.releasing && e.inFlight === 0 && now - e.lastUsed >= this.idleMs);
    await Promise.all(idle.map((e) => this.release(e)));
  }

  private release(entry: Entry): Promise<void> {
    entry.releasing ??= (async () => {
      const engine = entry.engine!;
      try {
        await drained(engine);
        await saveSession(engine);
        this.live.delete(entry.orgId);
        this.options.log.info({ org: orgFolderName(entry.orgId), documents: engine.documents.size }, 'organization session saved and released');
      } catch (err) {
        // Nothing is let go unsaved: the session stays and the next sweep tries again.
        this.options.log.error({ err, org: orgFolderName(entry.orgId) }, 'saving an idle organization session failed; it stays in memory');
        entry.lastUsed = Date.now();
        entry.releasing = null;
      }
    })();
    return entry.releasing;
  }

  /** At shutdown: every session is saved (after the requests already queued), none is started. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const entries = [...this.live.values()];
    await Promise.all(entries.map(async (e) => {
      await e.ready.catch(() => undefined);
      if (e.engine) await this.release(e);
    }));
  }
}

/** Resolves once the requests queued before it have run (the dispatcher runs them in order). */
async function drained(engine: Engine): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    engine.dispatch({ protocol: 1, op: 'ready' }),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_MS))),
  ]);
  clearTimeout(timer);
}

/** What a saved session records of the engine, in a few bytes: when it is unchanged, nothing needs saving. */
function fingerprint(engine: Engine): string {
  let out = `${engine.activeId}|${engine.counters.nextDocumentId}|${engine.counters.untitled}`;
  for (const d of engine.documents.values()) out += `|${d.id}:${d.version}:${d.modified ? 1 : 0}:${d.name}:${d.path}`;
  // the session's system variables are saved too (setting one changes no document's version)
  if (engine.sessionVars.size) out += `|${JSON.stringify([...engine.sessionVars])}`;
  return out;
}
