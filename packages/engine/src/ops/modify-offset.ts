// offset: a parallel copy of a curve at a distance, to the side of a point or through it.
import { z } from 'zod';
import { OpError } from '../protocol.js';
import { entityPath } from '../construct/entity-path.js';
import { pathClosest, sideOf } from '../construct/curve.js';
import { offsetPath } from '../construct/offset.js';
import { Edits, addPiece } from '../construct/write.js';
import { defineOp } from './types.js';
import type { Transaction } from '../store/document-store.js';
import type { P } from '../construct/vec2.js';
import { MODIFY, handleField, pathSize, target, xy } from './modify-common.js';

export const OFFSET_TYPES = ['LINE', 'ARC', 'CIRCLE', 'ELLIPSE', 'LWPOLYLINE', 'POLYLINE', 'SPLINE'];

export const offsetOp = defineOp({
  name: 'offset',
  summary: 'Offsets a curve by `distance` toward `side`, or through `through` (to the side of `side`; a Line, Arc, Circle, Ellipse, LWPolyline or 2D Polyline, given back as its own type with bulges kept and corners extended to meet as OFFSETGAPTYPE 0, or Spline); ellipses and splines become splines within `tolerance`.',
  input: z.object({
    handle: handleField,
    distance: z.number().positive().optional().describe('offset distance (with side)'),
    side: xy.optional().describe('a point on the side to offset to'),
    through: xy.optional().describe('(a point the offset passes through, instead of distance and side)'),
    tolerance: z.number().positive().optional().describe('for ellipses and splines (default 1e-6 of the extents)'),
  }),
  ...MODIFY,
  errors: ['entity_absent', 'wrong_type', 'offset_impossible', 'invalid_point', 'unsupported_plane'],
  example: { handle: '2F', distance: 200, side: [0, 0] },
  handler: (ctx, input) => offsetWith(ctx.tx!, input.handle, input),
});

export function offsetWith(tx: Transaction, handle: string, input: { distance?: number; side?: P; through?: P; tolerance?: number }) {
  const e = target(tx.doc, handle);
  const path = entityPath(e, 'offset', OFFSET_TYPES);
  let d: number;
  let q: P;
  if (input.through) {
    if (input.distance !== undefined || input.side) throw new OpError('invalid_request', 'offset: give either `through` or `distance` and `side`');
    q = input.through;
    d = pathClosest(path, q).d;
    if (!(d > 0)) throw new OpError('invalid_point', `offset ${e.handle}: the through point lies on the entity (distance 0)`, { handle: e.handle });
  } else {
    if (input.distance === undefined || !input.side) throw new OpError('invalid_request', 'offset: field `distance` and `side` (or `through`) are required');
    d = input.distance;
    q = input.side;
  }
  const side = sideOf(path, q);
  if (side === 0) throw new OpError('invalid_point', `offset ${e.handle}: the side point ${q.join(', ')} lies on the entity`, { handle: e.handle });
  const tol = input.tolerance ?? 1e-6 * pathSize(path);
  const out = offsetPath(path, side * d, tol, e.handle);
  const edits = new Edits();
  addPiece(tx, edits, e, out.segs, out.closed);
  return edits.result();
}
