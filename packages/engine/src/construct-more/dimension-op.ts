// dimension_create: a DIMENSION entity, its measurement and its *D block, in model space.
import { z } from 'zod';
import { OpError } from '../protocol.js';
import type { Entity } from '../dxf.js';
import type { Transaction } from '../store/document-store.js';
import { buildEntity, point } from '../entities/create.js';
import { createContext } from '../ops/entities.js';
import { entityOrThrow, findEntry, headerString } from '../model.js';
import { type EditResult } from '../ops/edit-result.js';
import { MODIFY } from '../ops/modify-common.js';
import { defineOp } from '../ops/types.js';
import { DimVars, angularDim, dimTextStyle, linearDim, ordinateDim, radialDim, type DimBuild } from './dimension.js';

type V = [number, number];

export const DIMENSION_TYPES = ['linear', 'aligned', 'radius', 'diameter', 'angular', 'ordinate'] as const;

export const dimensionInput = z.object({
  type: z.enum(DIMENSION_TYPES),
  points: z.array(point).min(1).max(3).optional().describe('linear/aligned: the two points; angular: vertex, a point on each leg; ordinate: the feature (linear/aligned: the two measured points; angular: the vertex, then a point on each leg; ordinate: the feature point)'),
  handle: z.string().min(1).optional().describe('radius/diameter: circle or arc'),
  handles: z.array(z.string().min(1)).length(2).optional().describe('angular: two lines'),
  position: point.describe('where the dimension line goes (its arc, its text; radius/diameter: the side of the centre it runs to; [x, y])'),
  angle: z.number().refine(Number.isFinite, 'expected a finite number').optional().describe('linear: dimension line angle, degrees (default: horizontal or vertical, by where `position` lies)'),
  style: z.string().min(1).optional().describe('dimension style (default: DIMSTYLE)'),
  text: z.string().optional().describe('replaces the measurement; <> stands for it'),
  layer: z.string().min(1).optional().describe('layer (default: the current layer)'),
});

export type DimensionInput = z.output<typeof dimensionInput>;

export const dimensionCreate = defineOp({
  name: 'dimension_create',
  summary: 'Creates a dimension (linear, aligned, radius, diameter, angular, ordinate; with its measurement and its block of lines, arrows and text drawn from the dimension style).',
  input: dimensionInput,
  ...MODIFY,
  errors: ['invalid_request', 'invalid_geometry', 'entity_absent', 'unsupported_entity', 'unknown_dimstyle', 'unknown_layer'],
  handler: (ctx, input): EditResult => ({ created: [createDimension(ctx.tx!, input)], modified: [], erased: [] }),
});

const xy = (p: readonly number[]): V => [p[0]!, p[1]!];

/** Builds and adds the dimension; returns its handle. */
export function createDimension(tx: Transaction, input: DimensionInput): string {
  const doc = tx.doc;
  const styleName = input.style ?? headerString(doc, 'DIMSTYLE', 'Standard');
  let style = findEntry(doc, 'DIMSTYLE', styleName);
  if (!style && input.style) throw new OpError('unknown_dimstyle', `dimension style ${input.style} does not exist`, { style: input.style });
  style ??= findEntry(doc, 'DIMSTYLE', 'Standard');
  const d = new DimVars(style);
  const textStyle = dimTextStyle(doc, d);
  const pos = xy(input.position);
  const pts = (input.points ?? []).map(xy);
  const need = (n: number, what: string) => {
    if (pts.length !== n) throw new OpError('invalid_request', `dimension_create ${input.type}: \`points\` must hold ${what}`);
  };
  let b: DimBuild;
  switch (input.type) {
    case 'linear':
    case 'aligned': {
      need(2, 'the two measured points');
      const [p1, p2] = [pts[0]!, pts[1]!];
      if (p1[0] === p2[0] && p1[1] === p2[1]) throw new OpError('invalid_geometry', `dimension_create ${input.type}: the two points are the same point`);
      let angle: number;
      if (input.type === 'aligned') angle = (Math.atan2(p2[1] - p1[1], p2[0] - p1[0]) * 180) / Math.PI;
      else angle = input.angle ?? autoAngle(p1, p2, pos);
      b = linearDim(p1, p2, pos, angle, input.type === 'aligned', d, input.text, textStyle);
      if (!(b.measurement > 0)) throw new OpError('invalid_geometry', `dimension_create linear: the points measure 0 along ${angle} degrees`);
      break;
    }
    case 'radius':
    case 'diameter': {
      if (!input.handle) throw new OpError('invalid_request', `dimension_create ${input.type}: \`handle\` of a circle or arc is required`);
      const e = entityOrThrow(doc, input.handle);
      if (e.type !== 'CIRCLE' && e.type !== 'ARC') throw new OpError('unsupported_entity', `${e.type} ${e.handle} is not a circle or arc`, { handle: e.handle, type: e.type });
      if (!plain(e)) throw new OpError('unsupported_entity', `${e.type} ${e.handle} does not lie in the XY plane`, { handle: e.handle, type: e.type });
      const c = xy(e.attrs.center as number[]), r = Number(e.attrs.radius);
      if (pos[0] === c[0] && pos[1] === c[1]) throw new OpError('invalid_geometry', `dimension_create ${input.type}: the position is the centre of ${e.type} ${e.handle}; it gives no direction`, { handle: e.handle });
      b = radialDim(c, r, pos, input.type === 'diameter', d, input.text, textStyle);
      break;
    }
    case 'angular':
      b = angular(tx, input, pos, pts, d, textStyle);
      break;
    case 'ordinate':
      need(1, 'the feature point');
      if (pos[0] === pts[0]![0] && pos[1] === pts[0]![1]) throw new OpError('invalid_geometry', 'dimension_create ordinate: the leader end is the feature point');
      b = ordinateDim(pts[0]!, pos, d, input.text, textStyle);
      break;
  }
  // the DIMENSION gets the drawing's current properties, as AutoCAD's DIM commands give them
  const base = buildEntity(createContext(tx, false), { type: 'Point', location: [0, 0], ...(input.layer ? { layer: input.layer } : {}) } as never);
  const common: Record<string, unknown> = {};
  for (const k of ['layer', 'color', 'true_color', 'linetype', 'lineweight']) if (base.attrs[k] !== undefined) common[k] = base.attrs[k];
  ensureDefpointsLayer(tx);
  const name = nextAnonymousName(tx, '*D');
  const block = tx.addBlock(name, [0, 0, 0], { flags: 1 });
  for (const c of b.content) tx.addEntity(c, block.name);
  const dim: Entity = {
    kind: 'entity', type: 'DIMENSION', handle: '', owner: '',
    attrs: { ...common, version: 0, geometry: block.name, dimstyle: style ? String(style.attrs.name) : 'Standard', line_spacing_style: 1, ...b.attrs },
  };
  return tx.addEntity(dim).handle;
}

function plain(e: Entity): boolean {
  const x = e.attrs.extrusion as number[] | undefined;
  return !x || (Math.abs(x[0]!) < 1e-12 && Math.abs(x[1]!) < 1e-12 && x[2]! > 0);
}

/** AutoCAD's DIMLINEAR without an angle: vertical when the position lies beside the points, else horizontal. */
function autoAngle(p1: V, p2: V, pos: V): number {
  const inX = pos[0] >= Math.min(p1[0], p2[0]) && pos[0] <= Math.max(p1[0], p2[0]);
  const inY = pos[1] >= Math.min(p1[1], p2[1]) && pos[1] <= Math.max(p1[1], p2[1]);
  if (inY && !inX) return 90;
  if (inX && !inY) return 0;
  return Math.abs(p2[0] - p1[0]) >= Math.abs(p2[1] - p1[1]) ? 0 : 90;
}

export function angular(tx: Transaction, input: DimensionInput, pos: V, pts: V[], d: DimVars, textStyle: string): DimBuild {
  if (input.handles) {
    const [a, b] = input.handles.map((h) => entityOrThrow(tx.doc, h));
    for (const e of [a!, b!]) if (e.type !== 'LINE') throw new OpError('unsupported_entity', `${e.type} ${e.handle} is not a line; an angular dimension measures between two lines`, { handle: e.handle, type: e.type });
    const l1: [V, V] = [xy(a!.attrs.start as number[]), xy(a!.attrs.end as number[])];
    const l2: [V, V] = [xy(b!.attrs.start as number[]), xy(b!.attrs.end as number[])];
    const u: V = [l1[1][0] - l1[0][0], l1[1][1] - l1[0][1]], w: V = [l2[1][0] - l2[0][0], l2[1][1] - l2[0][1]];
    const den = u[0] * w[1] - u[1] * w[0];
    if (Math.abs(den) <= 1e-12 * Math.hypot(...u) * Math.hypot(...w)) throw new OpError('invalid_geometry', `lines ${a!.handle} and ${b!.handle} are parallel; they make no angle`, { handles: [a!.handle, b!.handle] });
    const t = ((l2[0][0] - l1[0][0]) * w[1] - (l2[0][1] - l1[0][1]) * w[0]) / den;
    const vx: V = [l1[0][0] + u[0] * t, l1[0][1] + u[1] * t];
    if (pos[0] === vx[0] && pos[1] === vx[1]) throw new OpError('invalid_geometry', 'dimension_create angular: the position is the vertex');
    // the legs of the quadrant that holds the position
    const q = Math.atan2(pos[1] - vx[1], pos[0] - vx[0]);
    const n1 = norm(u), n2 = norm(w);
    const cands: { d1: V; d2: V }[] = [];
    for (const s1 of [1, -1]) for (const s2 of [1, -1]) {
      const d1: V = [n1[0] * s1, n1[1] * s1], d2: V = [n2[0] * s2, n2[1] * s2];
      // order the pair counter-clockwise, sweep under 180 degrees
      const cross = d1[0] * d2[1] - d1[1] * d2[0];
      cands.push(cross > 0 ? { d1, d2 } : { d1: d2, d2: d1 });
    }
    const hit = cands.find((c) => within(q, c.d1, c.d2)) ?? cands[0]!;
    // the first leg lies along line 1 when it is parallel to it
    const fromA = Math.abs(hit.d1[0] * n1[1] - hit.d1[1] * n1[0]) < 1e-9;
    const [la, lb] = fromA ? [l1, l2] : [l2, l1];
    // Each line's definition points, the first on the leg measured (the point further along it;
    // when the whole line lies behind the vertex, the point of its carrier as far out on the leg).
    const onLeg = (l: [V, V], dir: V): [V, V] => {
      const t = (p: V) => (p[0] - vx[0]) * dir[0] + (p[1] - vx[1]) * dir[1];
      const [back, front] = t(l[1]) >= t(l[0]) ? [l[0], l[1]] : [l[1], l[0]];
      const size = Math.hypot(front[0] - back[0], front[1] - back[1]);
      return t(front) > 1e-9 * size ? [front, back] : [[vx[0] + dir[0] * size, vx[1] + dir[1] * size], back];
    };
    return angularDim(vx, hit.d1, hit.d2, pos, d, input.text, textStyle, { kind: 'lines', l1: onLeg(la, hit.d1), l2: onLeg(lb, hit.d2) });
  }
  if (pts.length !== 3) throw new OpError('invalid_request', 'dimension_create angular: give `handles` (two lines) or `points` [vertex, first point, second point]');
  const [vx, p1, p2] = [pts[0]!, pts[1]!, pts[2]!];
  const u: V = [p1[0] - vx[0], p1[1] - vx[1]], w: V = [p2[0] - vx[0], p2[1] - vx[1]];
  if (Math.hypot(...u) === 0 || Math.hypot(...w) === 0) throw new OpError('invalid_geometry', 'dimension_create angular: a point is the vertex');
  if (pos[0] === vx[0] && pos[1] === vx[1]) throw new OpError('invalid_geometry', 'dimension_create angular: the position is the vertex');
  // AutoCAD measures the angle whose arc passes the position: from p1 to p2 or from p2 to p1
  const n1 = norm(u), n2 = norm(w);
  const q = Math.atan2(pos[1] - vx[1], pos[0] - vx[0]);
  const [d1, d2, a, b] = withinAny(q, n1, n2) ? [n1, n2, p1, p2] : [n2, n1, p2, p1];
  return angularDim(vx, d1, d2, pos, d, input.text, textStyle, { kind: 'points', p1: a, p2: b });
}

function norm(v: V): V {
  const l = Math.hypot(v[0], v[1]);
  return [v[0] / l, v[1] / l];
}

/** True when angle q lies in the counter-clockwise sweep from d1 to d2. */
function withinAny(q: number, d1: V, d2: V): boolean {
  const a1 = Math.atan2(d1[1], d1[0]);
  let sweep = Math.atan2(d2[1], d2[0]) - a1;
  while (sweep <= 0) sweep += 2 * Math.PI;
  let t = q - a1;
  while (t < 0) t += 2 * Math.PI;
  while (t >= 2 * Math.PI) t -= 2 * Math.PI;
  return t <= sweep;
}

const within = withinAny;

function ensureDefpointsLayer(tx: Transaction): void {
  if (!findEntry(tx.doc, 'LAYER', 'Defpoints')) tx.addTableEntry('LAYER', 'Defpoints', { color: 7, linetype: 'Continuous', plot: false });
}

/** The next free name of an anonymous block kind (*D1, *D2 ...). */
export function nextAnonymousName(tx: Transaction, prefix: string): string {
  let max = 0;
  const re = new RegExp(`^\\${prefix}(\\d+)$`, 'i');
  for (const name of tx.doc.blocks.keys()) {
    const m = re.exec(name);
    if (m) max = Math.max(max, Number(m[1]));
  }
  for (const e of tx.doc.tables.get('BLOCK_RECORD')?.entries ?? []) {
    const m = re.exec(String(e.attrs.name ?? ''));
    if (m) max = Math.max(max, Number(m[1]));
  }
  return `${prefix}${max + 1}`;
}
