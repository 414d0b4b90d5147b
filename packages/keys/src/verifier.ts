import { ApiError } from './errors.js';
import { isExpired } from './keys.js';
import type { VerifyFailureCode } from './schemas.js';
import type { ApiKeyRecord, KeyStore } from './store/types.js';

export type VerifyOutcome =
  | { valid: true; id: string; userId: string; organizationId: string; permissions: string[]; expiresAt: string | null }
  | { valid: false; code: VerifyFailureCode };

/** A verification is decided again when its key changes between the look and the count. */
const VERIFY_ATTEMPTS = 5;
/** Bounds one statement's parameter list and one batch's latency under a flood. */
const MAX_BATCH = 512;
/** Turns of the event loop a batch may wait for more requests while it keeps growing. */
const MAX_WAIT_TURNS = 4;
/** Keys whose permissions are remembered; beyond this the guesses start over from fresh reads. */
const MAX_REMEMBERED = 10_000;

interface Pending {
  hash: string;
  /** Normalised permissions the key must hold. */
  needed: string[];
  attempts: number;
  resolve(outcome: VerifyOutcome): void;
  reject(err: unknown): void;
}

/** The requests of one batch for one key, to be counted as if the key holds `permissions`. */
interface Group {
  hash: string;
  permissions: string[];
  requests: Pending[];
}

const INSUFFICIENT: VerifyOutcome = Object.freeze({ valid: false, code: 'INSUFFICIENT_PERMISSIONS' });

/**
 * Group commit for verifications. A batch takes every request queued so far, and for each key it
 * names sends one guarded statement that counts its valid requests (`request_count + n`, only if
 * the key is still active, unexpired and holds the permissions the requests were decided on) and
 * returns the key's identity; the answers leave once that count has committed. So every answer
 * rests on the database as it stood after the request arrived, a key revoked or changed by any
 * process is refused on the next request, and N valid answers mean exactly N more in `requestCount`.
 *
 * To decide a request before counting it, the batcher needs the key's permissions. It remembers
 * them from the last read, but only as a guess: the guard refuses to count when the stored
 * permissions differ (or the key is gone, revoked or expired), and those requests are decided again
 * on a fresh read. Keys never seen, or whose requests the guess would all refuse, are read first,
 * so a refusal is always based on a read made after the request arrived, or on a count made in the
 * same batch. In the steady state a batch is one round trip.
 *
 * Under load this turns N reads and N hot-row writes (which serialise on the row lock and the
 * commit) into one statement per key per batch; with no load a request runs alone, one event-loop
 * turn later.
 */
export class VerificationBatcher {
  private queue: Pending[] = [];
  private running = 0;
  private scheduled = false;
  /** Queue length at the last turn, and turns waited, while the next batch gathers. */
  private gathered = 0;
  private waited = 0;
  /** Key hash -> permissions at the last read: a guess for the counting guard, never an answer. */
  private readonly permissionsOf = new Map<string, string[]>();

  constructor(
    private readonly store: KeyStore,
    private readonly now: () => Date,
    /** Batches in flight at once. */
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
    setImmediate(this.gather);
  }

  /**
   * Most of a batch's cost is its commit, whatever its size, so batches are worth growing. Clients
   * answered together come back together, in requests that arrive over a few turns of the event
   * loop; so while the queue grew during the last turn (and for a few turns at most) the batch
   * waits one more. A turn without new requests costs microseconds: with an immediate pending,
   * the loop polls without blocking.
   */
  private readonly gather = (): void => {
    const size = this.queue.length;
    if (size > this.gathered && this.waited < MAX_WAIT_TURNS && size < MAX_BATCH) {
      this.gathered = size;
      this.waited++;
      setImmediate(this.gather);
      return;
    }
    this.scheduled = false;
    this.gathered = 0;
    this.waited = 0;
    void this.run();
  };

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
    const now = this.now();
    const byHash = new Map<string, Pending[]>();
    for (const p of batch) {
      const requests = byHash.get(p.hash);
      if (requests) requests.push(p);
      else byHash.set(p.hash, [p]);
    }
    const known: Group[] = [];
    const unknown: string[] = [];
    for (const [hash, requests] of byHash) {
      const permissions = this.permissionsOf.get(hash);
      if (permissions && requests.some((p) => holds(permissions, p.needed))) known.push({ hash, permissions, requests });
      else unknown.push(hash);
    }
    await Promise.all([this.count(known, now), unknown.length > 0 ? this.readAndCount(unknown, byHash, now) : undefined]);
  }

  private async readAndCount(hashes: string[], byHash: Map<string, Pending[]>, now: Date): Promise<void> {
    const records = new Map((await this.store.findKeysByHash(hashes)).map((r) => [r.keyHash, r]));
    const groups: Group[] = [];
    for (const hash of hashes) {
      const requests = byHash.get(hash)!;
      const record = records.get(hash);
      const failure = stateRefusal(record, now);
      if (failure) {
        this.permissionsOf.delete(hash);
        for (const p of requests) p.resolve({ valid: false, code: failure });
        continue;
      }
      this.remember(hash, record!.permissions);
      if (requests.some((p) => holds(record!.permissions, p.needed))) groups.push({ hash, permissions: record!.permissions, requests });
      else for (const p of requests) p.resolve(INSUFFICIENT);
    }
    await this.count(groups, now);
  }

  private async count(groups: Group[], now: Date): Promise<void> {
    if (groups.length === 0) return;
    const counted = await this.store.recordKeyUses(
      groups.map((g) => ({ keyHash: g.hash, permissions: g.permissions, count: g.requests.filter((p) => holds(g.permissions, p.needed)).length })),
      now,
    );
    groups.forEach((group, i) => {
      const key = counted[i];
      if (key) {
        // The count proved the key active, unexpired and holding these permissions just now.
        const valid: VerifyOutcome = { valid: true, ...key, permissions: group.permissions };
        for (const p of group.requests) p.resolve(holds(group.permissions, p.needed) ? valid : INSUFFICIENT);
        return;
      }
      // Revoked, updated, expired or removed since the permissions were read: decide on a fresh read.
      this.permissionsOf.delete(group.hash);
      for (const p of group.requests) {
        if (++p.attempts >= VERIFY_ATTEMPTS) p.reject(new ApiError('SERVICE_UNAVAILABLE', 'The key changed repeatedly during verification; retry'));
        else this.queue.push(p);
      }
    });
  }

  private remember(hash: string, permissions: string[]): void {
    // Forgetting every guess at once costs one extra read per key; evicting the oldest one at a
    // time would walk the Map over every slot freed before it, on each new key once full.
    if (this.permissionsOf.size >= MAX_REMEMBERED && !this.permissionsOf.has(hash)) this.permissionsOf.clear();
    this.permissionsOf.set(hash, permissions);
  }
}

function holds(permissions: string[], needed: string[]): boolean {
  return needed.every((p) => permissions.includes(p));
}

function stateRefusal(record: ApiKeyRecord | undefined, now: Date): VerifyFailureCode | null {
  if (!record) return 'NOT_FOUND';
  if (!record.isActive) return 'REVOKED';
  if (isExpired(record.expiresAt, now)) return 'EXPIRED';
  return null;
}
