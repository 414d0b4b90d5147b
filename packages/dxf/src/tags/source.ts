// Where DXF bytes come from: a Buffer (scanned in slices, never as one string), a file path or a
// Node Readable (both streamed in chunks). The first bytes decide between ASCII and binary DXF.
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Diagnostic } from '../document-api.js';
import { AsciiTagScanner } from './ascii-scanner.js';
import { BINARY_SENTINEL, BinaryTagScanner } from './binary-scanner.js';
import type { DecodingControl, RecordSink } from './record-sink.js';

export type DxfInput = Buffer | Uint8Array | string | Readable;

export interface TagScanner extends DecodingControl {
  feed(chunk: Uint8Array): void;
  end(): void;
  readonly finished: boolean;
}

/** A sink that is told which scanner feeds it, so it can switch the decoding mid-file. */
export interface ScannerAwareSink extends RecordSink {
  attach?(scanner: TagScanner, binary: boolean): void;
}

const SLICE = 1 << 20;

/** Feeds chunks to the right scanner, deciding ASCII or binary once 22 bytes are known. */
export class InputPump {
  private head: Uint8Array | null = null;
  private scanner: TagScanner | null = null;

  constructor(
    private readonly sink: ScannerAwareSink,
    private readonly onDiagnostic: (d: Diagnostic) => void,
  ) {}

  get finished(): boolean {
    return this.scanner?.finished ?? false;
  }

  push(chunk: Uint8Array): void {
    if (this.scanner) {
      this.feedSliced(chunk);
      return;
    }
    const head: Uint8Array = this.head ? Buffer.concat([this.head, chunk]) : chunk;
    if (head.length < BINARY_SENTINEL.length) {
      // a copy: the caller may reuse the chunk's memory
      this.head = Buffer.from(head);
      return;
    }
    this.head = null;
    this.start(head);
  }

  end(): void {
    if (!this.scanner) {
      const head = this.head ?? new Uint8Array(0);
      this.head = null;
      this.start(head);
    }
    this.scanner!.end();
  }

  /**
   * The whole input at once (nothing pushed before): ASCII DXF is scanned in one pass, so that
   * each record knows where its bytes lie (`TagRecord.byteStart`); binary as `push` would.
   */
  pushWhole(bytes: Uint8Array): void {
    const binary = bytes.length >= BINARY_SENTINEL.length && BINARY_SENTINEL.equals(bytes.subarray(0, BINARY_SENTINEL.length));
    if (binary || bytes.length < BINARY_SENTINEL.length) {
      this.push(bytes);
      return;
    }
    const scanner = new AsciiTagScanner(this.sink, this.onDiagnostic);
    this.scanner = scanner;
    this.sink.attach?.(scanner, false);
    scanner.scanWhole(bytes);
  }

  private start(head: Uint8Array): void {
    const binary = head.length >= BINARY_SENTINEL.length && BINARY_SENTINEL.equals(head.subarray(0, BINARY_SENTINEL.length));
    this.scanner = binary ? new BinaryTagScanner(this.sink, this.onDiagnostic) : new AsciiTagScanner(this.sink, this.onDiagnostic);
    this.sink.attach?.(this.scanner, binary);
    this.feedSliced(binary ? head.subarray(BINARY_SENTINEL.length) : head);
  }

  private feedSliced(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length && !this.scanner!.finished; i += SLICE) {
      this.scanner!.feed(chunk.subarray(i, Math.min(chunk.length, i + SLICE)));
    }
  }
}

/**
 * Scans a whole buffer synchronously; `whole`: in one pass, each ASCII record knowing its place in
 * `bytes` (the caller then keeps `bytes` unchanged for as long as it uses those places).
 */
export function pumpBuffer(bytes: Uint8Array, sink: ScannerAwareSink, onDiagnostic: (d: Diagnostic) => void, whole = false): void {
  const pump = new InputPump(sink, onDiagnostic);
  if (whole) pump.pushWhole(bytes);
  else pump.push(bytes);
  pump.end();
}

/** Scans a path, a stream or a buffer; a stream is read chunk by chunk and closed early at EOF. */
export async function pumpInput(input: DxfInput, sink: ScannerAwareSink, onDiagnostic: (d: Diagnostic) => void): Promise<void> {
  if (input instanceof Uint8Array) {
    pumpBuffer(input, sink, onDiagnostic);
    return;
  }
  if (typeof input === 'string') return pumpFile(input, sink, onDiagnostic);
  const pump = new InputPump(sink, onDiagnostic);
  for await (const chunk of input) {
    pump.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Uint8Array));
    if (pump.finished) break;
  }
  pump.end();
}

/**
 * Reads a file into two buffers used in turn (the scanners keep no view of a chunk past its
 * `feed`): a stream's fresh megabyte per chunk was memory the process had to be given anew each
 * time. The next chunk is read while one is scanned.
 */
async function pumpFile(path: string, sink: ScannerAwareSink, onDiagnostic: (d: Diagnostic) => void): Promise<void> {
  const file = await open(path, 'r');
  let reading: Promise<{ bytesRead: number }> | null = null;
  try {
    const pump = new InputPump(sink, onDiagnostic);
    const bufs = [Buffer.allocUnsafeSlow(SLICE), Buffer.allocUnsafeSlow(SLICE)];
    let k = 0;
    reading = file.read(bufs[0]!, 0, SLICE, null);
    for (;;) {
      const { bytesRead } = await reading;
      reading = null;
      if (bytesRead === 0) break;
      const chunk = bufs[k]!.subarray(0, bytesRead);
      k ^= 1;
      reading = file.read(bufs[k]!, 0, SLICE, null);
      pump.push(chunk);
      if (pump.finished) break;
    }
    pump.end();
  } finally {
    // a read still under way (EOF seen, or the scan failed) ends before the file is closed
    if (reading) await reading.catch(() => undefined);
    await file.close();
  }
}
