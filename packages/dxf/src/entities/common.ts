// The AcDbEntity part every graphical entity shares. Structural codes (0 type, 5 handle,
// 330 owner, 102 groups, 1001 xdata) are handled by the reader and writer, not declared here.
import type { SubclassDef } from '../types.js';

export const ENTITY_COMMON: SubclassDef = {
  marker: 'AcDbEntity',
  attrs: [
    { name: 'paperspace', code: 67, kind: 'int', default: 0 },
    { name: 'layout_tab_name', code: 410, kind: 'str' },
    { name: 'layer', code: 8, kind: 'str', default: '0', required: true },
    { name: 'linetype', code: 6, kind: 'str', default: 'BYLAYER' },
    { name: 'material_handle', code: 347, kind: 'handle', minVersion: 'AC1018' },
    { name: 'color', code: 62, kind: 'int', default: 256 },
    { name: 'lineweight', code: 370, kind: 'int', default: -1, minVersion: 'AC1015' },
    { name: 'ltscale', code: 48, kind: 'float', default: 1, minVersion: 'AC1015' },
    { name: 'invisible', code: 60, kind: 'int', default: 0 },
    { name: 'true_color', code: 420, kind: 'int', minVersion: 'AC1018' },
    { name: 'color_name', code: 430, kind: 'str', minVersion: 'AC1018' },
    { name: 'transparency', code: 440, kind: 'int', minVersion: 'AC1018' },
    { name: 'plotstyle_handle', code: 390, kind: 'handle', minVersion: 'AC1015' },
    { name: 'shadow_mode', code: 284, kind: 'int', minVersion: 'AC1021' },
  ],
};
