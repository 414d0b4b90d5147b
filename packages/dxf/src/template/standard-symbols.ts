// The symbols every drawing has: layer "0", linetypes ByBlock/ByLayer/Continuous, text style and
// dimension style Standard, and (R13 on) the block records of model and paper space. AutoCAD,
// ezdxf and LibreCAD all assume them, so a file that lacks one (an R12 file without a TABLES
// section) would refuse entities on layer 0 and save a drawing other programs repair. They are
// added, as in a new drawing of the same version, and each addition is a diagnostic.
import type { DxfDocument } from '../document.js';
import { isReferenceCode } from '../codec/handles.js';
import type { Diagnostic, TableName } from '../document-api.js';
import { templateDocument } from './template.js';

/** Table entries every drawing has, in the order a new drawing lists them. */
export const STANDARD_ENTRIES: readonly [TableName, string][] = [
  ['LTYPE', 'ByBlock'], ['LTYPE', 'ByLayer'], ['LTYPE', 'Continuous'],
  ['LAYER', '0'], ['STYLE', 'Standard'], ['DIMSTYLE', 'Standard'],
];

/**
 * Adds the standard symbols `doc` lacks, copied from a new drawing of its version (handles of the
 * template's other records left out); returns one diagnostic per addition (also pushed to
 * `doc.diagnostics`).
 */
export function ensureStandardSymbols(doc: DxfDocument): Diagnostic[] {
  const added: Diagnostic[] = [];
  let template: DxfDocument | undefined;
  for (const [table, name] of STANDARD_ENTRIES) {
    if (doc.getTableEntry(table, name)) continue;
    template ??= templateDocument(doc.version >= 'AC1015' ? doc.version : 'AC1032');
    const src = template.getTableEntry(table, name);
    const attrs = src ? structuredClone(src.attrs) : {};
    delete attrs.name;
    // references into the template (plot style, material) mean nothing here
    for (const k of Object.keys(attrs)) if (k.endsWith('_handle')) delete attrs[k];
    const entry = doc.addTableEntry(table, name, attrs);
    if (src?.markers) entry.markers = [...src.markers];
    if (src?.extra) {
      entry.extra = {};
      for (const [sub, tags] of Object.entries(src.extra)) entry.extra[sub] = tags.filter((t) => !isReferenceCode(t[0])).map((t) => [t[0], t[1]]);
    }
    added.push({ level: 'warning', code: 'missing-symbol', message: `the drawing had no ${table} "${name}"; added as in a new drawing` });
  }
  if (doc.version > 'AC1009') {
    for (const b of [doc.modelSpace(), doc.paperSpace()]) {
      if (doc.getTableEntry('BLOCK_RECORD', b.name)) continue;
      const rec = doc.addTableEntry('BLOCK_RECORD', b.name);
      b.block.owner = rec.handle;
      b.endblk.owner = rec.handle;
      for (const e of b.entities) e.owner = rec.handle;
      added.push({ level: 'warning', code: 'missing-symbol', message: `the drawing had no BLOCK_RECORD "${b.name}"; added` });
    }
  }
  doc.diagnostics.push(...added);
  return added;
}
