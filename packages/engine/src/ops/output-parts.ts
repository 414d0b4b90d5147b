// Pieces the ops' output schemas share (the answers' common shapes), said once. Objects are loose:
// an answer may carry more than its schema names, never less or of another type.
import { z } from 'zod';

/** A point, [x, y] or [x, y, z]. */
export const pointOut = z.array(z.number()).min(2).max(3);

export const boxOut = z.object({ min: pointOut, max: pointOut });

export const handlesOut = z.array(z.string()).describe('entity handles');

/** One entity as listings give it: handle and type always, then what `detail` / `fields` asked for. */
export const entityOut = z.looseObject({
  handle: z.string(),
  type: z.string().describe('public type name (Line, Circle, ...)'),
  dxftype: z.string().optional(),
  layer: z.string().optional(),
  bounds: boxOut.nullable().optional(),
});

/** An entity in a selection answer: what the selection holds, with its text for labels. */
export const selectedEntityOut = z.looseObject({
  handle: z.string(),
  type: z.string(),
  layer: z.string(),
  text: z.string().nullable(),
  value: z.unknown(),
  bounds: boxOut.nullable(),
});

/** Facts about one document (the active one in the state snapshot, an opened one). */
export const documentDetailsOut = z.object({
  dxf_version: z.string(),
  release: z.string(),
  layers: z.number().int(),
  entities: z.number().int(),
  model_space_entities: z.number().int(),
  current_layer: z.string(),
  units: z.object({ insunits: z.number().int(), name: z.string() }),
  extents: boxOut.nullable(),
  layouts: z.array(z.string()),
  can_undo: z.boolean(),
  can_redo: z.boolean(),
  undo_steps: z.number().int(),
  redo_steps: z.number().int(),
  selection: z.number().int(),
});

export const documentSummaryOut = z.object({
  document_id: z.number().int(),
  name: z.string(),
  path: z.string().nullable(),
  modified: z.boolean(),
  version: z.number().int(),
  active: z.boolean(),
});

/** An opened or created document: its id, name and path, and its facts. */
export const openedDocumentOut = documentDetailsOut.extend({
  document_id: z.number().int(),
  name: z.string(),
  path: z.string().nullable(),
  created: z.boolean(),
});

export const layerOut = z.looseObject({
  name: z.string(),
  handle: z.string(),
  color: z.number().int(),
  on: z.boolean(),
  frozen: z.boolean(),
  locked: z.boolean(),
  plot: z.boolean(),
  linetype: z.string(),
  lineweight: z.number().int(),
  true_color: z.number().int().nullable(),
  current: z.boolean(),
  entities: z.number().int(),
});

/** The answer of an interactive pick asked with `wait: false` (or still waiting). */
export const pendingOut = z.object({
  pending: z.literal(true),
  prompt: z.looseObject({ request_id: z.string(), op: z.string() }),
});

/** Undo/redo bookkeeping. */
export const undoStateOut = { ops: z.array(z.string()), can_undo: z.boolean(), can_redo: z.boolean() };

/** The state snapshot: the session, its documents, and the active document's facts when one is open. */
export const stateOut = documentDetailsOut.partial().extend({
  version: z.number().int(),
  session_id: z.string(),
  document_id: z.number().int().nullable(),
  app_version: z.string(),
  documents: z.array(documentSummaryOut),
  pending_operations: z.array(z.string()),
  events_next: z.number().int(),
});
