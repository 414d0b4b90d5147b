// What expanding a block reference would cost, counted before anything is expanded: a MINSERT's
// cells times the entities of its block, multiplied down the nesting. An INSERT of a 1e6 x 1e6
// array, or six levels of ten inserts each, is refused (or left unexpanded) from this count in
// microseconds instead of being expanded until the process runs out of memory.
import type { DocumentApi } from '../document-api.js';
import type { Entity } from '../types.js';

/** Limits of the geometry functions; the engine sets them from its work budgets (budgets.ts). */
export interface GeometryLimits {
  /** Entities one block reference may expand to (nested blocks and MINSERT cells multiplied out). */
  maxExpanded: number;
  /** Block nesting levels followed; a reference deeper than this (or a cycle) counts as over budget. */
  maxDepth: number;
  /** SPLINE degree and control (or fit) points evaluated; a larger spline is boxed by its control points. */
  maxSplineDegree: number;
  maxSplinePoints: number;
}

export const GEOMETRY_LIMITS: GeometryLimits = { maxExpanded: 1_000_000, maxDepth: 16, maxSplineDegree: 11, maxSplinePoints: 20_000 };

export function setGeometryLimits(limits: Partial<GeometryLimits>): void {
  Object.assign(GEOMETRY_LIMITS, limits);
}

/** A piece of work over one of the limits; the engine answers it as `budget_exceeded`. */
export class BudgetError extends Error {
  constructor(
    /** The budget's name (as docs/server.md lists it). */
    readonly budget: string,
    readonly limit: number,
    /** What the work would have needed (Infinity: unbounded, a cycle or too deep). */
    readonly requested: number,
    message: string,
  ) {
    super(message);
    this.name = 'BudgetError';
  }
}

const n = (v: unknown, d: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);

/** Cells of a MINSERT array (1 for a plain INSERT), as many as the drawing says: not clamped. */
export function insertCells(e: Entity): number {
  const cols = Math.max(1, Math.floor(n(e.attrs.column_count, 1)));
  const rows = Math.max(1, Math.floor(n(e.attrs.row_count, 1)));
  return cols * rows;
}

/** Memo of block name (upper case) -> entities it expands to; one per computation. */
export type ExpansionMemo = Map<string, number>;

const IN_PROGRESS = -1;

/**
 * Entities a block expands to: each entity counts one, a nested reference its cells times its
 * block's count plus its attributes. Infinity for a block nested deeper than the limit; a
 * reference back to a block being expanded counts nothing (it is not followed). Each block is
 * visited once per memo.
 */
export function blockExpansion(doc: DocumentApi, name: string, memo: ExpansionMemo = new Map(), depth = 0): number {
  const key = name.toUpperCase();
  const known = memo.get(key);
  // a block that references itself: the reference back is never expanded (the renderer and
  // entityGeometry stop at it), so it adds nothing
  if (known === IN_PROGRESS) return 0;
  if (known !== undefined) return known;
  const blk = doc.getBlock(name);
  if (!blk) return 0;
  if (depth >= GEOMETRY_LIMITS.maxDepth) return Infinity;
  memo.set(key, IN_PROGRESS);
  let total = 0;
  for (const child of blk.entities) {
    total += child.type === 'INSERT' ? 1 + referenceExpansion(child, doc, memo, depth + 1) : 1;
    if (total === Infinity) break;
  }
  memo.set(key, total);
  return total;
}

/** Entities an INSERT (or MINSERT) expands to, its attributes included; 0 for a missing block. */
export function referenceExpansion(e: Entity, doc: DocumentApi, memo: ExpansionMemo = new Map(), depth = 0): number {
  const attribs = e.children?.length ?? 0;
  const name = String(e.attrs.name ?? '');
  if (!doc.getBlock(name)) return attribs;
  const inner = blockExpansion(doc, name, memo, depth);
  return inner === 0 ? attribs : insertCells(e) * inner + attribs;
}

/** Throws a BudgetError when expanding `e` would pass the limit (counted, not expanded). */
export function checkReference(e: Entity, doc: DocumentApi, memo?: ExpansionMemo): number {
  const count = referenceExpansion(e, doc, memo);
  if (count > GEOMETRY_LIMITS.maxExpanded) throw expansionError(e, count);
  return count;
}

export function expansionError(e: Entity, count: number, block = String(e.attrs.name ?? '')): BudgetError {
  const what = count === Infinity
    ? `nests blocks deeper than ${GEOMETRY_LIMITS.maxDepth} levels`
    : `would expand to ${count.toExponential(2)} entities (${insertCells(e)} array cells)`;
  return new BudgetError(
    'expanded_entities', GEOMETRY_LIMITS.maxExpanded, count,
    `${e.type} ${e.handle} of block ${JSON.stringify(block.slice(0, 100))} ${what}; the budget is ${GEOMETRY_LIMITS.maxExpanded} entities per reference`,
  );
}

/** Throws a BudgetError for a SPLINE whose degree or points are over the limits (evaluating it would take seconds). */
export function checkSpline(e: Entity): void {
  const degree = n(e.attrs.degree, 3);
  const cps = Array.isArray(e.attrs.control_points) ? e.attrs.control_points.length : 0;
  const fit = Array.isArray(e.attrs.fit_points) ? e.attrs.fit_points.length : 0;
  const points = Math.max(cps, fit);
  if (degree > GEOMETRY_LIMITS.maxSplineDegree) {
    throw new BudgetError('spline_degree', GEOMETRY_LIMITS.maxSplineDegree, degree, `SPLINE ${e.handle} has degree ${degree}; the budget is ${GEOMETRY_LIMITS.maxSplineDegree}`);
  }
  if (points > GEOMETRY_LIMITS.maxSplinePoints) {
    throw new BudgetError('spline_points', GEOMETRY_LIMITS.maxSplinePoints, points, `SPLINE ${e.handle} has ${points} control points; the budget is ${GEOMETRY_LIMITS.maxSplinePoints}`);
  }
}
