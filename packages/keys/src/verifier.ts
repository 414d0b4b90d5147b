import { ApiError } from './errors.js';
import { isExpired } from './keys.js';
import type { VerifyFailureCode } from './schemas.js';
import type { ApiKeyRecord, KeyStore, KeyUse } from './store/types.js';

export type VerifyOutcome =
  | { valid: true; id: string; userId: string; organizationId: string; permissions: string[]; expiresAt: string | null }
  | { valid: false; code: VerifyFailureCode };

/** A verification is decided again when its key changes between the read and the count. */
const VERIFY_ATTEMPTS = 5;
/** Bounds one statement's parameter list and one batch's latency under a flood. */
const MAX_BATCH = 512;

interface Pending {
  hash: string;
  /** Normalised permissions the key must hold. */
  needed: string[];
  attempts: number;
  resolve(outcome: VerifyOutcome): void;
  reject(err: unknown): void;
}

/**
 * Group commit for verifications. One batch runs at a time: it reads every key its requests name in
 * one statement, decides each request, and counts the valid ones with one guarded UPDATE per key
 * (`request_count + n`), then answers. Requests arriving meanwhile wait for the next batch, so a
 * request is always decided on a read made after it arrived: a key revoked by any process is
 * refused on the next request, and nothing is cached between batches. Counts are committed before
 * the answer leaves, so N valid answers mean exactly N more in `requestCount`, in every process.
 *
 * Under load this turns N reads and N hot-row writes (which serialise on the row lock and the
 * commit) into one of each per batch; with no load a request runs alone, one event-loop turn later.
 */
export class VerificationBatcher {
  private queue: Pending[] = [];
  private running = 0;
  private scheduled = false;

  constructor(
    private readonly store: KeyStore,
    private readonly now: () => Date,
    /** Batches in flight at once; measured: more than one did not help on either database. */
    private readonly maxInFlight = 1,
  ) {}

  submit(hash: string, needed: string[]): Promise<VerifyOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ hash, needed, attempts: 0, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.running >= this.maxInFlight || this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    // The next turn of the event loop: every request parsed in this one joins the batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.run();
    });
  }

  private async run(): Promise<void> {
    this.running++;
    const batch = this.queue.splice(0, MAX_BATCH);
    try {
      await this.decide(batch);
    } catch (err) {
      // Settling twice is harmless; requests already answered keep their answer.
      for (const p of batch) p.reject(err);
    } finally {
      this.running--;
      this.kick();
    }
  }

  private async decide(batch: Pending[]): Promise<void> {
    const records = await this.store.findKeysByHash([...new Set(batch.map((p) => p.hash))]);
    const byHash = new Map(records.map((r) => [r.keyHash, r]));
    const now = this.now();
    const groups = new Map<string, { use: KeyUse; record: ApiKeyRecord; waiting: Pending[] }>();
    for (const p of batch) {
      const record = byHash.get(p.hash);
      const failure = refusal(record, p.needed, now);
      if (failure) {
        p.resolve({ valid: false, code: failure });
        continue;
      }
      // A key's uses are counted under the permissions they were decided on.
      const key = `${record!.id}\u0000${JSON.stringify(record!.permissions)}`;
      let group = groups.get(key);
      if (!group) {
        group = { use: { id: record!.id, permissions: record!.permissions, count: 0 }, record: record!, waiting: [] };
        groups.set(key, group);
      }
      group.use.count++;
      group.waiting.push(p);
    }
    if (groups.size === 0) return;
    const list = [...groups.values()];
    const counted = await this.store.recordKeyUses(
      list.map((g) => g.use),
      now,
    );
    list.forEach((group, i) => {
      if (counted[i]) {
        const r = group.record;
        const outcome: VerifyOutcome = { valid: true, id: r.id, userId: r.userId, organizationId: r.organizationId, permissions: r.permissions, expiresAt: r.expiresAt };
        for (const p of group.waiting) p.resolve(outcome);
        return;
      }
      // The key was revoked, updated or expired after the read: decide again on a fresh read.
      for (const p of group.waiting) {
        if (++p.attempts >= VERIFY_ATTEMPTS) p.reject(new ApiError('SERVICE_UNAVAILABLE', 'The key changed repeatedly during verification; retry'));
        else this.queue.push(p);
      }
    });
  }
}

function refusal(record: ApiKeyRecord | undefined, needed: string[], now: Date): VerifyFailureCode | null {
  if (!record) return 'NOT_FOUND';
  if (!record.isActive) return 'REVOKED';
  if (isExpired(record.expiresAt, now)) return 'EXPIRED';
  if (!needed.every((p) => record.permissions.includes(p))) return 'INSUFFICIENT_PERMISSIONS';
  return null;
}
