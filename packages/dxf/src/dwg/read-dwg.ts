// Reading DWG: never with a reader of our own. A converter turns the DWG into DXF in a temporary
// folder (the ODA File Converter when it is on PATH, else LibreDWG's WebAssembly build when it is
// installed) and the DXF reader reads that. The drawing keeps the DWG's version.
import { copyFile, mkdir, mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DxfDocument } from '../document.js';
import { DwgError } from '../errors.js';
import { readDxf, type ReadOptions } from '../reader/read.js';
import { dwgRelease, dwgVersionOf, isReadableDwgVersion } from './detect.js';
import { LIBREDWG_INSTALL_HINT, LIBREDWG_PACKAGE, findLibreDwg, libreDwgToDxf, type LayerStates } from './libredwg.js';
import { findOdaFileConverter, odaToDxf } from './odafc.js';

export type DwgReaderName = 'libredwg' | 'oda';

/** The first bytes of a file (fewer when it is shorter). */
async function head(path: string, n: number): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** The DWG version of the file at `path` (`AC1015`), or null when it is not DWG. */
export async function dwgFileVersion(path: string): Promise<string | null> {
  return dwgVersionOf(await head(path, 6));
}

/** Which converter reads DWG here: LINEWORK_DWG_READER (libredwg, oda) chooses, else ODA first. */
function chooseReader(env: NodeJS.ProcessEnv): { name: DwgReaderName; oda?: string } {
  const wanted = env.LINEWORK_DWG_READER?.trim().toLowerCase();
  if (wanted && wanted !== 'libredwg' && wanted !== 'oda') {
    throw new DwgError('dwg_reader_missing', `LINEWORK_DWG_READER is ${JSON.stringify(env.LINEWORK_DWG_READER)}: it must be libredwg or oda`);
  }
  const oda = wanted === 'libredwg' ? null : findOdaFileConverter(env);
  if (oda) return { name: 'oda', oda };
  if (wanted === 'oda') throw new DwgError('dwg_reader_missing', 'LINEWORK_DWG_READER is oda but the ODA File Converter (ODAFileConverter) is not on PATH');
  return { name: 'libredwg' };
}

/** Time a converter gets: a minute, and a second more per MB. */
function timeoutFor(bytes: number): number {
  return 60_000 + bytes / 1000;
}

/**
 * Reads the DWG drawing at `path` through a converter; throws a DwgError when no converter is
 * installed (the message says how to install one) or the converter cannot read it (the message
 * names the converter and what it said).
 */
export async function readDwg(path: string, opts: ReadOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<DxfDocument> {
  const version = await dwgFileVersion(path);
  if (version === null) throw new DwgError('invalid_dwg', 'not a DWG file: it does not start with a DWG version (AC1015 ...)');
  const { size } = await stat(path);
  const reader = chooseReader(env);
  const lib = reader.name === 'libredwg' ? findLibreDwg(env) : null;
  if (reader.name === 'libredwg' && !lib) {
    throw new DwgError('dwg_reader_missing', `reading DWG needs LibreDWG's ${LIBREDWG_PACKAGE} or the ODA File Converter, and neither is installed: ${LIBREDWG_INSTALL_HINT}`);
  }
  if (!isReadableDwgVersion(version)) {
    throw new DwgError('invalid_dwg', `DWG version ${version} (${dwgRelease(version)}) is not read: DWG is read from R13 (AC1012) to R2018 (AC1032)`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'linework-dwg-'));
  try {
    let dxfPath: string;
    let readerName: string;
    let layerStates: LayerStates | null = null;
    if (reader.name === 'oda') {
      const inFolder = join(dir, 'in');
      const outFolder = join(dir, 'out');
      await Promise.all([mkdir(inFolder), mkdir(outFolder)]);
      await copyFile(path, join(inFolder, 'drawing.dwg'));
      dxfPath = await odaToDxf(reader.oda!, inFolder, 'drawing', outFolder, version, timeoutFor(size));
      readerName = 'ODA File Converter';
    } else {
      dxfPath = join(dir, 'drawing.dxf');
      layerStates = await libreDwgToDxf(lib!, path, dxfPath, timeoutFor(size));
      readerName = `LibreDWG (${LIBREDWG_PACKAGE} ${lib!.version})`;
    }
    const doc = await readDxf(dxfPath, opts);
    if (layerStates) fixLayerSigns(doc, layerStates);
    doc.source = { format: 'dwg', dwgVersion: version, reader: readerName };
    return doc;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A layer is off when its colour is negative: the sign follows what the library's objects say. */
function fixLayerSigns(doc: DxfDocument, off: LayerStates): void {
  for (const entry of doc.tables.get('LAYER')?.entries ?? []) {
    const isOff = off.get(String(entry.attrs.name ?? ''));
    const color = entry.attrs.color;
    if (isOff === undefined || typeof color !== 'number' || color === 0) continue;
    entry.attrs.color = isOff ? -Math.abs(color) : Math.abs(color);
  }
}

/** Reads a drawing file, DXF (ASCII or binary) or DWG, told apart by its first bytes. */
export async function readDrawing(path: string, opts: ReadOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<DxfDocument> {
  if (await dwgFileVersion(path)) return readDwg(path, opts, env);
  return readDxf(path, opts);
}
