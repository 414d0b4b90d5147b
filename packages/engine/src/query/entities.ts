// GET /entities: filters, spatial queries through the R-tree, paging and detail levels.
import { currentMeter } from '../budgets.js';
import { OpError } from '../protocol.js';
import { dxf, type Entity } from '../dxf.js';
import type { DocStore } from '../store/document-store.js';
import { safeBox } from '../store/document-store.js';
import { blockOfEntity, dxfTypeOf } from '../model.js';
import { LIMITS } from '../limits.js';
import { entityJson, type Detail } from './serialize.js';
import { compileWhere, type WhereFilter } from './where.js';
import { layoutObject } from '../ops/sysvars.js';

export interface EntityQuery {
  type?: string | string[];
  layer?: string | string[];
  detail?: Detail;
  offset?: number;
  limit?: number;
  fields?: string[];
  handles?: string[];
  bounds?: number[];
  bounds_mode?: 'intersects' | 'inside';
  near?: number[];
  contains_point?: number[];
  intersections?: string[];
  where?: WhereFilter[];
  layout?: string;
}

interface Hit {
  e: Entity;
  distance?: number;
  crossings?: { handle: string; points: number[][] }[];
}

const EPS = 1e-9;

export function queryEntities(store: DocStore, qy: EntityQuery) {
  const doc = store.doc;
  const detail: Detail = qy.detail ?? 'summary';
  const offset = qy.offset ?? 0;
  const limit = Math.min(qy.limit ?? LIMITS.defaultLimit, LIMITS.maxLimit);
  let spaceName = store.modelSpaceName;
  if (qy.layout && qy.layout.toLowerCase() !== 'model') spaceName = layoutObject(doc, qy.layout).blockName;
  const space = doc.getBlock(spaceName)!;
  const indexed = spaceName === store.modelSpaceName;
  const boxOf = (e: Entity) => {
    if (indexed) {
      const it = store.index.box(e.handle);
      return it ? { min: [it.minX, it.minY], max: [it.maxX, it.maxY] } : null;
    }
    return safeBox(e, doc);
  };

  // Candidates: the narrowest source first.
  let candidates: Entity[];
  const bounds = qy.bounds && qy.bounds.length === 4 ? normBox(qy.bounds) : null;
  const near = qy.near && qy.near.length >= 2 ? { x: qy.near[0]!, y: qy.near[1]!, r: Math.max(qy.near[2] ?? 0, 0) } : null;
  const cp = qy.contains_point && qy.contains_point.length >= 2 ? { x: qy.contains_point[0]!, y: qy.contains_point[1]! } : null;
  if (qy.handles && qy.handles.length) {
    const seen = new Set<string>();
    candidates = [];
    for (const h of qy.handles) {
      const r = doc.get(String(h).toUpperCase()) as Entity | undefined;
      if (r && r.kind === 'entity' && !seen.has(r.handle) && blockOfEntity(doc, r)) {
        seen.add(r.handle);
        candidates.push(r);
      }
    }
  } else if (indexed && (bounds || near || cp)) {
    const box = bounds ?? (near ? [near.x - near.r, near.y - near.r, near.x + near.r, near.y + near.r] : [cp!.x, cp!.y, cp!.x, cp!.y]);
    const items = store.index.search(box[0]! - EPS, box[1]! - EPS, box[2]! + EPS, box[3]! + EPS);
    items.sort((a, b) => a.ord - b.ord);
    candidates = [];
    for (const it of items) {
      const e = doc.get(it.handle) as Entity | undefined;
      if (e) candidates.push(e);
    }
  } else {
    candidates = space.entities;
  }

  // Cheap filters first.
  const types = qy.type === undefined ? null : new Set((Array.isArray(qy.type) ? qy.type : [qy.type]).map(dxfTypeOf));
  const layers = qy.layer === undefined ? null : new Set((Array.isArray(qy.layer) ? qy.layer : [qy.layer]).map((l) => l.toLowerCase()));
  const where = compileWhere(qy.where ?? []);

  let targets: Entity[] | null = null;
  let targetBox: number[] | null = null;
  if (qy.intersections && qy.intersections.length) {
    targets = [];
    for (const h of qy.intersections) {
      const t = doc.get(String(h).toUpperCase()) as Entity | undefined;
      if (t && t.kind === 'entity') targets.push(t);
    }
    if (!targets.length) throw new OpError('entity_absent', `intersections: no entity with handle ${qy.intersections.join(', ')}`, { handles: qy.intersections });
    for (const t of targets) {
      const b = boxOf(t);
      if (!b) continue;
      targetBox = targetBox
        ? [Math.min(targetBox[0]!, b.min[0]!), Math.min(targetBox[1]!, b.min[1]!), Math.max(targetBox[2]!, b.max[0]!), Math.max(targetBox[3]!, b.max[1]!)]
        : [b.min[0]!, b.min[1]!, b.max[0]!, b.max[1]!];
    }
  }

  // Matches are counted; only the requested page is kept (all of them when near sorts by distance).
  const keepAll = near !== null;
  const hits: Hit[] = [];
  let total = 0;
  const end = offset + limit;
  const simple = !bounds && !near && !cp && !targets;
  const n = candidates.length;
  const meter = currentMeter();
  for (let i = 0; i < n; i++) {
    const e = candidates[i]!;
    meter.tick();
    if (types && !types.has(e.type)) continue;
    if (layers && !layers.has(String(e.attrs.layer ?? '0').toLowerCase())) continue;
    if (where && !where(e)) continue;
    if (simple) {
      if (total >= offset && total < end) hits.push({ e });
      total++;
      continue;
    }
    const hit: Hit = { e };
    if (bounds) {
      const b = boxOf(e);
      if (!b) continue;
      if (qy.bounds_mode === 'inside') {
        if (b.min[0]! < bounds[0]! - EPS || b.min[1]! < bounds[1]! - EPS || b.max[0]! > bounds[2]! + EPS || b.max[1]! > bounds[3]! + EPS) continue;
      } else if (b.max[0]! < bounds[0]! - EPS || b.max[1]! < bounds[1]! - EPS || b.min[0]! > bounds[2]! + EPS || b.min[1]! > bounds[3]! + EPS) continue;
    }
    if (near) {
      const b = boxOf(e);
      if (b && (near.x < b.min[0]! - near.r - EPS || near.x > b.max[0]! + near.r + EPS || near.y < b.min[1]! - near.r - EPS || near.y > b.max[1]! + near.r + EPS)) continue;
      const d = dxf.distanceToPoint(e, [near.x, near.y, 0], doc);
      if (!(d <= near.r + 1e-9)) continue;
      hit.distance = d;
    }
    if (cp) {
      const b = boxOf(e);
      if (b && (cp.x < b.min[0]! - EPS || cp.x > b.max[0]! + EPS || cp.y < b.min[1]! - EPS || cp.y > b.max[1]! + EPS)) continue;
      if (!dxf.containsPoint(e, [cp.x, cp.y, 0], doc)) continue;
    }
    if (targets) {
      if (targets.includes(e)) continue;
      const b = boxOf(e);
      if (targetBox && b && (b.max[0]! < targetBox[0]! - EPS || b.max[1]! < targetBox[1]! - EPS || b.min[0]! > targetBox[2]! + EPS || b.min[1]! > targetBox[3]! + EPS)) continue;
      const crossings: { handle: string; points: number[][] }[] = [];
      for (const t of targets) {
        const pts = dxf.intersections(e, t, doc);
        if (pts.length) crossings.push({ handle: t.handle, points: pts.map((p) => [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0]) });
      }
      if (!crossings.length) continue;
      hit.crossings = crossings;
    }
    if (keepAll || (total >= offset && total < end)) hits.push(hit);
    total++;
  }
  if (near) hits.sort((a, b) => a.distance! - b.distance!);

  const page = keepAll ? hits.slice(offset, offset + limit) : hits;
  const wantBounds = detail !== 'summary' || (qy.fields ?? []).includes('bounds');
  const entities = page.map((h) => {
    const j = entityJson(h.e, detail, { fields: qy.fields ?? null, bounds: wantBounds ? boxOf(h.e) : undefined });
    if (h.distance !== undefined) j.distance = h.distance;
    if (h.crossings) j.intersections = h.crossings;
    return j;
  });
  const next = offset + page.length < total ? offset + page.length : null;
  return { count: entities.length, total, offset, limit, next_offset: next, entities };
}

function normBox(b: number[]): number[] {
  const [x1, y1, x2, y2] = b as [number, number, number, number];
  return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
}
