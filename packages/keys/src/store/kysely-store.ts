import { sql, type CompiledQuery, type Compilable, type Expression, type Kysely, type QueryResult, type SqlBool, type Transaction } from 'kysely';
import type { Database } from './migrations.js';
import type {
  ApiKeyChanges,
  ApiKeyRecord,
  AuditAction,
  AuditEntry,
  AuditPage,
  AuditQuery,
  Dialect,
  CountedKey,
  KeyStore,
  KeyUse,
  KeySpend,
  KeyUseTally,
  KeyStoreTx,
  Owner,
  RefillInterval,
  SpendDecision,
} from './types.js';

/** What differs between the dialects once the queries are shared. */
export interface DialectHooks {
  dialect: Dialect;
  /** How a boolean is bound (SQLite has no boolean type). */
  bool(value: boolean): number | boolean;
  /** Row locks (`for update`) exist on PostgreSQL; SQLite write transactions already lock the file. */
  rowLocks: boolean;
  lockOwner(trx: Transaction<Database>, owner: Owner): Promise<void>;
  /** `key_hash` is one of the hashes bound to `list` (one parameter, so one statement text). */
  hashIn(list: string): Expression<SqlBool>;
  /** How a list of hashes is bound to the parameter of {@link hashIn}. */
  hashList(hashes: string[]): unknown;
  /**
   * How the counting statements of one batch run: in one transaction (SQLite: one write lock, one
   * commit), or side by side as separate statements (PostgreSQL: each locks one row, so processes
   * counting the same keys in another order cannot deadlock).
   */
  countInOneTransaction: boolean;
  /**
   * Lets a counting statement commit without waiting for its WAL flush (PostgreSQL): a commit that
   * waits for the disk costs milliseconds, and the count only feeds `requestCount`/`lastUsed`.
   */
  relaxedCountCommit: boolean;
  /**
   * Verification batches counting at once. PostgreSQL: each waits on a round trip, so a few in
   * flight overlap those waits (+30 % verifications/s at 8 clients, no gain past three). SQLite:
   * one, its calls are synchronous.
   */
  verifyBatchesInFlight: number;
  /**
   * A counter the database moves on every commit made by another connection (SQLite's
   * `data_version`); null where there is none.
   */
  externalVersion: (() => number) | null;
}

const KEY_COLUMNS = [
  'id',
  'user_id',
  'organization_id',
  'name',
  'key_hash',
  'key_prefix',
  'permissions',
  'last_used',
  'expires_at',
  'is_active',
  'request_count',
  'created_at',
  'meta',
  'ratelimit_limit',
  'ratelimit_duration_ms',
  'ratelimit_window_start',
  'ratelimit_window_used',
  'remaining',
  'refill_interval',
  'refill_amount',
  'refilled_at',
  'rolled_from',
  'replaced_by',
] as const;

const AUDIT_COLUMNS = ['seq', 'id', 'category', 'action', 'level', 'message', 'user_id', 'organization_id', 'meta', 'created_at'] as const;

interface KeyRow {
  id: string;
  user_id: string;
  organization_id: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  permissions: string;
  last_used: string | Date | null;
  expires_at: string | Date | null;
  is_active: number | boolean;
  request_count: number | string;
  created_at: string | Date;
  meta: string | null;
  ratelimit_limit: number | string | null;
  ratelimit_duration_ms: number | string | null;
  ratelimit_window_start: number | string | null;
  ratelimit_window_used: number | string;
  remaining: number | string | null;
  refill_interval: string | null;
  refill_amount: number | string | null;
  refilled_at: string | Date | null;
  rolled_from: string | null;
  replaced_by: string | null;
}

interface AuditRow {
  seq: number | string;
  id: string;
  category: string;
  action: string;
  level: string;
  message: string;
  user_id: string;
  organization_id: string;
  meta: string | Record<string, unknown>;
  created_at: string | Date;
}

function iso(value: string | Date): string;
function iso(value: string | Date | null): string | null;
function iso(value: string | Date | null): string | null {
  if (value === null) return null;
  return typeof value === 'string' ? value : value.toISOString();
}

/** PostgreSQL bigint arrives as a string; every count and time here stays far below 2^53. */
function num(value: number | string): number;
function num(value: number | string | null): number | null;
function num(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}

function metaOf(text: string | null): Record<string, unknown> | null {
  return text === null ? null : (JSON.parse(text) as Record<string, unknown>);
}

function toKey(row: KeyRow): ApiKeyRecord {
  const window = num(row.ratelimit_window_start);
  return {
    id: row.id,
    userId: row.user_id,
    organizationId: row.organization_id,
    name: row.name,
    keyHash: row.key_hash,
    keyPrefix: row.key_prefix,
    permissions: JSON.parse(row.permissions) as string[],
    lastUsed: iso(row.last_used),
    expiresAt: iso(row.expires_at),
    isActive: Boolean(row.is_active),
    requestCount: num(row.request_count),
    createdAt: iso(row.created_at),
    meta: metaOf(row.meta),
    ratelimit:
      row.ratelimit_limit === null || row.ratelimit_duration_ms === null
        ? null
        : { limit: num(row.ratelimit_limit), durationMs: num(row.ratelimit_duration_ms) },
    ratelimitWindow: window === null ? null : { start: window, used: num(row.ratelimit_window_used) },
    remaining: num(row.remaining),
    refill:
      row.refill_interval === null || row.refill_amount === null
        ? null
        : { interval: row.refill_interval as RefillInterval, amount: num(row.refill_amount) },
    refilledAt: iso(row.refilled_at),
    rolledFrom: row.rolled_from,
    replacedBy: row.replaced_by,
  };
}

type CountedRow = Pick<KeyRow, 'id' | 'user_id' | 'organization_id' | 'expires_at' | 'meta'>;

function toCounted({ rows }: { rows: CountedRow[] }): CountedKey | null {
  const row = rows[0];
  if (!row) return null;
  return { id: row.id, userId: row.user_id, organizationId: row.organization_id, expiresAt: iso(row.expires_at), meta: metaOf(row.meta) };
}

/** The columns of the changes to a key's settings (the counters are written by spendKeyUses). */
function settingColumns(changes: ApiKeyChanges, bool: (value: boolean) => number | boolean) {
  const { ratelimit, ratelimitWindow, refill } = changes;
  return {
    ...(changes.name !== undefined ? { name: changes.name } : {}),
    ...(changes.permissions !== undefined ? { permissions: JSON.stringify(changes.permissions) } : {}),
    ...(changes.expiresAt !== undefined ? { expires_at: changes.expiresAt } : {}),
    ...(changes.isActive !== undefined ? { is_active: bool(changes.isActive) } : {}),
    ...(changes.meta !== undefined ? { meta: changes.meta === null ? null : JSON.stringify(changes.meta) } : {}),
    ...(ratelimit !== undefined ? { ratelimit_limit: ratelimit?.limit ?? null, ratelimit_duration_ms: ratelimit?.durationMs ?? null } : {}),
    ...(ratelimitWindow !== undefined
      ? { ratelimit_window_start: ratelimitWindow?.start ?? null, ratelimit_window_used: ratelimitWindow?.used ?? 0 }
      : {}),
    ...(changes.remaining !== undefined ? { remaining: changes.remaining } : {}),
    ...(refill !== undefined ? { refill_interval: refill?.interval ?? null, refill_amount: refill?.amount ?? null } : {}),
    ...(changes.refilledAt !== undefined ? { refilled_at: changes.refilledAt } : {}),
    ...(changes.replacedBy !== undefined ? { replaced_by: changes.replacedBy } : {}),
  };
}

/** The counters a limited key's verifications spent (see KeyStore.spendKeyUses). */
function spendColumns(record: ApiKeyRecord, spend: KeySpend) {
  return {
    // Under the lock the stored values are the ones just read: plain assignments are exact.
    // never: the column type allows additions only (DbCount), never a plain value.
    request_count: sql<never>`request_count + ${spend.uses}`,
    ...(spend.uses > 0 && (record.lastUsed === null || record.lastUsed < spend.at) ? { last_used: spend.at } : {}),
    ...(spend.credit ? { remaining: spend.credit.remaining, refilled_at: spend.credit.refilledAt } : {}),
    ...(spend.window ? { ratelimit_window_start: spend.window.start, ratelimit_window_used: spend.window.used } : {}),
  };
}

function toAudit(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    category: row.category as 'AUTH',
    action: row.action as AuditAction,
    level: row.level as AuditEntry['level'],
    message: row.message,
    userId: row.user_id,
    organizationId: row.organization_id,
    meta: typeof row.meta === 'string' ? (JSON.parse(row.meta) as Record<string, unknown>) : row.meta,
    createdAt: iso(row.created_at),
  };
}

const SLOT = '\u0000slot:';

/** A named placeholder for {@link prepare}. */
function slot(name: string): string {
  return SLOT + name;
}

/**
 * Compiles a query once and returns a binder that only swaps its parameters, so the hot path skips
 * building and compiling the query; the SQL text stays identical, which lets the drivers reuse one
 * prepared statement.
 */
function prepare<A extends Record<string, unknown>>(query: Compilable<unknown>): (args: A) => CompiledQuery {
  const compiled = query.compile();
  type Slot = { kind: 'arg'; name: string } | { kind: 'fixed'; value: unknown };
  const slots = compiled.parameters.map((p): Slot =>
    typeof p === 'string' && p.startsWith(SLOT) ? { kind: 'arg', name: p.slice(SLOT.length) } : { kind: 'fixed', value: p },
  );
  return (args) => ({
    ...compiled,
    parameters: slots.map((s) => (s.kind === 'arg' ? args[s.name] : s.value)),
  });
}

/** Counts can be written out of order (batches in flight, processes); last use only moves forward. */
function lastUsedForward(at: string) {
  return sql<string>`case when last_used is null or last_used < ${at} then ${at} else last_used end`;
}

export class KyselyKeyStore implements KeyStore {
  readonly dialect: Dialect;
  readonly verifyBatchesInFlight: number;
  private readonly findByHashes: (args: { hashes: unknown }) => CompiledQuery;
  private readonly countUses: (args: { hash: string; now: string; permissions: string; count: number }) => CompiledQuery;
  private readonly addUses: (args: { hash: string; lastUsed: string; count: number }) => CompiledQuery;
  readonly keysVersion: (() => number) | null;
  /** Bumped after each transaction of this store, and whenever the external version moved. */
  private version = 0;
  private seenExternal = NaN;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly hooks: DialectHooks,
  ) {
    this.dialect = hooks.dialect;
    this.verifyBatchesInFlight = hooks.verifyBatchesInFlight;
    this.findByHashes = prepare(db.selectFrom('api_keys').select(KEY_COLUMNS).where(hooks.hashIn(slot('hashes'))));
    const counting = hooks.relaxedCountCommit
      ? // set_config(..., true) lasts until the end of this statement's own transaction only.
        db.updateTable('api_keys').from(sql`(select set_config('synchronous_commit', 'off', true))`.as('relaxed'))
      : db.updateTable('api_keys');
    this.countUses = prepare(
      counting
        .set({
          request_count: sql`request_count + ${slot('count')}`,
          last_used: lastUsedForward(slot('now')),
        })
        .where('key_hash', '=', slot('hash'))
        .where('is_active', '=', hooks.bool(true))
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', slot('now'))]))
        .where('permissions', '=', slot('permissions'))
        // A limit is spent under a lock that this statement does not take (spendKeyUses).
        .where('ratelimit_limit', 'is', null)
        .where('remaining', 'is', null)
        // The answer to a counted verification, read under the same row lock as the count.
        .returning(['id', 'user_id', 'organization_id', 'expires_at', 'meta']),
    );
    this.addUses = prepare(
      counting
        .set({ request_count: sql`request_count + ${slot('count')}`, last_used: lastUsedForward(slot('lastUsed')) })
        .where('key_hash', '=', slot('hash')),
    );
    const external = hooks.externalVersion;
    this.keysVersion = external
      ? () => {
          const seen = external();
          if (seen !== this.seenExternal) {
            this.seenExternal = seen;
            this.version++;
          }
          return this.version;
        }
      : null;
  }

  /** The SQL text of the per-verification statements, for drivers that prepare them natively. */
  hotStatements(): string[] {
    return [this.findByHashes({ hashes: [] }).sql, this.countUses({ hash: '', now: '', permissions: '', count: 0 }).sql];
  }

  async transaction<T>(work: (tx: KeyStoreTx) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction().execute((trx) => work(new KyselyTx(trx, this.hooks)));
    } finally {
      // After the commit (or rollback), before the caller can answer: a decision made from here on
      // reads the keys again.
      this.version++;
    }
  }

  async listKeys(owner: Owner): Promise<ApiKeyRecord[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select(KEY_COLUMNS)
      .where('organization_id', '=', owner.organizationId)
      .where('user_id', '=', owner.userId)
      .orderBy('created_at', 'desc')
      .orderBy('seq', 'desc')
      .execute();
    return rows.map((r) => toKey(r as KeyRow));
  }

  async getKey(owner: Owner, id: string): Promise<ApiKeyRecord | null> {
    const row = await this.db
      .selectFrom('api_keys')
      .select(KEY_COLUMNS)
      .where('id', '=', id)
      .where('organization_id', '=', owner.organizationId)
      .where('user_id', '=', owner.userId)
      .executeTakeFirst();
    return row ? toKey(row as KeyRow) : null;
  }

  async findKeyById(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.db.selectFrom('api_keys').select(KEY_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row ? toKey(row as KeyRow) : null;
  }

  async findKeysByHash(keyHashes: string[]): Promise<ApiKeyRecord[]> {
    if (keyHashes.length === 0) return [];
    const { rows } = await this.db.executeQuery<KeyRow>(this.findByHashes({ hashes: this.hooks.hashList(keyHashes) }));
    return rows.map(toKey);
  }

  async recordKeyUses(uses: KeyUse[], now: Date): Promise<Array<CountedKey | null>> {
    const at = now.toISOString();
    const results = await this.runCounting<CountedRow>(
      uses.map((u) => this.countUses({ hash: u.keyHash, now: at, permissions: JSON.stringify(u.permissions), count: u.count })),
    );
    return results.map(toCounted);
  }

  async spendKeyUses<T>(keyHashes: string[], decide: (keyHash: string, record: ApiKeyRecord | null) => SpendDecision<T>): Promise<T[]> {
    const spendOne = async (trx: Transaction<Database>, hash: string): Promise<T> => {
      let q = trx.selectFrom('api_keys').select(KEY_COLUMNS).where('key_hash', '=', hash);
      if (this.hooks.rowLocks) q = q.forUpdate();
      const row = await q.executeTakeFirst();
      const record = row ? toKey(row as KeyRow) : null;
      const { result, spend } = decide(hash, record);
      if (record && spend) await trx.updateTable('api_keys').set(spendColumns(record, spend)).where('id', '=', record.id).execute();
      return result;
    };
    // Not this.transaction(): only counters change, so the keys' decisions kept elsewhere stay good.
    if (this.hooks.countInOneTransaction) {
      return this.db.transaction().execute(async (trx) => {
        const out: T[] = [];
        for (const hash of keyHashes) out.push(await spendOne(trx, hash));
        return out;
      });
    }
    // One row lock per transaction: processes spending the same keys in another order cannot deadlock.
    return Promise.all(keyHashes.map((hash) => this.db.transaction().execute((trx) => spendOne(trx, hash))));
  }

  async addKeyUses(tallies: KeyUseTally[]): Promise<void> {
    await this.runCounting(tallies.map((t) => this.addUses({ hash: t.keyHash, lastUsed: t.lastUsed, count: t.count })));
  }

  /** Counting statements, one per key, run as the dialect wants them (see `countInOneTransaction`). */
  private async runCounting<R>(queries: CompiledQuery[]): Promise<Array<QueryResult<R>>> {
    if (this.hooks.countInOneTransaction && queries.length > 1) {
      return this.db.transaction().execute(async (trx) => {
        const out: Array<QueryResult<R>> = [];
        for (const q of queries) out.push(await trx.executeQuery<R>(q));
        return out;
      });
    }
    return Promise.all(queries.map((q) => this.db.executeQuery<R>(q)));
  }

  async listAuditLogs(query: AuditQuery): Promise<AuditPage> {
    let q = this.db.selectFrom('audit_logs').select(AUDIT_COLUMNS).where('organization_id', '=', query.organizationId);
    if (query.action !== undefined) q = q.where('action', '=', query.action);
    if (query.before !== undefined) {
      // The cursor is a record of the caller's organization; anything else would leak or mislead.
      const cursor = await this.db
        .selectFrom('audit_logs')
        .select('seq')
        .where('id', '=', query.before)
        .where('organization_id', '=', query.organizationId)
        .executeTakeFirst();
      if (!cursor) return { unknownCursor: true };
      q = q.where('seq', '<', cursor.seq);
    }
    // One row beyond the page tells whether another page follows.
    const rows = (await q.orderBy('seq', 'desc').limit(query.limit + 1).execute()) as AuditRow[];
    return { entries: rows.slice(0, query.limit).map(toAudit), more: rows.length > query.limit };
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}

class KyselyTx implements KeyStoreTx {
  constructor(
    private readonly trx: Transaction<Database>,
    private readonly hooks: DialectHooks,
  ) {}

  lockOwner(owner: Owner): Promise<void> {
    return this.hooks.lockOwner(this.trx, owner);
  }

  async countActiveKeys(owner: Owner): Promise<number> {
    const row = await this.trx
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('organization_id', '=', owner.organizationId)
      .where('user_id', '=', owner.userId)
      .where('is_active', '=', this.hooks.bool(true))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insertKey(r: ApiKeyRecord): Promise<void> {
    await this.trx
      .insertInto('api_keys')
      .values({
        id: r.id,
        user_id: r.userId,
        organization_id: r.organizationId,
        name: r.name,
        key_hash: r.keyHash,
        key_prefix: r.keyPrefix,
        permissions: JSON.stringify(r.permissions),
        last_used: r.lastUsed,
        expires_at: r.expiresAt,
        is_active: this.hooks.bool(r.isActive),
        request_count: r.requestCount,
        created_at: r.createdAt,
        meta: r.meta === null ? null : JSON.stringify(r.meta),
        ratelimit_limit: r.ratelimit?.limit ?? null,
        ratelimit_duration_ms: r.ratelimit?.durationMs ?? null,
        ratelimit_window_start: r.ratelimitWindow?.start ?? null,
        ratelimit_window_used: r.ratelimitWindow?.used ?? 0,
        remaining: r.remaining,
        refill_interval: r.refill?.interval ?? null,
        refill_amount: r.refill?.amount ?? null,
        refilled_at: r.refilledAt,
        rolled_from: r.rolledFrom,
        replaced_by: r.replacedBy,
      })
      .execute();
  }

  async findOwnedKey(owner: Owner, id: string): Promise<ApiKeyRecord | null> {
    let q = this.trx
      .selectFrom('api_keys')
      .select(KEY_COLUMNS)
      .where('id', '=', id)
      .where('organization_id', '=', owner.organizationId)
      .where('user_id', '=', owner.userId);
    if (this.hooks.rowLocks) q = q.forUpdate();
    const row = await q.executeTakeFirst();
    return row ? toKey(row as KeyRow) : null;
  }

  async updateKey(id: string, changes: ApiKeyChanges): Promise<ApiKeyRecord> {
    const row = await this.trx
      .updateTable('api_keys')
      .set(settingColumns(changes, this.hooks.bool))
      .where('id', '=', id)
      .returning(KEY_COLUMNS)
      .executeTakeFirstOrThrow();
    return toKey(row as KeyRow);
  }

  async deleteKey(id: string): Promise<void> {
    await this.trx.deleteFrom('api_keys').where('id', '=', id).execute();
  }

  async insertAudit(e: AuditEntry): Promise<void> {
    await this.trx
      .insertInto('audit_logs')
      .values({
        id: e.id,
        category: e.category,
        action: e.action,
        level: e.level,
        message: e.message,
        user_id: e.userId,
        organization_id: e.organizationId,
        meta: JSON.stringify(e.meta),
        created_at: e.createdAt,
      })
      .execute();
  }
}
