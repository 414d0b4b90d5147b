// The MCP tool schemas as an agent reads them: each action's branch means exactly what the op's
// own schema does (judged by a JSON Schema validator on the same inputs), and the interactive
// session actions say plainly that they need the graphical mode.
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createEngine } from '@linework/engine';
import { buildGroupTools, didYouMean, firstSentence, groupInputSchema, opFields, saysNothing } from '../src/mcp-tools.js';

const engine = createEngine({ appVersion: 'test' });
const tools = buildGroupTools(engine.catalogue);
const op = (name: string) => engine.catalogue.find((o) => o.name === name)!;

describe('MCP group tool schemas', () => {
  it('every group schema compiles as draft-07 and as 2020-12, MCP\'s dialect (its $refs resolve)', () => {
    const ajv = new Ajv({ strict: false });
    const ajv2020 = new Ajv2020({ strict: false });
    for (const t of tools) {
      expect(() => ajv.compile(t.tool.inputSchema), t.tool.name).not.toThrow();
      expect(() => ajv2020.compile(t.tool.inputSchema), t.tool.name).not.toThrow();
    }
    // a description beside a $ref does not change what 2020-12 accepts
    const v = ajv2020.compile(groupInputSchema([op('entities_create')]));
    expect(v({ action: 'entities_create', entities: [{ type: 'Circle', center: [0, 0], radius: 1 }] })).toBe(true);
    expect(v({ action: 'entities_create', entities: [{ type: 'Circle', center: [0], radius: 1 }] })).toBe(false);
  });

  it('judges entities_create inputs as the op\'s own schema does', () => {
    const ajv = new Ajv({ strict: false });
    const full = z.toJSONSchema(op('entities_create').input, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    delete full.$schema;
    const vFull = ajv.compile(full);
    const vTool = ajv.compile(groupInputSchema([op('entities_create')]));
    const cases: Record<string, unknown>[] = [
      { entities: [{ type: 'Line', start: [0, 0], end: [1, 1] }] },
      { entities: [{ type: 'Line', start: [0, 0], end: [1, 1], layer: 'A', color: 'red', lineweight: 25, xdata: { APP: [{ code: 1000, value: 'x' }] } }] },
      { entities: [{ type: 'Line', start: [0, 0], end: [1, 1], layer: '' }] },
      { entities: [{ type: 'Line', start: [0, 0], end: [1, 1], color: 'mauve' }] },
      { entities: [{ type: 'Line', start: [0, 0], end: [1, 1], lineweight: 500 }] },
      { entities: [{ type: 'Circle', center: [0, 0, 0], radius: 2, ltscale: 0 }] },
      { entities: [{ type: 'Circle', center: [0], radius: 2 }] },
      { entities: [{ type: 'Polyline', points: [[0, 0]] }] },
      { entities: [{ type: 'Hatch', boundary: [[0, 0], [1, 0], [1, 1]], pattern: 'ANSI31' }] },
      { entities: [{ type: 'Hatch', pattern: 'ANSI31' }] },
      { entities: [{ type: 'Spline', control_points: [[0, 0], [1, 1], [2, 0], [3, 1]] }] },
      { entities: [{ type: 'Spline' }] },
      { entities: [{ type: 'Text', value: 'hi', position: [0, 0] }] },
      { entities: [{ type: 'Text' }] },
      { entities: [{ type: 'Text', value: 'hi', position: [0, 0], height: -1 }] },
      { entities: [{ type: 'Nope' }] },
      { entities: [] },
      {},
    ];
    const verdicts = cases.map((c) => [vFull(c), vTool({ action: 'entities_create', ...c })]);
    for (const [i, [a, b]] of verdicts.entries()) expect(b, JSON.stringify(cases[i])).toBe(a);
    expect(verdicts.filter(([a]) => a).length).toBeGreaterThanOrEqual(5);
    expect(verdicts.filter(([a]) => !a).length).toBeGreaterThanOrEqual(10);
    // the action picks the branch: another action's fields do not pass for it
    expect(vTool({ action: 'entities_list', entities: [{ type: 'Line', start: [0, 0], end: [1, 1] }] })).toBe(false);
  });

  it('every action\'s required fields are the op\'s own (an op\'s `action` field is `mode`)', () => {
    for (const t of tools) {
      for (const b of (t.tool.inputSchema as any).oneOf) {
        const name = b.properties.action.const as string;
        const own = z.toJSONSchema(op(name).input, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as { required?: string[] };
        expect(b.required, name).toEqual(['action', ...(own.required ?? []).map((r) => (r === 'action' ? 'mode' : r))]);
      }
    }
    expect(opFields({ action: 'entities_transform', mode: 'move', handles: ['1'] })).toEqual({ action: 'move', handles: ['1'] });
  });

  it('says plainly that user_select, getpoint and cancel need the graphical mode', () => {
    const session = tools.find((t) => t.tool.name === 'session')!;
    for (const name of ['user_select', 'getpoint', 'cancel']) {
      const b = (session.tool.inputSchema as any).oneOf.find((x: any) => x.properties.action.const === name);
      expect(b.description, name).toMatch(/^Needs the graphical mode/);
    }
  });

  it('did-you-mean finds near names, and first sentences drop what the schema repeats', () => {
    expect(didYouMean('entity', ['documents', 'entities', 'query'])).toEqual(['entities']);
    expect(didYouMean('entities_creat', ['entities_create', 'entities_delete', 'command'])[0]).toBe('entities_create');
    expect(didYouMean('zzzz', ['documents', 'entities'])).toEqual([]);
    expect(firstSentence('Writes entities to a new DXF drawing: {path, handles?}')).toBe('Writes entities to a new DXF drawing');
    expect(firstSentence('Erases entities by handle. One undo step.')).toBe('Erases entities by handle');
    expect(firstSentence('Runs command-line text (LINE, ARC; one per line), each command one undo step.')).toBe('Runs command-line text, each command one undo step');
    expect(firstSentence('Transforms entities: move (vector), rotate (base, angle).')).toBe('Transforms entities');
    // descriptions that only restate the schema or the names around them are left out
    expect(saysNothing('[x, y] or [x, y, z]')).toBe(true);
    expect(saysNothing('[x1, y1, x2, y2]')).toBe(false);
    expect(saysNothing('offset distance', ['distance', 'offset'])).toBe(true);
    expect(saysNothing('text height', ['height', 'MText'])).toBe(true);
    expect(saysNothing('degrees', ['angle', 'entities_transform'])).toBe(false);
    expect(saysNothing('Creates entities', ['entities_create'])).toBe(true);
    expect(saysNothing('Creates a dimension', ['dimension_create'])).toBe(true);
    expect(saysNothing('Joins entities into one', ['join'])).toBe(false);
  });
});
