// Work budgets: how much one request may make the engine do. Each is counted before the work
// (a plot's pixels from its paper and dpi, an INSERT's expansion from its cells and blocks) where
// it can be, and the request's deadline is checked where the work loops. This file is the one
// place their values are read from the environment (docs/server.md, "Work budgets").
import { AsyncLocalStorage } from 'node:async_hooks';
import { setGeometryLimits, type BudgetError } from './dxf.js';
import { OpError } from './protocol.js';

export interface Budgets {
  /** Pixels of one raster (PNG) page. */
  plotPixels: number;
  /** Longest side of a plot's paper, mm. */
  paperMm: number;
  /** Entities one block reference may expand to (MINSERT cells x nested blocks). */
  expandedEntities: number;
  /** Entities one request may expand from block references in total (display list, plot). */
  expandedPerRequest: number;
  /** Block nesting levels followed. */
  blockDepth: number;
  /** Vertices (points, control points, fit points, knots) of one entity. */
  entityVertices: number;
  /** MTEXT: `{` groups open at once. */
  mtextDepth: number;
  /** MTEXT: formatting codes (`\H2;`, `\f...;`, `{` ...) of one text. */
  mtextCodes: number;
  /** SPLINE degree. */
  splineDegree: number;
  /** SPLINE control points (fit points too). */
  splinePoints: number;
  /** Documents open at once in one session. */
  sessionDocuments: number;
  /** Bytes of the DXF files open at once in one session. */
  sessionBytes: number;
  /** Milliseconds one request may run (0: no deadline). */
  requestMs: number;
}

export const DEFAULT_BUDGETS: Readonly<Budgets> = {
  plotPixels: 100_000_000,
  paperMm: 5000,
  expandedEntities: 1_000_000,
  expandedPerRequest: 5_000_000,
  blockDepth: 16,
  entityVertices: 2_000_000,
  mtextDepth: 64,
  mtextCodes: 10_000,
  splineDegree: 11,
  splinePoints: 20_000,
  sessionDocuments: 32,
  sessionBytes: 1024 * 1024 * 1024,
  requestMs: 60_000,
};

/** Environment variable of each budget. */
export const BUDGET_ENV: Readonly<Record<keyof Budgets, string>> = {
  plotPixels: 'LINEWORK_MAX_PLOT_PIXELS',
  paperMm: 'LINEWORK_MAX_PAPER_MM',
  expandedEntities: 'LINEWORK_MAX_EXPANDED_ENTITIES',
  expandedPerRequest: 'LINEWORK_MAX_EXPANDED_PER_REQUEST',
  blockDepth: 'LINEWORK_MAX_BLOCK_DEPTH',
  entityVertices: 'LINEWORK_MAX_ENTITY_VERTICES',
  mtextDepth: 'LINEWORK_MAX_MTEXT_DEPTH',
  mtextCodes: 'LINEWORK_MAX_MTEXT_CODES',
  splineDegree: 'LINEWORK_MAX_SPLINE_DEGREE',
  splinePoints: 'LINEWORK_MAX_SPLINE_POINTS',
  sessionDocuments: 'LINEWORK_MAX_OPEN_DOCUMENTS',
  sessionBytes: 'LINEWORK_MAX_OPEN_BYTES',
  requestMs: 'LINEWORK_REQUEST_TIMEOUT_MS',
};

/** Each budget's name in errors (`details.budget`), capabilities and docs/server.md. */
export const BUDGET_NAMES: Readonly<Record<keyof Budgets, string>> = {
  plotPixels: 'plot_pixels',
  paperMm: 'paper_mm',
  expandedEntities: 'expanded_entities',
  expandedPerRequest: 'expanded_per_request',
  blockDepth: 'block_depth',
  entityVertices: 'entity_vertices',
  mtextDepth: 'mtext_depth',
  mtextCodes: 'mtext_codes',
  splineDegree: 'spline_degree',
  splinePoints: 'spline_points',
  sessionDocuments: 'session_documents',
  sessionBytes: 'session_bytes',
  requestMs: 'request_ms',
};

/** The budgets in force by name (GET /capabilities). */
export function budgetReport(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of Object.keys(BUDGET_NAMES) as (keyof Budgets)[]) out[BUDGET_NAMES[key]] = BUDGETS[key];
  return out;
}

/**
 * The budgets the environment sets (each a positive integer; `requestMs` may be 0). A value that
 * is not one is an error the operator sees at start, not a silent default.
 */
export function budgetsFromEnv(env: NodeJS.ProcessEnv): Budgets {
  const out: Budgets = { ...DEFAULT_BUDGETS };
  for (const key of Object.keys(BUDGET_ENV) as (keyof Budgets)[]) {
    const raw = env[BUDGET_ENV[key]];
    if (raw === undefined || raw.trim() === '') continue;
    const v = Number(raw);
    const min = key === 'requestMs' ? 0 : 1;
    if (!Number.isSafeInteger(v) || v < min) throw new Error(`${BUDGET_ENV[key]}=${JSON.stringify(raw.slice(0, 40))}: expected an integer >= ${min}`);
    out[key] = v;
  }
  return out;
}

/** The budgets in force; `configureBudgets` changes them (the server at start, tests). */
export const BUDGETS: Budgets = { ...DEFAULT_BUDGETS };

export function configureBudgets(b: Partial<Budgets>): void {
  Object.assign(BUDGETS, b);
  setGeometryLimits({
    maxExpanded: BUDGETS.expandedEntities, maxDepth: BUDGETS.blockDepth, maxSplineDegree: BUDGETS.splineDegree, maxSplinePoints: BUDGETS.splinePoints,
  });
}

// Every process that loads the engine (server, its workers, `linework plot`) starts with the
// environment's budgets; a value that is not one leaves the defaults here, and the server's start
// (serve.ts), which reads the same variables through budgetsFromEnv, refuses it with its message.
try {
  configureBudgets(budgetsFromEnv(process.env));
} catch {
  configureBudgets(DEFAULT_BUDGETS);
}

/** The failure of a work budget: `budget_exceeded`, naming the budget, its limit and the need. */
export function budgetError(budget: string, limit: number, requested: number, message: string): OpError {
  return new OpError('budget_exceeded', message, { budget, limit, requested: Number.isFinite(requested) ? requested : null });
}

/** A BudgetError of the geometry functions as the engine's typed failure. */
export function fromBudgetError(err: BudgetError): OpError {
  return budgetError(err.budget, err.limit, err.requested, err.message);
}

/** One request's deadline. */
export class WorkMeter {
  private ticks = 0;
  constructor(
    /** Date.now() past which the request stops (Infinity: none). */
    readonly deadline: number,
    readonly budgetMs: number,
  ) {}

  /** Throws deadline_exceeded past the deadline; cheap enough for every entity (reads the clock every 256th). */
  tick(): void {
    if ((++this.ticks & 255) === 0) this.checkNow();
  }

  checkNow(): void {
    if (Date.now() > this.deadline) {
      throw new OpError('deadline_exceeded', `the request ran past its deadline of ${this.budgetMs} ms and was stopped; nothing changed`, { budget: 'request_ms', limit: this.budgetMs });
    }
  }
}

const NO_METER = new WorkMeter(Infinity, 0);
const scope = new AsyncLocalStorage<WorkMeter>();

/** Runs `fn` as one request, with its deadline (BUDGETS.requestMs from now). */
export function runMetered<T>(fn: () => T, ms = BUDGETS.requestMs): T {
  const meter = new WorkMeter(ms > 0 ? Date.now() + ms : Infinity, ms);
  return scope.run(meter, fn);
}

/** The meter of the request being run (one without a deadline outside a request). */
export function currentMeter(): WorkMeter {
  return scope.getStore() ?? NO_METER;
}
