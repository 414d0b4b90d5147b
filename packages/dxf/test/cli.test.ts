// `linework info` and `linework convert` as the server's bin calls them.
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { convertCommand, infoCommand, readDxfSync } from '../src/index.js';
import { FIXTURES, scratchDir } from './helpers.js';

/** Streams that collect what is written synchronously (like a pipe, not a terminal). */
function io(): { io: { stdout: Writable; stderr: Writable }; out: () => string; err: () => string } {
  let o = '';
  let e = '';
  const stdout = new Writable({ write: (d: Buffer, _enc, done) => ((o += d.toString()), done()) });
  const stderr = new Writable({ write: (d: Buffer, _enc, done) => ((e += d.toString()), done()) });
  return { io: { stdout, stderr }, out: () => o, err: () => e };
}

describe('linework info', () => {
  it('prints version, counts, layers, blocks, layouts and extents', async () => {
    const t = io();
    expect(await infoCommand([FIXTURES + 'r2018.dxf'], t.io)).toBe(0);
    const text = t.out();
    expect(text).toContain('AC1032 (R2018)');
    expect(text).toMatch(/LINE\s+2/);
    expect(text).toContain('Walls');
    expect(text).toContain('DOOR');
    expect(text).toContain('Model (7), Layout1 (0)');
    expect(text).toMatch(/extents:\s+\(/);
  });

  it('prints JSON with --json', async () => {
    const t = io();
    expect(await infoCommand(['--json', FIXTURES + 'r12_ascii.dxf'], t.io)).toBe(0);
    const info = JSON.parse(t.out());
    expect(info).toMatchObject({ version: 'AC1009', release: 'R12', countsByType: { LINE: 2, CIRCLE: 1 } });
    expect(info.extents.min).toHaveLength(3);
  });

  it('fails clearly on a missing or broken file and on bad usage', async () => {
    const t = io();
    expect(await infoCommand([join(tmpdir(), 'nope.dxf')], t.io)).toBe(1);
    expect(t.err()).toContain('no such file');
    const dir = scratchDir('lw-cli-');
    writeFileSync(join(dir, 'bad.dxf'), 'hello\nworld\n');
    const b = io();
    expect(await infoCommand([join(dir, 'bad.dxf')], b.io)).toBe(1);
    expect(b.err()).toContain('line 1: expected a group code, found 5 characters of text');
    const u = io();
    expect(await infoCommand([], u.io)).toBe(2);
    expect(u.err()).toContain('usage: linework info');
  });
});

describe('linework convert', () => {
  it('converts to another version and prints a summary line when stderr is not a terminal', async () => {
    const dir = scratchDir('lw-cli-');
    const out = join(dir, 'out.dxf');
    const t = io();
    expect(await convertCommand([FIXTURES + 'r2018.dxf', out, '--version', 'R12'], t.io)).toBe(0);
    expect(readDxfSync(readFileSync(out)).version).toBe('AC1009');
    expect(t.err()).toMatch(/converted .*r2018\.dxf \(R2018\) -> .*out\.dxf \(R12\): 8 entities/);
    expect(t.err()).toContain('converted: 1 x LWPOLYLINE -> POLYLINE');
    expect(t.err()).toMatch(/dropped: \d+ objects \(OBJECTS section\) \(R12 has no place for them\)/);
    expect(t.err()).not.toContain('\r');
  });

  it('rejects bad versions and missing arguments', async () => {
    const t = io();
    expect(await convertCommand([FIXTURES + 'r2018.dxf', join(tmpdir(), 'x.dxf'), '--version', 'R99'], t.io)).toBe(1);
    expect(t.err()).toContain('unknown DXF version "R99"');
    const u = io();
    expect(await convertCommand([FIXTURES + 'r2018.dxf'], u.io)).toBe(2);
    expect(u.err()).toContain('usage: linework convert');
  });
});
