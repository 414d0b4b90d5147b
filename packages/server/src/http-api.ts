// The HTTP surface over the dispatcher: authentication, routing, the mutation wrapper (Rules 1-4),
// the /{op} passthrough, the status mapping and `http_status`. Bytes and framing live in http-wire.ts.
import {
  OpError,
  RETRYABLE_CODES,
  type DispatcherApi,
  type HttpInput,
  type HttpRoute,
  type OpDef,
  type ProtocolRequest,
  type ProtocolResponse,
} from '@linework/engine';
import type { TokenCheck } from './auth.js';
import type { HttpReply, RawRequest } from './http-wire.js';
import { buildOpenApi } from './openapi.js';
import { Router, WRAPPER_OPS, isRouteMethod, parseTarget } from './routes.js';
import { statusForCode } from './status.js';

export interface HttpApiOptions {
  /** Process id in generated request ids (`http-<pid>-<counter>`). */
  pid?: number;
  /** Base URL advertised by GET /openapi and /openapi.json (`http://127.0.0.1:<port>/api/v1`). */
  baseUrl?: () => string;
  /** Debug log of each request (method, path, status, ms). */
  onRequest?: (info: { method: string; target: string; status: number; ms: number; op?: string }) => void;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(status: number, code: string, error: string): HttpReply {
  return { status, body: { ok: false, code, error, http_status: status } };
}

/** Parsed JSON body: `{}` when empty or not JSON; arrays, null and other JSON values are kept. */
export function parseBody(body: Buffer): unknown {
  if (body.length === 0) return {};
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return {};
  }
}

export class HttpApi {
  readonly router: Router;
  private cachedDocumentId: number | undefined;
  private wrapperCounter = 0;
  private restSerial = 0;
  private readonly pid: number;
  private readonly stateOp: string;
  private openapi: Record<string, unknown> | null = null;

  constructor(
    readonly api: DispatcherApi,
    private readonly auth: TokenCheck,
    private readonly options: HttpApiOptions = {},
  ) {
    this.router = new Router(api.catalogue);
    this.pid = options.pid ?? process.pid;
    this.stateOp = this.router.match('GET', ['state'])?.op.name ?? 'state';
  }

  /** The document id the wrapper addresses when a request names none (for tests and logs). */
  get documentId(): number | undefined {
    return this.cachedDocumentId;
  }

  async handle(req: RawRequest): Promise<HttpReply> {
    const t0 = performance.now();
    let op: string | undefined;
    let reply: HttpReply;
    try {
      const r = await this.route(req);
      reply = r.reply;
      op = r.op;
    } catch (err) {
      reply = fail(400, 'internal_error', `internal error: ${(err as Error)?.message ?? String(err)}`);
    }
    this.options.onRequest?.({ method: req.method, target: req.target, status: reply.status, ms: performance.now() - t0, op });
    return reply;
  }

  private async route(req: RawRequest): Promise<{ reply: HttpReply; op?: string }> {
    // Authentication comes after the request was read and size-checked (the wire did both).
    if (!this.auth.matchesBearer(req.headers.authorization)) {
      return { reply: fail(401, 'unauthorized', this.auth.httpMessage(req.headers.authorization)) };
    }
    const method = req.method;
    if (!isRouteMethod(method)) {
      return {
        reply: { ...fail(405, 'method_not_allowed', `method ${method} is not supported; use GET, POST, PUT or DELETE`), headers: { Allow: 'GET, POST, PUT, DELETE' } },
      };
    }
    const { segments, query } = parseTarget(req.target);
    if (segments === null) {
      return { reply: fail(404, 'unknown_route', `no route ${method} ${pathOf(req.target)}: every route starts with /api/v1`) };
    }
    if (method === 'GET' && segments.length === 1 && (segments[0] === 'openapi' || segments[0] === 'openapi.json')) {
      this.openapi ??= buildOpenApi(this.api, { serverUrl: this.options.baseUrl?.() ?? '/api/v1' });
      // /openapi keeps the envelope rule (`http_status` at the top level, as the spec's table says);
      // /openapi.json is the document alone, which OpenAPI validators and generators accept.
      return { reply: { status: 200, body: segments[0] === 'openapi' ? { ...this.openapi, http_status: 200 } : this.openapi } };
    }
    const body = parseBody(req.body);
    const match = this.router.match(method, segments);
    if (match) {
      return { reply: await this.runRoute(match.op, match.route, { params: match.params, query, body }), op: match.op.name };
    }
    if (method === 'POST' && segments.length === 1 && this.router.hasOp(segments[0]!)) {
      const name = segments[0]!;
      return { reply: await this.runPassthrough(name, body), op: name };
    }
    return { reply: fail(404, 'unknown_route', `no route ${method} /api/v1${segments.length ? '/' + segments.join('/') : ''}; GET /api/v1/openapi lists the routes`) };
  }

  /** A declared route of the catalogue. */
  async runRoute(op: OpDef, route: HttpRoute, input: HttpInput): Promise<HttpReply> {
    let fields: Record<string, unknown>;
    try {
      fields = route.fromHttp ? route.fromHttp(input) : isObject(input.body) ? { ...input.body } : {};
    } catch (err) {
      if (err instanceof OpError) return this.reply({ ok: false, code: err.code, error: err.message, ...(err.details !== undefined ? { details: err.details } : {}) }, route);
      return fail(400, 'invalid_request', `the request cannot be read: ${(err as Error)?.message ?? String(err)}`);
    }
    const res = route.wrapper ? await this.wrapped(op.name, fields) : await this.plain({ ...fields, protocol: 1, op: op.name });
    return this.reply(res, route);
  }

  /** `POST /{op}`: the wrapper ops through the wrapper, every other op as protocol 1 with `rest-<serial>`. */
  async runPassthrough(name: string, body: unknown): Promise<HttpReply> {
    const fields = isObject(body) ? { ...body } : {};
    if (WRAPPER_OPS.has(name)) return this.reply(await this.wrapped(name, fields), null);
    const given = fields.request_id;
    const requestId = given === undefined || given === null || given === '' ? `rest-${++this.restSerial}` : given;
    return this.reply(await this.plain({ ...fields, protocol: 1, op: name, request_id: requestId as string }), null);
  }

  /** Plain run: the request as built, no retry. */
  private async plain(req: ProtocolRequest): Promise<ProtocolResponse> {
    const res = await this.api.dispatch(req);
    this.noteDocument(res);
    return res;
  }

  /**
   * The mutation wrapper (Rules 1, 2): generated request id, cached document id, body fields over
   * both; on a retryable failure one state re-read (refreshing the cached id) and one retry.
   */
  private async wrapped(op: string, fields: Record<string, unknown>): Promise<ProtocolResponse> {
    const requestId = `http-${this.pid}-${++this.wrapperCounter}`;
    const build = (): ProtocolRequest => {
      const req: Record<string, unknown> = { request_id: requestId };
      if (this.cachedDocumentId !== undefined) req.document_id = this.cachedDocumentId;
      return { ...req, ...fields, protocol: 1, op };
    };
    let res = await this.api.dispatch(build());
    this.noteDocument(res);
    if (!res.ok && res.code !== undefined && RETRYABLE_CODES.includes(res.code)) {
      const state = await this.api.dispatch({ protocol: 1, op: this.stateOp });
      this.noteDocument(state);
      if (state.ok && isObject(state.result) && typeof state.result.document_id === 'number') {
        this.cachedDocumentId = state.result.document_id;
      }
      res = await this.api.dispatch(build());
      this.noteDocument(res);
    }
    const { state: _state, ...rest } = res;
    return rest;
  }

  private noteDocument(res: ProtocolResponse): void {
    if (typeof res.document_id === 'number') this.cachedDocumentId = res.document_id;
  }

  /** Shapes the body (the route's toHttp), maps the status (Rule 4) and adds `http_status`. */
  private reply(res: ProtocolResponse, route: HttpRoute | null): HttpReply {
    const status = res.ok ? (route?.status ?? 200) : statusForCode(res.code);
    let body: Record<string, unknown>;
    try {
      body = route?.toHttp ? route.toHttp(res) : { ...res };
    } catch {
      body = { ...res };
    }
    if (!isObject(body)) body = { ok: res.ok, result: body };
    return { status, body: { ...body, http_status: status } };
  }
}

function pathOf(target: string): string {
  const q = target.indexOf('?');
  return q === -1 ? target : target.slice(0, q);
}
