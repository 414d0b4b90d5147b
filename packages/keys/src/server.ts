import { createServer, maxHeaderSize, type RequestListener } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { z } from 'zod';
import { requireRole, type Authenticator, type Identity } from './auth.js';
import { ApiError, failureBody, toErrorResponse, validationError, type ErrorResponse } from './errors.js';
import { withHotRoutes } from './hot-routes.js';
import { PermissionSet } from './permissions.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { listAuditLogs } from './routes/audit-logs.js';
import { health } from './routes/health.js';
import { buildOpenApiDocument, openApiRoute } from './routes/openapi.js';
import type { RouteDeps, RouteSpec } from './routes/route.js';
import { verifyApiKey } from './routes/verify.js';
import { KeyService } from './service.js';
import { SERVICE_VERSION } from './version.js';
import type { KeyStore } from './store/types.js';

export const API_VERSION = '1';

/**
 * Counting right behind the answers where the database is this process's own file (SQLite): there a
 * commit per batch is most of a verification's cost. On PostgreSQL, shared by scaled-out processes,
 * each answer follows its committed count, so every process lists exact counts at once.
 */
export function defaultCountFlushMs(dialect: KeyStore['dialect']): number {
  return dialect === 'sqlite' ? 10 : 0;
}
export { SERVICE_VERSION };

declare module 'fastify' {
  interface FastifyRequest {
    identity: Identity | null;
  }
}

export interface ServerOptions {
  store: KeyStore;
  authenticate: Authenticator;
  logger: Logger;
  /** Allowed permission values (API_KEY_PERMISSIONS). */
  permissions: string[];
  maxActiveKeysPerOwner?: number;
  bodyLimit?: number;
  /**
   * How long a verification's count may wait in memory before it is written (0: before the answer
   * leaves). Default: the store's (see {@link defaultCountFlushMs}).
   */
  countFlushMs?: number;
  /** Close the store when the server closes, after the last counts are written. */
  closeStore?: boolean;
  /** Clock, replaceable in tests. */
  now?: () => Date;
}

/** One access-log line per request (method, path, status, time) at info; the incoming line at debug. */
class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (enabled(request.log, 'debug')) request.log.debug({ method: request.method, url: pathOf(request.url) }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // The line is built only when it will be written: below info this runs for nothing on every request.
    if (!enabled(reply.log, error ? 'error' : 'info')) return;
    const line = { method: request.method, url: pathOf(request.url), statusCode: reply.statusCode, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/** Request loggers are children of the pino logger given to fastify, so they are pino loggers. */
function enabled(log: FastifyBaseLogger, level: 'debug' | 'info' | 'error'): boolean {
  return (log as unknown as Logger).isLevelEnabled(level);
}

/** Query strings are dropped from logs: cursors and filters are of no use there. */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * Malformed HTTP never reaches a route; answer it in the envelope too (with the version header),
 * then close the connection as the HTTP parser state is unknown.
 */
function clientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, text, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'Request headers too large']
      : [400, 'Bad Request', 'Malformed HTTP request'];
  const body = JSON.stringify(failureBody(status === 431 ? 'header_too_large' : 'bad_request', message));
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\nAPI-Version: ${API_VERSION}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Failures that are ours are logged at error, unavailability at warn; client errors are not logged. */
function logFailure(log: FastifyBaseLogger | Logger, err: unknown, response: ErrorResponse & { internal: boolean }): void {
  if (response.internal) log.error({ err }, 'request failed');
  else if (response.status >= 500) log.warn({ err }, 'request failed');
}

function parseWith<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationError(result.error);
}

/** A route's body: its quick check of the usual shape, else its schema (which words any error). */
function bodyOf<B>(route: RouteSpec<B, any>, value: unknown): B {
  return route.quickBody?.(value) ?? parseWith(route.body!, value);
}

export function allRoutes(): RouteSpec<any, any>[] {
  return [...apiKeyRoutes, verifyApiKey, listAuditLogs, health];
}

/** The HTTP application over a store; listening and shutdown belong to the caller. */
export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const bodyLimit = options.bodyLimit ?? 64 * 1024;
  // Fastify's own request listener, handed over in serverFactory; the hot routes pass everything
  // else on to it. `listeners.hot` is set below, once the routes are known.
  let fastifyListener: RequestListener | undefined;
  const listeners: { hot?: RequestListener } = {};
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    logController: new AccessLog(),
    bodyLimit,
    // Never trust a client-supplied request id: it would be echoed into our logs.
    requestIdHeader: false,
    clientErrorHandler: clientError,
    // Requests arriving during shutdown get a 503 in the envelope (onRequest below).
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // No id is too long to be looked up and answered 404 like any unknown one: the router's own
    // limit answers 414 outside the request cycle (no hooks, so none of the usual headers). Node
    // refuses a request line longer than maxHeaderSize before the router sees it.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: maxHeaderSize },
    // The service answers the routes its OpenAPI document lists and no others: HEAD is not one
    // (it would run a GET's handler, a list included, to send nothing).
    exposeHeadRoutes: false,
    serverFactory: (handler, opts) => {
      fastifyListener = handler;
      const server = createServer(opts.http ?? {}, (req, res) => (listeners.hot ?? handler)(req, res));
      // What fastify sets on the servers it creates itself (its options arrive with defaults filled).
      const timeouts = opts as { keepAliveTimeout?: number; requestTimeout?: number };
      server.keepAliveTimeout = timeouts.keepAliveTimeout ?? 72_000;
      server.requestTimeout = timeouts.requestTimeout ?? 0;
      return server;
    },
    frameworkErrors: (error, _request, reply) => {
      const { status, body } = toErrorResponse(error);
      // Raised before the onRequest hook, so the headers it sets are set here too.
      void (reply as FastifyReply).code(status).header('API-Version', API_VERSION).header('Cache-Control', 'no-store').send(body);
    },
  });

  const service = new KeyService({
    store: options.store,
    permissions: new PermissionSet(options.permissions),
    maxActiveKeysPerOwner: options.maxActiveKeysPerOwner ?? 100,
    countFlushMs: options.countFlushMs ?? defaultCountFlushMs(options.store.dialect),
    onCountWriteError: (err, uses) => options.logger.error({ err, uses }, 'writing verification counts failed; kept for the next write'),
    onAuditFailure: (err) => options.logger.error({ err }, 'writing the audit record of a denied attempt failed'),
    ...(options.now ? { now: options.now } : {}),
  });
  // After the last request has been answered: its counts go to the database, then the database closes.
  app.addHook('onClose', async () => {
    try {
      await service.close();
    } finally {
      if (options.closeStore) await options.store.close();
    }
  });
  const deps: RouteDeps = { service };

  // Bodies are JSON only: anything else is refused (415) rather than parsed as a string.
  app.removeContentTypeParser('text/plain');
  // Routes without a body (GET, DELETE) ignore an empty one even when a client labels it JSON, as
  // many HTTP clients do by default; routes that take a body still refuse an empty one.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && !(request.routeOptions.config as { takesBody?: boolean }).takesBody) return done(null, undefined);
    json(request, body as string, done);
  });
  app.decorateRequest('identity', null);
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (_request, reply, done) => {
    // Every answer, errors and 404s included, carries the version; none may be cached (keys).
    reply.header('API-Version', API_VERSION).header('Cache-Control', 'no-store');
    done(closing ? new ApiError('SERVICE_UNAVAILABLE', 'Service is shutting down') : undefined);
  });
  app.addHook('onSend', (_request, reply, _payload, done) => {
    // Answers finished during shutdown close their connection; otherwise a keep-alive client
    // would hold the server open until its idle timeout.
    if (closing) void reply.header('Connection', 'close');
    done();
  });

  app.setErrorHandler((error, request, reply) => {
    const response = toErrorResponse(error);
    logFailure(request.log, error, response);
    if (response.headers) void reply.headers(response.headers);
    return reply.code(response.status).send(response.body);
  });

  app.setNotFoundHandler((request, reply) => {
    return reply.code(404).send(failureBody('unknown_route', `Route not found: ${request.method} ${pathOf(request.url).slice(0, 200)}`));
  });

  const routes = allRoutes();
  let document: Record<string, unknown> | undefined;
  const openapi = openApiRoute(() => (document ??= buildOpenApiDocument([...routes, openapi], { version: SERVICE_VERSION })));

  for (const route of [...routes, openapi]) {
    const minRole = route.minRole;
    app.route({
      method: route.method,
      url: route.url,
      config: { takesBody: route.body !== undefined },
      // Authenticate before the body is read, so anonymous callers cannot make us parse 64 KiB.
      ...(minRole
        ? {
            onRequest: async (request: FastifyRequest) => {
              const identity = await options.authenticate(request.headers.authorization);
              requireRole(identity, minRole);
              request.identity = identity;
            },
          }
        : {}),
      handler: async (request, reply) => {
        const result = await route.handler({
          body: route.body ? bodyOf(route, request.body) : undefined,
          query: route.query ? parseWith(route.query, request.query) : undefined,
          params: request.params as Record<string, string>,
          identity: request.identity,
          deps,
        });
        if (result.headers) void reply.headers(result.headers);
        // The content type fastify gives a serialised object, so both forms answer the same bytes.
        if (result.json !== undefined) return reply.code(result.status).type('application/json; charset=utf-8').send(result.json);
        return reply.code(result.status).send(result.body);
      },
    });
  }

  if (!fastifyListener) throw new Error('fastify did not hand over its request listener');
  listeners.hot = withHotRoutes(
    {
      routes: routes.filter((route) => route.hot),
      deps,
      bodyLimit,
      parseJson: (text) => {
        let parsed: unknown;
        let failure: unknown;
        json(undefined as unknown as FastifyRequest, text, (err, value) => {
          failure = err;
          parsed = value;
        });
        if (failure) throw failure;
        return parsed;
      },
      parseBody: bodyOf,
      apiVersion: API_VERSION,
      closing: () => closing,
      logger: options.logger,
      logFailure,
    },
    fastifyListener,
  );
  return app;
}
