// The one place the engine reaches into @linework/dxf. Everything else in the engine imports the
// DXF model's types and functions from here, so wiring a function that lands in the dxf package
// (or adapting to its exact signature) is a change to this file only.
import * as dxfPkg from '@linework/dxf';
import { OpError } from './protocol.js';

// ---- the DXF model contract (packages/dxf/src/types.ts and document-api.ts) ----------------------
export type {
  Tag, Vec2, Vec3, DxfVersion, AttrKind, AttrValue, AttrDef, XDataGroup, AppDataGroup, DxfRecord, Entity,
  TableEntry, TableName, Table, Block, DxfObject, Diagnostic, DocumentApi,
} from '@linework/dxf';
export { DXF_VERSIONS, RELEASE_NAMES } from '@linework/dxf';
import type { AttrDef, DocumentApi, Entity } from '@linework/dxf';

// ---- functions of @linework/dxf ----------------------------------------------------------------
import {
  declaredAttrs as dxfDeclaredAttrs, newDocument as dxfNewDocument, readDxf as dxfReadDxf, saveDxf as dxfSaveDxf,
  writeDxf as dxfWriteDxf, type DxfDocument,
} from '@linework/dxf';

export interface Box3 { min: number[]; max: number[] }

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
  readDxf(path: string): Promise<DocumentApi>;
  writeDxf(doc: DocumentApi): Uint8Array;
  saveDxf(doc: DocumentApi, path: string, version?: string): Promise<void>;
  boundingBox(e: Entity, doc: DocumentApi): Box3 | null;
  /** Applies a transform in place; returns a replacement when the type changes (circle -> ellipse). */
  transform(e: Entity, t: Transform2D, doc: DocumentApi): Entity | void;
  intersections(a: Entity, b: Entity, doc: DocumentApi): number[][];
  distanceToPoint(e: Entity, p: number[], doc: DocumentApi): number;
  containsPoint(e: Entity, p: number[], doc: DocumentApi): boolean;
  declaredAttrs(type: string): AttrDef[];
}

// Geometry is looked up on the package namespace: it is wired as soon as the dxf index exports it.
const pkg = dxfPkg as unknown as Record<string, unknown>;

function geo<T>(name: string): T {
  const f = pkg[name];
  if (typeof f !== 'function') {
    throw new OpError('not_available', `the DXF library (@linework/dxf) does not export ${name} yet`);
  }
  return f as T;
}

/** True when @linework/dxf exports the function (tests skip what needs a missing piece). */
export function dxfHas(name: string): boolean {
  return pkg[name] !== undefined;
}

type GeoFn<A extends unknown[], R> = (...args: A) => R;

export const dxf: DxfFunctions = {
  newDocument: (v) => dxfNewDocument(v),
  readDxf: async (path) => dxfReadDxf(path),
  writeDxf: (d) => dxfWriteDxf(d as DxfDocument),
  saveDxf: async (d, path, version) => {
    await dxfSaveDxf(d as DxfDocument, path, version ? { version } : {});
  },
  boundingBox: (e, d) => geo<GeoFn<[Entity, DocumentApi], Box3 | null>>('boundingBox')(e, d),
  transform: (e, t, d) => {
    switch (t.kind) {
      case 'move': return geo<GeoFn<[Entity, number[], DocumentApi], Entity | void>>('moveEntity')(e, [t.vector?.[0] ?? 0, t.vector?.[1] ?? 0, t.vector?.[2] ?? 0], d);
      case 'rotate': return geo<GeoFn<[Entity, number[], number, DocumentApi], Entity | void>>('rotateEntity')(e, t.base ?? [0, 0, 0], t.angle ?? 0, d);
      case 'scale': return geo<GeoFn<[Entity, number[], number, DocumentApi], Entity | void>>('scaleEntity')(e, t.base ?? [0, 0, 0], t.factor ?? 1, d);
      case 'mirror': return geo<GeoFn<[Entity, number[], number[], DocumentApi], Entity | void>>('mirrorEntity')(e, t.start ?? [0, 0, 0], t.end ?? [1, 0, 0], d);
    }
  },
  intersections: (a, b, d) => geo<GeoFn<[Entity, Entity, DocumentApi], number[][]>>('intersections')(a, b, d),
  distanceToPoint: (e, p, d) => geo<GeoFn<[Entity, number[], DocumentApi], number>>('distanceToPoint')(e, p, d),
  containsPoint: (e, p, d) => geo<GeoFn<[Entity, number[], number, DocumentApi], boolean>>('containsPoint')(e, p, 1e-9, d),
  declaredAttrs: (t) => dxfDeclaredAttrs(t),
};
