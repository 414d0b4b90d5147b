// The AcDbAttribute / AcDbAttributeDefinition part of ATTRIB and ATTDEF (ezdxf entities/attrib.py).
// Code 280 appears twice (`version` before `tag`, `lock_position` after it), hence a codec. The
// R2018 tail (71 attribute_type, 72, the duplicated 11 align point and the `101 Embedded Object`
// MTEXT) is read for `attribute_type` and otherwise kept verbatim: the codec returns those tags,
// and the writer puts them back right after the codec's output, i.e. in their place.
import type { AttrDef, SubclassCodec, Tag } from '../types.js';
import { codeTable, readDeclared, versionAtLeast, writeAttr } from './codec-util.js';

const version: AttrDef = { name: 'version', code: 280, kind: 'int', default: 0, minVersion: 'AC1024' };
const prompt: AttrDef = { name: 'prompt', code: 3, kind: 'str', default: '', required: true };
const tag: AttrDef = { name: 'tag', code: 2, kind: 'str', default: '', required: true };
const flags: AttrDef = { name: 'flags', code: 70, kind: 'int', default: 0, required: true };
const fieldLength: AttrDef = { name: 'field_length', code: 73, kind: 'int', default: 0 };
const valign: AttrDef = { name: 'valign', code: 74, kind: 'int', default: 0 };
const lockPosition: AttrDef = { name: 'lock_position', code: 280, kind: 'int', default: 0, minVersion: 'AC1024' };
const attributeType: AttrDef = { name: 'attribute_type', code: 71, kind: 'int', default: 1, minVersion: 'AC1032' };

export const ACDB_ATTRIB_ATTRS: AttrDef[] = [version, tag, flags, fieldLength, valign, lockPosition, attributeType];
export const ACDB_ATTDEF_ATTRS: AttrDef[] = [version, prompt, tag, flags, fieldLength, valign, lockPosition, attributeType];

function attribCodec(attrs: AttrDef[]): SubclassCodec {
  const byCode = codeTable(attrs.filter((a) => a.code !== 280 && a.code !== 71));
  return {
    read(tags, rec, ctx) {
      const rest: Tag[] = [];
      const seen = new Set<string>();
      // as readDeclared: a tag older files carry before its attribute's version is kept verbatim
      // (AutoCAD writes lock_position in R2007), since the writer leaves the attribute out there
      const has280 = versionAtLeast(ctx.version, lockPosition.minVersion);
      const has71 = versionAtLeast(ctx.version, attributeType.minVersion);
      let i = 0;
      for (; i < tags.length; i++) {
        const [code, value] = tags[i]!;
        if (code === 101) break; // embedded object: keep the rest verbatim
        if (code === 280 && has280) {
          // before the tag string: version; after it: lock_position
          const name = seen.has('tag') || rec.attrs.version !== undefined ? 'lock_position' : 'version';
          if (rec.attrs[name] === undefined) {
            rec.attrs[name] = Number(value);
            continue;
          }
        }
        if (code === 71 && has71 && rec.attrs.attribute_type === undefined) {
          rec.attrs.attribute_type = Number(value);
          i++;
          break; // the R2018 tail follows
        }
        const j = readDeclared(tags, i, rec, byCode, seen, ctx);
        if (j >= 0) {
          i = j - 1;
          continue;
        }
        rest.push(tags[i]!);
      }
      for (; i < tags.length; i++) rest.push(tags[i]!);
      return rest;
    },
    write(rec, out, ctx) {
      for (const a of attrs) writeAttr(out, rec, a, ctx);
    },
  };
}

export const ATTRIB_CODEC = attribCodec(ACDB_ATTRIB_ATTRS);
export const ATTDEF_CODEC = attribCodec(ACDB_ATTDEF_ATTRS);
