// Command-line forms of the construct/modify ops (2), with AutoCAD's prompts as token order and
// its keywords: EXPLODE, MIRROR, SCALE, ARRAY (-ARRAY), STRETCH, HATCH (-HATCH), DIMLINEAR,
// DIMALIGNED, DIMRADIUS, DIMDIAMETER, DIMANGULAR. Objects are picked by point (a script gives the
// point, the editor a click) or named by handle, L(ast), ALL or P(revious).
import { OpError } from '../protocol.js';
import type { Entity } from '../dxf.js';
import type { DocStore, Transaction } from '../store/document-store.js';
import { Tokens, isNumber, looksLikePoint, parsePoint, type Vec } from '../commands/parse.js';
import { entitiesOrThrow } from '../model.js';
import { pickAt } from '../query/picks.js';
import type { OpContext } from '../ops/types.js';
import type { EditResult } from '../ops/edit-result.js';
import { explode, array as arrayOp, hatch as hatchOp, mirrorEntities, scaleEntities, stretchWindow } from './ops.js';
import { boundaryAt } from './boundary.js';
import { hatchEntity, type HatchStyle } from './hatch.js';
import { createDimension, type DimensionInput } from './dimension-op.js';

export interface MoreCmdState {
  ctx: OpContext;
  store: DocStore;
  last: Vec | null;
}

export interface MoreCmdResult extends Partial<EditResult> {
  command: string;
  handles: string[];
}

type Runner = (state: MoreCmdState, tx: Transaction, t: Tokens) => MoreCmdResult;

export const MORE_ALIASES: Record<string, string> = {
  X: 'EXPLODE', MI: 'MIRROR', SC: 'SCALE', AR: 'ARRAY', '-ARRAY': 'ARRAY', S: 'STRETCH', H: 'HATCH', '-HATCH': 'HATCH', BH: 'HATCH',
  DLI: 'DIMLINEAR', DAL: 'DIMALIGNED', DRA: 'DIMRADIUS', DDI: 'DIMDIAMETER', DAN: 'DIMANGULAR',
};

function point(state: MoreCmdState, tok: string | undefined): Vec {
  const p = parsePoint(tok, state.last);
  state.last = p;
  return p;
}

/** How far from a picked point an object may lie: a few pixels of the current view, as AutoCAD's PICKBOX. */
export function pickAperture(store: DocStore): number {
  if (store.view) return Math.max(store.view.height / 150, 1e-9);
  const x = store.index.extents();
  if (!x) return 1e-9;
  return Math.max(Math.hypot(x.max[0] - x.min[0], x.max[1] - x.min[1]) / 1000, 1e-9);
}

function pickOne(state: MoreCmdState, p: Vec, command: string, what: string): Entity {
  const e = pickAt(state.store, [p[0], p[1]], pickAperture(state.store));
  if (!e) throw new OpError('nothing_selected', `${command}: no ${what} at ${p[0]},${p[1]}`, { point: [p[0], p[1]] });
  return e;
}

/**
 * "Select objects:": handles, L, ALL, P, then picked points. The last `keep` points of the run
 * belong to the command (the mirror line, the base point), as the prompts after the selection ask for them.
 */
function selectObjects(state: MoreCmdState, t: Tokens, keep: number, stopWords: string[] = []): { list: Entity[]; points: Vec[] } {
  const doc = state.store.doc;
  const hs: string[] = [];
  while (!t.done()) {
    const tok = t.peek()!;
    const u = tok.toUpperCase();
    if (looksLikePoint(tok) || stopWords.includes(u)) break;
    if (u === 'L' || u === 'LAST') { if (state.store.lastCreated && doc.get(state.store.lastCreated)) hs.push(state.store.lastCreated); }
    else if (u === 'ALL') hs.push(...doc.modelSpace().entities.map((e) => e.handle));
    else if (u === 'P' || u === 'PREVIOUS') hs.push(...state.store.previousSelection);
    else if (/^[0-9A-F]+$/i.test(tok)) hs.push(tok.toUpperCase());
    else break;
    t.next();
  }
  const pts: string[] = [];
  while (!t.done() && looksLikePoint(t.peek())) pts.push(t.next()!);
  if (pts.length < keep) throw new OpError('invalid_command', `${t.command}: expected ${keep} point(s) after the selection, got ${pts.length}`);
  const picks = pts.slice(0, pts.length - keep);
  const list = hs.length ? entitiesOrThrow(doc, [...new Set(hs)]) : [];
  for (const tok of picks) {
    const e = pickOne(state, point(state, tok), t.command, 'object');
    if (!list.includes(e)) list.push(e);
  }
  if (!list.length) throw new OpError('nothing_selected', `${t.command}: nothing selected (pick objects by point, or give handles, L, ALL or P)`);
  state.store.previousSelection = list.map((e) => e.handle);
  const points = pts.slice(pts.length - keep).map((tok) => point(state, tok));
  return { list, points };
}

function result(command: string, r: EditResult): MoreCmdResult {
  return { command, ...r, handles: [...r.created, ...r.modified] };
}

/** Runs an op's handler inside the command's transaction (the command is the undo step). */
function viaOp<T>(state: MoreCmdState, tx: Transaction, handler: (ctx: OpContext, input: T) => unknown, input: T): EditResult {
  return handler({ ...state.ctx, store: state.store, tx }, input) as EditResult;
}

const explodeCmd: Runner = (state, tx, t) => {
  const { list } = selectObjects(state, t, 0);
  return result('EXPLODE', viaOp(state, tx, explode.handler, { handles: list.map((e) => e.handle) }));
};

/** MIRROR objects, first and second point of the mirror line, erase source objects? [Yes/No] <No>. */
const mirrorCmd: Runner = (state, tx, t) => {
  const { list, points } = selectObjects(state, t, 2);
  const erase = t.keyword('Yes') !== null ? true : (t.keyword('No'), false);
  return result('MIRROR', mirrorEntities(tx, list.map((e) => e.handle), points[0]!, points[1]!, erase));
};

/** SCALE objects, base point, scale factor. */
const scaleCmd: Runner = (state, tx, t) => {
  const { list, points } = selectObjects(state, t, 1);
  const factor = t.number('the scale factor');
  if (!(factor > 0)) throw new OpError('invalid_command', 'SCALE: the factor must be greater than 0');
  return result('SCALE', scaleEntities(tx, list.map((e) => e.handle), points[0]!, factor));
};

/**
 * -ARRAY objects [Rectangular/Polar] <R>: Rectangular rows <1> columns <1> row distance column
 * distance; Polar centre, number of items, angle to fill <360>, rotate arrayed objects? [Yes/No] <Y>.
 */
const arrayCmd: Runner = (state, tx, t) => {
  // P and R after the objects are the array's type here, not the previous selection
  const { list } = selectObjects(state, t, 0, ['P', 'POLAR', 'R', 'RECTANGULAR']);
  const kind = t.keyword('Rectangular', 'Polar') ?? 'RECTANGULAR';
  const handles = list.map((e) => e.handle);
  if (kind === 'POLAR') {
    const c = point(state, t.next());
    const count = t.number('the number of items');
    const angle = isNumber(t.peek()) ? t.number('the angle to fill') : 360;
    const rotate = t.keyword('Yes') !== null ? true : t.keyword('No') === null;
    return result('ARRAY', viaOp(state, tx, arrayOp.handler, { handles, center: [c[0], c[1]], count, angle, rotate_items: rotate }));
  }
  const rows = isNumber(t.peek()) ? t.number('the number of rows') : 1;
  const columns = isNumber(t.peek()) ? t.number('the number of columns') : 1;
  const rowSpacing = rows > 1 ? t.number('the distance between rows') : undefined;
  const colSpacing = columns > 1 ? t.number('the distance between columns') : undefined;
  for (const [n, what] of [[rows, 'rows'], [columns, 'columns']] as const) {
    if (!Number.isInteger(n) || n < 1) throw new OpError('invalid_command', `ARRAY: the number of ${what} must be a whole number of at least 1`);
  }
  return result('ARRAY', viaOp(state, tx, arrayOp.handler, { handles, rows, columns, row_spacing: rowSpacing, column_spacing: colSpacing }));
};

/** STRETCH [C] first corner, opposite corner, base point or [Displacement], second point. */
const stretchCmd: Runner = (state, tx, t) => {
  t.keyword('Crossing');
  const a = point(state, t.next()), b = point(state, t.next());
  let v: [number, number];
  if (t.keyword('Displacement')) {
    const d = parsePoint(t.next(), [0, 0, 0]);
    v = [d[0], d[1]];
  } else {
    const base = point(state, t.next());
    if (t.done()) v = [base[0], base[1]];
    else {
      const to = parsePoint(t.next(), base);
      state.last = to;
      v = [to[0] - base[0], to[1] - base[1]];
    }
  }
  return result('STRETCH', stretchWindow({ ...state.ctx, store: state.store, tx }, [[a[0], a[1]], [b[0], b[1]]], v));
};

/**
 * -HATCH: options, then internal points (one hatch each): Properties pattern [scale] [angle],
 * LAyer name, Select objects (closed objects, picked or by handle) as the boundary.
 */
const hatchCmd: Runner = (state, tx, t) => {
  const style: HatchStyle = {};
  const created: string[] = [];
  while (!t.done()) {
    const opt = t.keyword('Properties', 'LAyer', 'Select');
    if (opt === 'PROPERTIES') {
      const name = t.next();
      if (!name) throw new OpError('invalid_command', 'HATCH Properties: the pattern name is missing');
      style.pattern = name.toUpperCase() === 'S' ? 'SOLID' : name;
      if (isNumber(t.peek())) style.scale = t.number('the pattern scale');
      if (isNumber(t.peek())) style.angle = t.number('the pattern angle');
      continue;
    }
    if (opt === 'LAYER') {
      style.layer = t.next();
      continue;
    }
    if (opt === 'SELECT') {
      const { list } = selectObjects(state, t, 0);
      const input = { boundary: list.map((e) => e.handle), pattern: style.pattern, scale: style.scale, angle: style.angle, layer: style.layer };
      created.push(...viaOp(state, tx, hatchOp.handler, input).created);
      continue;
    }
    const p = point(state, t.next());
    const rec = hatchEntity(tx, boundaryAt(state.store, [p[0], p[1]]).loops, style, [[p[0], p[1]]]);
    created.push(tx.addEntity(rec).handle);
  }
  if (!created.length) throw new OpError('invalid_command', 'HATCH: give an internal point (or S and the boundary objects)');
  return result('HATCH', { created, modified: [], erased: [] });
};

/** Text options of the DIM commands before the location: Text/Mtext text, and for DIMLINEAR Horizontal/Vertical/Rotated angle. */
function dimOptions(t: Tokens, linear: boolean): { text?: string; angle?: number } {
  const out: { text?: string; angle?: number } = {};
  for (;;) {
    const kw = linear ? t.keyword('Mtext', 'Text', 'Horizontal', 'Vertical', 'Rotated') : t.keyword('Mtext', 'Text');
    if (!kw) return out;
    if (kw === 'MTEXT' || kw === 'TEXT') {
      const v = t.next();
      if (v === undefined) throw new OpError('invalid_command', `${t.command} ${kw}: the text is missing`);
      out.text = v;
    } else if (kw === 'HORIZONTAL') out.angle = 0;
    else if (kw === 'VERTICAL') out.angle = 90;
    else out.angle = t.number('the angle of the dimension line');
  }
}

function dim(state: MoreCmdState, tx: Transaction, command: string, input: DimensionInput): MoreCmdResult {
  const h = createDimension(tx, input);
  return result(command, { created: [h], modified: [], erased: [] });
}

/** DIMLINEAR / DIMALIGNED first extension line origin, second one, [options] dimension line location. */
const dimLinear = (aligned: boolean): Runner => (state, tx, t) => {
  const p1 = point(state, t.next()), p2 = point(state, t.next());
  const o = dimOptions(t, !aligned);
  const pos = point(state, t.next());
  return dim(state, tx, aligned ? 'DIMALIGNED' : 'DIMLINEAR', {
    type: aligned ? 'aligned' : 'linear', points: [[p1[0], p1[1]], [p2[0], p2[1]]], position: [pos[0], pos[1]], text: o.text, angle: o.angle,
  });
};

/** DIMRADIUS / DIMDIAMETER select arc or circle (a point on it), [options] dimension line location. */
const dimRadial = (diameter: boolean): Runner => (state, tx, t) => {
  const command = diameter ? 'DIMDIAMETER' : 'DIMRADIUS';
  const e = pickOne(state, point(state, t.next()), command, 'arc or circle');
  const o = dimOptions(t, false);
  const pos = point(state, t.next());
  return dim(state, tx, command, { type: diameter ? 'diameter' : 'radius', handle: e.handle, position: [pos[0], pos[1]], text: o.text });
};

/**
 * DIMANGULAR select arc, line or <specify vertex>: two lines (picked), an arc (its angle), or ""
 * then vertex, first and second end point; then [options] the arc's location.
 */
const dimAngular: Runner = (state, tx, t) => {
  let input: DimensionInput;
  if (t.peek() === '') {
    t.next();
    const v = point(state, t.next()), a = point(state, t.next()), b = point(state, t.next());
    const o = dimOptions(t, false);
    const pos = point(state, t.next());
    input = { type: 'angular', points: [[v[0], v[1]], [a[0], a[1]], [b[0], b[1]]], position: [pos[0], pos[1]], text: o.text };
  } else {
    const first = pickOne(state, point(state, t.next()), 'DIMANGULAR', 'arc or line');
    if (first.type === 'ARC') {
      const c = first.attrs.center as number[], r = Number(first.attrs.radius);
      const at = (deg: number): [number, number] => [c[0]! + r * Math.cos((deg * Math.PI) / 180), c[1]! + r * Math.sin((deg * Math.PI) / 180)];
      const o = dimOptions(t, false);
      const pos = point(state, t.next());
      input = { type: 'angular', points: [[c[0]!, c[1]!], at(Number(first.attrs.start_angle ?? 0)), at(Number(first.attrs.end_angle ?? 360))], position: [pos[0], pos[1]], text: o.text };
    } else {
      const second = pickOne(state, point(state, t.next()), 'DIMANGULAR', 'second line');
      const o = dimOptions(t, false);
      const pos = point(state, t.next());
      input = { type: 'angular', handles: [first.handle, second.handle], position: [pos[0], pos[1]], text: o.text };
    }
  }
  return dim(state, tx, 'DIMANGULAR', input);
};

export const MORE_COMMANDS: Record<string, Runner> = {
  EXPLODE: explodeCmd, MIRROR: mirrorCmd, SCALE: scaleCmd, ARRAY: arrayCmd, STRETCH: stretchCmd, HATCH: hatchCmd,
  DIMLINEAR: dimLinear(false), DIMALIGNED: dimLinear(true), DIMRADIUS: dimRadial(false), DIMDIAMETER: dimRadial(true), DIMANGULAR: dimAngular,
};
