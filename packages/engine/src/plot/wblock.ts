// wblock: entities (or a block's content, or all of model space) written to a new DXF drawing with
// exactly what they need, through the same dependency closure as entities_copy_to
// (store/closure.ts): layers, linetypes, text styles, dimension styles, blocks (recursively, with
// the dimension-style arrow blocks), APPIDs of their xdata, image definitions and the other named
// objects they point at. References to what is not brought (reactors, extension dictionaries,
// associativity) are dropped.
import { resolve as resolvePath } from 'node:path';
import type { Block, DocumentApi, Entity } from '../dxf.js';
import { dxf } from '../dxf.js';
import { OpError } from '../protocol.js';
import { copyEntities, directSink, type Dependencies } from '../store/closure.js';
import { writeAtomic } from './plot.js';

export interface WblockOptions {
  path: string;
  /** Entities to write (any space); default: the block's content, else all of model space. */
  handles?: string[];
  /** A block whose content becomes the new drawing. */
  block?: string;
  /** Base point of the new drawing ($INSBASE); default the block's base point or the origin. */
  base?: [number, number] | [number, number, number];
}

/** Header variables copied from the source (units, scales, text, point display). */
const HEADER_COPY = [
  '$MEASUREMENT', '$INSUNITS', '$LUNITS', '$LUPREC', '$AUNITS', '$AUPREC', '$ANGBASE', '$ANGDIR', '$LTSCALE', '$PSLTSCALE',
  '$CELTSCALE', '$TEXTSIZE', '$PDMODE', '$PDSIZE', '$MIRRTEXT', '$DIMSCALE', '$LWDISPLAY', '$FILLMODE', '$QTEXTMODE', '$DWGCODEPAGE',
];

/** Writes entities or a block's content to a new DXF drawing. */
export async function wblock(doc: DocumentApi, opts: WblockOptions): Promise<{ path: string; count: number; dependencies: Dependencies }> {
  if (typeof opts.path !== 'string' || !opts.path.trim()) throw new OpError('invalid_request', 'path is required');
  let source: Entity[];
  let base: number[] = [0, 0, 0];
  if (opts.handles && opts.handles.length) {
    source = [];
    const missing: string[] = [];
    for (const h of opts.handles) {
      const rec = doc.get(String(h).toUpperCase());
      if (!rec || (rec as Entity).kind !== 'entity' || !doc.blockOf(rec.handle)) missing.push(h);
      else source.push(rec as Entity);
    }
    if (missing.length) throw new OpError('entity_absent', `no entity with handle ${missing.join(', ')}`, { handles: missing });
  } else if (opts.block !== undefined) {
    const want = opts.block.toUpperCase();
    const b: Block | undefined = doc.getBlock(opts.block) ?? [...doc.blocks.values()].find((x) => x.name.toUpperCase() === want);
    if (!b) throw new OpError('unknown_block', `no block named ${JSON.stringify(opts.block)}`, { block: opts.block });
    source = b.entities;
    const bp = b.block.attrs.base_point;
    if (Array.isArray(bp)) base = [bp[0] ?? 0, bp[1] ?? 0, bp[2] ?? 0];
  } else source = doc.modelSpace().entities;
  if (opts.base) {
    if (!Array.isArray(opts.base) || opts.base.length < 2 || !opts.base.every((v) => typeof v === 'number' && Number.isFinite(v))) {
      throw new OpError('invalid_point', 'base must be [x, y] or [x, y, z]');
    }
    base = [opts.base[0], opts.base[1], opts.base[2] ?? 0];
  }
  // new drawings are R12 or R2000 on; R13/R14 become R2000 (as ezdxf saves them)
  const version = doc.version < 'AC1009' ? 'AC1009' : doc.version > 'AC1009' && doc.version < 'AC1015' ? 'AC1015' : doc.version;
  const out = dxf.newDocument(version);
  const copied = copyEntities(doc, source, directSink(out));
  // header: units and scales of the source, base point, current layer/style that exist here
  for (const name of HEADER_COPY) {
    const v = doc.getHeader(name);
    if (v !== undefined && out.getHeader(name) !== undefined) out.setHeader(name, v);
    else if (v !== undefined && name !== '$DWGCODEPAGE') out.setHeader(name, v);
  }
  out.setHeader('$INSBASE', [base[0] ?? 0, base[1] ?? 0, base[2] ?? 0]);
  const target = resolvePath(opts.path);
  const data = await dxf.writeDxf(out);
  writeAtomic(target, typeof data === 'string' ? data : Buffer.from(data));
  return { path: target, count: copied.handles.length, dependencies: copied.dependencies };
}
