// Test helpers: an engine, one-line calls through the dispatcher, document dumps for undo checks.
import { expect } from 'vitest';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createEngine, Engine, Workspace, type EngineOptions, type ProtocolResponse } from '../src/index.js';
import type { DocumentApi } from '../src/dxf.js';
import { outputProblems } from './output-check.js';

/** The checkout (fixtures) and the system's temporary folder (each test's files). */
export const TEST_ROOTS = [fileURLToPath(new URL('../../..', import.meta.url)), tmpdir()];

export function engine(opts: EngineOptions = {}): Engine {
  return createEngine({ appVersion: '9.9.9-test', workspace: new Workspace(TEST_ROOTS), ...opts });
}

let serial = 0;
/** Runs an op; a success answer must match the op's output schema. */
export async function call(e: Engine, op: string, fields: Record<string, unknown> = {}): Promise<ProtocolResponse> {
  const res = await e.dispatch({ protocol: 1, op, ...fields });
  const problems = outputProblems(e.ops.values(), op, res);
  if (problems) throw new Error(problems);
  return res;
}

/** Runs an op and returns its result, failing the test with the error when it fails. */
export async function ok<T = any>(e: Engine, op: string, fields: Record<string, unknown> = {}): Promise<T> {
  const r = await call(e, op, { request_id: `t-${++serial}`, ...fields });
  if (!r.ok) throw new Error(`${op} failed: ${r.code}: ${r.error}`);
  return r.result as T;
}

export async function fails(e: Engine, op: string, fields: Record<string, unknown>, code: string): Promise<ProtocolResponse> {
  const r = await call(e, op, fields);
  expect(r.ok, `${op} should fail with ${code}`).toBe(false);
  expect(r.code, r.error).toBe(code);
  return r;
}

/** A JSON dump of a document's records (without $HANDSEED, which only grows). */
export function dump(doc: DocumentApi): string {
  const header = [...doc.header].filter(([k]) => k !== '$HANDSEED');
  const tables = [...doc.tables].map(([n, t]) => [n, t.head, t.entries]);
  const blocks = [...doc.blocks.values()].map((b) => [b.name, b.block, b.entities, b.endblk]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  return JSON.stringify({ header, tables, blocks, objects: doc.objects });
}

export function active(e: Engine) {
  return e.active!;
}
