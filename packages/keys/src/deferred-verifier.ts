import { hasLimits } from './limits.js';
import { spendLimitedUses } from './spend.js';
import type { ApiKeyRecord, KeyStore, KeyUseTally } from './store/types.js';
import { byKey, holds, INSUFFICIENT, REFUSALS, stateRefusal, validOutcome, VerificationBatcher, type Pending, type VerifyOutcome } from './verifier.js';

/** Keys whose last read is kept; beyond this the cache starts over from fresh reads. */
const MAX_KNOWN = 10_000;
/** After a failed write, the counts wait this long before the next attempt. */
const RETRY_MS = 1000;

/** A key as last read, with its valid answer built once (the route serialises each outcome once). */
interface Known {
  record: ApiKeyRecord | null;
  valid: VerifyOutcome | null;
}

export interface DeferredCountOptions {
  /** How long an answered verification's count may wait in memory before it is written. */
  flushMs: number;
  /** A write of counts failed; they are kept and written with the next ones. */
  onWriteError(err: unknown, uses: number): void;
}

/**
 * Answering first, counting right behind: each batch is decided on the keys as they stand after its
 * requests arrived, answered, and its valid uses are added to a tally in memory that is written
 * (`request_count + n`, `last_used` moved forward) every `flushMs`, before any read of the counts in
 * this process (list, update) and at shutdown. So no answer waits for a commit, and N valid answers
 * still add exactly N: tallies are only ever added, never overwritten, whichever process writes them.
 * Another process sharing the database sees a count at most `flushMs` late; a crash loses at most the
 * last `flushMs` of counts.
 *
 * The decisions are never stale. Where the store can tell cheaply that nothing changed (SQLite's
 * `data_version` moves on every other connection's commit; this process's own transactions are
 * counted by the store), keys are kept from their last read and read again after any change.
 * Elsewhere (PostgreSQL) every batch reads its keys, one statement for the whole batch.
 *
 * Keys with a rate limit or a usage limit are never answered from memory: their requests are
 * decided under the key's lock and spent before the answer (spend.ts), in either mode.
 */
export class DeferredCountVerifier extends VerificationBatcher {
  private readonly known = new Map<string, Known>();
  private knownVersion = NaN;
  private pending = new Map<string, { count: number; lastUsed: string }>();
  private timer: NodeJS.Timeout | null = null;
  private delay: number;
  private writing: Promise<void> | null = null;

  constructor(
    private readonly store: KeyStore,
    private readonly now: () => Date,
    private readonly options: DeferredCountOptions,
  ) {
    super(store.verifyBatchesInFlight);
    this.delay = options.flushMs;
  }

  protected async decide(batch: Pending[]): Promise<void> {
    const byHash = byKey(batch);
    const keys = await this.lookUp([...byHash.keys()]);
    const now = this.now();
    let at: string | undefined;
    let limited: Map<string, Pending[]> | undefined;
    for (const [hash, requests] of byHash) {
      const known = keys.get(hash);
      if (known?.record && hasLimits(known.record)) {
        (limited ??= new Map()).set(hash, requests);
        continue;
      }
      const failure = stateRefusal(known?.record, now);
      if (failure) {
        const refusal = REFUSALS.get(failure)!;
        for (const p of requests) p.resolve(refusal);
        continue;
      }
      const { record, valid } = known!;
      let uses = 0;
      for (const p of requests) {
        if (holds(record!.permissions, p.needed)) {
          uses++;
          p.resolve(valid!);
        } else p.resolve(INSUFFICIENT);
      }
      if (uses > 0) this.tally(hash, uses, (at ??= now.toISOString()));
    }
    if (limited) await spendLimitedUses(this.store, limited, this.now);
  }

  /** The keys with these hashes as they stand now: from the cache while nothing changed, else read. */
  private async lookUp(hashes: string[]): Promise<Map<string, Known>> {
    const found = new Map<string, Known>();
    const version = this.store.keysVersion?.();
    if (version === undefined) return this.read(hashes, found);
    if (version !== this.knownVersion || this.known.size + hashes.length > MAX_KNOWN) {
      this.known.clear();
      this.knownVersion = version;
    }
    const missing: string[] = [];
    for (const hash of hashes) {
      const known = this.known.get(hash);
      if (known) found.set(hash, known);
      else missing.push(hash);
    }
    if (missing.length === 0) return found;
    await this.read(missing, found);
    // A change committed during the read moved the version: the next batch reads again anyway.
    for (const hash of missing) this.known.set(hash, found.get(hash)!);
    return found;
  }

  private async read(hashes: string[], into: Map<string, Known>): Promise<Map<string, Known>> {
    const records = new Map((await this.store.findKeysByHash(hashes)).map((r) => [r.keyHash, r]));
    for (const hash of hashes) {
      const record = records.get(hash) ?? null;
      const valid: VerifyOutcome | null = record ? validOutcome(record) : null;
      into.set(hash, { record, valid });
    }
    return into;
  }

  private tally(hash: string, uses: number, at: string): void {
    const t = this.pending.get(hash);
    if (t) {
      t.count += uses;
      if (at > t.lastUsed) t.lastUsed = at;
    } else this.pending.set(hash, { count: uses, lastUsed: at });
    this.timer ??= setTimeout(() => {
      this.timer = null;
      // A failure is reported by write() and retried; nobody waits on this one.
      this.settle().catch(() => {});
    }, this.delay);
  }

  override async settle(): Promise<void> {
    // One write at a time; uses answered during a write go in the next one.
    while (this.writing) await this.writing.catch(() => {});
    if (this.pending.size === 0) return;
    this.writing = this.write();
    try {
      await this.writing;
    } finally {
      this.writing = null;
    }
  }

  override async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    try {
      await this.settle();
    } catch {
      // One more attempt after a pause: a database that blinked should not cost the last counts.
      await new Promise((resolve) => setTimeout(resolve, 200));
      try {
        await this.settle();
      } catch (err) {
        const uses = [...this.pending.values()].reduce((n, t) => n + t.count, 0);
        throw new Error(`${uses} verification counts could not be written at shutdown`, { cause: err });
      } finally {
        if (this.timer) clearTimeout(this.timer);
        this.timer = null;
      }
    }
  }

  private async write(): Promise<void> {
    const tallies: KeyUseTally[] = [];
    for (const [keyHash, t] of this.pending) tallies.push({ keyHash, count: t.count, lastUsed: t.lastUsed });
    this.pending = new Map();
    try {
      await this.store.addKeyUses(tallies);
      this.delay = this.options.flushMs;
    } catch (err) {
      // Kept, to be written with the uses answered since.
      this.delay = Math.max(this.options.flushMs, RETRY_MS);
      for (const t of tallies) this.tally(t.keyHash, t.count, t.lastUsed);
      this.options.onWriteError(err, tallies.reduce((n, t) => n + t.count, 0));
      throw err;
    }
  }
}
