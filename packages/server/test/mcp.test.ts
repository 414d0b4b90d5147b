// `linework --mcp` through the SDK's own Client and StdioClientTransport.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startMcpClient } from './transports.js';

let m: Awaited<ReturnType<typeof startMcpClient>>;
let client: Client;

beforeAll(async () => {
  m = await startMcpClient();
  client = m.client;
});
afterAll(async () => {
  await m?.close();
});

/** What each tool does, decided by hand here so a catalogue change must be looked at again. */
const EFFECTS: Record<string, 'read' | 'change' | 'write_files' | 'discard'> = {
  ready: 'read', state: 'read', capabilities: 'read', events: 'read', operation: 'read', header: 'read', layers: 'read',
  records: 'read', layout_list: 'read', entities_list: 'read', entity_get: 'read', property: 'read', get_selection: 'read',
  xdata_get: 'read', block_list: 'read', preview: 'read', user_select: 'read', getpoint: 'read',
  cancel: 'change', activate: 'change', document_open: 'change', document_new: 'change', undo: 'change', redo: 'change',
  file_identity: 'change', sysvars: 'change', layout_create: 'change', page_setup: 'change', entities_create: 'change',
  entities_delete: 'change', entities_transform: 'change', entities_copy_to: 'change', set_properties: 'change',
  view_focus: 'change', select: 'change', selection_set_create: 'change', selection_set_recall: 'change',
  group_create: 'change', xdata_set: 'change', xdata_delete: 'change', block_define: 'change', block_delete: 'change',
  block_rename: 'change', purge: 'change', embed_image: 'change', command: 'change', audit: 'change',
  pick: 'read', layer_set: 'change', modify: 'change',
  save: 'write_files', plot: 'write_files', wblock: 'write_files',
  document_close: 'discard',
};

describe('tool annotations', () => {
  it('say truthfully what every tool does', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(EFFECTS).sort());
    for (const t of tools) {
      const effect = EFFECTS[t.name]!;
      expect(t.annotations, t.name).toEqual({
        readOnlyHint: effect === 'read',
        destructiveHint: effect === 'write_files' || effect === 'discard',
        idempotentHint: effect === 'read',
        openWorldHint: false,
      });
    }
    for (const name of ['save', 'plot', 'wblock', 'document_open', 'document_close']) {
      const a = tools.find((t) => t.name === name)!.annotations!;
      expect(a.readOnlyHint, name).toBe(false);
      expect(a.idempotentHint, name).toBe(false);
    }
    for (const name of ['save', 'plot', 'wblock', 'document_close']) expect(tools.find((t) => t.name === name)!.annotations!.destructiveHint, name).toBe(true);
  });
});

describe('tool permissions', () => {
  it('the tool list shows what an API key needs for each op over HTTP/TCP, as the catalogue declares it', async () => {
    const { tools } = await client.listTools();
    const { buildCatalogue } = await import('@linework/engine');
    const catalogue = buildCatalogue();
    const declared = new Map<string, readonly string[]>(catalogue.map((o) => [o.name, o.permissions]));
    // A tool carrying several ops (their mcpGroup) shows what any of its actions needs.
    for (const o of catalogue) if (o.mcpGroup) declared.set(o.mcpGroup, [...new Set([...(declared.get(o.mcpGroup) ?? []), ...o.permissions])]);
    for (const t of tools) expect(t._meta?.['linework/permissions'], t.name).toEqual(declared.get(t.name));
    expect(tools.find((t) => t.name === 'plot')!._meta).toEqual({ 'linework/permissions': ['plots:create'] });
  });
});

describe('--mcp', () => {
  it('initializes with server info and capabilities', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'linework', version: '0.1.0' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: expect.any(Object), resources: expect.any(Object) });
    expect(client.getInstructions()).toMatch(/Linework/);
  });

  it('lists a tool per catalogue op with its input JSON schema', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['ready', 'state', 'entities_create', 'entities_list', 'block_define', 'sysvars', 'undo']) expect(names).toContain(n);
    const create = tools.find((t) => t.name === 'entities_create')!;
    expect(create.description).toMatch(/Creates entities/);
    expect(create.inputSchema.type).toBe('object');
    expect(create.inputSchema.properties).toHaveProperty('entities');
    expect((create.inputSchema as any).required).toContain('entities');
    expect(create.inputSchema.properties).toHaveProperty('expected_version');
    expect(create.annotations).toMatchObject({ readOnlyHint: false });
    expect(tools.find((t) => t.name === 'entities_list')!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('calls tools: result as structuredContent plus a text content; failures as isError', async () => {
    const r = (await client.callTool({ name: 'entities_create', arguments: { entities: [{ type: 'Circle', center: [1, 1], radius: 3 }] } })) as any;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ handles: [expect.any(String)], count: 1 });
    const env = JSON.parse(r.content[0].text);
    expect(env).toMatchObject({ ok: true, result: r.structuredContent });
    expect(env).not.toHaveProperty('state');
    const h = r.structuredContent.handles[0];
    const get = (await client.callTool({ name: 'entity_get', arguments: { handle: h } })) as any;
    expect(get.structuredContent.entities[0]).toMatchObject({ handle: h, type: 'Circle', radius: 3 });
    const bad = (await client.callTool({ name: 'entities_create', arguments: { entities: 5 } })) as any;
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ ok: false, code: 'invalid_request' });
    const absent = (await client.callTool({ name: 'entity_get', arguments: { handle: 'ABCDEF' } })) as any;
    expect(absent.structuredContent).toMatchObject({ ok: false, code: 'entity_absent' });
    const unknown = (await client.callTool({ name: 'no_such_tool', arguments: {} })) as any;
    expect(unknown.structuredContent).toMatchObject({ ok: false, code: 'unknown_op' });
    // A grouped tool runs the op its action names.
    const off = (await client.callTool({ name: 'modify', arguments: { action: 'offset', handle: h, distance: 1, side: [1, 1] } })) as any;
    expect(off.isError).toBeFalsy();
    expect(off.structuredContent).toMatchObject({ created: [expect.any(String)], modified: [], erased: [] });
    const noAction = (await client.callTool({ name: 'modify', arguments: { action: 'explode_all', handle: h } })) as any;
    expect(noAction.structuredContent).toMatchObject({ ok: false, code: 'unknown_op' });
  });

  it('lists and reads the state, layers and blocks resources', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['linework://blocks', 'linework://layers', 'linework://state']);
    const state = await client.readResource({ uri: 'linework://state' });
    const st = JSON.parse((state.contents[0] as any).text);
    expect(st).toMatchObject({ document_id: 1, session_id: expect.any(String) });
    expect(state.contents[0]!.mimeType).toBe('application/json');
    const layers = JSON.parse(((await client.readResource({ uri: 'linework://layers' })).contents[0] as any).text);
    expect(layers.layers.some((l: any) => l.name === '0')).toBe(true);
    const blocks = JSON.parse(((await client.readResource({ uri: 'linework://blocks' })).contents[0] as any).text);
    expect(blocks).toBeTypeOf('object');
  });

  it('registers a preview tool only when the engine offers a renderer', async () => {
    const { tools } = await client.listTools();
    const hasRenderer = tools.some((t) => t.name === 'render' || t.name === 'preview');
    expect(tools.some((t) => t.name === 'preview')).toBe(hasRenderer);
  });

  it('logs nothing on stdout (the protocol would break) and ends when stdin closes', async () => {
    const other = await startMcpClient();
    await other.client.callTool({ name: 'ready', arguments: {} });
    await other.close();
    expect(other.stderr()).not.toMatch(/Error/);
    const { spawnCli } = await import('./helpers.js');
    const p = spawnCli(['--mcp']);
    p.child.stdin!.end();
    expect((await p.exited).code).toBe(0);
    expect(p.stdout()).toBe('');
  });
});

describe('the modify tool (ops grouped by mcpGroup)', () => {
  it('runs the action it names with its fields, and refuses actions of no op of the group', async () => {
    const c = (await client.callTool({ name: 'entities_create', arguments: { entities: [{ type: 'Circle', center: [0, 0], radius: 2 }] } })) as any;
    const h = c.structuredContent.handles[0];
    const r = (await client.callTool({ name: 'modify', arguments: { action: 'hatch', point: [0, 0] } })) as any;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ created: [expect.any(String)], modified: [], erased: [] });
    const s = (await client.callTool({ name: 'modify', arguments: { action: 'scale', handles: [h], base: [0, 0], factor: 0 } })) as any;
    expect(s.structuredContent).toMatchObject({ ok: false, code: 'invalid_transform' });
    const bad = (await client.callTool({ name: 'modify', arguments: { action: 'entities_delete', handles: [h] } })) as any;
    expect(bad.structuredContent).toMatchObject({ ok: false, code: 'unknown_op' });
  });
});
