// DWG -> DXF through LibreDWG compiled to WebAssembly (`@mlightcad/libredwg-web`, GPL-3.0). The
// package is never a dependency of Linework: the user installs it (docs/files.md says how and what
// the GPL means), and it is found at run time, through LINEWORK_LIBREDWG or normal resolution.
//
// It runs in a child process: on some files the WebAssembly aborts or throws "function signature
// mismatch", it reserves 1 GB of memory up front and may grow to 4 GB; none of that may reach the
// process that asked (a server holding other drawings).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { DwgError } from '../errors.js';

export const LIBREDWG_PACKAGE = '@mlightcad/libredwg-web';
export const LIBREDWG_INSTALL_HINT =
  `install it with \`npm install ${LIBREDWG_PACKAGE}\` (GPL-3.0; not bundled with Linework), or put it in a folder ` +
  `with \`npm install --prefix DIR ${LIBREDWG_PACKAGE}\` and set LINEWORK_LIBREDWG=DIR; or put the ODA File Converter on PATH`;

export interface LibreDwgPackage {
  /** The package's folder (holds dist/ and wasm/). */
  dir: string;
  version: string;
}

function packageAt(dir: string): LibreDwgPackage | null {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) return null;
  try {
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
    if (pkg.name !== LIBREDWG_PACKAGE) return null;
    if (!existsSync(join(dir, 'dist', 'libredwg-web.js')) || !existsSync(join(dir, 'wasm', 'libredwg-web.wasm'))) return null;
    return { dir, version: pkg.version ?? '?' };
  } catch {
    return null;
  }
}

/**
 * Where libredwg-web is: LINEWORK_LIBREDWG (the package's folder, or a folder it was installed
 * into with `npm install --prefix`), else wherever Node's resolution finds it; null when nowhere.
 */
export function findLibreDwg(env: NodeJS.ProcessEnv = process.env): LibreDwgPackage | null {
  const named = env.LINEWORK_LIBREDWG;
  if (named) {
    const base = resolve(named);
    return packageAt(base) ?? packageAt(join(base, 'node_modules', ...LIBREDWG_PACKAGE.split('/')));
  }
  try {
    // the package exports only its entry points: its folder is two levels above the CommonJS one
    const entry = createRequire(import.meta.url).resolve(LIBREDWG_PACKAGE);
    return packageAt(dirname(dirname(entry)));
  } catch {
    return null;
  }
}

/** What the library's own objects say about the layers (name -> off), when it could tell. */
export type LayerStates = Map<string, boolean>;

// The child's program, given inline: it must run the same from the built package and from the
// TypeScript sources the tests import. It converts LW_DWG_IN to LW_DWG_OUT and reports on stdout
// in one line after MARKER: `ok`, or why not. Then it ends itself with SIGKILL: once the library
// has run, a normal exit of the process was seen to hang for minutes (the runtime's teardown of
// the WebAssembly memory), and nothing is left to flush after the report.
const MARKER = 'linework-libredwg:';
const CHILD = `
const { readFileSync, writeFileSync } = await import('node:fs');
const { pathToFileURL } = await import('node:url');
const dir = process.env.LW_DWG_LIB;
const report = (what) => process.stdout.write('\\n${MARKER}' + what + '\\n', () => process.kill(process.pid, 'SIGKILL'));
try {
  const { LibreDwg } = await import(pathToFileURL(dir + '/dist/libredwg-web.js').href);
  const lib = await LibreDwg.create(dir + '/wasm/');
  const bytes = readFileSync(process.env.LW_DWG_IN);
  const dxf = lib.dwg_write_dxf(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  if (!dxf || dxf.length === 0) report('dwg_write_dxf returned no DXF');
  else {
    writeFileSync(process.env.LW_DWG_OUT, dxf);
    let layers = null;
    try {
      const data = lib.dwg_read_data(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), 0);
      layers = lib.dwg_getall_LAYER(data).map((l) => {
        const name = lib.dwg_dynapi_entity_value(l, 'name');
        const off = lib.dwg_dynapi_entity_value(l, 'off');
        return name.success && off.success ? [String(name.data), Boolean(off.data)] : null;
      }).filter((x) => x !== null);
    } catch {
      layers = null;
    }
    report('ok ' + JSON.stringify({ layers }));
  }
} catch (e) {
  report(String(e && e.message ? e.message : e).replace(/\\s+/g, ' '));
}
`;

// LibreDWG's error bits (include/dwg.h, DWG_ERR_*): the wrapper prints only the number
const LIBREDWG_ERRORS: [number, string][] = [
  [1, 'wrong CRC'], [2, 'not yet supported'], [4, 'unhandled class'], [8, 'invalid type'], [16, 'invalid handle'],
  [32, 'invalid extended data'], [64, 'value out of bounds'], [128, 'classes not found'], [256, 'section not found'],
  [512, 'page not found'], [1024, 'internal error'], [2048, 'invalid DWG'], [4096, 'I/O error'], [8192, 'out of memory'],
];

/** `error code: 2048` in the library's words -> `error code 2048 (invalid DWG)`. */
function explainErrorCode(text: string): string {
  return text.replace(/error code:\s*(\d+)/g, (_all, n: string) => {
    const bits = Number(n);
    const names = LIBREDWG_ERRORS.filter(([bit]) => (bits & bit) !== 0).map(([, name]) => name);
    return `error code ${n}${names.length ? ` (${names.join(', ')})` : ''}`;
  });
}

function layerStates(json: string): LayerStates | null {
  try {
    const parsed = JSON.parse(json) as { layers?: [string, boolean][] | null };
    return parsed.layers ? new Map(parsed.layers) : null;
  } catch {
    return null;
  }
}

/** What the library printed, shortened to its last lines (it may print a line per object). */
function lastLines(text: string, max = 6): string {
  // a native crash prints the runtime's stack: frames say nothing about the drawing
  const frame = /^(\d+: |-----|at |FATAL ERROR|#)/;
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !frame.test(l));
  const kept = lines.slice(-max).join('; ');
  return kept.length > 600 ? '...' + kept.slice(-600) : kept;
}

/**
 * Converts the DWG at `input` to DXF at `output` in a child process; throws a DwgError naming the
 * library and its message when it cannot. `timeoutMs` ends a child that hangs. Also answers which
 * layers the library's own objects say are off: its DXF writer (0.7.14) writes every layer's
 * colour negative (off) whatever the DWG says, so the reader puts the sign right from these.
 */
export async function libreDwgToDxf(pkg: LibreDwgPackage, input: string, output: string, timeoutMs: number): Promise<LayerStates | null> {
  const name = `LibreDWG (${LIBREDWG_PACKAGE} ${pkg.version})`;
  return new Promise<LayerStates | null>((done, fail) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
      env: { ...process.env, LW_DWG_LIB: pkg.dir, LW_DWG_IN: input, LW_DWG_OUT: output },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    const keep = (chunk: Buffer): void => {
      // only the end matters; a library printing per object must not fill memory
      said = (said + chunk.toString('utf8')).slice(-8192);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      fail(new DwgError('invalid_dwg', `${name} could not be started: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const at = said.lastIndexOf(MARKER);
      const report = at >= 0 ? said.slice(at + MARKER.length).split('\n')[0]!.trim() : null;
      if (report !== null && (report === 'ok' || report.startsWith('ok '))) return done(layerStates(report.slice(3)));
      const printed = explainErrorCode(lastLines(at >= 0 ? said.slice(0, at) : said));
      const ended = signal ? `its process ended by ${signal}` : `its process ended with exit code ${code}`;
      const why = timedOut
        ? `no answer within ${Math.round(timeoutMs / 1000)} s`
        : report ?? (printed ? `${ended}: ${printed}` : ended);
      fail(new DwgError('invalid_dwg', `${name} cannot read this DWG: ${why}${report !== null && printed ? ` (it printed: ${printed})` : ''}`));
    });
  });
}
