// The MCP tool list as an agent reads it: small (shared definitions, protocol fields described
// once), exact (every compacted schema accepts and refuses what the op's own schema does), and
// plain about what needs the graphical mode.
import { Ajv } from 'ajv';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createEngine } from '@linework/engine';
import { compactSchema } from '../src/compact-schema.js';
import { toolInputSchema } from '../src/mcp.js';
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

const engine = createEngine({ appVersion: 'test' });
const op = (name: string) => engine.catalogue.find((o) => o.name === name)!;

describe('MCP tool list', () => {
  it('is small: under 48 KB in all with the editor\'s, hosted API\'s and construct/modify group\'s additions, entities_create under 8 KB (62 KB and 22 KB before)', async () => {
    const { tools } = await client.listTools();
    const bytes = Buffer.byteLength(JSON.stringify(tools));
    // 44 KB before the `modify` group (ops with mcpGroup 'modify' as one tool: ~2.5 KB for seven ops, 7.5 KB as tools of their own)
    expect(bytes).toBeLessThan(48_000);
    const modify = tools.find((t) => t.name === 'modify');
    if (modify) expect(Buffer.byteLength(JSON.stringify(modify))).toBeLessThan(4_000);
    const create = tools.find((t) => t.name === 'entities_create')!;
    expect(Buffer.byteLength(JSON.stringify(create))).toBeLessThan(8_000);
    // The common entity fields are declared once, beside the entity types, and a point once.
    const items = (create.inputSchema.properties as any).entities.items;
    expect(Object.keys(items.properties).sort()).toEqual(['color', 'layer', 'linetype', 'lineweight', 'ltscale', 'xdata']);
    expect(items.oneOf.every((v: any) => !('layer' in v.properties))).toBe(true);
    expect((create.inputSchema as any).definitions.point).toEqual({ minItems: 2, maxItems: 3, type: 'array', items: { type: 'number' }, description: '[x, y] or [x, y, z]' });
    // Protocol fields carry no description per tool; the server's instructions explain them once.
    expect((create.inputSchema.properties as any).expected_version).toEqual({ type: 'integer' });
    expect(client.getInstructions()).toMatch(/expected_version \(mutating tools: refused with stale_state/);
  });

  it('says plainly that user_select, getpoint and cancel need the graphical mode', async () => {
    const { tools } = await client.listTools();
    for (const name of ['user_select', 'getpoint', 'cancel']) {
      expect(tools.find((t) => t.name === name)!.description, name).toMatch(/^Needs the graphical mode \(linework --http with drawing files or --gui\)/);
    }
  });

  it('every compacted schema compiles (its $refs resolve) and means what the uncompacted one does', () => {
    const ajv = new Ajv({ strict: false, allErrors: false });
    for (const o of engine.catalogue) {
      const compact = toolInputSchema(o);
      const full = z.toJSONSchema(o.input, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
      delete full.$schema;
      expect(() => ajv.compile(compact), o.name).not.toThrow();
      expect(() => ajv.compile(full), o.name).not.toThrow();
    }
    // Inputs valid and invalid for entities_create, judged alike by the full and the compact schema.
    const full = z.toJSONSchema(op('entities_create').input, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    delete full.$schema;
    const compact = compactSchema(full);
    expect(JSON.stringify(compact).length).toBeLessThan(JSON.stringify(full).length / 2.5);
    const vFull = ajv.compile(full);
    const vCompact = ajv.compile(compact);
    const cases: unknown[] = [
      { entities: [{ type: 'Line', start: [0, 0], end: [1, 1] }] },
      { entities: [{ type: 'Line', start: [0, 0], end: [1, 1], layer: 'A', color: 'red', lineweight: 25, xdata: { APP: [{ code: 1000, value: 'x' }] } }] },
      { entities: [{ type: 'Line', start: [0, 0], end: [1, 1], layer: '' }] },
      { entities: [{ type: 'Line', start: [0, 0], end: [1, 1], color: 'mauve' }] },
      { entities: [{ type: 'Line', start: [0, 0], end: [1, 1], lineweight: 500 }] },
      { entities: [{ type: 'Line', start: [0, 0], end: [1, 1], xdata: { APP: [{ code: 5, value: 'x' }] } }] },
      { entities: [{ type: 'Circle', center: [0, 0, 0], radius: 2, ltscale: 0 }] },
      { entities: [{ type: 'Circle', center: [0], radius: 2 }] },
      { entities: [{ type: 'Polyline', points: [[0, 0], [1, 1, 1]] }] },
      { entities: [{ type: 'Polyline', points: [[0, 0]] }] },
      { entities: [{ type: 'Hatch', boundary: [[0, 0], [1, 0], [1, 1]], pattern: 'ANSI31' }] },
      { entities: [{ type: 'Spline', control_points: [[0, 0], [1, 1], [2, 0], [3, 1]] }] },
      { entities: [{ type: 'Insert', name: 'B', position: [1, 2], attributes: { TAG: 'v', N: 3 } }] },
      { entities: [{ type: 'Text', value: 'hi', position: [0, 0], height: -1 }] },
      { entities: [{ type: 'Nope' }] },
      { entities: [] },
      {},
    ];
    const verdicts = cases.map((c) => [vFull(c), vCompact(c)]);
    for (const [i, [a, b]] of verdicts.entries()) expect(b, JSON.stringify(cases[i])).toBe(a);
    expect(verdicts.filter(([a]) => a).length).toBeGreaterThanOrEqual(6);
    expect(verdicts.filter(([a]) => !a).length).toBeGreaterThanOrEqual(8);
  });
});
