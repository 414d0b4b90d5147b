// The OBJECTS an R2000+ drawing needs, for a drawing read without them (a file cut short before its
// OBJECTS section, a writer that leaves it out): the root dictionary and the standard dictionaries
// of a new drawing, and a LAYOUT for each layout block. ezdxf makes these when it loads such a
// file and then deletes every paper space beyond the first with its content (it has no LAYOUT);
// AutoCAD's RECOVER gives each its tab.
import { mapHandleRefs } from '../codec/handles.js';
import { dictEntries } from '../defs/objects.js';
import { isModelSpaceName, isPaperSpaceName } from '../document.js';
import type { DocumentApi, DxfObject, TableName } from '../document-api.js';
import { templateDocument } from './template.js';

/** Root dictionary entries of the template that are not a drawing's own (the template's maker's). */
const NOT_COPIED = new Set(['EZDXF_META']);

/**
 * Gives an R2000+ drawing without a root dictionary the objects of a new drawing (their handles
 * its own, references to the template's tables by name to the drawing's) and a LAYOUT per layout
 * block: Model, Layout1 for the active paper space, then Layout2... in the blocks' order. False
 * (nothing done) before R2000 (no LAYOUT objects) or for a drawing that has a dictionary (its root).
 */
export function addStandardObjects(doc: DocumentApi): boolean {
  if (doc.version < 'AC1015' || doc.objects.some((o) => o.type === 'DICTIONARY')) return false;
  const template = templateDocument(doc.version);
  const root = template.objects[0]!;
  // what is copied: the root and what it holds, not the template's layouts nor its maker's entries
  const skip = new Set<string>();
  for (const { name, handle } of dictEntries(root)) if (NOT_COPIED.has(name)) skip.add(handle);
  const copied = template.objects.filter((o) => o.type !== 'LAYOUT' && !skip.has(o.handle) && !skip.has(o.owner));
  const renamed = new Map<string, string>();
  for (const o of copied) renamed.set(o.handle, doc.newHandle());
  // a reference to a template table entry: the drawing's entry of the same name, if it has one
  const byName = new Map<string, string>();
  for (const t of template.tables.values()) {
    for (const e of t.entries) {
      const mine = typeof e.attrs.name === 'string' ? doc.getTableEntry(t.name as TableName, e.attrs.name) : undefined;
      if (mine?.handle) byName.set(e.handle, mine.handle);
    }
  }
  const layoutDict = dictEntries(root).find((e) => e.name === 'ACAD_LAYOUT')?.handle;
  for (const o of copied) {
    const copy: DxfObject = structuredClone(o);
    mapHandleRefs(copy, 'object', (h) => renamed.get(h) ?? byName.get(h) ?? '0');
    copy.handle = renamed.get(o.handle)!;
    if (o === root) {
      copy.owner = '0';
      const entries = dictEntries(copy);
      for (let i = entries.length - 1; i >= 0; i--) if (NOT_COPIED.has(entries[i]!.name)) entries.splice(i, 1);
    }
    // the layouts are the drawing's own, made below
    if (o.handle === layoutDict) dictEntries(copy).length = 0;
    doc.addObject(copy);
  }
  const spaces = [...doc.blocks.values()].filter((b) => isModelSpaceName(b.name) || isPaperSpaceName(b.name));
  const like = (model: boolean): DxfObject | undefined => template.objects.find((o) => o.type === 'LAYOUT' && (o.attrs.name === 'Model') === model);
  let n = 1;
  for (const b of spaces) {
    if (!doc.getTableEntry('BLOCK_RECORD', b.name)) continue;
    const model = isModelSpaceName(b.name);
    doc.attachLayout(b.name, model ? 'Model' : `Layout${n++}`, like(model));
  }
  return true;
}
