// Shared by the DXF tests: building DXF text, running the ezdxf check script.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, onTestFinished } from 'vitest';
import { ValueKind, valueKind } from '../src/tags/group-codes.js';
import type { Tag } from '../src/types.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
export const EZDXF_CHECK = fileURLToPath(new URL('./ezdxf_check.py', import.meta.url));
export const PYTHON = process.env.LINEWORK_PYTHON || '/usr/bin/python3';

/**
 * A new folder in the system's temporary folder, removed when the test that asked for it ends
 * (asked for outside a test: when the suite around it, or the file, ends). Not for a hook's body
 * (beforeAll): there it would register a hook inside a hook; ask in the suite's body instead.
 */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  if (expect.getState().currentTestName === undefined) afterAll(remove);
  else onTestFinished(remove);
  return dir;
}

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

/** Binary DXF (R13+ layout: two-byte codes, values typed by code range) of the given tags. */
export function binaryDxf(tags: Tag[]): Buffer {
  const parts: Buffer[] = [Buffer.from('AutoCAD Binary DXF\r\n\x1a\x00', 'latin1')];
  for (const [code, v] of tags) {
    const c = Buffer.alloc(2);
    c.writeUInt16LE(code);
    parts.push(c);
    const kind = valueKind(code);
    const n = Number(v);
    let b: Buffer;
    if (kind === ValueKind.Double) (b = Buffer.alloc(8)).writeDoubleLE(n);
    else if (kind === ValueKind.Int16) (b = Buffer.alloc(2)).writeInt16LE(n);
    else if (kind === ValueKind.Int32) (b = Buffer.alloc(4)).writeInt32LE(n);
    else if (kind === ValueKind.Int64) (b = Buffer.alloc(8)).writeBigInt64LE(BigInt(v.trim()));
    else if (kind === ValueKind.Bool) b = Buffer.from([n]);
    else if (kind === ValueKind.Binary) b = Buffer.concat([Buffer.from([v.length / 2]), Buffer.from(v, 'hex')]);
    else b = Buffer.from(v + '\0', 'latin1');
    parts.push(b);
  }
  return Buffer.concat(parts);
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

export const EZDXF_VIEW = fileURLToPath(new URL('./ezdxf_view.py', import.meta.url));

/** What differs in one category of ezdxf's view of two files (records compared, handles ignored). */
export interface ViewDifference {
  changed: number;
  lost: number;
  added: number;
  example: string;
}

export type ViewCategory = 'entities' | 'tables' | 'blocks' | 'objects' | 'xdata' | 'header';

export interface ViewResult {
  original: string;
  written: string;
  original_audit?: [number, number];
  written_audit?: [number, number];
  original_error?: string;
  written_error?: string;
  differences?: Partial<Record<ViewCategory, ViewDifference>>;
}

/**
 * ezdxf's view of each pair compared record by record, handles replaced by the place of what they
 * point to (ezdxf_view.py). `as_version` exports both in that version (a drawing beside its
 * conversion).
 */
export function ezdxfView(pairs: { original: string; written: string; as_version?: string; ignore_header?: string[] }[]): ViewResult[] {
  requireEzdxf();
  const r = spawnSync(PYTHON, [EZDXF_VIEW], { input: JSON.stringify(pairs), encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`ezdxf view failed: ${r.stderr}`);
  return r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as ViewResult);
}

/** The differences of the given categories, as `category: example` lines (empty when equal). */
export function viewDifferences(r: ViewResult, categories: ViewCategory[]): string[] {
  if (r.original_error) return [`original: ${r.original_error}`];
  if (r.written_error) return [`written: ${r.written_error}`];
  return categories.flatMap((c) => {
    const d = r.differences?.[c];
    return d ? [`${c}: ${d.changed} changed, ${d.lost} lost, ${d.added} added (${d.example})`] : [];
  });
}

export interface R12Check {
  original: { polylines: Record<string, unknown>; texts: Record<string, string[]> };
  converted: { polylines: Record<string, unknown>; texts: Record<string, string[]> };
  colors: { handle?: string; layer?: string; type?: string; aci: number | null; nearest: number }[];
  viewports_r12: { handle: string; ezdxf: unknown; ours: unknown }[];
  audit: [number, number];
  audit_messages: string[];
  version: string;
}

/** What a drawing and its R12 conversion draw, as ezdxf reads them (ezdxf_r12.py). */
export function ezdxfR12(original: string, converted: string): R12Check {
  requireEzdxf();
  const script = fileURLToPath(new URL('./ezdxf_r12.py', import.meta.url));
  const r = spawnSync(PYTHON, [script, original, converted], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`ezdxf cannot read the R12 file: ${r.stderr.trim().split('\n').at(-1)}`);
  return JSON.parse(r.stdout) as R12Check;
}

/** Where each tag of an R13+ binary DXF starts (byte offset of its two-byte code), with its code and text value. */
export function binaryTagOffsets(b: Buffer): { at: number; code: number; value: string }[] {
  const out: { at: number; code: number; value: string }[] = [];
  let p = 22;
  while (p + 2 <= b.length) {
    const at = p;
    const code = b.readUInt16LE(p);
    p += 2;
    const kind = valueKind(code);
    let value = '';
    if (kind === ValueKind.Double || kind === ValueKind.Int64) p += 8;
    else if (kind === ValueKind.Int16) p += 2;
    else if (kind === ValueKind.Int32) p += 4;
    else if (kind === ValueKind.Bool) p += 1;
    else if (kind === ValueKind.Binary) p += 1 + b[p]!;
    else {
      const z = b.indexOf(0, p);
      if (z < 0) break;
      value = b.toString('latin1', p, z);
      p = z + 1;
    }
    out.push({ at, code, value });
  }
  return out;
}
