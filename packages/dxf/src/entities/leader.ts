// LEADER: AcDbLeader (ezdxf entities/leader.py). `vertices: Vec3[]` (76 count, 10 repeated, WCS)
// are written between `text_width` and `block_color`, as AutoCAD does.
import { registerDef } from '../defs/registry.js';
import type { AttrDef, DxfRecord, RecordDef, TagSink, TagSource, Vec3 } from '../types.js';
import { readPointFrom, sequentialCodec } from './codec-util.js';

export const LEADER_ATTRS: AttrDef[] = [
  { name: 'dimstyle', code: 3, kind: 'str', default: 'Standard', required: true },
  { name: 'has_arrowhead', code: 71, kind: 'int', default: 1 },
  { name: 'path_type', code: 72, kind: 'int', default: 0 },
  { name: 'annotation_type', code: 73, kind: 'int', default: 3, required: true },
  { name: 'hookline_direction', code: 74, kind: 'int', default: 1 },
  { name: 'has_hookline', code: 75, kind: 'int', default: 1 },
  { name: 'text_height', code: 40, kind: 'float', default: 1 },
  { name: 'text_width', code: 41, kind: 'float', default: 1 },
  { name: 'block_color', code: 77, kind: 'int', default: 7 },
  { name: 'annotation_handle', code: 340, kind: 'handle', default: '0' },
  { name: 'normal_vector', code: 210, kind: 'vec3', default: [0, 0, 1] },
  { name: 'horizontal_direction', code: 211, kind: 'vec3', default: [1, 0, 0] },
  { name: 'leader_offset_block_ref', code: 212, kind: 'vec3', default: [0, 0, 0] },
  { name: 'leader_offset_annotation_placement', code: 213, kind: 'vec3', default: [0, 0, 0] },
];

function readVertices(tags: TagSource, i: number, rec: DxfRecord): number {
  const code = tags.code(i);
  if (code === 76) return i + 1; // count, derived on write
  if (code !== 10) return -1;
  const list = ((rec.attrs.vertices as Vec3[] | undefined) ?? []);
  rec.attrs.vertices = list;
  const [p, j] = readPointFrom(tags, i, 10, 3);
  list.push(p as Vec3);
  return j;
}

function writeVertices(rec: DxfRecord, out: TagSink): void {
  const list = (rec.attrs.vertices as Vec3[] | undefined) ?? [];
  out.tag(76, list.length);
  for (const p of list) out.point(10, [p[0], p[1], p[2] ?? 0]);
}

export const LEADER_CODEC = sequentialCodec({
  attrs: LEADER_ATTRS,
  hooks: [readVertices],
  order: [
    'dimstyle', 'has_arrowhead', 'path_type', 'annotation_type', 'hookline_direction', 'has_hookline', 'text_height',
    'text_width', writeVertices, 'block_color', 'annotation_handle', 'normal_vector', 'horizontal_direction',
    'leader_offset_block_ref', 'leader_offset_annotation_placement',
  ],
});

export const LEADER: RecordDef = registerDef({
  type: 'LEADER',
  minVersion: 'AC1012',
  subclasses: [{ marker: 'AcDbLeader', attrs: LEADER_ATTRS, codec: LEADER_CODEC }],
});
