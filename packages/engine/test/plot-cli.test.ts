// `linework plot` subcommand: arguments, outputs, progress bar on a terminal, exit codes.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dxf } from '../src/dxf.js';
import { plotCommand } from '../src/plot/index.js';
import { add, decodePng, newDoc, pdfPageBoxes } from './render-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'lw-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function io(tty = false) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s), isTTY: tty, columns: 80 } } };
}

async function drawingFile(): Promise<string> {
  const doc = await newDoc();
  add(doc, 'CIRCLE', { color: 1, center: [0, 0, 0], radius: 10 });
  const l = doc.addLayout('Plan');
  add(doc, 'LINE', { start: [0, 0, 0], end: [100, 50, 0] }, l.block.name);
  const file = join(dir, 'in.dxf');
  await dxf.saveDxf(doc, file);
  return file;
}

describe('plotCommand', () => {
  it('plots model space to PNG at a dpi and all layouts to a PDF with a progress bar', async () => {
    const file = await drawingFile();
    const a = io();
    expect(await plotCommand([file, join(dir, 'm.png'), '--dpi', '20', '--paper', 'A4'], a.io)).toBe(0);
    const img = decodePng(readFileSync(join(dir, 'm.png')));
    expect(img.width).toBe(Math.round((297 / 25.4) * 20));
    expect(a.out.join('')).toMatch(/m\.png: Model on A4 \(297 x 210 mm\)/);
    const b = io(true);
    expect(await plotCommand([file, join(dir, 'all.pdf'), '--all'], b.io)).toBe(0);
    expect(pdfPageBoxes(readFileSync(join(dir, 'all.pdf'))).length).toBe(3);
    expect(b.err.join('')).toMatch(/\r\[#+\] 3\/3/);
    const c = io();
    expect(await plotCommand([file, join(dir, 'plan-{page}.svg'), '--layout', 'plan'], c.io)).toBe(0);
    expect(existsSync(join(dir, 'plan-Plan.svg'))).toBe(true);
  });

  it('reports usage and errors with exit codes', async () => {
    const file = await drawingFile();
    const a = io();
    expect(await plotCommand([file], a.io)).toBe(2);
    expect(a.err.join('')).toMatch(/usage: linework plot/);
    const b = io();
    expect(await plotCommand([file, join(dir, 'x.svg'), '--all'], b.io)).toBe(2);
    expect(b.err.join('')).toMatch(/\{page\}/);
    const c = io();
    expect(await plotCommand([join(dir, 'missing.dxf'), join(dir, 'x.pdf')], c.io)).toBe(1);
    const d = io();
    expect(await plotCommand(['--help'], d.io)).toBe(0);
    expect(d.out.join('')).toMatch(/--paper/);
    const e = io();
    expect(await plotCommand([file, join(dir, 'x.pdf'), '--bogus'], e.io)).toBe(2);
  });
});
