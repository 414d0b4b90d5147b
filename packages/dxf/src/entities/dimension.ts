// DIMENSION (ezdxf entities/dimension.py): AcDbDimension followed by the subclass(es) of its
// `dimtype` (low 3 bits: 0 rotated = AcDbAlignedDimension + AcDbRotatedDimension, 1 aligned,
// 2 2-line angular, 3 diametric, 4 radial, 5 3-point angular, 6 ordinate). All are declared so they
// are read and kept; which ones a record has is in `markers` (see `dimensionMarkers`). The
// definition points share their names across subclasses (defpoint2..5, angle, leader_length).
// Points are WCS except `text_midpoint` and `insert`, which are OCS.
import { registerDef } from '../defs/registry.js';
import type { AttrDef, RecordDef } from '../types.js';

export const ACDB_DIMENSION_ATTRS: AttrDef[] = [
  { name: 'version', code: 280, kind: 'int', default: 0, minVersion: 'AC1024' },
  { name: 'geometry', code: 2, kind: 'str', default: '' },
  { name: 'dimstyle', code: 3, kind: 'str', default: 'Standard', required: true },
  { name: 'defpoint', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
  { name: 'text_midpoint', code: 11, kind: 'point3', default: [0, 0, 0], required: true },
  { name: 'insert', code: 12, kind: 'point3' },
  { name: 'dimtype', code: 70, kind: 'int', default: 0, required: true },
  { name: 'attachment_point', code: 71, kind: 'int', default: 5, minVersion: 'AC1015' },
  { name: 'line_spacing_style', code: 72, kind: 'int', default: 1, minVersion: 'AC1015' },
  { name: 'line_spacing_factor', code: 41, kind: 'float', minVersion: 'AC1015' },
  { name: 'actual_measurement', code: 42, kind: 'float', minVersion: 'AC1015' },
  { name: 'unknown1', code: 73, kind: 'int', minVersion: 'AC1015' },
  { name: 'flip_arrow_1', code: 74, kind: 'int', minVersion: 'AC1015' },
  { name: 'flip_arrow_2', code: 75, kind: 'int', minVersion: 'AC1015' },
  { name: 'text', code: 1, kind: 'str', default: '' },
  { name: 'oblique_angle', code: 52, kind: 'float', default: 0 },
  { name: 'text_rotation', code: 53, kind: 'float', default: 0 },
  { name: 'horizontal_direction', code: 51, kind: 'float', default: 0 },
  { name: 'extrusion', code: 210, kind: 'vec3', default: [0, 0, 1] },
];

const defpoint2: AttrDef = { name: 'defpoint2', code: 13, kind: 'point3', default: [0, 0, 0] };
const defpoint3: AttrDef = { name: 'defpoint3', code: 14, kind: 'point3', default: [0, 0, 0] };
const defpoint4: AttrDef = { name: 'defpoint4', code: 15, kind: 'point3', default: [0, 0, 0] };
const defpoint5: AttrDef = { name: 'defpoint5', code: 16, kind: 'point3', default: [0, 0, 0] };
const angle: AttrDef = { name: 'angle', code: 50, kind: 'float', default: 0 };
const leaderLength: AttrDef = { name: 'leader_length', code: 40, kind: 'float' };

/** Subclass markers after AcDbDimension by dimtype & 7. */
export const DIMENSION_SUBCLASS_MARKERS: Record<number, string[]> = {
  0: ['AcDbAlignedDimension', 'AcDbRotatedDimension'],
  1: ['AcDbAlignedDimension'],
  2: ['AcDb2LineAngularDimension'],
  3: ['AcDbDiametricDimension'],
  4: ['AcDbRadialDimension'],
  5: ['AcDb3PointAngularDimension'],
  6: ['AcDbOrdinateDimension'],
};

export const DIMENSION: RecordDef = registerDef({
  type: 'DIMENSION',
  subclasses: [
    { marker: 'AcDbDimension', attrs: ACDB_DIMENSION_ATTRS },
    { marker: 'AcDbAlignedDimension', attrs: [defpoint2, defpoint3, angle] },
    { marker: 'AcDbRotatedDimension', attrs: [] },
    { marker: 'AcDb2LineAngularDimension', attrs: [defpoint2, defpoint3, defpoint4, defpoint5] },
    { marker: 'AcDb3PointAngularDimension', attrs: [defpoint2, defpoint3, defpoint4, defpoint5] },
    { marker: 'AcDbDiametricDimension', attrs: [defpoint4, leaderLength] },
    { marker: 'AcDbRadialDimension', attrs: [defpoint4, leaderLength] },
    { marker: 'AcDbOrdinateDimension', attrs: [defpoint2, defpoint3] },
  ],
});

export function dimensionMarkers(dimtype: number): string[] {
  return ['AcDbDimension', ...(DIMENSION_SUBCLASS_MARKERS[dimtype & 7] ?? [])];
}
