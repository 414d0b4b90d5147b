// The dispatcher: validation, codes, session and version checks, idempotency, operation records,
// events, interactive picks with and without the graphical mode.
import { describe, expect, it } from 'vitest';
import { Engine, LIMITS, type GuiBridge, type PendingPrompt } from '../src/index.js';
import { active, call, engine, fails, ok } from './helpers.js';

describe('dispatcher without documents', () => {
  const e = new Engine({ empty: true, appVersion: '1.0.0' });

  it('rejects unknown ops, bad protocols and non-objects', async () => {
    await fails(e, 'no_such_op', {}, 'unknown_op');
    expect((await e.dispatch({ protocol: 2 as 1, op: 'ready' })).code).toBe('unsupported_protocol');
    expect((await e.dispatch(null as never)).code).toBe('invalid_request');
    expect((await e.dispatch({ protocol: 1 } as never)).code).toBe('invalid_request');
  });

  it('ready reports the app version, session and document', async () => {
    const r = await call(e, 'ready');
    expect(r.ok).toBe(true);
    expect(r.result).toMatchObject({ ready: true, version: '1.0.0', session_id: e.sessionId, document_id: null });
    const body = e.catalogue.find((o) => o.name === 'ready')!.http[0]!.toHttp!(r);
    expect(body).toMatchObject({ ok: true, ready: true, version: '1.0.0', session_id: e.sessionId });
  });

  it('needs a document for document ops', async () => {
    await fails(e, 'entities_list', {}, 'document_required');
    await fails(e, 'layers', {}, 'document_required');
  });

  it('checks the session id', async () => {
    const r = await fails(e, 'state', { session_id: 'other' }, 'session_changed');
    expect(r.error).toContain(e.sessionId);
    expect((await call(e, 'state', { session_id: e.sessionId })).ok).toBe(true);
  });

  it('validates input with the field named', async () => {
    const r = await fails(e, 'events', { since: 'abc' }, 'invalid_request');
    expect(r.error).toContain('since');
    expect((r.details as { issues: unknown[] }).issues.length).toBeGreaterThan(0);
  });

  it('operation: unknown id', async () => {
    await fails(e, 'operation', { request_id: 'never-seen' }, 'unknown_operation');
    await fails(e, 'operation', { id: 'never-seen' }, 'unknown_operation');
  });

  it('operation reports an earlier request by its request_id', async () => {
    await call(e, 'state', { request_id: 'r-state-1' });
    const r = await call(e, 'operation', { request_id: 'r-state-1' });
    expect(r.ok).toBe(true);
    expect(r.result).toMatchObject({ request_id: 'r-state-1', op: 'state', status: 'completed', ok: true });
  });

  it('runs requests one at a time, in order', async () => {
    const order: string[] = [];
    const ps = ['a', 'b', 'c'].map((id) => e.dispatch({ protocol: 1, op: 'ready', request_id: id }).then(() => order.push(id)));
    await Promise.all(ps);
    expect(order).toEqual(['a', 'b', 'c']);
  });
});

describe('dispatcher with documents', () => {
  it('starts headless with one untitled active drawing', async () => {
    const e = engine();
    const s = await ok(e, 'state');
    expect(s.documents).toHaveLength(1);
    expect(s.documents[0]).toMatchObject({ document_id: 1, active: true, modified: false, version: 0, path: null });
    expect(s).toMatchObject({ document_id: 1, version: 0, session_id: e.sessionId, layers: expect.any(Number), entities: 0, current_layer: '0' });
    expect(s.can_undo).toBe(false);
  });

  it('expected_version: stale_state changes nothing', async () => {
    const e = engine();
    await ok(e, 'entities_create', { entities: [{ type: 'Line', start: [0, 0], end: [1, 1] }] });
    const v = active(e).version;
    expect(v).toBe(1);
    await fails(e, 'entities_create', { expected_version: 0, entities: [{ type: 'Point', location: [0, 0] }] }, 'stale_state');
    expect(active(e).version).toBe(1);
    expect(active(e).doc.modelSpace().entities).toHaveLength(1);
    await ok(e, 'entities_create', { expected_version: 1, entities: [{ type: 'Point', location: [0, 0] }] });
    expect(active(e).version).toBe(2);
  });

  it('idempotency: a repeated mutation returns the first answer and changes nothing', async () => {
    const e = engine();
    const req = { protocol: 1 as const, op: 'entities_create', request_id: 'same-1', entities: [{ type: 'Circle', center: [0, 0], radius: 1 }] };
    const a = await e.dispatch(req);
    const b = await e.dispatch(req);
    expect(b).toEqual(a);
    expect(active(e).doc.modelSpace().entities).toHaveLength(1);
    expect(active(e).version).toBe(1);
    // the same id with another op is refused
    expect((await e.dispatch({ protocol: 1, op: 'entities_delete', request_id: 'same-1', handles: ['1'] })).code).toBe('request_id_reused');
    // a failed mutation is not remembered: the retry runs
    const bad = { protocol: 1 as const, op: 'entities_create', request_id: 'retry-1', expected_version: 99, entities: [{ type: 'Point', location: [0, 0] }] };
    expect((await e.dispatch(bad)).code).toBe('stale_state');
    expect((await e.dispatch({ ...bad, expected_version: 1 })).ok).toBe(true);
  });

  it('document addressing: closed and unknown ids', async () => {
    const e = engine();
    const opened = await ok(e, 'document_open', {});
    expect(opened.document_id).toBe(2);
    expect(e.activeId).toBe(2);
    await ok(e, 'document_close', { document_id: 2 });
    await fails(e, 'layers', { document_id: 2 }, 'document_closed');
    await fails(e, 'layers', { document_id: 77 }, 'unknown_document');
    expect(e.activeId).toBe(1);
    await ok(e, 'document_close', { document_id: 1 });
    await fails(e, 'layers', {}, 'document_required');
  });

  it('closing a modified document needs discard', async () => {
    const e = engine();
    await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0] }] });
    await fails(e, 'document_close', {}, 'document_modified');
    expect(e.documents.size).toBe(1);
    const r = await ok(e, 'document_close', { discard: true });
    expect(r.closed).toBe(true);
  });

  it('failing handlers leave nothing behind', async () => {
    const e = engine();
    const before = active(e).doc.modelSpace().entities.length;
    await fails(e, 'entities_create', { entities: [{ type: 'Line', start: [0, 0], end: [1, 0] }, { type: 'Line', start: [0, 0], end: [1, 0], layer: 'NOPE' }] }, 'unknown_layer');
    expect(active(e).doc.modelSpace().entities.length).toBe(before);
    expect(active(e).version).toBe(0);
    expect(active(e).undoStack).toHaveLength(0);
  });

  it('events: cursor and kinds', async () => {
    const e = engine();
    const first = await ok(e, 'events', {});
    const cursor = first.next;
    await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0] }] });
    await ok(e, 'undo');
    await ok(e, 'document_open', {});
    const r = await ok(e, 'events', { since: cursor });
    expect(r.events.map((x: { kind: string }) => x.kind)).toEqual(['changed', 'undone', 'document_activated', 'document_created']);
    expect(r.events[0]).toMatchObject({ document_id: 1, version: 1, added: 1 });
    const again = await ok(e, 'events', { since: r.next });
    expect(again.events).toEqual([]);
    const limited = await ok(e, 'events', { since: cursor, limit: 1 });
    expect(limited.events).toHaveLength(1);
    expect(limited.next).toBe(r.events[0].seq);
  });

  it('interactive picks: headless gui_required', async () => {
    const e = engine();
    await fails(e, 'user_select', {}, 'gui_required');
    await fails(e, 'getpoint', {}, 'gui_required');
  });

  it('interactive picks with a GUI: pending, answered later, the queue keeps running', async () => {
    const prompts: PendingPrompt[] = [];
    const dismissed: string[] = [];
    const gui: GuiBridge = { prompt: (p) => prompts.push(p), dismiss: (id) => dismissed.push(id) };
    const e = engine({ gui });
    const pick = e.dispatch({ protocol: 1, op: 'getpoint', request_id: 'pick-1', message: 'base point' });
    // the dispatcher is not blocked
    const st = await call(e, 'state');
    expect(st.ok).toBe(true);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({ request_id: 'pick-1', op: 'getpoint', message: 'base point' });
    const pending = await call(e, 'operation', { request_id: 'pick-1' });
    expect((pending.result as { status: string }).status).toBe('pending');
    expect(e.answer('pick-1', { point: [1, 2, 0] })).toBe(true);
    const res = await pick;
    expect(res).toMatchObject({ ok: true, status: 'completed', result: { point: [1, 2, 0] } });
    expect(dismissed).toEqual(['pick-1']);
    const done = await call(e, 'operation', { request_id: 'pick-1' });
    expect((done.result as { status: string }).status).toBe('completed');
  });

  it('cancel ends a pending pick with code cancelled', async () => {
    const e = engine({ gui: { prompt: () => undefined, dismiss: () => undefined } });
    const pick = e.dispatch({ protocol: 1, op: 'user_select', request_id: 'sel-1' });
    const c = await call(e, 'cancel', { request_id: 'sel-1' });
    expect(c.ok).toBe(true);
    expect(await pick).toMatchObject({ ok: false, code: 'cancelled', status: 'cancelled' });
    await fails(e, 'cancel', { request_id: 'nope' }, 'unknown_operation');
    // wait:false answers at once with status pending
    const r = await call(e, 'getpoint', { request_id: 'gp-2', wait: false });
    expect(r).toMatchObject({ ok: true, status: 'pending', request_id: 'gp-2' });
    expect(e.pendingIds()).toEqual(['gp-2']);
  });

  it('remembers the last LIMITS.maxOperations request ids, oldest forgotten first, waiting picks kept', async () => {
    const e = engine({ gui: { prompt: () => undefined, dismiss: () => undefined } });
    const pick = await call(e, 'getpoint', { request_id: 'pick-old', wait: false });
    expect(pick.status).toBe('pending');
    await call(e, 'state', { request_id: 'first' });
    await call(e, 'state', { request_id: 'reused' });
    for (let i = 0; i < LIMITS.maxOperations - 3; i++) await call(e, 'ready', { request_id: `n-${i}` });
    // 'reused' again: now the newest, so it outlives 'first'
    await call(e, 'state', { request_id: 'reused' });
    await call(e, 'ready', { request_id: 'last' });
    expect(e.operations.size).toBe(LIMITS.maxOperations);
    await fails(e, 'operation', { request_id: 'first' }, 'unknown_operation');
    expect((await call(e, 'operation', { request_id: 'n-0' })).ok).toBe(true);
    // the next one skips the stale place of 'reused' and forgets n-0
    await call(e, 'ready', { request_id: 'last-2' });
    await fails(e, 'operation', { request_id: 'n-0' }, 'unknown_operation');
    expect(e.operations.size).toBe(LIMITS.maxOperations);
    for (const id of ['n-1', 'reused', 'last', 'last-2', 'pick-old']) expect((await call(e, 'operation', { request_id: id })).ok, id).toBe(true);
  });

  it('interactive picks need the active document', async () => {
    const e = engine({ gui: { prompt: () => undefined, dismiss: () => undefined } });
    await ok(e, 'document_open', {});
    await fails(e, 'getpoint', { document_id: 1 }, 'document_not_active');
  });

  it('activate switches the active document', async () => {
    const e = engine();
    await ok(e, 'document_open', {});
    const r = await call(e, 'activate', { document_id: 1 });
    expect(r.ok).toBe(true);
    expect(r.document_id).toBe(1);
    expect(e.activeId).toBe(1);
  });

  it('mutation responses carry version, document_id and state', async () => {
    const e = engine();
    const r = await call(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0] }] });
    expect(r).toMatchObject({ ok: true, status: 'completed', document_id: 1, version: 1, session_id: e.sessionId });
    expect(r.state).toMatchObject({ version: 1, document_id: 1 });
  });
});
