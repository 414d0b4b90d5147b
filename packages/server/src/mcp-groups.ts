// MCP tools that carry several ops as `action`s (the ops' `mcpGroup`): an agent reads one tool
// with the fields said once instead of one tool per op, which keeps the tool list small.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { OpDef, OpEffect, Permission } from '@linework/engine';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ToolGroup {
  name: string;
  ops: OpDef[];
}

/** The ops of each group, in catalogue order; ops without a group stay tools of their own. */
export function toolGroups(ops: readonly OpDef[]): { single: OpDef[]; groups: ToolGroup[] } {
  const single: OpDef[] = [];
  const groups = new Map<string, ToolGroup>();
  for (const op of ops) {
    if (!op.mcpGroup) { single.push(op); continue; }
    let g = groups.get(op.mcpGroup);
    if (!g) groups.set(op.mcpGroup, (g = { name: op.mcpGroup, ops: [] }));
    g.ops.push(op);
  }
  return { single, groups: [...groups.values()] };
}

const EFFECT_ORDER: OpEffect[] = ['read', 'change', 'write_files', 'discard'];

/** What the tool may do: the furthest-reaching effect of its actions. */
export function groupEffect(g: ToolGroup): OpEffect {
  return g.ops.map((o) => o.effect).reduce((a, b) => (EFFECT_ORDER.indexOf(b) > EFFECT_ORDER.indexOf(a) ? b : a));
}

/** What an API key needs for some action of the tool (each action needs its own op's). */
export function groupPermissions(g: ToolGroup): Permission[] {
  return [...new Set(g.ops.flatMap((o) => o.permissions))];
}

/** One schema: `action` naming the op, and every action's fields (each field declared once). */
export function groupInputSchema(g: ToolGroup, schemaOf: (op: OpDef) => Tool['inputSchema']): Tool['inputSchema'] {
  const props: Json = { action: { type: 'string', enum: g.ops.map((o) => o.name) } };
  const definitions: Json = {};
  for (const op of g.ops) {
    const s = schemaOf(op) as Json;
    for (const [k, v] of Object.entries(isObject(s.properties) ? s.properties : {})) if (!(k in props)) props[k] = v;
    if (isObject(s.definitions)) Object.assign(definitions, s.definitions);
  }
  return { type: 'object', properties: props, required: ['action'], ...(Object.keys(definitions).length ? { definitions } : {}) } as Tool['inputSchema'];
}

/**
 * The tool's description, short: each action with the fields it takes (the fields' own schemas
 * say what they mean; capabilities and OpenAPI give each op's full summary).
 */
export function groupDescription(g: ToolGroup, schemaOf: (op: OpDef) => Tool['inputSchema']): string {
  const actions = g.ops.map((o) => {
    const s = schemaOf(o) as Json;
    const fields = Object.keys(isObject(s.properties) ? s.properties : {}).filter((k) => !['document_id', 'expected_version', 'request_id'].includes(k));
    return `${o.name}(${fields.join(', ')})`;
  });
  const edit = g.ops.every((o) => o.output !== undefined && o.mutates);
  return `Runs the op named by \`action\`${edit ? ', one undo step each, answering {created, modified, erased} handles' : ''}. Actions: ${actions.join('; ')}.`;
}
