// `linework info FILE [--json]` and `linework convert IN OUT [--version V]`: thin commands over the
// reader and writer, called by the `linework` bin of packages/server (through the package's
// `./cli` entry: a process that runs one command loads only what it needs). They print to the
// given streams and return an exit code instead of exiting.
import { statSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { isModelSpaceName, isPaperSpaceName, type DxfDocument } from './document.js';
import { DxfError } from './errors.js';
import { addExtents, toBBox } from './geometry/bbox.js';
import { emptyBox } from './geometry/curves.js';
import { EntitySummary } from './reader/entity-summary.js';
import { readDxf } from './reader/read.js';
import { dwgRelease, dwgVersionOf } from './dwg/detect.js';
import { RELEASE_NAMES, type DxfVersion } from './types.js';
import type { R12Drawer } from './convert/r12-drawn.js';

export interface CommandIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

const RELEASE_BY_VERSION: Record<string, string> = Object.fromEntries(Object.entries(RELEASE_NAMES).map(([r, v]) => [v, r]));
RELEASE_BY_VERSION.AC1003 = 'R2.6';
RELEASE_BY_VERSION.AC1006 = 'R10';

function releaseOf(v: DxfVersion): string {
  return RELEASE_BY_VERSION[v] ?? v;
}

function message(e: unknown): string {
  if (e instanceof DxfError) return e.message;
  const err = e as NodeJS.ErrnoException;
  if (err && err.code === 'ENOENT') return `no such file: ${err.path ?? ''}`;
  return err instanceof Error ? err.message : String(e);
}

/** Progress on a TTY: a bar redrawn in place at most every 100 ms; nothing otherwise. */
class Progress {
  private last = 0;
  constructor(
    private readonly io: CommandIO,
    private readonly label: string,
    private readonly total: number,
  ) {}

  private get tty(): boolean {
    return (this.io.stderr as NodeJS.WriteStream).isTTY === true;
  }

  /** Whether a bar is drawn at all. */
  get shown(): boolean {
    return this.tty && this.total > 0;
  }

  update(done: number): void {
    if (!this.tty || this.total <= 0) return;
    const now = Date.now();
    if (now - this.last < 100 && done < this.total) return;
    this.last = now;
    const frac = Math.min(1, done / this.total);
    const width = 30;
    const filled = Math.round(frac * width);
    this.io.stderr.write(`\r${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.round(frac * 100)}%`);
  }

  end(): void {
    if (this.tty && this.total > 0) this.io.stderr.write('\r\x1b[K');
  }
}

/** Whether the file starts as DWG does (the DWG readers are loaded only for such a file). */
async function isDwg(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(6);
    const { bytesRead } = await fh.read(buf, 0, 6, 0);
    return dwgVersionOf(buf.subarray(0, bytesRead)) !== null;
  } finally {
    await fh.close();
  }
}

/**
 * Reads a file, showing progress by bytes read when stderr is a terminal and the file is large.
 * DWG goes through a converter (no progress: the converter reads it whole).
 */
async function readWithProgress(path: string, io: CommandIO, summary?: EntitySummary): Promise<DxfDocument> {
  if (await isDwg(path)) return (await import('./dwg/read-dwg.js')).readDwg(path);
  const size = statSync(path).size;
  const progress = new Progress(io, 'reading', size > 8 * 1024 * 1024 ? size : 0);
  // without a bar to draw, the reader reads the file itself (into two buffers used in turn,
  // where a stream hands over a fresh megabyte per chunk)
  // Entities are kept as their bytes until read (info reads the geometry only; a conversion to the
  // same version copies them as they are)
  if (!progress.shown) return readDxf(path, { lazy: true, ...(summary ? { summary } : {}) });
  let read = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      read += chunk.length;
      progress.update(read);
      done(null, chunk);
    },
  });
  try {
    return await readDxf(createReadStream(path, { highWaterMark: 1 << 20 }).pipe(counter), summary ? { summary } : {});
  } finally {
    progress.end();
  }
}

interface Info {
  file: string;
  version: DxfVersion;
  release: string;
  encoding: string;
  entities: number;
  countsByType: Record<string, number>;
  layers: string[];
  blocks: string[];
  layouts: { name: string; entities: number }[];
  extents: { min: number[]; max: number[] } | null;
  extentsSource: 'geometry' | 'header' | 'none';
  /** What the drawing was read from: `ascii`/`binary` DXF, or `dwg` with its version and the converter. */
  source: DxfDocument['source'];
  diagnostics: { level: string; code: string; message: string; line?: number }[];
}

function headerPoint(doc: DxfDocument, name: string): number[] | undefined {
  const v = doc.getHeader(name);
  return Array.isArray(v) && v.every((n) => Number.isFinite(n)) ? v : undefined;
}

/**
 * What `info` says of a drawing; with `summary`, of the drawing read with that summary (the
 * entities it counted are not in `doc`: see reader/entity-summary.ts).
 */
export function documentInfo(doc: DxfDocument, file: string, summary?: EntitySummary): Info {
  const countsByType: Record<string, number> = {};
  let entities = 0;
  for (const b of doc.blocks.values()) {
    for (const e of b.entities) {
      countsByType[e.type] = (countsByType[e.type] ?? 0) + 1;
      entities++;
    }
  }
  for (const [type, n] of summary?.countsByType() ?? []) {
    countsByType[type] = (countsByType[type] ?? 0) + n;
    entities += n;
  }
  // (type names are ASCII: compared by code unit, without the collator localeCompare starts up)
  const sorted = Object.fromEntries(Object.entries(countsByType).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
  const layers = (doc.tables.get('LAYER')?.entries ?? []).map((e) => String(e.attrs.name ?? ''));
  const blocks = [...doc.blocks.values()].map((b) => b.name).filter((n) => !isModelSpaceName(n) && !isPaperSpaceName(n));
  const layouts = doc.layouts().map((l) => ({ name: l.name, entities: l.block.entities.length + (summary?.countIn(l.block) ?? 0) }));
  let ext: Info['extents'] = null;
  let extentsSource: Info['extentsSource'] = 'none';
  // model space's entities grow the box of those the summary counted
  const acc = summary ? summary.modelBox.slice() : emptyBox();
  addExtents(acc, doc.modelSpace().entities, doc);
  const box = toBBox(acc);
  if (box) {
    ext = { min: [...box.min], max: [...box.max] };
    extentsSource = 'geometry';
  } else {
    const min = headerPoint(doc, '$EXTMIN');
    const max = headerPoint(doc, '$EXTMAX');
    if (min && max && min[0]! <= max[0]!) {
      ext = { min, max };
      extentsSource = 'header';
    }
  }
  return {
    file,
    version: doc.version,
    release: releaseOf(doc.version),
    encoding: doc.version >= 'AC1021' ? 'UTF-8' : doc.encoding,
    entities,
    countsByType: sorted,
    layers,
    blocks,
    layouts,
    extents: ext,
    extentsSource,
    source: doc.source,
    diagnostics: doc.diagnostics.map((d) => ({ ...d })),
  };
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(4).replace(/0+$/, '').replace(/\.$/, '');
}

function printInfo(info: Info, out: NodeJS.WritableStream): void {
  const lines = [
    `file:      ${info.file}`,
    `version:   ${info.version} (${info.release}), text ${info.encoding}`,
    ...(info.source.format === 'dwg' ? [`read from: DWG ${info.source.dwgVersion} (${dwgRelease(info.source.dwgVersion)}) through ${info.source.reader}`] : info.source.format === 'binary' ? ['read from: binary DXF'] : []),
    `entities:  ${info.entities}`,
    ...Object.entries(info.countsByType).map(([t, n]) => `  ${t.padEnd(20)} ${n}`),
    `layers:    ${info.layers.length}${info.layers.length ? ' (' + info.layers.slice(0, 20).join(', ') + (info.layers.length > 20 ? ', ...' : '') + ')' : ''}`,
    `blocks:    ${info.blocks.length}${info.blocks.length ? ' (' + info.blocks.slice(0, 20).join(', ') + (info.blocks.length > 20 ? ', ...' : '') + ')' : ''}`,
    `layouts:   ${info.layouts.map((l) => `${l.name} (${l.entities})`).join(', ')}`,
    `extents:   ${info.extents ? `(${info.extents.min.map(fmt).join(', ')}) - (${info.extents.max.map(fmt).join(', ')})${info.extentsSource === 'header' ? ' [from header]' : ''}` : 'none'}`,
  ];
  if (info.diagnostics.length) {
    lines.push(`repairs:   ${info.diagnostics.length}`);
    for (const d of info.diagnostics.slice(0, 10)) lines.push(`  ${d.level}: ${d.line ? `line ${d.line}: ` : ''}${d.message}`);
  }
  out.write(lines.join('\n') + '\n');
}

const INFO_USAGE = 'usage: linework info FILE [--json]\n';
const CONVERT_USAGE = 'usage: linework convert IN OUT [--version R12|R2000|R2004|R2007|R2010|R2013|R2018|AC10xx] [--binary | --ascii] [--recover]\n';

export async function infoCommand(args: string[], io: CommandIO): Promise<number> {
  const json = args.includes('--json');
  const files = args.filter((a) => a !== '--json');
  const unknown = files.filter((a) => a.startsWith('--'));
  if (files.length !== 1 || unknown.length) {
    io.stderr.write(unknown.length ? `linework info: unknown option ${unknown[0]}\n${INFO_USAGE}` : INFO_USAGE);
    return 2;
  }
  const file = files[0]!;
  try {
    // most entities are counted as they are read, without a record; a drawing whose reading
    // repaired anything is read again whole
    let summary: EntitySummary | undefined = new EntitySummary();
    let doc = await readWithProgress(file, io, summary);
    if (!summary.trustworthy(doc)) {
      summary = undefined;
      doc = await readWithProgress(file, io);
    }
    const info = documentInfo(doc, file, summary);
    if (json) io.stdout.write(JSON.stringify(info, null, 2) + '\n');
    else printInfo(info, io.stdout);
    return 0;
  } catch (e) {
    io.stderr.write(`linework info: ${file}: ${message(e)}\n`);
    return 1;
  }
}

export interface ConvertCommandOptions {
  /** Draws, for R12, what R12 has no type for (the linework CLI gives the engine's renderer's). */
  r12Drawer?: R12Drawer;
}

export async function convertCommand(args: string[], io: CommandIO, opts: ConvertCommandOptions = {}): Promise<number> {
  const positional: string[] = [];
  let version: string | undefined;
  let recover = false;
  // binary DXF in stays binary out unless --ascii; --binary writes binary from any input
  let binary: boolean | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--recover') recover = true;
    else if (a === '--binary' || a === '--ascii') {
      if (binary !== undefined && binary !== (a === '--binary')) {
        io.stderr.write(`linework convert: --binary and --ascii exclude each other\n${CONVERT_USAGE}`);
        return 2;
      }
      binary = a === '--binary';
    }
    else if (a === '--version') {
      version = args[++i];
      if (version === undefined) {
        io.stderr.write(`linework convert: --version needs a value\n${CONVERT_USAGE}`);
        return 2;
      }
    } else if (a.startsWith('--version=')) version = a.slice('--version='.length);
    else if (a.startsWith('--')) {
      io.stderr.write(`linework convert: unknown option ${a}\n${CONVERT_USAGE}`);
      return 2;
    } else positional.push(a);
  }
  if (positional.length !== 2) {
    io.stderr.write(CONVERT_USAGE);
    return 2;
  }
  const [input, output] = positional as [string, string];
  const started = Date.now();
  try {
    // the writer (and the conversions it holds) is loaded by the command that writes
    const [{ resolveVersion }, { saveDxf, writesBinary }] = await Promise.all([import('./convert/convert.js'), import('./writer/write.js')]);
    const target = version !== undefined ? resolveVersion(version) : undefined;
    const doc = await readWithProgress(input, io);
    // what reading repaired; errors mean the input was damaged and records were lost
    for (const d of doc.diagnostics) io.stderr.write(`${d.level}: ${d.line ? `line ${d.line}: ` : ''}${d.message}\n`);
    const damage = doc.diagnostics.filter((d) => d.level === 'error').length;
    if (damage > 0 && !recover) {
      io.stderr.write(`linework convert: ${input} is damaged (${damage} error${damage === 1 ? '' : 's'} above): nothing written; --recover writes what was read whole\n`);
      return 1;
    }
    let entities = 0;
    for (const b of doc.blocks.values()) entities += b.entities.length;
    const progress = new Progress(io, 'writing', entities > 200_000 ? 1 : 0);
    const estimate = Math.max(1, statSync(input).size);
    const result = await saveDxf(doc, output, {
      ...(target ? { version: target } : {}),
      ...(binary !== undefined ? { binary } : {}),
      ...(opts.r12Drawer ? { r12Drawer: opts.r12Drawer } : {}),
      onProgress: (bytes) => progress.update(Math.min(0.99, bytes / estimate)),
    });
    progress.end();
    const to = target ?? doc.version;
    // what the conversion did: every conversion, every drop
    for (const d of result.diagnostics.filter((x) => x.code !== 'converted' && x.code !== 'dropped')) {
      io.stderr.write(`${d.level}: ${d.line ? `line ${d.line}: ` : ''}${d.message}\n`);
    }
    for (const [kind, n] of Object.entries(result.converted)) io.stderr.write(`converted: ${n} x ${kind}\n`);
    for (const [kind, n] of Object.entries(result.dropped)) io.stderr.write(`dropped: ${n} ${kind} (${releaseOf(to)} has no place for ${n === 1 ? 'it' : 'them'})\n`);
    const seconds = ((Date.now() - started) / 1000).toFixed(2);
    const form = writesBinary(doc, binary !== undefined ? { binary } : {}) ? ', binary' : '';
    io.stderr.write(`converted ${input} (${releaseOf(doc.version)}) -> ${output} (${releaseOf(to)}${form}): ${entities} entities, ${result.bytes} bytes in ${seconds} s\n`);
    return 0;
  } catch (e) {
    io.stderr.write(`linework convert: ${message(e)}\n`);
    return 1;
  }
}

/** The usage lines, for the `linework` bin's --help. */
export { INFO_USAGE, CONVERT_USAGE };
