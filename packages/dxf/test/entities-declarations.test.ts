import { describe, expect, it } from 'vitest';
import { getDef } from '../src/defs/registry.js';
import { ENTITY_COMMON, ENTITY_DEFS, STRUCTURED_ATTRS, declaredAttrs, entityAttr, subclassMarkersFor } from '../src/entities/index.js';
import type { Entity } from '../src/types.js';

const TYPES = [
  'LINE', 'CIRCLE', 'ARC', 'ELLIPSE', 'POINT', 'TEXT', 'MTEXT', 'LWPOLYLINE', 'POLYLINE', 'VERTEX', 'SEQEND', 'SPLINE', 'INSERT',
  'ATTRIB', 'ATTDEF', 'HATCH', 'SOLID', 'TRACE', '3DFACE', 'DIMENSION', 'LEADER', 'IMAGE', 'VIEWPORT', 'RAY', 'XLINE',
];

// ezdxf 0.18 dxfattribs per type (handle/owner and AcDbEntity excluded), from its DefSubclass tables.
// One rename: ezdxf's 3DFACE `invisible` (code 70) is `invisible_edges`, as AcDbEntity's code 60 is
// `invisible` and a record holds one value per name.
const EZDXF: Record<string, string> = {
  LINE: 'start end thickness extrusion',
  CIRCLE: 'center radius elevation thickness extrusion',
  ARC: 'center radius elevation thickness extrusion start_angle end_angle',
  ELLIPSE: 'center major_axis extrusion ratio start_param end_param',
  POINT: 'location thickness extrusion angle',
  TEXT: 'insert height text rotation oblique style width text_generation_flag halign align_point elevation thickness extrusion valign',
  MTEXT: 'text insert char_height width defined_height attachment_point flow_direction style extrusion text_direction rect_width rect_height rotation line_spacing_style line_spacing_factor box_fill_scale bg_fill bg_fill_color bg_fill_true_color bg_fill_color_name bg_fill_transparency',
  LWPOLYLINE: 'count elevation thickness flags const_width extrusion',
  POLYLINE: 'elevation flags default_start_width default_end_width m_count n_count m_smooth_density n_smooth_density smooth_type thickness extrusion',
  VERTEX: 'location start_width end_width bulge flags tangent vtx0 vtx1 vtx2 vtx3 vertex_identifier',
  SPLINE: 'flags degree n_knots n_control_points n_fit_points knot_tolerance control_point_tolerance fit_tolerance start_tangent end_tangent extrusion',
  INSERT: 'attribs_follow name insert elevation xscale yscale zscale rotation column_count row_count column_spacing row_spacing extrusion',
  ATTRIB: 'insert height text rotation oblique style width text_generation_flag halign align_point elevation thickness extrusion version tag flags field_length valign lock_position attribute_type',
  ATTDEF: 'insert height text rotation oblique style width text_generation_flag halign align_point elevation thickness extrusion version tag flags field_length valign lock_position attribute_type prompt',
  HATCH: 'elevation extrusion pattern_name solid_fill associative hatch_style pattern_type pattern_angle pattern_scale pattern_double pixel_size',
  SOLID: 'vtx0 vtx1 vtx2 vtx3 elevation thickness extrusion',
  TRACE: 'vtx0 vtx1 vtx2 vtx3 elevation thickness extrusion',
  '3DFACE': 'vtx0 vtx1 vtx2 vtx3 invisible_edges',
  DIMENSION: 'version geometry dimstyle defpoint text_midpoint insert dimtype attachment_point line_spacing_style line_spacing_factor actual_measurement unknown1 flip_arrow_1 flip_arrow_2 text oblique_angle text_rotation horizontal_direction extrusion defpoint2 defpoint3 angle defpoint4 leader_length defpoint5',
  LEADER: 'dimstyle has_arrowhead path_type annotation_type hookline_direction has_hookline text_height text_width block_color annotation_handle normal_vector horizontal_direction leader_offset_block_ref leader_offset_annotation_placement',
  IMAGE: 'class_version insert u_pixel v_pixel image_size image_def_handle flags clipping brightness contrast fade image_def_reactor_handle clipping_boundary_type count_boundary_points clip_mode',
  VIEWPORT: 'center width height status id view_center_point snap_base_point snap_spacing grid_spacing view_direction_vector view_target_point perspective_lens_length front_clip_plane_z_value back_clip_plane_z_value view_height snap_angle view_twist_angle circle_zoom flags clipping_boundary_handle plot_style_name render_mode ucs_per_viewport ucs_icon ucs_origin ucs_x_axis ucs_y_axis ucs_handle ucs_base_handle ucs_ortho_type elevation shade_plot_mode grid_frequency background_handle shade_plot_handle visual_style_handle default_lighting_flag default_lighting_type view_brightness view_contrast ambient_light_color_1 ambient_light_color_2 ambient_light_color_3 sun_handle ref_vp_object_1 ref_vp_object_2 ref_vp_object_3 ref_vp_object_4',
  RAY: 'start unit_vector',
  XLINE: 'start unit_vector',
};

describe('entity declarations', () => {
  it('declares every required type once, registered', () => {
    for (const t of TYPES) {
      expect(getDef(t), t).toBeDefined();
      expect(ENTITY_DEFS[t]).toBe(getDef(t));
    }
    expect(Object.keys(ENTITY_DEFS).sort()).toEqual([...TYPES].sort());
  });

  it('has unique codes per plain subclass and consistent names per type', () => {
    for (const t of TYPES) {
      const def = getDef(t)!;
      // AcDbEntity's names are taken too: one of a type's own with another tag would share its value
      const byName = new Map<string, string>(ENTITY_COMMON.attrs.map((a) => [a.name, `${a.code}/${a.kind}`]));
      for (const sc of def.subclasses) {
        if (!sc.codec) {
          const codes = sc.attrs.map((a) => a.code);
          expect(new Set(codes).size, `${t}/${sc.marker} codes`).toBe(codes.length);
        }
        const names = sc.attrs.map((a) => a.name);
        expect(new Set(names).size, `${t}/${sc.marker} names`).toBe(names.length);
        for (const a of sc.attrs) {
          // a name shared by alternative subclasses must mean the same tag
          const sig = `${a.code}/${a.kind}`;
          if (byName.has(a.name)) expect(byName.get(a.name), `${t}.${a.name}`).toBe(sig);
          byName.set(a.name, sig);
        }
      }
    }
  });

  it('covers every ezdxf attribute (declared or structured)', () => {
    for (const [t, list] of Object.entries(EZDXF)) {
      const declared = new Set([...declaredAttrs(t).map((a) => a.name), ...(STRUCTURED_ATTRS[t] ?? [])]);
      for (const name of list.split(' ')) expect(declared.has(name), `${t}.${name}`).toBe(true);
    }
  });

  it('uses point kinds for points and vec3 for directions', () => {
    const kind = (t: string, n: string) => declaredAttrs(t).find((a) => a.name === n)?.kind;
    expect(kind('LINE', 'start')).toBe('point3');
    expect(kind('LINE', 'extrusion')).toBe('vec3');
    expect(kind('ELLIPSE', 'major_axis')).toBe('vec3');
    expect(kind('IMAGE', 'u_pixel')).toBe('vec3');
    expect(kind('IMAGE', 'image_size')).toBe('point2');
    expect(kind('VIEWPORT', 'view_center_point')).toBe('point2');
    expect(kind('TEXT', 'text')).toBe('str');
    expect(kind('MTEXT', 'text')).toBe('str');
  });

  it('entityAttr returns present values, then declared defaults (AcDbEntity included)', () => {
    const e: Entity = { kind: 'entity', type: 'CIRCLE', handle: '1', owner: '', attrs: { radius: 5 } };
    expect(entityAttr(e, 'radius')).toBe(5);
    expect(entityAttr(e, 'extrusion')).toEqual([0, 0, 1]);
    expect(entityAttr(e, 'layer')).toBe('0');
    expect(entityAttr(e, 'color')).toBe(256);
    expect(entityAttr(e, 'nope')).toBeUndefined();
    expect(declaredAttrs('LINE').map((a) => a.name)).toContain('layer');
  });

  it('chooses subclass markers for new records', () => {
    const r = (type: string, attrs: Record<string, unknown>) => ({ type, handle: '', owner: '', attrs });
    expect(subclassMarkersFor(r('POLYLINE', { flags: 8 }))).toEqual(['AcDb3dPolyline']);
    expect(subclassMarkersFor(r('POLYLINE', { flags: 64 }))).toEqual(['AcDbPolyFaceMesh']);
    expect(subclassMarkersFor(r('POLYLINE', {}))).toEqual(['AcDb2dPolyline']);
    expect(subclassMarkersFor(r('VERTEX', { flags: 32 }))).toEqual(['AcDbVertex', 'AcDb3dPolylineVertex']);
    expect(subclassMarkersFor(r('VERTEX', { flags: 128 }))).toEqual(['AcDbFaceRecord']);
    expect(subclassMarkersFor(r('VERTEX', { flags: 192 }))).toEqual(['AcDbVertex', 'AcDbPolyFaceMeshVertex']);
    expect(subclassMarkersFor(r('INSERT', { column_count: 3 }))).toEqual(['AcDbMInsertBlock']);
    expect(subclassMarkersFor(r('INSERT', {}))).toEqual(['AcDbBlockReference']);
    expect(subclassMarkersFor(r('DIMENSION', { dimtype: 32 }))).toEqual(['AcDbDimension', 'AcDbAlignedDimension', 'AcDbRotatedDimension']);
    expect(subclassMarkersFor(r('DIMENSION', { dimtype: 4 }))).toEqual(['AcDbDimension', 'AcDbRadialDimension']);
    expect(subclassMarkersFor(r('TEXT', {}))).toEqual(['AcDbText', 'AcDbText']);
    expect(subclassMarkersFor(r('ARC', {}))).toEqual(['AcDbCircle', 'AcDbArc']);
  });
});
