// @linework/engine: sessions, documents, the protocol-1 op catalogue and its dispatcher.
export * from './protocol.js';
export { Engine, LIMITS, invalidRequest } from './engine.js';
export type { EngineOptions, GuiBridge, PendingPrompt, EngineEvent, EventKind, OperationRecord } from './engine.js';
export type { EngineOp, OpContext } from './ops/types.js';
export { buildCatalogue, WRAPPED_PASSTHROUGH } from './ops/catalogue.js';
export { ERROR_CODES, DISPATCHER_ERRORS } from './errors.js';
export { stateSnapshot } from './state.js';
export { DocStore } from './store/document-store.js';
export { parsePoint, splitCommands } from './commands/parse.js';
export { parseWhere } from './query/where.js';
export { PLOT_USAGE, plotCommand } from './plot/cli.js';
export { Workspace } from './workspace.js';
export { warmUp } from './warm-up.js';
export { planDisplayParts, type DisplayPartsPlan, type DisplayPartsOptions } from './render/display-parts.js';
export { BUDGETS, BUDGET_ENV, DEFAULT_BUDGETS, budgetsFromEnv, configureBudgets, type Budgets } from './budgets.js';
export { AUTOSAVE_FOLDER, hasSavedSession, restoreSession, saveSession, type RestoreReport, type SessionManifest } from './session-file.js';

import { Engine, type EngineOptions } from './engine.js';
import { dxf } from './dxf.js';

/** A session: headless, it starts with one new untitled drawing, active. */
export function createEngine(options: EngineOptions = {}): Engine {
  return new Engine(options, () => dxf.newDocument());
}
