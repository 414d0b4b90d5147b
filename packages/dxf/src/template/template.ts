// New drawings start from the R2018 template (standard tables, Model and Layout1, the root
// dictionary); other versions are converted from it.
import { readDxfSync } from '../reader/read.js';
import type { DxfDocument } from '../document.js';
import { DxfError } from '../errors.js';
import type { DxfVersion } from '../types.js';
import { R2018_TEMPLATE } from './r2018-template.js';

let templateBytes: Buffer | undefined;

/** A fresh R2000+ document from the template, labelled with `version`. */
export function templateDocument(version: DxfVersion): DxfDocument {
  if (version < 'AC1015') throw new DxfError(`the template is R2000 or later, not ${version}`);
  templateBytes ??= Buffer.from(R2018_TEMPLATE, 'latin1');
  const doc = readDxfSync(templateBytes);
  doc.diagnostics.length = 0;
  doc.version = version;
  return doc;
}
