import { randomUUID } from 'node:crypto';
import { ApiError, MESSAGES, invalidFields, keyLimitMessage } from './errors.js';
import { expiresAtFor, generateRawKey, hashKey, isExpired, keyPrefixOf, RAW_KEY_PATTERN, type ExpiresIn } from './keys.js';
import { creditAt } from './limits.js';
import { PermissionSet, invalidPermissionsMessage } from './permissions.js';
import { REFILL_NEEDS_REMAINING } from './schemas.js';
import type {
  ApiKeyChanges,
  ApiKeyRecord,
  AuditAction,
  AuditEntry,
  AuditLevel,
  KeyStore,
  KeyStoreTx,
  Owner,
  RateLimit,
  Refill,
} from './store/types.js';
import { CountingVerifier } from './counting-verifier.js';
import { DeferredCountVerifier } from './deferred-verifier.js';
import type { Verifier, VerifyOutcome } from './verifier.js';

export type { VerifyOutcome };

export interface KeyServiceOptions {
  store: KeyStore;
  permissions: PermissionSet;
  maxActiveKeysPerOwner: number;
  /**
   * How long a verification's count may wait in memory before it is written; 0 writes it before
   * the answer leaves. See docs/keys.md, "Counting verifications".
   */
  countFlushMs: number;
  /** A background write of verification counts failed (they are kept and written later). */
  onCountWriteError?: (err: unknown, uses: number) => void;
  /** The audit record of a denied attempt could not be written (the 404 still goes out). */
  onAuditFailure?: (err: unknown) => void;
  now?: () => Date;
}

export interface AuditPageResult {
  entries: AuditEntry[];
  /** Whether older entries follow the last one of the page. */
  more: boolean;
}

const NOT_FOUND: VerifyOutcome = Object.freeze({ valid: false, code: 'NOT_FOUND' });

/**
 * The settings of issue 16, as create and update take them. On update, undefined keeps the stored
 * value and null removes it.
 */
export interface KeySettings {
  ratelimit?: RateLimit | null | undefined;
  remaining?: number | null | undefined;
  refill?: Refill | null | undefined;
  meta?: Record<string, unknown> | null | undefined;
}

/** The settings a request named, for its audit record (only those it named). */
function namedSettings(input: KeySettings): Record<string, unknown> | undefined {
  const named = Object.fromEntries(
    (['ratelimit', 'remaining', 'refill', 'meta'] as const).filter((k) => input[k] !== undefined).map((k) => [k, input[k]]),
  );
  return Object.keys(named).length > 0 ? named : undefined;
}

/** A key as a verification at `now` would find it: a refill that is due shows as done. */
function asOf(record: ApiKeyRecord, now: Date): ApiKeyRecord {
  const credit = creditAt(record, now);
  return credit.remaining === record.remaining && credit.refilledAt === record.refilledAt ? record : { ...record, ...credit };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The rules of the key service: ownership, normalisation, limits, the audit trail and the
 * verification state machine. Every mutation and its audit record share one transaction.
 */
export class KeyService {
  private readonly store: KeyStore;
  readonly permissions: PermissionSet;
  private readonly maxActive: number;
  private readonly now: () => Date;
  private readonly verifier: Verifier;
  private readonly onAuditFailure: ((err: unknown) => void) | undefined;

  constructor(options: KeyServiceOptions) {
    this.store = options.store;
    this.onAuditFailure = options.onAuditFailure;
    this.permissions = options.permissions;
    this.maxActive = options.maxActiveKeysPerOwner;
    this.now = options.now ?? (() => new Date());
    this.verifier =
      options.countFlushMs > 0
        ? new DeferredCountVerifier(this.store, this.now, {
            flushMs: options.countFlushMs,
            onWriteError: options.onCountWriteError ?? (() => {}),
          })
        : new CountingVerifier(this.store, this.now);
  }

  /** Writes the verification counts still held in memory. */
  close(): Promise<void> {
    return this.verifier.close();
  }

  /** Throws when the database does not answer. */
  async health(): Promise<{ database: KeyStore['dialect'] }> {
    await this.store.ping();
    return { database: this.store.dialect };
  }

  async list(owner: Owner): Promise<ApiKeyRecord[]> {
    await this.settleCounts();
    const now = this.now();
    return (await this.store.listKeys(owner)).map((r) => asOf(r, now));
  }

  async get(owner: Owner, id: string): Promise<ApiKeyRecord> {
    if (!UUID.test(id)) throw new ApiError('NOT_FOUND', MESSAGES.keyNotFound);
    await this.settleCounts();
    const record = await this.store.getKey(owner, id);
    if (!record) {
      await this.auditDenied(owner, id, 'read');
      throw new ApiError('NOT_FOUND', MESSAGES.keyNotFound);
    }
    return asOf(record, this.now());
  }

  /**
   * Runs a change of the key `id`; when it answers 404 because the key is not the caller's (another
   * user's or another organization's, or none), the attempt is audited before the 404 goes out.
   */
  private async audited<T>(owner: Owner, id: string, verb: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'NOT_FOUND' && UUID.test(id)) await this.auditDenied(owner, id, verb);
      throw err;
    }
  }

  /**
   * Audits a denied attempt on a key that exists and is someone else's, in the key's organization,
   * naming who tried. Nothing is written for an id that is nobody's (a refused mutation leaves no
   * record, as before), nor in the caller's organization: its records would tell its admins which
   * ids exist elsewhere. A failure to write it is reported, not answered.
   */
  private async auditDenied(owner: Owner, id: string, verb: string): Promise<void> {
    try {
      const target = await this.store.findKeyById(id);
      if (!target || (target.userId === owner.userId && target.organizationId === owner.organizationId)) return;
      const other = target.organizationId !== owner.organizationId ? 'a caller of another organization' : 'another user of the organization';
      const now = this.now();
      await this.store.transaction((tx) =>
        this.audit(tx, { userId: target.userId, organizationId: target.organizationId }, 'API_KEY_ACCESS_DENIED', 'WARNING',
          `denied: ${other} tried to ${verb} key named ${target.name}`, id, now,
          { attempt: verb, byUserId: owner.userId, byOrganizationId: owner.organizationId }),
      );
    } catch (err) {
      this.onAuditFailure?.(err);
    }
  }

  /**
   * Writes the counts of every verification this process answered so far, so that what it answers
   * next shows them. When they cannot be written (reported, and kept for the next attempt) the answer
   * shows the counts as stored rather than failing.
   */
  private async settleCounts(): Promise<void> {
    await this.verifier.settle().catch(() => {});
  }

  async create(
    owner: Owner,
    input: { name: string; permissions: string[]; expiresIn: ExpiresIn } & KeySettings,
  ): Promise<{ record: ApiKeyRecord; rawKey: string }> {
    const permissions = this.normalise(input.permissions, true);
    const now = this.now();
    const remaining = input.remaining ?? null;
    const { record, rawKey } = newKey(owner, now, {
      name: input.name,
      permissions,
      expiresAt: expiresAtFor(input.expiresIn, now),
      meta: input.meta ?? null,
      ratelimit: input.ratelimit ?? null,
      remaining,
      refill: input.refill ?? null,
      refilledAt: remaining === null ? null : now.toISOString(),
      rolledFrom: null,
    });
    await this.store.transaction(async (tx) => {
      await this.insertWithinLimit(tx, owner, record);
      await this.audit(tx, owner, 'API_KEY_CREATE', 'INFO', `key named ${record.name} created`, record.id, now, { settings: namedSettings(input) });
    });
    return { record, rawKey };
  }

  /**
   * A new key in place of an active one: a new secret with the same name, permissions, expiry, meta
   * and limits (the usage limit carries over what is left; the rate-limit window starts empty). The
   * old key stays valid for `overlapSeconds` (never longer than it would have), then answers EXPIRED.
   */
  async roll(owner: Owner, id: string, overlapSeconds: number): Promise<{ record: ApiKeyRecord; rawKey: string; previous: ApiKeyRecord }> {
    if (!UUID.test(id)) throw new ApiError('NOT_FOUND', MESSAGES.activeKeyNotFound);
    // The old key is answered with its counts.
    await this.settleCounts();
    const now = this.now();
    const rolled = await this.audited(owner, id, 'roll', () => this.store.transaction(async (tx) => {
      // The row lock makes a second roll of the same key wait, then find it replaced.
      const old = await tx.findOwnedKey(owner, id);
      if (!old || !old.isActive) throw new ApiError('NOT_FOUND', MESSAGES.activeKeyNotFound);
      if (old.replacedBy !== null) throw new ApiError('CONFLICT', MESSAGES.alreadyRolled);
      if (isExpired(old.expiresAt, now)) throw new ApiError('CONFLICT', MESSAGES.expiredRoll);
      const { record, rawKey } = newKey(owner, now, {
        name: old.name,
        permissions: old.permissions,
        expiresAt: old.expiresAt,
        meta: old.meta,
        ratelimit: old.ratelimit,
        ...creditAt(old, now),
        refill: old.refill,
        rolledFrom: old.id,
      });
      await this.insertWithinLimit(tx, owner, record);
      const overlapEnd = now.getTime() + overlapSeconds * 1000;
      const expiresAt = old.expiresAt !== null && Date.parse(old.expiresAt) < overlapEnd ? old.expiresAt : new Date(overlapEnd).toISOString();
      const previous = await tx.updateKey(old.id, { expiresAt, replacedBy: record.id });
      await this.audit(tx, owner, 'API_KEY_ROLL', 'WARNING', `key named ${old.name} rolled`, old.id, now, { replacedBy: record.id, overlapSeconds, expiresAt });
      await this.audit(tx, owner, 'API_KEY_CREATE', 'INFO', `key named ${record.name} created`, record.id, now, { rolledFrom: old.id });
      return { record, rawKey, previous };
    }));
    return { ...rolled, previous: asOf(rolled.previous, now) };
  }

  /** Inserts a key unless its owner is at the active-key limit (both under the owner's lock). */
  private async insertWithinLimit(tx: KeyStoreTx, owner: Owner, record: ApiKeyRecord): Promise<void> {
    // The count and the insert must not interleave with another creation for the same owner.
    await tx.lockOwner(owner);
    if ((await tx.countActiveKeys(owner)) >= this.maxActive) {
      throw new ApiError('CONFLICT', keyLimitMessage(this.maxActive));
    }
    await tx.insertKey(record);
  }

  async update(
    owner: Owner,
    id: string,
    input: { name: string; permissions: string[]; expiresIn?: ExpiresIn | undefined } & KeySettings,
  ): Promise<ApiKeyRecord> {
    const permissions = this.normalise(input.permissions, false);
    if (!UUID.test(id)) throw new ApiError('NOT_FOUND', MESSAGES.activeKeyNotFound);
    // The updated key is answered with its counts.
    await this.settleCounts();
    const after = await this.audited(owner, id, 'update', () => this.store.transaction(async (tx) => {
      const before = await tx.findOwnedKey(owner, id);
      if (!before || !before.isActive) throw new ApiError('NOT_FOUND', MESSAGES.activeKeyNotFound);
      const now = this.now();
      const changes: ApiKeyChanges = {
        name: input.name,
        permissions,
        ...(input.expiresIn !== undefined ? { expiresAt: expiresAtFor(input.expiresIn, now) } : {}),
        ...settingChanges(before, input, now),
      };
      const updated = await tx.updateKey(id, changes);
      await this.audit(tx, owner, 'API_KEY_UPDATE', 'WARNING', `key named ${before.name} updated`, id, now, { settings: namedSettings(input) });
      return updated;
    }));
    return asOf(after, this.now());
  }

  async revoke(owner: Owner, id: string): Promise<void> {
    if (!UUID.test(id)) throw new ApiError('NOT_FOUND', MESSAGES.keyNotFound);
    await this.audited(owner, id, 'revoke', () => this.store.transaction(async (tx) => {
      const key = await tx.findOwnedKey(owner, id);
      if (!key) throw new ApiError('NOT_FOUND', MESSAGES.keyNotFound);
      if (key.isActive) await tx.updateKey(id, { isActive: false });
      // Revoking a revoked key answers and audits exactly like the first time.
      await this.audit(tx, owner, 'API_KEY_REVOKE', 'WARNING', `key named ${key.name} revoked`, id, this.now());
    }));
  }

  async remove(owner: Owner, id: string): Promise<void> {
    if (!UUID.test(id)) throw new ApiError('NOT_FOUND', MESSAGES.keyNotFound);
    await this.audited(owner, id, 'remove', () => this.store.transaction(async (tx) => {
      const key = await tx.findOwnedKey(owner, id);
      if (!key) throw new ApiError('NOT_FOUND', MESSAGES.keyNotFound);
      if (key.isActive) throw new ApiError('CONFLICT', MESSAGES.revokeBeforeRemove);
      await tx.deleteKey(id);
      await this.audit(tx, owner, 'API_KEY_REMOVE', 'WARNING', `revoked key named ${key.name} permanently removed`, id, this.now());
    }));
  }

  /**
   * find by hash -> active? -> expired? -> permissions -> count the use. Verifications arriving
   * together share their reads and their counting writes; every answer rests on the key as it stood
   * after the request arrived. The count is written before the answer ({@link CountingVerifier}) or
   * right behind it ({@link DeferredCountVerifier}).
   */
  verify(key: string, requested: string[] | undefined): Promise<VerifyOutcome> {
    // Not async: the batcher's promise is handed on as it is, one promise fewer per verification.
    let needed: string[];
    try {
      needed = requested && requested.length > 0 ? this.normalise(requested, false) : [];
    } catch (err) {
      return Promise.reject(err);
    }
    if (!RAW_KEY_PATTERN.test(key)) return Promise.resolve(NOT_FOUND);
    return this.verifier.submit(hashKey(key), needed);
  }

  async auditLogs(organizationId: string, query: { action?: AuditAction | undefined; limit: number; before?: string | undefined }): Promise<AuditPageResult> {
    const page = await this.store.listAuditLogs({ organizationId, action: query.action, limit: query.limit, before: query.before });
    if ('unknownCursor' in page) throw new ApiError('BAD_REQUEST', MESSAGES.unknownAuditCursor);
    return page;
  }

  private normalise(submitted: string[], withAllowed: boolean): string[] {
    const result = this.permissions.normalise(submitted);
    if (result.ok) return result.permissions;
    throw new ApiError(
      'INVALID_PERMISSIONS',
      invalidPermissionsMessage(result.invalid),
      withAllowed ? { allowedPermissions: [...this.permissions.allowed] } : undefined,
    );
  }

  private audit(
    tx: KeyStoreTx,
    owner: Owner,
    action: AuditAction,
    level: AuditLevel,
    message: string,
    apiKeyId: string,
    at: Date,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    // Entries left undefined are left out, so a mutation without new settings is audited as before.
    const meta: Record<string, unknown> = { apiKeyId };
    for (const [k, v] of Object.entries(extra)) if (v !== undefined) meta[k] = v;
    return tx.insertAudit({
      id: randomUUID(),
      category: 'AUTH',
      action,
      level,
      message,
      userId: owner.userId,
      organizationId: owner.organizationId,
      meta,
      createdAt: at.toISOString(),
    });
  }
}

type NewKeyFields = Pick<
  ApiKeyRecord,
  'name' | 'permissions' | 'expiresAt' | 'meta' | 'ratelimit' | 'remaining' | 'refill' | 'refilledAt' | 'rolledFrom'
>;

/** A new active key with a new secret, never used. */
function newKey(owner: Owner, now: Date, fields: NewKeyFields): { record: ApiKeyRecord; rawKey: string } {
  const rawKey = generateRawKey();
  const record: ApiKeyRecord = {
    id: randomUUID(),
    userId: owner.userId,
    organizationId: owner.organizationId,
    name: fields.name,
    keyHash: hashKey(rawKey),
    keyPrefix: keyPrefixOf(rawKey),
    permissions: fields.permissions,
    lastUsed: null,
    expiresAt: fields.expiresAt,
    isActive: true,
    requestCount: 0,
    createdAt: now.toISOString(),
    meta: fields.meta,
    ratelimit: fields.ratelimit,
    ratelimitWindow: null,
    remaining: fields.remaining,
    refill: fields.refill,
    refilledAt: fields.refilledAt,
    rolledFrom: fields.rolledFrom,
    replacedBy: null,
  };
  return { record, rawKey };
}

/**
 * What an update's settings change. A refill needs a usage limit to set back, so one left without
 * it is refused as the body's validation error would be. Setting `remaining` dates the next refill
 * from now; a new window length starts counting afresh (the old window's uses mean nothing in it).
 */
function settingChanges(before: ApiKeyRecord, input: KeySettings, now: Date): ApiKeyChanges {
  const remaining = input.remaining !== undefined ? input.remaining : before.remaining;
  const refill = input.refill !== undefined ? input.refill : before.refill;
  if (refill !== null && remaining === null) {
    throw invalidFields([{ path: 'refill', code: 'custom', message: REFILL_NEEDS_REMAINING }]);
  }
  const changes: ApiKeyChanges = {};
  if (input.meta !== undefined) changes.meta = input.meta;
  if (input.ratelimit !== undefined) {
    changes.ratelimit = input.ratelimit;
    if (input.ratelimit === null || input.ratelimit.durationMs !== before.ratelimit?.durationMs) changes.ratelimitWindow = null;
  }
  if (input.remaining !== undefined) {
    changes.remaining = input.remaining;
    changes.refilledAt = input.remaining === null ? null : now.toISOString();
  }
  if (input.refill !== undefined) changes.refill = input.refill;
  return changes;
}
