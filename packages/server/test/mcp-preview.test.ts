// The MCP preview action (of the query tool) through the SDK's Client: a PNG of the active drawing as image content,
// the rest of the answer (without the encoded picture) as text and structuredContent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { decodePng, inkBox } from '../../engine/test/render-helpers.js';
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

/** Size of a PNG and whether anything was drawn on it. */
function pngFacts(b64: string): { width: number; height: number; ink: boolean } {
  const buf = Buffer.from(b64, 'base64');
  expect(buf.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const img = decodePng(buf);
  return { width: img.width, height: img.height, ink: inkBox(img) !== null };
}

describe('--mcp preview', () => {
  it('lists preview as an action of a read-only tool, with its fields', async () => {
    const { tools } = await client.listTools();
    const carriers = tools.filter((t) => (t.inputSchema as any).oneOf.some((b: any) => b.properties.action.const === 'preview'));
    expect(carriers.map((t) => t.name)).toEqual(['query']);
    expect(carriers[0]!.annotations).toMatchObject({ readOnlyHint: true });
    const branch = (carriers[0]!.inputSchema as any).oneOf.find((b: any) => b.properties.action.const === 'preview');
    expect(Object.keys(branch.properties)).toEqual(expect.arrayContaining(['layout', 'width', 'height', 'format']));
  });

  it('answers a PNG as image content', async () => {
    const made = (await client.callTool({ name: 'entities', arguments: { action: 'entities_create', entities: [{ type: 'Circle', center: [0, 0], radius: 10 }, { type: 'Line', start: [-20, 0], end: [40, 5] }] } })) as any;
    expect(made.isError).toBeFalsy();
    const r = (await client.callTool({ name: 'query', arguments: { action: 'preview', width: 240, height: 160 } })) as any;
    expect(r.isError).toBeFalsy();
    const img = r.content.find((c: any) => c.type === 'image');
    expect(img).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(pngFacts(img.data)).toEqual({ width: 240, height: 160, ink: true });
    // the picture is not repeated in the text or the structured result
    const text = r.content.find((c: any) => c.type === 'text').text;
    expect(text.length).toBeLessThan(1000);
    expect(JSON.parse(text)).toMatchObject({ ok: true, result: { format: 'png', width: 240, height: 160 } });
    expect(r.structuredContent).toMatchObject({ layout: 'Model', mime_type: 'image/png', width: 240, height: 160 });
    expect(r.structuredContent).not.toHaveProperty('data');
  });

  it('leaves a margin around the extents: nothing is drawn within 5 % of the edges', async () => {
    const r = (await client.callTool({ name: 'query', arguments: { action: 'preview', width: 400, height: 200 } })) as any;
    const img = decodePng(Buffer.from(r.content.find((c: any) => c.type === 'image').data, 'base64'));
    const ink = inkBox(img, 250)!;
    expect(ink).not.toBeNull();
    expect(Math.min(ink.minX, ink.minY, 400 - 1 - ink.maxX, 200 - 1 - ink.maxY)).toBeGreaterThanOrEqual(9);
    // and the drawing still fills the picture across its longer side (up to the margin)
    expect(Math.max(ink.minX, 400 - 1 - ink.maxX)).toBeLessThanOrEqual(12);
  });

  it('answers SVG when asked, and unknown_layout as a tool error', async () => {
    const svg = (await client.callTool({ name: 'query', arguments: { action: 'preview', format: 'svg', width: 100, height: 100 } })) as any;
    const img = svg.content.find((c: any) => c.type === 'image');
    expect(img.mimeType).toBe('image/svg+xml');
    expect(Buffer.from(img.data, 'base64').toString('utf8')).toMatch(/<svg/);
    const bad = (await client.callTool({ name: 'query', arguments: { action: 'preview', layout: 'Nope' } })) as any;
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ ok: false, code: 'unknown_layout' });
    expect(bad.content.some((c: any) => c.type === 'image')).toBe(false);
  });
});
