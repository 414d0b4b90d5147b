// VIEWPORT: AcDbViewport (ezdxf entities/viewport.py), R2000+ layout. `frozen_layer_handles`
// (341 repeated; the DXF reference allows 331, which ezdxf writes: then `frozen_layer_code` is 331)
// is written between `circle_zoom` and `flags`, as AutoCAD does. R12 viewports carry their view
// data in ACAD xdata, which stays in `xdata`.
import { registerDef } from '../defs/registry.js';
import type { AttrDef, DxfRecord, RecordDef, SubclassCodec, TagSink, TagSource } from '../types.js';
import { mapHandleList } from '../codec/handles.js';
import { sequentialCodec } from './codec-util.js';

const R2007 = 'AC1021' as const;

export const VIEWPORT_ATTRS: AttrDef[] = [
  { name: 'center', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
  { name: 'width', code: 40, kind: 'float', default: 1, required: true },
  { name: 'height', code: 41, kind: 'float', default: 1, required: true },
  { name: 'status', code: 68, kind: 'int', default: 0, required: true },
  { name: 'id', code: 69, kind: 'int', default: 2, required: true },
  { name: 'view_center_point', code: 12, kind: 'point2', default: [0, 0] },
  { name: 'snap_base_point', code: 13, kind: 'point2', default: [0, 0] },
  { name: 'snap_spacing', code: 14, kind: 'point2', default: [10, 10] },
  { name: 'grid_spacing', code: 15, kind: 'point2', default: [10, 10] },
  { name: 'view_direction_vector', code: 16, kind: 'vec3', default: [0, 0, 1] },
  { name: 'view_target_point', code: 17, kind: 'point3', default: [0, 0, 0] },
  { name: 'perspective_lens_length', code: 42, kind: 'float', default: 50 },
  { name: 'front_clip_plane_z_value', code: 43, kind: 'float', default: 0 },
  { name: 'back_clip_plane_z_value', code: 44, kind: 'float', default: 0 },
  { name: 'view_height', code: 45, kind: 'float', default: 1 },
  { name: 'snap_angle', code: 50, kind: 'float', default: 0 },
  { name: 'view_twist_angle', code: 51, kind: 'float', default: 0 },
  { name: 'circle_zoom', code: 72, kind: 'int', default: 100 },
  { name: 'flags', code: 90, kind: 'int', default: 0 },
  { name: 'clipping_boundary_handle', code: 340, kind: 'handle', default: '0' },
  { name: 'plot_style_name', code: 1, kind: 'str', default: '' },
  { name: 'render_mode', code: 281, kind: 'int', default: 0 },
  { name: 'ucs_per_viewport', code: 71, kind: 'int', default: 0 },
  { name: 'ucs_icon', code: 74, kind: 'int', default: 0 },
  { name: 'ucs_origin', code: 110, kind: 'point3', default: [0, 0, 0] },
  { name: 'ucs_x_axis', code: 111, kind: 'vec3', default: [1, 0, 0] },
  { name: 'ucs_y_axis', code: 112, kind: 'vec3', default: [0, 1, 0] },
  { name: 'ucs_handle', code: 345, kind: 'handle' },
  { name: 'ucs_base_handle', code: 346, kind: 'handle' },
  { name: 'ucs_ortho_type', code: 79, kind: 'int', default: 0 },
  { name: 'elevation', code: 146, kind: 'float', default: 0 },
  { name: 'shade_plot_mode', code: 170, kind: 'int', minVersion: 'AC1018' },
  { name: 'grid_frequency', code: 61, kind: 'int', minVersion: R2007 },
  { name: 'background_handle', code: 332, kind: 'handle', minVersion: R2007 },
  { name: 'shade_plot_handle', code: 333, kind: 'handle', minVersion: R2007 },
  { name: 'visual_style_handle', code: 348, kind: 'handle', minVersion: R2007 },
  { name: 'default_lighting_flag', code: 292, kind: 'int', default: 1, minVersion: R2007 },
  { name: 'default_lighting_type', code: 282, kind: 'int', default: 0, minVersion: R2007 },
  { name: 'view_brightness', code: 141, kind: 'float', minVersion: R2007 },
  { name: 'view_contrast', code: 142, kind: 'float', minVersion: R2007 },
  { name: 'ambient_light_color_1', code: 63, kind: 'int', minVersion: R2007 },
  { name: 'ambient_light_color_2', code: 421, kind: 'int', minVersion: R2007 },
  { name: 'ambient_light_color_3', code: 431, kind: 'str', minVersion: R2007 },
  { name: 'sun_handle', code: 361, kind: 'handle', minVersion: R2007 },
  { name: 'ref_vp_object_1', code: 335, kind: 'handle', minVersion: R2007 },
  { name: 'ref_vp_object_2', code: 343, kind: 'handle', minVersion: R2007 },
  { name: 'ref_vp_object_3', code: 344, kind: 'handle', minVersion: R2007 },
  { name: 'ref_vp_object_4', code: 91, kind: 'int', minVersion: R2007 },
];

function readFrozen(tags: TagSource, i: number, rec: DxfRecord): number {
  const code = tags.code(i);
  if (code !== 341 && code !== 331) return -1;
  let list = rec.attrs.frozen_layer_handles as string[] | undefined;
  if (!list) {
    rec.attrs.frozen_layer_handles = list = [];
    if (code === 331) rec.attrs.frozen_layer_code = 331;
  } else if ((rec.attrs.frozen_layer_code ?? 341) !== code) return -1; // a mix: the rest stays as read
  list.push(tags.str(i).trim().toUpperCase());
  return i + 1;
}

function writeFrozen(rec: DxfRecord, out: TagSink): void {
  const code = rec.attrs.frozen_layer_code === 331 ? 331 : 341;
  for (const h of (rec.attrs.frozen_layer_handles as string[] | undefined) ?? []) out.tag(code, h);
}

const names = VIEWPORT_ATTRS.map((a) => a.name);
const split = names.indexOf('circle_zoom') + 1;

export const VIEWPORT_CODEC: SubclassCodec = {
  ...sequentialCodec({
    attrs: VIEWPORT_ATTRS,
    hooks: [readFrozen],
    order: [...names.slice(0, split), writeFrozen, ...names.slice(split)],
  }),
  mapHandles: (rec, map) => mapHandleList(rec.attrs.frozen_layer_handles, map),
};

export const VIEWPORT: RecordDef = registerDef({
  type: 'VIEWPORT',
  subclasses: [{ marker: 'AcDbViewport', attrs: VIEWPORT_ATTRS, codec: VIEWPORT_CODEC }],
});
