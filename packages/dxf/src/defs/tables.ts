// Declarations of the symbol table entries. Attributes are declared as a prefix of AutoCAD's own
// order, so the undeclared rest (kept in `extra`, written after them) keeps its place.
import type { AttrDef, RecordDef } from '../types.js';
import { registerDef } from './registry.js';

const name: AttrDef = { name: 'name', code: 2, kind: 'str', required: true, default: '' };
const flags: AttrDef = { name: 'flags', code: 70, kind: 'int', default: 0, required: true };

export const LAYER_DEF: RecordDef = {
  type: 'LAYER',
  subclasses: [
    {
      marker: 'AcDbLayerTableRecord',
      attrs: [
        name,
        flags,
        { name: 'color', code: 62, kind: 'int', default: 7, required: true },
        { name: 'true_color', code: 420, kind: 'int', minVersion: 'AC1018' },
        { name: 'linetype', code: 6, kind: 'str', default: 'Continuous', required: true },
        { name: 'plot', code: 290, kind: 'bool', default: true, minVersion: 'AC1015' },
        { name: 'lineweight', code: 370, kind: 'int', default: -3, minVersion: 'AC1015' },
        { name: 'plotstyle_handle', code: 390, kind: 'handle', minVersion: 'AC1015' },
        { name: 'material_handle', code: 347, kind: 'handle', minVersion: 'AC1018' },
      ],
    },
  ],
};

export const LTYPE_DEF: RecordDef = {
  type: 'LTYPE',
  subclasses: [
    {
      marker: 'AcDbLinetypeTableRecord',
      attrs: [
        name,
        flags,
        { name: 'description', code: 3, kind: 'str', default: '', required: true },
        { name: 'alignment', code: 72, kind: 'int', default: 65, required: true },
        { name: 'items', code: 73, kind: 'int', default: 0, required: true },
        { name: 'total_pattern_length', code: 40, kind: 'float', default: 0, required: true },
      ],
    },
  ],
};

export const STYLE_DEF: RecordDef = {
  type: 'STYLE',
  subclasses: [
    {
      marker: 'AcDbTextStyleTableRecord',
      attrs: [
        name,
        flags,
        { name: 'height', code: 40, kind: 'float', default: 0, required: true },
        { name: 'width', code: 41, kind: 'float', default: 1, required: true },
        { name: 'oblique', code: 50, kind: 'float', default: 0, required: true },
        { name: 'generation_flags', code: 71, kind: 'int', default: 0, required: true },
        { name: 'last_height', code: 42, kind: 'float', default: 2.5, required: true },
        { name: 'font', code: 3, kind: 'str', default: 'txt', required: true },
        { name: 'bigfont', code: 4, kind: 'str', default: '', required: true },
      ],
    },
  ],
};

export const DIMSTYLE_DEF: RecordDef = {
  type: 'DIMSTYLE',
  subclasses: [{ marker: 'AcDbDimStyleTableRecord', attrs: [name, flags] }],
};

export const VPORT_DEF: RecordDef = {
  type: 'VPORT',
  subclasses: [
    {
      marker: 'AcDbViewportTableRecord',
      attrs: [
        name,
        flags,
        { name: 'lower_left', code: 10, kind: 'point2' },
        { name: 'upper_right', code: 11, kind: 'point2' },
        { name: 'center', code: 12, kind: 'point2' },
        { name: 'snap_base', code: 13, kind: 'point2' },
        { name: 'snap_spacing', code: 14, kind: 'point2' },
        { name: 'grid_spacing', code: 15, kind: 'point2' },
        { name: 'direction', code: 16, kind: 'vec3' },
        { name: 'target', code: 17, kind: 'point3' },
        { name: 'height', code: 40, kind: 'float' },
        { name: 'aspect_ratio', code: 41, kind: 'float' },
      ],
    },
  ],
};

export const VIEW_DEF: RecordDef = {
  type: 'VIEW',
  subclasses: [
    {
      marker: 'AcDbViewTableRecord',
      attrs: [
        name,
        flags,
        { name: 'height', code: 40, kind: 'float' },
        { name: 'center', code: 10, kind: 'point2' },
        { name: 'width', code: 41, kind: 'float' },
        { name: 'direction', code: 11, kind: 'vec3' },
        { name: 'target', code: 12, kind: 'point3' },
      ],
    },
  ],
};

export const UCS_DEF: RecordDef = {
  type: 'UCS',
  subclasses: [
    {
      marker: 'AcDbUCSTableRecord',
      attrs: [
        name,
        flags,
        { name: 'origin', code: 10, kind: 'point3' },
        { name: 'xaxis', code: 11, kind: 'vec3' },
        { name: 'yaxis', code: 12, kind: 'vec3' },
      ],
    },
  ],
};

export const APPID_DEF: RecordDef = {
  type: 'APPID',
  subclasses: [{ marker: 'AcDbRegAppTableRecord', attrs: [name, flags] }],
};

export const BLOCK_RECORD_DEF: RecordDef = {
  type: 'BLOCK_RECORD',
  minVersion: 'AC1012',
  subclasses: [
    {
      marker: 'AcDbBlockTableRecord',
      attrs: [
        name,
        { name: 'layout', code: 340, kind: 'handle', minVersion: 'AC1015' },
        { name: 'units', code: 70, kind: 'int', minVersion: 'AC1018' },
        { name: 'explode', code: 280, kind: 'int', minVersion: 'AC1018' },
        { name: 'scale', code: 281, kind: 'int', minVersion: 'AC1018' },
      ],
    },
  ],
};

for (const def of [LAYER_DEF, LTYPE_DEF, STYLE_DEF, DIMSTYLE_DEF, VPORT_DEF, VIEW_DEF, UCS_DEF, APPID_DEF, BLOCK_RECORD_DEF]) {
  registerDef(def);
}
