// The work budgets of one entity, judged from its size alone (no geometry made): vertices, spline
// degree and points, MTEXT groups and codes, block expansion. The renderer leaves an entity over a
// budget undrawn (named in the display list's `skipped`); a change that would make one is refused.
import { BUDGETS, budgetError } from './budgets.js';
import type { OpError } from './protocol.js';
import { GEOMETRY_LIMITS, referenceExpansion, type DocumentApi, type Entity } from './dxf.js';

export interface EntityOverBudget {
  /** The budget's name (docs/server.md, "Work budgets"). */
  budget: string;
  limit: number;
  requested: number;
}

const FIXED_SIZE = new Set(['LINE', 'CIRCLE', 'ARC', 'POINT', 'TEXT', 'ELLIPSE', 'SOLID', 'TRACE', '3DFACE', 'XLINE', 'RAY', 'ATTRIB', 'ATTDEF', 'VIEWPORT']);

const len = (v: unknown): number => (Array.isArray(v) ? v.length : 0);

/** Vertices an entity carries: points, vertices, control and fit points, knots, hatch path vertices, children. */
export function vertexCount(e: Entity): number {
  const a = e.attrs;
  let n = len(a.points) + len(a.vertices) + len(a.boundary_path) + len(a.control_points) + len(a.fit_points) + len(a.knots) + len(a.weights) + (e.children?.length ?? 0);
  const paths = a.paths;
  if (Array.isArray(paths)) {
    for (const p of paths as { vertices?: unknown; edges?: unknown }[]) n += 1 + len(p?.vertices) + len(p?.edges);
  }
  return n;
}

/** MTEXT formatting: the deepest `{` nesting and the number of codes (`\X`, `{`, `}`), counted in one pass. */
export function mtextComplexity(text: string): { depth: number; codes: number } {
  let depth = 0;
  let deepest = 0;
  let codes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) {
      codes++;
      i++; // the escaped character is the code's letter (or a literal \ { })
    } else if (c === 123 /* { */) {
      codes++;
      if (++depth > deepest) deepest = depth;
    } else if (c === 125 /* } */) {
      codes++;
      if (depth > 0) depth--;
    }
  }
  return { depth: deepest, codes };
}

/**
 * The first budget the entity is over, or null. `doc` resolves block references (their expansion
 * is counted through `memo`, each block once). Cheap: sizes and one scan of an MTEXT's text.
 */
export function entityOverBudget(e: Entity, doc: DocumentApi | null, memo?: Map<string, number>): EntityOverBudget | null {
  // the common entities have a fixed size: nothing to count (renders and large changes stay as fast)
  if (FIXED_SIZE.has(e.type) && !e.children) return null;
  const verts = vertexCount(e);
  if (verts > BUDGETS.entityVertices) return { budget: 'entity_vertices', limit: BUDGETS.entityVertices, requested: verts };
  switch (e.type) {
    case 'SPLINE': {
      const degree = Number(e.attrs.degree ?? 3);
      if (degree > BUDGETS.splineDegree) return { budget: 'spline_degree', limit: BUDGETS.splineDegree, requested: degree };
      const points = Math.max(len(e.attrs.control_points), len(e.attrs.fit_points));
      if (points > BUDGETS.splinePoints) return { budget: 'spline_points', limit: BUDGETS.splinePoints, requested: points };
      return null;
    }
    case 'MTEXT': {
      const text = typeof e.attrs.text === 'string' ? e.attrs.text : '';
      // a text cannot hold more codes than half its characters: short ones need no scan
      if (text.length < 2 * Math.min(BUDGETS.mtextCodes, BUDGETS.mtextDepth)) return null;
      const c = mtextComplexity(text);
      if (c.depth > BUDGETS.mtextDepth) return { budget: 'mtext_depth', limit: BUDGETS.mtextDepth, requested: c.depth };
      if (c.codes > BUDGETS.mtextCodes) return { budget: 'mtext_codes', limit: BUDGETS.mtextCodes, requested: c.codes };
      return null;
    }
    case 'INSERT': {
      if (!doc) return null;
      const count = referenceExpansion(e, doc, memo);
      if (count > GEOMETRY_LIMITS.maxExpanded) return { budget: 'expanded_entities', limit: GEOMETRY_LIMITS.maxExpanded, requested: count };
      return null;
    }
    default:
      return null;
  }
}

/** The refusal of a change that would leave `e` over a budget. */
export function overBudgetError(e: Entity, over: EntityOverBudget): OpError {
  const need = Number.isFinite(over.requested) ? String(over.requested) : 'unbounded (nested past the depth limit, or a block that contains itself)';
  return budgetError(
    over.budget, over.limit, over.requested,
    `${e.type} ${e.handle} is over the ${over.budget} budget: ${need} where at most ${over.limit} is allowed; nothing changed`,
  );
}
