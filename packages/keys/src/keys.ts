import { hash, randomBytes } from 'node:crypto';

/** Raw keys: `lwk_` + 48 lowercase hex (24 random bytes), 52 characters in all. */
export const RAW_KEY_PREFIX = 'lwk_';
export const RAW_KEY_PATTERN = /^lwk_[0-9a-f]{48}$/;

export const EXPIRY_CHOICES = ['never', '30d', '90d', '1y'] as const;
export type ExpiresIn = (typeof EXPIRY_CHOICES)[number];

const DAY_MS = 24 * 60 * 60 * 1000;
const EXPIRY_DAYS: Record<Exclude<ExpiresIn, 'never'>, number> = { '30d': 30, '90d': 90, '1y': 365 };

export function generateRawKey(): string {
  return RAW_KEY_PREFIX + randomBytes(24).toString('hex');
}

export function hashKey(rawKey: string): string {
  // One-shot hashing: no Hash object per call, which matters on the verification path.
  return hash('sha256', rawKey, 'hex');
}

/** The first 12 characters of the raw key followed by `_`. */
export function keyPrefixOf(rawKey: string): string {
  return `${rawKey.slice(0, 12)}_`;
}

/** `expiresAt` for an expiry choice, as an ISO 8601 string; null for `never`. */
export function expiresAtFor(choice: ExpiresIn, now: Date): string | null {
  if (choice === 'never') return null;
  return new Date(now.getTime() + EXPIRY_DAYS[choice] * DAY_MS).toISOString();
}

export function isExpired(expiresAt: string | null, now: Date): boolean {
  return expiresAt !== null && Date.parse(expiresAt) <= now.getTime();
}
