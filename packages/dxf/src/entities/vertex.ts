// VERTEX (ezdxf entities/polyline.py): `100 AcDbVertex` followed by one data subclass chosen by
// `flags` (AcDb2dVertex, AcDb3dPolylineVertex, AcDbPolyFaceMeshVertex, AcDbPolygonMeshVertex) or,
// for polyface face records, AcDbFaceRecord. All data subclasses declare the same attributes.
import { registerDef } from '../defs/registry.js';
import type { AttrDef, RecordDef, SubclassDef } from '../types.js';

export const VERTEX_ATTRS: AttrDef[] = [
  { name: 'location', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
  { name: 'start_width', code: 40, kind: 'float', default: 0 },
  { name: 'end_width', code: 41, kind: 'float', default: 0 },
  { name: 'bulge', code: 42, kind: 'float', default: 0 },
  { name: 'flags', code: 70, kind: 'int', default: 0, required: true },
  { name: 'tangent', code: 50, kind: 'float' },
  { name: 'vtx0', code: 71, kind: 'int' },
  { name: 'vtx1', code: 72, kind: 'int' },
  { name: 'vtx2', code: 73, kind: 'int' },
  { name: 'vtx3', code: 74, kind: 'int' },
  { name: 'vertex_identifier', code: 91, kind: 'int', minVersion: 'AC1024' },
];

export const VERTEX_DATA_MARKERS = [
  'AcDb2dVertex', 'AcDb3dPolylineVertex', 'AcDbPolyFaceMeshVertex', 'AcDbPolygonMeshVertex', 'AcDbFaceRecord',
] as const;

export const VERTEX: RecordDef = registerDef({
  type: 'VERTEX',
  subclasses: [
    { marker: 'AcDbVertex', attrs: [] },
    ...VERTEX_DATA_MARKERS.map((marker): SubclassDef => ({ marker, attrs: VERTEX_ATTRS })),
  ],
});

/** VERTEX flags (code 70). */
export const VERTEX_FLAGS = {
  EXTRA_VERTEX: 1, CURVE_FIT_TANGENT: 2, SPLINE_VERTEX: 8, SPLINE_FRAME_CONTROL_POINT: 16,
  POLYLINE_3D: 32, POLYGON_MESH: 64, POLYFACE_MESH_VERTEX: 128,
} as const;

// shared lists: a drawing of old-style polylines asks for these once per vertex
const FACE_RECORD: readonly string[] = ['AcDbFaceRecord'];
const VERTEX_3D: readonly string[] = ['AcDbVertex', 'AcDb3dPolylineVertex'];
const VERTEX_POLYFACE: readonly string[] = ['AcDbVertex', 'AcDbPolyFaceMeshVertex'];
const VERTEX_MESH: readonly string[] = ['AcDbVertex', 'AcDbPolygonMeshVertex'];
const VERTEX_2D: readonly string[] = ['AcDbVertex', 'AcDb2dVertex'];

/** The subclass markers a VERTEX with these flags is written with. */
export function vertexMarkers(flags: number): readonly string[] {
  const f = flags & (VERTEX_FLAGS.POLYGON_MESH | VERTEX_FLAGS.POLYFACE_MESH_VERTEX);
  if (f === VERTEX_FLAGS.POLYFACE_MESH_VERTEX) return FACE_RECORD;
  if (flags & VERTEX_FLAGS.POLYLINE_3D) return VERTEX_3D;
  if (f === (VERTEX_FLAGS.POLYGON_MESH | VERTEX_FLAGS.POLYFACE_MESH_VERTEX)) return VERTEX_POLYFACE;
  if (f === VERTEX_FLAGS.POLYGON_MESH) return VERTEX_MESH;
  return VERTEX_2D;
}
