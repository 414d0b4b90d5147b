// The MCP tools: the catalogue's ops grouped into a few tools by each op's `mcpGroup` (an op
// without one goes to `modify`), each op one `action` of its tool. A tool's input schema is a
// `oneOf` with one self-contained branch per action (the op's own fields, what it requires, and the
// protocol fields it takes), so a client sees exactly what each action needs.
import { z } from 'zod';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { OpDef, OpEffect } from '@linework/engine';
import { DEFS, collapseTuples, orderKeywords, refTo, shareDefinitions } from './compact-schema.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The tool an op without an `mcpGroup` belongs to. */
export const DEFAULT_GROUP = 'modify';

/** What each group is for, in the tool's description (groups not named here get a generic line). */
const GROUP_PURPOSE: Record<string, string> = {
  documents: 'Open, create, activate, save and close drawings; undo, redo, audit.',
  entities: 'Create, erase and restyle entities; groups; command lines.',
  query: 'Read entities, their properties, layouts, a preview image.',
  data: 'The drawing\'s data beyond its entities: header, system variables, table records, xdata, identity.',
  modify: 'Change geometry: transform, copy to another drawing, offset, trim, fillet, array, hatch, dimension ...',
  blocks: 'Block definitions: define, list, rename, delete, purge.',
  layers: 'The layer table: list layers, change a layer.',
  plot: 'Plot to PDF/SVG/PNG, write blocks out, images, layouts and page setups.',
  session: 'The session: readiness, state, capabilities, events, operations, selection, view, picks in the graphical mode, workspace folders.',
};

// The protocol's fields (document_id, expected_version, request_id) are said once, in the tool's
// description and the server's instructions, not in every branch: the branches do not forbid
// other fields.

/**
 * An op's own field named `action` (entities_transform's move / rotate ...) is offered as `mode`:
 * `action` names the op in a group tool.
 */
export const OWN_ACTION = 'mode';

/** The op's fields from a tool call's arguments: without the tool's `action`, `mode` back to the op's `action`. */
export function opFields(args: Json): Json {
  const { action: _action, ...fields } = args;
  if (OWN_ACTION in fields) {
    fields.action = fields[OWN_ACTION];
    delete fields[OWN_ACTION];
  }
  return fields;
}

/** The groups listed when --tools is not given: the everyday work on drawings, within 20 KB. */
export const DEFAULT_TOOLS = ['documents', 'entities', 'query', 'modify'];

export interface GroupTool {
  /** The listing as clients see it. */
  tool: Tool;
  /** The ops by action name. */
  actions: Map<string, OpDef>;
}

/** The group of every op that MCP carries, in catalogue order. */
export function groupsOf(catalogue: readonly OpDef[]): Map<string, OpDef[]> {
  const groups = new Map<string, OpDef[]>();
  for (const op of catalogue) {
    if (op.mcp === false) continue;
    const g = op.mcpGroup ?? DEFAULT_GROUP;
    const list = groups.get(g) ?? [];
    list.push(op);
    groups.set(g, list);
  }
  return groups;
}

/**
 * The op's input as one self-contained branch: `action` fixed to the op and its fields (the
 * protocol's document_id is said once, in the tool's description).
 */
export function actionBranch(op: OpDef): Json {
  let schema: Json;
  try {
    schema = z.toJSONSchema(op.input, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Json;
  } catch {
    schema = { type: 'object' };
  }
  const props: Json = { action: { const: op.name } };
  for (const [k, v] of Object.entries(isObject(schema.properties) ? schema.properties : {})) props[k === 'action' ? OWN_ACTION : k] = v;
  const required = ['action', ...(Array.isArray(schema.required) ? (schema.required as string[]).map((r) => (r === 'action' ? OWN_ACTION : r)) : [])];
  const description = firstSentence(op.summary);
  // "Creates entities" for entities_create says nothing the action's name does not.
  return { ...(saysNothing(description, [op.name]) ? {} : { description }), properties: props, required };
}

/** The text without its asides in parentheses (nested ones too). */
export function withoutAsides(text: string): string {
  let out = text;
  for (let prev = ''; prev !== out; ) {
    prev = out;
    out = out.replace(/\s*\([^()]*\)/g, '');
  }
  return out;
}

/**
 * What an action does, in one short sentence: the op's summary up to its first full stop, without
 * its asides in parentheses and the details after a colon (the kinds, modes and fields the schema
 * states anyway). The rest (result fields, defaults) is in capabilities and the docs; every agent
 * pays for the listing's length before any work.
 */
export function firstSentence(summary: string): string {
  const text = withoutAsides(summary);
  const m = /^(.+?[.;])(\s|$)/.exec(text);
  return (m ? m[1]! : text).replace(/[.;]$/, '').replace(/:\s.*$/, '').replace(/:\s*\{.*$/, '').replace(/\s*->\s*\{.*$/, '');
}

/** Words that carry no meaning of their own in a field's description. */
const FILLER = new Set(['a', 'an', 'the', 'of', 'to', 'in', 'for', 'by', 'and', 'or', 'its', 'entity', 'entitie', 'name', 'new']);

/** A text's words, lower case, without a plural's s. */
const wordsOf = (text: string): string[] =>
  text.replace(/([a-z])([A-Z])|([A-Z])([A-Z][a-z])/g, (_m, a, b, c, d) => (a ? `${a} ${b}` : `${c} ${d}`)).toLowerCase().split(/[^a-z0-9]+/).filter(Boolean).map((w) => (w.length > 3 ? w.replace(/s$/, '') : w));

/**
 * A field's description that only restates its schema or names (`[x, y]`, `[x, y] or [x, y, z]`,
 * "entity handles" for an array of strings, "offset distance" for offset's `distance`, "text
 * style" for a Text's `style`): the listing goes without it. `context` holds the names around the
 * field (its own, its siblings', the action's or the entity type's).
 */
export function saysNothing(description: string, context: readonly string[] = []): boolean {
  const d = description.trim().toLowerCase();
  if (/^\[[a-z](, [a-z])*\]( or \[[a-z](, [a-z])*\])*$/.test(d) || /^entity handles?$/.test(d)) return true;
  if (context.length === 0) return false;
  const known = new Set(context.flatMap(wordsOf));
  const words = wordsOf(d);
  return words.length > 0 && words.every((w) => known.has(w) || FILLER.has(w));
}

/**
 * Rewrites that keep a schema's meaning and cost an agent fewer tokens: a `const` needs no `type`
 * beside it, and the bounds zod writes for every integer (the safe-integer range) say nothing a
 * JSON integer does not.
 */
export function trimSchema(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(trimSchema);
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) out[k] = trimSchema(x);
  if ('const' in out && typeof out.type === 'string') delete out.type;
  // A branch of a oneOf whose properties and required list tell it apart needs no type: anything
  // but an object would match every branch, which oneOf refuses.
  for (const key of ['oneOf', 'anyOf'] as const) {
    const list = out[key];
    if (Array.isArray(list) && list.length > 1 && list.every((b) => isObject(b) && b.type === 'object' && Array.isArray(b.required) && b.required.length > 0)) {
      out[key] = list.map((b) => {
        const { type: _type, ...rest } = b as Json;
        return rest;
      });
    }
  }
  // Defaults and examples are the op's business (it applies its defaults itself): an agent that
  // leaves a field out gets them.
  delete out.default;
  delete out.examples;
  if (isObject(out.properties)) {
    const props = out.properties;
    // The action's name (or the entity type's) and the field names: what a reader sees anyway.
    const names = Object.keys(props).concat([props.action, props.type].flatMap((p) => (isObject(p) && typeof p.const === 'string' ? [p.const] : [])));
    for (const [name, sub] of Object.entries(props)) {
      if (isObject(sub) && typeof sub.description === 'string' && saysNothing(sub.description, [name, ...names])) {
        const { description: _d, ...rest } = sub;
        (out.properties as Json)[name] = rest;
      }
    }
  }
  if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  // A field's description in its short form, without the asides in parentheses (defaults, limits,
  // examples): the listing is read into every agent's context before any work; capabilities and
  // the OpenAPI document keep the full text.
  if (typeof out.description === 'string' && !('const' in out)) out.description = withoutAsides(out.description);
  // A default is the op's business (see above), also when a description states it.
  if (typeof out.description === 'string') out.description = out.description.replace(/[;,]?\s*default:? [^;]*$/i, '');
  if (typeof out.description === 'string' && (out.description === '' || saysNothing(out.description))) delete out.description;
  // JSON object keys are strings: saying so adds nothing.
  if (isObject(out.propertyNames) && out.propertyNames.type === 'string' && Object.keys(out.propertyNames).length === 1) delete out.propertyNames;
  return out;
}

/**
 * Properties every branch of a oneOf declares alike (an entity's layer, color, linetype ...) are
 * written once, as a definition each branch includes with `allOf`: every branch still says all it
 * takes and requires, and nothing sits beside the oneOf.
 */
export function shareBranchProperties(v: unknown, definitions: Json): unknown {
  if (Array.isArray(v)) return v.map((x) => shareBranchProperties(x, definitions));
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) out[k] = shareBranchProperties(x, definitions);
  const variants = out.oneOf;
  if (!Array.isArray(variants) || variants.length < 3 || !variants.every((b) => isObject(b) && isObject(b.properties) && b.allOf === undefined)) return out;
  const props = variants.map((b) => (b as Json).properties as Json);
  const shared: Json = {};
  for (const [name, schema] of Object.entries(props[0]!)) {
    const text = JSON.stringify(schema);
    if (props.every((p) => JSON.stringify(p[name]) === text)) shared[name] = schema;
  }
  if (Object.keys(shared).length < 2) return out;
  let name = 'common';
  for (let i = 2; name in definitions; i++) name = `common_${i}`;
  definitions[name] = { properties: shared };
  out.oneOf = variants.map((b) => {
    const own: Json = {};
    for (const [n, s] of Object.entries((b as Json).properties as Json)) if (!(n in shared)) own[n] = s;
    return { ...(b as Json), properties: own, allOf: [{ $ref: refTo(name) }] };
  });
  return out;
}

/**
 * Whether some action of a group works on a document: the tool's description then says once that
 * such actions take document_id, instead of every branch (an op's own document_id, such as
 * entities_copy_to's target, stays in its branch).
 */
export function takesDocumentId(ops: readonly OpDef[]): boolean {
  return ops.some((op) => op.needsDocument);
}

/** The tool description's line for document_id. */
export const DOCUMENT_ID_LINE = 'document_id: the drawing (default: the active one).';

/** The input schema of a group tool: one branch per action, nothing beside the `oneOf`. */
export function groupInputSchema(ops: readonly OpDef[]): Tool['inputSchema'] {
  const schema = orderKeywords(trimSchema(collapseTuples({ type: 'object', oneOf: ops.map((op) => ({ type: 'object', ...actionBranch(op) })) }))) as Json;
  // Only inside an action: the actions themselves share nothing but `action` and document_id.
  const definitions: Json = {};
  const branches = (schema.oneOf as Json[]).map((b) => ({ ...b, properties: shareBranchProperties(b.properties, definitions) }));
  const shared = shareDefinitions({ type: 'object', oneOf: branches, ...(Object.keys(definitions).length ? { [DEFS]: definitions } : {}) });
  return shared as Tool['inputSchema'];
}

/** The value MCP gives an annotation a tool leaves out (the specification's defaults). */
export const ANNOTATION_DEFAULTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true } as const;

/**
 * MCP annotations from the effects of the tool's ops: read-only (and idempotent) only when every
 * action only reads; destructive when any action writes files (which may overwrite one) or can
 * throw unsaved work away. Changes in memory are undoable. A hint equal to MCP's default is left
 * out: it says the same.
 */
export function groupAnnotations(effects: readonly OpEffect[]): NonNullable<Tool['annotations']> {
  const readOnly = effects.every((e) => e === 'read');
  const hints = {
    readOnlyHint: readOnly,
    destructiveHint: effects.some((e) => e === 'write_files' || e === 'discard'),
    idempotentHint: readOnly,
    openWorldHint: false,
  };
  return Object.fromEntries(Object.entries(hints).filter(([k, v]) => ANNOTATION_DEFAULTS[k as keyof typeof hints] !== v));
}

/** The group tools of a catalogue, restricted to `only` when given (unknown names refused by the caller). */
export function buildGroupTools(catalogue: readonly OpDef[], only?: readonly string[]): GroupTool[] {
  const out: GroupTool[] = [];
  for (const [name, ops] of groupsOf(catalogue)) {
    if (only && !only.includes(name)) continue;
    const purpose = GROUP_PURPOSE[name] ?? `Operations of the ${name} group.`;
    out.push({
      tool: {
        name,
        description: takesDocumentId(ops) ? `${purpose} ${DOCUMENT_ID_LINE}` : purpose,
        inputSchema: groupInputSchema(ops),
        annotations: groupAnnotations(ops.map((o) => o.effect)),
      },
      actions: new Map(ops.map((o) => [o.name, o])),
    });
  }
  return out;
}

/** Edit distance (insertions, deletions, substitutions), for did-you-mean. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/**
 * The names closest to what was asked: those containing it (or contained in it), else the nearest
 * within a third of its length in edits (at least three); at most three.
 */
export function didYouMean(asked: string, names: readonly string[]): string[] {
  const a = asked.toLowerCase();
  if (!a) return [];
  const scored = names.map((n) => {
    const l = n.toLowerCase();
    const contains = l.includes(a) || a.includes(l);
    return { n, score: contains ? 0 : distance(a, l) };
  });
  const limit = Math.max(3, Math.ceil(a.length / 3));
  const near = scored.filter((s) => s.score <= limit);
  const best = Math.min(...near.map((s) => s.score));
  // Only the closest: a second-best guess beside a near-exact one is noise.
  return near.filter((s) => s.score === best).sort((x, y) => x.n.localeCompare(y.n)).slice(0, 3).map((s) => s.n);
}
