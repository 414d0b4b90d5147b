// Session-level ops: readiness, state, capabilities, events, operation records, cancel, picks.
import { z } from 'zod';
import { OpError, type ProtocolResponse } from '../protocol.js';
import { LIMITS } from '../limits.js';
import { budgetReport } from '../budgets.js';
import { stateSnapshot } from '../state.js';
import { Pending, Reply, defineOp, q, type EngineOp } from './types.js';
import { DISPATCHER_ERRORS } from '../errors.js';
import { handlesOut, pendingOut, pointOut, selectedEntityOut, stateOut } from './output-parts.js';

export const ready = defineOp({
  name: 'ready',
  summary: 'Readiness: the application version, session id and active document id.',
  input: z.object({}),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: false,
  output: z.object({ ready: z.literal(true), version: z.string(), session_id: z.string(), document_id: z.number().int().nullable() }),
  mcpGroup: 'session',
  http: [
    { method: 'GET', path: '/ready', status: 200, wrapper: false, toHttp: readyBody },
    { method: 'GET', path: '', status: 200, wrapper: false, toHttp: readyBody, summary: 'API root: readiness (same as GET /ready).' },
  ],
  handler: (ctx) => ({
    ready: true,
    version: ctx.engine.appVersion,
    session_id: ctx.engine.sessionId,
    document_id: ctx.engine.activeId,
  }),
});

function readyBody(res: ProtocolResponse): Record<string, unknown> {
  if (!res.ok) return { ...res };
  const r = res.result as Record<string, unknown>;
  return { ok: true, ready: true, version: r.version, session_id: r.session_id, document_id: r.document_id, status: res.status, result: r };
}

export const state = defineOp({
  name: 'state',
  summary: 'State snapshot: session, open documents, and a summary of the active document.',
  input: z.object({}),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: false,
  output: stateOut,
  mcpGroup: 'session',
  http: [
    { method: 'GET', path: '/state', status: 200, wrapper: false, toHttp: stateBody },
    { method: 'GET', path: '/documents', status: 200, wrapper: false, toHttp: stateBody, summary: 'Open documents (the state snapshot).' },
  ],
  handler: (ctx) => new Reply(stateSnapshot(ctx.engine)),
});

/** GET /state: the snapshot's fields at the top level (document_id, version, session_id, documents ...). */
function stateBody(res: ProtocolResponse): Record<string, unknown> {
  if (!res.ok) return { ...res };
  return { ...(res.result as Record<string, unknown>), ok: true, status: res.status, result: res.result };
}

export const capabilities = defineOp({
  name: 'capabilities',
  summary: 'Every operation with its fields (JSON schema), routes and error codes, and the server limits.',
  input: z.object({}),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: false,
  output: z.looseObject({
    protocol: z.literal(1),
    version: z.string(),
    session_id: z.string(),
    ops: z.array(z.looseObject({ name: z.string(), summary: z.string(), mutates: z.boolean(), effect: z.string(), permissions: z.array(z.string()), needs_document: z.boolean(), input: z.unknown(), http: z.array(z.looseObject({ method: z.string(), path: z.string(), status: z.number().int(), wrapper: z.boolean() })), errors: z.array(z.string()) })),
    op_names: z.array(z.string()),
    errors: z.array(z.string()),
    limits: z.record(z.string(), z.number()),
    gui: z.boolean(),
  }),
  mcpGroup: 'session',
  http: [{ method: 'GET', path: '/capabilities', status: 200, wrapper: false }],
  handler: (ctx) => {
    const ops = [...ctx.engine.ops.values()].map((op) => ({
      name: op.name,
      summary: op.summary,
      mutates: op.mutates,
      effect: op.effect,
      permissions: op.permissions,
      needs_document: op.needsDocument,
      input: jsonSchema(op),
      http: op.http.map((r) => ({ method: r.method, path: `/api/v1${r.path}`, status: r.status, wrapper: r.wrapper })),
      errors: op.errors ?? [],
    }));
    return {
      protocol: 1,
      version: ctx.engine.appVersion,
      session_id: ctx.engine.sessionId,
      ops,
      op_names: ops.map((o) => o.name),
      errors: DISPATCHER_ERRORS,
      limits: {
        request_line_bytes: 8192,
        header_block_bytes: 65536,
        body_bytes: 16777216,
        connections: 8,
        idle_seconds: 15,
        head_deadline_seconds: 5,
        body_deadline_seconds: 30,
        queue: LIMITS.maxQueue,
        entities_default_limit: LIMITS.defaultLimit,
        entities_max_limit: LIMITS.maxLimit,
        entities_create_max: LIMITS.maxCreate,
        undo_steps: LIMITS.maxUndo,
        operations_remembered: LIMITS.maxOperations,
        expired_ids_remembered: LIMITS.maxForgottenIds,
        reply_bytes: LIMITS.maxReplyBytes,
        events_kept: LIMITS.maxEvents,
      },
      budgets: budgetReport(),
      gui: ctx.engine.gui !== undefined,
    };
  },
});

const schemaCache = new WeakMap<object, unknown>();
export function jsonSchema(op: EngineOp): unknown {
  let s = schemaCache.get(op);
  if (s === undefined) {
    try {
      s = z.toJSONSchema(op.input, { unrepresentable: 'any', io: 'input' });
    } catch {
      s = { type: 'object' };
    }
    schemaCache.set(op, s);
  }
  return s;
}

export const events = defineOp({
  name: 'events',
  summary: 'Change events since a cursor: {since?, limit?} -> {events:[{seq, kind, document_id, version, ...}], next}.',
  input: z.object({
    since: z.coerce.number().int().min(0).optional().describe('return events with seq greater than this (0 or absent: from the oldest kept)'),
    limit: z.coerce.number().int().min(1).max(LIMITS.maxEvents).optional().describe('at most this many events (default 100)'),
  }),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: false,
  output: z.object({ events: z.array(z.looseObject({ seq: z.number().int(), kind: z.string(), document_id: z.number().int().nullable().optional(), time: z.string() })), next: z.number().int(), truncated: z.boolean(), latest: z.number().int() }),
  mcpGroup: 'session',
  http: [],
  handler: (ctx, input) => {
    const r = ctx.engine.eventsSince(input.since ?? 0, input.limit ?? 100);
    return { events: r.events, next: r.next, truncated: r.truncated, latest: ctx.engine.lastEventSeq };
  },
});

export const operation = defineOp({
  name: 'operation',
  summary: 'Status and result of an earlier request by its request_id.',
  input: z.object({ id: z.string().min(1).optional().describe('the request_id to look up (default: this request\'s request_id)') }),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: false,
  output: z.object({ request_id: z.string(), op: z.string(), status: z.string(), ok: z.boolean().nullable(), code: z.string().nullable(), error: z.string().nullable(), result: z.unknown(), document_id: z.number().int().nullable().optional(), started: z.string(), finished: z.string().nullable() }),
  mcpGroup: 'session',
  control: true,
  http: [],
  errors: ['unknown_operation'],
  handler: (ctx, input) => {
    const id = input.id ?? stringField(ctx.req, 'request_id');
    const rec = id ? ctx.engine.operations.get(id) : undefined;
    if (!id || !rec) {
      throw new OpError('unknown_operation', `no operation with request_id ${id ?? '(none given)'}`);
    }
    return {
      request_id: rec.request_id,
      op: rec.op,
      status: rec.status,
      ok: rec.response?.ok ?? null,
      code: rec.response?.code ?? null,
      error: rec.response?.error ?? null,
      result: rec.response?.result ?? null,
      document_id: rec.document_id,
      started: rec.started,
      finished: rec.finished ?? null,
    };
  },
});

function stringField(o: Record<string, unknown>, k: string): string | undefined {
  const v = o[k];
  return typeof v === 'string' && v ? v : undefined;
}

export const cancel = defineOp({
  name: 'cancel',
  summary: 'Needs the graphical mode (linework --http with drawing files or --gui), where user_select and getpoint wait for the user: ends a pending one by request_id (it answers `cancelled`).',
  input: z.object({
    id: z.string().min(1).optional().describe('request_id of the pending operation (default: this request\'s request_id)'),
    all: z.boolean().optional().describe('cancel every pending operation'),
  }),
  mutates: false,
  effect: 'change',
  permissions: ['drawings:read'],
  needsDocument: false,
  output: z.object({ cancelled: z.array(z.string()).describe('request ids of the picks cancelled'), status: z.string().optional().describe('an operation that had already finished: its status') }),
  mcpGroup: 'session',
  control: true,
  http: [],
  errors: ['unknown_operation'],
  handler: (ctx, input) => {
    const target = input.all ? undefined : input.id ?? stringField(ctx.req, 'request_id');
    if (target) input = { ...input, id: target };
    if (input.id) {
      if (!ctx.engine.cancelPending(input.id)) {
        const rec = ctx.engine.operations.get(input.id);
        if (!rec) throw new OpError('unknown_operation', `no operation with request_id ${input.id}`);
        return { cancelled: [], status: rec.status };
      }
      return { cancelled: [input.id] };
    }
    const ids = ctx.engine.pendingIds();
    for (const id of ids) ctx.engine.cancelPending(id);
    return { cancelled: ids };
  },
});

const pickFields = {
  message: z.string().optional().describe('prompt shown to the user'),
  wait: z.boolean().optional().describe('true (default): answer when the user picks; false: answer at once with status pending (poll with operation)'),
};

export const userSelect = defineOp({
  name: 'user_select',
  summary: 'Needs the graphical mode (linework --http with drawing files or --gui): asks the user to select entities on screen, answers their handles. Headless: fails with gui_required.',
  input: z.object({
    ...pickFields,
    count: z.number().int().min(1).optional().describe('expected number of entities (absent: any)'),
    types: z.array(z.string()).optional().describe('entity types the user may pick'),
  }),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.union([z.object({ count: z.number().int(), handles: handlesOut, entities: z.array(selectedEntityOut) }), pendingOut]),
  mcpGroup: 'session',
  http: [],
  errors: ['gui_required', 'document_not_active', 'cancelled', 'gui_closed'],
  handler: (ctx, input) => interactive(ctx, 'select entities', input),
});

export const getpoint = defineOp({
  name: 'getpoint',
  summary: 'Needs the graphical mode (linework --http with drawing files or --gui): asks the user to pick a point on screen, answers it. Headless: fails with gui_required.',
  input: z.object({ ...pickFields, base: z.array(z.number()).min(2).max(3).optional().describe('rubber-band base point') }),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.union([z.object({ point: pointOut }), pendingOut]),
  mcpGroup: 'session',
  http: [],
  errors: ['gui_required', 'document_not_active', 'cancelled', 'gui_closed'],
  handler: (ctx, input) => interactive(ctx, 'pick a point', input),
});

function interactive(ctx: Parameters<EngineOp['handler']>[0], what: string, input: Record<string, unknown>): Pending {
  if (!ctx.engine.gui) {
    throw new OpError('gui_required', `${ctx.req.op} needs the graphical mode (a user to ${what}); this server is headless`);
  }
  if (ctx.store && ctx.store.id !== ctx.engine.activeId) {
    throw new OpError('document_not_active', `document ${ctx.store.id} is not the active document; activate it first`);
  }
  const { wait, ...prompt } = input;
  return new Pending(prompt, wait !== false);
}

export const activate = defineOp({
  name: 'activate',
  summary: 'Makes the addressed document (document_id) the active one.',
  input: z.object({ document_id: z.number().int().optional() }),
  mutates: false,
  effect: 'change',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ document_id: z.number().int(), active: z.literal(true) }),
  mcpGroup: 'documents',
  http: [],
  handler: (ctx) => {
    ctx.engine.activate(ctx.store!.id);
    return new Reply({ document_id: ctx.store!.id, active: true }, { document_id: ctx.store!.id, state: true });
  },
});

export const SESSION_OPS = [ready, state, capabilities, events, operation, cancel, userSelect, getpoint, activate];
export { q };
