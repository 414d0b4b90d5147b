// SPLINE: AcDbSpline (ezdxf entities/spline.py). Control and fit points in WCS. Counts (72, 73,
// 74) are derived from the lists on write. `weights` is empty for non-rational splines.
import { registerDef } from '../defs/registry.js';
import type { AttrDef, DxfRecord, RecordDef, TagSink, TagSource, Vec3 } from '../types.js';
import { numAt, readPointFrom, sequentialCodec } from './codec-util.js';

export const SPLINE_ATTRS: AttrDef[] = [
  { name: 'extrusion', code: 210, kind: 'vec3', default: [0, 0, 1] },
  { name: 'flags', code: 70, kind: 'int', default: 0, required: true },
  { name: 'degree', code: 71, kind: 'int', default: 3, required: true },
  { name: 'n_knots', code: 72, kind: 'int' },
  { name: 'n_control_points', code: 73, kind: 'int' },
  { name: 'n_fit_points', code: 74, kind: 'int' },
  { name: 'knot_tolerance', code: 42, kind: 'float', default: 1e-10 },
  { name: 'control_point_tolerance', code: 43, kind: 'float', default: 1e-10 },
  { name: 'fit_tolerance', code: 44, kind: 'float', default: 1e-10 },
  { name: 'start_tangent', code: 12, kind: 'vec3' },
  { name: 'end_tangent', code: 13, kind: 'vec3' },
];

/** SPLINE flags (code 70). */
export const SPLINE_FLAGS = { CLOSED: 1, PERIODIC: 2, RATIONAL: 4, PLANAR: 8, LINEAR: 16 } as const;

function readLists(tags: TagSource, i: number, rec: DxfRecord, state: Record<string, unknown>): number {
  const code = tags.code(i);
  if (code === 72 || code === 73 || code === 74) {
    state[code] = numAt(tags, i); // counts are derived from the lists
    return i + 1;
  }
  const key = code === 40 ? 'knots' : code === 41 ? 'weights' : code === 10 ? 'control_points' : code === 11 ? 'fit_points' : '';
  if (!key) return -1;
  const list = ((rec.attrs[key] as unknown[] | undefined) ?? []) as unknown[];
  rec.attrs[key] = list;
  if (code === 40 || code === 41) {
    list.push(numAt(tags, i));
    return i + 1;
  }
  const [p, j] = readPointFrom(tags, i, code, 3);
  list.push(p as Vec3);
  return j;
}

function writeCounts(rec: DxfRecord, out: TagSink): void {
  out.tag(72, ((rec.attrs.knots as number[] | undefined) ?? []).length);
  out.tag(73, ((rec.attrs.control_points as Vec3[] | undefined) ?? []).length);
  out.tag(74, ((rec.attrs.fit_points as Vec3[] | undefined) ?? []).length);
}

function writeLists(rec: DxfRecord, out: TagSink): void {
  for (const k of (rec.attrs.knots as number[] | undefined) ?? []) out.tag(40, k);
  for (const w of (rec.attrs.weights as number[] | undefined) ?? []) out.tag(41, w);
  for (const p of (rec.attrs.control_points as Vec3[] | undefined) ?? []) out.point(10, [p[0], p[1], p[2] ?? 0]);
  for (const p of (rec.attrs.fit_points as Vec3[] | undefined) ?? []) out.point(11, [p[0], p[1], p[2] ?? 0]);
}

export const SPLINE_CODEC = sequentialCodec({
  attrs: SPLINE_ATTRS,
  hooks: [readLists],
  order: [
    'extrusion', 'flags', 'degree', writeCounts, 'knot_tolerance', 'control_point_tolerance', 'fit_tolerance',
    'start_tangent', 'end_tangent', writeLists,
  ],
});

export const SPLINE: RecordDef = registerDef({
  type: 'SPLINE',
  minVersion: 'AC1012',
  subclasses: [{ marker: 'AcDbSpline', attrs: SPLINE_ATTRS, codec: SPLINE_CODEC }],
});
