import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { toErrorResponse, type ErrorResponse } from './errors.js';
import type { RouteDeps, RouteResult, RouteSpec } from './routes/route.js';

/**
 * Hot routes (verification) are answered straight on node:http, before fastify sees the request.
 * Verification is the one route whose rate matters: it is called on every request of every client
 * of the API being guarded, and fastify's request cycle (request and reply objects, hooks, the
 * content-type parser, async context) cost more per call than the verification itself.
 *
 * Only the plain case is taken here: a public POST with a JSON body of known length within the
 * body limit, at a route's exact path. Anything else (another content type, chunked bodies,
 * `Expect`, query strings, bodies over the limit, shutdown) goes to fastify untouched, which
 * answers it as it answers every route. The answers are those of the fastify route: the same
 * handler, the same JSON parser, the same error mapping and headers, the same access-log line.
 */
export interface HotRouteOptions {
  routes: RouteSpec<any, any>[];
  deps: RouteDeps;
  bodyLimit: number;
  /** The JSON parser fastify uses for bodies (fastify's default one, with its prototype checks). */
  parseJson(body: string): unknown;
  /** The route's body from the parsed JSON, as the fastify path decodes it (throws its validation error). */
  parseBody<B>(route: RouteSpec<B, any>, value: unknown): B;
  /** The API version every answer carries. */
  apiVersion: string;
  closing(): boolean;
  logger: Logger;
  /** Logs a failed request as the fastify error handler does. */
  logFailure(log: Logger, err: unknown, response: ErrorResponse & { internal: boolean }): void;
}

const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

export function withHotRoutes(options: HotRouteOptions, next: RequestListener): RequestListener {
  const byPath = new Map<string, RouteSpec<any, any>>();
  for (const route of options.routes) {
    if (route.method !== 'POST' || route.minRole !== null || !route.body || route.query || route.url.includes(':')) {
      throw new Error(`route ${route.operationId} cannot be hot: only public POST routes with a body and a fixed path`);
    }
    byPath.set(route.url, route);
    byPath.set(`${route.url}/`, route);
  }
  const { bodyLimit, logger, apiVersion } = options;
  let requests = 0;

  return (req, res) => {
    const route = req.method === 'POST' ? byPath.get(req.url ?? '') : undefined;
    const headers = req.headers;
    const type = headers['content-type'];
    const length = headers['content-length'];
    if (
      route === undefined ||
      type === undefined ||
      !(JSON_TYPES.has(type) || JSON_TYPES.has(type.toLowerCase())) ||
      length === undefined ||
      !(Number(length) <= bodyLimit) ||
      headers['transfer-encoding'] !== undefined ||
      headers.expect !== undefined ||
      options.closing()
    ) {
      next(req, res);
      return;
    }
    // Timed only for the access log, which production runs often keep below info.
    const started = logger.isLevelEnabled('info') ? process.hrtime.bigint() : 0n;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      let value: unknown;
      try {
        value = options.parseJson(text);
      } catch (err) {
        // As fastify does after a body it could not parse: the client may still be sending.
        fail(req, res, started, err, true);
        return;
      }
      let result: Promise<RouteResult> | RouteResult;
      try {
        result = route.handler({
          body: options.parseBody(route, value),
          query: undefined,
          params: {},
          identity: null,
          deps: options.deps,
        });
      } catch (err) {
        fail(req, res, started, err, false);
        return;
      }
      if (result instanceof Promise) {
        result.then(
          (r) => answer(req, res, started, r),
          (err: unknown) => fail(req, res, started, err, false),
        );
      } else answer(req, res, started, result);
    });
  };

  function answer(req: IncomingMessage, res: ServerResponse, started: bigint, result: RouteResult): void {
    const json = result.json ?? JSON.stringify(result.body);
    send(req, res, started, result.status, json, result.headers, false);
  }

  function fail(req: IncomingMessage, res: ServerResponse, started: bigint, err: unknown, close: boolean): void {
    const response = toErrorResponse(err);
    options.logFailure(logger, err, response);
    send(req, res, started, response.status, JSON.stringify(response.body), response.headers, close);
  }

  function send(
    req: IncomingMessage,
    res: ServerResponse,
    started: bigint,
    status: number,
    json: string,
    extra: Record<string, string> | undefined,
    close: boolean,
  ): void {
    // The headers of fastify's answers (set in server.ts's hooks and the error handler), as a flat
    // list: no object to build and for node to walk (about 3% of a bare server's time per answer).
    // The extra headers (WWW-Authenticate) never repeat these names.
    const headers = ['api-version', apiVersion, 'cache-control', 'no-store', 'content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(json))];
    if (extra) for (const name in extra) headers.push(name, extra[name]!);
    if (close || options.closing()) headers.push('connection', 'close');
    res.writeHead(status, headers);
    res.end(json);
    // The line fastify's access log writes for its own routes (AccessLog in server.ts).
    if (started !== 0n) {
      const responseTime = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info({ reqId: `hot-${++requests}`, method: req.method, url: req.url, statusCode: status, responseTime }, 'request completed');
    }
  }
}
