import type { z } from 'zod';
import type { Identity, Role } from '../auth.js';
import type { KeyService } from '../service.js';

export interface RouteDeps {
  service: KeyService;
}

export interface RouteContext<B, Q> {
  body: B;
  query: Q;
  params: Record<string, string>;
  /** The verified caller; null on public routes. */
  identity: Identity | null;
  deps: RouteDeps;
}

export interface RouteResult {
  status: number;
  /** Sent as JSON. */
  body?: unknown;
  /**
   * The JSON body already serialised (exactly the bytes `JSON.stringify(body)` gives), for routes
   * that answer many requests with the same body and serialise it once.
   */
  json?: string;
  headers?: Record<string, string>;
}

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Response headers besides API-Version, by name, with their description. */
  headers?: Record<string, string>;
}

/**
 * One endpoint: what it accepts, who may call it, what it answers and how. The server registers
 * routes from these, and the OpenAPI document is generated from the same objects.
 */
export interface RouteSpec<B = unknown, Q = unknown> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Fastify path syntax (`:id`). */
  url: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Minimum role; null for routes that need no token. */
  minRole: Role | null;
  body?: z.ZodType<B>;
  /**
   * A cheap check of the usual valid body for hot routes: returns what `body` would parse it to, or
   * undefined when unsure, and then `body` decides (and words any error).
   */
  quickBody?: (value: unknown) => B | undefined;
  query?: z.ZodType<Q>;
  /**
   * Answered straight on node:http in the plain case, outside fastify's request cycle (see
   * hot-routes.ts): for public POST routes whose rate matters.
   */
  hot?: boolean;
  responses: Record<number, ResponseSpec>;
  handler(ctx: RouteContext<B, Q>): Promise<RouteResult> | RouteResult;
}

/** Keeps the body/query types of a route inferred from its schemas. */
export function defineRoute<B = undefined, Q = undefined>(spec: RouteSpec<B, Q>): RouteSpec<B, Q> {
  return spec;
}

/** Identity of an authenticated route: the server guarantees it before the handler runs. */
export function caller(ctx: { identity: Identity | null }): Identity {
  if (!ctx.identity) throw new Error('route declared a role but ran without an identity');
  return ctx.identity;
}
