// JSON Schemas for MCP tool listings, said once: an agent reads every tool's schema into its
// context, and `entities_create` alone was 22 KB of the same few fields written out per entity
// type. Rewrites that keep the schema's meaning exactly:
//  - a tuple of one type is an array of that type with its length, and
//  - properties that every variant of a oneOf/anyOf declares identically move up beside it (the
//    variants do not forbid other properties, so each still sees the same constraint), and
//  - a sub-schema written out more than once becomes a definition, referenced by `$ref`.

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A sub-schema shorter than this stays inline: a `$ref` would save nothing. */
const MIN_SHARED_CHARS = 48;

/** Pulls the properties all variants of a oneOf/anyOf declare alike up beside the variants. */
export function hoistSharedProperties(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(hoistSharedProperties);
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) out[k] = hoistSharedProperties(x);
  for (const key of ['oneOf', 'anyOf'] as const) {
    const variants = out[key];
    if (!Array.isArray(variants) || variants.length < 2) continue;
    if (!variants.every((x) => isObject(x) && x.type === 'object' && isObject(x.properties) && x.additionalProperties === undefined && x.unevaluatedProperties === undefined)) continue;
    const props = variants.map((x) => (x as Json).properties as Json);
    const shared: Json = {};
    for (const [name, schema] of Object.entries(props[0]!)) {
      const text = JSON.stringify(schema);
      if (props.every((p) => name in p && JSON.stringify(p[name]) === text)) shared[name] = schema;
    }
    if (Object.keys(shared).length === 0) continue;
    // The parent must not declare those properties itself already (with other schemas).
    const own = isObject(out.properties) ? out.properties : {};
    if (Object.keys(shared).some((n) => n in own)) continue;
    out[key] = variants.map((x) => {
      const rest: Json = {};
      for (const [n, s] of Object.entries((x as Json).properties as Json)) if (!(n in shared)) rest[n] = s;
      return { ...(x as Json), properties: rest };
    });
    if (out.type === undefined) out.type = 'object';
    out.properties = { ...own, ...shared };
  }
  return out;
}

/** A name for a shared sub-schema: the property it is written under, or what it looks like. */
function nameFor(schema: Json, keys: Map<string, number>, taken: Set<string>): string {
  let base: string;
  const items = isObject(schema.items) ? schema.items : null;
  if (schema.type === 'array' && items?.type === 'number' && schema.minItems === 2 && schema.maxItems === 3) base = 'point';
  else if (schema.type === 'array' && isObject(items) && items.$ref === '#/definitions/point') base = 'points';
  else base = [...keys.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? 'shared';
  base = base.replace(/[^A-Za-z0-9_]/g, '_') || 'shared';
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

/**
 * Replaces sub-schemas written out more than once by `$ref`s to `definitions` (draft-07), largest
 * first, so a shared object's own repeated parts are shared inside its definition.
 */
export function shareDefinitions(root: Json): Json {
  let schema = root;
  const definitions: Json = isObject(root.definitions) ? { ...root.definitions } : {};
  const taken = new Set(Object.keys(definitions));
  for (let round = 0; round < 50; round++) {
    // Count every sub-schema (property values, items, variants), and the keys it sits under.
    const seen = new Map<string, { count: number; keys: Map<string, number>; schema: Json }>();
    const visit = (v: unknown, key: string, isSchema: boolean): void => {
      if (Array.isArray(v)) return v.forEach((x) => visit(x, key, isSchema));
      if (!isObject(v)) return;
      if (isSchema && v.$ref === undefined) {
        const text = JSON.stringify(v);
        if (text.length >= MIN_SHARED_CHARS) {
          const e = seen.get(text) ?? { count: 0, keys: new Map<string, number>(), schema: v };
          e.count++;
          e.keys.set(key, (e.keys.get(key) ?? 0) + 1);
          seen.set(text, e);
        }
      }
      for (const [k, x] of Object.entries(v)) {
        if (k === 'properties' && isObject(x)) for (const [p, s] of Object.entries(x)) visit(s, p, true);
        else if (k === 'items' || k === 'additionalProperties' || k === 'not') visit(x, key, true);
        else if (k === 'oneOf' || k === 'anyOf' || k === 'allOf') visit(x, key, true);
      }
    };
    visit(schema, '', false);
    for (const d of Object.values(definitions)) visit(d, '', false);
    const best = [...seen.entries()].filter(([, e]) => e.count > 1).sort((a, b) => b[0].length * b[1].count - a[0].length * a[1].count)[0];
    if (!best) break;
    const [text, entry] = best;
    const name = nameFor(entry.schema, entry.keys, taken);
    const ref = { $ref: `#/definitions/${name}` };
    const replace = (v: unknown): unknown => (isObject(v) && JSON.stringify(v) === text ? ref : mapSubschemas(v, replace));
    schema = mapSubschemas(schema, replace) as Json;
    for (const [k, d] of Object.entries(definitions)) definitions[k] = mapSubschemas(d, replace);
    definitions[name] = entry.schema;
  }
  if (Object.keys(definitions).length === 0) return schema;
  return { ...schema, definitions };
}

/** The schema with each of its direct sub-schemas (property values, items, variants) mapped. */
function mapSubschemas(v: unknown, fn: (sub: unknown) => unknown): unknown {
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'properties' && isObject(x)) out[k] = Object.fromEntries(Object.entries(x).map(([p, sub]) => [p, fn(sub)]));
    else if ((k === 'items' || k === 'additionalProperties' || k === 'not') && isObject(x)) out[k] = fn(x);
    else if ((k === 'oneOf' || k === 'anyOf' || k === 'allOf' || k === 'items') && Array.isArray(x)) out[k] = x.map(fn);
    else out[k] = x;
  }
  return out;
}

/**
 * A tuple of one type (`items: [number, number, number, number]`, no other items) as the array of
 * that type with its length: the same constraint, said once.
 */
export function collapseTuples(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(collapseTuples);
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) out[k] = collapseTuples(x);
  const items = out.items;
  if (Array.isArray(items) && items.length > 0 && out.additionalItems === false) {
    const first = JSON.stringify(items[0]);
    if (items.every((i) => JSON.stringify(i) === first) && out.minItems === items.length && out.maxItems === items.length) {
      out.items = items[0];
      delete out.additionalItems;
    }
  }
  return out;
}

/** All three rewrites. */
export function compactSchema(schema: Json): Json {
  return shareDefinitions(hoistSharedProperties(collapseTuples(schema)) as Json);
}
