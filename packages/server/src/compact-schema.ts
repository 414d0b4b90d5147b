// JSON Schemas for MCP tool listings, said once: an agent reads every tool's schema into its
// context, and `entities_create` alone was 22 KB of the same few fields written out per entity
// type. Rewrites that keep the schema's meaning exactly:
//  - a tuple of one type is an array of that type with its length, and
//  - properties that every variant of a oneOf/anyOf declares identically move up beside it (the
//    variants do not forbid other properties, so each still sees the same constraint), and
//  - a sub-schema written out more than once becomes a definition in the root's `$defs` (the
//    container JSON Schema 2020-12, MCP's dialect, names; the one clients resolve best), referenced
//    by a `$ref` with nothing beside it (draft-07 and 2020-12 disagree on what siblings mean).

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where shared sub-schemas live, and how a `$ref` names them. */
export const DEFS = '$defs';
export const refTo = (name: string): string => `#/${DEFS}/${name}`;

/** A sub-schema shorter than this stays inline whatever its count: a `$ref` would save nothing. */
const MIN_SHARED_CHARS = 24;

/** Characters saved by writing `count` copies of a `length`-character sub-schema once, as `name`. */
function saving(length: number, count: number, name: string): number {
  const ref = JSON.stringify({ $ref: refTo(name) }).length;
  return count * (length - ref) - (length + name.length + 3);
}

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

/** A sub-schema without its own description (the descriptions of its parts stay). */
function shapeOf(v: Json): Json {
  if (typeof v.description !== 'string') return v;
  const { description: _d, ...shape } = v;
  return shape;
}

/** A name for a shared sub-schema: the property it is written under, or what it looks like. */
function nameFor(schema: Json, keys: Map<string, number>, taken: Set<string>): string {
  let base: string;
  const items = isObject(schema.items) ? schema.items : null;
  const plain = schema.description === undefined;
  const numbers = schema.type === 'array' && items?.type === 'number' && Object.keys(items).length === 1;
  if (plain && numbers && schema.minItems === 2 && schema.maxItems === 3) base = 'point';
  else if (plain && numbers && schema.minItems === 2 && schema.maxItems === 2) base = 'xy';
  else if (plain && schema.type === 'string' && schema.minLength === 1 && Object.keys(schema).length === 2) base = 'nonempty';
  else if (plain && schema.type === 'number' && schema.exclusiveMinimum === 0 && Object.keys(schema).length === 2) base = 'positive';
  else if (plain && schema.type === 'array' && items?.type === 'string' && Object.keys(items).length === 1 && Object.keys(schema).length === 2) base = 'strings';
  else if (schema.type === 'array' && isObject(items) && items.$ref === refTo('point')) base = 'points';
  else base = [...keys.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? 'shared';
  base = base.replace(/[^A-Za-z0-9_]/g, '_') || 'shared';
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

/**
 * Replaces sub-schemas written out more than once by `$ref`s to `$defs`, the biggest saving
 * first, so a shared object's own repeated parts are shared inside its definition.
 */
export function shareDefinitions(root: Json): Json {
  let schema = root;
  const definitions: Json = isObject(root[DEFS]) ? { ...(root[DEFS] as Json) } : {};
  const taken = new Set(Object.keys(definitions));
  for (let round = 0; round < 80; round++) {
    // Count every sub-schema's shape (property values, items, variants) and the keys it sits
    // under. A shape is the sub-schema without its description: a field's own description stays
    // beside its `$ref`, where 2020-12 reads it and draft-07 merely ignores it.
    const seen = new Map<string, { count: number; keys: Map<string, number>; schema: Json }>();
    const visit = (v: unknown, key: string, isSchema: boolean): void => {
      if (Array.isArray(v)) return v.forEach((x) => visit(x, key, isSchema));
      if (!isObject(v)) return;
      if (isSchema && v.$ref === undefined) {
        const shape = shapeOf(v);
        const text = JSON.stringify(shape);
        if (text.length >= MIN_SHARED_CHARS) {
          const e = seen.get(text) ?? { count: 0, keys: new Map<string, number>(), schema: shape };
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
    // Judged with a typical name's length; the name itself is chosen for the winner only.
    const best = [...seen.entries()]
      .map(([text, e]) => ({ text, e, gain: saving(text.length, e.count, 'shared') }))
      .filter((c) => c.e.count > 1 && c.gain > 0)
      .sort((a, b) => b.gain - a.gain)[0];
    if (!best) break;
    const { text, e: entry } = best;
    const name = nameFor(entry.schema, entry.keys, taken);
    const replace = (v: unknown): unknown => {
      if (!isObject(v) || v.$ref !== undefined || JSON.stringify(shapeOf(v)) !== text) return mapSubschemas(v, replace);
      return typeof v.description === 'string' ? { description: v.description, $ref: refTo(name) } : { $ref: refTo(name) };
    };
    schema = mapSubschemas(schema, replace) as Json;
    for (const [k, d] of Object.entries(definitions)) definitions[k] = mapSubschemas(d, replace);
    definitions[name] = entry.schema;
  }
  if (Object.keys(definitions).length === 0) return schema;
  return { ...schema, [DEFS]: definitions };
}

/** The keywords a schema's reader wants first; the others follow in alphabetical order. */
const LEADING_KEYWORDS = ['description', '$ref', 'const', 'type', 'enum', 'properties', 'required'];

/**
 * The schema with its keywords in one order everywhere (a property's order is kept), so that
 * sub-schemas alike in meaning are alike in text and can be shared.
 */
export function orderKeywords(v: unknown): unknown {
  if (!isObject(v)) return v;
  const rank = (k: string): number => {
    const i = LEADING_KEYWORDS.indexOf(k);
    return i < 0 ? LEADING_KEYWORDS.length : i;
  };
  const keys = Object.keys(v).sort((a, b) => rank(a) - rank(b) || (rank(a) === LEADING_KEYWORDS.length ? a.localeCompare(b) : 0));
  const ordered: Json = {};
  for (const k of keys) ordered[k] = v[k];
  const out = mapSubschemas(ordered, orderKeywords) as Json;
  if (isObject(out[DEFS])) out[DEFS] = Object.fromEntries(Object.entries(out[DEFS] as Json).map(([n, d]) => [n, orderKeywords(d)]));
  return out;
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
