// The route table, built from the op catalogue (every op declares its HTTP routes), and the
// decoding of request targets: prefix, trailing slash, path parameters, query string.
import type { HttpRoute, OpDef } from '@linework/engine';

export const API_PREFIX = '/api/v1';

/** Ops that `POST /{op}` runs through the mutation wrapper (spec route table). */
export const WRAPPER_OPS: ReadonlySet<string> = new Set([
  'entities_create', 'entities_delete', 'entities_transform', 'block_define', 'block_delete', 'file_identity',
  'xdata_set', 'view_focus', 'wblock', 'plot', 'embed_image', 'set_properties', 'property', 'activate',
  'get_selection', 'getpoint',
]);


/** Methods with routes; any other method is 405 method_not_allowed. */
export const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export type RouteMethod = (typeof ROUTE_METHODS)[number];

export function isRouteMethod(m: string): m is RouteMethod {
  return (ROUTE_METHODS as readonly string[]).includes(m);
}

type Segment = { literal: string } | { param: string };

export interface CompiledRoute {
  op: OpDef;
  route: HttpRoute;
  segments: Segment[];
  /** Higher wins when two routes match: literal segments beat parameters, leftmost first. */
  rank: number;
}

export interface RouteMatch {
  op: OpDef;
  route: HttpRoute;
  params: Record<string, string>;
}

/** Splits a route path such as '/entities/{handle}/xdata/{app}' (or '' for the API root). */
export function compilePath(path: string): Segment[] {
  return path
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => {
      const m = /^\{([^{}]+)\}$/.exec(s);
      return m ? { param: m[1]! } : { literal: s };
    });
}

export class Router {
  private readonly byMethod = new Map<string, CompiledRoute[]>();
  readonly routes: CompiledRoute[] = [];
  private readonly ops: Map<string, OpDef>;

  constructor(catalogue: readonly OpDef[]) {
    this.ops = new Map(catalogue.map((o) => [o.name, o]));
    for (const op of catalogue) {
      for (const route of op.http) {
        const segments = compilePath(route.path);
        let rank = 0;
        segments.forEach((s, i) => {
          if ('literal' in s) rank += 2 ** (16 - Math.min(i, 16));
        });
        const c: CompiledRoute = { op, route, segments, rank };
        this.routes.push(c);
        const list = this.byMethod.get(route.method) ?? [];
        list.push(c);
        this.byMethod.set(route.method, list);
      }
    }
  }

  hasOp(name: string): boolean {
    return this.ops.has(name);
  }

  /** The catalogue entry of an op by name (`POST /{op}`). */
  op(name: string): OpDef | undefined {
    return this.ops.get(name);
  }

  /** The declared route for a method and decoded path segments (under /api/v1), if any. */
  match(method: string, segments: string[]): RouteMatch | null {
    let best: CompiledRoute | null = null;
    let bestParams: Record<string, string> = {};
    for (const c of this.byMethod.get(method) ?? []) {
      if (c.segments.length !== segments.length) continue;
      if (best && c.rank <= best.rank) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segments.length; i++) {
        const s = c.segments[i]!;
        if ('literal' in s) {
          if (s.literal !== segments[i]) {
            ok = false;
            break;
          }
        } else {
          params[s.param] = segments[i]!;
        }
      }
      if (ok) {
        best = c;
        bestParams = params;
      }
    }
    return best ? { op: best.op, route: best.route, params: bestParams } : null;
  }
}

/** Decodes percent-escapes, and `+` as a space; a malformed escape leaves the text as sent. */
export function decodeComponent(s: string): string {
  const spaced = s.includes('+') ? s.replace(/\+/g, ' ') : s;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** Parses a query string; keys and values are decoded; the first occurrence of a key wins. */
export function parseQuery(qs: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  if (!qs) return out;
  for (const part of qs.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const key = decodeComponent(eq === -1 ? part : part.slice(0, eq));
    const value = eq === -1 ? '' : decodeComponent(part.slice(eq + 1));
    if (key && !(key in out)) out[key] = value;
  }
  return { ...out };
}

export interface Target {
  /** Decoded path segments under /api/v1 (trailing slashes dropped); null when outside /api/v1. */
  segments: string[] | null;
  query: Record<string, string>;
}

/** Splits a request target into the API path segments and the query. */
export function parseTarget(target: string): Target {
  let t = target;
  // absolute-form (a proxy-style request): keep only the path and query.
  const abs = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/.exec(t);
  if (abs) t = t.slice(abs[0].length) || '/';
  const hash = t.indexOf('#');
  if (hash !== -1) t = t.slice(0, hash);
  const qm = t.indexOf('?');
  let path = qm === -1 ? t : t.slice(0, qm);
  const query = parseQuery(qm === -1 ? '' : t.slice(qm + 1));
  while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (path !== API_PREFIX && !path.startsWith(API_PREFIX + '/')) return { segments: null, query };
  const rest = path.slice(API_PREFIX.length);
  const segments = rest === '' ? [] : rest.slice(1).split('/').map(decodeComponent);
  return { segments, query };
}
