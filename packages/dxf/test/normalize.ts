// A comparable JSON form of a document: what a round trip must keep. Leaves out what a writer may
// legitimately renew ($HANDSEED) and what depends on the source bytes (diagnostics, line numbers).
import type { DxfDocument } from '../src/document.js';
import type { DxfRecord, Entity } from '../src/types.js';

function rec(r: DxfRecord): unknown {
  const e = r as Entity;
  return {
    type: r.type,
    handle: r.handle,
    owner: r.owner,
    attrs: r.attrs,
    extra: r.extra ?? {},
    markers: r.markers ?? null,
    appData: r.appData ?? [],
    xdata: r.xdata ?? [],
    children: e.children?.map(rec) ?? [],
    seqend: e.seqend ? rec(e.seqend) : null,
  };
}

export function normalize(doc: DxfDocument): unknown {
  const header = [...doc.header].filter(([k]) => k !== '$HANDSEED');
  return {
    version: doc.version,
    encoding: doc.encoding,
    header,
    classes: doc.classes,
    tables: [...doc.tables.values()].map((t) => ({ name: t.name, head: rec(t.head), entries: t.entries.map(rec) })),
    blocks: [...doc.blocks.values()].map((b) => ({ name: b.name, block: rec(b.block), endblk: rec(b.endblk), entities: b.entities.map(rec) })),
    objects: doc.objects.map(rec),
    rawSections: doc.rawSections,
  };
}
