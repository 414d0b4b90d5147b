// Test scaffolding only: a small dispatcher with a handful of ops, so the transports can be tested
// on their own (request forms, retry, concurrency) without the real engine.
import { z } from 'zod';
import { OpError, type DispatcherApi, type OpDef, type ProtocolRequest, type ProtocolResponse } from '@linework/engine';

export interface ScaffoldOp extends OpDef {
  run(req: ProtocolRequest, d: Scaffold): unknown | Promise<unknown>;
}

const readyBody = (res: ProtocolResponse): Record<string, unknown> =>
  res.ok ? { ok: true, ready: true, ...(res.result as Record<string, unknown>) } : { ...res };

export class Scaffold implements DispatcherApi {
  readonly sessionId = 'scaffold-session';
  readonly appVersion = '9.9.9-test';
  readonly catalogue: readonly ScaffoldOp[];
  /** Every request dispatched, in order. */
  readonly log: ProtocolRequest[] = [];
  activeId = 1;
  readonly open = new Set<number>([1]);
  entities = new Map<string, Record<string, unknown>>();
  private nextHandle = 0x100;
  private queue: Promise<unknown> = Promise.resolve();
  /** Requests running right now (must never exceed 1). */
  running = 0;
  maxRunning = 0;

  constructor() {
    const ops: ScaffoldOp[] = [
      {
        name: 'ready', summary: 'readiness', input: z.object({}), mutates: false, effect: 'read', permissions: ['drawings:read'], needsDocument: false,
        http: [
          { method: 'GET', path: '/ready', status: 200, wrapper: false, toHttp: readyBody },
          { method: 'GET', path: '', status: 200, wrapper: false, toHttp: readyBody },
        ],
        run: (_r, d) => ({ version: d.appVersion, session_id: d.sessionId, document_id: d.activeId }),
      },
      {
        name: 'state', summary: 'state', input: z.object({}), mutates: false, effect: 'read', permissions: ['drawings:read'], needsDocument: false,
        http: [{ method: 'GET', path: '/state', status: 200, wrapper: false }],
        run: (_r, d) => ({ document_id: d.activeId, version: 1, session_id: d.sessionId }),
      },
      {
        name: 'entities_create', summary: 'create entities', mutates: true, effect: 'change', permissions: ['drawings:write'], needsDocument: true,
        input: z.object({ entities: z.array(z.object({ type: z.string() }).passthrough()).describe('creation items') }),
        http: [{ method: 'POST', path: '/entities', status: 201, wrapper: true }],
        run: (r, d) => {
          d.checkDocument(r);
          const items = r.entities;
          if (!Array.isArray(items)) throw new OpError('invalid_request', 'entities_create: field `entities`: expected an array');
          const handles = items.map((e) => {
            const h = (d.nextHandle++).toString(16).toUpperCase();
            d.entities.set(h, { ...(e as object), handle: h });
            return h;
          });
          return { handles };
        },
      },
      {
        name: 'entities_query', summary: 'query entities', mutates: false, effect: 'read', permissions: ['drawings:read'], needsDocument: true,
        input: z.object({ type: z.string().optional(), layer: z.string().optional(), where: z.array(z.unknown()).optional() }),
        http: [{
          method: 'GET', path: '/entities', status: 200, wrapper: false,
          fromHttp: ({ query }) => {
            const out: Record<string, unknown> = {};
            if (query.type !== undefined) out.type = query.type;
            if (query.layer !== undefined) out.layer = query.layer;
            if (query.where !== undefined) {
              try {
                out.where = JSON.parse(query.where);
              } catch {
                throw new OpError('invalid_where', '`where` is not valid JSON');
              }
            }
            return out;
          },
          toHttp: (res) => (res.ok ? { ...(res.result as object), ok: true } : { ...res }),
        }],
        run: (r, d) => {
          const entities = [...d.entities.values()].filter((e) => r.type === undefined || e.type === r.type);
          return { count: entities.length, entities };
        },
      },
      {
        name: 'entity_get', summary: 'one entity', mutates: false, effect: 'read', permissions: ['drawings:read'], needsDocument: true,
        input: z.object({ handle: z.string() }),
        http: [{ method: 'GET', path: '/entities/{handle}', status: 200, wrapper: false, fromHttp: ({ params }) => ({ handle: params.handle }) }],
        run: (r, d) => {
          const e = d.entities.get(String(r.handle));
          if (!e) throw new OpError('entity_absent', `no entity ${String(r.handle)}`);
          return { count: 1, entities: [e] };
        },
      },
      {
        name: 'xdata_set', summary: 'set xdata', mutates: true, effect: 'change', permissions: ['drawings:write'], needsDocument: true,
        input: z.object({ handle: z.string(), app: z.string(), items: z.array(z.object({ code: z.number().int(), value: z.unknown() })) }),
        http: [{
          method: 'PUT', path: '/entities/{handle}/xdata/{app}', status: 200, wrapper: true,
          fromHttp: ({ params, body }) => ({ handle: params.handle, app: params.app, items: Array.isArray(body) ? body : [] }),
        }],
        run: (r) => ({ handle: r.handle, app: r.app, count: (r.items as unknown[]).length }),
      },
      {
        name: 'echo', summary: 'answers with the request it received', mutates: false, effect: 'read', permissions: ['drawings:read'], needsDocument: false,
        input: z.object({}).passthrough(),
        http: [
          { method: 'POST', path: '/echo', status: 200, wrapper: false },
          { method: 'GET', path: '/echo/{a}/{b}', status: 200, wrapper: false, fromHttp: ({ params, query, body }) => ({ params, query, body }) },
          { method: 'GET', path: '/echo/fixed/{b}', status: 200, wrapper: false, fromHttp: ({ params }) => ({ fixed: true, params }) },
          { method: 'PUT', path: '/echo', status: 200, wrapper: false, fromHttp: ({ body }) => ({ body }) },
        ],
        run: (r) => ({ request: r }),
      },
      {
        name: 'slow', summary: 'waits', mutates: false, effect: 'read', permissions: ['drawings:read'], needsDocument: false,
        input: z.object({ ms: z.number().optional() }),
        http: [{ method: 'POST', path: '/slow', status: 200, wrapper: false }],
        run: async (r) => {
          await new Promise((res) => setTimeout(res, typeof r.ms === 'number' ? r.ms : 500));
          return { waited: r.ms ?? 500 };
        },
      },
      {
        name: 'user_select', summary: 'pick on screen', mutates: false, effect: 'read', permissions: ['drawings:read'], needsDocument: true, input: z.object({}),
        http: [],
        run: () => {
          throw new OpError('gui_required', 'user_select needs the graphical mode');
        },
      },
      {
        name: 'busy_op', summary: 'always busy', mutates: false, effect: 'read', permissions: ['drawings:read'], needsDocument: false, input: z.object({}), http: [], mcp: false,
        run: () => {
          throw new OpError('busy', 'queue full');
        },
      },
      {
        name: 'view_focus', summary: 'wrapper op without routes', mutates: false, effect: 'read', permissions: ['drawings:read'], needsDocument: true, input: z.object({}).passthrough(), http: [],
        run: (r, d) => {
          d.checkDocument(r);
          return { focused: true };
        },
      },
    ];
    this.catalogue = ops;
  }

  /** Fails like the engine when the addressed document is not open. */
  checkDocument(r: ProtocolRequest): void {
    const id = r.document_id ?? this.activeId;
    if (!this.open.has(id)) throw new OpError('document_closed', `document ${id} was closed`);
  }

  /** Closes the active document and opens a new one (outside HTTP: the wrapper's cache goes stale). */
  switchDocument(): number {
    this.open.delete(this.activeId);
    this.activeId += 1;
    this.open.add(this.activeId);
    return this.activeId;
  }

  dispatch(req: ProtocolRequest): Promise<ProtocolResponse> {
    this.log.push(structuredClone(req));
    const run = this.queue.then(async (): Promise<ProtocolResponse> => {
      this.running++;
      this.maxRunning = Math.max(this.maxRunning, this.running);
      try {
        if (!req || typeof req !== 'object' || req.protocol !== 1) throw new OpError('invalid_request', 'protocol 1 required');
        const op = this.catalogue.find((o) => o.name === req.op);
        if (!op) throw new OpError('unknown_op', `unknown operation \`${String(req.op)}\``);
        const result = await op.run(req, this);
        const res: ProtocolResponse = { ok: true, status: 'completed', result, document_id: this.activeId, session_id: this.sessionId };
        if (typeof req.request_id === 'string' && req.request_id) res.request_id = req.request_id;
        if (op.mutates) res.state = { document_id: this.activeId, version: 2 };
        return res;
      } catch (err) {
        const e = err instanceof OpError ? err : new OpError('internal_error', String(err));
        const res: ProtocolResponse = { ok: false, code: e.code, error: e.message, status: 'failed', document_id: this.activeId };
        if (typeof req.request_id === 'string' && req.request_id) res.request_id = req.request_id;
        return res;
      } finally {
        this.running--;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
