// Dictionaries and groups of the OBJECTS section, read and written whether the dxf package declares
// them with attributes (`attrs.entries`, `attrs.handles`) or keeps them as raw tags.
import type { DocumentApi, DxfObject, DxfRecord } from '../dxf.js';
import type { Transaction } from './document-store.js';

const DICT = 'AcDbDictionary';
const GROUP = 'AcDbGroup';

/** The named entries of a DICTIONARY: name -> handle. */
export function dictEntries(d: DxfRecord): Map<string, string> {
  const out = new Map<string, string>();
  const e = d.attrs.entries;
  if (e instanceof Map) {
    for (const [k, v] of e) out.set(String(k), String(v));
    return out;
  }
  if (Array.isArray(e)) {
    for (const x of e) if (Array.isArray(x)) out.set(String(x[0]), String(x[1]));
    else if (x && typeof x === 'object') out.set(String((x as Record<string, unknown>).name), String((x as Record<string, unknown>).handle));
    return out;
  }
  if (e && typeof e === 'object') {
    for (const [k, v] of Object.entries(e)) out.set(k, String(v));
    return out;
  }
  const tags = d.extra?.[DICT] ?? [];
  let name: string | null = null;
  for (const [c, v] of tags) {
    if (c === 3) name = v;
    else if ((c === 350 || c === 360) && name !== null) {
      out.set(name, v);
      name = null;
    }
  }
  return out;
}

/** Sets (handle) or removes (null) a dictionary entry; the caller has touched the record. */
export function setDictEntry(d: DxfRecord, name: string, handle: string | null, hard = false): void {
  const e = d.attrs.entries;
  if (e instanceof Map) {
    if (handle === null) e.delete(name);
    else e.set(name, handle);
    return;
  }
  if (Array.isArray(e)) {
    const i = e.findIndex((x) => (Array.isArray(x) ? x[0] : (x as Record<string, unknown>)?.name) === name);
    const shape = e.length && Array.isArray(e[0]) ? 'pair' : 'obj';
    if (i >= 0) e.splice(i, 1);
    if (handle !== null) e.push(shape === 'obj' ? { name, handle, code: hard ? 360 : 350 } : [name, handle]);
    return;
  }
  if (e && typeof e === 'object') {
    const o = e as Record<string, unknown>;
    if (handle === null) delete o[name];
    else o[name] = handle;
    return;
  }
  d.extra = d.extra ?? {};
  const tags = d.extra[DICT] ?? (d.extra[DICT] = []);
  for (let i = 0; i < tags.length; i++) {
    if (tags[i]![0] === 3 && tags[i]![1] === name && tags[i + 1] && (tags[i + 1]![0] === 350 || tags[i + 1]![0] === 360)) {
      tags.splice(i, 2);
      break;
    }
  }
  if (handle !== null) tags.push([3, name], [hard ? 360 : 350, handle]);
}

/** The root dictionary (the first object of the OBJECTS section). */
export function rootDictionary(doc: DocumentApi): DxfObject | undefined {
  return doc.objects.find((o) => o.type === 'DICTIONARY');
}

export function namedDictionary(doc: DocumentApi, name: string): DxfObject | undefined {
  const root = rootDictionary(doc);
  if (!root) return undefined;
  const h = dictEntries(root).get(name);
  return h ? (doc.get(h) as DxfObject | undefined) : undefined;
}

/** ACAD_GROUP, created in the root dictionary when absent. */
export function groupDictionary(tx: Transaction): DxfObject | undefined {
  const doc = tx.doc;
  const found = namedDictionary(doc, 'ACAD_GROUP');
  if (found) return found;
  const root = rootDictionary(doc);
  if (!root) return undefined;
  const d = tx.addObject({ kind: 'object', type: 'DICTIONARY', handle: '', owner: root.handle, attrs: { cloning: 1, entries: [] } });
  tx.touch(root);
  setDictEntry(root, 'ACAD_GROUP', d.handle);
  return d;
}

export interface GroupInfo {
  name: string;
  handle: string;
  description: string;
  selectable: boolean;
  handles: string[];
}

export function groupHandles(g: DxfRecord): string[] {
  const h = g.attrs.handles ?? g.attrs.entities;
  if (Array.isArray(h)) return h.map(String);
  return (g.extra?.[GROUP] ?? []).filter((t) => t[0] === 340).map((t) => t[1]);
}

export function setGroupHandles(g: DxfRecord, handles: string[]): void {
  if (Array.isArray(g.attrs.entities)) { g.attrs.entities = handles; return; }
  if (Array.isArray(g.attrs.handles) || !g.extra?.[GROUP]) { g.attrs.handles = handles; return; }
  g.extra = g.extra ?? {};
  const tags = (g.extra[GROUP] ?? []).filter((t) => t[0] !== 340);
  for (const h of handles) tags.push([340, h]);
  g.extra[GROUP] = tags;
}

export function groups(doc: DocumentApi): GroupInfo[] {
  const d = namedDictionary(doc, 'ACAD_GROUP');
  if (!d) return [];
  const out: GroupInfo[] = [];
  for (const [name, h] of dictEntries(d)) {
    const g = doc.get(h);
    if (!g) continue;
    const tags = g.extra?.[GROUP] ?? [];
    const tagVal = (c: number) => tags.find((t) => t[0] === c)?.[1];
    out.push({
      name, handle: h,
      description: String(g.attrs.description ?? tagVal(300) ?? ''),
      selectable: Number(g.attrs.selectable ?? tagVal(71) ?? 1) !== 0,
      handles: groupHandles(g),
    });
  }
  return out;
}

/** A new GROUP object (named, selectable) holding the handles. */
export function newGroup(owner: string, description: string, handles: string[], selectable: boolean): DxfObject {
  return {
    kind: 'object', type: 'GROUP', handle: '', owner,
    attrs: { description, unnamed: 0, selectable: selectable ? 1 : 0, handles: [...handles] },
    appData: [{ name: 'ACAD_REACTORS', tags: [[330, owner]] }],
  };
}
