// Entities an opened drawing keeps as their bytes (the DXF reader's `lazy` mode): a million-entity
// file is read in about half the time and the open's box pass reads only what the boxes need
// (`LazyEntity.peekGeometry`). Such records are accessors over the bytes, which code that copies
// records as data (spread, rest patterns, structuredClone, for-in) does not see, so they are made
// plain records after the open (the DXF package's LazyMaterializer): in slices between requests
// (the first frame comes first), or at once before any operation that is not known to read them
// through their accessors alone (Engine.runOne, LAZY_SAFE). Edits, undo and every other op only
// ever see plain records.
import type { DocumentApi } from '../dxf.js';

/** Whether a document read lazily still holds entities kept as their bytes. */
export function hasLazyRecords(doc: DocumentApi): boolean {
  return (doc as { hasLazyRecords?: boolean }).hasLazyRecords === true;
}
