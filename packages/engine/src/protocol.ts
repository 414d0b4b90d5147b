// Protocol 1: the one request/response shape every transport (http, stdio, tcp, mcp) speaks.
import type { z } from 'zod';

/** Fields the dispatcher itself reads; everything else belongs to the op's input schema. */
export interface ProtocolRequest {
  protocol: 1;
  op: string;
  request_id?: string;
  document_id?: number;
  session_id?: string;
  expected_version?: number;
  [field: string]: unknown;
}

export interface ProtocolResponse {
  ok: boolean;
  /** Symbolic failure code when ok is false. */
  code?: string;
  error?: string;
  /** Extra facts about a failure (the invalid fields, the referencing handles ...). */
  details?: unknown;
  result?: unknown;
  /** 'completed' for a finished operation; 'pending' / 'cancelled' for tracked interactive ones. */
  status?: string;
  request_id?: string;
  document_id?: number;
  /** The document's version after the request. */
  version?: number;
  session_id?: string;
  /** State snapshot; the HTTP mutation wrapper strips it (clients read GET /state). */
  state?: unknown;
}

/** A typed failure: handlers throw it, the dispatcher turns it into `{ok:false, code, error}`. */
export class OpError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'OpError';
  }
}

/** What an HTTP route hands to the op's `fromHttp` mapper. Values are already percent-decoded. */
export interface HttpInput {
  params: Record<string, string>;
  query: Record<string, string>;
  /** Parsed JSON body; `{}` when empty or not JSON (arrays and other JSON values kept as is). */
  body: unknown;
}

/** One HTTP route of an op, as the spec's route table gives it. */
export interface HttpRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path under /api/v1 with `{param}` segments, e.g. '/entities/{handle}/xdata/{app}'. */
  path: string;
  /** Success status: 200 or 201. */
  status: 200 | 201;
  /** Runs through the mutation wrapper (generated request_id, cached document_id, one retry). */
  wrapper: boolean;
  /** Builds the op's fields from the HTTP request; default: the body object's fields. */
  fromHttp?: (input: HttpInput) => Record<string, unknown>;
  /** Shapes the HTTP body from the protocol response; default: the response as is. */
  toHttp?: (res: ProtocolResponse) => Record<string, unknown>;
  /** One-line description for OpenAPI when it differs from the op's. */
  summary?: string;
}

/**
 * What an op does beyond answering, declared once per op: MCP tool annotations, capabilities and
 * the operation records follow from it.
 * - `read`: reads the session and drawings only (asking the user for a pick counts as reading);
 * - `change`: changes a drawing or the session in memory (undoable edits, open, activate, select);
 * - `write_files`: writes files in the workspace (save, plot, wblock), possibly over existing ones;
 * - `discard`: can throw away work that was not saved (closing a modified drawing).
 */
export type OpEffect = 'read' | 'change' | 'write_files' | 'discard';

/**
 * The API key permissions the drawing server checks, as the key service names them (its default
 * allowed list): `resource:action`.
 */
export const DRAWING_PERMISSIONS = [
  'drawings:read', 'drawings:write', 'drawings:delete', 'blocks:read', 'blocks:write', 'layers:read', 'layers:write', 'plots:create',
] as const;
export type Permission = (typeof DRAWING_PERMISSIONS)[number];

/** One entry of the op catalogue: everything about an op is declared here, once. */
export interface OpDef<S extends z.ZodTypeAny = z.ZodTypeAny> {
  name: string;
  summary: string;
  /** Input fields (without the protocol fields of ProtocolRequest). */
  input: S;
  /** Changes a document: runs in a transaction that becomes one undo step, versions bump. */
  mutates: boolean;
  /** What the op does to drawings, the session and files (see OpEffect). */
  effect: OpEffect;
  /**
   * What an API key must hold to run the op (all of them). Declared beside the effect on purpose,
   * not derived from it: the effect says what happens, this says who may make it happen, and a
   * change of one must not silently change the other. Session-token and local (stdio, MCP)
   * callers are not checked.
   */
  permissions: readonly [Permission, ...Permission[]];
  /** Needs an open document (addressed by document_id or the active one). */
  needsDocument: boolean;
  http: HttpRoute[];
  /** Exposed as an MCP tool (default true). */
  mcp?: boolean;
  /**
   * The shape of `result` in a success answer, said once: it types the OpenAPI answer and the
   * tests check real answers against it. Absent: the result is described as a free object.
   */
  output?: z.ZodTypeAny;
  /**
   * The MCP tool that carries the op as one of its `action`s (documents, entities, query, blocks,
   * layers, plot, modify, session, ...). Absent: the `modify` tool.
   */
  mcpGroup?: string;
  /** An example input (OpenAPI shows it beside the request body). */
  example?: Record<string, unknown>;
}

/** What a transport needs of the engine: the catalogue (for routes, tools, docs) and dispatch. */
export interface DispatcherApi {
  readonly catalogue: readonly OpDef[];
  readonly sessionId: string;
  /** The application's version string (readiness `version`). */
  readonly appVersion: string;
  /** Runs one request; requests are queued and run one at a time. Never rejects. */
  dispatch(req: ProtocolRequest, options?: DispatchOptions): Promise<ProtocolResponse>;
}

/** What a transport tells the dispatcher about the request's client. */
export interface DispatchOptions {
  /**
   * Aborted when the client that sent the request went away (its connection closed, its input
   * ended): a pick it is waiting for is cancelled at once and leaves the screen.
   */
  signal?: AbortSignal;
}

/** Failure codes whose requests the HTTP mutation wrapper retries once after a state refresh. */
export const RETRYABLE_CODES: readonly string[] = [
  'document_required', 'document_closed', 'document_not_active', 'stale_state', 'session_changed',
];
