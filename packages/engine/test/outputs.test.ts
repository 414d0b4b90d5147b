// Every op declares the shape of its answer, and a tour of the catalogue checks each real answer
// against it (the OpenAPI answer schemas come from the same declarations).
import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../src/ops/catalogue.js';
import { outputProblems } from './output-check.js';
import { runTour, tourEngine } from './op-tour.js';

describe('op outputs', () => {
  it('every op declares its output schema and its MCP group', () => {
    for (const op of buildCatalogue()) {
      expect(op.output, op.name).toBeDefined();
      expect(op.mcpGroup, op.name).toMatch(/^[a-z]+$/);
    }
  });

  it('every answer of a tour of the catalogue matches its op\'s output schema', async () => {
    const { engine, prompts } = tourEngine();
    const answered = new Set<string>();
    const problems: string[] = [];
    await runTour(engine, prompts, (step, res) => {
      if (!res.ok) problems.push(`${step.op} failed: ${res.code}: ${res.error}`);
      const p = outputProblems(engine.ops.values(), step.op, res);
      if (p) problems.push(p);
      answered.add(step.op);
    });
    expect(problems).toEqual([]);
    // The tour covers the catalogue as it stood when the schemas were written; ops added later
    // are checked by their own tests through the helpers' call().
    for (const name of TOURED) expect(answered.has(name), name).toBe(true);
  }, 60_000);

  it('a result outside the schema is reported, with the field', () => {
    const cat = buildCatalogue();
    expect(outputProblems(cat, 'entities_create', { ok: true, result: { handles: ['1'], count: 1 } })).toBeNull();
    expect(outputProblems(cat, 'entities_create', { ok: true, result: { handles: [1], count: 1 } })).toMatch(/handles\.0/);
    expect(outputProblems(cat, 'entities_create', { ok: true, result: { count: 1 } })).toMatch(/handles/);
    expect(outputProblems(cat, 'entities_create', { ok: false, code: 'x' })).toBeNull();
  });
});

const TOURED = [
  'ready', 'state', 'capabilities', 'events', 'operation', 'cancel', 'user_select', 'getpoint', 'activate', 'document_open', 'document_new',
  'document_close', 'save', 'undo', 'redo', 'file_identity', 'header', 'layers', 'records', 'sysvars', 'layout_create', 'layout_list', 'page_setup',
  'entities_create', 'entities_list', 'entity_get', 'entities_delete', 'entities_transform', 'entities_copy_to', 'set_properties', 'property',
  'view_focus', 'get_selection', 'select', 'selection_set_create', 'selection_set_recall', 'group_create', 'xdata_get', 'xdata_set', 'xdata_delete',
  'block_define', 'block_delete', 'block_rename', 'block_list', 'purge', 'plot', 'wblock', 'embed_image', 'preview', 'command', 'audit',
  'display_list', 'pick', 'snap', 'answer', 'layer_set',
];

describe('op examples', () => {
  it('every example input is valid for its op', () => {
    for (const op of buildCatalogue()) {
      if (!op.example) continue;
      const parsed = op.input.safeParse(op.example);
      expect(parsed.success, `${op.name}: ${parsed.success ? '' : parsed.error.message}`).toBe(true);
    }
  });
});
