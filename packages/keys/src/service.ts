import { randomUUID } from 'node:crypto';
import { ApiError, MESSAGES, keyLimitMessage } from './errors.js';
import { expiresAtFor, generateRawKey, hashKey, isExpired, keyPrefixOf, RAW_KEY_PATTERN, type ExpiresIn } from './keys.js';
import { PermissionSet, invalidPermissionsMessage } from './permissions.js';
import type { VerifyFailureCode } from './schemas.js';
import type { ApiKeyRecord, AuditAction, AuditEntry, AuditLevel, KeyStore, KeyStoreTx, Owner } from './store/types.js';

export interface KeyServiceOptions {
  store: KeyStore;
  permissions: PermissionSet;
  maxActiveKeysPerOwner: number;
  now?: () => Date;
}

export type VerifyOutcome =
  | { valid: true; id: string; userId: string; organizationId: string; permissions: string[]; expiresAt: string | null }
  | { valid: false; code: VerifyFailureCode };

export interface AuditPageResult {
  entries: AuditEntry[];
  nextCursor: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A verification retries when the key changes between its read and its count. */
const VERIFY_ATTEMPTS = 5;

/**
 * The rules of the key service: ownership, normalisation, limits, the audit trail and the
 * verification state machine. Every mutation and its audit record share one transaction.
 */
export class KeyService {
  private readonly store: KeyStore;
  readonly permissions: PermissionSet;
  private readonly maxActive: number;
  private readonly now: () => Date;

  constructor(options: KeyServiceOptions) {
    this.store = options.store;
    this.permissions = options.permissions;
    this.maxActive = options.maxActiveKeysPerOwner;
    this.now = options.now ?? (() => new Date());
  }

  /** Throws when the database does not answer. */
  async health(): Promise<{ database: KeyStore['dialect'] }> {
    await this.store.ping();
    return { database: this.store.dialect };
  }

  list(owner: Owner): Promise<ApiKeyRecord[]> {
    return this.store.listKeys(owner);
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
   * find by hash -> active? -> expired? -> permissions -> count the use. The count is one guarded
   * UPDATE in the database, so concurrent verifications in any number of processes all add up, and
   * a key revoked between the read and the count is not counted (the decision is taken again).
   */
  async verify(key: string, requested: string[] | undefined): Promise<VerifyOutcome> {
    const needed = requested && requested.length > 0 ? this.normalise(requested, false) : [];
    if (!RAW_KEY_PATTERN.test(key)) return { valid: false, code: 'NOT_FOUND' };
    const keyHash = hashKey(key);
    for (let attempt = 0; attempt < VERIFY_ATTEMPTS; attempt++) {
      const record = await this.store.findKeyByHash(keyHash);
      const now = this.now();
      if (!record) return { valid: false, code: 'NOT_FOUND' };
      if (!record.isActive) return { valid: false, code: 'REVOKED' };
      if (isExpired(record.expiresAt, now)) return { valid: false, code: 'EXPIRED' };
      if (!needed.every((p) => record.permissions.includes(p))) return { valid: false, code: 'INSUFFICIENT_PERMISSIONS' };
      if (await this.store.recordKeyUse(record, now)) {
        return {
          valid: true,
          id: record.id,
          userId: record.userId,
          organizationId: record.organizationId,
          permissions: record.permissions,
          expiresAt: record.expiresAt,
        };
      }
    }
    throw new ApiError('SERVICE_UNAVAILABLE', 'The key changed repeatedly during verification; retry');
  }

  async auditLogs(organizationId: string, query: { action?: AuditAction | undefined; limit: number; before?: string | undefined }): Promise<AuditPageResult> {
    const beforeSeq = query.before === undefined ? undefined : decodeCursor(query.before);
    const page = await this.store.listAuditLogs({ organizationId, action: query.action, limit: query.limit, beforeSeq });
    return { entries: page.entries, nextCursor: page.nextSeq === null ? null : encodeCursor(page.nextSeq) };
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

/**
 * Cursors are opaque to clients: a versioned tag around the entry's insertion position, so the
 * format can change without breaking the contract.
 */
const CURSOR = /^c1\.([1-9]\d{0,15})$/;

export function encodeCursor(seq: number): string {
  return Buffer.from(`c1.${seq}`).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new ApiError('BAD_REQUEST', 'Invalid cursor in before: pass the nextCursor of a previous page');
  return Number(match[1]);
}
