// Helpers of the modify tests: an engine with entities, the saved drawing read back by ezdxf.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { active, dump, engine, ok } from './helpers.js';
import type { Engine } from '../src/index.js';

const python = process.env.LINEWORK_PYTHON ?? '/usr/bin/python3';
export const hasEzdxf = existsSync(python) && spawnSync(python, ['-c', 'import ezdxf'], { encoding: 'utf8' }).status === 0;
const script = new URL('./ezdxf_modify.py', import.meta.url).pathname;

export interface EzEntity { type: string; [k: string]: any }

/** Saves the active drawing and reads it with ezdxf: auditor counts and entities by handle. */
export async function ezdxfRead(e: Engine): Promise<{ errors: number; fixes: number; messages: string[]; entities: Record<string, EzEntity> }> {
  const dir = mkdtempSync(join(tmpdir(), 'linework-modify-'));
  try {
    const p = join(dir, 'out.dxf');
    await ok(e, 'save', { path: p });
    const r = spawnSync(python, [script, p], { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`ezdxf_modify.py failed: ${r.stdout}${r.stderr}`);
    return JSON.parse(r.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A fresh engine holding the given entities; their handles in order. */
export async function drawing(entities: Record<string, unknown>[]): Promise<{ e: Engine; h: string[] }> {
  const e = engine();
  const r = await ok(e, 'entities_create', { entities, create_layers: true });
  return { e, h: r.handles };
}

export async function get(e: Engine, handle: string | undefined): Promise<any> {
  return (await ok(e, 'entity_get', { handle })).entities[0];
}

/** Runs a mutating op, then checks undo restores the drawing exactly and redo repeats it. */
export async function undoable(e: Engine, op: string, fields: Record<string, unknown>): Promise<any> {
  const before = dump(active(e).doc);
  const r = await ok(e, op, fields);
  const after = dump(active(e).doc);
  expect(after).not.toBe(before);
  await ok(e, 'undo');
  expect(dump(active(e).doc)).toBe(before);
  await ok(e, 'redo');
  expect(dump(active(e).doc)).toBe(after);
  return r;
}

export function close(a: number[], b: number[], eps = 1e-9): void {
  expect(a.length).toBeGreaterThanOrEqual(b.length);
  b.forEach((v, i) => expect(Math.abs(a[i]! - v), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).toBeLessThan(eps));
}
