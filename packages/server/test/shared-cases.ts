// One table of protocol-1 cases that every transport (HTTP via POST /{op}, stdio, TCP, MCP) runs
// in order against a fresh session; the normalised answers must be identical across transports
// and match the expectations here.

export interface SharedCase {
  name: string;
  op: string;
  /** Op fields (no protocol, op, token). */
  fields: Record<string, unknown>;
  expect: { ok: true; result?: Record<string, unknown> } | { ok: false; code: string };
  /** HTTP status of the case through POST /{op}. */
  http: number;
}

export const SHARED_CASES: SharedCase[] = [
  { name: 'readiness', op: 'ready', fields: {}, expect: { ok: true, result: { ready: true } }, http: 200 },
  {
    name: 'create two entities',
    op: 'entities_create',
    fields: { entities: [{ type: 'Line', start: [0, 0], end: [10, 0] }, { type: 'Circle', center: [5, 5], radius: 2 }] },
    expect: { ok: true, result: { count: 2 } },
    http: 200,
  },
  { name: 'list circles', op: 'entities_list', fields: { type: 'Circle', detail: 'full' }, expect: { ok: true, result: { count: 1 } }, http: 200 },
  { name: 'filter with where', op: 'entities_list', fields: { where: [{ path: '/radius', op: 'gt', value: 1 }] }, expect: { ok: true, result: { count: 1 } }, http: 200 },
  { name: 'absent entity', op: 'entity_get', fields: { handle: 'FFFFFF' }, expect: { ok: false, code: 'entity_absent' }, http: 404 },
  { name: 'invalid input', op: 'entities_create', fields: { entities: 'nope' }, expect: { ok: false, code: 'invalid_request' }, http: 400 },
  { name: 'headless pick', op: 'user_select', fields: {}, expect: { ok: false, code: 'gui_required' }, http: 409 },
  { name: 'stale version', op: 'entities_create', fields: { entities: [{ type: 'Point', location: [1, 1] }], expected_version: 999 }, expect: { ok: false, code: 'stale_state' }, http: 409 },
  { name: 'other session', op: 'layers', fields: { session_id: 'not-this-session' }, expect: { ok: false, code: 'session_changed' }, http: 409 },
  { name: 'sysvars', op: 'sysvars', fields: { get: ['CLAYER'] }, expect: { ok: true, result: { values: { CLAYER: '0' } } }, http: 200 },
  { name: 'unknown operation record', op: 'operation', fields: { id: 'never-sent' }, expect: { ok: false, code: 'unknown_operation' }, http: 400 },
  { name: 'undo', op: 'undo', fields: {}, expect: { ok: true }, http: 200 },
  { name: 'after undo', op: 'entities_list', fields: {}, expect: { ok: true, result: { count: 0 } }, http: 200 },
];

/**
 * The part of an answer that must agree across transports: ok, code, and the result without
 * fields that differ per process (session id) or per request (request ids, timestamps).
 */
export function normalise(res: Record<string, any>): Record<string, unknown> {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        if (['session_id', 'request_id', 'time', 'started', 'finished', 'version'].includes(k)) continue;
        out[k] = strip(x);
      }
      return out;
    }
    return v;
  };
  return res.ok ? { ok: true, result: strip(res.result ?? null), document_id: res.document_id } : { ok: false, code: res.code };
}
