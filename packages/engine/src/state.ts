// The state snapshot: session, open documents and a summary of the active one.
import type { Engine } from './engine.js';
import type { DocStore } from './store/document-store.js';
import { UNIT_NAMES, currentLayer, drawingEntityCount, headerNumber, releaseOf, tableEntries } from './model.js';

export interface DocumentSummary {
  document_id: number;
  name: string;
  path: string | null;
  modified: boolean;
  version: number;
  active: boolean;
}

export function documentSummary(engine: Engine, s: DocStore): DocumentSummary {
  return { document_id: s.id, name: s.name, path: s.path, modified: s.modified, version: s.version, active: engine.activeId === s.id };
}

/** Facts about one document (the active one in the snapshot). */
export function documentDetails(s: DocStore): Record<string, unknown> {
  const doc = s.doc;
  const units = headerNumber(doc, 'INSUNITS', 0);
  const ext = s.index.extents();
  return {
    dxf_version: doc.version,
    release: releaseOf(doc.version),
    layers: tableEntries(doc, 'LAYER').length,
    entities: drawingEntityCount(doc),
    model_space_entities: doc.modelSpace().entities.length,
    current_layer: currentLayer(doc),
    units: { insunits: units, name: UNIT_NAMES[units] ?? 'unknown' },
    extents: ext ? { min: ext.min, max: ext.max } : null,
    layouts: doc.layouts().map((l) => l.name),
    can_undo: s.undoStack.length > 0,
    can_redo: s.redoStack.length > 0,
    undo_steps: s.undoStack.length,
    redo_steps: s.redoStack.length,
    selection: s.selection.length,
  };
}

export function stateSnapshot(engine: Engine): Record<string, unknown> {
  const active = engine.active;
  return {
    version: active?.version ?? 0,
    session_id: engine.sessionId,
    document_id: active?.id ?? null,
    app_version: engine.appVersion,
    documents: [...engine.documents.values()].map((s) => documentSummary(engine, s)),
    ...(active ? documentDetails(active) : {}),
    pending_operations: engine.pendingIds(),
    events_next: engine.lastEventSeq,
  };
}
