// The construct and modify commands of the command line, with AutoCAD's prompts, keywords and
// aliases: OFFSET, TRIM, EXTEND, FILLET, CHAMFER, BREAK, JOIN, EXPLODE, MIRROR, SCALE, ARRAY,
// STRETCH, HATCH and the DIM commands. Objects are picked by a click (the pick box takes the
// nearest entity, no snap); each edit is one call of the engine's op, so one undo step. An op that
// refuses (no intersection, radius too large ...) is told at the cursor and the command asks again,
// as AutoCAD does; Esc ends it.
import { ApiError } from './api.js';
import { PICK_PX, type App } from './app.js';
import { mustPoint, pointOr, withPreview } from './draw-commands.js';
import type { Rec } from './grips.js';
import { arcPoints, dist, mapOutline, nearest, offsetOutline, outlineOf, reflect, type Outline } from './outline.js';
import { Cancelled, Keyword, matchKeyword, parsePoint, type Point } from './prompts.js';

export const MODIFY_ALIASES: Record<string, string> = {
  O: 'OFFSET', TR: 'TRIM', EX: 'EXTEND', F: 'FILLET', CHA: 'CHAMFER', BR: 'BREAK', J: 'JOIN', X: 'EXPLODE', MI: 'MIRROR', SC: 'SCALE',
  AR: 'ARRAY', S: 'STRETCH', H: 'HATCH', BH: 'HATCH', DLI: 'DIMLINEAR', DAL: 'DIMALIGNED', DRA: 'DIMRADIUS', DDI: 'DIMDIAMETER', DAN: 'DIMANGULAR',
};

export const MODIFY_HELP: [string, string][] = [
  ['OFFSET (O)', 'distance or Through, then object and side, again until Enter'],
  ['TRIM (TR) / EXTEND (EX)', 'objects picked one by one, to every object (or cuTting / Boundary edges); eRase, Undo'],
  ['FILLET (F) / CHAMFER (CHA)', 'two objects (Radius / Distance first), or a whole Polyline; Multiple'],
  ['BREAK (BR)', 'object, second point (or First point; @ breaks at the point)'],
  ['JOIN (J) / EXPLODE (X)', 'the objects selected'],
  ['MIRROR (MI)', 'objects, two points of the mirror line, erase source Yes/No'],
  ['SCALE (SC)', 'objects, base point, factor (typed, picked, or Reference)'],
  ['ARRAY (AR)', 'objects, Rectangular (rows, columns, spacing) or Polar (centre, items, angle)'],
  ['STRETCH (S)', 'crossing window, base point and second point'],
  ['HATCH (H)', 'internal points (a hatch each), Properties (pattern, scale, angle), Select objects'],
  ['DIMLINEAR (DLI) / DIMALIGNED (DAL)', 'two points (or Enter and a line), dimension line location; Text, Horizontal, Vertical, Rotated'],
  ['DIMRADIUS (DRA) / DIMDIAMETER (DDI)', 'arc or circle, dimension line location'],
  ['DIMANGULAR (DAN)', 'two lines, an arc, a circle and a point, or Enter and three points; arc location'],
];

interface Picked {
  handle: string;
  type: string;
  at: Point;
}

/** The settings AutoCAD keeps between runs of a command (OFFSETDIST, FILLETRAD, CHAMFERA/B, HPNAME ...). */
const kept = { offset: null as number | null, radius: 0, chamfer: [0, 0] as [number, number], pattern: 'SOLID', hatchScale: 1, hatchAngle: 0 };

const num = (n: number): string => String(Math.round(n * 1e4) / 1e4);

// ---- asking ----------------------------------------------------------------------------------

/** A click with the pick box (no snap, no ortho), or a keyword, or null for Enter when optional. */
async function pickPoint(app: App, message: string, keywords: readonly string[] = [], optional = false): Promise<Point | string | null> {
  try {
    return await app.request<Point | null>((resolve, reject) => ({ kind: 'point', message, optional, keywords, pickbox: true, resolve, reject }));
  } catch (e) {
    if (e instanceof Keyword) return e.word;
    throw e;
  }
}

/**
 * "Select object": the entity nearest the click within the pick box. A click on nothing, or on a
 * type the step does not take, is told at the cursor and the step asks again.
 */
async function pickObject(app: App, message: string, opts: { keywords?: readonly string[]; optional?: boolean; types?: string[] } = {}): Promise<Picked | string | null> {
  for (;;) {
    const p = await pickPoint(app, message, opts.keywords, opts.optional);
    if (p === null || typeof p === 'string') return p;
    const r = await app.api.op('pick', { document_id: app.docId, point: p, aperture: PICK_PX / app.view.scale, layout: app.layout });
    const handle = (r.result?.handles as string[] | undefined)?.[0];
    const type = (r.result?.types as string[] | undefined)?.[0] ?? '?';
    if (!handle) app.note('No object found at that point', true);
    else if (opts.types && !opts.types.includes(type)) app.note(`${handle} is a ${type}; pick ${opts.types.join(' or ')}`, true);
    else return { handle, type, at: p };
  }
}

async function mustPick(app: App, message: string, types?: string[]): Promise<Picked> {
  const o = await pickObject(app, message, types ? { types } : {});
  if (!o || typeof o === 'string') throw new Cancelled();
  return o;
}

/** The selection made before the command (AutoCAD's noun-verb), else objects picked now. */
async function objects(app: App, message = 'Select objects:'): Promise<string[]> {
  if (app.selection.length) return [...app.selection];
  const hs = await app.select(message);
  if (!hs.length) throw new Cancelled();
  return hs;
}

/** A number typed (Enter: the default), asked again until it passes `ok`. */
async function askNumber(app: App, message: string, def: number | null, ok: (n: number) => boolean, why: string, base?: Point): Promise<number> {
  for (;;) {
    const v = (await app.value(message, base)).trim();
    if (!v && def !== null) return def;
    // a point picked or typed: its distance from the base (AutoCAD takes distances by two points)
    const p = base && !/^-?[\d.]+(e[-+]?\d+)?$/i.test(v) ? parsePoint(v, base, null) : null;
    const n = p && base ? dist(base, p) : Number(v);
    if (v && Number.isFinite(n) && ok(n)) return n;
    app.note(why, true);
  }
}

/** One of the keywords (Enter: the default), asked again until one is given. */
async function askKeyword(app: App, message: string, keywords: string[], def: string): Promise<string> {
  for (;;) {
    const v = await app.value(message);
    if (!v.trim()) return def;
    const k = matchKeyword(v, keywords);
    if (k) return k;
    app.note(`Give one of ${keywords.join(', ')}`, true);
  }
}

const yesNo = async (app: App, message: string, def: boolean): Promise<boolean> => (await askKeyword(app, message, ['Yes', 'No'], def ? 'YES' : 'NO')) === 'YES';

/** Runs an op on the drawing; a refusal is told at the cursor and gives null (the command goes on). */
async function tryOp(app: App, op: string, fields: Record<string, unknown>): Promise<Record<string, any> | null> {
  try {
    const r = await app.api.op(op, { document_id: app.docId, ...fields });
    return (r.result ?? {}) as Record<string, any>;
  } catch (e) {
    if (e instanceof ApiError) {
      app.note(`${e.code}: ${e.message}`, true);
      return null;
    }
    throw e;
  }
}

function told(app: App, what: string, r: Record<string, any>): void {
  const parts = [['created', r.created], ['changed', r.modified], ['erased', r.erased]].filter(([, hs]) => Array.isArray(hs) && hs.length).map(([k, hs]) => `${k} ${(hs as string[]).join(', ')}`);
  app.message(`${what}: ${parts.join('; ') || 'nothing changed'}`);
}

async function recordsOf(app: App, handles: string[]): Promise<Rec[]> {
  if (!handles.length) return [];
  const r = await app.api.op('entities_list', { document_id: app.docId, handles: handles.slice(0, 500), detail: 'full', limit: 500 });
  return (r.result?.entities ?? []) as Rec[];
}

async function outlineOfAll(app: App, handles: string[]): Promise<Outline> {
  return (await recordsOf(app, handles)).flatMap(outlineOf);
}

// ---- OFFSET, TRIM, EXTEND -------------------------------------------------------------------

export async function offsetCommand(app: App): Promise<void> {
  let through = kept.offset === null;
  let d = kept.offset ?? 0;
  for (;;) {
    const v = (await app.value(`Specify offset distance or [Through] <${through ? 'Through' : num(d)}>:`)).trim();
    if (!v) break;
    if (matchKeyword(v, ['Through'])) {
      through = true;
      break;
    }
    const n = Number(v);
    const p = Number.isFinite(n) ? null : parsePoint(v, null, null);
    if (p) {
      // two points give the distance
      const q = await mustPoint(app, 'Specify second point:', p);
      if (dist(p, q) > 0) {
        [through, d] = [false, dist(p, q)];
        break;
      }
    } else if (n > 0) {
      [through, d] = [false, n];
      break;
    }
    app.note('OFFSET: a distance greater than 0, two points, or T(hrough)', true);
  }
  kept.offset = through ? null : d;
  for (;;) {
    const o = await pickObject(app, 'Select object to offset or [Exit] <Exit>:', { keywords: ['Exit'], optional: true });
    if (o === null || o === 'EXIT' || typeof o === 'string') return;
    const shape = outlineOf((await recordsOf(app, [o.handle]))[0] ?? { handle: o.handle, type: '?' });
    const preview = (to: Point): Outline => {
      const n = nearest(shape, to);
      return n.side ? offsetOutline(shape, n.side * (through ? n.d : d)) : [];
    };
    const side = await withPreview(app, preview, () => pointOr(app, through ? 'Specify through point or [Exit] <Exit>:' : 'Specify point on side to offset or [Exit] <Exit>:', undefined, ['Exit'], true));
    if (side === null || typeof side === 'string') return;
    const r = await tryOp(app, 'offset', through ? { handle: o.handle, through: side } : { handle: o.handle, distance: d, side });
    if (r) told(app, 'OFFSET', r);
  }
}

/** TRIM and EXTEND: objects picked one by one, each cut back (grown) to the edges, until Enter. */
export async function trimCommand(app: App, extend = false): Promise<void> {
  const verb = extend ? 'extend' : 'trim';
  let edges: string[] | undefined;
  let done = 0;
  const keywords = extend ? ['Boundary edges', 'Undo'] : ['cuTting edges', 'eRase', 'Undo'];
  app.message(`Current settings: Edges = ${edges ? 'selected' : 'all objects'}`);
  for (;;) {
    const o = await pickObject(app, `Select object to ${verb} or [${keywords.join('/')}]:`, { keywords, optional: true });
    if (o === null) return;
    if (o === 'CUTTING EDGES' || o === 'BOUNDARY EDGES') {
      const hs = await app.select(`Select ${extend ? 'boundary' : 'cutting'} edges or <select all>:`);
      edges = hs.length ? hs : undefined;
      app.message(`Edges: ${edges ? edges.join(', ') : 'all objects'}`);
    } else if (o === 'ERASE') {
      const e = await pickObject(app, 'Select object to erase:', { optional: true });
      if (e && typeof e !== 'string' && (await tryOp(app, 'entities_delete', { handles: [e.handle] }))) done++;
    } else if (o === 'UNDO') {
      if (!done) app.note('Nothing to undo in this command', true);
      else {
        await app.api.send('POST', '/undo', { document_id: app.docId });
        done--;
      }
    } else if (typeof o !== 'string') {
      const r = await tryOp(app, verb, { handle: o.handle, point: o.at, ...(edges ? { edges } : {}) });
      if (r) {
        done++;
        told(app, verb.toUpperCase(), r);
      }
    }
  }
}

// ---- FILLET, CHAMFER, BREAK, JOIN, EXPLODE ------------------------------------------------------

/** FILLET and CHAMFER: two objects (or a polyline), with their radius or distances; Multiple repeats. */
export async function cornerCommand(app: App, chamfer: boolean): Promise<void> {
  const op = chamfer ? 'chamfer' : 'fillet';
  const amounts = (): Record<string, unknown> => (chamfer ? { distances: [...kept.chamfer] } : { radius: kept.radius });
  const setting = chamfer ? 'Distance' : 'Radius';
  app.message(chamfer ? `(TRIM mode) Current chamfer Dist1 = ${num(kept.chamfer[0])}, Dist2 = ${num(kept.chamfer[1])}` : `Current settings: Mode = TRIM, Radius = ${num(kept.radius)}`);
  const ask = async (): Promise<void> => {
    if (!chamfer) {
      kept.radius = await askNumber(app, `Specify fillet radius <${num(kept.radius)}>:`, kept.radius, (n) => n >= 0, 'FILLET: a radius of 0 or more');
      return;
    }
    const a = await askNumber(app, `Specify first chamfer distance <${num(kept.chamfer[0])}>:`, kept.chamfer[0], (n) => n >= 0, 'CHAMFER: a distance of 0 or more');
    const b = await askNumber(app, `Specify second chamfer distance <${num(a)}>:`, a, (n) => n >= 0, 'CHAMFER: a distance of 0 or more');
    kept.chamfer = [a, b];
  };
  let multiple = false;
  for (;;) {
    const what = chamfer ? 'line' : 'object';
    const keywords = ['Polyline', setting, 'Multiple'];
    const a = await pickObject(app, `Select first ${what} or [${keywords.join('/')}]:`, { keywords, optional: true });
    if (a === null) return;
    if (a === 'RADIUS' || a === 'DISTANCE') {
      await ask();
      continue;
    }
    if (a === 'MULTIPLE') {
      multiple = true;
      continue;
    }
    let done: Record<string, any> | null = null;
    if (a === 'POLYLINE') {
      const pl = await mustPick(app, 'Select 2D polyline:', ['LWPolyline']);
      done = await tryOp(app, op, { handles: [pl.handle], polyline: true, ...amounts() });
    } else if (typeof a !== 'string') {
      let b: Picked | string | null;
      do {
        b = await pickObject(app, `Select second ${what} or [${setting}]:`, { keywords: [setting] });
        if (b === 'RADIUS' || b === 'DISTANCE') await ask();
      } while (typeof b === 'string');
      if (!b) return;
      done = await tryOp(app, op, { handles: [a.handle, b.handle], points: [a.at, b.at], ...amounts() });
    }
    if (done) told(app, op.toUpperCase(), done);
    if (done && !multiple) return;
  }
}

export async function breakCommand(app: App): Promise<void> {
  for (;;) {
    const o = await mustPick(app, 'Select object:');
    // the pick is the first break point, unless First point asks for another
    let first = o.at;
    let second = await pointOr(app, 'Specify second break point or [First point]:', undefined, ['First point', '@']);
    if (second === 'FIRST POINT') {
      first = await mustPoint(app, 'Specify first break point:');
      second = await pointOr(app, 'Specify second break point:', first, ['@']);
    }
    if (second === null) throw new Cancelled();
    const points = second === '@' ? [first] : [first, second as Point];
    const r = await tryOp(app, 'break', { handle: o.handle, points });
    if (r) {
      told(app, 'BREAK', r);
      return;
    }
  }
}

export async function joinCommand(app: App): Promise<void> {
  const hs = await objects(app, 'Select source object or multiple objects to join at once:');
  if (hs.length === 1) hs.push(...(await app.select('Select objects to join:')));
  if (hs.length < 2) {
    app.note('JOIN: select at least two objects', true);
    return;
  }
  const r = await tryOp(app, 'join', { handles: hs });
  if (r) told(app, 'JOIN', r);
}

export async function explodeCommand(app: App): Promise<void> {
  const r = await tryOp(app, 'explode', { handles: await objects(app) });
  if (r) told(app, 'EXPLODE', r);
}

// ---- MIRROR, SCALE, ARRAY, STRETCH ----------------------------------------------------------------

export async function mirrorCommand(app: App): Promise<void> {
  const hs = await objects(app);
  const shape = await outlineOfAll(app, hs);
  const a = await mustPoint(app, 'Specify first point of mirror line:');
  let b: Point;
  for (;;) {
    b = await withPreview(app, (to) => [[a, to], ...mapOutline(shape, (p) => reflect(p, a, to))], () => mustPoint(app, 'Specify second point of mirror line:', a));
    if (dist(a, b) > 0) break;
    app.note('MIRROR: the second point is the first; give another', true);
  }
  const erase = await yesNo(app, 'Erase source objects? [Yes/No] <No>:', false);
  const r = await tryOp(app, 'mirror', { handles: hs, axis: [a, b], erase_source: erase });
  if (r) told(app, 'MIRROR', r);
}

export async function scaleCommand(app: App): Promise<void> {
  const hs = await objects(app);
  const shape = await outlineOfAll(app, hs);
  const base = await mustPoint(app, 'Specify base point:');
  const scaled = (f: number): Outline => mapOutline(shape, (p) => [base[0] + (p[0] - base[0]) * f, base[1] + (p[1] - base[1]) * f]);
  let factor: number | null = null;
  while (factor === null) {
    // the cursor's distance from the base is the factor, as AutoCAD drags it
    const v = (await withPreview(app, (to) => (dist(base, to) > 0 ? scaled(dist(base, to)) : []), () => app.value('Specify scale factor or [Reference] <1.0000>:', base))).trim();
    if (!v) return;
    if (matchKeyword(v, ['Reference'])) {
      const ref = await askNumber(app, 'Specify reference length <1.0000>:', 1, (n) => n > 0, 'SCALE: a length greater than 0', base);
      const to = await withPreview(app, (p) => scaled(dist(base, p) / ref), () => askNumber(app, 'Specify new length <1.0000>:', 1, (n) => n > 0, 'SCALE: a length greater than 0', base));
      factor = to / ref;
      break;
    }
    const p = /^-?[\d.]+(e[-+]?\d+)?$/i.test(v) ? null : parsePoint(v, base, null);
    const f = p ? dist(base, p) : Number(v);
    if (f > 0 && Number.isFinite(f)) factor = f;
    else app.note('SCALE: a factor greater than 0, a point, or R(eference)', true);
  }
  const r = await tryOp(app, 'scale', { handles: hs, base, factor });
  if (r) told(app, 'SCALE', r);
}

export async function arrayCommand(app: App): Promise<void> {
  const hs = await objects(app);
  const kind = await askKeyword(app, 'Enter the type of array [Rectangular/Polar] <R>:', ['Rectangular', 'Polar'], 'RECTANGULAR');
  const int = (n: number): boolean => Number.isInteger(n) && n >= 1;
  for (;;) {
    let fields: Record<string, unknown>;
    if (kind === 'POLAR') {
      const center = await mustPoint(app, 'Specify center point of array:');
      const count = await askNumber(app, 'Enter the number of items in the array:', null, (n) => int(n) && n >= 2, 'ARRAY: 2 items or more');
      const angle = await askNumber(app, 'Specify the angle to fill (+=ccw, -=cw) <360>:', 360, (n) => n !== 0 && Math.abs(n) <= 360, 'ARRAY: an angle other than 0, at most 360');
      const rotate = await yesNo(app, 'Rotate arrayed objects? [Yes/No] <Y>:', true);
      fields = { center, count, angle, rotate_items: rotate };
    } else {
      const rows = await askNumber(app, 'Enter the number of rows (---) <1>:', 1, int, 'ARRAY: a whole number of rows, 1 or more');
      const columns = await askNumber(app, 'Enter the number of columns (|||) <1>:', 1, int, 'ARRAY: a whole number of columns, 1 or more');
      if (rows * columns < 2) {
        app.note('ARRAY: rows x columns must make 2 items or more', true);
        continue;
      }
      fields = { rows, columns };
      if (rows > 1) fields.row_spacing = await askNumber(app, 'Enter the distance between rows (---):', null, (n) => n !== 0, 'ARRAY: a distance other than 0');
      if (columns > 1) fields.column_spacing = await askNumber(app, 'Specify the distance between columns (|||):', null, (n) => n !== 0, 'ARRAY: a distance other than 0');
    }
    const r = await tryOp(app, 'array', { handles: hs, ...fields });
    if (r) told(app, 'ARRAY', r);
    return;
  }
}

export async function stretchCommand(app: App): Promise<void> {
  app.message('Select objects to stretch by crossing-window...');
  const box = (a: Point, b: Point): Point[] => [a, [b[0], a[1]], b, [a[0], b[1]], a];
  let c1: Point, c2: Point;
  for (;;) {
    const p = await pickPoint(app, 'Specify first corner:');
    if (!p || typeof p === 'string') throw new Cancelled();
    c1 = p;
    const q = await withPreview(app, (to) => [box(c1, to)], () => pickPoint(app, 'Specify opposite corner:'));
    if (!q || typeof q === 'string') throw new Cancelled();
    c2 = q;
    if (c1[0] !== c2[0] && c1[1] !== c2[1]) break;
    app.note('STRETCH: the window has no area', true);
  }
  const window = [c1, c2];
  let vector: Point;
  const base = await pointOr(app, 'Specify base point or [Displacement] <Displacement>:', undefined, ['Displacement'], true);
  if (base === null || typeof base === 'string') {
    const v = await app.value('Specify displacement <0,0>:');
    const d = v.trim() ? parsePoint(v, null, null) : [0, 0] as Point;
    if (!d) throw new Error('STRETCH: the displacement is dx,dy');
    vector = d;
  } else {
    const to = await withPreview(app, (p) => [box(c1, c2)].map((l) => l.map((x) => [x[0] + p[0] - base[0], x[1] + p[1] - base[1]] as Point)), () => app.point('Specify second point or <use first point as displacement>:', base, true));
    vector = to ? [to[0] - base[0], to[1] - base[1]] : base;
  }
  const r = await tryOp(app, 'stretch', { window, vector });
  if (r) told(app, 'STRETCH', r);
}

// ---- HATCH -----------------------------------------------------------------------------------------

/** HATCH: each internal point picked (or objects selected) makes one hatch, until Enter. */
export async function hatchCommand(app: App): Promise<void> {
  const style = (): Record<string, unknown> => (kept.pattern === 'SOLID' ? { pattern: 'SOLID' } : { pattern: kept.pattern, scale: kept.hatchScale, angle: kept.hatchAngle });
  for (;;) {
    const p = await pickPoint(app, `Pick internal point or [Properties/Select objects] <${kept.pattern}>:`, ['Properties', 'Select objects'], true);
    if (p === null) return;
    if (p === 'PROPERTIES') {
      const name = (await app.value(`Enter a pattern name or [Solid] <${kept.pattern}>:`)).trim().toUpperCase();
      if (name) kept.pattern = name === 'S' ? 'SOLID' : name;
      if (kept.pattern !== 'SOLID') {
        kept.hatchScale = await askNumber(app, `Specify a scale for the pattern <${num(kept.hatchScale)}>:`, kept.hatchScale, (n) => n > 0, 'HATCH: a scale greater than 0');
        kept.hatchAngle = await askNumber(app, `Specify an angle for the pattern <${num(kept.hatchAngle)}>:`, kept.hatchAngle, Number.isFinite, 'HATCH: an angle in degrees');
      }
      continue;
    }
    if (p === 'SELECT OBJECTS') {
      const hs = await app.select('Select objects:');
      if (!hs.length) continue;
      const r = await tryOp(app, 'hatch', { boundary: hs, ...style() });
      if (r) told(app, 'HATCH', r);
      continue;
    }
    if (typeof p === 'string') continue;
    const r = await tryOp(app, 'hatch', { point: p, ...style() });
    if (r) told(app, 'HATCH', r);
  }
}

// ---- dimensions ------------------------------------------------------------------------------------

const DIM_TEXT = ['Mtext', 'Text'];

/** The dimension text asked for by Mtext/Text; Enter keeps the measurement. */
async function dimText(app: App, measured: string): Promise<string | undefined> {
  const t = await app.value(`Enter dimension text <${measured}>:`, undefined, true);
  return t.trim() ? t : undefined;
}

/** AutoCAD's DIMLINEAR without an angle: vertical when the location lies beside the points, else horizontal (as the op decides). */
function autoAngle(p1: Point, p2: Point, pos: Point): number {
  const inX = pos[0] >= Math.min(p1[0], p2[0]) && pos[0] <= Math.max(p1[0], p2[0]);
  const inY = pos[1] >= Math.min(p1[1], p2[1]) && pos[1] <= Math.max(p1[1], p2[1]);
  if (inY && !inX) return 90;
  if (inX && !inY) return 0;
  return Math.abs(p2[0] - p1[0]) >= Math.abs(p2[1] - p1[1]) ? 0 : 90;
}

/** Extension lines and dimension line through `pos` at `angle` degrees. */
function linearPreview(p1: Point, p2: Point, pos: Point, angle: number): Outline {
  const u: Point = [Math.cos((angle * Math.PI) / 180), Math.sin((angle * Math.PI) / 180)];
  const on = (p: Point): Point => {
    const t = (p[0] - pos[0]) * u[0] + (p[1] - pos[1]) * u[1];
    return [pos[0] + t * u[0], pos[1] + t * u[1]];
  };
  return [[p1, on(p1)], [p2, on(p2)], [on(p1), on(p2)]];
}

export async function dimLinearCommand(app: App, aligned: boolean): Promise<void> {
  let p1: Point, p2: Point;
  const first = await pointOr(app, 'Specify first extension line origin or <select object>:', undefined, [], true);
  if (first === null) {
    const o = await mustPick(app, 'Select object to dimension:', ['Line', 'Arc']);
    const rec = (await recordsOf(app, [o.handle]))[0]!;
    const l = outlineOf(rec)[0]!;
    [p1, p2] = [l[0]!, l[l.length - 1]!];
  } else {
    p1 = first as Point;
    p2 = await mustPoint(app, 'Specify second extension line origin:', p1);
  }
  const alignedAngle = (Math.atan2(p2[1] - p1[1], p2[0] - p1[0]) * 180) / Math.PI;
  let angle: number | undefined;
  let text: string | undefined;
  const keywords = aligned ? DIM_TEXT : [...DIM_TEXT, 'Horizontal', 'Vertical', 'Rotated'];
  const angleAt = (to: Point): number => (aligned ? alignedAngle : angle ?? autoAngle(p1, p2, to));
  const measure = (a: number): string => num(Math.abs((p2[0] - p1[0]) * Math.cos((a * Math.PI) / 180) + (p2[1] - p1[1]) * Math.sin((a * Math.PI) / 180)));
  for (;;) {
    const pos = await withPreview(app, (to) => linearPreview(p1, p2, to, angleAt(to)), () => pointOr(app, `Specify dimension line location or [${keywords.join('/')}]:`, undefined, keywords));
    if (pos === null) throw new Cancelled();
    if (pos === 'MTEXT' || pos === 'TEXT') text = await dimText(app, aligned || angle !== undefined ? measure(angleAt(p1)) : '<>');
    else if (pos === 'HORIZONTAL') angle = 0;
    else if (pos === 'VERTICAL') angle = 90;
    else if (pos === 'ROTATED') angle = await askNumber(app, 'Specify angle of dimension line <0>:', 0, Number.isFinite, 'DIMLINEAR: an angle in degrees');
    else if (typeof pos !== 'string') {
      const r = await tryOp(app, 'dimension_create', { type: aligned ? 'aligned' : 'linear', points: [p1, p2], position: pos, ...(angle !== undefined && !aligned ? { angle } : {}), ...(text !== undefined ? { text } : {}) });
      if (r) {
        app.message(`Dimension text = ${measure(angleAt(pos))}`);
        return;
      }
    }
  }
}

export async function dimRadialCommand(app: App, diameter: boolean): Promise<void> {
  const o = await mustPick(app, 'Select arc or circle:', ['Arc', 'Circle']);
  const rec = (await recordsOf(app, [o.handle]))[0]!;
  const c: Point = [(rec.center as number[])[0]!, (rec.center as number[])[1]!];
  const r = Number(rec.radius);
  const measured = num(diameter ? 2 * r : r);
  app.message(`Dimension text = ${measured}`);
  let text: string | undefined;
  const preview = (to: Point): Outline => {
    const d = dist(c, to);
    if (!(d > 0)) return [];
    const u: Point = [(to[0] - c[0]) / d, (to[1] - c[1]) / d];
    const from: Point = diameter ? [c[0] - u[0] * r, c[1] - u[1] * r] : c;
    return [[from, to]];
  };
  for (;;) {
    const pos = await withPreview(app, preview, () => pointOr(app, 'Specify dimension line location or [Mtext/Text]:', undefined, DIM_TEXT));
    if (pos === null) throw new Cancelled();
    if (typeof pos === 'string') {
      text = await dimText(app, measured);
      continue;
    }
    const done = await tryOp(app, 'dimension_create', { type: diameter ? 'diameter' : 'radius', handle: o.handle, position: pos, ...(text !== undefined ? { text } : {}) });
    if (done) return;
  }
}

const angleOf = (c: Point, p: Point): number => Math.atan2(p[1] - c[1], p[0] - c[0]);

/** The arc of an angular dimension's preview: from leg a to leg b (directions) counter-clockwise, or the other way, whichever holds the cursor. */
function angularPreview(vx: Point, legs: [Point, Point][], to: Point): Outline {
  const q = angleOf(vx, to);
  const r = dist(vx, to);
  if (!(r > 0)) return [];
  for (const [a, b] of legs) {
    const a0 = Math.atan2(a[1], a[0]), a1 = Math.atan2(b[1], b[0]);
    let sweep = a1 - a0, t = q - a0;
    while (sweep <= 0) sweep += 2 * Math.PI;
    while (t < 0) t += 2 * Math.PI;
    if (t <= sweep) return [arcPoints(vx, r, (a0 * 180) / Math.PI, (a1 * 180) / Math.PI)];
  }
  return [];
}

export async function dimAngularCommand(app: App): Promise<void> {
  const o = await pickObject(app, 'Select arc, circle, line, or <specify vertex>:', { optional: true, types: ['Arc', 'Circle', 'Line'] });
  let fields!: Record<string, unknown>;
  let vx!: Point;
  let legs!: [Point, Point][];
  const unit = (v: Point): Point => {
    const l = Math.hypot(v[0], v[1]) || 1;
    return [v[0] / l, v[1] / l];
  };
  const threePoints = (c: Point, p1: Point, p2: Point): void => {
    vx = c;
    const d1 = unit([p1[0] - c[0], p1[1] - c[1]]), d2 = unit([p2[0] - c[0], p2[1] - c[1]]);
    legs = [[d1, d2], [d2, d1]];
    fields = { points: [c, p1, p2] };
  };
  if (o === null || typeof o === 'string') {
    const c = await mustPoint(app, 'Specify angle vertex:');
    const p1 = await mustPoint(app, 'Specify first angle endpoint:', c);
    threePoints(c, p1, await mustPoint(app, 'Specify second angle endpoint:', c));
  } else {
    const rec = (await recordsOf(app, [o.handle]))[0]!;
    if (o.type === 'Line') {
      const b = await mustPick(app, 'Select second line:', ['Line']);
      const rb = (await recordsOf(app, [b.handle]))[0]!;
      const [a0, a1] = [rec.start as number[], rec.end as number[]].map((p) => [p[0]!, p[1]!] as Point) as [Point, Point];
      const [b0, b1] = [rb.start as number[], rb.end as number[]].map((p) => [p[0]!, p[1]!] as Point) as [Point, Point];
      const u: Point = [a1[0] - a0[0], a1[1] - a0[1]], w: Point = [b1[0] - b0[0], b1[1] - b0[1]];
      const den = u[0] * w[1] - u[1] * w[0];
      if (Math.abs(den) < 1e-12) {
        app.note(`DIMANGULAR: ${o.handle} and ${b.handle} are parallel; they make no angle`, true);
        return dimAngularCommand(app);
      }
      const t = ((b0[0] - a0[0]) * w[1] - (b0[1] - a0[1]) * w[0]) / den;
      vx = [a0[0] + u[0] * t, a0[1] + u[1] * t];
      const n1 = unit(u), n2 = unit(w);
      legs = [];
      for (const s1 of [1, -1]) for (const s2 of [1, -1]) {
        const d1: Point = [n1[0] * s1, n1[1] * s1], d2: Point = [n2[0] * s2, n2[1] * s2];
        legs.push(d1[0] * d2[1] - d1[1] * d2[0] > 0 ? [d1, d2] : [d2, d1]);
      }
      fields = { handles: [o.handle, b.handle] };
    } else {
      const c: Point = [(rec.center as number[])[0]!, (rec.center as number[])[1]!];
      const r = Number(rec.radius);
      const on = (a: number): Point => [c[0] + r * Math.cos((a * Math.PI) / 180), c[1] + r * Math.sin((a * Math.PI) / 180)];
      if (o.type === 'Arc') threePoints(c, on(Number(rec.start_angle)), on(Number(rec.end_angle)));
      else {
        // a circle: the pick is the first end of the angle
        const p1 = on((angleOf(c, o.at) * 180) / Math.PI);
        threePoints(c, p1, await mustPoint(app, 'Specify second angle endpoint:', c));
      }
    }
  }
  let text: string | undefined;
  for (;;) {
    const pos = await withPreview(app, (to) => angularPreview(vx, legs, to), () => pointOr(app, 'Specify dimension arc line location or [Mtext/Text]:', undefined, DIM_TEXT));
    if (pos === null) throw new Cancelled();
    if (typeof pos === 'string') {
      text = await dimText(app, '<>');
      continue;
    }
    const done = await tryOp(app, 'dimension_create', { type: 'angular', ...fields, position: pos, ...(text !== undefined ? { text } : {}) });
    if (done) return;
  }
}

/** The commands by name, for the command line. */
export const MODIFY_COMMANDS: Record<string, (app: App) => Promise<void>> = {
  OFFSET: offsetCommand,
  TRIM: (app) => trimCommand(app, false),
  EXTEND: (app) => trimCommand(app, true),
  FILLET: (app) => cornerCommand(app, false),
  CHAMFER: (app) => cornerCommand(app, true),
  BREAK: breakCommand,
  JOIN: joinCommand,
  EXPLODE: explodeCommand,
  MIRROR: mirrorCommand,
  SCALE: scaleCommand,
  ARRAY: arrayCommand,
  STRETCH: stretchCommand,
  HATCH: hatchCommand,
  DIMLINEAR: (app) => dimLinearCommand(app, false),
  DIMALIGNED: (app) => dimLinearCommand(app, true),
  DIMRADIUS: (app) => dimRadialCommand(app, false),
  DIMDIAMETER: (app) => dimRadialCommand(app, true),
  DIMANGULAR: dimAngularCommand,
};
