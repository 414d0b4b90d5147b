// The contract of a drawing as the engine sees it. `DxfDocument` (document.ts) implements it; the
// engine's transactions, queries and ops are written against this shape only.
import type { DxfRecord, DxfVersion, Entity, Tag } from './types.js';

/** A table entry (LAYER, LTYPE, STYLE, DIMSTYLE, UCS, VIEW, VPORT, BLOCK_RECORD, APPID); `attrs.name` is its name. */
export interface TableEntry extends DxfRecord {
  kind: 'tableEntry';
}

export type TableName = 'VPORT' | 'LTYPE' | 'LAYER' | 'STYLE' | 'VIEW' | 'UCS' | 'APPID' | 'DIMSTYLE' | 'BLOCK_RECORD';

export interface Table {
  name: TableName;
  /** The TABLE record itself (handle, owner, its own extra tags such as DIMSTYLE's 340 list). */
  head: DxfRecord;
  entries: TableEntry[];
}

/**
 * A block definition: BLOCK ... ENDBLK plus the entities of its space. Model space and paper-space
 * layouts are blocks too (`*Model_Space`, `*Paper_Space`, `*Paper_Space0`, ...): their entities are
 * kept here, and the writer puts those of `*Model_Space` and `*Paper_Space` into the ENTITIES section.
 */
export interface Block {
  name: string;
  /** The BLOCK entity record (base point in attrs.base_point, flags, description ...). */
  block: Entity;
  endblk: Entity;
  entities: Entity[];
}

/** An object of the OBJECTS section (DICTIONARY, LAYOUT, GROUP, IMAGEDEF, XRECORD, ...). */
export interface DxfObject extends DxfRecord {
  kind: 'object';
}

/** A section the model does not interpret (THUMBNAILIMAGE, ACDSDATA, unknown), kept verbatim. */
export interface RawSection {
  name: string;
  tags: Tag[];
  /** The name of the section it followed in the file, so the writer puts it back in place. */
  after: string | null;
}

/** A DXF class definition of the CLASSES section. */
export interface DxfClass {
  tags: Tag[];
}

/** What reading repaired or could not keep, reported instead of failing (as ezdxf's recover). */
export interface Diagnostic {
  level: 'info' | 'warning' | 'error';
  code: string;
  message: string;
  /** 1-based line of the source where it was found, when known. */
  line?: number;
}

export interface DocumentApi {
  version: DxfVersion;
  /** Code page name as in $DWGCODEPAGE (e.g. 'ANSI_1252'); R2007+ files are UTF-8 regardless. */
  encoding: string;
  /** Header variables in file order: name (with '$') -> the tags of its value. */
  header: Map<string, Tag[]>;
  classes: DxfClass[];
  tables: Map<TableName, Table>;
  /** Blocks by name as written; look up case-insensitively with `getBlock`. */
  blocks: Map<string, Block>;
  objects: DxfObject[];
  rawSections: RawSection[];
  /** Repairs and losses found while reading or converting. */
  diagnostics: Diagnostic[];

  /** Any record (entity, table entry, object, TABLE head, BLOCK/ENDBLK) by handle. */
  get(handle: string): DxfRecord | undefined;
  /** A fresh handle, advancing $HANDSEED. */
  newHandle(): string;

  getHeader(name: string): string | number | number[] | undefined;
  setHeader(name: string, value: string | number | number[]): void;

  getTableEntry(table: TableName, name: string): TableEntry | undefined;
  /** Adds a table entry (handle and owner assigned); throws when the name exists. */
  addTableEntry(table: TableName, name: string, attrs?: Record<string, unknown>): TableEntry;
  removeTableEntry(table: TableName, name: string): void;

  getBlock(name: string): Block | undefined;
  modelSpace(): Block;
  /** Layout names ('Model' first) with their block. */
  layouts(): { name: string; block: Block; handle: string }[];
  /** Creates a block with its BLOCK_RECORD; entities are moved in by `addEntity`. */
  addBlock(name: string, basePoint: [number, number, number], attrs?: Record<string, unknown>): Block;
  /** Removes the block, its BLOCK_RECORD and its entities (no reference check: the engine does that). */
  removeBlock(name: string): void;
  /** Creates a paper-space layout with its LAYOUT object, block record and block. */
  addLayout(name: string): { name: string; block: Block; handle: string };
  /** A LAYOUT object for an existing layout block whose LAYOUT is missing (see DxfDocument). */
  attachLayout(blockName: string, name: string, like?: DxfObject): { name: string; block: Block; handle: string };

  /** Puts an entity into a block's space (model space by default); assigns handle and owner. */
  addEntity(entity: Entity, blockName?: string): Entity;
  /** Removes an entity (with its children and their handles) from its block. */
  removeEntity(handle: string): Entity | undefined;
  /** The block that holds an entity. */
  blockOf(handle: string): Block | undefined;

  addObject(obj: DxfObject): DxfObject;
  removeObject(handle: string): DxfObject | undefined;
}
