// `--mcp`: a Model Context Protocol server over stdio (official SDK). Tools come from the op
// catalogue, with the input JSON schema of each op's zod schema; a call runs the op through the
// dispatcher (which validates, so MCP answers the same failures as the other transports).
import { z } from 'zod';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { DispatcherApi, OpDef, ProtocolRequest, ProtocolResponse } from '@linework/engine';
import { compactSchema } from './compact-schema.js';
import { MAX_REPLY_BYTES, ReplyTooLarge, jsonText } from './json-reply.js';
import { DEFAULT_TOOLS, buildGroupTools, didYouMean, groupsOf, opFields } from './mcp-tools.js';
import { registerPrompts } from './mcp-prompts.js';

/**
 * An MCP answer carries the result twice (text and structuredContent) inside one JSON-RPC
 * message the SDK stringifies whole, so its share of the reply cap is a quarter.
 */
const MCP_TEXT_CAP = MAX_REPLY_BYTES / 4;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The protocol fields a tool may take besides the op's own. Forty tools take them: they are
 * described once, in the server's instructions, not in every tool.
 */
const PROTOCOL_FIELDS = {
  document_id: { type: 'integer' },
  expected_version: { type: 'integer' },
  request_id: { type: 'string' },
} as const;

export const INSTRUCTIONS =
  'Linework drawing automation on DXF drawings: each tool groups operations of the Linework dispatcher; ' +
  'set `action` to the operation, with its fields beside it (the branch of the tool\'s schema for that action). ' +
  'Read linework://state first (linework://documents/{id} for each open drawing); the prompts draw_floor_plan, check_drawing and describe_drawing show a workflow. ' +
  'Fields many actions take: document_id (default: the active document); ' +
  'expected_version (mutating tools: refused with stale_state unless the document is at that version); ' +
  'request_id (mutating tools: an idempotency key, a repeat returns the first answer). ' +
  'Paths are relative to the workspace root, and only files inside it can be named. ' +
  'An operation\'s own `action` field (a transform\'s move, rotate ...) is called `mode` here. ' +
  'The session actions user_select, getpoint and cancel need the graphical mode (linework --http with drawing files or --gui); headless they fail with gui_required.';

/**
 * The op's input schema for MCP (JSON Schema draft-07), plus the protocol fields a caller may add,
 * with repeated parts said once (compact-schema.ts).
 */
export function toolInputSchema(op: OpDef): Tool['inputSchema'] {
  let schema: Json;
  try {
    schema = z.toJSONSchema(op.input, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Json;
  } catch {
    schema = { type: 'object' };
  }
  delete schema.$schema;
  if (schema.type !== 'object') schema = { type: 'object', properties: {}, additionalProperties: true };
  const props: Json = { ...(isObject(schema.properties) ? schema.properties : {}) };
  if (op.needsDocument && !('document_id' in props)) props.document_id = PROTOCOL_FIELDS.document_id;
  if (op.mutates && !('expected_version' in props)) props.expected_version = PROTOCOL_FIELDS.expected_version;
  if (op.mutates && !('request_id' in props)) props.request_id = PROTOCOL_FIELDS.request_id;
  return compactSchema({ ...schema, type: 'object', properties: props }) as Tool['inputSchema'];
}

/** The op that renders the active drawing, when the engine offers one. */
export function findRenderer(catalogue: readonly OpDef[]): OpDef | undefined {
  return catalogue.find((o) => o.name === 'preview') ?? catalogue.find((o) => o.name === 'render');
}

/** Image content from a renderer's result: `{png}` / `{data, mime|mimeType}` / `{svg}` in base64 or text. */
export function imageFrom(result: unknown): { data: string; mimeType: string } | null {
  if (!isObject(result)) return null;
  const str = (k: string): string | undefined => (typeof result[k] === 'string' ? (result[k] as string) : undefined);
  const mime = str('mimeType') ?? str('mime_type') ?? str('mime') ?? (str('format') ? `image/${str('format') === 'svg' ? 'svg+xml' : str('format')}` : undefined);
  const dataUrl = /^data:([^;,]+);base64,(.*)$/s;
  for (const k of ['png', 'image', 'data', 'base64']) {
    const v = str(k);
    if (!v) continue;
    const m = dataUrl.exec(v);
    if (m) return { mimeType: m[1]!, data: m[2]! };
    return { data: v, mimeType: k === 'png' ? 'image/png' : (mime ?? 'image/png') };
  }
  const svg = str('svg');
  if (svg) return { data: Buffer.from(svg, 'utf8').toString('base64'), mimeType: 'image/svg+xml' };
  return null;
}

/** A renderer's result without the encoded image (which the answer carries as image content). */
export function withoutImageData(result: unknown): unknown {
  if (!isObject(result)) return result;
  const rest: Json = { ...result };
  for (const k of ['png', 'image', 'data', 'base64', 'svg']) delete rest[k];
  return rest;
}

/** The envelope as the text content of a tool answer (without the bulky state snapshot). */
function envelopeText(res: ProtocolResponse): string {
  const { state: _state, ...rest } = res;
  return jsonText(rest, MCP_TEXT_CAP);
}

function tooLarge(res: ProtocolResponse, err: ReplyTooLarge): ProtocolResponse {
  return {
    ok: false, code: 'reply_too_large', request_id: res.request_id,
    error: `${err.message}; ask for less per call (entities_list and records take limit and offset; entities_list takes detail "summary" or fields)`,
  };
}

/** A tool answer: the op's result as structuredContent, the envelope as text. */
export function toolResult(res: ProtocolResponse): CallToolResult {
  try {
    return buildToolResult(res);
  } catch (err) {
    if (err instanceof ReplyTooLarge) return buildToolResult(tooLarge(res, err));
    throw err;
  }
}

function buildToolResult(res: ProtocolResponse): CallToolResult {
  if (!res.ok) {
    const failure: Json = { ok: false, code: res.code ?? 'error', error: res.error ?? '' };
    if (res.details !== undefined) failure.details = res.details;
    return { isError: true, content: [{ type: 'text', text: envelopeText(res) }], structuredContent: failure };
  }
  const structured = isObject(res.result) ? res.result : { result: res.result ?? null };
  return { content: [{ type: 'text', text: envelopeText(res) }], structuredContent: structured };
}

export interface McpOptions {
  api: DispatcherApi;
  /** Defaults to a StdioServerTransport on the process's stdin/stdout. */
  transport?: Transport;
  /** The tool groups to list (`--tools`; `all` for every group); default: DEFAULT_TOOLS. */
  tools?: readonly string[];
}

/** The op serving a resource: by name, else the op of a GET route. */
function opFor(catalogue: readonly OpDef[], names: string[], path: string): OpDef | undefined {
  for (const n of names) {
    const o = catalogue.find((x) => x.name === n);
    if (o) return o;
  }
  return catalogue.find((o) => o.http.some((r) => r.method === 'GET' && r.path === path));
}

/** A failure the MCP layer words itself (a tool or action that does not exist), as a tool error. */
function mcpFailure(code: string, error: string, details: Json): CallToolResult {
  const failure = { ok: false, code, error, details };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(failure) }], structuredContent: failure };
}

const quoted = (names: readonly string[]): string => names.map((n) => `"${n}"`).join(', ');

/** The tool groups a catalogue offers (for `--tools` and its error message). */
export function toolGroups(catalogue: readonly OpDef[]): string[] {
  return [...groupsOf(catalogue).keys()];
}

export function createMcpServer(api: DispatcherApi, only?: readonly string[]): McpServer {
  const mcp = new McpServer(
    { name: 'linework', version: api.appVersion },
    { instructions: INSTRUCTIONS },
  );
  // No --tools: the everyday groups; `all`: every group.
  const chosen = only === undefined ? DEFAULT_TOOLS : only.includes('all') ? undefined : only;
  const groups = buildGroupTools(api.catalogue, chosen);
  const all = buildGroupTools(api.catalogue);
  const byName = new Map(groups.map((g) => [g.tool.name, g]));
  const renderer = findRenderer(api.catalogue);
  // The SDK aborts a call's signal when the client cancels it or the transport closes: a pick the
  // call waits for is cancelled then.
  const dispatch = (req: ProtocolRequest, signal?: AbortSignal): Promise<ProtocolResponse> => api.dispatch(req, signal ? { signal } : {});

  // Tools: the low-level handlers, so the listing carries the exact schemas and the dispatcher
  // (not the SDK) validates the arguments.
  mcp.server.registerCapabilities({ tools: { listChanged: false } });
  const list: Tool[] = groups.map((g) => g.tool);
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: list }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    const args = isObject(request.params.arguments) ? request.params.arguments : {};
    const group = byName.get(name);
    if (!group) {
      const near = didYouMean(name, [...byName.keys()]);
      // An op's name given as a tool: say which tool carries it.
      const carrier = groups.find((g) => g.actions.has(name));
      const hint = carrier ? ` It is an action: call the "${carrier.tool.name}" tool with action "${name}".` : near.length ? ` Did you mean ${quoted(near)}?` : '';
      return mcpFailure('unknown_tool', `There is no tool "${name}".${hint} The tools are ${quoted([...byName.keys()])}.`, { did_you_mean: carrier ? [carrier.tool.name] : near, tools: [...byName.keys()] });
    }
    const actions = [...group.actions.keys()];
    const action = args.action;
    if (typeof action !== 'string' || action === '') {
      return mcpFailure('action_required', `The "${name}" tool needs \`action\`, one of ${quoted(actions)}.`, { actions });
    }
    const op = group.actions.get(action);
    if (!op) {
      const elsewhere = all.find((g) => g.actions.has(action));
      let error: string;
      if (elsewhere && byName.has(elsewhere.tool.name)) error = `"${action}" is an action of the "${elsewhere.tool.name}" tool, not of "${name}".`;
      else if (elsewhere) error = `"${action}" belongs to the "${elsewhere.tool.name}" tool, which this server was started without (--tools).`;
      else {
        const near = didYouMean(action, actions);
        error = `The "${name}" tool has no action "${action}".${near.length ? ` Did you mean ${quoted(near)}?` : ''} Its actions are ${quoted(actions)}.`;
      }
      return mcpFailure('unknown_action', error, { did_you_mean: elsewhere ? [elsewhere.tool.name] : didYouMean(action, actions), actions });
    }
    const fields = opFields(args);
    const isPreview = renderer !== undefined && op.name === renderer.name;
    if (isPreview && fields.format === undefined && isObject(toolInputSchema(op).properties) && 'format' in (toolInputSchema(op).properties as Json)) fields.format = 'png';
    const res = await dispatch({ ...fields, protocol: 1, op: op.name }, extra.signal);
    const img = isPreview && res.ok ? imageFrom(res.result) : null;
    if (!img) return toolResult(res);
    // The picture travels once, as image content; text and structuredContent keep the rest.
    const out = toolResult({ ...res, result: withoutImageData(res.result) });
    out.content = [{ type: 'image', data: img.data, mimeType: img.mimeType }, ...out.content];
    return out;
  });

  registerPrompts(mcp, groups);

  // Resources: the drawing state, the layer table, the block table, and each open document.
  const read = async (op: OpDef, fields: Json): Promise<string> => {
    const res = await dispatch({ ...fields, protocol: 1, op: op.name });
    const { state: _state, ...rest } = res;
    try {
      return jsonText(res.ok ? res.result ?? {} : rest, MCP_TEXT_CAP);
    } catch (err) {
      if (!(err instanceof ReplyTooLarge)) throw err;
      return jsonText(tooLarge(res, err));
    }
  };
  const resource = (name: string, uri: string, description: string, op: OpDef | undefined, fields: Json): void => {
    if (!op) return;
    mcp.registerResource(name, uri, { title: name, description, mimeType: 'application/json' }, async (u) => ({
      contents: [{ uri: u.href, mimeType: 'application/json', text: await read(op, fields) }],
    }));
  };
  const cat = api.catalogue;
  const stateOp = opFor(cat, ['state'], '/state');
  resource('state', 'linework://state', 'State snapshot: session, open documents, the active document.', stateOp, {});
  resource('layers', 'linework://layers', 'The layer table of the active drawing.', opFor(cat, ['layers'], '/layers'), {});
  const blocks = opFor(cat, ['blocks', 'block_list', 'blocks_list'], '/blocks');
  if (blocks) resource('blocks', 'linework://blocks', 'The block definitions of the active drawing.', blocks, {});
  else resource('blocks', 'linework://blocks', 'The block definitions of the active drawing.', opFor(cat, ['records'], '/records'), { collection: 'blocks' });
  if (stateOp) registerDocumentResources(mcp, cat, stateOp, dispatch, read);
  return mcp;
}

/**
 * `linework://documents/{document_id}`: one resource per open document (listed from the state),
 * read as its summary, layers and layouts, and a first page of its entities.
 */
function registerDocumentResources(
  mcp: McpServer,
  cat: readonly OpDef[],
  stateOp: OpDef,
  dispatch: (req: ProtocolRequest) => Promise<ProtocolResponse>,
  read: (op: OpDef, fields: Json) => Promise<string>,
): void {
  const documents = async (): Promise<Json[]> => {
    const res = await dispatch({ protocol: 1, op: stateOp.name });
    const list = isObject(res.result) && Array.isArray(res.result.documents) ? res.result.documents : [];
    return list.filter(isObject);
  };
  const template = new ResourceTemplate('linework://documents/{document_id}', {
    list: async () => ({
      resources: (await documents()).map((d) => ({
        uri: `linework://documents/${String(d.document_id)}`,
        name: `document ${String(d.document_id)}: ${String(d.name)}`,
        description: `${d.path ? String(d.path) : 'untitled'}${d.modified ? ', modified' : ''}${d.active ? ', active' : ''}`,
        mimeType: 'application/json',
      })),
    }),
  });
  const parts: Array<[string, OpDef | undefined, Json]> = [
    ['layers', opFor(cat, ['layers'], '/layers'), {}],
    ['layouts', opFor(cat, ['layout_list'], '/layouts'), {}],
    ['entities', opFor(cat, ['entities_list'], '/entities'), { limit: 50, detail: 'summary' }],
  ];
  mcp.registerResource('documents', template, { title: 'open documents', description: 'Each open drawing: its summary, layers, layouts and first 50 entities.', mimeType: 'application/json' }, async (u, vars) => {
    const id = Number(vars.document_id);
    const summary = (await documents()).find((d) => d.document_id === id);
    const body: Json = { document: summary ?? null };
    if (summary) for (const [key, op, fields] of parts) if (op) body[key] = JSON.parse(await read(op, { ...fields, document_id: id }));
    return { contents: [{ uri: u.href, mimeType: 'application/json', text: jsonText(summary ? body : { ok: false, code: 'document_closed', error: `no open document ${vars.document_id}` }, MCP_TEXT_CAP) }] };
  });
}

/** Serves MCP until the transport closes (stdin ends). */
export async function serveMcp(options: McpOptions): Promise<void> {
  const mcp = createMcpServer(options.api, options.tools);
  const transport = options.transport ?? new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    mcp.server.onclose = () => resolve();
    if (!options.transport) {
      process.stdin.once('end', () => void mcp.close().then(resolve, resolve));
      process.stdin.once('close', () => void mcp.close().then(resolve, resolve));
    }
  });
  await mcp.connect(transport);
  await closed;
}
