// The engine's view of an op: the protocol's OpDef plus the handler and how the dispatcher runs it.
import type { z } from 'zod';
import type { OpDef, ProtocolRequest } from '../protocol.js';
import type { DocStore, Transaction } from '../store/document-store.js';
import type { Engine } from '../engine.js';

export interface OpContext {
  engine: Engine;
  req: ProtocolRequest;
  /** The request's id (generated `op-<n>` when the caller sent none). */
  requestId: string;
  /** The document the request addresses (null when the op needs none and none is open). */
  store: DocStore | null;
  /** The transaction of a mutating op (null for reads and self-managed ops). */
  tx: Transaction | null;
}

/** Returned by a handler to set envelope fields beside the result. */
export class Reply {
  constructor(
    readonly result: unknown,
    readonly fields: { status?: string; document_id?: number; state?: boolean } = {},
  ) {}
}

/** Returned by interactive handlers: the answer comes later (GUI pick, cancel). */
export class Pending {
  constructor(
    readonly prompt: Record<string, unknown>,
    /** Answer immediately with status 'pending' instead of waiting for the pick. */
    readonly wait: boolean,
  ) {}
}

export interface EngineOp<S extends z.ZodTypeAny = z.ZodTypeAny> extends OpDef<S> {
  handler(ctx: OpContext, input: z.output<S>): unknown;
  /**
   * How the dispatcher runs a mutating op: 'auto' wraps the handler in one transaction (one undo
   * step); 'none' lets the handler manage the document itself (undo, redo, open, close, command
   * line with one step per command).
   */
  tx?: 'auto' | 'none';
  /** 'request' (default): document_id addresses the document. 'active': the op reads document_id as its own field and works on the active document. */
  addressing?: 'request' | 'active';
  /**
   * Control-plane op (operation, cancel): the request's `request_id` names the request it is about,
   * so it is neither checked for idempotency nor recorded under that id.
   */
  control?: boolean;
  /** Failure codes the op can produce besides the dispatcher's (for capabilities and docs). */
  errors?: string[];
}

export function defineOp<S extends z.ZodTypeAny>(op: EngineOp<S>): EngineOp {
  return op as unknown as EngineOp;
}

/** Query helpers for fromHttp mappers. */
export const q = {
  bool(v: string | undefined): boolean {
    return v === 'true' || v === '1';
  },
  list(v: string | undefined): string[] {
    if (v === undefined) return [];
    return v.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  },
  numbers(v: string | undefined): number[] {
    return q.list(v).map((s) => Number(s)).filter((n) => Number.isFinite(n));
  },
  body(b: unknown): Record<string, unknown> {
    return b && typeof b === 'object' && !Array.isArray(b) ? { ...(b as Record<string, unknown>) } : {};
  },
};
