// Shared by the DXF tests: building DXF text, running the ezdxf check script.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
export const EZDXF_CHECK = fileURLToPath(new URL('./ezdxf_check.py', import.meta.url));
export const PYTHON = process.env.LINEWORK_PYTHON || '/usr/bin/python3';

/** DXF text from [code, value] pairs, with LF line ends. */
export function dxf(tags: [number, string | number][], eol = '\n'): Buffer {
  return Buffer.from(tags.map(([c, v]) => `${String(c).padStart(3)}${eol}${v}${eol}`).join(''), 'latin1');
}

/** A minimal R2000-style drawing with the given ENTITIES tags. */
export function minimalDxf(entityTags: [number, string | number][], version = 'AC1015'): Buffer {
  return dxf([
    [0, 'SECTION'], [2, 'HEADER'], [9, '$ACADVER'], [1, version], [0, 'ENDSEC'],
    [0, 'SECTION'], [2, 'ENTITIES'], ...entityTags, [0, 'ENDSEC'], [0, 'EOF'],
  ]);
}

let ezdxfAvailable: boolean | undefined;

/** Whether Debian's ezdxf can be imported by the configured Python. */
export function hasEzdxf(): boolean {
  if (ezdxfAvailable === undefined) {
    ezdxfAvailable = existsSync(PYTHON) && spawnSync(PYTHON, ['-c', 'import ezdxf'], { stdio: 'ignore' }).status === 0;
  }
  return ezdxfAvailable;
}

/** Whether the environment says it is a CI run (CI=true, CI=1 ...; CI=false or 0 does not). */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.CI?.trim().toLowerCase();
  return v !== undefined && v !== '' && v !== '0' && v !== 'false';
}

/**
 * Whether tests needing ezdxf are skipped: locally when it is missing, never under CI, where they
 * run and fail (see `requireEzdxf`) so a missing install cannot pass as a green run.
 */
export function skipWithoutEzdxf(env: NodeJS.ProcessEnv = process.env, available: () => boolean = hasEzdxf): boolean {
  return !isCi(env) && !available();
}

function requireEzdxf(): void {
  if (!hasEzdxf()) {
    throw new Error(`ezdxf cannot be imported by ${PYTHON}: install python3-ezdxf or set LINEWORK_PYTHON to a Python that has it`);
  }
}

export interface EzdxfResult {
  original: string;
  written: string;
  original_audit?: [number, number];
  written_audit?: [number, number];
  original_error?: string;
  written_error?: string;
  written_messages?: string[];
  written_fix_messages?: string[];
  problems: string[];
}

/** Runs the ezdxf check over many pairs in one Python process. */
export function ezdxfCompare(pairs: { original: string; written: string }[]): EzdxfResult[] {
  requireEzdxf();
  const r = spawnSync(PYTHON, [EZDXF_CHECK, 'compare'], { input: JSON.stringify(pairs), encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`ezdxf check failed: ${r.stderr}`);
  return r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as EzdxfResult);
}

/** Has ezdxf write its sample drawing in a DXF version ('R12', 'R2000', ...) to `out`. */
export function ezdxfWrite(version: string, out: string): void {
  requireEzdxf();
  const r = spawnSync(PYTHON, [EZDXF_CHECK, 'write', version, out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ezdxf write failed: ${r.stderr}`);
}
