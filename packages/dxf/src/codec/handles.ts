// Handle references of a record, wherever the model keeps them: the owner, attributes declared as
// handles, handles codecs keep in structured attributes (`SubclassCodec.mapHandles`), unknown tags
// with handle group codes, app-data groups (reactors, extension dictionaries) and xdata 1005. When
// records get new handles (a conversion, a repair on reading), every reference is mapped with one
// walk, so a LINE's xdata pointing at a CIRCLE still points at that CIRCLE.
import type { DocumentApi } from '../document-api.js';
import type { DxfRecord, Entity, Tag } from '../types.js';
import { compiledDef, type RecordContext } from './compiled-def.js';

/**
 * Group codes whose values refer to other records (the DXF reference's handle and pointer codes:
 * 320-369 soft/hard pointers and owners, 390-399, 480-481, 1005 in xdata). A record's own handle
 * (5, 105) is not a reference.
 */
export function isReferenceCode(code: number): boolean {
  return (code >= 320 && code <= 369) || (code >= 390 && code <= 399) || code === 480 || code === 481 || code === 1005;
}

function mapTags(tags: Tag[], map: (h: string) => string, xdata: boolean): void {
  for (const t of tags) {
    const c = t[0];
    if (xdata ? c === 1005 : isReferenceCode(c)) t[1] = map(t[1]);
  }
}

/**
 * Replaces every handle `rec` refers to by `map(handle)` (in place; children and SEQEND of an
 * entity included). `map` receives handles as stored, '0' and '' never. `owner: false` leaves the
 * owner alone (records that were given their owner anew).
 */
export function mapHandleRefs(rec: DxfRecord, context: RecordContext, map: (h: string) => string, opts: { owner?: boolean } = {}): void {
  const m = (h: string): string => (h === '' || h === '0' ? h : map(h));
  if (opts.owner !== false) rec.owner = m(rec.owner);
  const cd = compiledDef(rec.type, context);
  const attrs = rec.attrs;
  for (const sub of cd.subs) {
    for (const a of sub.def.attrs) {
      if (a.kind !== 'handle') continue;
      const v = attrs[a.name];
      if (typeof v === 'string') attrs[a.name] = m(v);
    }
    sub.codec?.mapHandles?.(rec, m);
  }
  if (rec.extra) for (const k of Object.keys(rec.extra)) mapTags(rec.extra[k]!, m, false);
  if (rec.appData) for (const g of rec.appData) mapTags(g.tags, m, false);
  if (rec.xdata) for (const g of rec.xdata) mapTags(g.tags, m, true);
  const e = rec as Entity;
  if (context === 'entity') {
    for (const c of e.children ?? []) mapHandleRefs(c, context, map, opts);
    if (e.seqend) mapHandleRefs(e.seqend, context, map, opts);
  }
}

/** `mapHandleRefs` over every record of a drawing, and the header variables holding handles. */
export function mapDocumentRefs(doc: DocumentApi, map: (h: string) => string): void {
  for (const tags of doc.header.values()) mapTags(tags, (h) => (h === '' || h === '0' ? h : map(h)), false);
  for (const t of doc.tables.values()) {
    mapHandleRefs(t.head, 'object', map);
    for (const e of t.entries) mapHandleRefs(e, 'tableEntry', map);
  }
  for (const b of doc.blocks.values()) {
    mapHandleRefs(b.block, 'entity', map);
    for (const e of b.entities) mapHandleRefs(e, 'entity', map);
    mapHandleRefs(b.endblk, 'entity', map);
  }
  for (const o of doc.objects) mapHandleRefs(o, 'object', map);
}

/** `mapHandleRefs` for a list of handles kept in an attribute (a codec's `mapHandles`). */
export function mapHandleList(list: unknown, map: (h: string) => string): void {
  if (!Array.isArray(list)) return;
  for (let i = 0; i < list.length; i++) if (typeof list[i] === 'string') list[i] = map(list[i] as string);
}

/** `mapTags` for a codec that keeps tags verbatim in an attribute (HATCH's `raw_tags`). */
export function mapRawTags(tags: unknown, map: (h: string) => string): void {
  if (Array.isArray(tags)) mapTags(tags as Tag[], map, false);
}
