// `newDocument(version)`: an empty drawing with everything AutoCAD and ezdxf expect.
import { randomUUID } from 'node:crypto';
import { convert, resolveVersion } from '../convert/convert.js';
import type { DxfDocument } from '../document.js';
import { DxfError } from '../errors.js';
import type { DxfVersion } from '../types.js';
import { templateDocument } from './template.js';

/** Julian date of a JS time, as AutoCAD's $TDCREATE/$TDUPDATE hold it. */
function julian(ms: number): number {
  return ms / 86400000 + 2440587.5;
}

export function newDocument(version: DxfVersion | string = 'AC1032'): DxfDocument {
  const v = resolveVersion(version);
  if (v === 'AC1012' || v === 'AC1014' || v < 'AC1009') {
    throw new DxfError(`new drawings can be R12 or R2000 and later, not ${v}`);
  }
  const doc = templateDocument(v >= 'AC1015' ? v : 'AC1032');
  const now = julian(Date.now());
  for (const name of ['$TDCREATE', '$TDUPDATE', '$TDUCREATE', '$TDUUPDATE']) if (doc.header.has(name)) doc.setHeader(name, now);
  if (doc.header.has('$FINGERPRINTGUID')) doc.setHeader('$FINGERPRINTGUID', `{${randomUUID().toUpperCase()}}`);
  if (doc.header.has('$VERSIONGUID')) doc.setHeader('$VERSIONGUID', `{${randomUUID().toUpperCase()}}`);
  if (v >= 'AC1015') return doc;
  return convert(doc, v).doc;
}
