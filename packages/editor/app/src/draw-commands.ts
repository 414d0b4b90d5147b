// The drawing commands that prompt step by step with a rubber-band preview of what they make:
// ARC (3 points, or start-centre-end), PLINE with arc segments, RECTANG, POLYGON, ELLIPSE,
// SPLINE, TEXT and MTEXT. Each ends in one entities_create (one undo step). Keywords are typed at
// the prompt by their capital letters (AutoCAD's: "CE" for CEnter, "A" for Arc).
import type { App } from './app.js';
import { circumcenter } from './grips.js';
import { Cancelled, Keyword, type Point } from './prompts.js';
import { ghostText, typeInPlace } from './inplace-text.js';
import { arcPoints, dist } from './outline.js';

type Seg = [number, number, number, number];

const deg = (c: Point, p: Point): number => (Math.atan2(p[1] - c[1], p[0] - c[0]) * 180) / Math.PI;

/** A point, or the keyword typed instead (null: Enter on an optional point). */
export async function pointOr(app: App, message: string, base: Point | undefined, keywords: readonly string[], optional = false): Promise<Point | string | null> {
  try {
    return await app.point(message, base, optional, keywords);
  } catch (e) {
    if (e instanceof Keyword) return e.word;
    throw e;
  }
}

export async function mustPoint(app: App, message: string, base?: Point): Promise<Point> {
  const p = await app.point(message, base);
  if (!p) throw new Cancelled();
  return p;
}

/** Runs a step with a preview drawn from the cursor's point (screen segments). */
export async function withPreview<T>(app: App, draw: (to: Point) => Point[][], step: () => Promise<T>): Promise<T> {
  app.preview = (to) => {
    const out: Seg[] = [];
    for (const line of draw(to)) {
      for (let i = 1; i < line.length; i++) {
        const [x0, y0] = app.view.toScreen(line[i - 1]![0], line[i - 1]![1]);
        const [x1, y1] = app.view.toScreen(line[i]![0], line[i]![1]);
        out.push([x0, y0, x1, y1]);
      }
    }
    return out;
  };
  try {
    return await step();
  } finally {
    app.preview = null;
  }
}

/** The arc through three points, counter-clockwise from start to end as DXF wants. */
function arc3(s: Point, m: Point, e: Point): { center: Point; radius: number; start_angle: number; end_angle: number } | null {
  const c = circumcenter(s, m, e);
  if (!c) return null;
  // s, m, e turning clockwise: the counter-clockwise arc runs from e to s
  const cw = (m[0] - s[0]) * (e[1] - s[1]) - (m[1] - s[1]) * (e[0] - s[0]) < 0;
  const [from, to] = cw ? [e, s] : [s, e];
  return { center: c, radius: dist(c, s), start_angle: deg(c, from), end_angle: deg(c, to) };
}

async function create(app: App, entity: Record<string, unknown>, what: string): Promise<string> {
  const r = await app.api.op('entities_create', { document_id: app.docId, entities: [entity] });
  const h = (r.result?.handles as string[] | undefined)?.[0] ?? '';
  app.message(`${what}: ${h}`);
  return h;
}

export async function arcCommand(app: App): Promise<void> {
  const first = await pointOr(app, 'Specify start point of arc or [CEnter]:', undefined, ['CEnter']);
  if (first === null) throw new Cancelled();
  if (first === 'CENTER') {
    const c = await mustPoint(app, 'Specify center point of arc:');
    const s = await withPreview(app, (to) => [[c, to]], () => mustPoint(app, 'Specify start point of arc:', c));
    const r = dist(c, s);
    const e = await withPreview(app, (to) => [arcPoints(c, r, deg(c, s), deg(c, to))], () => mustPoint(app, 'Specify end point of arc:', c));
    await create(app, { type: 'Arc', center: c, radius: r, start_angle: deg(c, s), end_angle: deg(c, e) }, 'ARC');
    return;
  }
  const s = first as Point;
  const second = await pointOr(app, 'Specify second point of arc or [CEnter]:', s, ['CEnter']);
  if (second === null) throw new Cancelled();
  if (second === 'CENTER') {
    const c = await mustPoint(app, 'Specify center point of arc:', s);
    const r = dist(c, s);
    const e = await withPreview(app, (to) => [arcPoints(c, r, deg(c, s), deg(c, to))], () => mustPoint(app, 'Specify end point of arc:', c));
    await create(app, { type: 'Arc', center: c, radius: r, start_angle: deg(c, s), end_angle: deg(c, e) }, 'ARC');
    return;
  }
  const m = second as Point;
  const e = await withPreview(app, (to) => {
    const a = arc3(s, m, to);
    return a ? [arcPoints(a.center, a.radius, a.start_angle, a.end_angle)] : [[s, m, to]];
  }, () => mustPoint(app, 'Specify end point of arc:', m));
  const a = arc3(s, m, e);
  if (!a) throw new Error('ARC: the three points lie on one line');
  await create(app, { type: 'Arc', ...a }, 'ARC');
}

/** PLINE: lines and arcs (tangent to the segment before, AutoCAD's default arc mode), Close, Undo. */
export async function plineCommand(app: App): Promise<void> {
  const pts: number[][] = [];
  const start = await mustPoint(app, 'Specify start point:');
  pts.push([start[0], start[1], 0, 0, 0]);
  let arcMode = false;
  let tangent: Point = [1, 0];
  let closed = false;
  const last = (): Point => [pts[pts.length - 1]![0]!, pts[pts.length - 1]![1]!];
  /** The bulge of an arc from `a` to `b` leaving `a` along `t`, and its direction at `b`. */
  const arcTo = (a: Point, b: Point, t: Point): { bulge: number; end: Point } => {
    const chord = Math.atan2(b[1] - a[1], b[0] - a[0]);
    let alpha = chord - Math.atan2(t[1], t[0]);
    while (alpha > Math.PI) alpha -= 2 * Math.PI;
    while (alpha < -Math.PI) alpha += 2 * Math.PI;
    return { bulge: Math.tan(alpha / 2), end: [Math.cos(chord + alpha), Math.sin(chord + alpha)] };
  };
  const outline = (extra?: Point): Point[] => {
    const out: Point[] = [];
    const all = extra ? [...pts, [extra[0], extra[1], 0, 0, 0]] : pts;
    for (let i = 0; i < all.length; i++) {
      const p: Point = [all[i]![0]!, all[i]![1]!];
      if (i === 0) {
        out.push(p);
        continue;
      }
      const prev: Point = [all[i - 1]![0]!, all[i - 1]![1]!];
      let bulge = all[i - 1]![4] ?? 0;
      if (extra && i === all.length - 1 && arcMode) bulge = arcTo(prev, p, tangent).bulge;
      if (!bulge) out.push(p);
      else {
        // the arc as points: its centre lies left of the chord for a positive (counter-clockwise) bulge
        const theta = 4 * Math.atan(bulge);
        const d = dist(prev, p);
        const ux = (p[0] - prev[0]) / d, uy = (p[1] - prev[1]) / d;
        const h = d / 2 / Math.tan(theta / 2);
        const c: Point = [(prev[0] + p[0]) / 2 - uy * h, (prev[1] + p[1]) / 2 + ux * h];
        const r = dist(c, prev);
        const a0 = Math.atan2(prev[1] - c[1], prev[0] - c[0]);
        for (let k = 1; k <= 16; k++) out.push([c[0] + r * Math.cos(a0 + (theta * k) / 16), c[1] + r * Math.sin(a0 + (theta * k) / 16)]);
      }
    }
    return out;
  };
  for (;;) {
    const keywords = arcMode ? ['Line', 'CLose', 'Undo'] : ['Arc', 'Close', 'Undo'];
    const msg = arcMode ? 'Specify endpoint of arc or [Line/CLose/Undo]:' : `Specify next point or [Arc${pts.length > 2 ? '/Close' : ''}/Undo]:`;
    const next = await withPreview(app, (to) => [outline(to)], () => pointOr(app, msg, last(), keywords, true));
    if (next === null) break;
    if (next === 'ARC') arcMode = true;
    else if (next === 'LINE') arcMode = false;
    else if (next === 'UNDO') {
      if (pts.length > 1) pts.pop();
      if (pts.length) pts[pts.length - 1]![4] = 0;
    } else if (next === 'CLOSE') {
      if (pts.length > 2) {
        if (arcMode) pts[pts.length - 1]![4] = arcTo(last(), [pts[0]![0]!, pts[0]![1]!], tangent).bulge;
        closed = true;
        break;
      }
    } else {
      const p = next as Point;
      const from = last();
      if (arcMode) {
        const a = arcTo(from, p, tangent);
        pts[pts.length - 1]![4] = a.bulge;
        tangent = a.end;
      } else {
        const d = dist(from, p) || 1;
        tangent = [(p[0] - from[0]) / d, (p[1] - from[1]) / d];
      }
      pts.push([p[0], p[1], 0, 0, 0]);
    }
  }
  if (pts.length < 2) throw new Cancelled();
  await create(app, { type: 'LWPolyline', points: pts, closed }, 'PLINE');
}

export async function rectangCommand(app: App): Promise<void> {
  const a = await mustPoint(app, 'Specify first corner point:');
  const box = (b: Point): Point[] => [a, [b[0], a[1]], b, [a[0], b[1]], a];
  const b = await withPreview(app, (to) => [box(to)], () => mustPoint(app, 'Specify other corner point:', a));
  if (a[0] === b[0] || a[1] === b[1]) throw new Error('RECTANG: the corners lie on one line');
  await create(app, { type: 'LWPolyline', points: box(b).slice(0, 4), closed: true }, 'RECTANG');
}

export async function polygonCommand(app: App): Promise<void> {
  const nText = (await app.value('Enter number of sides <4>:')).trim();
  const n = nText ? Number(nText) : 4;
  if (!Number.isInteger(n) || n < 3 || n > 1024) throw new Error('POLYGON: 3 to 1024 sides');
  const c = await mustPoint(app, 'Specify center of polygon:');
  const mode = (await app.value('Enter an option [Inscribed in circle/Circumscribed about circle] <I>:')).trim().toUpperCase();
  const inscribed = mode !== 'C';
  // the picked point is a vertex (inscribed) or the middle of an edge (circumscribed)
  const corners = (to: Point): Point[] => {
    const r0 = dist(c, to), a0 = Math.atan2(to[1] - c[1], to[0] - c[0]);
    const r = inscribed ? r0 : r0 / Math.cos(Math.PI / n);
    const start = inscribed ? a0 : a0 + Math.PI / n;
    return Array.from({ length: n }, (_, i) => [c[0] + r * Math.cos(start + (2 * Math.PI * i) / n), c[1] + r * Math.sin(start + (2 * Math.PI * i) / n)] as Point);
  };
  const to = await withPreview(app, (p) => [[...corners(p), corners(p)[0]!]], () => mustPoint(app, 'Specify radius of circle:', c));
  if (!(dist(c, to) > 0)) throw new Error('POLYGON: the radius must be greater than 0');
  await create(app, { type: 'LWPolyline', points: corners(to), closed: true }, 'POLYGON');
}

function ellipsePoints(c: Point, major: Point, ratio: number): Point[] {
  const len = Math.hypot(major[0], major[1]);
  const ux = major[0] / len, uy = major[1] / len;
  return Array.from({ length: 73 }, (_, i) => {
    const t = (i / 72) * 2 * Math.PI;
    const x = len * Math.cos(t), y = len * ratio * Math.sin(t);
    return [c[0] + x * ux - y * uy, c[1] + x * uy + y * ux] as Point;
  });
}

export async function ellipseCommand(app: App): Promise<void> {
  const first = await pointOr(app, 'Specify axis endpoint of ellipse or [Center]:', undefined, ['Center']);
  if (first === null) throw new Cancelled();
  let c: Point, end: Point;
  if (first === 'CENTER') {
    c = await mustPoint(app, 'Specify center of ellipse:');
    end = await withPreview(app, (to) => [[c, to]], () => mustPoint(app, 'Specify endpoint of axis:', c));
  } else {
    const a = first as Point;
    const b = await withPreview(app, (to) => [[a, to]], () => mustPoint(app, 'Specify other endpoint of axis:', a));
    c = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
    end = b;
  }
  const major: Point = [end[0] - c[0], end[1] - c[1]];
  const len = Math.hypot(major[0], major[1]);
  if (!(len > 0)) throw new Error('ELLIPSE: the axis has no length');
  // the other axis: its half length is the distance of the point from the first axis's line
  const other = (to: Point): number => Math.abs((to[0] - c[0]) * -major[1] + (to[1] - c[1]) * major[0]) / len;
  const to = await withPreview(app, (p) => [ellipsePoints(c, major, Math.max(1e-6, other(p) / len))], () => mustPoint(app, 'Specify distance to other axis:', c));
  const half = other(to);
  if (!(half > 0)) throw new Error('ELLIPSE: the other axis has no length');
  // DXF wants the major axis the longer one (ratio at most 1)
  const [m, ratio] = half <= len ? [major, half / len] : ([[(-major[1] * half) / len, (major[0] * half) / len], len / half] as [Point, number]);
  await create(app, { type: 'Ellipse', center: c, major_axis: m, ratio }, 'ELLIPSE');
}

export async function splineCommand(app: App): Promise<void> {
  const pts: Point[] = [await mustPoint(app, 'Specify first point:')];
  for (;;) {
    const next = await withPreview(app, (to) => [[...pts, to]], () => pointOr(app, `Enter next point${pts.length > 2 ? ' or [Close]' : ''}:`, pts[pts.length - 1], ['Close', 'Undo'], true));
    if (next === null) break;
    if (next === 'UNDO') {
      if (pts.length > 1) pts.pop();
      continue;
    }
    if (next === 'CLOSE') {
      if (pts.length > 2) {
        await create(app, { type: 'Spline', fit_points: [...pts, pts[0]!], closed: true }, 'SPLINE');
        return;
      }
      continue;
    }
    pts.push(next as Point);
  }
  if (pts.length < 2) throw new Cancelled();
  await create(app, { type: 'Spline', fit_points: pts }, 'SPLINE');
}

/**
 * TEXT (DTEXT): start point, height, rotation, then each line typed in place at its position; Enter
 * ends a line and opens the next one below it, Enter on an empty line ends the command. All lines
 * are made by one entities_create (one undo step).
 */
export async function textCommand(app: App): Promise<void> {
  const at = await mustPoint(app, 'Specify start point of text:');
  const hText = (await app.value('Specify height <2.5>:', at)).trim();
  const height = hText ? Number(hText) : 2.5;
  if (!(height > 0)) throw new Error('TEXT: the height must be a positive number');
  const rText = (await app.value('Specify rotation angle of text <0>:', at)).trim();
  const rotation = rText ? Number(rText) : 0;
  if (!Number.isFinite(rotation)) throw new Error('TEXT: the rotation is an angle in degrees');
  const lines: { position: Point; value: string }[] = [];
  const ghosts: (() => void)[] = [];
  // the next line: 1.667 heights below along the text's own "down" (AutoCAD's line spacing)
  const r = (rotation * Math.PI) / 180;
  const step: Point = [Math.sin(r) * height * 1.667, -Math.cos(r) * height * 1.667];
  try {
    for (let p = at; ; p = [p[0] + step[0], p[1] + step[1]]) {
      let value: string;
      try {
        value = await typeInPlace(app, { message: 'Enter text:', at: p, height, rotation, multiline: false });
      } catch (e) {
        // Esc keeps the lines already ended, as AutoCAD does
        if (e instanceof Cancelled && lines.length) break;
        throw e;
      }
      if (!value) break;
      lines.push({ position: p, value });
      ghosts.push(ghostText(app, p, height, rotation, value));
    }
    if (!lines.length) throw new Cancelled();
    const r2 = await app.api.op('entities_create', { document_id: app.docId, entities: lines.map((l) => ({ type: 'Text', position: l.position, height, rotation, value: l.value })) });
    app.message(`TEXT: ${((r2.result?.handles ?? []) as string[]).join(', ')}`);
  } finally {
    for (const g of ghosts) g();
  }
}

/** MTEXT: two corners (the width), then the paragraphs typed in place; Ctrl+Enter or a click outside ends. */
export async function mtextCommand(app: App): Promise<void> {
  const a = await mustPoint(app, 'Specify first corner:');
  const b = await withPreview(app, (to) => [[a, [to[0], a[1]], to, [a[0], to[1]], a]], () => mustPoint(app, 'Specify opposite corner:', a));
  const width = Math.abs(b[0] - a[0]);
  const topLeft: Point = [Math.min(a[0], b[0]), Math.max(a[1], b[1])];
  const height = 2.5;
  const typed = await typeInPlace(app, { message: 'Enter text (Ctrl+Enter or a click outside ends):', at: topLeft, height, rotation: 0, multiline: true, width });
  // a new line in the box is a paragraph (\P) in the drawing
  const value = typed.replace(/\r?\n/g, '\\P');
  if (!value.trim()) throw new Cancelled();
  // the top left corner, attachment top left (1)
  await create(app, { type: 'MText', position: topLeft, width: width > 0 ? width : undefined, attachment_point: 1, height, value }, 'MTEXT');
}

/** Double-click on a text: its contents edited in place, saved with one set_properties (one undo step). */
export async function editText(app: App, handle: string): Promise<void> {
  const r = await app.api.op('entity_get', { document_id: app.docId, handle, detail: 'full' });
  const e = r.result?.entities?.[0] as { type: string; text?: string; insert?: number[]; height?: number; char_height?: number; rotation?: number; width?: number } | undefined;
  if (!e || (e.type !== 'Text' && e.type !== 'MText')) return;
  const mtext = e.type === 'MText';
  const at: Point = [e.insert?.[0] ?? 0, e.insert?.[1] ?? 0];
  const shown = mtext ? (e.text ?? '').replace(/\\P/g, '\n') : e.text ?? '';
  const typed = await typeInPlace(app, {
    message: `Edit ${mtext ? 'MTEXT' : 'TEXT'} ${handle}:`, at, height: (mtext ? e.char_height : e.height) ?? 2.5, rotation: e.rotation ?? 0,
    multiline: mtext, width: mtext ? e.width ?? 0 : 0, initial: shown,
  });
  const value = mtext ? typed.replace(/\r?\n/g, '\\P') : typed;
  if (!value || value === e.text) return;
  await app.api.op('set_properties', { document_id: app.docId, handles: [handle], properties: { text: value } });
  app.message(`Text ${handle} edited`);
}
