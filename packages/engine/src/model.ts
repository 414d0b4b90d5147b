// Engine-side helpers over the DXF model: type names, header values, entity walks, names.
import type { Block, DocumentApi, Entity, TableEntry, TableName } from './dxf.js';
import { OpError } from './protocol.js';

/** DXF type -> public (spec) type name. Types not listed are shown by their DXF name. */
export const PUBLIC_TYPE: Record<string, string> = {
  LINE: 'Line', CIRCLE: 'Circle', ARC: 'Arc', ELLIPSE: 'Ellipse', POINT: 'Point', TEXT: 'Text',
  MTEXT: 'MText', LWPOLYLINE: 'LWPolyline', POLYLINE: 'Polyline', VERTEX: 'Vertex', SPLINE: 'Spline',
  INSERT: 'Insert', ATTRIB: 'Attrib', ATTDEF: 'AttDef', HATCH: 'Hatch', SOLID: 'Solid', TRACE: 'Trace',
  '3DFACE': '3DFace', DIMENSION: 'Dimension', IMAGE: 'Image', VIEWPORT: 'Viewport', RAY: 'Ray',
  XLINE: 'XLine', LEADER: 'Leader', MLEADER: 'MLeader', MULTILEADER: 'MLeader', WIPEOUT: 'Wipeout',
  TOLERANCE: 'Tolerance', SHAPE: 'Shape', MLINE: 'MLine', '3DSOLID': '3DSolid', REGION: 'Region',
  BODY: 'Body', MESH: 'Mesh', HELIX: 'Helix', UNDERLAY: 'Underlay', PDFUNDERLAY: 'PdfUnderlay',
};

const BY_LOWER = new Map<string, string>();
for (const [dxfName, pub] of Object.entries(PUBLIC_TYPE)) {
  BY_LOWER.set(dxfName.toLowerCase(), dxfName);
  BY_LOWER.set(pub.toLowerCase(), dxfName);
}
BY_LOWER.set('polyline2d', 'POLYLINE');
BY_LOWER.set('polyline3d', 'POLYLINE');
BY_LOWER.set('lwpoly', 'LWPOLYLINE');
BY_LOWER.set('blockreference', 'INSERT');

/** The DXF type of a public or DXF type name (case-insensitive); unknown names upper-cased. */
export function dxfTypeOf(name: string): string {
  return BY_LOWER.get(name.toLowerCase()) ?? name.toUpperCase();
}

export function publicType(dxfType: string): string {
  return PUBLIC_TYPE[dxfType] ?? dxfType;
}

/** Every entity of a block, with the block name. */
export function* entitiesOf(doc: DocumentApi, scope: 'layouts' | 'all'): Generator<[Entity, Block]> {
  const layoutBlocks = new Set(doc.layouts().map((l) => l.block));
  for (const b of doc.blocks.values()) {
    if (scope === 'layouts' && !layoutBlocks.has(b)) continue;
    for (const e of b.entities) yield [e, b];
  }
}

/** Header variable name with its `$`. */
export function hdrName(name: string): string {
  const n = name.trim().toUpperCase();
  return n.startsWith('$') ? n : `$${n}`;
}

export function headerString(doc: DocumentApi, name: string, fallback: string): string {
  const v = doc.getHeader(hdrName(name));
  return v === undefined || v === null ? fallback : String(v);
}

export function headerNumber(doc: DocumentApi, name: string, fallback: number): number {
  const v = doc.getHeader(hdrName(name));
  return typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : fallback;
}

export function currentLayer(doc: DocumentApi): string {
  return headerString(doc, 'CLAYER', '0');
}

export function entryName(e: TableEntry | undefined): string {
  return e ? String(e.attrs.name ?? '') : '';
}

export function tableEntries(doc: DocumentApi, table: TableName): TableEntry[] {
  return doc.tables.get(table)?.entries ?? [];
}

/** Finds a table entry by name, case-insensitively as AutoCAD does. */
export function findEntry(doc: DocumentApi, table: TableName, name: string): TableEntry | undefined {
  const direct = doc.getTableEntry(table, name);
  if (direct) return direct;
  const lower = name.toLowerCase();
  return tableEntries(doc, table).find((e) => entryName(e).toLowerCase() === lower);
}

/** AutoCAD's INSUNITS codes. */
export const UNIT_NAMES = [
  'unitless', 'inches', 'feet', 'miles', 'millimeters', 'centimeters', 'meters', 'kilometers',
  'microinches', 'mils', 'yards', 'angstroms', 'nanometers', 'microns', 'decimeters', 'decameters',
  'hectometers', 'gigameters', 'astronomical units', 'light years', 'parsecs', 'US survey feet',
  'US survey inch', 'US survey yard', 'US survey mile',
];

/** Release name of a $ACADVER value. */
export function releaseOf(v: string): string {
  const map: Record<string, string> = {
    AC1003: 'R2.6', AC1006: 'R10', AC1009: 'R12', AC1012: 'R13', AC1014: 'R14', AC1015: 'R2000',
    AC1018: 'R2004', AC1021: 'R2007', AC1024: 'R2010', AC1027: 'R2013', AC1032: 'R2018',
  };
  return map[v] ?? v;
}

/**
 * The block (space) holding a top-level entity, in O(1) through its owner (DocumentApi.blockOf
 * scans the block); undefined for ATTRIB/VERTEX children and records no longer in the drawing.
 */
export function blockOfEntity(doc: DocumentApi, e: Entity): Block | undefined {
  if (doc.get(e.handle) !== e) return undefined;
  if (e.owner) {
    const p = doc.get(e.owner);
    if (p && p.type === 'BLOCK_RECORD' && typeof p.attrs.name === 'string') {
      const b = doc.getBlock(p.attrs.name);
      if (b) return b;
    }
    if (p && (p.type === 'INSERT' || p.type === 'POLYLINE')) return undefined;
  }
  return doc.blockOf(e.handle);
}

export function entityOrThrow(doc: DocumentApi, handle: string): Entity {
  const h = String(handle).toUpperCase();
  const r = doc.get(h) as Entity | undefined;
  if (!r || r.kind !== 'entity' || !blockOfEntity(doc, r)) throw new OpError('entity_absent', `no entity with handle ${handle}`, { handle });
  return r;
}

/** Normalised handles (upper case), failing with entity_absent for the first unknown one. */
export function entitiesOrThrow(doc: DocumentApi, handles: string[]): Entity[] {
  const out: Entity[] = [];
  const missing: string[] = [];
  for (const h of handles) {
    const r = doc.get(String(h).toUpperCase()) as Entity | undefined;
    if (!r || r.kind !== 'entity' || !blockOfEntity(doc, r)) missing.push(h);
    else out.push(r);
  }
  if (missing.length) {
    throw new OpError('entity_absent', `no entit${missing.length > 1 ? 'ies' : 'y'} with handle${missing.length > 1 ? 's' : ''} ${missing.slice(0, 20).join(', ')}`, { handles: missing });
  }
  return out;
}

export function isLayoutBlock(doc: DocumentApi, name: string): boolean {
  const n = name.toLowerCase();
  if (n === '*model_space' || n.startsWith('*paper_space')) return true;
  return doc.layouts().some((l) => l.block.name.toLowerCase() === n);
}

/** Number of entities in model space and the paper-space layouts. */
export function drawingEntityCount(doc: DocumentApi): number {
  let n = 0;
  for (const l of doc.layouts()) n += l.block.entities.length;
  return n;
}
