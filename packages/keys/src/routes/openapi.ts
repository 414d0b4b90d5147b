import { z } from 'zod';
import { defineRoute, type RouteSpec } from './route.js';

type JsonSchema = Record<string, unknown>;

/**
 * JSON Schema 2020-12 from a zod schema, as OpenAPI 3.1 embeds it. Request bodies are described as
 * accepted (`input`: defaulted fields optional), responses as sent (`output`).
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      // zod spells out an ISO date-time as a long pattern; the format says the same to readers.
      if (ctx.jsonSchema.format === 'date-time') delete ctx.jsonSchema.pattern;
    },
  }) as JsonSchema;
  delete out.$schema;
  return out;
}

function queryParameters(schema: z.ZodType): JsonSchema[] {
  const object = jsonSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, s]) => {
    const { description, ...rest } = s;
    return {
      name,
      in: 'query',
      required: object.required?.includes(name) ?? false,
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

export function buildOpenApiDocument(routes: RouteSpec<any, any>[], info: { version: string }): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}');
    const pathParams = [...route.url.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const responses: Record<string, JsonSchema> = {};
    for (const [status, spec] of Object.entries(route.responses)) {
      responses[status] = {
        description: spec.description,
        headers: {
          'API-Version': { $ref: '#/components/headers/API-Version' },
          ...Object.fromEntries(Object.entries(spec.headers ?? {}).map(([name, description]) => [name, { description, schema: { type: 'string' } }])),
        },
        ...(spec.schema ? { content: { 'application/json': { schema: jsonSchema(spec.schema, 'output') } } } : {}),
      };
    }
    const parameters = [...pathParams, ...(route.query ? queryParameters(route.query) : [])];
    (paths[path] ??= {})[route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      security: route.minRole ? [{ bearerAuth: [] }] : [],
      ...(route.minRole ? { 'x-minimum-role': route.minRole } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(route.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Linework API key service',
      version: info.version,
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Issues, lists, updates, revokes, removes and verifies API keys of a user in an organization. ' +
        'Every response carries `API-Version: 1`. Failures answer `{success:false, error, code, details}`: `error` is a sentence, ' +
        '`code` a symbolic code (invalid_request, invalid_permissions, bad_request, unauthorized, insufficient_role, not_found, conflict, ' +
        'payload_too_large, unsupported_media_type, service_unavailable, internal_error, unknown_route, header_too_large), ' +
        '`details` the facts (details.issues: every invalid field of an invalid_request).',
    },
    // Relative: the paths start where the document was fetched from, whatever address and port the
    // service was started on or is reached through.
    servers: [{ url: '/', description: 'this service (the origin this document was fetched from)' }],
    tags: [
      { name: 'API keys', description: 'Keys of the caller in their organization, and their verification' },
      { name: 'Audit', description: "The organization's audit log (ADMIN or higher)" },
      { name: 'Service', description: 'Readiness and this description; no token needed' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'Claims: sub (user id), org (organization id), role (VIEWER < DEVELOPER < ADMIN < OWNER), and exp: a token ' +
            'without exp is refused (401 `Token lacks an exp claim: tokens must expire`). sub and org must not contain ' +
            'U+0000 or an unpaired surrogate (401).',
        },
      },
      headers: {
        'API-Version': { description: 'Version of this interface', schema: { type: 'string', const: '1' } },
      },
    },
  };
}

/** Serves a document computed once at start-up. */
export function openApiRoute(document: () => JsonSchema): RouteSpec {
  return defineRoute({
    method: 'GET',
    url: '/openapi.json',
    operationId: 'getOpenApi',
    summary: 'This OpenAPI 3.1 description',
    tag: 'Service',
    minRole: null,
    responses: { 200: { description: 'OpenAPI 3.1 document' } },
    handler: () => ({ status: 200, body: document() }),
  });
}
