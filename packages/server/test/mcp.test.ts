// `linework --mcp` through the SDK's own Client and StdioClientTransport, as an agent uses it:
// a few grouped tools with an `action`, truthful annotations, MCP's own words for mistakes,
// prompts, and resources for the open documents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { buildCatalogue } from '@linework/engine';
import { startMcpClient } from './transports.js';
import { scratchDir } from '../../dxf/test/helpers.js';

let m: Awaited<ReturnType<typeof startMcpClient>>;
let client: Client;
let all: Awaited<ReturnType<typeof startMcpClient>>;
const dir = scratchDir('lw-mcp-');

beforeAll(async () => {
  [m, all] = await Promise.all([startMcpClient({ args: ['--root', dir] }), startMcpClient({ args: ['--tools', 'all', '--root', dir] })]);
  client = m.client;
}, 60_000);
afterAll(async () => {
  await m?.close();
  await all?.close();
});

/** What each op does, decided by hand here so a catalogue change must be looked at again. */
const EFFECTS: Record<string, 'read' | 'change' | 'write_files' | 'discard'> = {
  ready: 'read', state: 'read', capabilities: 'read', events: 'read', operation: 'read', header: 'read', layers: 'read',
  records: 'read', layout_list: 'read', entities_list: 'read', entity_get: 'read', property: 'read', get_selection: 'read',
  xdata_get: 'read', block_list: 'read', preview: 'read', user_select: 'read', getpoint: 'read', pick: 'read',
  save: 'write_files', plot: 'write_files', wblock: 'write_files', document_close: 'discard',
};
const effectOf = (op: string): string => EFFECTS[op] ?? 'change';

const call = async (c: Client, name: string, args: Record<string, unknown>): Promise<any> => c.callTool({ name, arguments: args });

/** The values the MCP specification gives the tool annotations a server leaves out. */
const MCP_DEFAULT_HINTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

/** Every object of a schema that holds a `$ref`. */
function refsOf(v: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(v)) return v.flatMap(refsOf);
  if (typeof v !== 'object' || v === null) return [];
  const o = v as Record<string, unknown>;
  return [...('$ref' in o ? [o] : []), ...Object.values(o).flatMap(refsOf)];
}

describe('MCP tools', () => {
  it('groups the ops into a few tools by their mcpGroup; annotations follow from the actions\' effects', async () => {
    const { tools } = await all.client.listTools();
    const catalogue = buildCatalogue().filter((o) => o.mcp !== false);
    const groups = new Set(catalogue.map((o) => o.mcpGroup ?? 'modify'));
    expect(tools.map((t) => t.name).sort()).toEqual([...groups].sort());
    expect(tools.length).toBeLessThanOrEqual(10);
    for (const t of tools) {
      const actions = (t.inputSchema as any).oneOf.map((b: any) => b.properties.action.const) as string[];
      expect(actions.sort(), t.name).toEqual(catalogue.filter((o) => (o.mcpGroup ?? 'modify') === t.name).map((o) => o.name).sort());
      const effects = actions.map(effectOf);
      // A hint left out has MCP's default value (readOnly false, destructive true, idempotent false, openWorld true).
      expect({ ...MCP_DEFAULT_HINTS, ...t.annotations }, t.name).toEqual({
        readOnlyHint: effects.every((e) => e === 'read'),
        destructiveHint: effects.some((e) => e === 'write_files' || e === 'discard'),
        idempotentHint: effects.every((e) => e === 'read'),
        openWorldHint: false,
      });
      // Nothing beside the oneOf: each branch is the whole story of its action; shared parts are
      // `$defs` of the same schema, and every `$ref` points into them, with nothing beside it but a description.
      expect(Object.keys(t.inputSchema).filter((k) => k !== '$defs').sort(), t.name).toEqual(['oneOf', 'type']);
      const defs = (t.inputSchema.$defs ?? {}) as Record<string, unknown>;
      for (const ref of refsOf(t.inputSchema)) {
        expect(Object.keys(ref).filter((k) => k !== 'description'), t.name).toEqual(['$ref']);
        expect(ref.$ref, t.name).toMatch(/^#\/\$defs\/[A-Za-z0-9_]+$/);
        expect(defs[String(ref.$ref).slice('#/$defs/'.length)], `${t.name} ${String(ref.$ref)}`).toBeDefined();
      }
    }
    // Every op MCP carries is an action of some tool.
    const reachable = tools.flatMap((t) => (t.inputSchema as any).oneOf.map((b: any) => b.properties.action.const as string));
    expect(reachable.sort()).toEqual(catalogue.map((o) => o.name).sort());
    expect(tools.find((t) => t.name === 'query')!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect({ ...MCP_DEFAULT_HINTS, ...tools.find((t) => t.name === 'documents')!.annotations }).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  // Issue 23's goal: the default listing (the JSON of tools/list's tools) under 20 KB, about 5k tokens.
  it('lists documents, entities, query and modify by default, under 20 KB; --tools chooses', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['documents', 'entities', 'modify', 'query']);
    const bytes = Buffer.byteLength(JSON.stringify(tools));
    expect(bytes).toBeLessThan(20_000);
    const some = await startMcpClient({ args: ['--tools', 'layers,blocks'] });
    try {
      expect((await some.client.listTools()).tools.map((t) => t.name).sort()).toEqual(['blocks', 'layers']);
    } finally {
      await some.close();
    }
    const { spawnCli } = await import('./helpers.js');
    const bad = spawnCli(['--mcp', '--tools', 'entitys']);
    expect((await bad.exited).code).toBe(2);
    expect(bad.stderr()).toMatch(/--tools: no tool group entitys; the groups are .*entities/);
  }, 60_000);

  it('runs an agent\'s session: open, create, query, modify, preview, save', async () => {
    const opened = await call(client, 'documents', { action: 'document_new' });
    expect(opened.isError).toBeFalsy();
    const id = opened.structuredContent.document_id as number;
    const made = await call(client, 'entities', {
      action: 'entities_create', create_layers: true,
      entities: [
        { type: 'LWPolyline', points: [[0, 0], [5, 0], [5, 4], [0, 4]], closed: true, layer: 'WALLS' },
        { type: 'Text', value: 'Kitchen', position: [1, 2], height: 0.3, layer: 'TEXT' },
      ],
    });
    expect(made.isError, JSON.stringify(made.structuredContent)).toBeFalsy();
    const [wall, label] = made.structuredContent.handles as string[];
    const listed = await call(client, 'query', { action: 'entities_list', layer: 'WALLS', limit: 5 });
    expect(listed.structuredContent.entities.map((e: any) => e.handle)).toEqual([wall]);
    const moved = await call(client, 'modify', { action: 'entities_transform', mode: 'move', handles: [label], vector: [0.5, 0] });
    expect(moved.isError, JSON.stringify(moved.structuredContent)).toBeFalsy();
    const text = await call(client, 'query', { action: 'entity_get', handle: label });
    expect(text.structuredContent.entities[0].position.slice(0, 2)).toEqual([1.5, 2]);
    const preview = await call(client, 'query', { action: 'preview', width: 120, height: 90 });
    expect(preview.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    const saved = await call(client, 'documents', { action: 'save', path: 'plan.dxf', document_id: id });
    expect(saved.structuredContent).toMatchObject({ saved: true, name: 'plan.dxf' });
  });

  it('states what each entity type requires: {type: "Text"} alone is not a valid Text', async () => {
    const { tools } = await client.listTools();
    const entities = tools.find((t) => t.name === 'entities')!;
    const create = (entities.inputSchema as any).oneOf.find((b: any) => b.properties.action.const === 'entities_create');
    const text = create.properties.entities.items.oneOf.find((b: any) => b.properties.type.const === 'Text');
    expect(text.required).toEqual(['type', 'value', 'position']);
    const failed = await call(client, 'entities', { action: 'entities_create', entities: [{ type: 'Text' }] });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent.error).toMatch(/value/);
  });

  it('answers mistakes in MCP\'s words, with did-you-mean and no HTTP hints', async () => {
    const tool = await call(client, 'entity', { action: 'entities_list' });
    expect(tool.isError).toBe(true);
    expect(tool.structuredContent).toMatchObject({ code: 'unknown_tool', details: { did_you_mean: ['entities'] } });
    expect(tool.structuredContent.error).toMatch(/There is no tool "entity"\. Did you mean "entities"\?/);
    const opAsTool = await call(client, 'entities_create', {});
    expect(opAsTool.structuredContent.error).toMatch(/call the "entities" tool with action "entities_create"/);
    const action = await call(client, 'entities', { action: 'entities_creat' });
    expect(action.structuredContent).toMatchObject({ code: 'unknown_action', details: { did_you_mean: ['entities_create'] } });
    const wrongTool = await call(client, 'entities', { action: 'entities_list' });
    expect(wrongTool.structuredContent.error).toBe('"entities_list" is an action of the "query" tool, not of "entities".');
    const notListed = await call(client, 'entities', { action: 'block_list' });
    expect(notListed.structuredContent.error).toMatch(/"blocks" tool, which this server was started without \(--tools\)/);
    const none = await call(client, 'query', {});
    expect(none.structuredContent).toMatchObject({ code: 'action_required' });
    for (const r of [tool, opAsTool, action, wrongTool, notListed, none]) expect(JSON.stringify(r)).not.toMatch(/GET |POST |\/api\/v1|capabilities/);
  });

  it('offers prompts for common tasks, naming only tools it lists', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['check_drawing', 'describe_drawing', 'draw_floor_plan']);
    const plan = await client.getPrompt({ name: 'draw_floor_plan', arguments: { description: 'one room 4 x 3 m' } });
    const text = (plan.messages[0]!.content as { text: string }).text;
    expect(text).toMatch(/one room 4 x 3 m/);
    expect(text).toMatch(/the `entities` tool with action `entities_create`/);
    expect(text).toMatch(/the `documents` tool with action `save`/);
    const check = await client.getPrompt({ name: 'check_drawing', arguments: { path: 'plan.dxf' } });
    const checkText = (check.messages[0]!.content as { text: string }).text;
    expect(checkText).toMatch(/the `documents` tool with action `audit`/);
    // block_list is in the blocks tool, not listed by default: the step is left out.
    expect(checkText).not.toMatch(/block_list/);
  });

  it('lists and reads the state, layers, blocks and each open document as resources', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(['linework://blocks', 'linework://layers', 'linework://state', 'linework://documents/1']));
    const st = JSON.parse(((await client.readResource({ uri: 'linework://state' })).contents[0] as any).text);
    expect(st).toMatchObject({ session_id: expect.any(String) });
    const doc = JSON.parse(((await client.readResource({ uri: 'linework://documents/1' })).contents[0] as any).text);
    expect(doc.document).toMatchObject({ document_id: 1 });
    expect(doc.layers.layers.some((l: any) => l.name === '0')).toBe(true);
    expect(doc.entities).toMatchObject({ total: expect.any(Number) });
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toContain('linework://documents/{document_id}');
  });

  it('initializes with server info, instructions, tools, prompts and resources', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'linework', version: '0.1.0' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: expect.any(Object), resources: expect.any(Object), prompts: expect.any(Object) });
    expect(client.getInstructions()).toMatch(/set `action` to the operation/);
  });

  it('logs nothing on stdout (the protocol would break) and ends when stdin closes', async () => {
    const { spawnCli } = await import('./helpers.js');
    const p = spawnCli(['--mcp']);
    p.child.stdin!.end();
    expect((await p.exited).code).toBe(0);
    expect(p.stdout()).toBe('');
  });
});
