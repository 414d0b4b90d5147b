// Construct and modify operations (2): explode, mirror, scale, array, stretch, hatch and
// dimension_create. Each is one undo step (the dispatcher's transaction), answers the edit result
// (created / modified / erased handles) and leaves the drawing unchanged when it fails.
import { z } from 'zod';
import { OpError } from '../protocol.js';
import type { Entity } from '../dxf.js';
import type { Transaction } from '../store/document-store.js';
import { point } from '../entities/create.js';
import { blockOfEntity, entitiesOrThrow } from '../model.js';
import { copyOf, transformInPlace } from '../ops/entities.js';
import { entitiesInBox } from '../query/picks.js';
import { safeBox } from '../store/document-store.js';
import { emptyEdit, type EditResult } from '../ops/edit-result.js';
import { MODIFY } from '../ops/modify-common.js';
import { defineOp, type OpContext } from '../ops/types.js';
import { explodeEntity } from './explode.js';
import { stretchEntity, windowOf } from './stretch.js';
import { boundaryAt, loopArea, type BulgeLoop } from './boundary.js';
import { entityLoop, hatchEntity } from './hatch.js';
import { dimensionCreate } from './dimension-op.js';

const finite = z.number().refine(Number.isFinite, 'expected a finite number');
const handles = z.array(z.string().min(1)).min(1).describe('entity handles');

/** Limit of entities one array op may create (a typo in rows or columns must not fill memory). */
export const MAX_ARRAY_COPIES = 100000;

function addCopy(tx: Transaction, e: Entity): Entity {
  return tx.addEntity(copyOf(e), blockOfEntity(tx.doc, e)!.name);
}

export const explode = defineOp({
  name: 'explode',
  summary: 'Explodes entities as AutoCAD does: INSERT -> its block\'s entities (attribute values as TEXT), LWPolyline/Polyline -> lines and arcs, DIMENSION -> its block\'s lines, solids and text, MTEXT -> TEXT per line, HATCH -> its pattern lines.',
  input: z.object({ handles }),
  ...MODIFY,
  errors: ['entity_absent', 'not_explodable', 'unknown_block'],
  handler: (ctx, input): EditResult => {
    const tx = ctx.tx!;
    const res = emptyEdit();
    for (const e of entitiesOrThrow(tx.doc, [...new Set(input.handles.map((h) => h.toUpperCase()))])) {
      const block = blockOfEntity(tx.doc, e)!.name;
      const pieces = explodeEntity(e, tx.doc);
      for (const p of pieces) res.created.push(tx.addEntity(p, block).handle);
      tx.removeEntity(e.handle);
      res.erased.push(e.handle);
    }
    return res;
  },
});

export const mirror = defineOp({
  name: 'mirror',
  summary: 'Mirrors entities about the line `axis` (through axis[0] and axis[1]; copies, or in place with erase_source); text stays readable (MIRRTEXT 0).',
  input: z.object({
    handles,
    axis: z.tuple([point, point]).describe('two points of the mirror line'),
    erase_source: z.boolean().optional().describe('mirror in place (not copies; default false)'),
  }),
  ...MODIFY,
  errors: ['entity_absent', 'invalid_transform'],
  handler: (ctx, input): EditResult => mirrorEntities(ctx.tx!, input.handles, input.axis[0], input.axis[1], input.erase_source ?? false),
});

/** Mirrors entities (copies unless `inPlace`), keeping text readable. */
export function mirrorEntities(tx: Transaction, hs: string[], a: number[], b: number[], inPlace: boolean): EditResult {
  const dx = b[0]! - a[0]!, dy = b[1]! - a[1]!;
  const L = Math.hypot(dx, dy);
  if (!(L > 0)) throw new OpError('invalid_transform', 'mirror: the two points of the axis are the same point');
  const list = entitiesOrThrow(tx.doc, hs);
  const res = emptyEdit();
  const axis: [number, number] = [dx / L, dy / L];
  for (const e of list) {
    const target = inPlace ? e : addCopy(tx, e);
    const before = textPoses(target);
    const out = transformInPlace(tx, target, { kind: 'mirror', start: a, end: b });
    keepReadable(out, before, axis);
    (inPlace ? res.modified : res.created).push(out.handle);
  }
  return res;
}

interface TextPose { rec: Entity; rotation: number; flags: number }

function textPoses(e: Entity): TextPose[] {
  const out: TextPose[] = [];
  const add = (t: Entity) => {
    if (t.type === 'TEXT' || t.type === 'ATTRIB' || t.type === 'ATTDEF') out.push({ rec: t, rotation: Number(t.attrs.rotation ?? 0), flags: Number(t.attrs.text_generation_flag ?? 0) });
  };
  add(e);
  for (const c of e.children ?? []) add(c);
  return out;
}

/**
 * MIRRTEXT 0: a mirrored text is not shown mirror-written. Its position is the mirrored one; it
 * reads along the mirrored baseline or its opposite, whichever is nearer its old direction.
 */
function keepReadable(out: Entity, before: TextPose[], axis: [number, number]): void {
  const recs = [out, ...(out.children ?? [])].filter((t) => t.type === 'TEXT' || t.type === 'ATTRIB' || t.type === 'ATTDEF');
  recs.forEach((t, i) => {
    const old = before[i];
    if (!old) return;
    const r = (old.rotation * Math.PI) / 180;
    const d = [Math.cos(r), Math.sin(r)];
    const k = 2 * (d[0]! * axis[0] + d[1]! * axis[1]);
    const m = [k * axis[0] - d[0]!, k * axis[1] - d[1]!];
    const keep = m[0]! * d[0]! + m[1]! * d[1]! >= -(m[0]! * d[0]! + m[1]! * d[1]!);
    const dir = keep ? m : [-m[0]!, -m[1]!];
    let rot = (Math.atan2(dir[1]!, dir[0]!) * 180) / Math.PI;
    if (rot < 0) rot += 360;
    if (Math.abs(rot - 360) < 1e-10) rot = 0;
    const halign = Number(t.attrs.halign ?? 0);
    if ((halign === 3 || halign === 5) && Array.isArray(t.attrs.align_point)) {
      // aligned and fit text run from insert to align_point: keep that the reading direction
      const ins = t.attrs.insert as number[], ap = t.attrs.align_point as number[];
      if ((ap[0]! - ins[0]!) * dir[0]! + (ap[1]! - ins[1]!) * dir[1]! < 0) {
        t.attrs.insert = ap;
        t.attrs.align_point = ins;
      }
    }
    t.attrs.rotation = Math.round(rot * 1e12) / 1e12;
    if (old.flags || t.attrs.text_generation_flag !== undefined) t.attrs.text_generation_flag = old.flags;
  });
}

export const scale = defineOp({
  name: 'scale',
  summary: 'Scales entities about `base` by `factor` (> 0).',
  input: z.object({ handles, base: point.describe('[x, y]'), factor: finite.describe('greater than 0 (the scale factor)') }),
  ...MODIFY,
  errors: ['entity_absent', 'invalid_transform'],
  handler: (ctx, input): EditResult => scaleEntities(ctx.tx!, input.handles, input.base, input.factor),
});

export function scaleEntities(tx: Transaction, hs: string[], base: number[], factor: number): EditResult {
  if (!(factor > 0) || !Number.isFinite(factor)) throw new OpError('invalid_transform', `scale: the factor must be a finite number greater than 0 (got ${factor})`, { factor });
  const res = emptyEdit();
  for (const e of entitiesOrThrow(tx.doc, hs)) res.modified.push(transformInPlace(tx, e, { kind: 'scale', base, factor }).handle);
  return res;
}

export const array = defineOp({
  name: 'array',
  summary: 'Copies entities in a rectangular or polar array ({rows, columns, row_spacing, column_spacing} or {center, count, angle?}; angle to fill, default 360, items rotated).',
  input: z.object({
    handles,
    rows: z.number().int().min(1).optional(),
    columns: z.number().int().min(1).optional(),
    row_spacing: finite.optional().describe('along y (the distance between rows; negative: downwards)'),
    column_spacing: finite.optional().describe('along x (the distance between columns)'),
    center: point.optional().describe('polar: the centre'),
    count: z.number().int().min(2).optional().describe('polar: items (their number, the originals included)'),
    angle: finite.optional().describe('polar: degrees to fill (default 360; negative: clockwise)'),
    rotate_items: z.boolean().optional().describe('polar: rotate the copies (default true)'),
  }),
  ...MODIFY,
  errors: ['entity_absent', 'invalid_request', 'too_many_entities'],
  handler: (ctx, input): EditResult => {
    const tx = ctx.tx!;
    const list = entitiesOrThrow(tx.doc, input.handles);
    const res = emptyEdit();
    const polar = input.center !== undefined || input.count !== undefined;
    if (polar) {
      if (!input.center || !input.count) throw new OpError('invalid_request', 'array: a polar array needs `center` and `count`');
      if (input.rows !== undefined || input.columns !== undefined) throw new OpError('invalid_request', 'array: give rows/columns (rectangular) or center/count (polar), not both');
      const fill = input.angle ?? 360;
      if (fill === 0) throw new OpError('invalid_request', 'array: the angle to fill must not be 0');
      guard(list.length * (input.count - 1));
      const step = Math.abs(fill) >= 360 ? (Math.sign(fill) * 360) / input.count : fill / (input.count - 1);
      const rotate = input.rotate_items ?? true;
      const c = input.center;
      // without rotation the copies move as the selection's centre would
      let ref = [0, 0];
      if (!rotate) {
        const boxes = list.map((e) => safeBox(e, tx.doc)).filter((b) => b !== null);
        if (boxes.length) ref = [(Math.min(...boxes.map((b) => b.min[0]!)) + Math.max(...boxes.map((b) => b.max[0]!))) / 2, (Math.min(...boxes.map((b) => b.min[1]!)) + Math.max(...boxes.map((b) => b.max[1]!))) / 2];
      }
      for (let k = 1; k < input.count; k++) {
        const ang = step * k;
        const r = (ang * Math.PI) / 180;
        for (const e of list) {
          const copy = addCopy(tx, e);
          let out: Entity;
          if (rotate) out = transformInPlace(tx, copy, { kind: 'rotate', base: c, angle: ang });
          else {
            const x = ref[0]! - c[0]!, y = ref[1]! - c[1]!;
            out = transformInPlace(tx, copy, { kind: 'move', vector: [c[0]! + x * Math.cos(r) - y * Math.sin(r) - ref[0]!, c[1]! + x * Math.sin(r) + y * Math.cos(r) - ref[1]!] });
          }
          res.created.push(out.handle);
        }
      }
      return res;
    }
    const rows = input.rows ?? 1, cols = input.columns ?? 1;
    if (rows * cols < 2) throw new OpError('invalid_request', 'array: a rectangular array needs rows x columns of at least 2 (or center and count for a polar one)');
    if (rows > 1 && input.row_spacing === undefined) throw new OpError('invalid_request', 'array: `row_spacing` is required with more than one row');
    if (cols > 1 && input.column_spacing === undefined) throw new OpError('invalid_request', 'array: `column_spacing` is required with more than one column');
    guard(list.length * (rows * cols - 1));
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        if (i === 0 && j === 0) continue;
        const v = [j * (input.column_spacing ?? 0), i * (input.row_spacing ?? 0)];
        for (const e of list) res.created.push(transformInPlace(tx, addCopy(tx, e), { kind: 'move', vector: v }).handle);
      }
    }
    return res;
  },
});

function guard(n: number): void {
  if (n > MAX_ARRAY_COPIES) throw new OpError('too_many_entities', `array: ${n} copies asked for; at most ${MAX_ARRAY_COPIES} per request`, { requested: n, limit: MAX_ARRAY_COPIES });
}

export const stretch = defineOp({
  name: 'stretch',
  summary: 'Stretches what a crossing window catches: entities wholly inside move by the vector, of the others the end points and vertices inside move.',
  input: z.object({
    window: z.tuple([point, point]).describe('crossing window corners'),
    vector: point.describe('(the displacement [dx, dy])'),
  }),
  ...MODIFY,
  errors: ['invalid_request'],
  handler: (ctx, input): EditResult => stretchWindow(ctx, input.window, [input.vector[0]!, input.vector[1]!]),
});

export function stretchWindow(ctx: OpContext, window: number[][], v: [number, number]): EditResult {
  const store = ctx.store!, tx = ctx.tx!;
  const w = windowOf(window);
  if (!(w.x1 > w.x0 && w.y1 > w.y0)) throw new OpError('invalid_request', 'stretch: the window has no area');
  const res = emptyEdit();
  if (v[0] === 0 && v[1] === 0) return res;
  for (const e of entitiesInBox(store, [w.x0, w.y0, w.x1, w.y1], true)) {
    const b = safeBox(e, store.doc);
    const whole = !!b && b.min[0]! >= w.x0 && b.max[0]! <= w.x1 && b.min[1]! >= w.y0 && b.max[1]! <= w.y1;
    if (stretchEntity(tx, e, w, v, whole)) res.modified.push(e.handle);
  }
  return res;
}

export const hatch = defineOp({
  name: 'hatch',
  summary: 'Hatches the closed region around `point` or inside `boundary` (or each of `points`: one hatch of them all; or the closed entities of `boundary`; the smallest region; islands inside become holes, AutoCAD\'s normal style); pattern SOLID (default) or a standard pattern such as ANSI31.',
  input: z.object({
    point: point.optional().describe('(a point inside the region [x, y])'),
    points: z.array(point).optional().describe('(several internal points: one hatch with the boundaries of every region, as AutoCAD\'s HATCH makes one hatch object per command)'),
    boundary: z.array(z.string().min(1)).min(1).optional().describe('closed entities (circles, closed polylines, ellipses, splines; inner ones become holes)'),
    pattern: z.string().min(1).optional().describe('SOLID (default), ANSI31, NET ... (ANSI37, LINE, DOTS, BRICK and the other standard patterns)'),
    scale: finite.optional().describe('pattern scale (default 1)'),
    angle: finite.optional().describe('degrees (the pattern angle; default 0)'),
    layer: z.string().min(1).optional().describe('layer (default: the current layer)'),
  }),
  ...MODIFY,
  errors: ['no_boundary', 'not_closed', 'unsupported_entity', 'unknown_pattern', 'unknown_layer', 'entity_absent', 'invalid_request'],
  handler: (ctx, input): EditResult => {
    const tx = ctx.tx!;
    if (input.points && !input.points.length) throw new OpError('invalid_request', 'hatch: `points` is empty');
    if ([input.point, input.points, input.boundary].filter((x) => x !== undefined).length !== 1) throw new OpError('invalid_request', 'hatch: give one of `point`, `points` or `boundary`');
    if (input.scale !== undefined && !(input.scale > 0)) throw new OpError('invalid_request', 'hatch: `scale` must be greater than 0');
    const style = { pattern: input.pattern, scale: input.scale, angle: input.angle, layer: input.layer };
    let rec: Entity;
    if (input.point || input.points) {
      const seeds = (input.points ?? [input.point!]).map((q): [number, number] => [q[0]!, q[1]!]);
      const loops: BulgeLoop[] = [];
      const outer = new Set<number>();
      const seen = new Set<string>();
      for (const p of seeds) {
        const found = boundaryAt(ctx.store!, p).loops;
        // a second point in a region already picked adds nothing (the same loop twice would cancel itself out)
        const key = loopKey(found[0]!);
        if (seen.has(key)) continue;
        seen.add(key);
        outer.add(loops.length);
        loops.push(...found);
      }
      rec = hatchEntity(tx, loops, style, seeds, outer);
    } else {
      const list = entitiesOrThrow(tx.doc, input.boundary!);
      const loops = list.map((e) => entityLoop(e, tx));
      // the largest loop first (the outer one); even-odd makes the others holes
      const order = loops.map((l, i) => ({ l, i, box: boxArea(l) })).sort((a, b) => b.box - a.box);
      rec = hatchEntity(tx, order.map((o) => o.l), style);
    }
    return { created: [tx.addEntity(rec).handle], modified: [], erased: [] };
  },
});

/** A loop's vertices in order of their coordinates (rounded): the same region whichever way it was traced. */
function loopKey(l: BulgeLoop): string {
  return l.map((v) => `${v[0].toFixed(9)},${v[1].toFixed(9)}`).sort().join(' ');
}

function boxArea(l: BulgeLoop): number {
  return Math.abs(loopArea(l));
}

export const CONSTRUCT_MORE_OPS = [explode, mirror, scale, array, stretch, hatch, dimensionCreate];
