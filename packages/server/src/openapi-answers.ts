// The typed parts of the OpenAPI document: each route's answer schema from the op's declared
// output (with the fields its `toHttp` lifts to the top level), and query parameters with the types
// of the op's input fields they fill.
import { z } from 'zod';
import type { HttpRoute, OpDef } from '@linework/engine';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A zod schema as an OpenAPI 3.0 schema; `$defs` move into components under `<name>__` (refs
 * rewritten). Unrepresentable parts (transforms, custom checks) are described as any value.
 */
export function zodToOpenApi(schema: z.ZodTypeAny, name: string, io: 'input' | 'output', components: Json): Json {
  let out: Json;
  try {
    out = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as Json;
  } catch {
    return { type: 'object' };
  }
  const prefix = `${name}__`;
  const defs = isObject(out.$defs) ? out.$defs : isObject(out.definitions) ? out.definitions : null;
  delete out.$defs;
  delete out.definitions;
  delete out.$schema;
  delete out.$id;
  const rewrite = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rewrite);
    if (!isObject(v)) return v;
    const r: Json = {};
    for (const [k, val] of Object.entries(v)) {
      if (k === '$ref' && typeof val === 'string') {
        if (val === '#') r[k] = `#/components/schemas/${prefix}root`;
        else r[k] = val.replace(/^#\/(\$defs|definitions)\//, `#/components/schemas/${prefix}`);
      } else if (k !== '$schema' && k !== '$id') {
        r[k] = rewrite(val);
      }
    }
    return r;
  };
  const body = collapseAnyOf(rewrite(out)) as Json;
  if (defs) for (const [n, def] of Object.entries(defs)) components[`${prefix}${n}`] = collapseAnyOf(rewrite(def));
  if (JSON.stringify(body).includes(`#/components/schemas/${prefix}root`)) components[`${prefix}root`] = body;
  return body;
}

/**
 * zod writes a fixed-length tuple of one type for OpenAPI 3.0 (which has no `prefixItems`) as
 * `items: {anyOf: [same, same, ...]}`; one copy says the same (and validators and linters flag the
 * repeats as illogical).
 */
export function collapseAnyOf(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(collapseAnyOf);
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const [k, val] of Object.entries(v)) out[k] = collapseAnyOf(val);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = out[key];
    if (!Array.isArray(list) || list.length === 0) continue;
    const first = JSON.stringify(list[0]);
    if (!list.every((x) => JSON.stringify(x) === first)) continue;
    const { [key]: _same, ...rest } = out;
    const only = list[0];
    // The single schema replaces the list when nothing beside it would clash.
    if (isObject(only) && Object.keys(only).every((k) => !(k in rest))) return { ...rest, ...only };
    return { ...rest, allOf: [only] };
  }
  return out;
}

/** The component name of an op's result schema. */
export const resultComponent = (op: OpDef): string => `${op.name}_result`;

/** Registers the op's result schema (once) and returns a reference to it. */
export function resultRef(op: OpDef, components: Json): Json {
  const name = resultComponent(op);
  if (!(name in components)) {
    components[name] = op.output
      ? { ...zodToOpenApi(op.output, name, 'output', components), description: `result of ${op.name}` }
      : { type: 'object', additionalProperties: true, description: `result of ${op.name} (not described)` };
  }
  return { $ref: `#/components/schemas/${name}` };
}


/**
 * What a route's `toHttp` does with the result, observed on markers: which result fields it lifts
 * to the top level (under which name), and which stay in `result` (all, or a subset).
 */
export function probeBody(route: HttpRoute, resultFields: string[]): { lifted: Map<string, string>; kept: string[] | 'all'; constants: Json } {
  if (!route.toHttp) return { lifted: new Map(), kept: 'all', constants: {} };
  const markers = new Map<object, string>();
  const result: Json = {};
  for (const f of resultFields) {
    const m = { probe: f };
    markers.set(m, f);
    result[f] = m;
  }
  let body: Json;
  try {
    body = route.toHttp({ ok: true, status: 'completed', result });
  } catch {
    return { lifted: new Map(), kept: 'all', constants: {} };
  }
  const lifted = new Map<string, string>();
  const constants: Json = {};
  let kept: string[] | 'all' = 'all';
  for (const [k, v] of Object.entries(body)) {
    if (k === 'result') {
      if (v !== result && isObject(v)) kept = Object.values(v).flatMap((x) => (isObject(x) && markers.has(x) ? [markers.get(x)!] : []));
      continue;
    }
    if (isObject(v) && markers.has(v)) lifted.set(k, markers.get(v)!);
    else if (typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') constants[k] = v;
  }
  return { lifted, kept, constants };
}

/**
 * The success answer of a route: the envelope with `result` typed by the op's output schema, plus
 * the fields the route's `toHttp` lifts to the top level.
 */
export function answerSchema(op: OpDef, route: HttpRoute | null, envelope: Json, components: Json): Json {
  const ref = resultRef(op, components);
  const resolved = components[resultComponent(op)] as Json;
  const resultProps: Json = isObject(resolved.properties) ? resolved.properties : {};
  const props: Json = { ...(isObject(envelope.properties) ? envelope.properties : {}), result: ref };
  if (route?.toHttp) {
    const probe = probeBody(route, Object.keys(resultProps));
    for (const [top, field] of probe.lifted) props[top] = resultProps[field];
    for (const [k, v] of Object.entries(probe.constants)) if (!(k in props)) props[k] = { type: typeof v === 'number' ? 'number' : typeof v, enum: [v] };
    if (probe.kept !== 'all') {
      const keep = probe.kept;
      const required = Array.isArray(resolved.required) ? (resolved.required as string[]).filter((r) => keep.includes(r)) : [];
      props.result = {
        type: 'object',
        properties: Object.fromEntries(keep.map((k) => [k, resultProps[k]])),
        ...(required.length ? { required } : {}),
        description: `result of ${op.name} without the fields lifted to the top level`,
      };
    }
    const liftedRequired = [...probe.lifted.entries()].filter(([, f]) => Array.isArray(resolved.required) && (resolved.required as string[]).includes(f)).map(([t]) => t);
    return { type: 'object', properties: props, required: ['ok', 'http_status', 'result', ...liftedRequired], additionalProperties: true };
  }
  return { type: 'object', properties: props, required: ['ok', 'http_status', 'result'], additionalProperties: true };
}

/**
 * A query parameter's schema and serialization from the input field it fills: arrays are one
 * comma-separated value (`?fields=a,b`), a field taking a string or a list is a string, and a field
 * of any JSON value (where) is its JSON text.
 */
export function queryParameter(field: Json | undefined): { schema: Json; style?: string; explode?: boolean } {
  if (!field) return { schema: { type: 'string' } };
  const scalar = (s: Json): Json => {
    const out: Json = { type: s.type };
    for (const k of ['enum', 'format', 'minimum', 'maximum', 'minLength', 'default']) if (k in s) out[k] = s[k];
    return out;
  };
  if (field.type === 'array') {
    const items = isObject(field.items) && typeof field.items.type === 'string' ? scalar(field.items) : { type: 'string' };
    return { schema: { type: 'array', items }, style: 'form', explode: false };
  }
  if (typeof field.type === 'string' && ['string', 'integer', 'number', 'boolean'].includes(field.type)) return { schema: scalar(field) };
  if (Array.isArray(field.anyOf) && field.anyOf.some((x) => isObject(x) && x.type === 'string')) return { schema: { type: 'string' } };
  return { schema: { type: 'string', description: 'JSON text' } };
}
