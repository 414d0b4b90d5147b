// Entities R12 has no type for but can draw, as AutoCAD's SAVEAS R12 keeps them: their geometry
// in an anonymous block (`*U`, flags 1) inserted in their place with the entity's layer, colour
// and linetype (the block's own entities are on layer 0, BYBLOCK, so they take the INSERT's).
// What the geometry is comes from a drawer the caller gives (the engine's renderer draws HATCH
// patterns and fills, WIPEOUT, MLINE, MULTILEADER ... exactly as it plots them); a few need no
// drawer: IMAGE becomes its frame, RAY and XLINE LINEs clipped to the drawing's extents, MESH a
// polyface POLYLINE.
import type { DocumentApi } from '../document-api.js';
import { entityGeometry, type Primitive } from '../geometry/primitives.js';
import type { BBox } from '../geometry/bbox.js';
import type { Entity, Tag } from '../types.js';

/** What an entity draws, flat (x, y) in the coordinates it is defined in (WCS, or its block's). */
export interface R12Drawn {
  /** Polylines; `width` a constant width, `color` an ACI colour (absent: the entity's own). */
  lines: { pts: number[]; closed: boolean; width?: number; color?: number }[];
  /** Filled triangles and quadrilaterals, corners in SOLID order (1, 2, 3, 4; a triangle repeats 3). */
  solids: { pts: number[]; color?: number }[];
  /** Single-line texts at their insertion point; rotation in degrees, align 0 left, 1 centre, 2 right. */
  texts: { text: string; x: number; y: number; height: number; rotation: number; widthFactor: number; oblique: number; align: 0 | 1 | 2; color?: number }[];
}

/** Draws an entity for R12 (null: nothing it can draw). The engine gives its renderer's. */
export type R12Drawer = (e: Entity, doc: DocumentApi) => R12Drawn | null;

/** Makes an anonymous block of `entities` and answers its name. */
export type AnonymousBlocks = (entities: Entity[]) => string;

function entity(type: string, attrs: Record<string, unknown>): Entity {
  return { kind: 'entity', type, handle: '', owner: '', attrs };
}

/** Block content: layer 0, BYBLOCK colour (unless its own) and linetype. */
function inner(type: string, attrs: Record<string, unknown>, color?: number): Entity {
  return entity(type, { layer: '0', color: color ?? 0, linetype: 'BYBLOCK', ...attrs });
}

/**
 * LINEs, or a POLYLINE when it has a width. (R12 readers differ on POLYLINEs in blocks: ezdxf
 * 0.18's auditor "fixes" the SEQEND of every one, even in R12 files ezdxf wrote itself.)
 */
function linesOrPolyline(pts: number[], closed: boolean, width = 0, color?: number, z = 0): Entity[] {
  if (!width) {
    const out: Entity[] = [];
    const n = pts.length / 2;
    for (let i = 0; i + 1 < (closed && n > 2 ? n + 1 : n); i++) {
      const a = i * 2;
      const b = ((i + 1) % n) * 2;
      out.push(inner('LINE', { start: [pts[a]!, pts[a + 1]!, z], end: [pts[b]!, pts[b + 1]!, z] }, color));
    }
    return out;
  }
  const pl = inner('POLYLINE', { vertices_follow: 1, elevation: [0, 0, z], flags: closed ? 1 : 0 }, color);
  if (width) {
    pl.attrs.default_start_width = width;
    pl.attrs.default_end_width = width;
  }
  pl.children = [];
  for (let i = 0; i + 1 < pts.length; i += 2) pl.children.push(entity('VERTEX', { layer: '0', location: [pts[i]!, pts[i + 1]!, z], flags: 0 }));
  pl.seqend = entity('SEQEND', { layer: '0' });
  return [pl];
}

/** The R12 entities of a drawing. */
export function drawnEntities(d: R12Drawn): Entity[] {
  const out: Entity[] = [];
  for (const s of d.solids) {
    const p = s.pts;
    const v = (i: number): number[] => [p[i * 2]!, p[i * 2 + 1]!, 0];
    const four = p.length >= 8 ? v(3) : v(2);
    out.push(inner('SOLID', { vtx0: v(0), vtx1: v(1), vtx2: v(2), vtx3: four }, s.color));
  }
  for (const l of d.lines) if (l.pts.length >= 4) out.push(...linesOrPolyline(l.pts, l.closed, l.width, l.color));
  for (const t of d.texts) {
    if (!t.text.trim() || !(t.height > 0)) continue;
    const attrs: Record<string, unknown> = { insert: [t.x, t.y, 0], height: t.height, text: t.text };
    if (t.rotation) attrs.rotation = t.rotation;
    if (t.widthFactor && t.widthFactor !== 1) attrs.width = t.widthFactor;
    if (t.oblique) attrs.oblique = t.oblique;
    if (t.align) {
      attrs.halign = t.align;
      attrs.align_point = [t.x, t.y, 0];
    }
    out.push(inner('TEXT', attrs, t.color));
  }
  return out;
}

/** An INSERT of a new anonymous block holding `content`, with the AcDbEntity attributes `common`. */
export function insertOf(common: Record<string, unknown>, content: Entity[], blocks: AnonymousBlocks): Entity {
  return entity('INSERT', { ...common, name: blocks(content), insert: [0, 0, 0] });
}

/** IMAGE: its frame (or clip boundary) as LINEs. */
export function imageFrame(e: Entity): Entity[] {
  const g = entityGeometry(e);
  const out: Entity[] = [];
  for (const p of g.prims) {
    if (p.k !== 'poly') continue;
    const n = p.pts.length;
    for (let i = 0; i < n; i++) {
      const a = p.pts[i]!;
      const b = p.pts[(i + 1) % n]!;
      out.push(inner('LINE', { start: [...a], end: [...b] }));
    }
  }
  return out;
}

/** RAY / XLINE: the part inside `box` (XY), as a LINE; null when the line misses it. */
export function clippedInfinite(e: Entity, box: BBox): Entity | null {
  const g = entityGeometry(e).prims[0] as Extract<Primitive, { k: 'ray' }> | undefined;
  if (!g || g.k !== 'ray') return null;
  let t0 = g.both ? -Infinity : 0;
  let t1 = Infinity;
  for (let k = 0; k < 2; k++) {
    const o = g.a[k]!;
    const d = g.d[k]!;
    const lo = box.min[k]!;
    const hi = box.max[k]!;
    if (Math.abs(d) < 1e-15) {
      if (o < lo || o > hi) return null;
      continue;
    }
    let a = (lo - o) / d;
    let b = (hi - o) / d;
    if (a > b) [a, b] = [b, a];
    t0 = Math.max(t0, a);
    t1 = Math.min(t1, b);
  }
  if (!(t1 > t0) || !Number.isFinite(t0) || !Number.isFinite(t1)) return null;
  const at = (t: number): number[] => [g.a[0]! + g.d[0]! * t, g.a[1]! + g.d[1]! * t, g.a[2]! + g.d[2]! * t];
  return entity('LINE', { start: at(t0), end: at(t1) });
}

/** MESH (stored as tags): its vertices and faces as a polyface POLYLINE (faces of more than four corners as fans). */
export function meshPolyface(e: Entity): Entity | null {
  const tags: Tag[] = Object.values(e.extra ?? {}).flat();
  const verts: number[][] = [];
  const faces: number[][] = [];
  let i = tags.findIndex((t) => t[0] === 92);
  if (i < 0) return null;
  const nv = Number(tags[i]![1]);
  i++;
  while (verts.length < nv && i < tags.length) {
    if (tags[i]![0] === 10) verts.push([Number(tags[i]![1]), Number(tags[i + 1]?.[1]) || 0, Number(tags[i + 2]?.[1]) || 0]);
    i++;
  }
  const f = tags.findIndex((t, k) => k >= i && t[0] === 93);
  if (f < 0) return null;
  const size = Number(tags[f]![1]);
  const list: number[] = [];
  for (let k = f + 1; k < tags.length && list.length < size; k++) if (tags[k]![0] === 90) list.push(Number(tags[k]![1]));
  for (let k = 0; k < list.length;) {
    const n = list[k]!;
    const face = list.slice(k + 1, k + 1 + n);
    k += n + 1;
    if (face.length < 3 || face.some((v) => !(v >= 0 && v < verts.length))) continue;
    if (face.length <= 4) faces.push(face.map((v) => v + 1));
    // a fan: the inner edges invisible (negative index), as AutoCAD splits such faces
    else for (let j = 1; j + 1 < face.length; j++) faces.push([face[0]! + 1, face[j]! + 1, face[j + 1]! + 1].map((v, m) => ((m === 0 && j > 1) || (m === 2 && j + 2 < face.length) ? -v : v)));
  }
  if (!verts.length || !faces.length) return null;
  const pl = entity('POLYLINE', { vertices_follow: 1, elevation: [0, 0, 0], flags: 64, m_count: verts.length, n_count: faces.length });
  pl.children = [
    ...verts.map((p) => entity('VERTEX', { location: p, flags: 128 | 64 })),
    ...faces.map((fc) => {
      const a: Record<string, unknown> = { location: [0, 0, 0], flags: 128 };
      fc.forEach((v, m) => (a[`vtx${m}`] = v));
      return entity('VERTEX', a);
    }),
  ];
  pl.seqend = entity('SEQEND', {});
  return pl;
}
