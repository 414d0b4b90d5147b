/**
 * The storage contract. The service layer expresses every rule (limits, audit, state machine); a
 * store only reads and writes rows, and runs a unit of work in one database transaction.
 */

export interface Owner {
  userId: string;
  organizationId: string;
}

/** At most `limit` valid verifications in each window of `durationMs` (see limits.ts). */
export interface RateLimit {
  limit: number;
  durationMs: number;
}

/** The valid verifications counted in the window that starts at `start` (ms since the epoch). */
export interface RateLimitWindow {
  start: number;
  used: number;
}

export const REFILL_INTERVALS = ['daily', 'monthly'] as const;
export type RefillInterval = (typeof REFILL_INTERVALS)[number];

/** `remaining` is set back to `amount` at the start of every interval (UTC). */
export interface Refill {
  interval: RefillInterval;
  amount: number;
}

/** The whole stored record of a key. Timestamps are ISO 8601 strings. */
export interface ApiKeyRecord {
  id: string;
  userId: string;
  organizationId: string;
  name: string;
  keyHash: string;
  keyPrefix: string;
  permissions: string[];
  lastUsed: string | null;
  expiresAt: string | null;
  isActive: boolean;
  requestCount: number;
  createdAt: string;
  /** A JSON object stored with the key; null when it has none. */
  meta: Record<string, unknown> | null;
  ratelimit: RateLimit | null;
  /** Where the rate limit's counting stands; null before the first counted use. */
  ratelimitWindow: RateLimitWindow | null;
  /** Valid verifications left; null for no usage limit. */
  remaining: number | null;
  refill: Refill | null;
  /** When `remaining` was last set or refilled. */
  refilledAt: string | null;
  /** The key this one was rolled from, and the key that replaced it. */
  rolledFrom: string | null;
  replacedBy: string | null;
}

export interface ApiKeyChanges {
  name?: string;
  permissions?: string[];
  expiresAt?: string | null;
  isActive?: boolean;
  meta?: Record<string, unknown> | null;
  ratelimit?: RateLimit | null;
  ratelimitWindow?: RateLimitWindow | null;
  remaining?: number | null;
  refill?: Refill | null;
  refilledAt?: string | null;
  replacedBy?: string;
}

// API_KEY_ACCESS_DENIED: a caller named a key id that is not theirs (another user's, another
// organization's, or none at all).
export const AUDIT_ACTIONS = ['API_KEY_CREATE', 'API_KEY_UPDATE', 'API_KEY_REVOKE', 'API_KEY_REMOVE', 'API_KEY_ROLL', 'API_KEY_ACCESS_DENIED'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
export type AuditLevel = 'INFO' | 'WARNING';

export interface AuditEntry {
  id: string;
  category: 'AUTH';
  action: AuditAction;
  level: AuditLevel;
  message: string;
  userId: string;
  organizationId: string;
  meta: Record<string, unknown>;
  createdAt: string;
}

export interface AuditQuery {
  organizationId: string;
  action?: AuditAction | undefined;
  limit: number;
  /** Only entries older than the entry with this id (the cursor), which must be in the organization. */
  before?: string | undefined;
}

export type AuditPage =
  | {
      entries: AuditEntry[];
      /** Whether older entries follow the last one returned. */
      more: boolean;
    }
  | { unknownCursor: true };

/** Uses of one key to count, valid only while the key still holds `permissions`. */
export interface KeyUse {
  keyHash: string;
  permissions: string[];
  count: number;
}

/** Uses of one key answered valid, to be added to its counts after the answers left. */
export interface KeyUseTally {
  keyHash: string;
  count: number;
  /** The time of the latest of these uses. */
  lastUsed: string;
}

/** The identity of a key as it stood when a use of it was counted. */
export interface CountedKey {
  id: string;
  userId: string;
  organizationId: string;
  expiresAt: string | null;
  meta: Record<string, unknown> | null;
}

/** What verifications of a limited key spent, written back under the lock they were decided in. */
export interface KeySpend {
  /** Valid uses: added to the request count; last use moves forward to `at`. */
  uses: number;
  at: string;
  /** Usage-limited keys: what is left, and when it was last refilled. */
  credit?: { remaining: number; refilledAt: string | null };
  /** Rate-limited keys: the window after these uses. */
  window?: RateLimitWindow;
}

/** A decision on one key, made on the key as it stands under its lock. */
export interface SpendDecision<T> {
  result: T;
  /** Null when nothing is to be written (every request refused). */
  spend: KeySpend | null;
}

/** Operations available inside one transaction. */
export interface KeyStoreTx {
  /**
   * Serialises writers of one owner's keys until the transaction ends, so that a count followed by
   * an insert cannot be interleaved with another transaction doing the same.
   */
  lockOwner(owner: Owner): Promise<void>;
  countActiveKeys(owner: Owner): Promise<number>;
  insertKey(record: ApiKeyRecord): Promise<void>;
  /** The owner's key with this id, locked against concurrent change until the transaction ends. */
  findOwnedKey(owner: Owner, id: string): Promise<ApiKeyRecord | null>;
  updateKey(id: string, changes: ApiKeyChanges): Promise<ApiKeyRecord>;
  deleteKey(id: string): Promise<void>;
  insertAudit(entry: AuditEntry): Promise<void>;
}

export type Dialect = 'sqlite' | 'postgres';

export interface KeyStore {
  readonly dialect: Dialect;
  /** How many verification batches may count at once (see VerificationBatcher). */
  readonly verifyBatchesInFlight: number;
  /** Runs `work` in one transaction: everything it wrote commits together or not at all. */
  transaction<T>(work: (tx: KeyStoreTx) => Promise<T>): Promise<T>;
  /** The owner's keys, newest first. */
  listKeys(owner: Owner): Promise<ApiKeyRecord[]>;
  /** The owner's key with this id (revoked or not), or null. */
  getKey(owner: Owner, id: string): Promise<ApiKeyRecord | null>;
  /** The key with this id whoever owns it, or null: for auditing a denied attempt, never for an answer. */
  findKeyById(id: string): Promise<ApiKeyRecord | null>;
  /** The keys with these hashes (in no particular order), read from the database on every call. */
  findKeysByHash(keyHashes: string[]): Promise<ApiKeyRecord[]>;
  /**
   * Adds each use's count to its key's request count and moves last use forward to `now`, each in
   * one guarded statement: only if the stored key is still active, unexpired at `now`, holds the
   * same permissions as the use and has neither a rate limit nor a usage limit (those are spent
   * with {@link spendKeyUses}). The answer says, use by use, what the key was when it was counted,
   * or null when it was not (missing, or changed since the caller looked): such a use must be
   * decided again on fresh data.
   */
  recordKeyUses(uses: KeyUse[], now: Date): Promise<Array<CountedKey | null>>;
  /**
   * For each hash, reads the key under a lock held until what `decide` returns is written and
   * committed: a row lock on PostgreSQL, the database's write lock on SQLite. So no two decisions,
   * in this process or another, ever start from the same state of a key, and limits kept in the
   * row are spent exactly. Only the counters are written (request count, last use, remaining, the
   * rate-limit window); answers are in the order of the hashes.
   */
  spendKeyUses<T>(keyHashes: string[], decide: (keyHash: string, record: ApiKeyRecord | null) => SpendDecision<T>): Promise<T[]>;
  /**
   * Adds each tally to its key's request count and moves last use forward, whatever the key's state
   * is now: the uses were valid when they were answered. A key removed since is skipped.
   */
  addKeyUses(tallies: KeyUseTally[]): Promise<void>;
  /**
   * A number that moves whenever a key may have changed since the last call: a commit by any other
   * connection or process, or a transaction of this store. Null where the database has no cheap way
   * to tell (PostgreSQL would need a round trip, the price of reading the keys themselves).
   */
  readonly keysVersion: (() => number) | null;
  listAuditLogs(query: AuditQuery): Promise<AuditPage>;
  /** Throws when the database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
