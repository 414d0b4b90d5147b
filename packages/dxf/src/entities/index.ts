// The typed entity declarations (one file per type, each registering itself) and helpers over them
// for the engine: attribute defaults, the declared attribute list of a type, the subclass markers
// a new record is written with.
import { getDef } from '../defs/registry.js';
import type { AttrDef, DxfRecord, RecordDef } from '../types.js';
import { ENTITY_COMMON } from './common.js';
import { LINE } from './line.js';
import { CIRCLE } from './circle.js';
import { ARC } from './arc.js';
import { ELLIPSE } from './ellipse.js';
import { POINT } from './point.js';
import { TEXT } from './text.js';
import { MTEXT } from './mtext.js';
import { LWPOLYLINE } from './lwpolyline.js';
import { POLYLINE, POLYLINE_MARKERS, polylineMarker } from './polyline.js';
import { VERTEX, vertexMarkers } from './vertex.js';
import { SEQEND } from './seqend.js';
import { SPLINE } from './spline.js';
import { INSERT } from './insert.js';
import { ATTRIB } from './attrib.js';
import { ATTDEF } from './attdef.js';
import { HATCH } from './hatch.js';
import { SOLID } from './solid.js';
import { TRACE } from './trace.js';
import { FACE3D } from './face3d.js';
import { DIMENSION, dimensionMarkers } from './dimension.js';
import { LEADER } from './leader.js';
import { IMAGE } from './image.js';
import { VIEWPORT } from './viewport.js';
import { RAY } from './ray.js';
import { XLINE } from './xline.js';

export { ENTITY_COMMON } from './common.js';
export type { LwPoint } from './lwpolyline.js';
export type { HatchEdge, HatchPath, HatchPatternLine, HatchGradient } from './hatch.js';
export { POLYLINE_FLAGS } from './polyline.js';
export { VERTEX_FLAGS } from './vertex.js';
export { SPLINE_FLAGS } from './spline.js';
export { splitMTextChunks } from './mtext.js';

/** Every typed entity declaration, by DXF type. */
export const ENTITY_DEFS: Record<string, RecordDef> = {
  LINE, CIRCLE, ARC, ELLIPSE, POINT, TEXT, MTEXT, LWPOLYLINE, POLYLINE, VERTEX, SEQEND, SPLINE, INSERT, ATTRIB, ATTDEF,
  HATCH, SOLID, TRACE, '3DFACE': FACE3D, DIMENSION, LEADER, IMAGE, VIEWPORT, RAY, XLINE,
};

/**
 * Attributes kept by codecs as structured JSON (not `AttrDef`s), by type, for `fields`/`where`.
 * Counts of repeated groups are derived from these on write.
 */
export const STRUCTURED_ATTRS: Record<string, string[]> = {
  LWPOLYLINE: ['points', 'vertex_ids', 'vertex_tags', 'vertex_z'],
  SPLINE: ['knots', 'weights', 'control_points', 'fit_points'],
  HATCH: ['paths', 'pattern_lines', 'seed_points', 'gradient', 'raw_tags'],
  LEADER: ['vertices'],
  IMAGE: ['boundary_path'],
  VIEWPORT: ['frozen_layer_handles', 'frozen_layer_code'],
};

const attrCache = new Map<string, Map<string, AttrDef>>();

function attrTable(type: string): Map<string, AttrDef> {
  let m = attrCache.get(type);
  if (m) return m;
  m = new Map();
  const def = getDef(type);
  // a type's own attributes first, then AcDbEntity's (names never repeat across them: one value per name)
  for (const sc of def?.subclasses ?? []) for (const a of sc.attrs) if (!m.has(a.name)) m.set(a.name, a);
  for (const a of ENTITY_COMMON.attrs) if (!m.has(a.name)) m.set(a.name, a);
  attrCache.set(type, m);
  return m;
}

/**
 * The declared attributes of a type (AcDbEntity's included, each name once, subclass order), for
 * the engine's `where` and `fields`. Unknown types give the AcDbEntity attributes only.
 */
export function declaredAttrs(type: string): AttrDef[] {
  return [...attrTable(type).values()];
}

/** The value of an attribute: present in the record, else the declared default, else undefined. */
export function entityAttr(rec: DxfRecord, name: string): unknown {
  const v = rec.attrs[name];
  if (v !== undefined) return v;
  return attrTable(rec.type).get(name)?.default;
}

/**
 * The subclass markers (after AcDbEntity) a record of this type is written with when it has no
 * `markers` of its own (a record created by the engine): chooses among alternatives by flags or
 * dimtype (POLYLINE, VERTEX, INSERT/MINSERT, DIMENSION); TEXT has AcDbText twice.
 */
export function subclassMarkersFor(rec: DxfRecord): readonly string[] {
  const flags = Number(rec.attrs.flags ?? 0);
  switch (rec.type) {
    case 'POLYLINE':
      return POLYLINE_MARKER_LISTS[polylineMarker(flags)]!;
    case 'VERTEX':
      return vertexMarkers(flags);
    case 'INSERT':
      return Number(rec.attrs.column_count ?? 1) > 1 || Number(rec.attrs.row_count ?? 1) > 1 ? MINSERT_MARKERS : INSERT_MARKERS;
    case 'DIMENSION':
      return dimensionMarkers(Number(rec.attrs.dimtype ?? 0));
    default:
      return declaredMarkers(getDef(rec.type));
  }
}

// The lists above are shared, not made per call: the writer asks once per record it writes.
const POLYLINE_MARKER_LISTS: Record<string, readonly string[]> = Object.fromEntries(POLYLINE_MARKERS.map((m) => [m, [m]]));
const INSERT_MARKERS: readonly string[] = ['AcDbBlockReference'];
const MINSERT_MARKERS: readonly string[] = ['AcDbMInsertBlock'];
const NO_MARKERS: readonly string[] = [];
const declaredLists = new WeakMap<RecordDef, readonly string[]>();

function declaredMarkers(def: RecordDef | undefined): readonly string[] {
  if (!def) return NO_MARKERS;
  let list = declaredLists.get(def);
  if (!list) declaredLists.set(def, (list = def.subclasses.map((s) => s.marker)));
  return list;
}

const entityLists = new Map<string, (readonly string[])[]>();

/** `['AcDbEntity', ...subclassMarkersFor(rec)]`, one shared array per distinct list. */
export function entityMarkersFor(rec: DxfRecord): readonly string[] {
  const chosen = subclassMarkersFor(rec);
  let variants = entityLists.get(rec.type);
  if (!variants) entityLists.set(rec.type, (variants = []));
  outer: for (const v of variants) {
    if (v.length !== chosen.length + 1) continue;
    for (let i = 0; i < chosen.length; i++) if (v[i + 1] !== chosen[i]) continue outer;
    return v;
  }
  const full = ['AcDbEntity', ...chosen];
  variants.push(full);
  return full;
}
