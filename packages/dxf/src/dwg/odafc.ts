// DWG -> DXF through the ODA File Converter, the way ezdxf's `odafc` add-on runs it:
// `ODAFileConverter IN_FOLDER OUT_FOLDER ACAD2018 DXF 0 0 FILTER` converts the files of a folder.
// The drawing is copied alone into a temporary folder under a plain name, so a name with pattern
// characters or other files beside it change nothing. On Linux the converter is a Qt program that
// opens a window and often crashes on exit after a good conversion (ezdxf notes the same): no
// display is given it (Qt's offscreen platform) and success is the output file, not the exit code.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { DwgError } from '../errors.js';

export const ODAFC_NAME = 'ODAFileConverter';

const OUTPUT_VERSION: Record<string, string> = {
  AC1012: 'ACAD13', AC1014: 'ACAD14', AC1015: 'ACAD2000', AC1018: 'ACAD2004', AC1021: 'ACAD2007', AC1024: 'ACAD2010',
  AC1027: 'ACAD2013', AC1032: 'ACAD2018',
};

/** The ODA File Converter's path when it is on PATH (LINEWORK_ODAFC names it otherwise), or null. */
export function findOdaFileConverter(env: NodeJS.ProcessEnv = process.env): string | null {
  const executable = (p: string): boolean => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (env.LINEWORK_ODAFC) return executable(env.LINEWORK_ODAFC) ? env.LINEWORK_ODAFC : null;
  const names = process.platform === 'win32' ? [`${ODAFC_NAME}.exe`] : [ODAFC_NAME];
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const n of names) if (executable(join(dir, n))) return join(dir, n);
  }
  return null;
}

/**
 * Runs the converter on `inFolder/name.dwg` (alone in its folder), writing `outFolder/name.dxf`
 * in the DWG's own version; throws a DwgError with the converter's words when no DXF comes out.
 */
export async function odaToDxf(converter: string, inFolder: string, name: string, outFolder: string, dwgVersion: string, timeoutMs: number): Promise<string> {
  const output = join(outFolder, `${name}.dxf`);
  const args = [inFolder, outFolder, OUTPUT_VERSION[dwgVersion] ?? 'ACAD2018', 'DXF', '0', '0', `${name}.dwg`];
  const env = { ...process.env };
  if (process.platform === 'linux' && !env.DISPLAY) env.QT_QPA_PLATFORM = 'offscreen';
  const said = await new Promise<string>((done, fail) => {
    const child = spawn(converter, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    const keep = (chunk: Buffer): void => {
      text = (text + chunk.toString('utf8')).slice(-8192);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      text += `\nno answer within ${Math.round(timeoutMs / 1000)} s`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      fail(new DwgError('invalid_dwg', `the ODA File Converter (${converter}) could not be started: ${e.message}`));
    });
    child.on('close', () => {
      clearTimeout(timer);
      done(text);
    });
  });
  if (!existsSync(output) || statSync(output).size === 0) {
    // the converter writes what it found wrong to NAME.err beside the output
    const lines = said.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '').slice(-6).join('; ');
    throw new DwgError('invalid_dwg', `the ODA File Converter cannot read this DWG: ${lines || 'it wrote no DXF'}`);
  }
  return output;
}
