/**
 * The arithmetic of limits (limits.ts) and the decision on one locked key (spend.ts), at the
 * boundaries the HTTP suites cannot wait for: window edges, clocks that disagree, month ends.
 */
import { describe, expect, it } from 'vitest';
import { creditAt, intervalStart, usedInWindow, windowStart } from '../src/limits.js';
import { decideLimitedUses } from '../src/spend.js';
import type { ApiKeyRecord } from '../src/store/types.js';

const key = (fields: Partial<ApiKeyRecord>): ApiKeyRecord => ({
  id: 'k',
  userId: 'u',
  organizationId: 'o',
  name: 'n',
  keyHash: 'h',
  keyPrefix: 'p',
  permissions: ['drawings:read'],
  lastUsed: null,
  expiresAt: null,
  isActive: true,
  requestCount: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  meta: null,
  ratelimit: null,
  ratelimitWindow: null,
  remaining: null,
  refill: null,
  refilledAt: null,
  rolledFrom: null,
  replacedBy: null,
  ...fields,
});

describe('rate-limit windows', () => {
  it('are aligned to the epoch', () => {
    expect(windowStart(12_345, 1000)).toBe(12_000);
    expect(windowStart(12_000, 1000)).toBe(12_000);
    expect(windowStart(11_999, 1000)).toBe(11_000);
  });

  it('count on within a window, start afresh after it, and never move back', () => {
    const rl = { limit: 5, durationMs: 1000 };
    expect(usedInWindow(rl, null, 12_500)).toEqual({ start: 12_000, used: 0 });
    expect(usedInWindow(rl, { start: 12_000, used: 3 }, 12_999)).toEqual({ start: 12_000, used: 3 });
    expect(usedInWindow(rl, { start: 12_000, used: 3 }, 13_000)).toEqual({ start: 13_000, used: 0 });
    // A process whose clock is behind finds a later window stored: it counts there.
    expect(usedInWindow(rl, { start: 13_000, used: 5 }, 12_999)).toEqual({ start: 13_000, used: 5 });
  });
});

describe('refill intervals', () => {
  it('start at midnight UTC and on the first of the month UTC', () => {
    const at = new Date('2026-03-31T23:59:59.999Z');
    expect(intervalStart('daily', at).toISOString()).toBe('2026-03-31T00:00:00.000Z');
    expect(intervalStart('monthly', at).toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(intervalStart('monthly', new Date('2026-04-01T00:00:00.000Z')).toISOString()).toBe('2026-04-01T00:00:00.000Z');
  });

  it('set remaining back to amount once per interval, lazily', () => {
    const refill = { interval: 'daily' as const, amount: 10 };
    const now = new Date('2026-05-02T08:00:00.000Z');
    expect(creditAt({ remaining: 3, refill, refilledAt: '2026-05-02T01:00:00.000Z' }, now)).toEqual({ remaining: 3, refilledAt: '2026-05-02T01:00:00.000Z' });
    // Idle for days: refilled once, dated at today's start.
    expect(creditAt({ remaining: 0, refill, refilledAt: '2026-04-28T09:00:00.000Z' }, now)).toEqual({ remaining: 10, refilledAt: '2026-05-02T00:00:00.000Z' });
    // Without a refill, or without a usage limit, nothing moves.
    expect(creditAt({ remaining: 0, refill: null, refilledAt: '2026-04-28T09:00:00.000Z' }, now)).toEqual({ remaining: 0, refilledAt: '2026-04-28T09:00:00.000Z' });
    expect(creditAt({ remaining: null, refill: null, refilledAt: null }, now)).toEqual({ remaining: null, refilledAt: null });
  });
});

describe('deciding the requests for one locked key', () => {
  const now = new Date('2026-06-15T12:00:00.250Z');

  it('refuses in order (state, permissions, usage, rate), spends only on valid answers', () => {
    const k = key({ remaining: 2, ratelimit: { limit: 3, durationMs: 1000 } });
    const { result, spend } = decideLimitedUses(k, [['drawings:read'], ['plots:create'], [], [], []], now);
    expect(result.map((r) => (r.valid ? `valid ${r.remaining}/${r.ratelimit!.remaining}` : `${r.code} ${r.remaining ?? ''}`))).toEqual([
      'valid 1/2',
      'INSUFFICIENT_PERMISSIONS ',
      'valid 0/1',
      'USAGE_EXCEEDED 0',
      'USAGE_EXCEEDED 0',
    ]);
    expect(spend).toEqual({
      uses: 2,
      at: now.toISOString(),
      credit: { remaining: 0, refilledAt: null },
      window: { start: Date.parse('2026-06-15T12:00:00.000Z'), used: 2 },
    });
    expect(result[0]!.ratelimit!.reset).toBe(Date.parse('2026-06-15T12:00:01.000Z'));
  });

  it('writes nothing when every request is refused, and answers a revoked or missing key plainly', () => {
    const full = key({ ratelimit: { limit: 1, durationMs: 1000 }, ratelimitWindow: { start: Date.parse('2026-06-15T12:00:00.000Z'), used: 1 } });
    expect(decideLimitedUses(full, [[], []], now)).toEqual({
      result: [0, 1].map(() => ({ valid: false, code: 'RATE_LIMITED', ratelimit: { limit: 1, remaining: 0, reset: Date.parse('2026-06-15T12:00:01.000Z') } })),
      spend: null,
    });
    expect(decideLimitedUses(key({ isActive: false, remaining: 1 }), [[]], now)).toEqual({ result: [{ valid: false, code: 'REVOKED' }], spend: null });
    expect(decideLimitedUses(null, [[], []], now)).toEqual({ result: [{ valid: false, code: 'NOT_FOUND' }, { valid: false, code: 'NOT_FOUND' }], spend: null });
  });
});
