// IMAGE: AcDbRasterImage (ezdxf entities/image.py). `insert` is the lower-left corner, `u_pixel`
// and `v_pixel` the vectors of one pixel along the image's bottom and left edges (WCS).
// `boundary_path: Vec2[]` are the clip boundary vertices (91 count, 14 repeated) in pixel
// coordinates; the count is derived on write.
import { registerDef } from '../defs/registry.js';
import type { AttrDef, DxfRecord, RecordDef, TagSink, TagSource, Vec2 } from '../types.js';
import { readPointFrom, sequentialCodec } from './codec-util.js';

export const IMAGE_ATTRS: AttrDef[] = [
  { name: 'class_version', code: 90, kind: 'int', default: 0, required: true, minVersion: 'AC1015' },
  { name: 'insert', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
  { name: 'u_pixel', code: 11, kind: 'vec3', default: [1, 0, 0], required: true },
  { name: 'v_pixel', code: 12, kind: 'vec3', default: [0, 1, 0], required: true },
  { name: 'image_size', code: 13, kind: 'point2', default: [1, 1], required: true },
  { name: 'image_def_handle', code: 340, kind: 'handle', default: '0', required: true },
  { name: 'flags', code: 70, kind: 'int', default: 3, required: true },
  { name: 'clipping', code: 280, kind: 'int', default: 0, required: true },
  { name: 'brightness', code: 281, kind: 'int', default: 50, required: true },
  { name: 'contrast', code: 282, kind: 'int', default: 50, required: true },
  { name: 'fade', code: 283, kind: 'int', default: 0, required: true },
  { name: 'image_def_reactor_handle', code: 360, kind: 'handle' },
  { name: 'clipping_boundary_type', code: 71, kind: 'int', default: 1, required: true },
  { name: 'count_boundary_points', code: 91, kind: 'int' },
  { name: 'clip_mode', code: 290, kind: 'int', default: 0, minVersion: 'AC1024' },
];

function readBoundary(tags: TagSource, i: number, rec: DxfRecord): number {
  const code = tags.code(i);
  if (code === 91) return i + 1; // derived on write
  if (code !== 14) return -1;
  const list = (rec.attrs.boundary_path as Vec2[] | undefined) ?? [];
  rec.attrs.boundary_path = list;
  const [p, j] = readPointFrom(tags, i, 14, 2);
  list.push(p as Vec2);
  return j;
}

function writeBoundary(rec: DxfRecord, out: TagSink): void {
  const list = (rec.attrs.boundary_path as Vec2[] | undefined) ?? [];
  out.tag(91, list.length);
  for (const p of list) out.point(14, [p[0], p[1]]);
}

export const IMAGE_CODEC = sequentialCodec({
  attrs: IMAGE_ATTRS,
  hooks: [readBoundary],
  order: [
    'class_version', 'insert', 'u_pixel', 'v_pixel', 'image_size', 'image_def_handle', 'flags', 'clipping', 'brightness',
    'contrast', 'fade', 'image_def_reactor_handle', 'clipping_boundary_type', writeBoundary, 'clip_mode',
  ],
});

export const IMAGE: RecordDef = registerDef({
  type: 'IMAGE',
  minVersion: 'AC1014',
  subclasses: [{ marker: 'AcDbRasterImage', attrs: IMAGE_ATTRS, codec: IMAGE_CODEC }],
});
