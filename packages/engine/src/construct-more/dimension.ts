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
  get asz(): number { return this.num(41, 2.5) * this.scale; }
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
    // oblique ticks instead of arrows
    const s = d.tsz;
    const u = unit(add(dir, ortho(dir)));
    return [line(add(tip, mul(u, -s)), add(tip, mul(u, s)))];
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

/** Text reads left to right: angles in (90, 270] turn half a turn. */
function readable(deg: number): number {
  const d = ((deg % 360) + 360) % 360;
  return d > 90 + 1e-9 && d <= 270 + 1e-9 ? (d + 180) % 360 : d;
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
  ext(p1, s);
  ext(p2, e);
  const ticks = d.tsz > 0;
  const outside = !ticks && 2 * d.asz + d.gap > measurement;
  const width = textWidth(value, d);
  const wide = (d.tad === 0 ? width + 2 * d.asz : width) > measurement;
  // arrows (tips on the extension lines), then the dimension line between them
  let ls = s, le = e;
  if (ticks) {
    content.push(...arrow(s, vec, d), ...arrow(e, vec, d));
    ls = add(s, mul(vec, -d.dle));
    le = add(e, mul(vec, d.dle));
    content.push(line(ls, le));
  } else if (outside) {
    content.push(...arrow(s, vec, d), ...arrow(e, mul(vec, -1), d));
    content.push(line(add(s, mul(vec, -d.asz)), add(s, mul(vec, -2 * d.asz))));
    content.push(line(add(e, mul(vec, d.asz)), add(e, mul(vec, 2 * d.asz))));
    content.push(line(s, e));
  } else {
    content.push(...arrow(s, mul(vec, -1), d), ...arrow(e, vec, d));
    ls = add(s, mul(vec, d.asz));
    le = add(e, mul(vec, -d.asz));
    content.push(line(ls, le));
  }
  const center = mul(add(s, e), 0.5);
  const up = ortho(vec);
  const vdist = wide ? d.exe + d.gap + d.txt / 2 : d.tad === 0 ? 0 : d.gap + d.txt / 2;
  const at = add(center, mul(up, vdist));
  const rot = degOf(vec);
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

/** Radius (diameter false) or diameter dimension of a circle, text at `pos`. */
export function radialDim(c: V, r: number, pos: V, diameter: boolean, d: DimVars, userText: string | undefined, style: string): DimBuild {
  const dir = unit(sub(pos, c));
  const near: V = add(c, mul(dir, r));
  const far: V = add(c, mul(dir, -r));
  const measurement = diameter ? 2 * r : r;
  const base = formatLength(measurement, d);
  const shown = diameter ? `%%c${base}` : `R${base}`;
  const value = userText !== undefined && userText !== '' && userText !== '<>' ? userText.replace('<>', shown) : shown;
  const content: Entity[] = [];
  const dist = len(sub(pos, c));
  const outside = dist > r;
  const rot = readable(degOf(dir));
  if (outside) {
    // the leader runs from the text to the curve, the arrow points inwards onto the curve
    // the line stops short of the text, whose middle is at pos
    const width = textWidth(value, d);
    const textAt = pos;
    content.push(line(add(near, mul(dir, d.asz)), add(pos, mul(dir, -width / 2 - d.gap))));
    content.push(...arrow(near, mul(dir, -1), d));
    if (diameter) content.push(...arrow(far, dir, d), line(add(far, mul(dir, -d.asz)), add(far, mul(dir, -2 * d.asz))));
    content.push(text(value, textAt, rot, d, style));
  } else {
    const from = diameter ? add(far, mul(dir, d.asz)) : c;
    content.push(line(from, add(near, mul(dir, -d.asz))));
    content.push(...arrow(near, dir, d));
    if (diameter) content.push(...arrow(far, mul(dir, -1), d));
    content.push(text(value, add(pos, mul(ortho(dir), d.tad === 0 ? 0 : d.gap + d.txt / 2)), rot, d, style));
  }
  content.push(...defpoints(diameter ? [far, near] : [c, near]));
  return {
    measurement,
    content,
    attrs: {
      dimtype: (diameter ? 3 : 4) | 32, defpoint: p3(diameter ? far : c), defpoint4: p3(near), text_midpoint: p3(pos),
      leader_length: 0, actual_measurement: measurement, text: userText ?? '', attachment_point: 5,
    },
  };
}

/**
 * Angular dimension between two directions from a vertex (`d1` counter-clockwise to `d2`, less than
 * 180 degrees), the arc through `pos`; `reach1`/`reach2` how far the lines run from the vertex
 * (extension lines cover the rest). `points` (3-point form) when the definition is vertex + two points.
 */
export function angularDim(
  vx: V, d1: V, d2: V, reach1: number, reach2: number, pos: V, d: DimVars, userText: string | undefined, style: string,
  def: { kind: 'lines'; l1: [V, V]; l2: [V, V] } | { kind: 'points'; p1: V; p2: V },
): DimBuild {
  const R = len(sub(pos, vx));
  const a1 = Math.atan2(d1[1], d1[0]);
  let sweep = Math.atan2(d2[1], d2[0]) - a1;
  while (sweep <= 0) sweep += 2 * Math.PI;
  const measurement = sweep;
  const degs = (sweep * 180) / Math.PI;
  const value = userText !== undefined && userText !== '' && userText !== '<>' ? userText.replace('<>', formatAngle(degs, d)) : formatAngle(degs, d);
  const content: Entity[] = [];
  const at = (a: number): V => [vx[0] + R * Math.cos(a), vx[1] + R * Math.sin(a)];
  const s = at(a1), e = at(a1 + sweep);
  // extension lines where the arc lies beyond the lines
  for (const [u, reach] of [[d1, reach1], [d2, reach2]] as [V, number][]) {
    if (R > reach + d.exo) content.push(line(add(vx, mul(u, reach + d.exo)), add(vx, mul(u, R + d.exe))));
  }
  const arcLen = R * sweep;
  const outside = 2 * d.asz + d.gap > arcLen;
  // arrow sizes as angles along the arc
  const da = R > 0 ? d.asz / R : 0;
  const tan1: V = [-Math.sin(a1), Math.cos(a1)];
  const tan2: V = [-Math.sin(a1 + sweep), Math.cos(a1 + sweep)];
  if (outside) {
    content.push(...arrow(s, tan1, d), ...arrow(e, mul(tan2, -1), d));
    content.push(arc(vx, R, a1, a1 + sweep));
  } else {
    content.push(...arrow(s, mul(tan1, -1), d), ...arrow(e, tan2, d));
    content.push(arc(vx, R, a1 + da, a1 + sweep - da));
  }
  const mid = a1 + sweep / 2;
  const radial: V = [Math.cos(mid), Math.sin(mid)];
  const textAt = add(at(mid), mul(radial, d.tad === 0 ? 0 : d.gap + d.txt / 2));
  content.push(text(value, textAt, readable(degOf([-radial[1], radial[0]])), d, style));
  const attrs: Record<string, unknown> = { text_midpoint: p3(textAt), actual_measurement: measurement, text: userText ?? '', attachment_point: 5 };
  if (def.kind === 'lines') {
    Object.assign(attrs, {
      dimtype: 2 | 32, defpoint2: p3(def.l1[0]), defpoint3: p3(def.l1[1]), defpoint4: p3(def.l2[0]), defpoint: p3(def.l2[1]), defpoint5: p3(pos),
    });
    content.push(...defpoints([def.l1[0], def.l1[1], def.l2[0], def.l2[1], pos]));
  } else {
    Object.assign(attrs, { dimtype: 5 | 32, defpoint: p3(pos), defpoint2: p3(def.p1), defpoint3: p3(def.p2), defpoint4: p3(vx) });
    content.push(...defpoints([def.p1, def.p2, vx, pos]));
  }
  return { measurement, content, attrs };
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
