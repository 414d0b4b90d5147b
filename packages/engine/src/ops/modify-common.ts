// What the construct/modify ops share: their field schemas, target lookup and the catalogue
// fields every one of them declares (answer shape, MCP tool, permissions, one undo step).
import { z } from 'zod';
import { OpError, type HttpRoute } from '../protocol.js';
import type { Entity } from '../dxf.js';
import { entityOrThrow } from '../model.js';
import type { Path } from '../construct/curve.js';
import { pathClosest, point, samples } from '../construct/curve.js';
import { editResult } from './edit-result.js';
import type { P } from '../construct/vec2.js';

/** A 2D point in drawing units; NaN and Infinity are refused by z.number(). */
export const xy = z.tuple([z.number(), z.number()]).describe('[x, y]');
export const handleField = z.string().min(1).describe('entity handle');

/** Catalogue fields common to the modify ops. */
export const MODIFY = {
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  needsDocument: true,
  tx: 'auto',
  output: editResult,
  mcpGroup: 'modify',
  // No route of their own: the server's `POST /api/v1/<op>` passthrough carries them.
  http: [] as HttpRoute[],
} as const;


export function target(doc: import('../dxf.js').DocumentApi, handle: string): Entity {
  return entityOrThrow(doc, handle);
}

/** The path's parameter nearest to a picked point, refusing points far from it. */
export function pickOn(path: Path, q: P, e: Entity, op: string, tolerance?: number): number {
  const c = pathClosest(path, q);
  if (tolerance !== undefined && c.d > tolerance) {
    throw new OpError('point_off_entity', `${op}: point ${q.join(', ')} is ${c.d.toPrecision(6)} from ${e.type} ${e.handle}, not on it`, { handle: e.handle, distance: c.d });
  }
  return c.T;
}

/** Sample points of a path (for boxes). */
export function pathSamples(path: Path): P[] {
  const out: P[] = [];
  for (const s of path.segs) {
    const n = samples(s);
    for (let i = 0; i <= n; i++) out.push(point(s, i / n));
  }
  return out;
}

/** The size of a path's box: the scale tolerances are taken from. */
export function pathSize(path: Path): number {
  const pts = pathSamples(path);
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const p of pts) { minX = Math.min(minX, p[0]); minY = Math.min(minY, p[1]); maxX = Math.max(maxX, p[0]); maxY = Math.max(maxY, p[1]); }
  return Math.max(Math.hypot(maxX - minX, maxY - minY), 1e-9);
}
