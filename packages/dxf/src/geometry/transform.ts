// Affine transformation of typed entities in place. Entities whose kind cannot represent the result
// are replaced: a CIRCLE or ARC under non-uniform scaling becomes an ELLIPSE (returned; same handle,
// owner and common attributes). Mirrors keep 2D extrusions at (0,0,1) where the type allows it: arcs
// swap their angles, polyline bulges and hatch edges flip, TEXT gets the "backward" flag, INSERT a
// negative x scale. Lossy cases (documented): polylines/hatch polyline paths with bulges under
// non-uniform scaling are flattened; TEXT/MTEXT/INSERT under shear keep the best fit; DIMENSION
// blocks are not regenerated (definition points move).
import type { DocumentApi } from '../document-api.js';
import type { HatchEdge, HatchPath, HatchPatternLine } from '../entities/hatch.js';
import type { Entity, Vec2, Vec3 } from '../types.js';
import { entityAttr } from '../entities/index.js';
import { bulgeToArc, ccwSweep, ellipseAngleToParam, ellipseParamToAngle } from './curves.js';
import { Matrix44 } from './matrix44.js';
import { DEG, TAU, cross, dot, len, mul, normalize, ocsAngle, ocsFromExtrusion, ocsToWcs, sub, vec3, wcsToOcs } from './vec.js';
import type { Ocs } from './vec.js';

const n = (v: unknown, d = 0): number => (typeof v === 'number' ? v : v === undefined || v === null ? d : Number(v) || d);
const EPS = 1e-9;

/** Cleans -0 and values within 1e-12 of an integer's noise for stable round trips. */
function clean(x: number): number {
  return Object.is(x, -0) ? 0 : x;
}
const cleanV = (v: readonly number[]): Vec3 => [clean(v[0]!), clean(v[1]!), clean(v[2] ?? 0)];

/**
 * How an OCS plane maps under m: the new extrusion (m applied to the old one, normalized), the new
 * OCS, the images of the old OCS axes, whether the map is a similarity in the plane (uniform
 * scale, no shear) and whether it reverses the plane's orientation relative to the new extrusion.
 */
interface PlaneMap {
  oldOcs: Ocs;
  newOcs: Ocs;
  extrusion: Vec3;
  ux: Vec3;
  uy: Vec3;
  scale: number;
  uniform: boolean;
  mirrored: boolean;
  /** Factor along the extrusion (for thickness). */
  zscale: number;
}

function planeMap(extrusion: unknown, m: Matrix44): PlaneMap {
  const oldOcs = ocsFromExtrusion(extrusion);
  const ux = m.transformDirection(oldOcs.ux);
  const uy = m.transformDirection(oldOcs.uy);
  const ez = m.transformDirection(oldOcs.uz);
  const normal = cross(ux, uy);
  let ext = normalize(ez);
  if (len(ext) === 0) ext = normalize(normal);
  // keep the extrusion on the plane's normal (shear of z against the plane is ignored)
  const nn = normalize(normal);
  if (len(nn) > 0) ext = dot(nn, ext) >= 0 ? nn : mul(nn, -1);
  const lx = len(ux);
  const ly = len(uy);
  const uniform = Math.abs(lx - ly) <= EPS * Math.max(1, lx) && Math.abs(dot(ux, uy)) <= EPS * Math.max(1, lx * ly);
  const mirrored = dot(normal, ext) < 0;
  const ext2: Vec3 = cleanV(ext);
  return {
    oldOcs, newOcs: ocsFromExtrusion(ext2), extrusion: ext2, ux, uy, scale: Math.sqrt(Math.abs(lx * ly)), uniform, mirrored,
    zscale: dot(ez, ext2),
  };
}

/** An OCS point through m into the new OCS. */
function mapOcsPoint(pm: PlaneMap, m: Matrix44, p: readonly number[]): Vec3 {
  return cleanV(wcsToOcs(pm.newOcs, m.transformPoint(ocsToWcs(pm.oldOcs, p))));
}

/** An OCS angle (radians) through m, measured in the new OCS. */
function mapOcsAngle(pm: PlaneMap, m: Matrix44, a: number): number {
  const d = m.transformDirection(ocsToWcs(pm.oldOcs, [Math.cos(a), Math.sin(a), 0]));
  return ocsAngle(pm.newOcs, d);
}

const toDeg = (r: number): number => {
  let d = r / DEG;
  d = ((d % 360) + 360) % 360;
  return Math.abs(d - 360) < 1e-10 ? 0 : d;
};

function setExtrusion(e: Entity, pm: PlaneMap): void {
  if (e.attrs.extrusion !== undefined || pm.extrusion[2] < 1 - 1e-12) e.attrs.extrusion = pm.extrusion;
}

function scaleThickness(e: Entity, pm: PlaneMap): void {
  if (e.attrs.thickness !== undefined && n(e.attrs.thickness) !== 0) e.attrs.thickness = n(e.attrs.thickness) * pm.zscale;
}

/** Principal axes of the ellipse c + a cos t + b sin t: returns major, minor and the phase t0. */
function conjugateToAxes(a: Vec3, b: Vec3): { major: Vec3; minor: Vec3; t0: number } {
  let t0 = 0.5 * Math.atan2(2 * dot(a, b), dot(a, a) - dot(b, b));
  let major = [a[0] * Math.cos(t0) + b[0] * Math.sin(t0), a[1] * Math.cos(t0) + b[1] * Math.sin(t0), a[2] * Math.cos(t0) + b[2] * Math.sin(t0)] as Vec3;
  let minor = [-a[0] * Math.sin(t0) + b[0] * Math.cos(t0), -a[1] * Math.sin(t0) + b[1] * Math.cos(t0), -a[2] * Math.sin(t0) + b[2] * Math.cos(t0)] as Vec3;
  if (len(minor) > len(major)) {
    t0 += Math.PI / 2;
    const m2 = mul(major, -1);
    major = minor;
    minor = m2;
  }
  return { major, minor, t0 };
}

/**
 * Builds ELLIPSE attributes for the curve c + a cos t + b sin t, t in [t0, t0 + sweep] (full when
 * sweep >= 2π), keeping the extrusion on the side of `preferred`.
 */
function ellipseAttrs(c: Vec3, a: Vec3, b: Vec3, t0: number, sweep: number, preferred: Vec3): Record<string, unknown> {
  const ax = conjugateToAxes(a, b);
  let ext = normalize(cross(ax.major, ax.minor));
  let s = t0 - ax.t0;
  let e = t0 + sweep - ax.t0;
  if (dot(ext, preferred) < 0) {
    // run the parameter the other way round so the extrusion points to `preferred`
    ext = mul(ext, -1);
    [s, e] = [-e, -s];
  }
  const full = sweep >= TAU - 1e-12;
  const ratio = len(ax.major) > 0 ? Math.min(1, len(ax.minor) / len(ax.major)) : 1;
  const norm = (x: number) => ((x % TAU) + TAU) % TAU;
  return {
    center: cleanV(c), major_axis: cleanV(ax.major), ratio, extrusion: cleanV(ext),
    start_param: full ? 0 : norm(s), end_param: full ? TAU : norm(s) + ccwSweep(norm(s), norm(e)) > TAU ? norm(e) : norm(s) + ccwSweep(norm(s), norm(e)),
  };
}

function toEllipse(e: Entity, attrs: Record<string, unknown>): Entity {
  const keep: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e.attrs)) {
    if (['center', 'radius', 'start_angle', 'end_angle', 'extrusion', 'thickness', 'elevation'].includes(k)) continue;
    keep[k] = v;
  }
  const out: Entity = { kind: 'entity', type: 'ELLIPSE', handle: e.handle, owner: e.owner, attrs: { ...keep, ...attrs } };
  if (e.appData) out.appData = e.appData;
  if (e.xdata) out.xdata = e.xdata;
  if (e.extra?.['']) out.extra = { '': e.extra[''] };
  if (e.extra?.['AcDbEntity']) out.extra = { ...(out.extra ?? {}), AcDbEntity: e.extra['AcDbEntity'] };
  return out;
}

function transformCircleArc(e: Entity, m: Matrix44): Entity | void {
  const a = e.attrs;
  const pm = planeMap(a.extrusion, m);
  const r = n(a.radius, 1);
  const isArc = e.type === 'ARC';
  if (!pm.uniform) {
    const c = m.transformPoint(ocsToWcs(pm.oldOcs, vec3(a.center)));
    const s = isArc ? n(a.start_angle) * DEG : 0;
    const sw = isArc ? ccwSweep(s, n(entityAttr(e, 'end_angle'), 360) * DEG) : TAU;
    return toEllipse(e, ellipseAttrs(c, mul(pm.ux, r), mul(pm.uy, r), s, sw, m.transformDirection(pm.oldOcs.uz)));
  }
  a.center = mapOcsPoint(pm, m, vec3(a.center));
  a.radius = r * len(pm.ux);
  if (isArc) {
    const s = mapOcsAngle(pm, m, n(a.start_angle) * DEG);
    const en = mapOcsAngle(pm, m, n(entityAttr(e, 'end_angle'), 360) * DEG);
    if (pm.mirrored) {
      a.start_angle = toDeg(en);
      a.end_angle = toDeg(s);
    } else {
      a.start_angle = toDeg(s);
      a.end_angle = toDeg(en);
    }
  }
  setExtrusion(e, pm);
  scaleThickness(e, pm);
}

function transformEllipse(e: Entity, m: Matrix44): void {
  const a = e.attrs;
  const major = vec3(a.major_axis, [1, 0, 0]);
  const ext = normalize(vec3(a.extrusion, [0, 0, 1]));
  const minor = mul(cross(ext, major), n(a.ratio, 1));
  const s = n(a.start_param);
  const en = n(entityAttr(e, 'end_param'), TAU);
  const full = Math.abs(en - s) >= TAU - 1e-10 || Math.abs(en - s) < 1e-12;
  const c = m.transformPoint(vec3(a.center));
  const attrs = ellipseAttrs(c, m.transformDirection(major), m.transformDirection(minor), full ? 0 : s, full ? TAU : ccwSweep(s, en), m.transformDirection(ext));
  if (full) {
    attrs.start_param = s;
    attrs.end_param = en;
  }
  if (a.extrusion === undefined && Math.abs((attrs.extrusion as Vec3)[2] - 1) < 1e-12) delete attrs.extrusion;
  Object.assign(a, attrs);
}

/** Maps 2D OCS vertices [x, y, bulge] of a plane (z = elevation); bulges flip under mirrors. */
function mapBulgeVertices(pm: PlaneMap, m: Matrix44, verts: number[][], elev: number): { verts: number[][]; elev: number } {
  let z = elev;
  const out = verts.map((v, i) => {
    const p = mapOcsPoint(pm, m, [v[0]!, v[1]!, elev]);
    if (i === 0) z = p[2];
    return [p[0], p[1], pm.mirrored ? -(v[2] ?? 0) : (v[2] ?? 0)];
  });
  if (verts.length === 0) z = mapOcsPoint(pm, m, [0, 0, elev])[2];
  return { verts: out, elev: clean(z) };
}

/** Replaces bulge arcs by straight segments within a tolerance (for non-uniform scaling). */
function flattenBulges(verts: number[][], closed: boolean, tolerance: number): number[][] {
  const out: number[][] = [];
  const k = verts.length;
  for (let i = 0; i < k; i++) {
    const p = verts[i]!;
    const b = p[2] ?? 0;
    out.push([p[0]!, p[1]!, 0]);
    if (!b || (!closed && i === k - 1)) continue;
    const q = verts[(i + 1) % k]!;
    const arc = bulgeToArc(p, q, b);
    const sweep = ccwSweep(arc.start_angle, arc.end_angle);
    const segs = Math.max(2, Math.ceil(sweep / (2 * Math.acos(Math.max(-1, 1 - Math.min(tolerance, arc.radius) / arc.radius)))));
    for (let j = 1; j < segs; j++) {
      const t = arc.reversed ? arc.end_angle - (sweep * j) / segs : arc.start_angle + (sweep * j) / segs;
      out.push([arc.center[0] + arc.radius * Math.cos(t), arc.center[1] + arc.radius * Math.sin(t), 0]);
    }
  }
  return out;
}

function transformLwpolyline(e: Entity, m: Matrix44): void {
  const a = e.attrs;
  const pm = planeMap(a.extrusion, m);
  let pts = ((a.points as number[][] | undefined) ?? []).map((p) => [p[0]!, p[1]!, p[4] ?? 0, p[2] ?? 0, p[3] ?? 0]);
  const hasBulge = pts.some((p) => p[2] !== 0);
  if (!pm.uniform && hasBulge) {
    const flat = flattenBulges(pts.map((p) => [p[0]!, p[1]!, p[2]!]), (n(a.flags) & 1) !== 0, 1e-3);
    pts = flat.map((p) => [p[0]!, p[1]!, 0, 0, 0]);
    delete a.vertex_tags;
    delete a.vertex_ids;
    delete a.vertex_z;
  }
  const mapped = mapBulgeVertices(pm, m, pts.map((p) => [p[0]!, p[1]!, p[2]!]), n(a.elevation));
  const ws = pm.uniform ? len(pm.ux) : pm.scale;
  a.points = mapped.verts.map((v, i) => [v[0]!, v[1]!, clean(pts[i]![3]! * ws), clean(pts[i]![4]! * ws), clean(v[2]!)]);
  if (a.elevation !== undefined || mapped.elev !== 0) a.elevation = mapped.elev;
  if (a.const_width !== undefined) a.const_width = n(a.const_width) * ws;
  setExtrusion(e, pm);
  scaleThickness(e, pm);
}

function transformPolyline(e: Entity, m: Matrix44): void {
  const a = e.attrs;
  const flags = n(a.flags);
  const verts = e.children ?? [];
  if (flags & (8 | 16 | 64)) {
    for (const v of verts) if (Array.isArray(v.attrs.location)) v.attrs.location = cleanV(m.transformPoint(vec3(v.attrs.location)));
    if (Array.isArray(a.elevation)) a.elevation = [0, 0, 0].map((_, i) => (i < 2 ? 0 : vec3(a.elevation)[2]));
    return;
  }
  const pm = planeMap(a.extrusion, m);
  const elev = vec3(a.elevation)[2];
  const ws = pm.uniform ? len(pm.ux) : pm.scale;
  for (const v of verts) {
    const loc = vec3(v.attrs.location);
    const p = mapOcsPoint(pm, m, [loc[0], loc[1], elev]);
    v.attrs.location = [p[0], p[1], 0];
    if (v.attrs.bulge !== undefined && pm.mirrored) v.attrs.bulge = -n(v.attrs.bulge);
    if (v.attrs.start_width !== undefined) v.attrs.start_width = n(v.attrs.start_width) * ws;
    if (v.attrs.end_width !== undefined) v.attrs.end_width = n(v.attrs.end_width) * ws;
    if (v.attrs.tangent !== undefined) v.attrs.tangent = toDeg(mapOcsAngle(pm, m, n(v.attrs.tangent) * DEG));
  }
  const z = mapOcsPoint(pm, m, [0, 0, elev])[2];
  a.elevation = [0, 0, clean(z)];
  if (a.default_start_width !== undefined) a.default_start_width = n(a.default_start_width) * ws;
  if (a.default_end_width !== undefined) a.default_end_width = n(a.default_end_width) * ws;
  setExtrusion(e, pm);
  scaleThickness(e, pm);
}

function transformText(e: Entity, m: Matrix44): void {
  const a = e.attrs;
  const pm = planeMap(a.extrusion, m);
  const rot = n(a.rotation) * DEG;
  const obl = n(a.oblique) * DEG;
  const flags = n(a.text_generation_flag);
  // baseline (x) and up (y, including oblique) directions in WCS
  const sx = flags & 2 ? -1 : 1;
  const sy = flags & 4 ? -1 : 1;
  const xd = m.transformDirection(ocsToWcs(pm.oldOcs, [Math.cos(rot) * sx, Math.sin(rot) * sx, 0]));
  const yd = m.transformDirection(ocsToWcs(pm.oldOcs, [-Math.sin(rot) * sy, Math.cos(rot) * sy, 0]));
  const ins = vec3(a.insert);
  a.insert = mapOcsPoint(pm, m, ins);
  if (Array.isArray(a.align_point)) a.align_point = mapOcsPoint(pm, m, vec3(a.align_point));
  const xs = len(xd);
  // height factor: the up vector's component perpendicular to the new baseline
  const xu = xs > 0 ? mul(xd, 1 / xs) : ([1, 0, 0] as Vec3);
  const yPerp = sub(yd, mul(xu, dot(yd, xu)));
  const hs = len(yPerp);
  if (a.height !== undefined || hs !== 1) a.height = n(entityAttr(e, 'height'), 2.5) * hs;
  if (hs > 0 && Math.abs(xs / hs - 1) > 1e-12) a.width = n(entityAttr(e, 'width'), 1) * (xs / hs);
  // oblique: the sheared up vector (up + tan(oblique) * baseline) through m, against the new baseline
  const up = mul(yPerp, hs > 0 ? 1 / hs : 1);
  const newObl = Math.atan((dot(yd, xu) + Math.tan(obl) * xs) / (hs || 1));
  if (a.oblique !== undefined || Math.abs(newObl) > 1e-12) a.oblique = clean(newObl / DEG);
  // orientation: keep the upside-down flag, derive the baseline angle from the up vector and set
  // the backward flag when the baseline then runs the other way (a mirror)
  const upOcs = wcsToOcs(pm.newOcs, up);
  const dirx = sy * upOcs[1];
  const diry = -sy * upOcs[0];
  const baseAngle = Math.atan2(diry, dirx);
  const xuOcs = wcsToOcs(pm.newOcs, xu);
  const backward = dirx * xuOcs[0] + diry * xuOcs[1] < 0;
  const nf = (flags & ~2) | (backward ? 2 : 0);
  if (a.text_generation_flag !== undefined || nf !== 0) a.text_generation_flag = nf;
  const newRot = toDeg(baseAngle);
  if (a.rotation !== undefined || newRot !== 0) a.rotation = newRot;
  setExtrusion(e, pm);
  scaleThickness(e, pm);
}

function transformMText(e: Entity, m: Matrix44): void {
  const a = e.attrs;
  const pm = planeMap(a.extrusion, m);
  let xdir: Vec3;
  const hasDir = Array.isArray(a.text_direction);
  if (hasDir) xdir = vec3(a.text_direction);
  else {
    const r = n(a.rotation) * DEG;
    xdir = ocsToWcs(pm.oldOcs, [Math.cos(r), Math.sin(r), 0]);
  }
  const ydir = cross(pm.oldOcs.uz, normalize(xdir));
  const xd = m.transformDirection(normalize(xdir));
  const yd = m.transformDirection(ydir);
  a.insert = cleanV(m.transformPoint(vec3(a.insert)));
  const xs = len(xd);
  const hs = len(sub(yd, mul(normalize(xd), dot(yd, normalize(xd)))));
  a.char_height = n(entityAttr(e, 'char_height'), 2.5) * hs;
  for (const k of ['width', 'rect_width']) if (a[k] !== undefined) a[k] = n(a[k]) * xs;
  for (const k of ['rect_height', 'defined_height']) if (a[k] !== undefined) a[k] = n(a[k]) * hs;
  // MTEXT cannot be mirrored: it stays readable, its direction follows the baseline
  if (hasDir) a.text_direction = cleanV(normalize(xd));
  else a.rotation = toDeg(ocsAngle(pm.newOcs, xd));
  setExtrusion(e, pm);
}

function transformInsert(e: Entity, m: Matrix44, doc?: DocumentApi): void {
  const a = e.attrs;
  const pm = planeMap(a.extrusion, m);
  const rot = n(a.rotation) * DEG;
  const sx = n(entityAttr(e, 'xscale'), 1);
  const sy = n(entityAttr(e, 'yscale'), 1);
  const sz = n(entityAttr(e, 'zscale'), 1);
  const dx = ocsToWcs(pm.oldOcs, [Math.cos(rot), Math.sin(rot), 0]);
  const dy = ocsToWcs(pm.oldOcs, [-Math.sin(rot), Math.cos(rot), 0]);
  const ux = m.transformDirection(mul(dx, sx));
  const uy = m.transformDirection(mul(dy, sy));
  const uz = m.transformDirection(mul(pm.oldOcs.uz, sz));
  const ocs = pm.newOcs;
  let nx = len(ux);
  let ang = ocsAngle(ocs, ux);
  const nyv = len(uy);
  const mirrored = dot(cross(ux, uy), ocs.uz) < 0;
  if (mirrored) {
    nx = -nx;
    ang += Math.PI;
  }
  a.insert = mapOcsPoint(pm, m, vec3(a.insert));
  const ny = nyv;
  const nz = len(uz) * Math.sign(dot(uz, ocs.uz) || 1);
  const fix = (v: number) => (Math.abs(v - Math.round(v)) < 1e-12 ? Math.round(v) : v);
  if (a.xscale !== undefined || Math.abs(nx - 1) > 1e-12) a.xscale = fix(nx);
  if (a.yscale !== undefined || Math.abs(ny - 1) > 1e-12) a.yscale = fix(ny);
  if (a.zscale !== undefined || Math.abs(nz - 1) > 1e-12) a.zscale = fix(nz);
  const r = toDeg(ang);
  if (a.rotation !== undefined || r !== 0) a.rotation = r;
  // MINSERT spacing runs along the rotated, unscaled axes
  if (a.column_spacing !== undefined) a.column_spacing = n(a.column_spacing) * len(m.transformDirection(dx));
  if (a.row_spacing !== undefined) a.row_spacing = n(a.row_spacing) * len(m.transformDirection(dy));
  setExtrusion(e, pm);
  for (const att of e.children ?? []) if (att.type === 'ATTRIB') transformText(att, m);
  void doc;
}

function mapVec2(pm: PlaneMap, m: Matrix44, p: readonly number[], elev: number): Vec2 {
  const q = mapOcsPoint(pm, m, [p[0]!, p[1]!, elev]);
  return [q[0], q[1]];
}

function mapDir2(pm: PlaneMap, m: Matrix44, d: readonly number[]): Vec2 {
  const q = wcsToOcs(pm.newOcs, m.transformDirection(ocsToWcs(pm.oldOcs, [d[0]!, d[1]!, 0])));
  return [clean(q[0]), clean(q[1])];
}

function transformHatchEdge(pm: PlaneMap, m: Matrix44, e: HatchEdge, elev: number): HatchEdge[] {
  switch (e.type) {
    case 'line':
      return [{ type: 'line', start: mapVec2(pm, m, e.start, elev), end: mapVec2(pm, m, e.end, elev) }];
    case 'arc': {
      const [a0, a1] = e.ccw ? [e.start_angle, e.end_angle] : [360 - e.end_angle, 360 - e.start_angle];
      const full = Math.abs(e.end_angle - e.start_angle) >= 360 - 1e-9;
      if (!pm.uniform) {
        // becomes an elliptical edge
        const c = ocsToWcs(pm.oldOcs, [e.center[0], e.center[1], elev]);
        const el = ellipseAttrs(m.transformPoint(c), mul(pm.ux, e.radius), mul(pm.uy, e.radius), full ? 0 : a0 * DEG, full ? TAU : ccwSweep(a0 * DEG, a1 * DEG), pm.newOcs.uz);
        const cc = wcsToOcs(pm.newOcs, el.center as Vec3);
        const maj = wcsToOcs(pm.newOcs, el.major_axis as Vec3);
        const ratio = el.ratio as number;
        const sa = ellipseParamToAngle(ratio, el.start_param as number) / DEG;
        const ea = ellipseParamToAngle(ratio, el.end_param as number) / DEG;
        const fixA = (x: number) => ((x % 360) + 360) % 360;
        const ccw = e.ccw !== pm.mirrored;
        const [s2, e2] = full ? [0, 360] : [fixA(sa), fixA(ea) <= fixA(sa) ? fixA(ea) + 360 : fixA(ea)];
        return [{
          type: 'ellipse', center: [cc[0], cc[1]], major_axis: [maj[0], maj[1]], ratio,
          start_angle: ccw ? s2 : 360 - e2, end_angle: ccw ? e2 : 360 - s2, ccw,
        }];
      }
      const c = mapVec2(pm, m, e.center, elev);
      const r = e.radius * len(pm.ux);
      let s = toDeg(mapOcsAngle(pm, m, a0 * DEG));
      let en = toDeg(mapOcsAngle(pm, m, a1 * DEG));
      if (full) {
        s = 0;
        en = 360;
      } else if (pm.mirrored) [s, en] = [en, s];
      if (!full && en <= s) en += 360;
      const ccw = e.ccw !== pm.mirrored;
      // stored form: clockwise edges keep complementary angles
      return [{ type: 'arc', center: c, radius: r, start_angle: ccw ? s : 360 - en, end_angle: ccw ? en : 360 - s, ccw }];
    }
    case 'ellipse': {
      const [a0, a1] = e.ccw ? [e.start_angle, e.end_angle] : [360 - e.end_angle, 360 - e.start_angle];
      const full = Math.abs(e.end_angle - e.start_angle) >= 360 - 1e-9;
      const major: Vec3 = [e.major_axis[0], e.major_axis[1], 0];
      const minor = mul(cross([0, 0, 1], major), e.ratio);
      const t0 = ellipseAngleToParam(e.ratio, a0 * DEG);
      const t1 = ellipseAngleToParam(e.ratio, a1 * DEG);
      const c = m.transformPoint(ocsToWcs(pm.oldOcs, [e.center[0], e.center[1], elev]));
      const el = ellipseAttrs(
        c, m.transformDirection(ocsToWcs(pm.oldOcs, major)), m.transformDirection(ocsToWcs(pm.oldOcs, minor)),
        full ? 0 : t0, full ? TAU : ccwSweep(t0, t1), pm.newOcs.uz,
      );
      const cc = wcsToOcs(pm.newOcs, el.center as Vec3);
      const maj = wcsToOcs(pm.newOcs, el.major_axis as Vec3);
      const ratio = el.ratio as number;
      const fixA = (x: number) => ((x % 360) + 360) % 360;
      const sa = fixA(ellipseParamToAngle(ratio, el.start_param as number) / DEG);
      let ea = fixA(ellipseParamToAngle(ratio, el.end_param as number) / DEG);
      if (ea <= sa) ea += 360;
      const ccw = e.ccw !== pm.mirrored;
      const [s2, e2] = full ? [0, 360] : [sa, ea];
      return [{
        type: 'ellipse', center: [clean(cc[0]), clean(cc[1])], major_axis: [clean(maj[0]), clean(maj[1])], ratio,
        start_angle: ccw ? s2 : 360 - e2, end_angle: ccw ? e2 : 360 - s2, ccw,
      }];
    }
    case 'spline':
      return [{
        ...e,
        control_points: e.control_points.map((p) => mapVec2(pm, m, p, elev)),
        fit_points: e.fit_points.map((p) => mapVec2(pm, m, p, elev)),
        ...(e.start_tangent ? { start_tangent: mapDir2(pm, m, e.start_tangent) } : {}),
        ...(e.end_tangent ? { end_tangent: mapDir2(pm, m, e.end_tangent) } : {}),
      }];
  }
}

function transformHatch(e: Entity, m: Matrix44): void {
  const a = e.attrs;
  const pm = planeMap(a.extrusion, m);
  const elev = vec3(a.elevation)[2];
  const paths = (a.paths as HatchPath[] | undefined) ?? [];
  a.paths = paths.map((p): HatchPath => {
    if (p.type === 'polyline') {
      let verts = p.vertices.map((v) => [v[0], v[1], v[2] ?? 0]);
      if (!pm.uniform && verts.some((v) => v[2] !== 0)) verts = flattenBulges(verts, true, 1e-3);
      const mv = mapBulgeVertices(pm, m, verts, elev);
      return { ...p, vertices: mv.verts.map((v) => [v[0]!, v[1]!, v[2]!] as [number, number, number]) };
    }
    return { ...p, edges: p.edges.flatMap((edge) => transformHatchEdge(pm, m, edge, elev)) };
  });
  const z = mapOcsPoint(pm, m, [0, 0, elev])[2];
  a.elevation = [0, 0, z];
  if (Array.isArray(a.seed_points)) a.seed_points = (a.seed_points as Vec2[]).map((s) => mapVec2(pm, m, s, elev));
  // pattern: rotate by the baseline's rotation, scale uniformly
  const rot = mapOcsAngle(pm, m, 0);
  const s = pm.uniform ? len(pm.ux) : pm.scale;
  if (Number(a.solid_fill ?? 1) === 0 || a.pattern_lines) {
    if (a.pattern_angle !== undefined || rot !== 0) a.pattern_angle = toDeg(n(a.pattern_angle) * DEG + rot);
    if (a.pattern_scale !== undefined || s !== 1) a.pattern_scale = n(entityAttr(e, 'pattern_scale'), 1) * s;
    const lines = a.pattern_lines as HatchPatternLine[] | undefined;
    if (lines) {
      const c = Math.cos(rot);
      const si = Math.sin(rot);
      const R = (v: Vec2): Vec2 => [clean((v[0] * c - v[1] * si) * s), clean((v[0] * si + v[1] * c) * s)];
      a.pattern_lines = lines.map((l) => ({
        angle: toDeg(l.angle * DEG + rot), base_point: R(l.base_point), offset: R(l.offset),
        dash_length_items: l.dash_length_items.map((d) => d * s),
      }));
    }
  }
  setExtrusion(e, pm);
  delete a.raw_tags; // regenerate the subclass from the transformed attributes
}

function transformOcsVertices(e: Entity, m: Matrix44, names: string[]): void {
  const a = e.attrs;
  const pm = planeMap(a.extrusion, m);
  for (const k of names) if (Array.isArray(a[k])) a[k] = mapOcsPoint(pm, m, vec3(a[k]));
  setExtrusion(e, pm);
  scaleThickness(e, pm);
}

function transformWcs(e: Entity, m: Matrix44, points: string[], dirs: string[] = []): void {
  const a = e.attrs;
  for (const k of points) if (Array.isArray(a[k])) a[k] = cleanV(m.transformPoint(vec3(a[k])));
  for (const k of dirs) if (Array.isArray(a[k])) a[k] = cleanV(m.transformDirection(vec3(a[k])));
}

/**
 * Applies m to an entity in place (children included). Returns a replacement entity when the type
 * changes (CIRCLE/ARC -> ELLIPSE under non-uniform scaling); the caller swaps it in (same handle).
 */
export function transformEntity(e: Entity, m: Matrix44, doc?: DocumentApi): Entity | void {
  const a = e.attrs;
  switch (e.type) {
    case 'LINE':
      transformWcs(e, m, ['start', 'end']);
      if (a.extrusion !== undefined || a.thickness !== undefined) {
        const ext = m.transformDirection(vec3(a.extrusion, [0, 0, 1]));
        if (a.thickness !== undefined) a.thickness = n(a.thickness) * len(ext);
        if (a.extrusion !== undefined) a.extrusion = cleanV(normalize(ext));
      }
      return;
    case 'POINT': {
      transformWcs(e, m, ['location']);
      if (a.extrusion !== undefined) a.extrusion = cleanV(normalize(m.transformDirection(vec3(a.extrusion))));
      return;
    }
    case 'CIRCLE':
    case 'ARC':
      return transformCircleArc(e, m);
    case 'ELLIPSE':
      transformEllipse(e, m);
      return;
    case 'LWPOLYLINE':
      transformLwpolyline(e, m);
      return;
    case 'POLYLINE':
      transformPolyline(e, m);
      return;
    case 'VERTEX':
      transformWcs(e, m, ['location']);
      return;
    case 'SPLINE': {
      const cps = a.control_points as number[][] | undefined;
      if (cps) a.control_points = cps.map((p) => cleanV(m.transformPoint(p)));
      const fps = a.fit_points as number[][] | undefined;
      if (fps) a.fit_points = fps.map((p) => cleanV(m.transformPoint(p)));
      transformWcs(e, m, [], ['start_tangent', 'end_tangent']);
      if (a.extrusion !== undefined) a.extrusion = cleanV(normalize(m.transformDirection(vec3(a.extrusion))));
      return;
    }
    case 'TEXT':
    case 'ATTRIB':
    case 'ATTDEF':
      transformText(e, m);
      return;
    case 'MTEXT':
      transformMText(e, m);
      return;
    case 'INSERT':
      transformInsert(e, m, doc);
      return;
    case 'HATCH':
      transformHatch(e, m);
      return;
    case 'SOLID':
    case 'TRACE':
      transformOcsVertices(e, m, ['vtx0', 'vtx1', 'vtx2', 'vtx3']);
      return;
    case '3DFACE':
      transformWcs(e, m, ['vtx0', 'vtx1', 'vtx2', 'vtx3']);
      return;
    case 'DIMENSION': {
      transformWcs(e, m, ['defpoint', 'defpoint2', 'defpoint3', 'defpoint4', 'defpoint5']);
      const pm = planeMap(a.extrusion, m);
      for (const k of ['text_midpoint', 'insert']) if (Array.isArray(a[k])) a[k] = mapOcsPoint(pm, m, vec3(a[k]));
      const r = mapOcsAngle(pm, m, 0);
      for (const k of ['text_rotation', 'angle', 'horizontal_direction']) {
        if (a[k] !== undefined && (k !== 'text_rotation' || n(a[k]) !== 0)) a[k] = toDeg(n(a[k]) * DEG + r);
      }
      if (a.leader_length !== undefined) a.leader_length = n(a.leader_length) * pm.scale;
      setExtrusion(e, pm);
      return;
    }
    case 'LEADER': {
      const vs = a.vertices as number[][] | undefined;
      if (vs) a.vertices = vs.map((p) => cleanV(m.transformPoint(p)));
      transformWcs(e, m, [], ['normal_vector', 'horizontal_direction', 'leader_offset_block_ref', 'leader_offset_annotation_placement']);
      if (Array.isArray(a.normal_vector)) a.normal_vector = cleanV(normalize(vec3(a.normal_vector)));
      if (Array.isArray(a.horizontal_direction)) a.horizontal_direction = cleanV(normalize(vec3(a.horizontal_direction)));
      return;
    }
    case 'IMAGE':
      transformWcs(e, m, ['insert'], ['u_pixel', 'v_pixel']);
      return;
    case 'VIEWPORT': {
      const c0 = vec3(a.center);
      const corner = m.transformDirection([n(a.width, 1), n(a.height, 1), 0]);
      a.center = cleanV(m.transformPoint(c0));
      a.width = Math.abs(corner[0]);
      a.height = Math.abs(corner[1]);
      return;
    }
    case 'RAY':
    case 'XLINE':
      transformWcs(e, m, ['start']);
      a.unit_vector = cleanV(normalize(m.transformDirection(vec3(a.unit_vector, [1, 0, 0]))));
      return;
    default:
      return;
  }
}

/** Transforms a list in place, swapping in replacements; returns the list. */
export function transformEntities(list: Entity[], m: Matrix44, doc?: DocumentApi): Entity[] {
  for (let i = 0; i < list.length; i++) {
    const r = transformEntity(list[i]!, m, doc);
    if (r) list[i] = r;
  }
  return list;
}

export function moveEntity(e: Entity, d: readonly number[], doc?: DocumentApi): Entity | void {
  return transformEntity(e, Matrix44.translate(d[0]!, d[1]!, d[2] ?? 0), doc);
}

/** Rotation about the Z axis through `base`, angle in degrees (counter-clockwise). */
export function rotateEntity(e: Entity, base: readonly number[], angleDeg: number, doc?: DocumentApi): Entity | void {
  return transformEntity(e, Matrix44.rotateZAround(base, angleDeg * DEG), doc);
}

/** Uniform scaling about `base`. */
export function scaleEntity(e: Entity, base: readonly number[], factor: number, doc?: DocumentApi): Entity | void {
  return transformEntity(e, Matrix44.scaleAround(base, factor), doc);
}

/** Mirror about the line p1-p2 in the XY plane. */
export function mirrorEntity(e: Entity, p1: readonly number[], p2: readonly number[], doc?: DocumentApi): Entity | void {
  return transformEntity(e, Matrix44.mirror(p1, p2), doc);
}

export type { Ocs };
