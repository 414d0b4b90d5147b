// Entities an opened drawing keeps as their bytes (the DXF reader's `lazy` mode): a million-entity
// file is read in about half the time and the open's box pass reads only what the boxes need
// (`LazyEntity.peekGeometry`). Such records are accessors over the bytes, which code that copies
// records as data (spread, rest patterns, structuredClone, for-in) does not see, so they are made
// plain records after the open: in slices between requests (the first frame comes first), or at
// once before any operation that is not known to read them through their accessors alone
// (Engine.runOne, LAZY_SAFE). Edits, undo and every other op only ever see plain records.
import { LazyEntity, plainEntity, type Block, type DocumentApi, type DxfRecord, type Entity } from '../dxf.js';

/** The document methods that put a record under its handle (DxfDocument's). */
interface Reindex {
  get(handle: string): DxfRecord | undefined;
  replaceIndexed?(rec: DxfRecord): void;
}

/** Whether a document read lazily still holds entities kept as their bytes. */
export function hasLazyRecords(doc: DocumentApi): boolean {
  return (doc as { hasLazyRecords?: boolean }).hasLazyRecords === true;
}

/** Entities made plain records one block at a time, a slice at a time. */
export class Materializer {
  private readonly blocks: Block[];
  private block = 0;
  private at = 0;

  constructor(private readonly doc: DocumentApi) {
    this.blocks = [...doc.blocks.values()];
  }

  get done(): boolean {
    return this.block >= this.blocks.length;
  }

  /** Makes up to `n` entities plain; true when none is left. */
  step(n: number): boolean {
    const doc = this.doc as unknown as Reindex;
    let left = n;
    while (left > 0 && this.block < this.blocks.length) {
      const list = this.blocks[this.block]!.entities;
      const end = Math.min(list.length, this.at + left);
      for (let i = this.at; i < end; i++) {
        const e = list[i]!;
        if (!holdsLazy(e)) continue;
        const p = plainEntity(e);
        list[i] = p;
        reindex(doc, p);
      }
      left -= end - this.at;
      this.at = end;
      if (this.at >= list.length) {
        this.block++;
        this.at = 0;
      }
    }
    if (this.done) (this.doc as { hasLazyRecords?: boolean }).hasLazyRecords = false;
    return this.done;
  }
}

function holdsLazy(e: Entity): boolean {
  return e instanceof LazyEntity || e.seqend instanceof LazyEntity || (e.children?.some((c) => c instanceof LazyEntity) ?? false);
}

function reindex(doc: Reindex, e: Entity): void {
  if (e.handle && doc.get(e.handle) !== e) doc.replaceIndexed?.(e);
  if (e.children) for (const c of e.children) reindex(doc, c);
  if (e.seqend) reindex(doc, e.seqend);
}
