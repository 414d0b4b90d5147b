/**
 * Verifications of keys with a rate limit or a usage limit. Their counters live in the key's row
 * and nowhere else: a batch's requests for such a key are decided on the row read under its lock,
 * and what they spent is written before the lock is released (KeyStore.spendKeyUses). No process
 * keeps a limit in memory, so any number of processes sharing one database hold one limit exactly,
 * and a use is counted once. Keys without limits never come here: they keep the batched counting
 * of counting-verifier.ts and deferred-verifier.ts.
 */
import { creditAt, rateLimitState, usedInWindow } from './limits.js';
import type { ApiKeyRecord, KeySpend, KeyStore, SpendDecision } from './store/types.js';
import { holds, INSUFFICIENT, REFUSALS, stateRefusal, validOutcome, type Pending, type VerifyOutcome } from './verifier.js';

/**
 * Decides, in arrival order, requests for one key that need these permissions. A request is
 * refused, in this order, for the key's state (NOT_FOUND, REVOKED, EXPIRED), missing permissions,
 * an exhausted usage limit (USAGE_EXCEEDED: the lasting condition is named first), then a full
 * window (RATE_LIMITED). A refused request spends nothing; a valid one spends one of each limit.
 */
export function decideLimitedUses(record: ApiKeyRecord | null, needs: string[][], now: Date): SpendDecision<VerifyOutcome[]> {
  const refusal = stateRefusal(record, now);
  if (refusal || !record) return { result: needs.map(() => REFUSALS.get(refusal ?? 'NOT_FOUND')!), spend: null };
  const at = now.getTime();
  const { ratelimit } = record;
  const credit = creditAt(record, now);
  let remaining = credit.remaining;
  const window = ratelimit ? usedInWindow(ratelimit, record.ratelimitWindow, at) : null;
  const valid = validOutcome(record);
  let uses = 0;

  // What the limits stand at once this request is decided (each answer carries its own).
  const withState = <O extends VerifyOutcome>(outcome: O): O => {
    const out: O = { ...outcome };
    if (remaining !== null) out.remaining = remaining;
    if (ratelimit && window) out.ratelimit = rateLimitState(ratelimit, window);
    return out;
  };
  const result = needs.map((needed): VerifyOutcome => {
    if (!holds(record.permissions, needed)) return INSUFFICIENT;
    if (remaining !== null && remaining <= 0) return withState({ valid: false, code: 'USAGE_EXCEEDED' });
    if (ratelimit && window && window.used >= ratelimit.limit) return withState({ valid: false, code: 'RATE_LIMITED' });
    uses++;
    if (remaining !== null) remaining--;
    if (window) window.used++;
    return withState(valid);
  });
  if (uses === 0) return { result, spend: null };
  const spend: KeySpend = { uses, at: now.toISOString() };
  if (remaining !== null) spend.credit = { remaining, refilledAt: credit.refilledAt };
  if (window) spend.window = window;
  return { result, spend };
}

/**
 * Decides and answers the requests of each limited key (grouped by key hash) under the key's lock.
 * Resolves with the records as they were read, for the caller's guesses about keys.
 */
export async function spendLimitedUses(store: KeyStore, groups: Map<string, Pending[]>, clock: () => Date): Promise<Map<string, ApiKeyRecord | null>> {
  const seen = new Map<string, ApiKeyRecord | null>();
  const hashes = [...groups.keys()];
  const answers = await store.spendKeyUses(hashes, (hash, record) => {
    seen.set(hash, record);
    // The time is read under the lock: a decision that waited for it must not count its uses in a
    // window (or before a refill) that the decision before it has already left behind.
    return decideLimitedUses(
      record,
      groups.get(hash)!.map((p) => p.needed),
      clock(),
    );
  });
  hashes.forEach((hash, i) => groups.get(hash)!.forEach((p, j) => p.resolve(answers[i]![j]!)));
  return seen;
}
