// Limits of the engine (reported by GET /capabilities).
export const LIMITS = {
  /** Requests waiting in the queue before `busy`. */
  maxQueue: 1000,
  /** Request ids remembered for idempotency and `operation`. */
  maxOperations: 10000,
  /** Change events kept for `events`. */
  maxEvents: 10000,
  /** Undo steps kept per document. */
  maxUndo: 1000,
  /** GET /entities page size. */
  defaultLimit: 1000,
  maxLimit: 100000,
  /** Entities in one entities_create request. */
  maxCreate: 1_000_000,
};
