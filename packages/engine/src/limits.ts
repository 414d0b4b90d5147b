// Limits of the engine (reported by GET /capabilities).
export const LIMITS = {
  /** Requests waiting in the queue before `busy`. */
  maxQueue: 1000,
  /** Request ids remembered with their answers, for idempotency and `operation` (reads: status only). */
  maxOperations: 10000,
  /** List items (handles, entities) the kept answers may hold together before older ones go. */
  maxRetainedItems: 1_000_000,
  /** Ids of older mutations remembered without their answers: a replay is refused as expired. */
  maxForgottenIds: 100000,
  /** Change events kept for `events`. */
  maxEvents: 10000,
  /** Undo steps kept per document. */
  maxUndo: 1000,
  /** GET /entities page size. */
  defaultLimit: 1000,
  maxLimit: 100000,
  /** Largest answer a transport sends (bytes of JSON); larger ones fail with reply_too_large. */
  maxReplyBytes: 128 * 1024 * 1024,
  /** Entities in one entities_create request. */
  maxCreate: 1_000_000,
};
