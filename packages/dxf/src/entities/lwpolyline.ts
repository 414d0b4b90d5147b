// LWPOLYLINE: AcDbPolyline (ezdxf entities/lwpolyline.py). Vertices are in OCS:
// `points: [x, y, start_width, end_width, bulge][]`. The vertex count (90) is derived from
// `points` on write. Per vertex, 40/41 are written when a width is non-zero and 42 when the bulge
// is; a file that wrote them otherwise (e.g. explicit zero widths) keeps its layout in
// `vertex_tags` (bit mask per vertex: 1 = 40/41, 2 = 42), and vertex ids (91) in `vertex_ids`.
// Some writers (dxflib) give each vertex a z (30), which DXF does not define for LWPOLYLINE: it is
// kept in `vertex_z` and written back after its vertex. The vertices are trusted, not code 90.
import { registerDef } from '../defs/registry.js';
import type { AttrDef, DxfRecord, RecordDef, TagSink, TagSource } from '../types.js';
import { numAt, sequentialCodec } from './codec-util.js';

export type LwPoint = [x: number, y: number, start_width: number, end_width: number, bulge: number];

export const LWPOLYLINE_ATTRS: AttrDef[] = [
  { name: 'count', code: 90, kind: 'int' },
  { name: 'flags', code: 70, kind: 'int', default: 0, required: true },
  { name: 'const_width', code: 43, kind: 'float', default: 0 },
  { name: 'elevation', code: 38, kind: 'float', default: 0 },
  { name: 'thickness', code: 39, kind: 'float', default: 0 },
  { name: 'extrusion', code: 210, kind: 'vec3', default: [0, 0, 1] },
];

/** The 40/41 and 42 tags the writer gives a vertex by itself (see `vertex_tags`). */
function expectedMask(p: LwPoint): number {
  return (p[2] !== 0 || p[3] !== 0 ? 1 : 0) | (p[4] !== 0 ? 2 : 0);
}

const scratch: LwPoint[] = [];

function readVertices(tags: TagSource, i: number, rec: DxfRecord, state: Record<string, unknown>): number {
  const code = tags.code(i);
  if (code === 90) {
    // the count is derived from the vertices
    state.count = numAt(tags, i);
    return i + 1;
  }
  if (code !== 10 || state.verticesDone) return -1;
  // vertices are collected in a list used over and over, then copied to one of their number:
  // a list grown by push keeps room for 17 of them, which a million polylines keep for good
  const points = scratch;
  let count = 0;
  // layouts and ids are rare: their lists are made when the first vertex needs them
  let layout: number[] | undefined;
  let ids: number[] | undefined;
  let zs: number[] | undefined;
  const n = tags.length;
  let j = i;
  while (j < n && tags.code(j) === 10) {
    const x = numAt(tags, j);
    j++;
    let y = 0;
    if (j < n && tags.code(j) === 20) y = numAt(tags, j++);
    if (j < n && tags.code(j) === 30) {
      zs ??= points.slice(0, count).map(() => 0);
      zs.push(numAt(tags, j++));
    } else zs?.push(0);
    let sw = 0;
    let ew = 0;
    let b = 0;
    let mask = 0;
    let id = 0;
    let hasId = false;
    for (; j < n; j++) {
      const c = tags.code(j);
      if (c === 91) {
        id = numAt(tags, j);
        hasId = true;
      } else if (c === 40) {
        sw = numAt(tags, j);
        mask |= 1;
      } else if (c === 41) {
        ew = numAt(tags, j);
        mask |= 1;
      } else if (c === 42) {
        b = numAt(tags, j);
        mask |= 2;
      } else break;
    }
    const p: LwPoint = [x, y, sw, ew, b];
    if (!layout && mask !== expectedMask(p)) layout = points.slice(0, count).map(expectedMask);
    if (!ids && hasId) ids = points.slice(0, count).map(() => 0);
    points[count++] = p;
    layout?.push(mask);
    ids?.push(id);
  }
  rec.attrs.points = points.slice(0, count);
  // (the list keeps no long polyline's vertices alive; a short one's few are left to be overwritten)
  if (count > 64) points.length = 0;
  if (layout) rec.attrs.vertex_tags = layout;
  if (ids) rec.attrs.vertex_ids = ids;
  if (zs) rec.attrs.vertex_z = zs;
  state.verticesDone = true;
  return j;
}

function writeCount(rec: DxfRecord, out: TagSink): void {
  const pts = (rec.attrs.points as LwPoint[] | undefined) ?? [];
  out.tag(90, pts.length);
}

function writeVertices(rec: DxfRecord, out: TagSink): void {
  const pts = (rec.attrs.points as LwPoint[] | undefined) ?? [];
  let layout = rec.attrs.vertex_tags as number[] | undefined;
  if (layout && layout.length !== pts.length) layout = undefined;
  let ids = rec.attrs.vertex_ids as number[] | undefined;
  if (ids && ids.length !== pts.length) ids = undefined;
  let zs = rec.attrs.vertex_z as number[] | undefined;
  if (zs && zs.length !== pts.length) zs = undefined;
  for (let k = 0; k < pts.length; k++) {
    const p = pts[k]!;
    out.point(10, [p[0], p[1]]);
    if (zs) out.tag(30, zs[k]!);
    if (ids) out.tag(91, ids[k]!);
    const sw = p[2] ?? 0;
    const ew = p[3] ?? 0;
    const b = p[4] ?? 0;
    const mask = layout ? layout[k]! : (sw !== 0 || ew !== 0 ? 1 : 0) | (b !== 0 ? 2 : 0);
    if (mask & 1) {
      out.tag(40, sw);
      out.tag(41, ew);
    }
    if (mask & 2) out.tag(42, b);
  }
}

export const LWPOLYLINE_CODEC = sequentialCodec({
  attrs: LWPOLYLINE_ATTRS,
  hooks: [readVertices],
  order: [writeCount, 'flags', 'const_width', 'elevation', 'thickness', writeVertices, 'extrusion'],
});

export const LWPOLYLINE: RecordDef = registerDef({
  type: 'LWPOLYLINE',
  minVersion: 'AC1014',
  subclasses: [{ marker: 'AcDbPolyline', attrs: LWPOLYLINE_ATTRS, codec: LWPOLYLINE_CODEC }],
});
