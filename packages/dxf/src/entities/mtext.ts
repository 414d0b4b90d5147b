// MTEXT: AcDbMText (ezdxf entities/mtext.py). `text` is the concatenation of the 3-chunks and the
// final 1; written back in chunks of 250 characters (never splitting a surrogate pair). Background
// fill attributes are declared; the R2018 column data (`101 Embedded Object` and all after it) and
// any tag not declared are kept verbatim (they follow the codec's output, their original place).
import { registerDef } from '../defs/registry.js';
import type { AttrDef, RecordDef, TagSink, TagSource } from '../types.js';
import { sequentialCodec } from './codec-util.js';

export const MTEXT_ATTRS: AttrDef[] = [
  { name: 'insert', code: 10, kind: 'point3', default: [0, 0, 0], required: true },
  { name: 'char_height', code: 40, kind: 'float', default: 2.5, required: true },
  { name: 'width', code: 41, kind: 'float' },
  { name: 'defined_height', code: 46, kind: 'float', minVersion: 'AC1021' },
  { name: 'attachment_point', code: 71, kind: 'int', default: 1, required: true },
  { name: 'flow_direction', code: 72, kind: 'int', default: 1 },
  // always written (the codec writes the final 1 chunk), so a record without it reads as ''
  { name: 'text', code: 1, kind: 'str', default: '', required: true },
  { name: 'style', code: 7, kind: 'str', default: 'Standard' },
  { name: 'extrusion', code: 210, kind: 'vec3', default: [0, 0, 1] },
  { name: 'text_direction', code: 11, kind: 'vec3', default: [1, 0, 0] },
  { name: 'rect_width', code: 42, kind: 'float' },
  { name: 'rect_height', code: 43, kind: 'float' },
  { name: 'rotation', code: 50, kind: 'float', default: 0 },
  { name: 'line_spacing_style', code: 73, kind: 'int', default: 1 },
  { name: 'line_spacing_factor', code: 44, kind: 'float', default: 1 },
  { name: 'box_fill_scale', code: 45, kind: 'float', minVersion: 'AC1021' },
  { name: 'bg_fill', code: 90, kind: 'int', minVersion: 'AC1021' },
  { name: 'bg_fill_color', code: 63, kind: 'int', minVersion: 'AC1021' },
  { name: 'bg_fill_true_color', code: 421, kind: 'int', minVersion: 'AC1021' },
  { name: 'bg_fill_color_name', code: 431, kind: 'str', minVersion: 'AC1021' },
  { name: 'bg_fill_transparency', code: 441, kind: 'int', minVersion: 'AC1021' },
];

/** Splits MTEXT content into chunks of at most `size` UTF-16 units, never inside a surrogate pair. */
export function splitMTextChunks(text: string, size = 250): string[] {
  const chunks: string[] = [];
  let i = 0;
  while (text.length - i > size) {
    let end = i + size;
    const c = text.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end--;
    chunks.push(text.slice(i, end));
    i = end;
  }
  chunks.push(text.slice(i));
  return chunks;
}

function writeText(rec: { attrs: Record<string, unknown> }, out: TagSink): void {
  const chunks = splitMTextChunks(String(rec.attrs.text ?? ''));
  for (let k = 0; k < chunks.length - 1; k++) out.tag(3, chunks[k]!);
  out.tag(1, chunks[chunks.length - 1]!);
}

export const MTEXT_CODEC = sequentialCodec({
  attrs: MTEXT_ATTRS,
  hooks: [
    (tags: TagSource, i: number, rec, state) => {
      const code = tags.code(i);
      if (code !== 3 && code !== 1) return -1;
      if (state.textDone) return -1;
      let s = '';
      let j = i;
      while (j < tags.length && tags.code(j) === 3) s += tags.str(j++);
      if (j < tags.length && tags.code(j) === 1) s += tags.str(j++);
      rec.attrs.text = s;
      state.textDone = true;
      return j;
    },
  ],
  order: [
    'insert', 'char_height', 'width', 'defined_height', 'attachment_point', 'flow_direction', writeText,
    'style', 'extrusion', 'text_direction', 'rect_width', 'rect_height', 'rotation', 'line_spacing_style',
    'line_spacing_factor', 'box_fill_scale', 'bg_fill', 'bg_fill_color', 'bg_fill_true_color',
    'bg_fill_color_name', 'bg_fill_transparency',
  ],
});

export const MTEXT: RecordDef = registerDef({
  type: 'MTEXT',
  minVersion: 'AC1012',
  subclasses: [{ marker: 'AcDbMText', attrs: MTEXT_ATTRS, codec: MTEXT_CODEC }],
});
