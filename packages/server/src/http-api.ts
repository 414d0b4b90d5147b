// The HTTP surface over the dispatcher: authentication (session token or API key), routing, the mutation wrapper (Rules 1-4),
// the /{op} passthrough, the status mapping and `http_status`. Bytes and framing live in http-wire.ts.
import {
  OpError,
  RETRYABLE_CODES,
  type DispatchOptions,
  type DispatcherApi,
  type HttpInput,
  type HttpRoute,
  type OpDef,
  type ProtocolRequest,
  type ProtocolResponse,
} from '@linework/engine';
import type { TokenCheck } from './auth.js';
import { ANONYMOUS_BUCKET } from './connection-gate.js';
import { REUSABLE_ANSWERS, looksLikeApiKey, rateLimitHeaders, type HostedAccess } from './hosted.js';
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
  /** API keys of the key service beside the session token (`--keys-url`); each runs in its organization's session. */
  hosted?: HostedAccess;
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

/** What a request asks for once routed, before it runs in a session. */
// The body is parsed only where the request runs: the front of the hosted server routes an
// organization's request to its worker without reading its (up to 16 MiB of) JSON.
type Plan =
  | { kind: 'reply'; reply: HttpReply; op?: string }
  | { kind: 'openapi'; bare: boolean }
  | { kind: 'route'; op: OpDef; route: HttpRoute; params: Record<string, string>; query: Record<string, string>; body: Buffer }
  | { kind: 'passthrough'; op: OpDef; body: Buffer };

export class HttpApi {
  readonly router: Router;
  private readonly pid: number;
  private readonly stateOp: string;
  private openapi: Record<string, unknown> | null = null;
  /** The session-token session (the local one, which the editor shows). */
  private readonly local: HttpSession;

  constructor(
    readonly api: DispatcherApi,
    private readonly auth: TokenCheck,
    private readonly options: HttpApiOptions = {},
  ) {
    this.router = new Router(api.catalogue);
    this.pid = options.pid ?? process.pid;
    this.stateOp = this.router.match('GET', ['state'])?.op.name ?? 'state';
    this.local = new HttpSession(api, this.pid, this.stateOp);
  }

  /** The document id the wrapper addresses when a request names none (for tests and logs). */
  get documentId(): number | undefined {
    return this.local.documentId;
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
    // Authentication comes after the request was read and size-checked (the wire did both), and
    // before routing answers anything: without a credential, unknown paths and methods are 401.
    const header = req.headers.authorization;
    if (this.auth.matchesBearer(header)) return this.execute(this.plan(req), this.local, req.signal);
    const hosted = this.options.hosted;
    const key = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
    if (hosted && looksLikeApiKey(key)) return this.routeWithKey(req, key, hosted);
    return { reply: fail(401, 'unauthorized', this.auth.httpMessage(header, hosted !== undefined)) };
  }

  /** A request made with an API key: verified for its op's permissions, run in its organization's session. */
  private async routeWithKey(req: RawRequest, key: string, hosted: HostedAccess): Promise<{ reply: HttpReply; op?: string }> {
    const plan = this.plan(req);
    const op = plan.kind === 'route' || plan.kind === 'passthrough' ? plan.op : null;
    const what = `${req.method} ${clip(pathOf(req.target), 200)}${op ? ` (${op.name})` : ''}`;
    const admission = await hosted.check(key, op ? op.permissions : [], what);
    if (!admission.ok) {
      const d = admission.denial;
      const status = statusForCode(d.code);
      return {
        reply: { status, body: { ok: false, code: d.code, error: d.message, ...(d.details ? { details: d.details } : {}), http_status: status }, headers: rateLimitHeaders(d.ratelimit, true) },
        ...(op ? { op: op.name } : {}),
      };
    }
    const withLimits = (r: { reply: HttpReply; op?: string }): { reply: HttpReply; op?: string } =>
      admission.ratelimit ? { ...r, reply: { ...r.reply, headers: { ...r.reply.headers, ...rateLimitHeaders(admission.ratelimit, false) } } } : r;
    // 404, 405 and GET /openapi run no op: they need no organization's session.
    if (!op) return withLimits(await this.execute(plan, this.local, req.signal));
    // The request runs where the organization's session lives (its worker); the answer comes back encoded.
    const reusable = REUSABLE_ANSWERS.has(op.name);
    return withLimits({ reply: await hosted.orgs.http(admission.orgId, { method: req.method, target: req.target, body: req.body }, { reusable }), op: op.name });
  }

  /**
   * The bucket of connections a request holds while it is read and run (connection-gate.ts): its
   * organization when its API key was verified before, `token` for the session token, otherwise
   * `anonymous` (no credential, or a key not yet known).
   */
  bucketOf(headers: Record<string, string>): string {
    const header = headers.authorization;
    if (this.auth.matchesBearer(header)) return 'token';
    const key = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
    const org = this.options.hosted && looksLikeApiKey(key) ? this.options.hosted.orgOfKey(key) : undefined;
    return org === undefined ? ANONYMOUS_BUCKET : `org:${org}`;
  }

  /**
   * Runs a request in the session this HttpApi serves, without authentication: for the process
   * that holds an organization's session, which only its front (which checked the key) reaches.
   */
  async runTrusted(req: Pick<RawRequest, 'method' | 'target' | 'body'>): Promise<HttpReply> {
    try {
      return (await this.execute(this.plan({ ...req, headers: {}, bodyTooLarge: false }), this.local)).reply;
    } catch (err) {
      return fail(400, 'internal_error', `internal error: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  /** Routes a request: everything that can be decided without running an op. */
  private plan(req: RawRequest): Plan {
    const method = req.method;
    if (!isRouteMethod(method)) {
      return {
        kind: 'reply',
        reply: { ...fail(405, 'method_not_allowed', `method ${method} is not supported; use GET, POST, PUT or DELETE`), headers: { Allow: 'GET, POST, PUT, DELETE' } },
      };
    }
    const { segments, query } = parseTarget(req.target);
    if (segments === null) {
      return { kind: 'reply', reply: fail(404, 'unknown_route', `no route ${method} ${pathOf(req.target)}: every route starts with /api/v1`) };
    }
    if (method === 'GET' && segments.length === 1 && (segments[0] === 'openapi' || segments[0] === 'openapi.json')) {
      return { kind: 'openapi', bare: segments[0] === 'openapi.json' };
    }
    const match = this.router.match(method, segments);
    if (match) return { kind: 'route', op: match.op, route: match.route, params: match.params, query, body: req.body };
    const op = method === 'POST' && segments.length === 1 ? this.router.op(segments[0]!) : undefined;
    if (op) return { kind: 'passthrough', op, body: req.body };
    return { kind: 'reply', reply: fail(404, 'unknown_route', `no route ${method} /api/v1${segments.length ? '/' + segments.join('/') : ''}; GET /api/v1/openapi lists the routes`) };
  }

  private async execute(plan: Plan, session: HttpSession, signal?: AbortSignal): Promise<{ reply: HttpReply; op?: string }> {
    const via: DispatchOptions = signal ? { signal } : {};
    switch (plan.kind) {
      case 'reply':
        return { reply: plan.reply };
      case 'openapi':
        this.openapi ??= buildOpenApi(this.api, { serverUrl: this.options.baseUrl?.() ?? '/api/v1' });
        // /openapi keeps the envelope rule (`http_status` at the top level, as the spec's table
        // says); /openapi.json is the document alone, which OpenAPI validators and generators accept.
        return { reply: { status: 200, body: plan.bare ? this.openapi : { ...this.openapi, http_status: 200 } } };
      case 'route': {
        const input: HttpInput = { params: plan.params, query: plan.query, body: parseBody(plan.body) };
        return { reply: await session.runRoute(plan.op, plan.route, input, via), op: plan.op.name };
      }
      case 'passthrough':
        return { reply: await session.runPassthrough(plan.op.name, parseBody(plan.body), via), op: plan.op.name };
    }
  }
}

/**
 * One session as the HTTP transport sees it: the cached document id of the mutation wrapper and
 * the series of generated request ids. The local session has one, and each organization's.
 */
class HttpSession {
  private cachedDocumentId: number | undefined;
  private wrapperCounter = 0;
  private restSerial = 0;

  constructor(
    private readonly api: DispatcherApi,
    private readonly pid: number,
    private readonly stateOp: string,
  ) {}

  get documentId(): number | undefined {
    return this.cachedDocumentId;
  }

  /** A declared route of the catalogue. */
  async runRoute(op: OpDef, route: HttpRoute, input: HttpInput, via: DispatchOptions = {}): Promise<HttpReply> {
    let fields: Record<string, unknown>;
    try {
      fields = route.fromHttp ? route.fromHttp(input) : isObject(input.body) ? { ...input.body } : {};
    } catch (err) {
      if (err instanceof OpError) return replyOf({ ok: false, code: err.code, error: err.message, ...(err.details !== undefined ? { details: err.details } : {}) }, route);
      return fail(400, 'invalid_request', `the request cannot be read: ${(err as Error)?.message ?? String(err)}`);
    }
    const res = route.wrapper ? await this.wrapped(op.name, fields, via) : await this.plain({ ...fields, protocol: 1, op: op.name }, via);
    return replyOf(res, route);
  }

  /** `POST /{op}`: the wrapper ops through the wrapper, every other op as protocol 1 with `rest-<serial>`. */
  async runPassthrough(name: string, body: unknown, via: DispatchOptions = {}): Promise<HttpReply> {
    const fields = isObject(body) ? { ...body } : {};
    if (WRAPPER_OPS.has(name)) return replyOf(await this.wrapped(name, fields, via), null);
    const given = fields.request_id;
    const requestId = given === undefined || given === null || given === '' ? `rest-${++this.restSerial}` : given;
    return replyOf(await this.plain({ ...fields, protocol: 1, op: name, request_id: requestId as string }, via), null);
  }

  /** Plain run: the request as built, no retry. */
  private async plain(req: ProtocolRequest, via: DispatchOptions): Promise<ProtocolResponse> {
    const res = await this.api.dispatch(req, via);
    this.noteDocument(res);
    return res;
  }

  /**
   * The mutation wrapper (Rules 1, 2): generated request id, cached document id, body fields over
   * both; on a retryable failure one state re-read (refreshing the cached id) and one retry.
   */
  private async wrapped(op: string, fields: Record<string, unknown>, via: DispatchOptions): Promise<ProtocolResponse> {
    const requestId = `http-${this.pid}-${++this.wrapperCounter}`;
    const build = (): ProtocolRequest => {
      const req: Record<string, unknown> = { request_id: requestId };
      if (this.cachedDocumentId !== undefined) req.document_id = this.cachedDocumentId;
      return { ...req, ...fields, protocol: 1, op };
    };
    let res = await this.api.dispatch(build(), via);
    this.noteDocument(res);
    if (!res.ok && res.code !== undefined && RETRYABLE_CODES.includes(res.code)) {
      const state = await this.api.dispatch({ protocol: 1, op: this.stateOp });
      this.noteDocument(state);
      if (state.ok && isObject(state.result) && typeof state.result.document_id === 'number') {
        this.cachedDocumentId = state.result.document_id;
      }
      res = await this.api.dispatch(build(), via);
      this.noteDocument(res);
    }
    const { state: _state, ...rest } = res;
    return rest;
  }

  private noteDocument(res: ProtocolResponse): void {
    if (typeof res.document_id === 'number') this.cachedDocumentId = res.document_id;
  }
}

/** Shapes the body (the route's toHttp), maps the status (Rule 4) and adds `http_status`. */
function replyOf(res: ProtocolResponse, route: HttpRoute | null): HttpReply {
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

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}

function pathOf(target: string): string {
  const q = target.indexOf('?');
  return q === -1 ? target : target.slice(0, q);
}
