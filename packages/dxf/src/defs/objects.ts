// The objects the engine works with: dictionaries (the tree every named object hangs from),
// layouts, groups and raster image definitions. All other objects stay raw tag lists.
import type { AttrDef, DxfRecord, RecordDef, SubclassCodec, Tag, TagSink } from '../types.js';
import { registerDef } from './registry.js';
import { mapHandleList } from '../codec/handles.js';

/** One entry of a DICTIONARY: its key and the handle it points to (360 owns it, 350 does not). */
export interface DictEntry {
  name: string;
  handle: string;
  code: 350 | 360;
}

/** The entries of a DICTIONARY record (an empty list when it has none). */
export function dictEntries(rec: DxfRecord): DictEntry[] {
  const e = rec.attrs.entries;
  if (Array.isArray(e)) return e as DictEntry[];
  const list: DictEntry[] = [];
  rec.attrs.entries = list;
  return list;
}

/**
 * AcDbDictionary: 280 hard-owner flag, 281 cloning flag, then `3 name` / `350|360 handle` pairs.
 * Tags it does not know (a name without handle, other codes) are handed back and kept.
 */
const dictionaryCodec: SubclassCodec = {
  read(tags: Tag[], rec: DxfRecord): Tag[] {
    const rest: Tag[] = [];
    const entries: DictEntry[] = [];
    for (let i = 0; i < tags.length; i++) {
      const [code, value] = tags[i]!;
      if (code === 280 && rec.attrs.hard_owned === undefined) rec.attrs.hard_owned = +value;
      else if (code === 281 && rec.attrs.cloning === undefined) rec.attrs.cloning = +value;
      else if (code === 3 && i + 1 < tags.length && (tags[i + 1]![0] === 350 || tags[i + 1]![0] === 360)) {
        const next = tags[i + 1]!;
        entries.push({ name: value, handle: next[1].trim().toUpperCase(), code: next[0] as 350 | 360 });
        i++;
      } else rest.push([code, value]);
    }
    rec.attrs.entries = entries;
    return rest;
  },
  write(rec: DxfRecord, out: TagSink): void {
    if (typeof rec.attrs.hard_owned === 'number') out.tag(280, rec.attrs.hard_owned);
    if (typeof rec.attrs.cloning === 'number') out.tag(281, rec.attrs.cloning);
    for (const e of dictEntries(rec)) {
      out.tag(3, e.name);
      out.tag(e.code, e.handle);
    }
  },
  mapHandles(rec, map) {
    for (const e of dictEntries(rec)) e.handle = map(e.handle);
  },
};

export const DICTIONARY_DEF: RecordDef = registerDef({
  type: 'DICTIONARY',
  subclasses: [{ marker: 'AcDbDictionary', attrs: [], codec: dictionaryCodec }],
});

export const DICTIONARY_WITH_DEFAULT_DEF: RecordDef = registerDef({
  type: 'ACDBDICTIONARYWDFLT',
  subclasses: [
    { marker: 'AcDbDictionary', attrs: [], codec: dictionaryCodec },
    { marker: 'AcDbDictionaryWithDefault', attrs: [{ name: 'default', code: 340, kind: 'handle' }] },
  ],
});

const layoutAttrs: AttrDef[] = [
  { name: 'name', code: 1, kind: 'str', required: true, default: 'Layout' },
  { name: 'flags', code: 70, kind: 'int', default: 1, required: true },
  { name: 'taborder', code: 71, kind: 'int', default: 1, required: true },
  { name: 'limmin', code: 10, kind: 'point2' },
  { name: 'limmax', code: 11, kind: 'point2' },
  { name: 'insert_base', code: 12, kind: 'point3' },
  { name: 'extmin', code: 14, kind: 'point3' },
  { name: 'extmax', code: 15, kind: 'point3' },
  { name: 'elevation', code: 146, kind: 'float' },
  { name: 'ucs_origin', code: 13, kind: 'point3' },
  { name: 'ucs_xaxis', code: 16, kind: 'vec3' },
  { name: 'ucs_yaxis', code: 17, kind: 'vec3' },
  { name: 'ucs_type', code: 76, kind: 'int' },
  { name: 'block_record_handle', code: 330, kind: 'handle' },
  { name: 'viewport_handle', code: 331, kind: 'handle' },
  { name: 'ucs_handle', code: 345, kind: 'handle' },
  { name: 'base_ucs_handle', code: 346, kind: 'handle' },
];

export const LAYOUT_DEF: RecordDef = registerDef({
  type: 'LAYOUT',
  minVersion: 'AC1012',
  subclasses: [
    { marker: 'AcDbPlotSettings', attrs: [] },
    { marker: 'AcDbLayout', attrs: layoutAttrs },
  ],
});

/** AcDbGroup: description, flags, then the member handles (340, repeated). */
const groupCodec: SubclassCodec = {
  read(tags: Tag[], rec: DxfRecord): Tag[] {
    const rest: Tag[] = [];
    const handles: string[] = [];
    for (const [code, value] of tags) {
      if (code === 300 && rec.attrs.description === undefined) rec.attrs.description = value;
      else if (code === 70 && rec.attrs.unnamed === undefined) rec.attrs.unnamed = +value;
      else if (code === 71 && rec.attrs.selectable === undefined) rec.attrs.selectable = +value;
      else if (code === 340) handles.push(value.trim().toUpperCase());
      else rest.push([code, value]);
    }
    rec.attrs.handles = handles;
    return rest;
  },
  write(rec: DxfRecord, out: TagSink): void {
    out.tag(300, typeof rec.attrs.description === 'string' ? rec.attrs.description : '');
    out.tag(70, typeof rec.attrs.unnamed === 'number' ? rec.attrs.unnamed : 0);
    out.tag(71, typeof rec.attrs.selectable === 'number' ? rec.attrs.selectable : 1);
    const handles = rec.attrs.handles;
    if (Array.isArray(handles)) for (const h of handles) out.tag(340, String(h));
  },
  mapHandles: (rec, map) => mapHandleList(rec.attrs.handles, map),
};

export const GROUP_DEF: RecordDef = registerDef({
  type: 'GROUP',
  minVersion: 'AC1012',
  subclasses: [{ marker: 'AcDbGroup', attrs: [], codec: groupCodec }],
});

export const IMAGEDEF_DEF: RecordDef = registerDef({
  type: 'IMAGEDEF',
  minVersion: 'AC1012',
  subclasses: [
    {
      marker: 'AcDbRasterImageDef',
      attrs: [
        { name: 'class_version', code: 90, kind: 'int', default: 0, required: true },
        { name: 'filename', code: 1, kind: 'str', required: true, default: '' },
        { name: 'image_size', code: 10, kind: 'point2', required: true, default: [1, 1] },
        { name: 'pixel_size', code: 11, kind: 'point2', required: true, default: [1, 1] },
        { name: 'loaded', code: 280, kind: 'int', default: 1, required: true },
        { name: 'resolution_units', code: 281, kind: 'int', default: 0, required: true },
      ],
    },
  ],
});
