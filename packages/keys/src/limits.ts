/**
 * The arithmetic of a key's limits, apart from where it runs: a rate limit counted in fixed windows,
 * and a usage limit (`remaining`) that may be refilled at each interval. Every function is pure;
 * spend.ts runs them on a key read under its lock, so their answers are exact across processes.
 */
import type { ApiKeyRecord, RateLimit, RateLimitWindow, Refill, RefillInterval } from './store/types.js';

export const MIN_RATELIMIT_DURATION_MS = 1000;
export const MAX_RATELIMIT_DURATION_MS = 30 * 24 * 60 * 60 * 1000;
export const MAX_RATELIMIT_LIMIT = 1_000_000_000;

export function hasLimits(record: Pick<ApiKeyRecord, 'ratelimit' | 'remaining'>): boolean {
  return record.ratelimit !== null || record.remaining !== null;
}

/**
 * Windows are fixed and aligned to the Unix epoch: the window holding `at` starts at the last
 * multiple of `durationMs`. Every process computes the same window from the clock alone, and the
 * window's count is one number in the key's row.
 */
export function windowStart(at: number, durationMs: number): number {
  return at - (at % durationMs);
}

/**
 * The window a use at `at` counts in, with the uses already counted there (0 once the stored window
 * is over). A stored window later than `at`'s (written by a process whose clock is ahead) is kept:
 * windows only move forward, or its uses would be forgotten and the limit overspent.
 */
export function usedInWindow(ratelimit: RateLimit, stored: RateLimitWindow | null, at: number): RateLimitWindow {
  const start = windowStart(at, ratelimit.durationMs);
  if (stored === null || stored.start < start) return { start, used: 0 };
  return { start: stored.start, used: stored.used };
}

/** The start of the refill interval holding `now`: midnight UTC, or the first of the month (UTC). */
export function intervalStart(interval: RefillInterval, now: Date): Date {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  return new Date(interval === 'daily' ? Date.UTC(y, m, now.getUTCDate()) : Date.UTC(y, m, 1));
}

export interface Credit {
  remaining: number | null;
  refilledAt: string | null;
}

/**
 * `remaining` as it stands at `now`. Refills are lazy: nothing runs at the boundary; the first
 * look after it (a verification, or a read of the key) finds the last refill older than the current
 * interval and starts from `amount` again, dated at the interval's start. So every process sees the
 * same value, and a key nobody uses is never written.
 */
export function creditAt(record: { remaining: number | null; refill: Refill | null; refilledAt: string | null }, now: Date): Credit {
  const { remaining, refill, refilledAt } = record;
  if (remaining === null || refill === null) return { remaining, refilledAt };
  const start = intervalStart(refill.interval, now);
  if (refilledAt !== null && Date.parse(refilledAt) >= start.getTime()) return { remaining, refilledAt };
  return { remaining: refill.amount, refilledAt: start.toISOString() };
}

/** The rate-limit part of a verification's answer: what the window allows after this request. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** When the current window ends, in ms since the epoch. */
  reset: number;
}

export function rateLimitState(ratelimit: RateLimit, window: RateLimitWindow): RateLimitState {
  return { limit: ratelimit.limit, remaining: Math.max(0, ratelimit.limit - window.used), reset: window.start + ratelimit.durationMs };
}
