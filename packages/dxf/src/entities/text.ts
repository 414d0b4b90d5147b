// TEXT: AcDbText + a second AcDbText holding `valign` (ezdxf entities/text.py). The record has two
// subclasses with the same marker: the reader matches them by position.
import { registerDef } from '../defs/registry.js';
import type { AttrDef, RecordDef } from '../types.js';

const insert: AttrDef = { name: 'insert', code: 10, kind: 'point3', default: [0, 0, 0], required: true };
const height: AttrDef = { name: 'height', code: 40, kind: 'float', default: 2.5, required: true };
const text: AttrDef = { name: 'text', code: 1, kind: 'str', default: '', required: true };
const thickness: AttrDef = { name: 'thickness', code: 39, kind: 'float', default: 0 };
const rotation: AttrDef = { name: 'rotation', code: 50, kind: 'float', default: 0 };
const oblique: AttrDef = { name: 'oblique', code: 51, kind: 'float', default: 0 };
const style: AttrDef = { name: 'style', code: 7, kind: 'str', default: 'Standard' };
const width: AttrDef = { name: 'width', code: 41, kind: 'float', default: 1 };
const textGenerationFlag: AttrDef = { name: 'text_generation_flag', code: 71, kind: 'int', default: 0 };
const halign: AttrDef = { name: 'halign', code: 72, kind: 'int', default: 0 };
const alignPoint: AttrDef = { name: 'align_point', code: 11, kind: 'point3' };
const extrusion: AttrDef = { name: 'extrusion', code: 210, kind: 'vec3', default: [0, 0, 1] };
const elevation: AttrDef = { name: 'elevation', code: 38, kind: 'float', default: 0 };

/** AcDbText of TEXT and ATTDEF, in the order AutoCAD writes it. */
export const ACDB_TEXT_ATTRS: AttrDef[] = [
  insert, height, text, thickness, rotation, oblique, style, width, textGenerationFlag, halign, alignPoint, extrusion, elevation,
];

/** AcDbText of ATTRIB: `halign` and `align_point` come before `text_generation_flag`. */
export const ACDB_ATTRIB_TEXT_ATTRS: AttrDef[] = [
  insert, height, text, thickness, rotation, oblique, style, width, halign, alignPoint, textGenerationFlag, extrusion, elevation,
];

export const VALIGN: AttrDef = { name: 'valign', code: 73, kind: 'int', default: 0 };

export const TEXT: RecordDef = registerDef({
  type: 'TEXT',
  subclasses: [
    { marker: 'AcDbText', attrs: ACDB_TEXT_ATTRS },
    { marker: 'AcDbText', attrs: [VALIGN] },
  ],
});
