// GET /openapi and /openapi.json: an OpenAPI 3.0.3 description generated from the op catalogue. Request body and
// parameter schemas come from each op's zod input, answer schemas from its zod output (zod 4
// `toJSONSchema`, target openapi-3.0). Each operation has one path: its resource route, or
// `POST /<op>` for an op without one; `POST /{op}` (any op by name) is described once.
import type { DispatcherApi, HttpRoute, OpDef } from '@linework/engine';
import { WRAPPER_OPS, compilePath } from './routes.js';
import { answerSchema, queryParameter, zodToOpenApi } from './openapi-answers.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The op's input as an OpenAPI 3.0 schema (its `$defs` in components under `<op>__`). */
function inputSchema(op: OpDef, components: Json): Json {
  return zodToOpenApi(op.input, op.name, 'input', components);
}

/** Query keys the route's `fromHttp` reads (observed through a proxy; its own validation errors ignored). */
function probeQuery(route: HttpRoute, params: string[]): { keys: string[]; arrayBodyField: string | null } {
  if (!route.fromHttp) return { keys: [], arrayBodyField: null };
  const seen: string[] = [];
  const query = new Proxy({} as Record<string, string>, {
    get(_t, key) {
      if (typeof key === 'string' && !seen.includes(key)) seen.push(key);
      return undefined;
    },
    has(_t, key) {
      if (typeof key === 'string' && !seen.includes(key)) seen.push(key);
      return false;
    },
  });
  const p = Object.fromEntries(params.map((n) => [n, 'x']));
  try {
    route.fromHttp({ params: p, query, body: {} });
  } catch {
    // e.g. a required parameter missing: the keys read so far still count
  }
  let arrayBodyField: string | null = null;
  if (route.method === 'PUT' || route.method === 'POST') {
    const marker: unknown[] = [];
    try {
      const out = route.fromHttp({ params: p, query: {}, body: marker });
      for (const [k, v] of Object.entries(out)) if (v === marker) arrayBodyField = k;
    } catch {
      // not an array body
    }
  }
  return { keys: seen.filter((k) => typeof k === 'string' && !k.startsWith('__') && k !== 'toJSON' && k !== 'then'), arrayBodyField };
}

function objectProps(schema: Json): Record<string, Json> {
  return isObject(schema.properties) ? (schema.properties as Record<string, Json>) : {};
}

function withoutProps(schema: Json, drop: string[]): Json {
  if (!isObject(schema.properties)) return schema;
  const props: Json = {};
  for (const [k, v] of Object.entries(schema.properties)) if (!drop.includes(k)) props[k] = v;
  const out: Json = { ...schema, properties: props };
  if (Array.isArray(schema.required)) {
    const req = (schema.required as string[]).filter((k) => !drop.includes(k));
    if (req.length) out.required = req;
    else delete out.required;
  }
  return out;
}

const ENVELOPE: Json = {
  type: 'object',
  description: 'Response envelope; routes may add fields of their own at the top level.',
  properties: {
    ok: { type: 'boolean' },
    code: { type: 'string', description: 'symbolic failure code when ok is false' },
    error: { type: 'string', description: 'human-readable failure message' },
    result: { description: 'payload of the operation' },
    status: { type: 'string', description: '`completed` for a finished operation' },
    http_status: { type: 'integer', description: 'the HTTP status of the response' },
    document_id: { type: 'integer' },
    request_id: {
      type: 'string',
      description:
        'idempotency key: a mutation repeated with a request_id of the last 10000 requests returns its first answer and changes nothing ' +
        '(answers holding more than 1M list items in all are let go sooner); one of the 100000 mutations before that answers ' +
        'request_id_expired and is not run again; older ids are forgotten',
    },
    version: { type: 'integer' },
    session_id: { type: 'string' },
    details: { description: 'facts about a failure' },
  },
  required: ['ok', 'http_status'],
  additionalProperties: true,
};

const FAILURE: Json = {
  type: 'object',
  properties: {
    ok: { type: 'boolean', enum: [false] },
    code: { type: 'string' },
    error: { type: 'string' },
    http_status: { type: 'integer' },
    details: {},
  },
  required: ['ok', 'code', 'error', 'http_status'],
  additionalProperties: true,
};

const json = (ref: string): Json => ({ 'application/json': { schema: { $ref: ref } } });

function failureResponses(): Json {
  const f = (description: string): Json => ({ description, content: json('#/components/schemas/Failure') });
  return {
    '400': f('failure (invalid_request, invalid_where, reply_too_large: the answer would pass the 128 MiB reply cap, and every code not listed below)'),
    '401': f('unauthorized: missing or wrong bearer token, or an API key that is unknown, revoked or expired'),
    '403': f('path_outside_root: a path outside the workspace root (symlinks resolved); nothing was read or written. insufficient_permissions: the API key lacks a permission of x-linework-permissions (details.required)'),
    '404': f('entity_absent or unknown_route'),
    '409': f('stale_state, session_changed, document_not_active or gui_required'),
    '429': f('API keys only: rate_limited (the key\'s rate limit; Retry-After and RateLimit-* headers) or usage_exceeded (its usage limit is used up)'),
    '431': f('header_too_large: request line, a header line or the header block too large'),
    '503': f('busy: the dispatcher queue is full. API keys only: keys_unavailable (the key service cannot verify keys now: down, or no answer within 2 s), session_unavailable'),
  };
}

/** The op's example input as an OpenAPI media example (without the fields the path and query carry). */
function exampleOf(op: OpDef, drop: string[], arrayField: string | null = null): Json {
  if (!op.example) return {};
  if (arrayField) return op.example[arrayField] === undefined ? {} : { example: op.example[arrayField] };
  return { example: Object.fromEntries(Object.entries(op.example).filter(([k]) => !drop.includes(k))) };
}

/** Drops result components no answer refers to (a route that lifts every field keeps its own copy). */
function pruneResults(doc: Json, components: Json): void {
  const text = JSON.stringify(doc.paths);
  for (const name of Object.keys(components)) if (name.endsWith('_result') && !text.includes(`"#/components/schemas/${name}"`)) delete components[name];
}

export interface OpenApiOptions {
  /** `servers[0].url`, e.g. `http://127.0.0.1:8080/api/v1`. */
  serverUrl: string;
}

/** Builds the OpenAPI 3.0.3 document of the API (paths relative to /api/v1). */
export function buildOpenApi(api: Pick<DispatcherApi, 'catalogue' | 'appVersion'>, options: OpenApiOptions): Json {
  const components: Json = { Envelope: ENVELOPE, Failure: FAILURE };
  const paths: Record<string, Json> = {};
  const opIds = new Set<string>();
  const uniqueId = (base: string): string => {
    let id = base;
    for (let i = 2; opIds.has(id); i++) id = `${base}_${i}`;
    opIds.add(id);
    return id;
  };
  const add = (path: string, method: string, operation: Json): void => {
    const item = (paths[path] ??= {});
    if (!(method in item)) item[method] = operation;
  };

  for (const op of api.catalogue) {
    const schema = inputSchema(op, components);
    for (const route of op.http) {
      const segments = compilePath(route.path);
      const params = segments.flatMap((s) => ('param' in s ? [s.param] : []));
      const oaPath = '/' + segments.map((s) => ('param' in s ? `{${s.param}}` : s.literal)).join('/');
      const props = objectProps(schema);
      const probe = probeQuery(route, params);
      let queryKeys = probe.keys.filter((k) => !params.includes(k));
      if (!route.fromHttp && (route.method === 'GET' || route.method === 'DELETE')) queryKeys = [];
      const parameters: Json[] = [
        ...params.map((name) => ({
          name,
          in: 'path',
          required: true,
          schema: { type: 'string' },
          ...(typeof props[name]?.description === 'string' ? { description: props[name]!.description } : {}),
        })),
        ...queryKeys.map((name) => ({
          name,
          in: 'query',
          required: false,
          ...queryParameter(props[name]),
          ...(typeof props[name]?.description === 'string' ? { description: props[name]!.description } : {}),
        })),
      ];
      const operation: Json = {
        operationId: uniqueId(`${route.method.toLowerCase()}_${op.name}`),
        summary: route.summary ?? op.summary,
        tags: [op.mutates ? 'mutations' : 'reads'],
        ...(parameters.length ? { parameters } : {}),
        'x-linework-op': op.name,
        'x-linework-wrapper': route.wrapper,
        'x-linework-permissions': op.permissions,
        responses: {
          [String(route.status)]: { description: route.status === 201 ? 'created' : 'success', content: { 'application/json': { schema: answerSchema(op, route, ENVELOPE, components) } } },
          ...failureResponses(),
        },
      };
      if (route.method === 'POST' || route.method === 'PUT' || (route.method === 'DELETE' && !route.fromHttp)) {
        let bodySchema: Json;
        const arrayField = probe.arrayBodyField;
        if (arrayField && props[arrayField]) bodySchema = props[arrayField]!;
        else bodySchema = withoutProps(schema, [...params, ...queryKeys]);
        operation.requestBody = {
          required: false,
          description: 'JSON; an empty or invalid body counts as {}' + (arrayField ? ' (here: null or invalid means [])' : ''),
          content: { 'application/json': { schema: bodySchema, ...exampleOf(op, [...params, ...queryKeys], arrayField) } },
        };
      }
      add(oaPath, route.method.toLowerCase(), operation);
    }
  }

  // POST /<op>: the one path of an op without a resource route, typed like a route.
  for (const op of api.catalogue.filter((o) => o.http.length === 0)) {
    const schema = inputSchema(op, components);
    const wrapper = WRAPPER_OPS.has(op.name);
    const bodySchema: Json = isObject(schema.properties)
      ? {
          ...schema,
          properties: {
            ...schema.properties,
            request_id: { type: 'string', description: wrapper ? 'default http-<pid>-<counter>' : 'default rest-<serial>' },
            ...(op.needsDocument && !('document_id' in schema.properties) ? { document_id: { type: 'integer' } } : {}),
          },
        }
      : schema;
    add(`/${op.name}`, 'post', {
      operationId: uniqueId(`op_${op.name}`),
      summary: op.summary,
      tags: ['ops'],
      'x-linework-op': op.name,
      'x-linework-wrapper': wrapper,
      'x-linework-permissions': op.permissions,
      requestBody: { required: false, content: { 'application/json': { schema: bodySchema, ...exampleOf(op, []) } } },
      responses: { '200': { description: 'success', content: { 'application/json': { schema: answerSchema(op, null, ENVELOPE, components) } } }, ...failureResponses() },
    });
  }

  // POST /{op}: the ops that have resource routes, by name: the same operations, said once here.
  const routed = api.catalogue.filter((o) => o.http.length > 0);
  add('/{op}', 'post', {
    operationId: uniqueId('run_op'),
    summary: 'Runs an operation by name: the same operation as its resource route (x-alias-of), with the op\'s fields as the JSON body.',
    description:
      'The body holds the op\'s input fields (see its resource route) and optionally request_id and document_id. ' +
      `These ops run through the mutation wrapper here: ${routed.filter((o) => WRAPPER_OPS.has(o.name)).map((o) => o.name).join(', ')}.`,
    tags: ['ops'],
    'x-alias-of': Object.fromEntries(routed.map((o) => [o.name, `${o.http[0]!.method} ${o.http[0]!.path || '/'}`])),
    parameters: [{ name: 'op', in: 'path', required: true, schema: { type: 'string', enum: routed.map((o) => o.name) }, description: 'the operation' }],
    requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } },
    responses: { '200': { description: 'success: the answer of the op\'s resource route', content: json('#/components/schemas/Envelope') }, ...failureResponses() },
  });

  add('/openapi', 'get', {
    operationId: uniqueId('get_openapi'),
    summary: 'This OpenAPI 3.0.3 description inside the envelope rule: `http_status` is added at its top level.',
    tags: ['reads'],
    responses: {
      '200': { description: 'the OpenAPI document plus `http_status`', content: { 'application/json': { schema: { type: 'object' } } } },
      '401': { description: 'unauthorized', content: json('#/components/schemas/Failure') },
    },
  });
  add('/openapi.json', 'get', {
    operationId: uniqueId('get_openapi_json'),
    summary: 'This OpenAPI 3.0.3 description exactly, for OpenAPI tools (no `http_status`).',
    tags: ['reads'],
    responses: {
      '200': { description: 'the OpenAPI document', content: { 'application/json': { schema: { type: 'object' } } } },
      '401': { description: 'unauthorized', content: json('#/components/schemas/Failure') },
    },
  });

  const sortedPaths: Record<string, Json> = {};
  for (const k of Object.keys(paths).sort()) sortedPaths[k] = paths[k]!;
  pruneResults({ paths: sortedPaths }, components);

  return {
    openapi: '3.0.3',
    info: {
      title: 'Linework drawing automation',
      version: api.appVersion,
      license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
      description:
        'Resource routes over the Linework operation dispatcher. Every request needs `Authorization: Bearer <token>`. ' +
        'With --keys-url an API key of the key service may take the token\'s place: it must hold every permission the operation lists ' +
        'in x-linework-permissions, and the request runs in the session of the key\'s organization. ' +
        'One request per connection; failures use {ok:false, code, error, http_status}. ' +
        'Every file path (open, save, plot, wblock, images) stays inside the workspace root; relative paths start there. ' +
        'Answers are capped at 128 MiB of JSON (reply_too_large: page with limit and offset). ' +
        'The request head must arrive within 5 s of connecting and the body within 30 s after it.',
    },
    servers: [{ url: options.serverUrl }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'reads', description: 'routes that read' },
      { name: 'mutations', description: 'routes that change documents' },
      { name: 'ops', description: 'POST /{op}: any operation by name' },
    ],
    paths: sortedPaths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http', scheme: 'bearer',
          description: 'the session token (SERVICE_API_TOKEN or generated at startup), or with --keys-url an API key (lwk_...) holding every permission of the operation\'s x-linework-permissions',
        },
      },
      schemas: components,
    },
  };
}
