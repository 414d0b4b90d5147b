// The one place the engine reaches into @linework/dxf: everything else in the engine imports the
// DXF model's types and functions from here, so the engine sees one narrow, stable surface.

// ---- the DXF model contract (packages/dxf/src/types.ts and document-api.ts) ----------------------
export type {
  Tag, Vec2, Vec3, DxfVersion, AttrKind, AttrValue, AttrDef, XDataGroup, AppDataGroup, DxfRecord, Entity,
  TableEntry, TableName, Table, Block, DxfObject, Diagnostic, DocumentApi,
} from '@linework/dxf';
export type { LazyMaterializer, Primitive, R12Drawer, R12Drawn } from '@linework/dxf';
export { addStandardObjects, isModelSpaceName, isPaperSpaceName, BoxMemo, LazyEntity, ACI_RGB, nearestAci, DXF_VERSIONS, RELEASE_NAMES, flatten, getDef, mapHandleRefs, isReferenceCode } from '@linework/dxf';
// work budgets (budgets.ts): what expanding a block reference costs, counted before expanding
export { BudgetError, GEOMETRY_LIMITS, setGeometryLimits, referenceExpansion, blockExpansion, insertCells } from '@linework/dxf';
import type { AttrDef, BoxMemo, DocumentApi, DxfVersion, Entity, Primitive, R12Drawer, Vec3 } from '@linework/dxf';

// ---- functions of @linework/dxf ----------------------------------------------------------------
import {
  boundingBox as dxfBoundingBox, containsPoint as dxfContainsPoint, declaredAttrs as dxfDeclaredAttrs,
  entityGeometry, flatten as dxfFlatten, flattenPrim as dxfFlattenPrim,
  distanceToPoint as dxfDistanceToPoint, intersections as dxfIntersections, mirrorEntity, moveEntity,
  convert as dxfConvert, newDocument as dxfNewDocument, readDrawing as dxfReadDrawing, readDxf as dxfReadDxf, rotateEntity, saveDxf as dxfSaveDxf, scaleEntity,
  writeDxf as dxfWriteDxf, LazyMaterializer, type DxfDocument,
} from '@linework/dxf';

export interface Box3 { min: number[]; max: number[] }

/** What saving in another version made of what and left out (empty when the version is the drawing's). */
export interface SaveReport {
  /** 'LWPOLYLINE -> POLYLINE': 3, 'true colour -> nearest ACI colour': 2 ... */
  converted: Record<string, number>;
  /** 'HATCH': 1, 'objects (OBJECTS section)': 40 ... */
  dropped: Record<string, number>;
  /** The conversion's diagnostics (info: conversions; warning: what was left out). */
  diagnostics: { level: string; code: string; message: string }[];
}

/** A 2D transform the engine applies (entities_transform, command line). */
export interface Transform2D {
  kind: 'move' | 'rotate' | 'scale' | 'mirror';
  vector?: number[];
  base?: number[];
  angle?: number; // degrees
  factor?: number;
  start?: number[];
  end?: number[];
}

/** What the engine calls in @linework/dxf. */
export interface DxfFunctions {
  newDocument(version?: string): DocumentApi;
  /** `lazy`: entities kept as their bytes until read (an opened drawing: see store/lazy.ts). */
  readDxf(path: string, lazy?: boolean): Promise<DocumentApi>;
  /** The same from bytes (a drawing held in memory). */
  readDxfBytes(bytes: Uint8Array): Promise<DocumentApi>;
  /** What makes a lazily read drawing's entities plain records, a step at a time (store/lazy.ts). */
  materializer(doc: DocumentApi): LazyMaterializer;
  writeDxf(doc: DocumentApi): Uint8Array;
  /** `binary` undefined: the form the drawing was read in. */
  saveDxf(doc: DocumentApi, path: string, version?: string, binary?: boolean): Promise<SaveReport>;
  /** A converted copy of a drawing (what saving in `version` writes), with what became what. */
  convert(doc: DocumentApi, version: DxfVersion, r12Drawer?: R12Drawer): SaveReport & { doc: DocumentApi };
  /** `memo`: block work shared by many boxes while the drawing does not change (an index built on open). */
  boundingBox(e: Entity, doc: DocumentApi, memo?: BoxMemo): Box3 | null;
  /** Applies a transform in place; returns a replacement when the type changes (circle -> ellipse). */
  transform(e: Entity, t: Transform2D, doc: DocumentApi): Entity | void;
  intersections(a: Entity, b: Entity, doc: DocumentApi): number[][];
  distanceToPoint(e: Entity, p: number[], doc: DocumentApi): number;
  containsPoint(e: Entity, p: number[], doc: DocumentApi): boolean;
  declaredAttrs(type: string): AttrDef[];
  /** The entity as WCS primitives (lines, arcs, polylines, splines, points, rays); blocks expanded. */
  geometry(e: Entity, doc: DocumentApi): Primitive[];
  /** Polylines within `tolerance` of the entity, in WCS. */
  flatten(e: Entity, tolerance: number, doc: DocumentApi): Vec3[][];
  flattenPrim(p: Primitive, tolerance: number): Vec3[];
}

export const dxf: DxfFunctions = {
  newDocument: (v) => dxfNewDocument(v),
  // every record gets a handle, R12 drawings without $HANDLING included: the engine addresses,
  // indexes and edits entities by handle; layer 0 and the other standard symbols always exist;
  // DWG goes through a converter into the same reader (packages/dxf/src/dwg)
  readDxf: async (path, lazy) => dxfReadDrawing(path, { assignHandles: true, standardSymbols: true, ...(lazy ? { lazy: true } : {}) }),
  readDxfBytes: async (bytes) => dxfReadDxf(bytes, { assignHandles: true, standardSymbols: true }),
  materializer: (d) => new LazyMaterializer(d as DxfDocument),
  writeDxf: (d) => dxfWriteDxf(d as DxfDocument),
  saveDxf: async (d, path, version, binary) => {
    // saving as R12 draws what R12 has no type for with the renderer (loaded when a version is asked)
    const r12Drawer = version ? (await import('./render/r12-drawer.js')).drawForR12 : undefined;
    const r = await dxfSaveDxf(d as DxfDocument, path, { ...(version ? { version, r12Drawer } : {}), ...(binary !== undefined ? { binary } : {}) });
    return { converted: r.converted, dropped: r.dropped, diagnostics: r.diagnostics };
  },
  convert: (d, version, r12Drawer) => {
    const r = dxfConvert(d as DxfDocument, version, { r12Drawer });
    return { doc: r.doc, converted: r.converted, dropped: r.dropped, diagnostics: r.diagnostics };
  },
  boundingBox: (e, d, memo) => dxfBoundingBox(e, d, memo),
  transform: (e, t, d) => {
    switch (t.kind) {
      case 'move': return moveEntity(e, [t.vector?.[0] ?? 0, t.vector?.[1] ?? 0, t.vector?.[2] ?? 0], d);
      case 'rotate': return rotateEntity(e, t.base ?? [0, 0, 0], t.angle ?? 0, d);
      case 'scale': return scaleEntity(e, t.base ?? [0, 0, 0], t.factor ?? 1, d);
      case 'mirror': return mirrorEntity(e, t.start ?? [0, 0, 0], t.end ?? [1, 0, 0], d);
    }
  },
  intersections: (a, b, d) => dxfIntersections(a, b, d),
  distanceToPoint: (e, p, d) => dxfDistanceToPoint(e, p, d),
  containsPoint: (e, p, d) => dxfContainsPoint(e, p, 1e-9, d),
  declaredAttrs: (t) => dxfDeclaredAttrs(t),
  geometry: (e, d) => entityGeometry(e, d).prims,
  flatten: (e, t, d) => dxfFlatten(e, t, d),
  flattenPrim: (p, t) => dxfFlattenPrim(p, t),
};

// ---- geometry the construct/modify ops build on (explode, mirror, dimensions) ---------------------
export { Matrix44, insertMatrices, transformEntity, bulgeToArc, ocsFromExtrusion, ocsToWcs, wcsToOcs, mtextPlainLines } from '@linework/dxf';
