// DIMENSION entities with their graphics: the measurement (group 42) and the anonymous *D block
// (extension lines, dimension line or arc, arrows as SOLIDs, the text as MTEXT, definition points
// on Defpoints), laid out from the dimension style as ezdxf and AutoCAD lay out the default case:
// text centred above the dimension line (DIMTAD) or beside it, moved outside when it does not
// fit, arrows flipped outside when they do not fit. Every reader draws the block, so ezdxf,
// LibreCAD and AutoCAD show the same lines.
import type { DocumentApi, Entity, TableEntry } from '../dxf.js';
import { entity } from '../entities/create.js';
import { findEntry } from '../model.js';
import { rawValue } from '../render/records.js';

type V = [number, number];

/** Dimension variables of a DIMSTYLE by group code (the entry's raw tags), with AutoCAD's metric defaults. */
export class DimVars {
  constructor(readonly style: TableEntry | undefined) {}
  num(code: number, def: number): number {
    const v = this.style ? rawValue(this.style, code) : undefined;
    const n = v === undefined ? NaN : Number(v);
    return Number.isFinite(n) ? n : def;
  }
  get scale(): number { const s = this.num(40, 1); return s > 0 ? s : 1; }
  /** Arrow size; with ticks (DIMTSZ) the room a tick takes, twice its size, as ezdxf lays it out. */
  get asz(): number { return this.tsz > 0 ? 2 * this.tsz : this.num(41, 2.5) * this.scale; }
  get exo(): number { return this.num(42, 0.625) * this.scale; }
  get exe(): number { return this.num(44, 1.25) * this.scale; }
  get txt(): number { return this.num(140, 2.5) * this.scale; }
  get gap(): number { return Math.abs(this.num(147, 0.625)) * this.scale; }
  get tsz(): number { return this.num(142, 0) * this.scale; }
  get dle(): number { return this.num(46, 0) * this.scale; }
  get tad(): number { return this.num(77, 1); }
  get dec(): number { return Math.max(0, Math.min(8, Math.round(this.num(271, 2)))); }
  get adec(): number { return Math.max(0, Math.min(8, Math.round(this.num(179, 0)))); }
  get zin(): number { return this.num(78, 8); }
  get azin(): number { return this.num(79, 0); }
  get dsep(): string { const c = this.num(278, 46); return c > 0 ? String.fromCharCode(c) : '.'; }
  get lfac(): number { return this.num(144, 1) || 1; }
  get rnd(): number { return this.num(45, 0); }
  get post(): string { return (this.style ? rawValue(this.style, 3) : undefined) ?? ''; }
  get tvp(): number { return this.num(145, 0); }
  get cen(): number { return this.num(141, 2.5) * this.scale; }
  get tih(): boolean { return this.num(73, 0) !== 0; }
  get toh(): boolean { return this.num(74, 0) !== 0; }
  get tix(): boolean { return this.num(174, 0) !== 0; }
  get tofl(): boolean { return this.num(172, 1) !== 0; }
  get tmove(): number { return this.num(279, 0); }
  get se1(): boolean { return this.num(75, 0) !== 0; }
  get se2(): boolean { return this.num(76, 0) !== 0; }
}

/** The measurement as the dimension text shows it (DIMRND, DIMDEC, DIMZIN, DIMDSEP, DIMPOST). */
export function formatLength(v: number, d: DimVars): string {
  let value = v * d.lfac;
  if (d.rnd > 0) value = Math.round(value / d.rnd) * d.rnd;
  return applyPost(zeros(value.toFixed(d.dec), d.zin).replace('.', d.dsep), d.post);
}

export function formatAngle(deg: number, d: DimVars): string {
  // DIMAZIN: 1 suppresses leading zeros, 2 trailing ones (DIMZIN's 4 and 8)
  const zin = (d.azin & 1 ? 4 : 0) | (d.azin & 2 ? 8 : 0);
  return `${zeros(deg.toFixed(d.adec), zin).replace('.', d.dsep)}%%d`;
}

function zeros(text: string, zin: number): string {
  let t = text;
  if (zin & 8 && t.includes('.')) t = t.replace(/0+$/, '').replace(/\.$/, '');
  if (zin & 4) t = t.replace(/^(-?)0\./, '$1.');
  return t === '-0' ? '0' : t;
}

function applyPost(text: string, post: string): string {
  return post.includes('<>') ? post.replace('<>', text) : text;
}

export interface DimBuild {
  /** DIMENSION attributes (without geometry/block name and common properties). */
  attrs: Record<string, unknown>;
  /** The block's content. */
  content: Entity[];
  measurement: number;
}

const add = (a: V, b: V): V => [a[0] + b[0], a[1] + b[1]];
const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1]];
const mul = (a: V, s: number): V => [a[0] * s, a[1] * s];
const len = (a: V): number => Math.hypot(a[0], a[1]);
const unit = (a: V): V => { const l = len(a); return l > 0 ? [a[0] / l, a[1] / l] : [1, 0]; };
const ortho = (a: V): V => [-a[1], a[0]];
const fromDeg = (d: number): V => [Math.cos((d * Math.PI) / 180), Math.sin((d * Math.PI) / 180)];
const degOf = (a: V): number => { const d = (Math.atan2(a[1], a[0]) * 180) / Math.PI; return d < 0 ? d + 360 : d; };
const p3 = (a: V): [number, number, number] => [a[0], a[1], 0];

/** Block content properties: layer 0, BYBLOCK colour and lineweight (the dimension's show through). */
function line(a: V, b: V): Entity {
  return entity('LINE', { layer: '0', color: 0, lineweight: -2, start: p3(a), end: p3(b) });
}

/** A closed filled arrow (ezdxf's and AutoCAD's 18.92 degree solid) with its tip at `tip`, pointing along `dir`. */
function arrow(tip: V, dir: V, d: DimVars): Entity[] {
  if (d.tsz > 0) {
    // an oblique tick instead of an arrow: ezdxf's and AutoCAD's stroke from (-1, -1) to (1, 1)
    // DIMTSZ, turned to the line's direction
    const u = mul(add(dir, ortho(dir)), d.tsz);
    return [line(sub(tip, u), add(tip, u))];
  }
  const h = Math.sin(((18.924644 / 2) * Math.PI) / 180) * d.asz;
  const back = add(tip, mul(dir, -d.asz));
  const n = ortho(dir);
  const up = add(back, mul(n, h)), down = add(back, mul(n, -h));
  return [entity('SOLID', { layer: '0', color: 0, lineweight: -2, vtx0: p3(up), vtx1: p3(tip), vtx2: p3(down), vtx3: p3(down) })];
}

function text(value: string, at: V, rotation: number, d: DimVars, style: string): Entity {
  return entity('MTEXT', { layer: '0', color: 0, insert: p3(at), char_height: d.txt, attachment_point: 5, rotation, style, text: value, line_spacing_style: 1 });
}

function defpoints(points: V[]): Entity[] {
  return points.map((p) => entity('POINT', { layer: 'Defpoints', color: 0, location: p3(p) }));
}

/** ezdxf's text width estimate: one text height per character. */
function textWidth(s: string, d: DimVars): number {
  return s.replace(/%%[cdp]/gi, '#').length * d.txt;
}

/** Linear (rotated by `angle` degrees) or aligned dimension of p1-p2 with the dimension line through `pos`. */
export function linearDim(p1: V, p2: V, pos: V, angle: number, aligned: boolean, d: DimVars, userText: string | undefined, style: string): DimBuild {
  const dir = fromDeg(angle);
  const n = ortho(dir);
  // feet of the extension lines on the dimension line through pos
  const foot = (p: V): V => add(pos, mul(dir, (p[0] - pos[0]) * dir[0] + (p[1] - pos[1]) * dir[1]));
  const s = foot(p1), e = foot(p2);
  const measurement = len(sub(e, s));
  const value = userText !== undefined && userText !== '' && userText !== '<>' ? userText.replace('<>', formatLength(measurement, d)) : formatLength(measurement, d);
  const content: Entity[] = [];
  const vec = measurement > 0 ? unit(sub(e, s)) : dir;
  const ext = (origin: V, at: V) => {
    const v = sub(at, origin);
    const u = len(v) > 0 ? unit(v) : n;
    content.push(line(add(origin, mul(u, d.exo)), add(at, mul(u, d.exe))));
  };
  if (!d.se1) ext(p1, s);
  if (!d.se2) ext(p2, e);
  const ticks = d.tsz > 0;
  const outside = !ticks && 2 * d.asz + d.gap > measurement;
  const width = textWidth(value, d);
  const wide = (d.tad === 0 ? width + 2 * d.asz : width) > measurement;
  // arrows (tips on the extension lines), then the dimension line between them
  let ls = s, le = e;
  const dimLines: [V, V][] = [];
  if (ticks) {
    content.push(...arrow(s, vec, d), ...arrow(e, vec, d));
    ls = add(s, mul(vec, -d.dle));
    le = add(e, mul(vec, d.dle));
    dimLines.push([ls, le]);
  } else if (outside) {
    content.push(...arrow(s, vec, d), ...arrow(e, mul(vec, -1), d));
    content.push(line(add(s, mul(vec, -d.asz)), add(s, mul(vec, -2 * d.asz))));
    content.push(line(add(e, mul(vec, d.asz)), add(e, mul(vec, 2 * d.asz))));
    dimLines.push([s, e]);
  } else {
    content.push(...arrow(s, mul(vec, -1), d), ...arrow(e, vec, d));
    ls = add(s, mul(vec, d.asz));
    le = add(e, mul(vec, -d.asz));
    dimLines.push([ls, le]);
  }
  const center = mul(add(s, e), 0.5);
  const up = ortho(vec);
  const vdist = wide ? d.exe + d.gap + d.txt / 2 : verticalDistance(d, d.tad);
  const at = add(center, mul(up, vdist));
  const rot = degOf(vec);
  // the dimension line is cut where the text sits on it (DIMTAD 0), as ezdxf cuts it
  const box = value ? textBox(at, value, rot, d) : null;
  for (const [a, b] of dimLines) content.push(...visibleLines(a, b, box));
  content.push(text(value, at, rot, d, style));
  content.push(...defpoints([s, p1, p2]));
  return {
    measurement,
    content,
    attrs: {
      dimtype: (aligned ? 1 : 0) | 32, defpoint: p3(s), defpoint2: p3(p1), defpoint3: p3(p2), text_midpoint: p3(at),
      angle: aligned ? degOf(sub(p2, p1)) : ((angle % 360) + 360) % 360, actual_measurement: measurement,
      text: userText ?? '', attachment_point: 5,
    },
  };
}

/** The box the dimension text hides lines in: its width, its height with three quarters of DIMGAP above and below (ezdxf's). */
interface TextBox { c: V; u: V; hw: number; hh: number }

function textBox(at: V, value: string, rotation: number, d: DimVars): TextBox | null {
  const w = textWidth(value, d), h = d.txt + 1.5 * d.gap;
  return w > 0 && h > 0 ? { c: at, u: fromDeg(rotation), hw: w / 2, hh: h / 2 } : null;
}

/** The parts of line a-b outside the text box (all of it without a box). */
function visibleLines(a: V, b: V, box: TextBox | null): Entity[] {
  if (!box) return [line(a, b)];
  const v = ortho(box.u);
  const local = (p: V): V => { const q = sub(p, box.c); return [q[0] * box.u[0] + q[1] * box.u[1], q[0] * v[0] + q[1] * v[1]]; };
  const la = local(a), lb = local(b);
  const dl: V = sub(lb, la);
  // Liang-Barsky: the parameter range of the segment inside the box
  let t0 = 0, t1 = 1;
  for (const [p, q] of [[-dl[0], la[0] + box.hw], [dl[0], box.hw - la[0]], [-dl[1], la[1] + box.hh], [dl[1], box.hh - la[1]]] as [number, number][]) {
    if (Math.abs(p) < 1e-15) { if (q < 0) return [line(a, b)]; continue; }
    const r = q / p;
    if (p < 0) t0 = Math.max(t0, r); else t1 = Math.min(t1, r);
  }
  if (t0 >= t1) return [line(a, b)];
  const at = (t: number): V => add(a, mul(sub(b, a), t));
  const out: Entity[] = [];
  if (t0 > 1e-12) out.push(line(a, at(t0)));
  if (t1 < 1 - 1e-12) out.push(line(at(t1), b));
  return out;
}

/** The parts of an arc (radians, counter-clockwise) outside the text box: cut where it crosses the box twice, as ezdxf cuts it. */
function visibleArcs(c: V, r: number, a0: number, a1: number, box: TextBox | null): Entity[] {
  if (!box) return [arc(c, r, a0, a1)];
  const TAU = 2 * Math.PI;
  const s = ((a0 % TAU) + TAU) % TAU, e = ((a1 % TAU) + TAU) % TAU;
  const span = ((e - s) % TAU + TAU) % TAU;
  const v = ortho(box.u);
  const corner = (x: number, y: number): V => add(box.c, add(mul(box.u, x), mul(v, y)));
  const cs = [corner(-box.hw, -box.hh), corner(box.hw, -box.hh), corner(box.hw, box.hh), corner(-box.hw, box.hh)];
  const hits: number[] = [];
  for (let i = 0; i < 4; i++) {
    const p = cs[i]!, q = cs[(i + 1) % 4]!;
    const dv = sub(q, p), f = sub(p, c);
    const A = dv[0] * dv[0] + dv[1] * dv[1], B = 2 * (f[0] * dv[0] + f[1] * dv[1]), C = f[0] * f[0] + f[1] * f[1] - r * r;
    const disc = B * B - 4 * A * C;
    if (disc < 0) continue;
    for (const t of disc === 0 ? [-B / (2 * A)] : [(-B - Math.sqrt(disc)) / (2 * A), (-B + Math.sqrt(disc)) / (2 * A)]) {
      if (t < 0 || t > 1) continue;
      const x = add(p, mul(dv, t));
      const ang = ((Math.atan2(x[1] - c[1], x[0] - c[0]) % TAU) + TAU) % TAU;
      if (((ang - s) % TAU + TAU) % TAU > span + 1e-12) continue; // not on the arc
      if (!hits.length || Math.abs(hits[hits.length - 1]! - ang) > 1e-9 * Math.max(1, ang)) hits.push(ang);
    }
  }
  if (hits.length !== 2) return [arc(c, r, a0, a1)];
  const sorted = hits.map((a) => (s > e && a < s ? a + TAU : a)).sort((x, y) => x - y);
  return [arc(c, r, s, sorted[0]!), arc(c, r, sorted[1]!, e)];
}

/** Text turned to read upright as ezdxf's radial dimensions turn it: angles in (90, 270] turn half a turn. */
function uprightRadial(deg: number): number {
  let a = ((deg % 360) + 360) % 360;
  if (a > 90 && a <= 270) a = (((a - 180) % 360) + 360) % 360;
  return a;
}

/** The text's offset from its line: above (DIMTAD > 0, below for 4) by half its height and the gap, or DIMTVP heights. */
function verticalDistance(d: DimVars, valign: number): number {
  if (valign === 0) return d.txt * d.tvp;
  return (d.txt / 2 + d.gap) * (valign === 4 ? -1 : 1);
}

/** A centre mark (DIMCEN > 0) or mark and centre lines (DIMCEN < 0) of a circle of radius r. */
function centerMark(c: V, r: number, d: DimVars): Entity[] {
  const size = Math.abs(d.cen);
  if (size === 0) return [];
  const out = [line(add(c, [-size, 0]), add(c, [size, 0])), line(add(c, [0, -size]), add(c, [0, size]))];
  if (d.cen < 0 && size + r >= 2 * size) {
    const far = size + r;
    for (const s of [1, -1]) {
      out.push(line(add(c, [2 * size * s, 0]), add(c, [far * s, 0])));
      out.push(line(add(c, [0, 2 * size * s]), add(c, [0, far * s])));
    }
  }
  return out;
}

/**
 * Radius (diameter false) or diameter dimension of a circle of centre c and radius r, measured
 * along the direction from c towards `pos`. Laid out as ezdxf renders a DIMENSION of this kind at
 * its default text location (the one AutoCAD and ezdxf regenerate without a moved text flag):
 * text outside the curve beyond the arrow, aligned with the line (DIMTOH: horizontal beside a
 * landing), or inside with DIMTIX; the line from the centre (DIMTOFL, else a centre mark), arrows
 * on the curve.
 */
export function radialDim(c: V, r: number, pos: V, diameter: boolean, d: DimVars, userText: string | undefined, style: string): DimBuild {
  const dir = unit(sub(pos, c));
  const near: V = add(c, mul(dir, r));
  const far: V = add(c, mul(dir, -r));
  const measurement = diameter ? 2 * r : r;
  const base = formatLength(measurement, d);
  const shown = diameter ? `%%c${base}` : `R${base}`;
  const value = userText !== undefined && userText !== '' && userText !== '<>' ? userText.replace('<>', shown) : shown;
  const content: Entity[] = [];
  const width = textWidth(value, d);
  const lineAngle = degOf(dir);
  const outside = !d.tix;
  const horizontal = outside ? d.toh : d.tih;
  const tmove = d.tmove;
  const valign = d.tad;
  const rotation = uprightRadial(horizontal ? 0 : lineAngle);
  const outsideDefault = add(c, mul(dir, r + 2 * d.asz));
  const flipped = lineAngle > 90 && lineAngle <= 270;
  const vdist = verticalDistance(d, valign);
  // text position
  let textAt: V;
  if (outside && horizontal) {
    let h = width / 2 + (valign === 0 ? d.asz : 0);
    if (flipped) h = -h;
    textAt = add(outsideDefault, [h, vdist]);
  } else {
    const up = ortho(fromDeg(rotation));
    let mid: V;
    if (!outside) mid = diameter ? c : add(c, mul(dir, (r - d.asz) / 2));
    else mid = add(near, mul(dir, width / 2 + d.asz + d.gap));
    textAt = add(mid, mul(up, vdist));
  }
  // an arrow at a point of the curve pointing along `rot` degrees; the line connects at its back
  const arrowAt = (p: V, rot: number): V => {
    content.push(...arrow(p, d.tsz > 0 ? dir : fromDeg(rot), d));
    return d.tsz > 0 ? p : sub(p, mul(fromDeg(rot), d.asz));
  };
  const centre = diameter ? mul(add(near, far), 0.5) : c;
  // lines the text crosses (DIMTAD 0: centred on them) are cut round it
  const box = value ? textBox(textAt, value, rotation, d) : null;
  if (outside) {
    const conn = arrowAt(near, lineAngle + 180);
    if (d.tofl) {
      if (diameter) content.push(...visibleLines(conn, arrowAt(far, lineAngle + 180), box));
      else content.push(...visibleLines(c, near, box));
    } else content.push(...centerMark(centre, r, d));
    if (horizontal) {
      content.push(line(conn, outsideDefault));
      let h = valign === 0 ? d.asz : width;
      if (flipped) h = -h;
      content.push(line(outsideDefault, add(outsideDefault, [h, 0])));
    } else content.push(...visibleLines(conn, add(conn, mul(dir, d.gap + width)), box));
  } else {
    const conn = arrowAt(near, lineAngle);
    if (tmove === 1) {
      // a leader from the text (at the middle of the radius, or the centre) to the arrow
      const from = diameter ? c : mul(add(c, near), 0.5);
      content.push(line(add(from, mul(dir, valign !== 0 ? -width / 2 : width / 2)), conn));
      content.push(...centerMark(centre, r, d));
    } else if (diameter) content.push(...visibleLines(conn, arrowAt(far, lineAngle + 180), box));
    else content.push(...visibleLines(c, conn, box));
  }
  content.push(text(value, textAt, rotation, d, style));
  content.push(...defpoints([centre, near]));
  return {
    measurement,
    content,
    attrs: {
      dimtype: (diameter ? 3 : 4) | 32, defpoint: p3(diameter ? far : c), defpoint4: p3(near),
      text_midpoint: p3(outside && horizontal ? outsideDefault : textAt),
      leader_length: 0, actual_measurement: measurement, text: userText ?? '', attachment_point: 5,
    },
  };
}

/** Definition of an angular dimension: two lines (their points, the first of each on its leg) or vertex + two points. */
export type AngularDef = { kind: 'lines'; l1: [V, V]; l2: [V, V] } | { kind: 'points'; p1: V; p2: V };

/**
 * Angular dimension between two directions from a vertex (`d1` counter-clockwise to `d2`), the
 * arc through `pos`, laid out as ezdxf renders it at the default text location: extension lines
 * from the definition point nearer the arc (offset DIMEXO) to DIMEXE past the arc, arrows tilted
 * by half the angle their length spans, the text above the arc's middle (or outside, above the
 * extension line ends, when text and arrows do not fit).
 */
export function angularDim(vx: V, d1: V, d2: V, pos: V, d: DimVars, userText: string | undefined, style: string, def: AngularDef): DimBuild {
  const R = len(sub(pos, vx));
  const a1 = Math.atan2(d1[1], d1[0]);
  let sweep = Math.atan2(d2[1], d2[0]) - a1;
  while (sweep <= 0) sweep += 2 * Math.PI;
  const measurement = sweep;
  const degs = (sweep * 180) / Math.PI;
  const value = userText !== undefined && userText !== '' && userText !== '<>' ? userText.replace('<>', formatAngle(degs, d)) : formatAngle(degs, d);
  const content: Entity[] = [];
  const width = textWidth(value, d);
  const fits = (length: number) => sweep > length / R;
  const wide = !fits(width);
  const arrowsOutside = !fits(width + 2 * d.asz);
  const textOutside = !fits((width + 2 * d.asz) * 1.1);
  // extension lines, from the definition point nearer the arc's projection on each leg
  const [e1, e2] = def.kind === 'points'
    ? [def.p1, def.p2]
    : [closerDefpoint(d1, pos, def.l1[0], def.l1[1]), closerDefpoint(d2, pos, def.l2[0], def.l2[1])];
  for (const [start, u, suppressed] of [[e1, d1, d.se1], [e2, d2, d.se2]] as [V, V, boolean][]) {
    if (suppressed) continue;
    const inside = len(sub(start, vx)) > R;
    const off = inside ? -d.exo : d.exo, above = inside ? -d.exe : d.exe;
    content.push(line(add(start, mul(u, off)), add(vx, mul(u, R + above))));
  }
  // arrows: tilted so that their backs sit on the arc
  const ang = (v: V) => (Math.atan2(v[1], v[0]) * 180) / Math.PI;
  let tilt = ((d.asz / R) * 0.5 * 180) / Math.PI;
  let s1 = ang(ortho(d1)) + 180, s2 = ang(ortho(d2));
  if (arrowsOutside) { s1 += 180; s2 += 180; tilt = -tilt; }
  const at = (a: number): V => [vx[0] + R * Math.cos(a), vx[1] + R * Math.sin(a)];
  const tsz = d.tsz > 0;
  content.push(...arrow(at(a1), tsz ? ortho(d1) : fromDeg(s1 + tilt), d), ...arrow(at(a1 + sweep), tsz ? ortho(d2) : fromDeg(s2 - tilt), d));
  // text at the middle of the arc, above it (always above when outside)
  const mid = a1 + sweep / 2;
  const radial: V = [Math.cos(mid), Math.sin(mid)];
  const valign = textOutside ? 1 : d.tad;
  const shift = textOutside && wide ? d.exe : 0;
  const textAt = add(vx, mul(radial, R + verticalDistance(d, valign) + shift));
  let rot = ang([radial[1], -radial[0]]);
  const norm360 = ((rot % 360) + 360) % 360;
  if (norm360 > 93 && norm360 < 267) rot += 180;
  rot = ((rot % 360) + 360) % 360;
  // the arc, short of the arrows inside, whole with arrow-long stubs beyond it outside; cut
  // round the text when the text sits on it (inside, DIMTAD 0)
  const box = !textOutside && valign === 0 && value ? textBox(textAt, value, rot, d) : null;
  const da = d.asz / R;
  if (tsz || arrowsOutside) content.push(...visibleArcs(vx, R, a1, a1 + sweep, box));
  else {
    const off = da > sweep / 2 ? 0 : da;
    content.push(...visibleArcs(vx, R, a1 + off, a1 + sweep - off, box));
  }
  if (arrowsOutside && !tsz) {
    content.push(arc(vx, R, a1 - 2 * da, a1 - da));
    content.push(arc(vx, R, a1 + sweep + da, a1 + sweep + 2 * da));
  }
  content.push(text(value, textAt, rot, d, style));
  const attrs: Record<string, unknown> = { text_midpoint: p3(textAt), actual_measurement: measurement, text: userText ?? '', attachment_point: 5 };
  if (def.kind === 'lines') {
    // 10/15: the first leg's line, 10 on the leg; 14/13: the second's, 14 on the leg (as ezdxf
    // reads the arc's start and end from 10 and 14; AutoCAD takes the quadrant from 16)
    Object.assign(attrs, {
      dimtype: 2 | 32, defpoint: p3(def.l1[0]), defpoint4: p3(def.l1[1]), defpoint3: p3(def.l2[0]), defpoint2: p3(def.l2[1]), defpoint5: p3(pos),
    });
    content.push(...defpoints([def.l1[0], def.l1[1], def.l2[0], def.l2[1], pos]));
  } else {
    Object.assign(attrs, { dimtype: 5 | 32, defpoint: p3(pos), defpoint2: p3(def.p1), defpoint3: p3(def.p2), defpoint4: p3(vx) });
    content.push(...defpoints([pos, def.p1, def.p2, vx]));
  }
  return { measurement, content, attrs };
}

/** Of two points of a leg, the one whose distance along `dir` is nearer that of `base`. */
function closerDefpoint(dir: V, base: V, p1: V, p2: V): V {
  const dot = (v: V) => v[0] * dir[0] + v[1] * dir[1];
  return Math.abs(dot(p1) - dot(base)) <= Math.abs(dot(p2) - dot(base)) ? p1 : p2;
}

function arc(c: V, r: number, a0: number, a1: number): Entity {
  const d = (x: number) => { const y = ((x * 180) / Math.PI) % 360; return y < 0 ? y + 360 : y; };
  return entity('ARC', { layer: '0', color: 0, lineweight: -2, center: p3(c), radius: r, start_angle: d(a0), end_angle: d(a1) });
}

/**
 * Ordinate dimension of `feature` from the UCS origin, leader ending at `pos`: an X datum (the
 * feature's x) when the leader runs more vertically than horizontally, else a Y datum.
 */
export function ordinateDim(feature: V, pos: V, d: DimVars, userText: string | undefined, style: string): DimBuild {
  const dx = pos[0] - feature[0], dy = pos[1] - feature[1];
  const xDatum = Math.abs(dy) >= Math.abs(dx);
  const measurement = Math.abs(xDatum ? feature[0] : feature[1]);
  const shown = formatLength(measurement, d);
  const value = userText !== undefined && userText !== '' && userText !== '<>' ? userText.replace('<>', shown) : shown;
  const dir: V = xDatum ? [0, Math.sign(dy) || 1] : [Math.sign(dx) || 1, 0];
  const start = add(feature, mul(dir, d.exo));
  const width = textWidth(value, d);
  const content: Entity[] = [line(start, pos)];
  const textAt = add(pos, mul(dir, d.gap + width / 2));
  content.push(text(value, textAt, xDatum ? 90 : 0, d, style));
  content.push(...defpoints([[0, 0], feature, pos]));
  return {
    measurement,
    content,
    attrs: {
      dimtype: 6 | 32 | (xDatum ? 64 : 0), defpoint: [0, 0, 0], defpoint2: p3(feature), defpoint3: p3(pos), text_midpoint: p3(textAt),
      actual_measurement: measurement, text: userText ?? '', attachment_point: 5,
    },
  };
}

/** The text style of a dimension style (DIMTXSTY, a handle), Standard when unset. */
export function dimTextStyle(doc: DocumentApi, d: DimVars): string {
  const h = d.style ? rawValue(d.style, 340) : undefined;
  const rec = h ? (doc.get(h) as TableEntry | undefined) : undefined;
  if (rec && rec.type === 'STYLE' && rec.attrs.name) return String(rec.attrs.name);
  return findEntry(doc, 'STYLE', 'Standard') ? 'Standard' : String(findEntry(doc, 'STYLE', '')?.attrs.name ?? 'Standard');
}
