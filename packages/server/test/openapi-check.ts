// Quick structural checks of an OpenAPI 3.0.3 document, synchronous and with readable messages:
// the fields the format requires, path parameters declared, every $ref resolvable, and schema
// keywords that OpenAPI 3.0 does not know (JSON Schema 2019+/draft-6+ only) absent. The full
// validation and lint by OpenAPI tooling is scripts/openapi-tools.ts (openapi-contract.test.ts).
type Json = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const NOT_IN_OAS30 = ['$schema', '$defs', 'const', 'prefixItems', 'examples', 'if', 'then', 'else', 'dependentSchemas', 'unevaluatedProperties', 'contains', 'propertyNames', '$id'];
const SCHEMA_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'];

export function checkOpenApi(doc: Json): string[] {
  const errors: string[] = [];
  const err = (m: string): void => void errors.push(m);
  if (doc.openapi !== '3.0.3') err('openapi is not 3.0.3');
  if (typeof doc.info?.title !== 'string' || typeof doc.info?.version !== 'string') err('info.title and info.version are required strings');
  if (typeof doc.paths !== 'object' || doc.paths === null) err('paths is required');
  const resolve = (ref: string): unknown => {
    if (!ref.startsWith('#/')) return undefined;
    let cur: any = doc;
    for (const part of ref.slice(2).split('/')) cur = cur?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    return cur;
  };
  const checkSchema = (s: unknown, where: string): void => {
    if (typeof s !== 'object' || s === null || Array.isArray(s)) return err(`${where}: schema is not an object`);
    const o = s as Json;
    if (typeof o.$ref === 'string') {
      if (resolve(o.$ref) === undefined) err(`${where}: unresolved $ref ${o.$ref}`);
      return;
    }
    for (const k of NOT_IN_OAS30) if (k in o) err(`${where}: keyword ${k} is not OpenAPI 3.0`);
    if ('type' in o && (typeof o.type !== 'string' || !SCHEMA_TYPES.includes(o.type))) err(`${where}: type ${JSON.stringify(o.type)} is not an OpenAPI 3.0 type`);
    if (o.type === 'array' && !('items' in o)) err(`${where}: array schema without items`);
    if (Array.isArray(o.items)) err(`${where}: items must be a schema, not an array (tuple)`);
    if ('exclusiveMinimum' in o && typeof o.exclusiveMinimum !== 'boolean') err(`${where}: exclusiveMinimum must be boolean in 3.0`);
    if ('exclusiveMaximum' in o && typeof o.exclusiveMaximum !== 'boolean') err(`${where}: exclusiveMaximum must be boolean in 3.0`);
    if ('required' in o && (!Array.isArray(o.required) || o.required.length === 0)) err(`${where}: required must be a non-empty array`);
    for (const [k, v] of Object.entries(o.properties ?? {})) checkSchema(v, `${where}.properties.${k}`);
    if (o.items && !Array.isArray(o.items)) checkSchema(o.items, `${where}.items`);
    if (typeof o.additionalProperties === 'object') checkSchema(o.additionalProperties, `${where}.additionalProperties`);
    for (const k of ['allOf', 'anyOf', 'oneOf']) {
      if (k in o) {
        if (!Array.isArray(o[k])) err(`${where}.${k} must be an array`);
        else (o[k] as unknown[]).forEach((x, i) => checkSchema(x, `${where}.${k}[${i}]`));
      }
    }
    if ('not' in o) checkSchema(o.not, `${where}.not`);
  };
  const opIds = new Set<string>();
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    if (!path.startsWith('/')) err(`path ${path} does not start with /`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    for (const [method, op] of Object.entries<Json>(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!METHODS.includes(method)) {
        err(`${where}: unknown method`);
        continue;
      }
      if (typeof op.operationId === 'string') {
        if (opIds.has(op.operationId)) err(`${where}: duplicate operationId ${op.operationId}`);
        opIds.add(op.operationId);
      }
      const params: Json[] = op.parameters ?? [];
      for (const p of params) {
        if (typeof p.name !== 'string' || !['path', 'query', 'header', 'cookie'].includes(p.in)) err(`${where}: bad parameter ${JSON.stringify(p)}`);
        if (p.in === 'path' && p.required !== true) err(`${where}: path parameter ${p.name} must be required`);
        if (p.in === 'path' && !templated.includes(p.name)) err(`${where}: path parameter ${p.name} not in the path`);
        if (p.schema) checkSchema(p.schema, `${where} parameter ${p.name}`);
        else err(`${where}: parameter ${p.name} without schema`);
      }
      for (const t of templated) if (!params.some((p) => p.in === 'path' && p.name === t)) err(`${where}: {${t}} is not declared`);
      const keys = new Set(params.map((p) => `${p.in}:${p.name}`));
      if (keys.size !== params.length) err(`${where}: duplicate parameters`);
      if (!op.responses || Object.keys(op.responses).length === 0) err(`${where}: no responses`);
      for (const [code, res] of Object.entries<Json>(op.responses ?? {})) {
        if (!/^([1-5]\d\d|[1-5]XX|default)$/.test(code)) err(`${where}: response code ${code}`);
        if (typeof res.description !== 'string') err(`${where} ${code}: description required`);
        for (const [mt, media] of Object.entries<Json>(res.content ?? {})) if (media.schema) checkSchema(media.schema, `${where} ${code} ${mt}`);
      }
      if (op.requestBody) {
        const content = op.requestBody.content;
        if (!content || Object.keys(content).length === 0) err(`${where}: requestBody without content`);
        for (const [mt, media] of Object.entries<Json>(content ?? {})) if (media.schema) checkSchema(media.schema, `${where} body ${mt}`);
      }
      for (const sec of op.security ?? doc.security ?? []) {
        for (const name of Object.keys(sec)) if (!doc.components?.securitySchemes?.[name]) err(`${where}: security scheme ${name} undefined`);
      }
    }
  }
  for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) checkSchema(s, `components.schemas.${name}`);
  for (const [name, s] of Object.entries<Json>(doc.components?.securitySchemes ?? {})) {
    if (!['apiKey', 'http', 'oauth2', 'openIdConnect'].includes(s.type)) err(`securityScheme ${name}: bad type`);
  }
  return errors;
}
