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
