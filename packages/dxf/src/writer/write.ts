// Writing a drawing: DxfDocument -> bytes, into a Buffer or atomically into a file.
import type { Diagnostic } from '../document-api.js';
import type { DxfDocument } from '../document.js';
import { convert, resolveVersion, type ConvertResult } from '../convert/convert.js';
import type { R12Drawer } from '../convert/r12-drawn.js';
import { codecFor, isKnownCodepage, isUnicodeVersion, undeclaredCodec } from '../tags/encoding.js';
import type { DxfVersion, TagSink } from '../types.js';
import { writeDocument } from './document-writer.js';
import { TagWriter } from './tag-writer.js';
import { BinaryTagWriter } from './binary-tag-writer.js';
import { writeAll, writeFileAtomicSync } from './atomic-file.js';

export interface WriteOptions {
  /** Target version ('AC1015', 'R2000', ...); default: the document's own. */
  version?: DxfVersion | string;
  /** Called with the bytes written so far (for progress bars). */
  onProgress?: (bytes: number) => void;
  /** Binary DXF instead of ASCII; default: the form the drawing was read in (ASCII for a new one). */
  binary?: boolean;
  /** Draws, for R12, the entities R12 has no type for (see ConvertOptions). */
  r12Drawer?: R12Drawer | undefined;
}

export interface WriteResult {
  /** Repairs and losses of the conversion, if any. */
  diagnostics: Diagnostic[];
  /** Record types left out because the target version does not know them, with their counts. */
  dropped: Record<string, number>;
  /** What became what for the target version, with counts ('MTEXT -> TEXT': 3). */
  converted: Record<string, number>;
  bytes: number;
}

function prepare(doc: DxfDocument, opts: WriteOptions): ConvertResult {
  const target = opts.version === undefined ? doc.version : resolveVersion(opts.version);
  if (target === doc.version) return { doc, diagnostics: [], dropped: {}, converted: {} };
  return convert(doc, target, { r12Drawer: opts.r12Drawer });
}

/** Handle and pointer codes: 5, 105, 320-369, 390-399, 480-481, xdata 1005. */
function isHandleCode(code: number): boolean {
  return code === 5 || code === 105 || (code >= 320 && code <= 369) || (code >= 390 && code <= 399) || code === 480 || code === 481 || code === 1005;
}

/** A sink writing handles as the file spelled them (lower case), references included. */
function spelledHandles(sink: TagSink, spelling: Map<string, string>): TagSink {
  return {
    tag: (code, value) => sink.tag(code, typeof value === 'string' && isHandleCode(code) ? spelling.get(value) ?? value : value),
    point: (code, p) => sink.point(code, p),
  };
}

/** Whether the drawing is written as binary DXF: as asked, else as it was read. */
export function writesBinary(doc: DxfDocument, opts: WriteOptions): boolean {
  return opts.binary ?? doc.source.format === 'binary';
}

function makeWriter(doc: DxfDocument, emit: (chunk: Buffer) => void, binary: boolean): TagWriter | BinaryTagWriter {
  const utf8 = isUnicodeVersion(doc.version);
  // text of an unknown or unnamed code page was read as cp1252: it goes back byte for byte
  const known = doc.codepageDeclared && isKnownCodepage(doc.encoding);
  const encoder = utf8 ? null : (known ? codecFor(doc.encoding, false) : undeclaredCodec()).encode;
  // Readers choose one- or two-byte group codes from the $ACADVER text (ezdxf: text <= 'AC1009'),
  // so the codes follow the text written there (a kept 'AC2.10' reads as later than AC1009).
  const asRead = doc.acadverAsRead;
  const acadver = asRead && asRead.version === doc.version ? asRead.text : doc.version;
  return binary ? new BinaryTagWriter(emit, encoder, acadver <= 'AC1009') : new TagWriter(emit, encoder);
}

/** Streams the document's DXF text to `emit` in chunks; returns what a conversion reported. */
export function writeDxfChunks(doc: DxfDocument, emit: (chunk: Buffer) => void, opts: WriteOptions = {}): WriteResult {
  const prepared = prepare(doc, opts);
  const writer = makeWriter(prepared.doc, (chunk) => {
    emit(chunk);
    opts.onProgress?.(writer.bytes);
  }, writesBinary(doc, opts));
  const spelling = prepared.doc.handleSpelling;
  // entities kept as their bytes are copied by the ASCII writer (they spell handles as read)
  writeDocument(prepared.doc, spelling.size > 0 ? spelledHandles(writer, spelling) : writer, writer instanceof TagWriter ? writer : undefined);
  writer.flush();
  return { diagnostics: prepared.diagnostics, dropped: prepared.dropped, converted: prepared.converted, bytes: writer.bytes };
}

/** The document as DXF bytes (in its own version and form unless `opts` says otherwise). */
export function writeDxf(doc: DxfDocument, opts: WriteOptions = {}): Buffer {
  return writeDxfWithResult(doc, opts).buffer;
}

export function writeDxfWithResult(doc: DxfDocument, opts: WriteOptions = {}): WriteResult & { buffer: Buffer } {
  const chunks: Buffer[] = [];
  const result = writeDxfChunks(doc, (c) => chunks.push(c), opts);
  return { ...result, buffer: Buffer.concat(chunks) };
}

/**
 * Saves the document atomically: the DXF goes to a temporary file in the same directory, is
 * flushed to disk, then renamed over `path`, so readers never see a half-written drawing.
 */
export async function saveDxf(doc: DxfDocument, path: string, opts: WriteOptions = {}): Promise<WriteResult> {
  return saveDxfSync(doc, path, opts);
}

export function saveDxfSync(doc: DxfDocument, path: string, opts: WriteOptions = {}): WriteResult {
  let result: WriteResult | null = null;
  writeFileAtomicSync(path, (fd) => {
    result = writeDxfChunks(doc, (chunk) => writeAll(fd, chunk), opts);
  });
  return result!;
}
