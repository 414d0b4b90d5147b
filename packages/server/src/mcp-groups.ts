// MCP tools that carry several ops (OpDef.mcpGroup): one tool per group, its `action` naming the
// op. Keeps the tool list small as the catalogue grows; the dispatcher still validates each op's
// own fields, so a group answers exactly what the op would.
import { z } from 'zod';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { OpDef, OpEffect, Permission } from '@linework/engine';
import { compactSchema } from './compact-schema.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The ops of each group, in catalogue order. */
export function opGroups(ops: readonly OpDef[]): Map<string, OpDef[]> {
  const groups = new Map<string, OpDef[]>();
  for (const op of ops) {
    if (!op.mcpGroup) continue;
    const list = groups.get(op.mcpGroup);
    if (list) list.push(op);
    else groups.set(op.mcpGroup, [op]);
  }
  return groups;
}

const SEVERITY: OpEffect[] = ['read', 'change', 'write_files', 'discard'];

/** What a group's tool does: the most far-reaching effect of its ops. */
export function groupEffect(ops: readonly OpDef[]): OpEffect {
  return ops.reduce<OpEffect>((m, o) => (SEVERITY.indexOf(o.effect) > SEVERITY.indexOf(m) ? o.effect : m), 'read');
}

/** Every permission any action of the group may need (each action's own list is in `linework/actions`). */
export function groupPermissions(ops: readonly OpDef[]): Permission[] {
  return [...new Set(ops.flatMap((o) => [...o.permissions]))];
}

/** A schema without its prose: a group lists many ops' fields, whose descriptions are in GET /capabilities. */
function bare(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(bare);
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) if (k !== 'description') out[k] = bare(x);
  return out;
}

/**
 * The group tool's input: `action` (required) and the union of the actions' fields without their
 * descriptions (the tool list must stay small); a field two actions type differently is either.
 */
export function groupInputSchema(ops: readonly OpDef[], protocolFields: Json): Tool['inputSchema'] {
  const props: Json = {
    action: { type: 'string', enum: ops.map((o) => o.name) },
  };
  const seen = new Map<string, string[]>();
  for (const op of ops) {
    let schema: Json;
    try {
      schema = z.toJSONSchema(op.input, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Json;
    } catch {
      schema = {};
    }
    for (const [k, v] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
      const text = JSON.stringify(bare(v));
      const known = seen.get(k);
      if (!known) {
        seen.set(k, [text]);
        props[k] = JSON.parse(text) as Json;
      } else if (!known.includes(text)) {
        known.push(text);
        props[k] = { anyOf: known.map((t) => JSON.parse(t) as Json) };
      }
    }
  }
  for (const [k, v] of Object.entries(protocolFields)) if (!(k in props)) props[k] = v;
  return compactSchema({ type: 'object', properties: props, required: ['action'] }) as Tool['inputSchema'];
}

/** The op a call of a group tool names, or null when the action is not one of the group's. */
export function groupAction(ops: readonly OpDef[], args: Json): { op: string; fields: Json } | null {
  const { action, ...fields } = args;
  const op = ops.find((o) => o.name === action);
  return op ? { op: op.name, fields } : null;
}
