import { randomUUID } from 'node:crypto';
import { ApiError, MESSAGES, keyLimitMessage } from './errors.js';
import { expiresAtFor, generateRawKey, hashKey, keyPrefixOf, RAW_KEY_PATTERN, type ExpiresIn } from './keys.js';
import { PermissionSet, invalidPermissionsMessage } from './permissions.js';
import type { ApiKeyRecord, AuditAction, AuditEntry, AuditLevel, KeyStore, KeyStoreTx, Owner } from './store/types.js';
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
  now?: () => Date;
}

export interface AuditPageResult {
  entries: AuditEntry[];
  /** Whether older entries follow the last one of the page. */
  more: boolean;
}

const NOT_FOUND: VerifyOutcome = Object.freeze({ valid: false, code: 'NOT_FOUND' });

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

  constructor(options: KeyServiceOptions) {
    this.store = options.store;
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
    return this.store.listKeys(owner);
  }

  /**
   * Writes the counts of every verification this process answered so far, so that what it answers
   * next shows them. When they cannot be written (reported, and kept for the next attempt) the answer
   * shows the counts as stored rather than failing.
   */
  private async settleCounts(): Promise<void> {
    await this.verifier.settle().catch(() => {});
  }

  async create(owner: Owner, input: { name: string; permissions: string[]; expiresIn: ExpiresIn }): Promise<{ record: ApiKeyRecord; rawKey: string }> {
    const permissions = this.normalise(input.permissions, true);
    const rawKey = generateRawKey();
    const now = this.now();
    const record: ApiKeyRecord = {
      id: randomUUID(),
      userId: owner.userId,
      organizationId: owner.organizationId,
      name: input.name,
      keyHash: hashKey(rawKey),
      keyPrefix: keyPrefixOf(rawKey),
      permissions,
      lastUsed: null,
      expiresAt: expiresAtFor(input.expiresIn, now),
      isActive: true,
      requestCount: 0,
      createdAt: now.toISOString(),
    };
    await this.store.transaction(async (tx) => {
      // The count and the insert must not interleave with another creation for the same owner.
      await tx.lockOwner(owner);
      if ((await tx.countActiveKeys(owner)) >= this.maxActive) {
        throw new ApiError('CONFLICT', keyLimitMessage(this.maxActive));
      }
      await tx.insertKey(record);
      await this.audit(tx, owner, 'API_KEY_CREATE', 'INFO', `key named ${record.name} created`, record.id, now);
    });
    return { record, rawKey };
  }

  async update(
    owner: Owner,
    id: string,
    input: { name: string; permissions: string[]; expiresIn?: ExpiresIn | undefined },
  ): Promise<ApiKeyRecord> {
    const permissions = this.normalise(input.permissions, false);
    if (!UUID.test(id)) throw new ApiError('NOT_FOUND', MESSAGES.activeKeyNotFound);
    // The updated key is answered with its counts.
    await this.settleCounts();
    return this.store.transaction(async (tx) => {
      const before = await tx.findOwnedKey(owner, id);
      if (!before || !before.isActive) throw new ApiError('NOT_FOUND', MESSAGES.activeKeyNotFound);
      const now = this.now();
      const after = await tx.updateKey(id, {
        name: input.name,
        permissions,
        ...(input.expiresIn !== undefined ? { expiresAt: expiresAtFor(input.expiresIn, now) } : {}),
      });
      await this.audit(tx, owner, 'API_KEY_UPDATE', 'WARNING', `key named ${before.name} updated`, id, now);
      return after;
    });
  }

  async revoke(owner: Owner, id: string): Promise<void> {
    if (!UUID.test(id)) throw new ApiError('NOT_FOUND', MESSAGES.keyNotFound);
    await this.store.transaction(async (tx) => {
      const key = await tx.findOwnedKey(owner, id);
      if (!key) throw new ApiError('NOT_FOUND', MESSAGES.keyNotFound);
      if (key.isActive) await tx.updateKey(id, { isActive: false });
      // Revoking a revoked key answers and audits exactly like the first time.
      await this.audit(tx, owner, 'API_KEY_REVOKE', 'WARNING', `key named ${key.name} revoked`, id, this.now());
    });
  }

  async remove(owner: Owner, id: string): Promise<void> {
    if (!UUID.test(id)) throw new ApiError('NOT_FOUND', MESSAGES.keyNotFound);
    await this.store.transaction(async (tx) => {
      const key = await tx.findOwnedKey(owner, id);
      if (!key) throw new ApiError('NOT_FOUND', MESSAGES.keyNotFound);
      if (key.isActive) throw new ApiError('CONFLICT', MESSAGES.revokeBeforeRemove);
      await tx.deleteKey(id);
      await this.audit(tx, owner, 'API_KEY_REMOVE', 'WARNING', `revoked key named ${key.name} permanently removed`, id, this.now());
    });
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

  private audit(tx: KeyStoreTx, owner: Owner, action: AuditAction, level: AuditLevel, message: string, apiKeyId: string, at: Date): Promise<void> {
    return tx.insertAudit({
      id: randomUUID(),
      category: 'AUTH',
      action,
      level,
      message,
      userId: owner.userId,
      organizationId: owner.organizationId,
      meta: { apiKeyId },
      createdAt: at.toISOString(),
    });
  }
}
