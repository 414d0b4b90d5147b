// The construct and modify commands of the command line, with AutoCAD's prompts, keywords and
// aliases: OFFSET, TRIM, EXTEND, FILLET, CHAMFER, BREAK, JOIN, EXPLODE, MIRROR, SCALE, ARRAY,
// STRETCH, HATCH and the DIM commands. Objects are picked by a click (the pick box takes the
// nearest entity, no snap); each edit is one call of the engine's op, so one undo step. An op that
// refuses (no intersection, radius too large ...) is told at the cursor and the command asks again,
// as AutoCAD does; Esc ends it. What AutoCAD remembers between runs are its system variables, read
// and set through the `sysvars` op: FILLETRAD and CHAMFERA-D in the drawing's header, OFFSETDIST,
// TRIMMODE, CHAMMODE, EDGEMODE, PROJMODE and HPNAME/HPSCALE/HPANG kept by the session.
import { ApiError } from './api.js';
import { PICK_PX, type App } from './app.js';
import { mustPoint, pointOr, withPreview } from './draw-commands.js';
import type { Rec } from './grips.js';
import { arcPoints, dist, mapOutline, nearest, offsetOutline, outlineOf, reflect, type Outline } from './outline.js';
import { Cancelled, Keyword, matchKeyword, parsePoint, type Ask, type Point } from './prompts.js';

export const MODIFY_ALIASES: Record<string, string> = {
  O: 'OFFSET', TR: 'TRIM', EX: 'EXTEND', F: 'FILLET', CHA: 'CHAMFER', BR: 'BREAK', J: 'JOIN', X: 'EXPLODE', MI: 'MIRROR', SC: 'SCALE',
  AR: 'ARRAY', S: 'STRETCH', H: 'HATCH', BH: 'HATCH', DLI: 'DIMLINEAR', DAL: 'DIMALIGNED', DRA: 'DIMRADIUS', DDI: 'DIMDIAMETER', DAN: 'DIMANGULAR',
};

export const MODIFY_HELP: [string, string][] = [
  ['OFFSET (O)', 'distance or Through, then object and side, again until Enter'],
  ['TRIM (TR) / EXTEND (EX)', 'objects picked one by one (shift-select: the other one), to every object (or cuTting / Boundary edges); Fence, Crossing, mOde, Project, Edge (Extend / No extend), eRase, Undo'],
  ['FILLET (F) / CHAMFER (CHA)', 'two objects with a preview of the result (shift-select: sharp corner), or a whole Polyline; Radius / Distance, Angle, mEthod, Trim (No trim), Multiple, Undo'],
  ['BREAK (BR)', 'object, second point (or First point; @ breaks at the point)'],
  ['JOIN (J) / EXPLODE (X)', 'the objects selected'],
  ['MIRROR (MI)', 'objects, two points of the mirror line, erase source Yes/No'],
  ['SCALE (SC)', 'objects, base point, factor (typed, picked, or Reference)'],
  ['ARRAY (AR)', 'objects, Rectangular (rows, columns, spacing) or Polar (centre, items, angle)'],
  ['STRETCH (S)', 'crossing window, base point and second point'],
  ['HATCH (H)', 'internal points (one hatch of them all, made at Enter), Properties (pattern, scale, angle), Select objects, Undo'],
  ['DIMLINEAR (DLI) / DIMALIGNED (DAL)', 'two points (or Enter and a line), dimension line location; Text, Horizontal, Vertical, Rotated'],
  ['DIMRADIUS (DRA) / DIMDIAMETER (DDI)', 'arc or circle, dimension line location'],
  ['DIMANGULAR (DAN)', 'two lines, an arc, a circle and a point, or Enter and three points; arc location'],
];

interface Picked {
  handle: string;
  type: string;
  at: Point;
  /** picked with Shift held */
  shift: boolean;
}

type Vars = Record<string, unknown>;

/** System variables of the drawing (or the session's), as the `sysvars` op reads them. */
async function getVars(app: App, names: string[]): Promise<Vars> {
  const r = await app.api.op('sysvars', { document_id: app.docId, get: names });
  return (r.result?.values ?? {}) as Vars;
}

/** Sets system variables: a header variable is one undo step, a session one none (as AutoCAD's). */
async function setVars(app: App, values: Vars): Promise<void> {
  await app.api.op('sysvars', { document_id: app.docId, set: values });
}

const numberVar = (v: unknown, def: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : def);

const num = (n: number): string => String(Math.round(n * 1e4) / 1e4);

// ---- asking ----------------------------------------------------------------------------------

/** A click with the pick box (no snap, no ortho) and whether Shift was held, or a keyword, or null for Enter when optional. */
async function pickClick(app: App, message: string, keywords: readonly string[] = [], optional = false): Promise<{ at: Point; shift: boolean } | string | null> {
  const held: { ask?: Extract<Ask, { kind: 'point' }> } = {};
  try {
    const p = await app.request<Point | null>((resolve, reject) => (held.ask = { kind: 'point', message, optional, keywords, pickbox: true, resolve, reject }));
    return p ? { at: p, shift: !!held.ask?.shift } : null;
  } catch (e) {
    if (e instanceof Keyword) return e.word;
    throw e;
  }
}

async function pickPoint(app: App, message: string, keywords: readonly string[] = [], optional = false): Promise<Point | string | null> {
  const c = await pickClick(app, message, keywords, optional);
  return c && typeof c !== 'string' ? c.at : c;
}

/**
 * "Select object": the entity nearest the click within the pick box. A click on nothing, or on a
 * type the step does not take, is told at the cursor and the step asks again.
 */
async function pickObject(app: App, message: string, opts: { keywords?: readonly string[]; optional?: boolean; types?: string[] } = {}): Promise<Picked | string | null> {
  for (;;) {
    const c = await pickClick(app, message, opts.keywords, opts.optional);
    if (c === null || typeof c === 'string') return c;
    const hit = await objectAt(app, c.at);
    if (!hit) app.note('No object found at that point', true);
    else if (opts.types && !opts.types.includes(hit.type)) app.note(`${hit.handle} is a ${hit.type}; pick ${opts.types.join(' or ')}`, true);
    else return { ...hit, at: c.at, shift: c.shift };
  }
}

/** The entity nearest a point within the pick box. */
async function objectAt(app: App, p: Point): Promise<{ handle: string; type: string } | null> {
  const r = await app.api.op('pick', { document_id: app.docId, point: p, aperture: PICK_PX / app.view.scale, layout: app.layout });
  const handle = (r.result?.handles as string[] | undefined)?.[0];
  return handle ? { handle, type: (r.result?.types as string[] | undefined)?.[0] ?? '?' } : null;
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

// ---- previews computed by the session -----------------------------------------------------------

/**
 * A preview the session computes (a pick, then `modify_preview`): one query in flight, for the
 * latest cursor point; what came back last is drawn, and drawn at once when it arrives.
 */
function livePreview(app: App, compute: (to: Point) => Promise<Outline>): { draw: (to: Point) => Outline; refresh: () => void } {
  let shown: Outline = [];
  let busy = false;
  let asked: Point | null = null;
  let wanted: Point | null = null;
  const run = (to: Point): void => {
    wanted = to;
    if (busy) return;
    busy = true;
    const at = to;
    wanted = null;
    void compute(at).catch(() => [] as Outline).then((o) => {
      busy = false;
      shown = o;
      const c = app.overlay.cursor;
      if (c && app.preview) {
        app.overlay.bands = app.preview(app.view.toWorld(c[0], c[1]));
        app.overlayOnly();
      }
      if (wanted) run(wanted);
    });
  };
  return {
    draw: (to) => {
      if (!asked || asked[0] !== to[0] || asked[1] !== to[1]) {
        asked = to;
        run(to);
      }
      return shown;
    },
    // the same point, something else changed (Shift pressed)
    refresh: () => {
      if (asked) run(asked);
    },
  };
}

/** What `edit` would make, as outlines (nothing when it would refuse). */
async function previewOf(app: App, edit: string, fields: Record<string, unknown>): Promise<Outline> {
  const r = await app.api.op('modify_preview', { document_id: app.docId, edit, fields });
  return ((r.result?.entities ?? []) as Rec[]).flatMap((e) => (e.type === 'Hatch' ? hatchOutline(e) : outlineOf(e)));
}

/** A hatch's boundary paths (vertices [x, y, bulge]). */
function hatchOutline(r: Rec): Outline {
  const paths = (r.paths ?? []) as { vertices?: number[][] }[];
  return paths.flatMap((p) => (p.vertices?.length ? outlineOf({ handle: r.handle, type: 'LWPolyline', closed: true, points: p.vertices.map((v) => [v[0]!, v[1]!, 0, 0, v[2] ?? 0]) }) : []));
}

/** Draws the preview for where the cursor is now (not at its next move). */
function showNow(app: App): void {
  const c = app.overlay.cursor;
  if (c && app.preview) app.overlay.bands = app.preview(app.view.toWorld(c[0], c[1]));
  app.overlayOnly();
}

// ---- OFFSET, TRIM, EXTEND -------------------------------------------------------------------

export async function offsetCommand(app: App): Promise<void> {
  // OFFSETDIST: -1 is Through
  const kept = numberVar((await getVars(app, ['OFFSETDIST'])).OFFSETDIST, -1);
  let through = kept < 0;
  let d = Math.max(kept, 0);
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
  if ((through ? -1 : d) !== kept) await setVars(app, { OFFSETDIST: through ? -1 : d });
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

const box = (a: Point, b: Point): Point[] => [a, [b[0], a[1]], b, [a[0], b[1]], a];
const PROJECTIONS = ['None', 'UCS', 'View'];

/**
 * TRIM and EXTEND as AutoCAD 2021+ runs them: in Quick mode every object is an edge; objects are
 * picked one by one (Shift: the other command's edit on that object), or by a Fence or a
 * Crossing window (every piece crossed, one undo step); mOde Standard or cuTting/Boundary edges
 * chooses the edges; Edge is EDGEMODE (edges extended or not), Project PROJMODE; eRase and Undo
 * work inside the command; Enter ends it.
 */
export async function trimCommand(app: App, extend = false): Promise<void> {
  const verb = extend ? 'extend' : 'trim';
  const other = extend ? 'trim' : 'extend';
  const vars = await getVars(app, ['EDGEMODE', 'PROJMODE']);
  let edgeMode = vars.EDGEMODE === 1;
  let projection = numberVar(vars.PROJMODE, 1);
  let edges: string[] | undefined;
  let done = 0;
  const settings = (): void => app.message(`Current settings: Projection=${PROJECTIONS[projection]}, Edge=${edgeMode ? 'Extend' : 'None'}, Mode=${edges ? 'Standard' : 'Quick'}`);
  settings();
  const keywords = [extend ? 'Boundary edges' : 'cuTting edges', 'Fence', 'Crossing', 'mOde', 'Project', 'Edge', ...(extend ? [] : ['eRase']), 'Undo'];
  const apply = async (op: string, fields: Record<string, unknown>): Promise<void> => {
    const r = await tryOp(app, op, { ...fields, ...(edges ? { edges } : {}), ...(edgeMode ? { extended_edges: true } : {}) });
    if (r) {
      done++;
      told(app, op.toUpperCase(), r);
    }
  };
  const chooseEdges = async (): Promise<void> => {
    const hs = await app.select(`Select ${extend ? 'boundary' : 'cutting'} edges ...\nSelect objects or <select all>:`);
    edges = hs.length ? hs : undefined;
    app.message(`Edges: ${edges ? edges.join(', ') : 'all objects'}`);
  };
  // what the edit would leave of the object under the cursor, drawn before the click
  const preview = livePreview(app, async (to) => {
    const b = await objectAt(app, to);
    return b ? previewOf(app, verb, { handle: b.handle, point: to, ...(edges ? { edges } : {}), ...(edgeMode ? { extended_edges: true } : {}) }) : [];
  });
  for (;;) {
    // the drawing may have changed since the last preview
    preview.refresh();
    const o = await withPreview(app, preview.draw, () => pickObject(app, `Select object to ${verb} or shift-select to ${other} or [${keywords.join('/')}]:`, { keywords, optional: true }));
    if (o === null) return;
    if (typeof o !== 'string') {
      const op = o.shift ? other : verb;
      // Quick mode (AutoCAD 2021+): an object that meets no edge at all is erased instead of trimmed
      if (op === 'trim' && !edges && !edgeMode && (await meetsNothing(app, o.handle, o.at))) {
        if (await tryOp(app, 'entities_delete', { handles: [o.handle] })) {
          done++;
          app.message(`TRIM: erased ${o.handle} (it meets no edge)`);
        }
        continue;
      }
      await apply(op, { handle: o.handle, point: o.at });
      continue;
    }
    switch (o) {
      case 'CUTTING EDGES':
      case 'BOUNDARY EDGES':
        await chooseEdges();
        break;
      case 'MODE': {
        const m = await askKeyword(app, `Enter a ${verb} mode option [Quick/Standard] <${edges ? 'Standard' : 'Quick'}>:`, ['Quick', 'Standard'], edges ? 'STANDARD' : 'QUICK');
        if (m === 'STANDARD') await chooseEdges();
        else edges = undefined;
        settings();
        break;
      }
      case 'EDGE': {
        const e = await askKeyword(app, `Enter an implied edge extension mode [Extend/No extend] <${edgeMode ? 'Extend' : 'No extend'}>:`, ['Extend', 'No extend'], edgeMode ? 'EXTEND' : 'NO EXTEND');
        edgeMode = e === 'EXTEND';
        await setVars(app, { EDGEMODE: edgeMode ? 1 : 0 });
        settings();
        break;
      }
      case 'PROJECT': {
        // in a drawing on the XY plane the three give the same result (see docs/editor.md)
        const p = await askKeyword(app, `Enter a projection option [None/Ucs/View] <${PROJECTIONS[projection] === 'UCS' ? 'Ucs' : PROJECTIONS[projection]}>:`, ['None', 'Ucs', 'View'], PROJECTIONS[projection]!.toUpperCase());
        projection = ['NONE', 'UCS', 'VIEW'].indexOf(p);
        await setVars(app, { PROJMODE: projection });
        settings();
        break;
      }
      case 'FENCE': {
        const first = await pointOr(app, 'Specify first fence point:', undefined, [], true);
        if (!first || typeof first === 'string') break;
        const pts: Point[] = [first];
        for (;;) {
          const p = await withPreview(app, (to) => [[...pts, to]], () => pointOr(app, `Specify next fence point${pts.length > 1 ? ' or [Undo]' : ''}:`, pts[pts.length - 1], ['Undo'], true));
          if (p === null) break;
          if (p === 'UNDO') {
            if (pts.length > 1) pts.pop();
          } else if (typeof p !== 'string') pts.push(p);
        }
        if (pts.length < 2) app.note('Fence: two points or more', true);
        else await apply(verb, { fence: pts, ...(app.layout && app.layout !== 'Model' ? { layout: app.layout } : {}) });
        break;
      }
      case 'CROSSING': {
        const c1 = await pickPoint(app, 'Specify first corner:');
        if (!c1 || typeof c1 === 'string') break;
        const c2 = await withPreview(app, (to) => [box(c1, to)], () => pickPoint(app, 'Specify opposite corner:'));
        if (!c2 || typeof c2 === 'string') break;
        // AutoCAD follows the window's sides from its first corner: a fence round it
        if (c1[0] === c2[0] || c1[1] === c2[1]) app.note('Crossing: the window has no area', true);
        else await apply(verb, { fence: box(c1, c2), ...(app.layout && app.layout !== 'Model' ? { layout: app.layout } : {}) });
        break;
      }
      case 'ERASE': {
        const hs = await app.select('Select objects to erase or <exit>:');
        if (hs.length && (await tryOp(app, 'entities_delete', { handles: hs }))) done++;
        break;
      }
      case 'UNDO':
        if (!done) app.note('Nothing to undo in this command', true);
        else {
          await app.api.send('POST', '/undo', { document_id: app.docId });
          done--;
        }
        break;
    }
  }
}

/**
 * True when trimming `handle` at `at` is refused because the object meets no other object at all
 * (a closed curve that meets one only once is not such a case: it stays).
 */
async function meetsNothing(app: App, handle: string, at: Point): Promise<boolean> {
  try {
    await app.api.op('modify_preview', { document_id: app.docId, edit: 'trim', fields: { handle, point: at } });
    return false;
  } catch (e) {
    return e instanceof ApiError && e.code === 'no_intersection' && !e.message.includes('closed curve');
  }
}

// ---- FILLET, CHAMFER, BREAK, JOIN, EXPLODE ------------------------------------------------------

/** The straight segment of a Line or LWPolyline nearest a point. */
function straightNear(rec: Rec, q: Point): [Point, Point] | null {
  const p2 = (v: unknown): Point => [(v as number[])[0]!, (v as number[])[1]!];
  if (rec.type === 'Line') return [p2(rec.start), p2(rec.end)];
  if (rec.type !== 'LWPolyline') return null;
  const pts = (rec.points ?? []) as number[][];
  let best: [Point, Point] | null = null, bd = Infinity;
  const n = pts.length;
  for (let i = 0; i < (rec.closed ? n : n - 1); i++) {
    if ((pts[i]![4] ?? 0) !== 0) continue;
    const a = p2(pts[i]), b = p2(pts[(i + 1) % n]);
    const dx = b[0] - a[0], dy = b[1] - a[1];
    const t = Math.max(0, Math.min(1, ((q[0] - a[0]) * dx + (q[1] - a[1]) * dy) / (dx * dx + dy * dy || 1)));
    const d = Math.hypot(a[0] + dx * t - q[0], a[1] + dy * t - q[1]);
    if (d < bd) [best, bd] = [[a, b], d];
  }
  return best;
}

/**
 * CHAMFER's Angle method (CHAMMODE 1) as the op's two distances: the bevel starts `length` along
 * the first line from the corner and leaves it at `angle` degrees; by the law of sines it meets
 * the second at length * sin(angle) / sin(corner + angle).
 */
export function angleDistances(l1: [Point, Point], at1: Point, l2: [Point, Point], at2: Point, length: number, angle: number): [number, number] | null {
  const d1: Point = [l1[1][0] - l1[0][0], l1[1][1] - l1[0][1]], d2: Point = [l2[1][0] - l2[0][0], l2[1][1] - l2[0][1]];
  const den = d1[0] * d2[1] - d1[1] * d2[0];
  if (Math.abs(den) < 1e-12) return null;
  const t = ((l2[0][0] - l1[0][0]) * d2[1] - (l2[0][1] - l1[0][1]) * d2[0]) / den;
  const x: Point = [l1[0][0] + d1[0] * t, l1[0][1] + d1[1] * t];
  // along each line from the corner towards the side picked (the side kept)
  const towards = (d: Point, at: Point): Point => {
    const l = Math.hypot(d[0], d[1]);
    const s = (at[0] - x[0]) * d[0] + (at[1] - x[1]) * d[1] >= 0 ? 1 : -1;
    return [(s * d[0]) / l, (s * d[1]) / l];
  };
  const u1 = towards(d1, at1), u2 = towards(d2, at2);
  const corner = Math.acos(Math.max(-1, Math.min(1, u1[0] * u2[0] + u1[1] * u2[1])));
  const a = (angle * Math.PI) / 180;
  const s = Math.sin(corner + a);
  if (!(s > 1e-12) || !(a > 0)) return null;
  return [length, (length * Math.sin(a)) / s];
}

/**
 * FILLET and CHAMFER as AutoCAD runs them: two objects (the picks say which sides stay; Shift on
 * the second: a sharp corner), with the result previewed while the cursor is over the second,
 * or a whole Polyline; Radius (FILLETRAD), Distance (CHAMFERA/B), Angle (CHAMFERC/D), mEthod
 * (CHAMMODE), Trim (TRIMMODE), Multiple and Undo.
 */
export async function cornerCommand(app: App, chamfer: boolean): Promise<void> {
  const op = chamfer ? 'chamfer' : 'fillet';
  const v = await getVars(app, ['FILLETRAD', 'CHAMFERA', 'CHAMFERB', 'CHAMFERC', 'CHAMFERD', 'CHAMMODE', 'TRIMMODE']);
  let radius = numberVar(v.FILLETRAD, 0);
  let dists: [number, number] = [numberVar(v.CHAMFERA, 0), numberVar(v.CHAMFERB, 0)];
  let length = numberVar(v.CHAMFERC, 0), angle = numberVar(v.CHAMFERD, 0);
  let byAngle = v.CHAMMODE === 1;
  let trim = v.TRIMMODE !== 0;
  const mode = (): string => (trim ? 'TRIM' : 'NOTRIM');
  const settings = (): void => app.message(chamfer
    ? `(${mode()} mode) Current chamfer ${byAngle ? `Length = ${num(length)}, Angle = ${num(angle)}` : `Dist1 = ${num(dists[0])}, Dist2 = ${num(dists[1])}`}`
    : `Current settings: Mode = ${mode()}, Radius = ${num(radius)}`);
  settings();
  const askRadius = async (): Promise<void> => {
    radius = await askNumber(app, `Specify fillet radius <${num(radius)}>:`, radius, (n) => n >= 0, 'FILLET: a radius of 0 or more');
    await setVars(app, { FILLETRAD: radius });
  };
  const askDistances = async (): Promise<void> => {
    const a = await askNumber(app, `Specify first chamfer distance <${num(dists[0])}>:`, dists[0], (n) => n >= 0, 'CHAMFER: a distance of 0 or more');
    const b = await askNumber(app, `Specify second chamfer distance <${num(a)}>:`, a, (n) => n >= 0, 'CHAMFER: a distance of 0 or more');
    dists = [a, b];
    byAngle = false;
    await setVars(app, { CHAMFERA: a, CHAMFERB: b, CHAMMODE: 0 });
  };
  const askAngle = async (): Promise<void> => {
    length = await askNumber(app, `Specify chamfer length on the first line <${num(length)}>:`, length, (n) => n >= 0, 'CHAMFER: a length of 0 or more');
    angle = await askNumber(app, `Specify chamfer angle from the first line <${num(angle)}>:`, angle, (n) => n >= 0 && n < 180, 'CHAMFER: an angle from 0 to under 180 degrees');
    byAngle = true;
    await setVars(app, { CHAMFERC: length, CHAMFERD: angle, CHAMMODE: 1 });
  };
  const askMethod = async (): Promise<void> => {
    byAngle = (await askKeyword(app, `Enter trim method [Distance/Angle] <${byAngle ? 'Angle' : 'Distance'}>:`, ['Distance', 'Angle'], byAngle ? 'ANGLE' : 'DISTANCE')) === 'ANGLE';
    await setVars(app, { CHAMMODE: byAngle ? 1 : 0 });
  };
  const askTrim = async (): Promise<void> => {
    trim = (await askKeyword(app, `Enter Trim mode option [Trim/No trim] <${trim ? 'Trim' : 'No trim'}>:`, ['Trim', 'No trim'], trim ? 'TRIM' : 'NO TRIM')) === 'TRIM';
    await setVars(app, { TRIMMODE: trim ? 1 : 0 });
  };
  /** A setting keyword: asks it and says true, else false. */
  const setting = async (k: string): Promise<boolean> => {
    if (k === 'RADIUS') await askRadius();
    else if (k === 'DISTANCE') await askDistances();
    else if (k === 'ANGLE') await askAngle();
    else if (k === 'METHOD') await askMethod();
    else if (k === 'TRIM') await askTrim();
    else return false;
    settings();
    return true;
  };
  /** The op's amounts for two picks (the Angle method needs the lines' directions); null when they make none. */
  const amounts = async (a: Picked | null, b: { handle: string; at: Point } | null, sharp = false): Promise<Record<string, unknown> | null> => {
    const keep = trim ? {} : { trim: false };
    if (!chamfer) return { radius: sharp ? 0 : radius, ...keep };
    if (sharp || !byAngle) return { distances: sharp ? [0, 0] : [...dists], ...keep };
    if (!a || !b) return null;
    const [ra, rb] = await recordsOf(app, a.handle === b.handle ? [a.handle] : [a.handle, b.handle]);
    const la = ra && straightNear(ra, a.at), lb = (rb ?? ra) && straightNear((rb ?? ra)!, b.at);
    const d = la && lb ? angleDistances(la, a.at, lb, b.at, length, angle) : null;
    return d ? { distances: d, ...keep } : null;
  };
  const what = chamfer ? 'line' : 'object';
  const keywords = chamfer ? ['Undo', 'Polyline', 'Distance', 'Angle', 'Trim', 'mEthod', 'Multiple'] : ['Undo', 'Polyline', 'Radius', 'Trim', 'Multiple'];
  const second = chamfer ? ['Distance', 'Angle', 'Method'] : ['Radius'];
  let multiple = false;
  let made = 0;
  for (;;) {
    const a = await pickObject(app, `Select first ${what} or [${keywords.join('/')}]:`, { keywords, optional: true });
    if (a === null) return;
    if (typeof a === 'string') {
      if (await setting(a)) continue;
      if (a === 'MULTIPLE') multiple = true;
      else if (a === 'UNDO') {
        if (!made) app.note('Nothing to undo in this command', true);
        else {
          await app.api.send('POST', '/undo', { document_id: app.docId });
          made--;
        }
      } else if (a === 'POLYLINE') {
        if (chamfer && byAngle) {
          app.note('CHAMFER: the Angle method makes a different bevel at each corner of a polyline; use Distance (mEthod) for a whole polyline', true);
          continue;
        }
        const pl = await mustPick(app, 'Select 2D polyline:', ['LWPolyline']);
        const done = await tryOp(app, op, { handles: [pl.handle], polyline: true, ...(await amounts(null, null)) });
        if (done) {
          made++;
          told(app, op.toUpperCase(), done);
          if (!multiple) return;
        }
      }
      continue;
    }
    // the result follows the cursor while it is over a second object; with Shift held, the sharp corner
    const shift = { held: false };
    const preview = livePreview(app, async (to) => {
      const b = await objectAt(app, to);
      if (!b || (b.handle === a.handle && b.type !== 'LWPolyline')) return [];
      const m = await amounts(a, { handle: b.handle, at: to }, shift.held);
      return m ? previewOf(app, op, { handles: [a.handle, b.handle], points: [a.at, to], ...m }) : [];
    });
    const onShift = (ev: KeyboardEvent): void => {
      if (ev.key !== 'Shift' || shift.held === (ev.type === 'keydown')) return;
      shift.held = ev.type === 'keydown';
      preview.refresh();
    };
    window.addEventListener('keydown', onShift);
    window.addEventListener('keyup', onShift);
    let b: Picked | string | null;
    try {
      for (;;) {
        b = await withPreview(app, preview.draw, () => pickObject(app, `Select second ${what} or shift-select to apply corner or [${second.join('/')}]:`, { keywords: second }));
        if (typeof b !== 'string') break;
        await setting(b);
      }
    } finally {
      window.removeEventListener('keydown', onShift);
      window.removeEventListener('keyup', onShift);
    }
    if (!b) return;
    const m = await amounts(a, b, b.shift);
    if (!m) {
      app.note(`CHAMFER: a bevel of length ${num(length)} at ${num(angle)} degrees does not meet the second line`, true);
      continue;
    }
    const done = await tryOp(app, op, { handles: [a.handle, b.handle], points: [a.at, b.at], ...m });
    if (done) {
      made++;
      told(app, op.toUpperCase(), done);
      if (!multiple) return;
    }
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

/**
 * HATCH: internal points picked one after another make one hatch with the boundaries of every
 * region (AutoCAD's one hatch object per command), made when Enter ends the picking; the regions
 * found so far are drawn. Select objects makes a hatch of the closed objects selected. The
 * pattern, scale and angle are HPNAME, HPSCALE and HPANG.
 */
export async function hatchCommand(app: App): Promise<void> {
  const v = await getVars(app, ['HPNAME', 'HPSCALE', 'HPANG']);
  let pattern = typeof v.HPNAME === 'string' && v.HPNAME ? v.HPNAME.toUpperCase() : 'SOLID';
  let scale = numberVar(v.HPSCALE, 1), angle = numberVar(v.HPANG, 0);
  const style = (): Record<string, unknown> => (pattern === 'SOLID' ? { pattern: 'SOLID' } : { pattern, scale, angle });
  const points: Point[] = [];
  let found: Outline = [];
  const make = async (): Promise<void> => {
    if (!points.length) return;
    const r = await tryOp(app, 'hatch', { points, ...style() });
    if (r) told(app, 'HATCH', r);
  };
  // the regions found so far, drawn while the next point is picked
  await withPreview(app, () => found, async () => {
    for (;;) {
      const p = await pickPoint(app, `Pick internal point or [Select objects/Undo/Properties] <${pattern}>:`, ['Select objects', 'Undo', 'Properties'], true);
      if (p === null) return await make();
      if (p === 'PROPERTIES') {
        const name = (await app.value(`Enter a pattern name or [?/Solid/User defined] <${pattern}>:`)).trim().toUpperCase();
        if (name) pattern = name === 'S' ? 'SOLID' : name;
        if (pattern !== 'SOLID') {
          scale = await askNumber(app, `Specify a scale for the pattern <${num(scale)}>:`, scale, (n) => n > 0, 'HATCH: a scale greater than 0');
          angle = await askNumber(app, `Specify an angle for the pattern <${num(angle)}>:`, angle, Number.isFinite, 'HATCH: an angle in degrees');
        }
        await setVars(app, { HPNAME: pattern, HPSCALE: scale, HPANG: angle });
        if (points.length) found = await previewOf(app, 'hatch', { points, ...style() }).catch(() => found);
        continue;
      }
      if (p === 'UNDO') {
        if (!points.length) app.note('No internal point to take back', true);
        else {
          points.pop();
          found = points.length ? await previewOf(app, 'hatch', { points, ...style() }).catch(() => []) : [];
          showNow(app);
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
      // the region must be found before the point counts: a point outside any is told and left out
      try {
        found = await previewOf(app, 'hatch', { points: [...points, p], ...style() });
        points.push(p);
        app.message(`Analyzing internal islands... ${points.length} internal point${points.length === 1 ? '' : 's'}`);
        showNow(app);
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        app.note(`${e.code}: ${e.message}`, true);
      }
    }
  });
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
