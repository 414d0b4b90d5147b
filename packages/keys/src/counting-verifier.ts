import { ApiError } from './errors.js';
import { hasLimits } from './limits.js';
import { spendLimitedUses } from './spend.js';
import type { ApiKeyRecord, KeyStore } from './store/types.js';
import { byKey, holds, INSUFFICIENT, stateRefusal, validOutcome, VerificationBatcher, type Pending, type VerifyOutcome } from './verifier.js';

/** A verification is decided again when its key changes between the look and the count. */
const VERIFY_ATTEMPTS = 5;
/** Keys whose permissions are remembered; beyond this the guesses start over from fresh reads. */
const MAX_REMEMBERED = 10_000;

/** The requests of one batch for one key, to be counted as if the key holds `permissions`. */
interface Group {
  hash: string;
  permissions: string[];
  requests: Pending[];
}

/** A key as last read: its permissions, and whether it has a limit (then it is spent, not counted). */
interface Guess {
  permissions: string[];
  limited: boolean;
}

/**
 * Counting before answering: group commit for verifications. A batch takes every request queued so
 * far, and for each key it names sends one guarded statement that counts its valid requests
 * (`request_count + n`, only if the key is still active, unexpired and holds the permissions the
 * requests were decided on) and returns the key's identity; the answers leave once that count has
 * committed. So every answer rests on the database as it stood after the request arrived, a key
 * revoked or changed by any process is refused on the next request, and N valid answers mean exactly
 * N more in `requestCount`, visible to every process the moment they are answered.
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
 *
 * Keys with a rate limit or a usage limit are decided under their lock instead (spend.ts); the
 * counting statement refuses to count them, so a limit added since the last read sends the key
 * there on the next try.
 */
export class CountingVerifier extends VerificationBatcher {
  /** Key hash -> the key at the last read: a guess for the counting guard, never an answer. */
  private readonly guesses = new Map<string, Guess>();

  constructor(
    private readonly store: KeyStore,
    private readonly now: () => Date,
  ) {
    super(store.verifyBatchesInFlight);
  }

  protected async decide(batch: Pending[]): Promise<void> {
    const now = this.now();
    const byHash = byKey(batch);
    const known: Group[] = [];
    const unknown: string[] = [];
    const limited = new Map<string, Pending[]>();
    for (const [hash, requests] of byHash) {
      const guess = this.guesses.get(hash);
      if (guess?.limited) limited.set(hash, requests);
      else if (guess && requests.some((p) => holds(guess.permissions, p.needed))) known.push({ hash, permissions: guess.permissions, requests });
      else unknown.push(hash);
    }
    await Promise.all([
      this.count(known, now),
      unknown.length > 0 ? this.readAndCount(unknown, byHash, now) : undefined,
      limited.size > 0 ? this.spend(limited, now) : undefined,
    ]);
  }

  private async spend(groups: Map<string, Pending[]>, now: Date): Promise<void> {
    for (const [hash, record] of await spendLimitedUses(this.store, groups, this.now)) {
      if (stateRefusal(record, now)) this.guesses.delete(hash);
      else this.remember(hash, record!);
    }
  }

  private async readAndCount(hashes: string[], byHash: Map<string, Pending[]>, now: Date): Promise<void> {
    const records = new Map((await this.store.findKeysByHash(hashes)).map((r) => [r.keyHash, r]));
    const groups: Group[] = [];
    const limited = new Map<string, Pending[]>();
    for (const hash of hashes) {
      const requests = byHash.get(hash)!;
      const record = records.get(hash);
      const failure = stateRefusal(record, now);
      if (failure) {
        this.guesses.delete(hash);
        for (const p of requests) p.resolve({ valid: false, code: failure });
        continue;
      }
      this.remember(hash, record!);
      if (hasLimits(record!)) limited.set(hash, requests);
      else if (requests.some((p) => holds(record!.permissions, p.needed))) groups.push({ hash, permissions: record!.permissions, requests });
      else for (const p of requests) p.resolve(INSUFFICIENT);
    }
    await Promise.all([this.count(groups, now), limited.size > 0 ? this.spend(limited, now) : undefined]);
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
        // The count proved the key active, unexpired, unlimited and holding these permissions just now.
        const valid: VerifyOutcome = validOutcome({ ...key, permissions: group.permissions });
        for (const p of group.requests) p.resolve(holds(group.permissions, p.needed) ? valid : INSUFFICIENT);
        return;
      }
      // Revoked, updated, expired, limited or removed since the key was read: decide on a fresh read.
      this.guesses.delete(group.hash);
      for (const p of group.requests) {
        if (++p.attempts >= VERIFY_ATTEMPTS) p.reject(new ApiError('SERVICE_UNAVAILABLE', 'The key changed repeatedly during verification; retry'));
        else this.enqueue(p);
      }
    });
  }

  private remember(hash: string, record: ApiKeyRecord): void {
    // Forgetting every guess at once costs one extra read per key; evicting the oldest one at a
    // time would walk the Map over every slot freed before it, on each new key once full.
    if (this.guesses.size >= MAX_REMEMBERED && !this.guesses.has(hash)) this.guesses.clear();
    this.guesses.set(hash, { permissions: record.permissions, limited: hasLimits(record) });
  }
}
