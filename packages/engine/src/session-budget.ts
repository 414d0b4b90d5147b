// The session's budget of open documents: how many, and the bytes of the files they were read
// from. A key that may only read can open drawings but not close them, so without this one
// organization could fill the process with copies of its largest file.
import { BUDGETS } from './budgets.js';
import type { Engine } from './engine.js';
import { OpError } from './protocol.js';

/** Bytes of the file each open document was read from (untitled drawings: none), by document id. */
const BYTES = new WeakMap<Engine, Map<number, number>>();

function bytesOf(engine: Engine): Map<number, number> {
  let m = BYTES.get(engine);
  if (!m) BYTES.set(engine, (m = new Map()));
  // closed documents drop out here rather than in every close path
  for (const id of m.keys()) if (!engine.documents.has(id)) m.delete(id);
  return m;
}

/** The open documents' file bytes together. */
export function openBytes(engine: Engine): number {
  let total = 0;
  for (const v of bytesOf(engine).values()) total += v;
  return total;
}

/** Refuses (`session_full`) a document more, or `bytes` more of files, past the session's budgets. */
export function checkSessionRoom(engine: Engine, bytes: number): void {
  const count = engine.documents.size;
  if (count + 1 > BUDGETS.sessionDocuments) {
    throw new OpError(
      'session_full',
      `the session has ${count} documents open; the budget is ${BUDGETS.sessionDocuments}: close one (document_close) before opening another`,
      { budget: 'session_documents', limit: BUDGETS.sessionDocuments, requested: count + 1 },
    );
  }
  const total = openBytes(engine);
  if (total + bytes > BUDGETS.sessionBytes) {
    throw new OpError(
      'session_full',
      `the open documents were read from ${total} bytes of files and this one has ${bytes}; the budget is ${BUDGETS.sessionBytes} bytes per session: close one before opening another`,
      { budget: 'session_bytes', limit: BUDGETS.sessionBytes, requested: total + bytes },
    );
  }
}

/** Records the bytes of the file a document was read from. */
export function noteDocumentBytes(engine: Engine, id: number, bytes: number): void {
  bytesOf(engine).set(id, bytes);
}
