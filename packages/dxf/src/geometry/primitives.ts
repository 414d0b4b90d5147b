// Every typed entity as a list of WCS primitives (lines, elliptical arcs in 3D, splines, polygons,
// points, rays). Bounding boxes, flattening, intersections, distances and block references are
// all computed from these; affine transformations map each primitive exactly (an elliptical arc
// c + u cos t + v sin t stays one with transformed c, u, v), which makes inserts exact.
import type { DocumentApi } from '../document-api.js';
import type { HatchEdge, HatchPath } from '../entities/hatch.js';
import type { Entity, Vec3 } from '../types.js';
import { entityAttr } from '../entities/index.js';
import { BSpline, bulgeToArc, ccwSweep, ellipseAngleToParam } from './curves.js';
import type { SplineData } from './curves.js';
import { GEOMETRY_LIMITS, blockExpansion, checkReference, checkSpline, expansionError } from './expansion.js';
import { Matrix44 } from './matrix44.js';
import { DEG, TAU, cross, len, mul, normalize, ocsFromExtrusion, ocsToWcs, vec3 } from './vec.js';
import type { Ocs } from './vec.js';

export type Primitive =
  | { k: 'line'; a: Vec3; b: Vec3 }
  /** c + u cos t + v sin t for t from t0 over sweep (> 0); `rev` = the entity runs backwards. */
  | { k: 'arc'; c: Vec3; u: Vec3; v: Vec3; t0: number; sweep: number; rev?: boolean }
  | { k: 'spline'; data: SplineData; fit?: boolean }
  /** A polyline in WCS (closed: last point connects to first). */
  | { k: 'poly'; pts: Vec3[]; closed: boolean }
  | { k: 'point'; p: Vec3 }
  /** Unbounded: a ray from a along d (one-sided) or an infinite line (xline). */
  | { k: 'ray'; a: Vec3; d: Vec3; both: boolean };

/** Closed boundaries usable for containment (in WCS, each a list of primitives forming a loop). */
export interface Geometry {
  prims: Primitive[];
  /** Loops of a closed area (circle, closed polyline, hatch paths, solid...), evaluated even-odd. */
  loops?: Primitive[][];
}

export const CHAR_WIDTH = 0.6;

const num = (v: unknown, d = 0): number => (typeof v === 'number' ? v : v === undefined || v === null ? d : Number(v) || d);

// ------------------------------------------------------------------------------------------------
// text metrics (shared with the fast bounding box path)

/** Plain characters of MTEXT content: formatting codes removed, paragraphs split. */
export function mtextPlainLines(text: string): string[] {
  const s = text
    .replace(/\\[Pp]/g, '\n')
    .replace(/\\S([^;^#/]*)[\^#/]([^;]*);/g, '$1$2')
    .replace(/\\[ACcFfHhQTWpXx][^;]*;/g, '')
    .replace(/\\[LlOoKkNn~]/g, '')
    .replace(/\\\\/g, '\\')
    .replace(/[{}]/g, '')
    .replace(/%%[cdpCDP]/g, '#');
  return s.split('\n');
}

function textLength(text: string): number {
  // %%c, %%d, %%p are one glyph; %%u/%%o toggles are none
  return text.replace(/%%[uoUO]/g, '').replace(/%%[cdpCDP]/g, '#').replace(/\\U\+[0-9A-Fa-f]{4}/g, '#').length;
}

/**
 * The 4 corners (OCS, z = elevation) of a TEXT/ATTRIB/ATTDEF box: baseline-left, baseline-right,
 * top-right, top-left, honouring alignment, width factor, oblique, rotation, mirror flags.
 */
export function textCornersOcs(e: Entity): [number, number, number][] {
  const a = e.attrs;
  const h = num(a.height, 2.5);
  const wf = num(a.width, 1) || 1;
  const n = textLength(String(a.text ?? ''));
  let w = n * CHAR_WIDTH * h * wf;
  const halign = num(a.halign);
  const valign = num(e.type === 'TEXT' ? a.valign : a.valign);
  const ins = (a.insert as number[] | undefined) ?? [0, 0, 0];
  const ap = (a.align_point as number[] | undefined) ?? ins;
  let rot = num(a.rotation) * DEG;
  let hh = h;
  let ref = ins;
  let x0 = 0;
  if (halign === 3 || halign === 5) {
    // aligned / fit: the text spans insert -> align_point
    const dx = ap[0]! - ins[0]!;
    const dy = ap[1]! - ins[1]!;
    const d = Math.hypot(dx, dy);
    if (d > 0) {
      rot = Math.atan2(dy, dx);
      if (halign === 3 && w > 0) hh = (h * d) / w;
      w = d;
    }
  } else if (halign !== 0 || valign !== 0) {
    ref = ap;
    if (halign === 1 || halign === 4) x0 = -w / 2;
    else if (halign === 2) x0 = -w;
  }
  let y0 = 0;
  if (halign === 4) y0 = -hh / 2;
  else if (halign !== 3 && halign !== 5) {
    if (valign === 1) y0 = -0.0; // bottom: descenders not modelled
    else if (valign === 2) y0 = -hh / 2;
    else if (valign === 3) y0 = -hh;
  }
  const flags = num(a.text_generation_flag);
  const sx = flags & 2 ? -1 : 1;
  const sy = flags & 4 ? -1 : 1;
  const shear = Math.tan(num(a.oblique) * DEG);
  const c = Math.cos(rot);
  const s = Math.sin(rot);
  const z = ins[2] ?? 0;
  const corner = (lx: number, ly: number): [number, number, number] => {
    const x = sx * (lx + ly * shear);
    const y = sy * ly;
    return [ref[0]! + x * c - y * s, ref[1]! + x * s + y * c, z];
  };
  return [corner(x0, y0), corner(x0 + w, y0), corner(x0 + w, y0 + hh), corner(x0, y0 + hh)];
}

/**
 * How an MTEXT sits: the column and row of its attachment point (0-2 each, from the top left),
 * its OCS, and its text direction and up direction in WCS.
 */
export function mtextFrame(e: Entity): { col: number; row: number; ocs: Ocs; xdir: Vec3; ydir: Vec3 } {
  const a = e.attrs;
  const ap = Math.min(9, Math.max(1, num(a.attachment_point, 1)));
  const ocs = ocsFromExtrusion(a.extrusion);
  let xdir: Vec3;
  if (Array.isArray(a.text_direction) && len(a.text_direction as number[]) > 0) xdir = normalize(a.text_direction as number[]);
  else {
    const r = num(a.rotation) * DEG;
    xdir = ocsToWcs(ocs, [Math.cos(r), Math.sin(r), 0]);
  }
  return { col: (ap - 1) % 3, row: Math.floor((ap - 1) / 3), ocs, xdir, ydir: normalize(cross(ocs.uz, xdir)) };
}

/** The 4 WCS corners of an MTEXT box (estimated from the text when AutoCAD's extents are absent). */
export function mtextCorners(e: Entity): Vec3[] {
  const a = e.attrs;
  const ch = num(a.char_height, 2.5);
  const lsf = num(a.line_spacing_factor, 1) || 1;
  const lines = mtextPlainLines(String(a.text ?? ''));
  const refWidth = num(a.width);
  let w = num(a.rect_width);
  let lineCount = lines.length;
  if (!(w > 0)) {
    const longest = Math.max(0, ...lines.map((l) => l.length)) * CHAR_WIDTH * ch;
    if (refWidth > 0) {
      w = Math.min(refWidth, longest || refWidth);
      lineCount = lines.reduce((n, l) => n + Math.max(1, Math.ceil((l.length * CHAR_WIDTH * ch) / refWidth)), 0);
    } else w = longest;
  }
  let h = num(a.rect_height);
  if (!(h > 0)) h = ch * (1 + (lineCount - 1) * (5 / 3) * lsf);
  const { col, row, xdir, ydir } = mtextFrame(e);
  const x0 = (-col * w) / 2;
  const yTop = (row * h) / 2;
  const ins = vec3(a.insert);
  const P = (lx: number, ly: number): Vec3 => [
    ins[0] + xdir[0] * lx + ydir[0] * ly, ins[1] + xdir[1] * lx + ydir[1] * ly, ins[2] + xdir[2] * lx + ydir[2] * ly,
  ];
  return [P(x0, yTop - h), P(x0 + w, yTop - h), P(x0 + w, yTop), P(x0, yTop)];
}

// ------------------------------------------------------------------------------------------------

/** An arc primitive in an OCS: center (OCS, z = elevation), radius, ccw angles in radians. */
export function ocsArc(ocs: Ocs, center: readonly number[], r: number, a0: number, a1: number, full = false, rev = false): Primitive {
  return {
    k: 'arc', c: ocsToWcs(ocs, center), u: mul(ocs.ux, r), v: mul(ocs.uy, r), t0: full ? 0 : a0, sweep: full ? TAU : ccwSweep(a0, a1), rev,
  };
}

/** Vertices [x, y, bulge] of a 2D polyline in OCS at `elevation` to primitives. */
export function bulgePolyline(ocs: Ocs, verts: readonly (readonly number[])[], elevation: number, closed: boolean, out: Primitive[]): void {
  const n = verts.length;
  if (n === 0) return;
  if (n === 1) {
    out.push({ k: 'point', p: ocsToWcs(ocs, [verts[0]![0]!, verts[0]![1]!, elevation]) });
    return;
  }
  const segs = closed ? n : n - 1;
  let run: Vec3[] | null = null;
  const flush = () => {
    if (run && run.length > 1) out.push({ k: 'poly', pts: run, closed: false });
    run = null;
  };
  for (let i = 0; i < segs; i++) {
    const p = verts[i]!;
    const q = verts[(i + 1) % n]!;
    const b = p[2] ?? 0;
    if (b !== 0 && (p[0] !== q[0] || p[1] !== q[1])) {
      flush();
      const arc = bulgeToArc(p, q, b);
      out.push(ocsArc(ocs, [arc.center[0], arc.center[1], elevation], arc.radius, arc.start_angle, arc.end_angle, false, arc.reversed));
    } else {
      if (!run) run = [ocsToWcs(ocs, [p[0]!, p[1]!, elevation])];
      run.push(ocsToWcs(ocs, [q[0]!, q[1]!, elevation]));
    }
  }
  flush();
}

function hatchEdgePrims(ocs: Ocs, elev: number, e: HatchEdge, out: Primitive[]): void {
  switch (e.type) {
    case 'line':
      out.push({ k: 'line', a: ocsToWcs(ocs, [e.start[0], e.start[1], elev]), b: ocsToWcs(ocs, [e.end[0], e.end[1], elev]) });
      return;
    case 'arc': {
      const [a0, a1] = e.ccw ? [e.start_angle, e.end_angle] : [360 - e.end_angle, 360 - e.start_angle];
      const full = Math.abs(e.end_angle - e.start_angle) >= 360 - 1e-9;
      out.push(ocsArc(ocs, [e.center[0], e.center[1], elev], e.radius, a0 * DEG, a1 * DEG, full, !e.ccw));
      return;
    }
    case 'ellipse': {
      const [a0, a1] = e.ccw ? [e.start_angle, e.end_angle] : [360 - e.end_angle, 360 - e.start_angle];
      const major: Vec3 = [e.major_axis[0], e.major_axis[1], 0];
      const minor: Vec3 = mul(cross([0, 0, 1], major), e.ratio);
      const t0 = ellipseAngleToParam(e.ratio, a0 * DEG);
      const t1 = ellipseAngleToParam(e.ratio, a1 * DEG);
      const full = Math.abs(e.end_angle - e.start_angle) >= 360 - 1e-9;
      out.push({
        k: 'arc', c: ocsToWcs(ocs, [e.center[0], e.center[1], elev]), u: ocsToWcs(ocs, major), v: ocsToWcs(ocs, minor),
        t0: full ? 0 : t0, sweep: full ? TAU : ccwSweep(t0, t1), rev: !e.ccw,
      });
      return;
    }
    case 'spline': {
      const cps = e.control_points.length ? e.control_points : e.fit_points;
      out.push({
        k: 'spline',
        data: { degree: e.control_points.length ? e.degree : 1, control_points: cps.map((p) => ocsToWcs(ocs, [p[0], p[1], elev])), knots: e.control_points.length ? e.knots : undefined, weights: e.weights },
      });
    }
  }
}

/** The boundary loops of a HATCH as primitives (WCS). */
export function hatchLoops(e: Entity): Primitive[][] {
  const ocs = ocsFromExtrusion(e.attrs.extrusion);
  const elev = vec3(e.attrs.elevation)[2];
  const loops: Primitive[][] = [];
  for (const p of (e.attrs.paths as HatchPath[] | undefined) ?? []) {
    const prims: Primitive[] = [];
    if (p.type === 'polyline') bulgePolyline(ocs, p.vertices, elev, true, prims);
    else for (const edge of p.edges) hatchEdgePrims(ocs, elev, edge, prims);
    loops.push(prims);
  }
  return loops;
}

function transformPrim(p: Primitive, m: Matrix44): Primitive {
  switch (p.k) {
    case 'line':
      return { k: 'line', a: m.transformPoint(p.a), b: m.transformPoint(p.b) };
    case 'arc': {
      const u = m.transformDirection(p.u);
      const v = m.transformDirection(p.v);
      return { k: 'arc', c: m.transformPoint(p.c), u, v, t0: p.t0, sweep: p.sweep, rev: p.rev };
    }
    case 'spline':
      return { k: 'spline', fit: p.fit, data: { ...p.data, control_points: p.data.control_points.map((q) => m.transformPoint(q)) } };
    case 'poly':
      return { k: 'poly', pts: p.pts.map((q) => m.transformPoint(q)), closed: p.closed };
    case 'point':
      return { k: 'point', p: m.transformPoint(p.p) };
    case 'ray':
      return { k: 'ray', a: m.transformPoint(p.a), d: m.transformDirection(p.d), both: p.both };
  }
}

export function transformGeometry(g: Geometry, m: Matrix44): Geometry {
  return {
    prims: g.prims.map((p) => transformPrim(p, m)),
    loops: g.loops?.map((l) => l.map((p) => transformPrim(p, m))),
  };
}

/** The transformation of block content by an INSERT (without MINSERT offsets). */
export function insertMatrix(e: Entity, doc?: DocumentApi): Matrix44 {
  const a = e.attrs;
  const blk = doc?.getBlock(String(a.name ?? ''));
  const base = vec3(blk?.block.attrs.base_point);
  const sx = num(entityAttr(e, 'xscale'), 1);
  const sy = num(entityAttr(e, 'yscale'), 1);
  const sz = num(entityAttr(e, 'zscale'), 1);
  const rot = num(a.rotation) * DEG;
  const ocs = ocsFromExtrusion(a.extrusion);
  const ins = ocsToWcs(ocs, vec3(a.insert));
  // translate(-base), scale, rotateZ, the OCS axes, translate(insert), composed by hand: every
  // INSERT's box needs this matrix when a drawing opens (five matrices and four products each
  // were a quarter of opening a drawing of many inserts)
  const c = Math.cos(rot);
  const s = Math.sin(rot);
  const { ux, uy, uz } = ocs;
  const lx = [sx * (c * ux[0] + s * uy[0]), sx * (c * ux[1] + s * uy[1]), sx * (c * ux[2] + s * uy[2])];
  const ly = [sy * (c * uy[0] - s * ux[0]), sy * (c * uy[1] - s * ux[1]), sy * (c * uy[2] - s * ux[2])];
  const lz = [sz * uz[0], sz * uz[1], sz * uz[2]];
  const t = [0, 1, 2].map((i) => ins[i]! - (base[0] * lx[i]! + base[1] * ly[i]! + base[2] * lz[i]!));
  return Matrix44.fromAxes(lx, ly, lz, t);
}

/** All matrices of an INSERT (one per MINSERT array cell); callers bound the cells first (expansion.ts). */
export function insertMatrices(e: Entity, doc?: DocumentApi): Matrix44[] {
  const a = e.attrs;
  const cols = Math.max(1, Math.floor(num(a.column_count, 1)));
  const rows = Math.max(1, Math.floor(num(a.row_count, 1)));
  const base = insertMatrix(e, doc);
  if (cols === 1 && rows === 1) return [base];
  const out: Matrix44[] = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out.push(cellMatrix(e, base, r, c));
  return out;
}

/**
 * The matrices of a MINSERT's corner cells: cells are translations linear in row and column, so
 * the array's box is the union of its corner cells' boxes.
 */
export function cornerCellMatrices(e: Entity, doc?: DocumentApi): Matrix44[] {
  const a = e.attrs;
  const cols = Math.max(1, Math.floor(num(a.column_count, 1)));
  const rows = Math.max(1, Math.floor(num(a.row_count, 1)));
  const base = insertMatrix(e, doc);
  const out: Matrix44[] = [];
  for (const r of rows > 1 ? [0, rows - 1] : [0]) for (const c of cols > 1 ? [0, cols - 1] : [0]) out.push(cellMatrix(e, base, r, c));
  return out;
}

function cellMatrix(e: Entity, base: Matrix44, r: number, c: number): Matrix44 {
  if (r === 0 && c === 0) return base;
  const a = e.attrs;
  const cs = num(a.column_spacing);
  const rs = num(a.row_spacing);
  const rot = num(a.rotation) * DEG;
  const ocs = ocsFromExtrusion(a.extrusion);
  // spacing runs along the rotated (unscaled) axes of the insert's OCS
  const dx = ocsToWcs(ocs, [Math.cos(rot), Math.sin(rot), 0]);
  const dy = ocsToWcs(ocs, [-Math.sin(rot), Math.cos(rot), 0]);
  const off = [dx[0] * cs * c + dy[0] * rs * r, dx[1] * cs * c + dy[1] * rs * r, dx[2] * cs * c + dy[2] * rs * r];
  return base.then(Matrix44.translate(off[0]!, off[1]!, off[2]!));
}

const MAX_DEPTH = 32;

function polylineGeometry(e: Entity, g: Geometry): void {
  const a = e.attrs;
  const flags = num(a.flags);
  const verts = (e.children ?? []).filter((v) => v.type === 'VERTEX' && !(num(v.attrs.flags) & 16));
  const closed = (flags & 1) !== 0;
  if (flags & 64) {
    // polyface mesh: vertices (flag 64|128) then face records (flag 128)
    const pts: Vec3[] = [];
    for (const v of verts) if (num(v.attrs.flags) & 64) pts.push(vec3(v.attrs.location));
    for (const f of verts) {
      const vf = num(f.attrs.flags);
      if (vf & 64 || !(vf & 128)) continue;
      const idx = [f.attrs.vtx0, f.attrs.vtx1, f.attrs.vtx2, f.attrs.vtx3].map((x) => num(x)).filter((x) => x !== 0);
      for (let i = 0; i < idx.length; i++) {
        const i0 = idx[i]!;
        const i1 = idx[(i + 1) % idx.length]!;
        if (i0 < 0) continue; // invisible edge
        const p = pts[Math.abs(i0) - 1];
        const q = pts[Math.abs(i1) - 1];
        if (p && q) g.prims.push({ k: 'line', a: p, b: q });
      }
    }
    return;
  }
  if (flags & 16) {
    const m = Math.max(1, num(a.m_count));
    const n = Math.max(1, num(a.n_count));
    const pts = verts.map((v) => vec3(v.attrs.location));
    for (let i = 0; i < m; i++) {
      const row = pts.slice(i * n, i * n + n);
      if (row.length > 1) g.prims.push({ k: 'poly', pts: row, closed: (flags & 32) !== 0 });
    }
    for (let j = 0; j < n; j++) {
      const col: Vec3[] = [];
      for (let i = 0; i < m; i++) if (pts[i * n + j]) col.push(pts[i * n + j]!);
      if (col.length > 1) g.prims.push({ k: 'poly', pts: col, closed: closed });
    }
    return;
  }
  if (flags & 8) {
    const pts = verts.map((v) => vec3(v.attrs.location));
    if (pts.length === 1) g.prims.push({ k: 'point', p: pts[0]! });
    else if (pts.length > 1) g.prims.push({ k: 'poly', pts, closed });
    if (closed && pts.length > 2) g.loops = [[{ k: 'poly', pts, closed: true }]];
    return;
  }
  const ocs = ocsFromExtrusion(a.extrusion);
  const elev = vec3(a.elevation)[2];
  const vs = verts.map((v) => {
    const p = vec3(v.attrs.location);
    return [p[0], p[1], num(v.attrs.bulge)];
  });
  bulgePolyline(ocs, vs, elev, closed, g.prims);
  if (closed && vs.length > 2) {
    const loop: Primitive[] = [];
    bulgePolyline(ocs, vs, elev, true, loop);
    g.loops = [loop];
  }
}

/**
 * The geometry of an entity in WCS. `doc` resolves block references (INSERT, DIMENSION blocks);
 * without it they contribute only their attributes/definition points.
 */
export function entityGeometry(e: Entity, doc?: DocumentApi, depth = 0, open: Set<string> = new Set()): Geometry {
  const a = e.attrs;
  const g: Geometry = { prims: [] };
  switch (e.type) {
    case 'LINE':
      g.prims.push({ k: 'line', a: vec3(a.start), b: vec3(a.end) });
      break;
    case 'POINT':
      g.prims.push({ k: 'point', p: vec3(a.location) });
      break;
    case 'CIRCLE': {
      const ocs = ocsFromExtrusion(a.extrusion);
      const arc = ocsArc(ocs, vec3(a.center), num(a.radius, 1), 0, 0, true);
      g.prims.push(arc);
      g.loops = [[arc]];
      break;
    }
    case 'ARC': {
      const ocs = ocsFromExtrusion(a.extrusion);
      g.prims.push(ocsArc(ocs, vec3(a.center), num(a.radius, 1), num(a.start_angle) * DEG, num(entityAttr(e, 'end_angle'), 360) * DEG));
      break;
    }
    case 'ELLIPSE': {
      const major = vec3(a.major_axis, [1, 0, 0]);
      const ext = normalize(vec3(a.extrusion, [0, 0, 1]));
      const minor = mul(cross(ext, major), num(a.ratio, 1));
      const s = num(a.start_param);
      const en = num(entityAttr(e, 'end_param'), TAU);
      const full = Math.abs(en - s) >= TAU - 1e-10 || Math.abs(en - s) < 1e-12;
      const arc: Primitive = { k: 'arc', c: vec3(a.center), u: major, v: minor, t0: full ? 0 : s, sweep: full ? TAU : ccwSweep(s, en) };
      g.prims.push(arc);
      if (full) g.loops = [[arc]];
      break;
    }
    case 'LWPOLYLINE': {
      const ocs = ocsFromExtrusion(a.extrusion);
      const pts = ((a.points as number[][] | undefined) ?? []).map((p) => [p[0]!, p[1]!, p[4] ?? 0]);
      const closed = (num(a.flags) & 1) !== 0;
      bulgePolyline(ocs, pts, num(a.elevation), closed, g.prims);
      if (closed && pts.length > 2) {
        const loop: Primitive[] = [];
        bulgePolyline(ocs, pts, num(a.elevation), true, loop);
        g.loops = [loop];
      }
      break;
    }
    case 'POLYLINE':
      polylineGeometry(e, g);
      break;
    case 'SPLINE': {
      checkSpline(e);
      const cps = (a.control_points as number[][] | undefined) ?? [];
      const fps = (a.fit_points as number[][] | undefined) ?? [];
      if (cps.length > 0) {
        g.prims.push({
          k: 'spline',
          data: { degree: num(a.degree, 3), control_points: cps, knots: a.knots as number[] | undefined, weights: a.weights as number[] | undefined },
        });
      } else if (fps.length > 0) {
        // fit points only: approximated by the polyline through them
        g.prims.push({ k: 'poly', pts: fps.map((p) => vec3(p)), closed: (num(a.flags) & 1) !== 0 });
      }
      break;
    }
    case 'TEXT':
    case 'ATTRIB':
    case 'ATTDEF': {
      if (e.type === 'ATTRIB' && num(a.flags) & 1) break; // invisible attribute
      const ocs = ocsFromExtrusion(a.extrusion);
      const pts = textCornersOcs(e).map((p) => ocsToWcs(ocs, p));
      g.prims.push({ k: 'poly', pts, closed: true });
      g.loops = [[{ k: 'poly', pts, closed: true }]];
      break;
    }
    case 'MTEXT': {
      const pts = mtextCorners(e);
      g.prims.push({ k: 'poly', pts, closed: true });
      g.loops = [[{ k: 'poly', pts, closed: true }]];
      break;
    }
    case 'HATCH': {
      const loops = hatchLoops(e);
      for (const l of loops) g.prims.push(...l);
      g.loops = loops;
      break;
    }
    case 'SOLID':
    case 'TRACE': {
      const ocs = ocsFromExtrusion(a.extrusion);
      const v2 = vec3(a.vtx2);
      const pts = [vec3(a.vtx0), vec3(a.vtx1), a.vtx3 ? vec3(a.vtx3) : v2, v2].map((p) => ocsToWcs(ocs, p));
      g.prims.push({ k: 'poly', pts, closed: true });
      g.loops = [[{ k: 'poly', pts, closed: true }]];
      break;
    }
    case '3DFACE': {
      const v2 = vec3(a.vtx2);
      const pts = [vec3(a.vtx0), vec3(a.vtx1), v2, a.vtx3 ? vec3(a.vtx3) : v2];
      g.prims.push({ k: 'poly', pts, closed: true });
      g.loops = [[{ k: 'poly', pts, closed: true }]];
      break;
    }
    case 'INSERT': {
      const blk = doc?.getBlock(String(a.name ?? ''));
      // counted before expanding: the nested levels below are covered by the top one's count
      if (blk && depth === 0) checkReference(e, doc!);
      const key = blk?.name.toUpperCase() ?? '';
      // a block inside itself is not followed (as the renderer does)
      if (blk && depth < MAX_DEPTH && !open.has(key)) {
        open.add(key);
        const content: Geometry = { prims: [], loops: [] };
        for (const child of blk.entities) {
          if (child.type === 'ATTDEF') continue; // ATTDEFs are not shown in references
          const cg = entityGeometry(child, doc, depth + 1, open);
          content.prims.push(...cg.prims.filter((p) => p.k !== 'ray'));
          if (cg.loops) content.loops!.push(...cg.loops);
        }
        g.loops = [];
        for (const m of insertMatrices(e, doc)) {
          const t = transformGeometry(content, m);
          g.prims.push(...t.prims);
          g.loops.push(...(t.loops ?? []));
        }
        open.delete(key);
      }
      for (const att of e.children ?? []) {
        if (att.type !== 'ATTRIB') continue;
        g.prims.push(...entityGeometry(att, doc, depth + 1).prims);
      }
      break;
    }
    case 'DIMENSION': {
      const blk = a.geometry ? doc?.getBlock(String(a.geometry)) : undefined;
      if (blk && depth === 0) {
        const count = blockExpansion(doc!, blk.name);
        if (count > GEOMETRY_LIMITS.maxExpanded) throw expansionError(e, count, blk.name);
      }
      if (blk && depth < MAX_DEPTH) {
        const ins = vec3(a.insert);
        const m = Matrix44.translate(ins[0], ins[1], ins[2]);
        for (const child of blk.entities) {
          const cg = entityGeometry(child, doc, depth + 1, open);
          g.prims.push(...transformGeometry(cg, m).prims.filter((p) => p.k !== 'ray'));
        }
      } else {
        for (const n of ['defpoint', 'defpoint2', 'defpoint3', 'defpoint4', 'defpoint5']) {
          if (Array.isArray(a[n])) g.prims.push({ k: 'point', p: vec3(a[n]) });
        }
        if (Array.isArray(a.text_midpoint)) {
          g.prims.push({ k: 'point', p: ocsToWcs(ocsFromExtrusion(a.extrusion), vec3(a.text_midpoint)) });
        }
      }
      break;
    }
    case 'LEADER': {
      const pts = ((a.vertices as number[][] | undefined) ?? []).map((p) => vec3(p));
      if (pts.length === 1) g.prims.push({ k: 'point', p: pts[0]! });
      else if (pts.length > 1) g.prims.push({ k: 'poly', pts, closed: false });
      break;
    }
    case 'IMAGE': {
      const ins = vec3(a.insert);
      const u = vec3(a.u_pixel, [1, 0, 0]);
      const v = vec3(a.v_pixel, [0, 1, 0]);
      const size = (a.image_size as number[] | undefined) ?? [1, 1];
      const P = (x: number, y: number): Vec3 => [ins[0] + u[0] * x + v[0] * y, ins[1] + u[1] * x + v[1] * y, ins[2] + u[2] * x + v[2] * y];
      const clip = a.boundary_path as number[][] | undefined;
      let pts: Vec3[];
      if (num(a.clipping) && clip && clip.length >= 2) {
        // pixel coordinates with (-0.5, -0.5) at the insert corner, y downwards
        const H = size[1]!;
        const cpts = clip.length === 2
          ? [[clip[0]![0]!, clip[0]![1]!], [clip[1]![0]!, clip[0]![1]!], [clip[1]![0]!, clip[1]![1]!], [clip[0]![0]!, clip[1]![1]!]]
          : clip;
        pts = cpts.map((p) => P(p[0]! + 0.5, H - (p[1]! + 0.5)));
      } else pts = [P(0, 0), P(size[0]!, 0), P(size[0]!, size[1]!), P(0, size[1]!)];
      g.prims.push({ k: 'poly', pts, closed: true });
      g.loops = [[{ k: 'poly', pts, closed: true }]];
      break;
    }
    case 'VIEWPORT': {
      const c = vec3(a.center);
      const w = num(a.width, 1) / 2;
      const h = num(a.height, 1) / 2;
      const pts: Vec3[] = [[c[0] - w, c[1] - h, c[2]], [c[0] + w, c[1] - h, c[2]], [c[0] + w, c[1] + h, c[2]], [c[0] - w, c[1] + h, c[2]]];
      g.prims.push({ k: 'poly', pts, closed: true });
      g.loops = [[{ k: 'poly', pts, closed: true }]];
      break;
    }
    case 'RAY':
    case 'XLINE':
      g.prims.push({ k: 'ray', a: vec3(a.start), d: normalize(vec3(a.unit_vector, [1, 0, 0])), both: e.type === 'XLINE' });
      break;
    default:
      break;
  }
  return g;
}

/** Polyline points of a primitive within `tolerance` (WCS); rays give nothing. */
export function flattenPrim(p: Primitive, tolerance: number): Vec3[] {
  switch (p.k) {
    case 'line':
      return [p.a, p.b];
    case 'point':
      return [p.p];
    case 'poly':
      return p.closed && p.pts.length > 1 ? [...p.pts, p.pts[0]!] : p.pts.slice();
    case 'arc': {
      const r = Math.max(len(p.u), len(p.v));
      let n = 2;
      if (r > tolerance && tolerance > 0) n = Math.max(2, Math.ceil(p.sweep / (2 * Math.acos(Math.max(-1, 1 - tolerance / r)))));
      else n = Math.max(2, Math.ceil(p.sweep / (Math.PI / 8)));
      n = Math.min(n, 100000);
      const pts: Vec3[] = [];
      for (let k = 0; k <= n; k++) {
        const t = p.t0 + (p.sweep * k) / n;
        const ct = Math.cos(t);
        const st = Math.sin(t);
        pts.push([p.c[0] + p.u[0] * ct + p.v[0] * st, p.c[1] + p.u[1] * ct + p.v[1] * st, p.c[2] + p.u[2] * ct + p.v[2] * st]);
      }
      if (p.rev) pts.reverse();
      return pts;
    }
    case 'spline':
      return new BSpline(p.data).flatten(tolerance);
    case 'ray':
      return [];
  }
}
