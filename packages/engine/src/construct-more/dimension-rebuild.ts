// A DIMENSION whose geometry block (`*D`) is missing gets it drawn again from its own definition
// points, with dimension_create's generator: `audit --fix` keeps such a dimension (and what it
// measures) instead of erasing it. Only the block is made; the entity keeps its points and text.
import type { Entity } from '../dxf.js';
import type { Transaction } from '../store/document-store.js';
import { findEntry } from '../model.js';
import { angular, nextAnonymousName } from './dimension-op.js';
import { DimVars, dimTextStyle, linearDim, ordinateDim, radialDim, type DimBuild } from './dimension.js';

type V = [number, number];

const pt = (v: unknown): V | undefined =>
  Array.isArray(v) && typeof v[0] === 'number' && typeof v[1] === 'number' && Number.isFinite(v[0]) && Number.isFinite(v[1]) ? [v[0], v[1]] : undefined;

const same = (a: V, b: V): boolean => a[0] === b[0] && a[1] === b[1];

/** Whether the dimension lies in the XY plane (the generator draws there). */
function planar(e: Entity): boolean {
  const x = e.attrs.extrusion as number[] | undefined;
  return !x || (Math.abs(x[0] ?? 0) < 1e-12 && Math.abs(x[1] ?? 0) < 1e-12 && (x[2] ?? 1) > 0);
}

/** The block content of `e` from its definition points, or undefined when they do not define one. */
function build(tx: Transaction, e: Entity, d: DimVars, textStyle: string): DimBuild | undefined {
  const a = e.attrs;
  const text = typeof a.text === 'string' ? a.text : undefined;
  const dp = pt(a.defpoint);
  const dp2 = pt(a.defpoint2);
  const dp3 = pt(a.defpoint3);
  const dp4 = pt(a.defpoint4);
  switch (Number(a.dimtype ?? 0) & 7) {
    case 0:
    case 1: {
      if (!dp || !dp2 || !dp3 || same(dp2, dp3)) return undefined;
      const aligned = (Number(a.dimtype ?? 0) & 7) === 1;
      const angle = aligned ? (Math.atan2(dp3[1] - dp2[1], dp3[0] - dp2[0]) * 180) / Math.PI : Number(a.angle ?? 0) || 0;
      const b = linearDim(dp2, dp3, dp, angle, aligned, d, text, textStyle);
      return b.measurement > 0 ? b : undefined;
    }
    case 3: {
      if (!dp || !dp4 || same(dp, dp4)) return undefined;
      const c: V = [(dp[0] + dp4[0]) / 2, (dp[1] + dp4[1]) / 2];
      // the generator takes the direction from the centre to the point on the curve (defpoint4)
      return radialDim(c, Math.hypot(dp4[0] - c[0], dp4[1] - c[1]), dp4, true, d, text, textStyle);
    }
    case 4: {
      if (!dp || !dp4 || same(dp, dp4)) return undefined;
      return radialDim(dp, Math.hypot(dp4[0] - dp[0], dp4[1] - dp[1]), dp4, false, d, text, textStyle);
    }
    case 2: {
      // two lines (defpoint2-defpoint3, defpoint4-defpoint), the arc through defpoint5: measured
      // from their crossing, as the three-point form
      const dp5 = pt(a.defpoint5);
      if (!dp || !dp2 || !dp3 || !dp4 || !dp5) return undefined;
      const u: V = [dp3[0] - dp2[0], dp3[1] - dp2[1]];
      const w: V = [dp[0] - dp4[0], dp[1] - dp4[1]];
      const den = u[0] * w[1] - u[1] * w[0];
      if (Math.abs(den) <= 1e-12 * Math.hypot(...u) * Math.hypot(...w)) return undefined;
      const t = ((dp4[0] - dp2[0]) * w[1] - (dp4[1] - dp2[1]) * w[0]) / den;
      const vx: V = [dp2[0] + u[0] * t, dp2[1] + u[1] * t];
      const far = (p: V, q: V): V => (Math.hypot(p[0] - vx[0], p[1] - vx[1]) >= Math.hypot(q[0] - vx[0], q[1] - vx[1]) ? p : q);
      return threePoint(tx, vx, far(dp2, dp3), far(dp4, dp), dp5, d, text, textStyle);
    }
    case 5:
      if (!dp || !dp2 || !dp3 || !dp4) return undefined;
      return threePoint(tx, dp4, dp2, dp3, dp, d, text, textStyle);
    case 6: {
      if (!dp2 || !dp3 || same(dp2, dp3)) return undefined;
      // measured from the origin the dimension names (defpoint), as the generator measures from 0,0
      const o = dp ?? [0, 0];
      const b = ordinateDim([dp2[0] - o[0], dp2[1] - o[1]], [dp3[0] - o[0], dp3[1] - o[1]], d, text, textStyle);
      if (o[0] !== 0 || o[1] !== 0) for (const c of b.content) shift(c, o);
      return b;
    }
    default:
      return undefined;
  }
}

function threePoint(tx: Transaction, vx: V, p1: V, p2: V, pos: V, d: DimVars, text: string | undefined, textStyle: string): DimBuild | undefined {
  if (same(vx, p1) || same(vx, p2) || same(vx, pos)) return undefined;
  return angular(tx, { type: 'angular', position: pos, points: [vx, p1, p2], ...(text !== undefined ? { text } : {}) }, pos, [vx, p1, p2], d, textStyle);
}

/** Moves a generated entity by `o` (its points are the ones the generator writes). */
function shift(e: Entity, o: V): void {
  for (const k of ['start', 'end', 'insert', 'center', 'location', 'vtx0', 'vtx1', 'vtx2', 'vtx3', 'align_point']) {
    const p = e.attrs[k];
    if (Array.isArray(p) && typeof p[0] === 'number') e.attrs[k] = [p[0] + o[0], (p[1] as number) + o[1], ...p.slice(2)];
  }
}

/**
 * Draws the missing geometry block of DIMENSION `handle` and points the dimension at it; false
 * (nothing changed) when its definition cannot be drawn: not in the XY plane, or points that
 * define no dimension of its type.
 */
export function rebuildDimensionBlock(tx: Transaction, handle: string): boolean {
  const e = tx.doc.get(handle) as Entity | undefined;
  if (!e || e.type !== 'DIMENSION' || !planar(e)) return false;
  const style = findEntry(tx.doc, 'DIMSTYLE', String(e.attrs.dimstyle ?? 'Standard')) ?? findEntry(tx.doc, 'DIMSTYLE', 'Standard');
  const d = new DimVars(style);
  const b = build(tx, e, d, dimTextStyle(tx.doc, d));
  if (!b) return false;
  if (!tx.doc.getTableEntry('LAYER', 'Defpoints')) tx.addTableEntry('LAYER', 'Defpoints', { color: 7, linetype: 'Continuous', plot: false });
  // the name the dimension gives, when it is free and anonymous; else the next *D
  const named = String(e.attrs.geometry ?? '');
  const name = /^\*D\d+$/i.test(named) && !tx.doc.getBlock(named) && !tx.doc.getTableEntry('BLOCK_RECORD', named) ? named : nextAnonymousName(tx, '*D');
  const block = tx.addBlock(name, [0, 0, 0], { flags: 1 });
  for (const c of b.content) tx.addEntity(c, block.name);
  tx.touch(e).attrs.geometry = block.name;
  return true;
}
