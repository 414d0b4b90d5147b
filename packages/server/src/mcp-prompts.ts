// MCP prompts for the tasks agents are most often given: draw from a description, check a drawing,
// describe a drawing. Each names the tool and action of every op it uses, looked up in the
// catalogue's groups, so a prompt never points at a tool this server does not list; a step whose op
// is absent (or whose group was left out with --tools) is left out of the prompt.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import type { GroupTool } from './mcp-tools.js';

/** `tool` with `action: op`, or null when no listed tool carries the op. */
function callOf(tools: readonly GroupTool[], op: string): string | null {
  const t = tools.find((g) => g.actions.has(op));
  return t ? `the \`${t.tool.name}\` tool with action \`${op}\`` : null;
}

/** The steps whose ops are listed, numbered. */
function steps(tools: readonly GroupTool[], list: Array<[op: string, text: (call: string) => string]>): string {
  const out: string[] = [];
  for (const [op, text] of list) {
    const call = callOf(tools, op);
    if (call) out.push(`${out.length + 1}. ${text(call)}`);
  }
  return out.join('\n');
}

const user = (text: string): GetPromptResult => ({ messages: [{ role: 'user', content: { type: 'text', text } }] });

export function registerPrompts(mcp: McpServer, tools: readonly GroupTool[]): void {
  mcp.registerPrompt(
    'draw_floor_plan',
    {
      title: 'Draw a floor plan from a description',
      description: 'Turns a description of rooms (names, sizes, doors, windows) into a DXF floor plan with walls, openings and labels.',
      argsSchema: {
        description: z.string().describe('the rooms and their sizes, e.g. "living room 5 x 4 m, kitchen 3 x 4 m east of it, door on the south wall"'),
        path: z.string().optional().describe('where to save the drawing (default floor-plan.dxf)'),
        units: z.string().optional().describe('drawing units (default metres)'),
      },
    },
    ({ description, path, units }) => user(
      `Draw this floor plan as a DXF drawing, in ${units ?? 'metres'}:\n\n${description}\n\n` +
      'Work out the coordinates of every room first (origin at the south-west corner, x east, y north), then:\n' +
      steps(tools, [
        ['document_new', (c) => `Start a new drawing with ${c}.`],
        ['entities_create', (c) =>
          `Create the geometry with ${c} and create_layers: true: each room as a closed LWPolyline on layer WALLS, ` +
          'doors as Arc swings plus Line leaves on layer DOORS, windows as Line pairs on layer WINDOWS, and each room\'s name and area ' +
          'as a Text (value, position at the room centre, height about a fortieth of the plan) on layer TEXT. One call can create them all.'],
        ['entities_list', (c) => `Check what was drawn with ${c} (detail "geometry").`],
        ['preview', (c) => `Look at the result with ${c}; fix anything that overlaps or is missing.`],
        ['save', (c) => `Save it with ${c} to ${path ?? 'floor-plan.dxf'}.`],
      ]),
    ),
  );

  mcp.registerPrompt(
    'check_drawing',
    {
      title: 'Check this drawing',
      description: 'Audits a drawing (structure, layers, texts, blocks) and reports problems with their handles, fixing only what is asked.',
      argsSchema: {
        path: z.string().optional().describe('the DXF file to check (default: the active drawing)'),
        fix: z.string().optional().describe('"yes" to let the audit repair what it can'),
      },
    },
    ({ path, fix }) => user(
      `Check ${path ? `the drawing ${path}` : 'the active drawing'} and report what is wrong, most serious first, with the handles involved.\n` +
      steps(tools, [
        ...(path ? [['document_open', (c: string) => `Open ${path} with ${c}.`] as [string, (c: string) => string]] : []),
        ['audit', (c) => `Run ${c}${fix === 'yes' ? ' with fix: true, and say what was repaired' : ' (without fix)'}.`],
        ['layers', (c) => `List the layers with ${c}: report empty layers, frozen or off layers that hold entities, and odd names.`],
        ['entities_list', (c) => `Look at the entities with ${c} (detail "summary", paging with offset): entities on layer 0, zero-length lines, texts with empty values.`],
        ['block_list', (c) => `List the blocks with ${c}: unused ones (references 0) are candidates for purge.`],
        ['preview', (c) => `Look at it with ${c} for anything drawn far from the rest.`],
      ]) +
      '\nDo not change the drawing unless asked; end with a short list of findings and suggested fixes.',
    ),
  );

  mcp.registerPrompt(
    'describe_drawing',
    {
      title: 'Describe this drawing',
      description: 'Summarises a drawing: what it shows, its layers, blocks, layouts, extents and units.',
      argsSchema: { path: z.string().optional().describe('the DXF file (default: the active drawing)') },
    },
    ({ path }) => user(
      `Describe ${path ? `the drawing ${path}` : 'the active drawing'} for someone who has not seen it.\n` +
      steps(tools, [
        ...(path ? [['document_open', (c: string) => `Open ${path} with ${c}.`] as [string, (c: string) => string]] : []),
        ['state', (c) => `Read the units, extents and entity count with ${c}.`],
        ['layers', (c) => `Read the layers with ${c}.`],
        ['block_list', (c) => `Read the blocks with ${c}.`],
        ['layout_list', (c) => `Read the layouts with ${c}.`],
        ['preview', (c) => `Look at it with ${c}.`],
      ]),
    ),
  );
}
