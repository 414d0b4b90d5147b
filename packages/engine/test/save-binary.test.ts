// save {binary}: binary DXF when asked, ASCII when asked, and otherwise the form the drawing was
// read in (binary in, binary out).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engine, ok } from './helpers.js';

const SENTINEL = 'AutoCAD Binary DXF\r\n\x1a\0';
const dir = mkdtempSync(join(tmpdir(), 'linework-save-binary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const head = (p: string) => readFileSync(p).subarray(0, 22).toString('latin1');
const fixture = new URL('../../dxf/fixtures/r2000.dxf', import.meta.url).pathname;

describe('save {binary}', () => {
  it('writes binary when asked; a binary drawing stays binary; binary false writes ASCII', async () => {
    const e = engine();
    await ok(e, 'document_open', { path: fixture });
    const b = join(dir, 'b.dxf');
    await ok(e, 'save', { path: b, binary: true });
    expect(head(b)).toBe(SENTINEL);
    const e2 = engine();
    await ok(e2, 'document_open', { path: b });
    const again = join(dir, 'again.dxf');
    await ok(e2, 'save', { path: again });
    expect(head(again)).toBe(SENTINEL);
    const a = join(dir, 'a.dxf');
    await ok(e2, 'save', { path: a, binary: false, version: 'R2018' });
    expect(head(a)).not.toBe(SENTINEL);
    expect(readFileSync(a, 'latin1')).toMatch(/AC1032/);
  });
});
