// Low-level record placement used by transactions and undo/redo: putting a record back with its
// original handle and at its original position. DocumentApi's add* methods assign handles, so
// restoring goes through these helpers, which are the only code that relies on how the document
// keeps its handle index.
import type { Block, DocumentApi, DxfObject, DxfRecord, Entity, TableEntry, TableName } from '../dxf.js';

interface IndexHooks {
  /** Registers a record (and its children) under its handle; optional on the document. */
  indexRecord?(rec: DxfRecord): void;
  unindexRecord?(handle: string): void;
}

function hooks(doc: DocumentApi): IndexHooks {
  return doc as unknown as IndexHooks;
}

/** Registers a record placed by hand in the document's handle index. */
export function indexRecord(doc: DocumentApi, rec: DxfRecord): void {
  const h = hooks(doc);
  if (typeof h.indexRecord === 'function') h.indexRecord(rec);
}

export function unindexRecord(doc: DocumentApi, handle: string): void {
  const h = hooks(doc);
  if (typeof h.unindexRecord === 'function') h.unindexRecord(handle);
}

/** Puts an entity (keeping its handle) into a block at a position of its entity list. */
export function insertEntityAt(doc: DocumentApi, blockName: string, index: number, rec: Entity): void {
  const added = doc.addEntity(rec, blockName);
  const block = doc.getBlock(blockName);
  if (!block) return;
  const list = block.entities;
  const at = list.lastIndexOf(added);
  if (at >= 0 && at !== index && index >= 0 && index < list.length) {
    list.splice(at, 1);
    list.splice(index, 0, added);
  }
}

export function entityIndex(block: Block, rec: Entity): number {
  const list = block.entities;
  // Most removals are of recent entities: search from the end.
  for (let i = list.length - 1; i >= 0; i--) if (list[i] === rec) return i;
  return -1;
}

export function insertTableEntryAt(doc: DocumentApi, table: TableName, index: number, rec: TableEntry): void {
  const t = doc.tables.get(table);
  if (!t) throw new Error(`no ${table} table`);
  const i = index >= 0 && index <= t.entries.length ? index : t.entries.length;
  t.entries.splice(i, 0, rec);
  indexRecord(doc, rec);
}

export function removeTableEntryRecord(doc: DocumentApi, table: TableName, rec: TableEntry): number {
  const t = doc.tables.get(table);
  if (!t) return -1;
  const i = t.entries.indexOf(rec);
  const name = String(rec.attrs.name ?? '');
  doc.removeTableEntry(table, name);
  if (t.entries.includes(rec)) t.entries.splice(t.entries.indexOf(rec), 1);
  return i;
}

export function insertObjectAt(doc: DocumentApi, index: number, rec: DxfObject): void {
  const added = doc.addObject(rec);
  const list = doc.objects;
  const at = list.lastIndexOf(added);
  if (at >= 0 && at !== index && index >= 0 && index < list.length) {
    list.splice(at, 1);
    list.splice(index, 0, added);
  }
}

/** Puts a removed block definition back: its BLOCK_RECORD, BLOCK, ENDBLK and entities, handles kept. */
export function insertBlock(doc: DocumentApi, block: Block, record: TableEntry | undefined, recordIndex: number): void {
  if (record) insertTableEntryAt(doc, 'BLOCK_RECORD', recordIndex, record);
  doc.blocks.set(block.name, block);
  indexRecord(doc, block.block);
  indexRecord(doc, block.endblk);
  for (const e of block.entities) indexRecord(doc, e);
}
