// The session and its dispatcher: documents, the request queue, validation, idempotency, the
// operation records, interactive picks and the change events.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { DispatchOptions, DispatcherApi, OpDef, ProtocolRequest, ProtocolResponse } from './protocol.js';
import { OpError } from './protocol.js';
import type { DocumentApi } from './dxf.js';
import { BudgetError } from './dxf.js';
import { DocStore, redrawScope, summarize, type Diff, type Transaction } from './store/document-store.js';
import { Pending, Reply, type EngineOp, type OpContext } from './ops/types.js';
import { buildCatalogue } from './ops/catalogue.js';
import { stateSnapshot } from './state.js';
import { LIMITS } from './limits.js';
import { fromBudgetError, runMetered } from './budgets.js';
import { Workspace, clip } from './workspace.js';

export { LIMITS };

/** What the graphical mode gives the engine: pick prompts go to the screen. */
export interface GuiBridge {
  /** Shows a pending pick; the GUI later calls `engine.answer(request_id, value)`. */
  prompt(p: PendingPrompt): void;
  /** The prompt ended (answered, cancelled): remove it from the screen. */
  dismiss(requestId: string): void;
}

export interface PendingPrompt {
  request_id: string;
  op: string;
  document_id: number | null;
  /** Op fields (message, count ...). */
  [field: string]: unknown;
}

export interface EngineOptions {
  /** Readiness `version` (the application's version string). */
  appVersion?: string;
  gui?: GuiBridge;
  /** Start without the untitled drawing (graphical mode opening files). */
  empty?: boolean;
  /** The folders clients may name files in (default: the working folder when the engine starts). */
  workspace?: Workspace;
  /**
   * Open drawings holding values that are not numbers (or binary data that is not hex) with the
   * reader's stand-ins, as `convert --recover` writes them, instead of refusing them: for
   * `linework audit`, which lists them as damaged input. Default false.
   */
  acceptDamagedValues?: boolean;
}

export interface EngineEvent {
  seq: number;
  kind: EventKind;
  document_id: number | null;
  version: number | null;
  time: string;
  [field: string]: unknown;
}

export type EventKind =
  | 'changed' | 'undone' | 'redone' | 'document_opened' | 'document_created' | 'document_closed'
  | 'document_activated' | 'document_saved' | 'selection_changed' | 'view_changed'
  | 'operation_pending' | 'operation_completed' | 'operation_cancelled';

export interface OperationRecord {
  request_id: string;
  op: string;
  status: 'pending' | 'completed' | 'failed' | 'cancelled';
  mutates: boolean;
  response?: ProtocolResponse;
  document_id: number | null;
  started: string;
  finished?: string;
  /** What the kept answer weighs against LIMITS.maxRetainedItems. */
  weight?: number;
}

interface PendingEntry {
  record: OperationRecord;
  prompt: PendingPrompt;
  resolve: (r: ProtocolResponse) => void;
  documentId: number | null;
  /** Stops watching the client's signal. */
  unlisten?: () => void;
}

/**
 * Ops that may meet entities an open kept as their bytes (store/lazy.ts): they read records through
 * their fields only (never copy them as data) and change none (`sysvars` changes the header and
 * the session's variables only). The editor's open asks these until and just after its first
 * frame; any other op first has every such entity made a plain record.
 */
const LAZY_SAFE = new Set([
  'display_list', 'document_open', 'document_new', 'ready', 'state', 'capabilities', 'events', 'operation',
  'layout_list', 'layers', 'get_selection', 'sysvars',
]);

/** Fields of a request the dispatcher reads; they never reach an op's schema. */
const PROTOCOL_FIELDS = new Set(['protocol', 'op', 'request_id', 'session_id', 'expected_version', 'token']);


export class Engine implements DispatcherApi {
  readonly catalogue: readonly OpDef[];
  readonly ops: Map<string, EngineOp>;
  readonly sessionId = randomUUID();
  readonly appVersion: string;
  readonly gui: GuiBridge | undefined;
  readonly workspace: Workspace;
  /** See EngineOptions.acceptDamagedValues. */
  readonly acceptDamagedValues: boolean;
  readonly documents = new Map<number, DocStore>();
  readonly closedIds = new Set<number>();
  activeId: number | null = null;
  /**
   * System variables AutoCAD keeps out of the drawing (in the registry, or not saved at all:
   * OFFSETDIST, TRIMMODE, CHAMMODE, HPNAME ...): one value for every drawing of the session.
   */
  readonly sessionVars = new Map<string, string | number | number[]>();
  private nextDocId = 1;
  private untitledCounter = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private opSerial = 0;
  readonly operations = new Map<string, OperationRecord>();
  /** Records in the order they were remembered (from `rememberedHead` on), for eviction. */
  private remembered: (OperationRecord | null)[] = [];
  private rememberedHead = 0;
  /** Sum of the weights of the answers kept (see weightOf). */
  private retained = 0;
  /**
   * Mutations whose answers were let go (past `maxOperations`): id -> op, oldest first, so a late
   * replay is refused as expired instead of running twice.
   */
  private forgotten = new Map<string, string>();
  private pending = new Map<string, PendingEntry>();
  private events: EngineEvent[] = [];
  private eventSeq = 0;
  private listeners = new Set<(e: EngineEvent) => void>();

  constructor(options: EngineOptions = {}, newDoc?: () => DocumentApi) {
    this.appVersion = options.appVersion ?? '0.1.0';
    this.gui = options.gui;
    this.workspace = options.workspace ?? new Workspace([process.cwd()]);
    this.acceptDamagedValues = options.acceptDamagedValues === true;
    const list = buildCatalogue();
    this.ops = new Map(list.map((o) => [o.name, o]));
    this.catalogue = list;
    if (!options.empty && newDoc) {
      const store = this.addDocument(newDoc(), null);
      this.activeId = store.id;
    }
  }

  // ---- documents ---------------------------------------------------------------------------

  get active(): DocStore | null {
    return this.activeId === null ? null : this.documents.get(this.activeId) ?? null;
  }

  /** Adds an opened or new document (not activated). */
  addDocument(doc: DocumentApi, path: string | null, name?: string): DocStore {
    const id = this.nextDocId++;
    const title = name ?? (path ? basename(path) : `Drawing${++this.untitledCounter}.dxf`);
    const store = new DocStore(id, doc, title, path);
    this.documents.set(id, store);
    return store;
  }

  /**
   * Puts back a document of a saved session under its old id, so the ids clients hold stay valid
   * (see session-file.ts). Ids handed out later continue above it.
   */
  restoreDocument(id: number, doc: DocumentApi, name: string, path: string | null): DocStore {
    if (this.documents.has(id)) throw new Error(`document ${id} is already open`);
    const store = new DocStore(id, doc, name, path);
    this.documents.set(id, store);
    this.nextDocId = Math.max(this.nextDocId, id + 1);
    return store;
  }

  /** The next document id and the number of untitled drawings made (saved with the session). */
  get counters(): { nextDocumentId: number; untitled: number } {
    return { nextDocumentId: this.nextDocId, untitled: this.untitledCounter };
  }

  /** Continues a saved session's numbering: a closed document's id is never given again. */
  continueCounters(c: { nextDocumentId: number; untitled: number }): void {
    this.nextDocId = Math.max(this.nextDocId, c.nextDocumentId);
    this.untitledCounter = Math.max(this.untitledCounter, c.untitled);
  }

  activate(id: number): void {
    if (this.activeId === id) return;
    this.activeId = id;
    const s = this.documents.get(id);
    this.emit('document_activated', s ?? null);
  }

  closeDocument(id: number): void {
    this.documents.get(id)?.stopLater();
    this.documents.delete(id);
    this.closedIds.add(id);
    if (this.activeId === id) {
      const ids = [...this.documents.keys()];
      this.activeId = ids.length ? ids[ids.length - 1]! : null;
    }
  }

  /**
   * Runs changes to a document other than the request's own (copy-to target, command line steps)
   * as one undo step of that document; rolls back when fn throws.
   */
  async withTransaction<T>(store: DocStore, op: string, requestId: string | undefined, fn: (tx: Transaction) => T | Promise<T>): Promise<T> {
    const tx = store.begin(op, requestId);
    let out: T;
    let diff: Diff | null;
    try {
      out = await fn(tx);
      diff = store.commit(tx);
    } catch (err) {
      store.rollback(tx);
      throw err;
    }
    if (diff) this.emitDiff('changed', store, diff, requestId);
    return out;
  }

  // ---- events ------------------------------------------------------------------------------

  /** Listens to every event (graphical mode); returns the unsubscribe function. */
  subscribe(fn: (e: EngineEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(kind: EventKind, store: DocStore | null, extra: Record<string, unknown> = {}): EngineEvent {
    const e: EngineEvent = {
      seq: ++this.eventSeq,
      kind,
      document_id: store?.id ?? null,
      version: store?.version ?? null,
      time: isoNow(),
      ...extra,
    };
    this.events.push(e);
    // Trimmed in steps of a tenth: dropping one at a time moves the whole array on every event.
    if (this.events.length > LIMITS.maxEvents * 1.1) this.events.splice(0, this.events.length - LIMITS.maxEvents);
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // a listener's failure is not the request's
      }
    }
    return e;
  }

  /** Events with seq > since (oldest first), at most limit; `next` is the cursor for the next call. */
  eventsSince(since: number, limit: number): { events: EngineEvent[]; next: number; truncated: boolean } {
    const first = this.events[0]?.seq ?? this.eventSeq + 1;
    const truncated = since + 1 < first && this.eventSeq > 0 && since < this.eventSeq;
    const out: EngineEvent[] = [];
    for (const e of this.events) {
      if (e.seq <= since) continue;
      out.push(e);
      if (out.length >= limit) break;
    }
    const next = out.length ? out[out.length - 1]!.seq : Math.max(since, 0) > this.eventSeq ? this.eventSeq : Math.max(since, 0);
    return { events: out, next, truncated };
  }

  get lastEventSeq(): number {
    return this.eventSeq;
  }

  /** Emits the event of a committed diff. */
  emitDiff(kind: 'changed' | 'undone' | 'redone', store: DocStore, diff: Diff, requestId?: string): void {
    const s = summarize(diff, kind === 'undone' ? 'undo' : 'do');
    const counts = 'counts' in s;
    this.emit(kind, store, {
      op: diff.op,
      request_id: requestId ?? diff.request_id ?? null,
      added: counts ? s.added : (s.added as string[]).length,
      updated: counts ? s.updated : (s.updated as string[]).length,
      removed: counts ? s.removed : (s.removed as string[]).length,
      handles: counts ? undefined : s,
      redraw: redrawScope(store, diff),
    });
  }

  // ---- interactive picks ---------------------------------------------------------------------

  /** Answers a pending pick (graphical mode). Returns false when no such pick is pending. */
  answer(requestId: string, result: unknown): boolean {
    const p = this.pending.get(requestId);
    if (!p) return false;
    this.pending.delete(requestId);
    p.unlisten?.();
    const store = p.documentId !== null ? this.documents.get(p.documentId) ?? null : null;
    const res: ProtocolResponse = {
      ok: true, status: 'completed', result, request_id: requestId,
      document_id: p.documentId ?? undefined, version: store?.version, session_id: this.sessionId,
    };
    p.record.status = 'completed';
    p.record.response = res;
    p.record.finished = isoNow();
    this.gui?.dismiss(requestId);
    this.emit('operation_completed', store, { request_id: requestId, op: p.record.op });
    p.resolve(res);
    return true;
  }

  /** Ends a pending pick with code `cancelled` (or `gui_closed`: no editor was there to answer it). */
  cancelPending(requestId: string, reason = 'cancelled by request', code: 'cancelled' | 'gui_closed' = 'cancelled'): boolean {
    const p = this.pending.get(requestId);
    if (!p) return false;
    this.pending.delete(requestId);
    p.unlisten?.();
    const res: ProtocolResponse = {
      ok: false, code, error: `operation ${requestId} (${p.record.op}) was cancelled: ${reason}`,
      status: 'cancelled', request_id: requestId, session_id: this.sessionId, document_id: p.documentId ?? undefined,
    };
    p.record.status = 'cancelled';
    p.record.response = res;
    p.record.finished = isoNow();
    this.gui?.dismiss(requestId);
    const store = p.documentId !== null ? this.documents.get(p.documentId) ?? null : null;
    this.emit('operation_cancelled', store, { request_id: requestId, op: p.record.op });
    p.resolve(res);
    return true;
  }

  pendingIds(): string[] {
    return [...this.pending.keys()];
  }

  /** Pending picks with their prompts (graphical mode shows them). */
  pendingPrompts(): OperationRecord[] {
    return [...this.pending.values()].map((p) => p.record);
  }

  /** The prompt of a pending pick (message, count, types, base ...), in the order they came. */
  promptOf(requestId: string): PendingPrompt | undefined {
    return this.pending.get(requestId)?.prompt;
  }

  /** Every pending prompt, oldest first (a screen that connects late shows them all). */
  prompts(): PendingPrompt[] {
    return [...this.pending.values()].map((p) => p.prompt);
  }

  // ---- dispatch ----------------------------------------------------------------------------

  dispatch(req: ProtocolRequest, options: DispatchOptions = {}): Promise<ProtocolResponse> {
    if (this.queued >= LIMITS.maxQueue) {
      return Promise.resolve(this.failure(req, new OpError('busy', `the dispatcher has ${this.queued} requests waiting; try again later`)));
    }
    this.queued++;
    let later: Promise<ProtocolResponse> | null = null;
    const run = this.queue.then(async () => {
      try {
        const out = await this.runOne(req, options.signal);
        if ('later' in out) later = out.later;
        else return out;
      } catch (err) {
        return this.failure(req, err);
      } finally {
        this.queued--;
      }
      return null;
    });
    this.queue = run.catch(() => undefined);
    return run.then((r) => r ?? later!);
  }

  private failure(req: unknown, err: unknown, store?: DocStore | null): ProtocolResponse {
    const r = (req && typeof req === 'object' ? req : {}) as Record<string, unknown>;
    const e = err instanceof OpError ? err
      : err instanceof BudgetError ? fromBudgetError(err)
      : (err as Error)?.name === 'DxfError' ? new OpError('dxf_error', (err as Error).message)
        : new OpError('internal_error', `internal error: ${(err as Error)?.message ?? String(err)}`);
    // Messages and details quote what the client sent (a layer name, a path): cut to a readable size.
    const res: ProtocolResponse = { ok: false, code: e.code, error: clip(e.message, 2000), status: 'failed', session_id: this.sessionId };
    if (e.details !== undefined) res.details = clipDeep(e.details);
    if (typeof r.request_id === 'string' && r.request_id) res.request_id = r.request_id;
    const s = store === undefined ? this.active : store;
    if (s) {
      res.document_id = s.id;
      res.version = s.version;
    }
    return res;
  }

  /** Runs one request; `later` is the answer of a pick that waits for the user (the queue moves on). */
  private async runOne(raw: ProtocolRequest, signal?: AbortSignal): Promise<ProtocolResponse | { later: Promise<ProtocolResponse> }> {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new OpError('invalid_request', 'a request must be a JSON object with `protocol` 1 and `op`');
    }
    if (raw.protocol !== undefined && raw.protocol !== 1) {
      throw new OpError('unsupported_protocol', `protocol ${JSON.stringify(raw.protocol)} is not supported; send protocol 1`);
    }
    if (typeof raw.op !== 'string' || !raw.op) throw new OpError('invalid_request', 'field `op`: required, the name of an operation');
    const op = this.ops.get(raw.op);
    if (!op) throw new OpError('unknown_op', `unknown operation \`${raw.op}\`; GET /capabilities lists the operations`);
    if (raw.request_id !== undefined && raw.request_id !== null && typeof raw.request_id !== 'string') {
      throw new OpError('invalid_request', 'field `request_id`: expected a string');
    }
    const given = typeof raw.request_id === 'string' && raw.request_id !== '' ? raw.request_id : null;
    // Idempotency: a mutation already answered with this id gets its first answer again.
    if (given && !op.control) {
      const seen = this.operations.get(given);
      if (seen && seen.mutates && seen.op === op.name && seen.status === 'completed' && seen.response) return seen.response;
      if (seen && seen.op !== op.name && seen.mutates && seen.status !== 'failed') {
        throw new OpError('request_id_reused', `request_id ${given} was already used by operation ${seen.op}`);
      }
      if (seen && seen.status === 'pending') {
        throw new OpError('operation_pending', `request_id ${given} is still pending; use operation or cancel`);
      }
      const ran = seen ? undefined : this.forgotten.get(given);
      if (ran !== undefined && op.mutates) {
        throw new OpError(
          'request_id_expired',
          `request_id ${given} already ran (${ran}) more than ${LIMITS.maxOperations} requests ago; its answer is no longer kept and it was not run again (use a new request_id to run it again)`,
          { request_id: given, op: ran },
        );
      }
    }
    const requestId = given ?? `op-${++this.opSerial}`;
    if (raw.session_id !== undefined && raw.session_id !== null && raw.session_id !== this.sessionId) {
      throw new OpError('session_changed', `session_id ${String(raw.session_id)} is not this session (${this.sessionId}); re-read the state`, { session_id: this.sessionId });
    }
    // The addressed document.
    let store: DocStore | null = null;
    const docField = raw.document_id;
    if ((op.addressing ?? 'request') === 'request' && docField !== undefined && docField !== null) {
      const id = typeof docField === 'string' && /^\d+$/.test(docField) ? Number(docField) : docField;
      if (typeof id !== 'number' || !Number.isInteger(id)) throw new OpError('invalid_request', 'field `document_id`: expected an integer');
      store = this.documents.get(id) ?? null;
      if (!store) {
        if (this.closedIds.has(id)) throw new OpError('document_closed', `document ${id} was closed`);
        throw new OpError(this.documents.size ? 'unknown_document' : 'document_required', `no document ${id} is open`);
      }
    } else {
      store = this.active;
    }
    if (op.needsDocument && !store) throw new OpError('document_required', `operation ${op.name} needs an open document; open or create one (POST /documents)`);
    if (raw.expected_version !== undefined && raw.expected_version !== null) {
      const ev = raw.expected_version;
      if (typeof ev !== 'number' || !Number.isInteger(ev)) throw new OpError('invalid_request', 'field `expected_version`: expected an integer');
      const current = store?.version ?? 0;
      if (ev !== current) {
        throw new OpError('stale_state', `expected version ${ev} but document ${store?.id ?? '-'} is at version ${current}; re-read the state`, { version: current, document_id: store?.id ?? null });
      }
    }
    // Input validation.
    const fields: Record<string, unknown> = {};
    for (const k of Object.keys(raw)) if (!PROTOCOL_FIELDS.has(k)) fields[k] = raw[k];
    if ((op.addressing ?? 'request') === 'request' && typeof fields.document_id === 'string' && /^\d+$/.test(fields.document_id)) {
      fields.document_id = Number(fields.document_id);
    }
    const parsed = op.input.safeParse(fields);
    if (!parsed.success) throw invalidRequest(op.name, parsed.error);
    const input = parsed.data as Record<string, unknown>;

    // entities an open kept as their bytes are plain records for every op but a few readers (store/lazy.ts)
    if (!LAZY_SAFE.has(op.name)) for (const s of this.documents.values()) s.materialize();
    const record: OperationRecord = {
      request_id: requestId, op: op.name, status: 'pending', mutates: op.mutates,
      document_id: store?.id ?? null, started: isoNow(),
    };
    if (!op.control) this.remember(record);
    const ctx: OpContext = { engine: this, req: raw, requestId, store, tx: null };
    const useTx = op.mutates && (op.tx ?? 'auto') === 'auto' && store !== null;
    let out: unknown;
    let diff: Diff | null = null;
    try {
      if (useTx) {
        const tx = store!.begin(op.name, requestId);
        ctx.tx = tx;
        try {
          // the commit's checks are part of the request: its deadline covers them
          out = await runMetered(async () => {
            const o = await op.handler(ctx, input);
            diff = store!.commit(tx);
            return o;
          });
        } catch (err) {
          store!.rollback(tx);
          throw err;
        }
      } else {
        out = await runMetered(() => op.handler(ctx, input));
      }
    } catch (err) {
      const res = this.failure({ request_id: requestId }, err, ctx.store ?? this.active);
      if (!given) delete res.request_id;
      record.status = 'failed';
      record.finished = isoNow();
      if (!op.control) this.keep(record, res);
      else record.response = res;
      return res;
    }
    if (diff) this.emitDiff('changed', store!, diff, requestId);

    if (out instanceof Pending) return this.registerPending(op, record, out, ctx, signal);

    const reply = out instanceof Reply ? out : new Reply(out);
    const target = reply.fields.document_id !== undefined ? this.documents.get(reply.fields.document_id) ?? null : ctx.store ?? this.active;
    const res: ProtocolResponse = {
      ok: true,
      status: reply.fields.status ?? 'completed',
      result: reply.result ?? {},
      request_id: requestId,
      document_id: target?.id ?? this.activeId ?? undefined,
      version: target?.version,
      session_id: this.sessionId,
    };
    if (!given) delete res.request_id;
    if (res.document_id === undefined) delete res.document_id;
    if (res.version === undefined) delete res.version;
    if (op.mutates || reply.fields.state) res.state = stateSnapshot(this);
    record.status = 'completed';
    record.document_id = target?.id ?? null;
    record.finished = isoNow();
    // A read's answer is not kept: replays run reads again, and a listing can be large.
    if (!op.control) this.keep(record, op.effect === 'read' ? { ...res, result: undefined } : res);
    return res;
  }

  private registerPending(op: EngineOp, record: OperationRecord, p: Pending, ctx: OpContext, signal?: AbortSignal): ProtocolResponse | { later: Promise<ProtocolResponse> } {
    const documentId = ctx.store?.id ?? null;
    let resolve!: (r: ProtocolResponse) => void;
    const promise = new Promise<ProtocolResponse>((r) => (resolve = r));
    record.status = 'pending';
    const prompt: PendingPrompt = { ...p.prompt, request_id: record.request_id, op: op.name, document_id: documentId };
    const entry: PendingEntry = { record, resolve, documentId, prompt };
    this.pending.set(record.request_id, entry);
    // A client that waits for the answer and goes away takes its pick with it (a pick asked with
    // wait false is polled later, possibly over another connection: it stays).
    if (p.wait && signal) {
      const gone = (): void => void this.cancelPending(record.request_id, 'the client went away');
      if (signal.aborted) queueMicrotask(gone);
      else {
        signal.addEventListener('abort', gone, { once: true });
        entry.unlisten = () => signal.removeEventListener('abort', gone);
      }
    }
    this.emit('operation_pending', ctx.store, { request_id: record.request_id, op: op.name });
    this.gui?.prompt(prompt);
    if (!p.wait) {
      return {
        ok: true, status: 'pending', result: { pending: true, prompt }, request_id: record.request_id,
        document_id: documentId ?? undefined, session_id: this.sessionId,
      };
    }
    return { later: promise };
  }

  private forget(rec: OperationRecord): void {
    this.forgotten.delete(rec.request_id);
    this.forgotten.set(rec.request_id, rec.op);
    // Map keeps insertion order: the first key is the oldest
    if (this.forgotten.size > LIMITS.maxForgottenIds) this.forgotten.delete(this.forgotten.keys().next().value!);
  }

  private remember(rec: OperationRecord): void {
    const before = this.operations.get(rec.request_id);
    if (before) this.retained -= before.weight ?? 0;
    this.operations.set(rec.request_id, rec);
    this.remembered.push(rec);
    this.evict(rec);
  }

  /** Keeps a finished request's answer; the answers kept are bounded in number and in size. */
  private keep(rec: OperationRecord, res: ProtocolResponse): void {
    rec.response = res;
    if (this.operations.get(rec.request_id) !== rec) return;
    rec.weight = weightOf(res);
    this.retained += rec.weight;
    this.evict(rec);
  }

  /**
   * Lets go of the oldest records while more than `maxOperations` are kept or their answers hold
   * more than `maxRetainedItems` list items (1M handles of one entities_create weigh 1M), never
   * `newest`. A mutation let go is remembered by id only, so a late replay answers expired.
   */
  private evict(newest: OperationRecord): void {
    // Oldest first, from a queue of its own: iterating the Map from its start would step over
    // every slot freed by earlier evictions, which made each request cost O(limit) once full.
    let budget = this.remembered.length - this.rememberedHead;
    while ((this.operations.size > LIMITS.maxOperations || this.retained > LIMITS.maxRetainedItems) && budget-- > 0) {
      const old = this.remembered[this.rememberedHead]!;
      if (old === newest) break;
      // the slot lets go of the record at once (the array is compacted only now and then)
      this.remembered[this.rememberedHead++] = null;
      if (this.operations.get(old.request_id) !== old) continue; // superseded by a newer record
      if (old.status === 'pending') this.remembered.push(old); // picks waiting for a user stay
      else {
        this.operations.delete(old.request_id);
        this.retained -= old.weight ?? 0;
        if (old.mutates && old.status === 'completed') this.forget(old);
      }
    }
    if (this.rememberedHead > 4096 && this.rememberedHead * 2 > this.remembered.length) {
      this.remembered = this.remembered.slice(this.rememberedHead);
      this.rememberedHead = 0;
    }
  }
}

/** How much an answer holds: one, plus the items of the lists in its result (handles, entities). */
function weightOf(res: ProtocolResponse): number {
  let w = 1;
  const r = res.result;
  if (r && typeof r === 'object') {
    for (const v of Array.isArray(r) ? [r] : Object.values(r)) if (Array.isArray(v)) w += v.length;
  }
  return w;
}

/** Details of a failure with long strings cut and long lists shortened (they echo client input). */
function clipDeep(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return clip(v, 500);
  if (depth > 6 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const head = v.slice(0, 100).map((x) => clipDeep(x, depth + 1));
    if (v.length > 100) head.push(`… (${v.length - 100} more)`);
    return head;
  }
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[clip(k, 200)] = clipDeep(x, depth + 1);
  return out;
}

let lastMs = -1;
let lastIso = '';
/** The current time as ISO 8601, formatted once per millisecond: every request stamps its record twice. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

function basename(p: string): string {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] || p;
}

/** A zod failure as `invalid_request`, naming the first failing field. */
export function invalidRequest(opName: string, error: z.ZodError): OpError {
  const issues = error.issues.map((i) => ({ path: i.path.map(String).join('.'), code: i.code, message: i.message }));
  const first = issues[0];
  const where = first && first.path ? `field \`${first.path}\`` : 'request';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? 's' : ''})` : '';
  return new OpError('invalid_request', `${opName}: ${where}: ${first?.message ?? 'invalid'}${more}`, { issues });
}
