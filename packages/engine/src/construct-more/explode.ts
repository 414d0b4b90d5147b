// EXPLODE: one compound entity into the simple entities it is drawn with, as AutoCAD explodes it.
// INSERT -> its block's entities through the insert's transform (MINSERT: every cell), visible
// attribute values as TEXT; LWPOLYLINE / 2D POLYLINE -> LINEs and ARCs; 3D POLYLINE -> LINEs;
// DIMENSION -> the content of its *D block; MTEXT -> one TEXT per line; HATCH -> its pattern lines
// as LINEs (a solid fill: its boundary as closed LWPOLYLINEs).
import { bulgeToArc, insertMatrices, Matrix44, mtextPlainLines, ocsFromExtrusion, ocsToWcs, transformEntity, type DocumentApi, type Entity } from '../dxf.js';
import { OpError } from '../protocol.js';
import { copyOf } from '../ops/entities.js';
import { entity } from '../entities/create.js';
import { hatchPatternLines, hatchRings, patternSegments } from '../render/hatch.js';
import { headerNumber } from '../model.js';

export const EXPLODABLE = ['INSERT', 'LWPOLYLINE', 'POLYLINE', 'DIMENSION', 'MTEXT', 'HATCH'];

/** Properties that follow the parent where a child says BYBLOCK (or lies on layer 0). */
const KEEP = ['layer', 'color', 'true_color', 'linetype', 'lineweight', 'ltscale', 'invisible'];

/** The new entities (without handles) that replace `e`; throws for types that do not explode. */
export function explodeEntity(e: Entity, doc: DocumentApi): Entity[] {
  switch (e.type) {
    case 'INSERT':
      return expandInsert(e, doc);
    case 'LWPOLYLINE':
    case 'POLYLINE':
      return polylinePieces(e);
    case 'DIMENSION':
      return dimensionPieces(e, doc);
    case 'MTEXT':
      return mtextLines(e);
    case 'HATCH':
      return hatchPieces(e, doc);
  }
  throw new OpError('not_explodable', `${e.type} ${e.handle} cannot be exploded (${EXPLODABLE.join(', ')} can)`, { handle: e.handle, type: e.type });
}

/** The parent's common properties on a child: layer 0 and BYBLOCK values take the parent's. */
function inherit(child: Entity, parent: Entity): Entity {
  const a = child.attrs;
  const p = parent.attrs;
  if (String(a.layer ?? '0') === '0') a.layer = p.layer ?? '0';
  if (a.color === 0) {
    if (p.color !== undefined) a.color = p.color; else delete a.color;
    if (p.true_color !== undefined) a.true_color = p.true_color;
  }
  if (String(a.linetype ?? '').toUpperCase() === 'BYBLOCK') {
    if (p.linetype !== undefined) a.linetype = p.linetype; else delete a.linetype;
  }
  if (a.lineweight === -2) {
    if (p.lineweight !== undefined) a.lineweight = p.lineweight; else delete a.lineweight;
  }
  return child;
}

/** The parent's properties on a new piece (pieces of a polyline, hatch lines, text lines). */
function sameProps(type: string, parent: Entity, attrs: Record<string, unknown>): Entity {
  const a: Record<string, unknown> = {};
  for (const k of KEEP) if (parent.attrs[k] !== undefined) a[k] = parent.attrs[k];
  return entity(type, { ...a, ...attrs });
}

/**
 * The entities of an INSERT's block through each of its matrices. Kept in one function on
 * purpose: the work it does grows with rows x columns x block size, and a work budget belongs here.
 */
export function expandInsert(e: Entity, doc: DocumentApi): Entity[] {
  const name = String(e.attrs.name ?? '');
  const block = doc.getBlock(name);
  if (!block) throw new OpError('unknown_block', `INSERT ${e.handle} references block ${name}, which does not exist`, { handle: e.handle, block: name });
  const out: Entity[] = [];
  for (const m of insertMatrices(e, doc)) {
    for (const child of block.entities) {
      if (child.type === 'ATTDEF') continue;
      const c = copyOf(child);
      const r = transformEntity(c, m, doc);
      out.push(inherit(r ?? c, e));
    }
  }
  for (const att of e.children ?? []) {
    if (att.type !== 'ATTRIB' || Number(att.attrs.flags ?? 0) & 1) continue;
    const t = copyOf(att);
    const keep = ['text', 'insert', 'align_point', 'height', 'rotation', 'width', 'oblique', 'style', 'text_generation_flag', 'halign', 'valign', 'extrusion', 'thickness', ...KEEP];
    const attrs: Record<string, unknown> = {};
    for (const k of keep) if (t.attrs[k] !== undefined) attrs[k] = t.attrs[k];
    out.push(inherit(entity('TEXT', attrs), e));
  }
  return out;
}

function polylinePieces(e: Entity): Entity[] {
  const a = e.attrs;
  const flags = Number(a.flags ?? 0);
  const closed = (flags & 1) !== 0;
  if (e.type === 'POLYLINE' && flags & (16 | 64)) throw new OpError('not_explodable', `POLYLINE ${e.handle} is a mesh; meshes are not exploded`, { handle: e.handle, type: e.type });
  const out: Entity[] = [];
  if (e.type === 'POLYLINE' && flags & 8) {
    const pts = (e.children ?? []).filter((v) => v.type === 'VERTEX').map((v) => v.attrs.location as number[]);
    const n = closed ? pts.length : pts.length - 1;
    for (let i = 0; i < n; i++) out.push(sameProps('LINE', e, { start: [...pts[i]!], end: [...pts[(i + 1) % pts.length]!] }));
    return out;
  }
  const ocs = ocsFromExtrusion(a.extrusion);
  const plain = ocs.uz[2] === 1 && ocs.uz[0] === 0 && ocs.uz[1] === 0;
  const elev = e.type === 'LWPOLYLINE' ? Number(a.elevation ?? 0) : Number((a.elevation as number[] | undefined)?.[2] ?? 0);
  const verts: number[][] = e.type === 'LWPOLYLINE'
    ? ((a.points as number[][] | undefined) ?? []).map((p) => [p[0]!, p[1]!, p[4] ?? 0])
    : (e.children ?? []).filter((v) => v.type === 'VERTEX').map((v) => [(v.attrs.location as number[])[0]!, (v.attrs.location as number[])[1]!, Number(v.attrs.bulge ?? 0)]);
  const n = closed ? verts.length : verts.length - 1;
  for (let i = 0; i < n; i++) {
    const p = verts[i]!, q = verts[(i + 1) % verts.length]!;
    if (p[0] === q[0] && p[1] === q[1]) continue;
    const b = p[2] ?? 0;
    if (b === 0) {
      out.push(sameProps('LINE', e, { start: ocsToWcs(ocs, [p[0]!, p[1]!, elev]), end: ocsToWcs(ocs, [q[0]!, q[1]!, elev]) }));
      continue;
    }
    const arc = bulgeToArc(p, q, b);
    const attrs: Record<string, unknown> = {
      center: [arc.center[0], arc.center[1], elev], radius: arc.radius,
      start_angle: deg(arc.start_angle), end_angle: deg(arc.end_angle),
    };
    if (!plain) attrs.extrusion = [...ocs.uz];
    out.push(sameProps('ARC', e, attrs));
  }
  return out;
}

function deg(r: number): number {
  const d = ((r * 180) / Math.PI) % 360;
  return d < 0 ? d + 360 : d;
}

function dimensionPieces(e: Entity, doc: DocumentApi): Entity[] {
  const name = String(e.attrs.geometry ?? '');
  const block = name ? doc.getBlock(name) : undefined;
  if (!block) throw new OpError('not_explodable', `DIMENSION ${e.handle} has no block with its graphics`, { handle: e.handle, type: e.type });
  const ins = (e.attrs.insert as number[] | undefined) ?? [0, 0, 0];
  const m = Matrix44.translate(ins[0] ?? 0, ins[1] ?? 0, ins[2] ?? 0);
  const out: Entity[] = [];
  for (const child of block.entities) {
    if (child.type === 'POINT' && String(child.attrs.layer ?? '').toUpperCase() === 'DEFPOINTS') continue;
    const c = copyOf(child);
    const r = m.isIdentity() ? undefined : transformEntity(c, m, doc);
    out.push(inherit(r ?? c, e));
  }
  return out;
}

/** MTEXT -> one TEXT per line, left to right as the MTEXT lays them out (wrapping not recomputed). */
function mtextLines(e: Entity): Entity[] {
  const a = e.attrs;
  const ch = Number(a.char_height ?? 2.5);
  const lines = mtextPlainLines(String(a.text ?? ''));
  const lsf = Number(a.line_spacing_factor ?? 1) || 1;
  const step = ch * (5 / 3) * lsf;
  const ap = Math.min(9, Math.max(1, Number(a.attachment_point ?? 1)));
  const col = (ap - 1) % 3, row = Math.floor((ap - 1) / 3);
  const total = ch + (lines.length - 1) * step;
  let rot: number;
  if (Array.isArray(a.text_direction)) {
    const d = a.text_direction as number[];
    rot = Math.atan2(d[1]!, d[0]!);
  } else rot = (Number(a.rotation ?? 0) * Math.PI) / 180;
  const ocs = ocsFromExtrusion(a.extrusion);
  const plain = ocs.uz[2] === 1;
  const ins = (a.insert as number[] | undefined) ?? [0, 0, 0];
  // the first baseline below the top of the block of lines
  const top = row === 0 ? 0 : row === 1 ? total / 2 : total;
  const c = Math.cos(rot), s = Math.sin(rot);
  const out: Entity[] = [];
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    const dy = top - ch - i * step;
    const p = [ins[0]! - s * dy, ins[1]! + c * dy, ins[2] ?? 0];
    const attrs: Record<string, unknown> = {
      text, insert: p, height: ch, rotation: deg(rot), style: a.style ?? 'Standard',
    };
    if (col) {
      attrs.halign = col;
      attrs.align_point = p;
    }
    if (!plain) attrs.extrusion = [...ocs.uz];
    out.push(sameProps('TEXT', e, attrs));
  });
  return out;
}

function hatchPieces(e: Entity, doc: DocumentApi): Entity[] {
  const a = e.attrs;
  const ocs = ocsFromExtrusion(a.extrusion);
  const elev = ((a.elevation as number[] | undefined) ?? [0, 0, 0])[2] ?? 0;
  const rings = hatchRings(a.paths, 1e-6 * hatchSize(a.paths));
  const out: Entity[] = [];
  if (Number(a.solid_fill ?? 0) === 1) {
    for (const r of rings) {
      const pts: number[][] = [];
      for (let i = 0; i + 1 < r.length; i += 2) pts.push([r[i]!, r[i + 1]!, 0, 0, 0]);
      const f = pts[0]!, l = pts[pts.length - 1]!;
      if (pts.length > 1 && f[0] === l[0] && f[1] === l[1]) pts.pop();
      const attrs: Record<string, unknown> = { points: pts, flags: 1, elevation: elev };
      if (ocs.uz[2] !== 1) attrs.extrusion = [...ocs.uz];
      out.push(sameProps('LWPOLYLINE', e, attrs));
    }
    return out;
  }
  const lines = hatchPatternLines(a, headerNumber(doc, 'MEASUREMENT', 1) === 0);
  if (!lines) throw new OpError('not_explodable', `HATCH ${e.handle} has no pattern lines to explode into`, { handle: e.handle, type: e.type });
  const segs = patternSegments(rings, lines, { segments: 200000 });
  if (!segs) throw new OpError('not_explodable', `HATCH ${e.handle}: its pattern is too dense to explode (more than 4000 lines across)`, { handle: e.handle, type: e.type });
  for (let i = 0; i + 3 < segs.length; i += 4) {
    out.push(sameProps('LINE', e, { start: ocsToWcs(ocs, [segs[i]!, segs[i + 1]!, elev]), end: ocsToWcs(ocs, [segs[i + 2]!, segs[i + 3]!, elev]) }));
  }
  return out;
}

function hatchSize(paths: unknown): number {
  let m = 1e-9;
  const walk = (v: unknown): void => {
    if (typeof v === 'number') m = Math.max(m, Math.abs(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(paths);
  return m;
}
