// POLYLINE (ezdxf entities/polyline.py): 2D/3D polylines, polyface and polygon meshes. One of four
// subclass markers follows AcDbEntity, chosen by `flags` (see `subclassMarkersFor`). The VERTEX
// entities are the record's `children`, closed by `seqend`. `elevation` (10) is a point whose z is
// the elevation of 2D polylines (OCS).
import { registerDef } from '../defs/registry.js';
import type { AttrDef, RecordDef, SubclassDef } from '../types.js';

export const POLYLINE_ATTRS: AttrDef[] = [
  // "vertices follow" flag: always 1, written by AutoCAD and ezdxf
  { name: 'vertices_follow', code: 66, kind: 'int', default: 1, required: true },
  { name: 'elevation', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
  { name: 'flags', code: 70, kind: 'int', default: 0, required: true },
  { name: 'default_start_width', code: 40, kind: 'float', default: 0 },
  { name: 'default_end_width', code: 41, kind: 'float', default: 0 },
  { name: 'm_count', code: 71, kind: 'int', default: 0 },
  { name: 'n_count', code: 72, kind: 'int', default: 0 },
  { name: 'm_smooth_density', code: 73, kind: 'int', default: 0 },
  { name: 'n_smooth_density', code: 74, kind: 'int', default: 0 },
  { name: 'smooth_type', code: 75, kind: 'int', default: 0 },
  { name: 'thickness', code: 39, kind: 'float', default: 0 },
  { name: 'extrusion', code: 210, kind: 'vec3', default: [0, 0, 1] },
];

/** Alternative subclass markers: exactly one of them is present. */
export const POLYLINE_MARKERS = ['AcDb2dPolyline', 'AcDb3dPolyline', 'AcDbPolyFaceMesh', 'AcDbPolygonMesh'] as const;

export const POLYLINE: RecordDef = registerDef({
  type: 'POLYLINE',
  subclasses: POLYLINE_MARKERS.map((marker): SubclassDef => ({ marker, attrs: POLYLINE_ATTRS })),
});

/** POLYLINE flags (code 70). */
export const POLYLINE_FLAGS = {
  CLOSED: 1, CURVE_FIT: 2, SPLINE_FIT: 4, POLYLINE_3D: 8, POLYMESH: 16, MESH_CLOSED_N: 32, POLYFACE: 64, CONTINUOUS_LINETYPE: 128,
} as const;

export function polylineMarker(flags: number): (typeof POLYLINE_MARKERS)[number] {
  if (flags & POLYLINE_FLAGS.POLYLINE_3D) return 'AcDb3dPolyline';
  if (flags & POLYLINE_FLAGS.POLYMESH) return 'AcDbPolygonMesh';
  if (flags & POLYLINE_FLAGS.POLYFACE) return 'AcDbPolyFaceMesh';
  return 'AcDb2dPolyline';
}
