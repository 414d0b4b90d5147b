// Reading a drawing: bytes (a Buffer, a file, a stream) -> DxfDocument.
import { readFile } from 'node:fs/promises';
import '../defs/index.js';
import '../entities/index.js';
import { DxfError } from '../errors.js';
import type { TagRecord } from '../tags/record-sink.js';
import { pumpBuffer, pumpInput, type DxfInput } from '../tags/source.js';
import type { DxfDocument } from '../document.js';
import { DocumentBuilder, type ReadOptions } from './document-builder.js';

export type { ReadOptions };

function emptyCheck(doc: DxfDocument, sawRecords: boolean): DxfDocument {
  if (!sawRecords) {
    // bytes that never made a record: say where the reader gave up rather than "empty"
    const why = doc.diagnostics.find((d) => d.code === 'truncated');
    throw new DxfError(why ? `no DXF records: ${why.message}` : 'empty file: no DXF records', why?.line);
  }
  return doc;
}

/** A builder that also notes whether the input had any record at all. */
class CountingBuilder extends DocumentBuilder {
  sawRecords = false;
  override record(r: TagRecord): void {
    this.sawRecords = true;
    super.record(r);
  }
}

/**
 * Reads a DXF drawing from a Buffer, a file path or a Readable. ASCII and binary DXF; repairs of
 * broken input are listed in `doc.diagnostics`; input that is not DXF throws a DxfError naming
 * the line.
 */
export async function readDxf(input: DxfInput, opts: ReadOptions = {}): Promise<DxfDocument> {
  // lazy entities point into the file's bytes: a file is read whole then (streams stay streams)
  if (opts.lazy && (typeof input === 'string' || input instanceof Uint8Array)) {
    let bytes: Uint8Array | null = input instanceof Uint8Array ? input : null;
    try {
      bytes ??= await readFile(input as string);
    } catch (e) {
      // a file too large for one buffer (2 GB) is streamed, its entities decoded as they come
      if ((e as NodeJS.ErrnoException).code !== 'ERR_FS_FILE_TOO_LARGE') throw e;
    }
    if (bytes) return readDxfSync(bytes, opts);
  }
  const builder = new CountingBuilder(opts);
  await pumpInput(input, builder, (d) => builder.diagnostic(d));
  return emptyCheck(builder.finish(), builder.sawRecords);
}

/** Reads a DXF drawing from bytes, synchronously (`opts.lazy`: `bytes` must not change afterwards). */
export function readDxfSync(bytes: Uint8Array, opts: ReadOptions = {}): DxfDocument {
  const builder = new CountingBuilder(opts);
  if (opts.lazy) builder.keepBytes(bytes);
  pumpBuffer(bytes, builder, (d) => builder.diagnostic(d), opts.lazy === true);
  return emptyCheck(builder.finish(), builder.sawRecords);
}
