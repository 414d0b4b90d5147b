// plot(): formats, page sizes from page setups, several pages, {page} files, errors; page setups
// stored in the LAYOUT object and surviving save + open.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dxf } from '../src/dxf.js';
import { OpError } from '../src/protocol.js';
import { parsePaper, plot, readPageSetup, setPageSetup } from '../src/plot/index.js';
import { add, decodePng, hasCommand, newDoc, pdfPageBoxes, readDoc } from './render-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'lw-plot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MM = 72 / 25.4;

async function sample() {
  const doc = await newDoc();
  add(doc, 'LINE', { color: 1, start: [0, 0, 0], end: [200, 100, 0] });
  add(doc, 'CIRCLE', { center: [100, 50, 0], radius: 40 });
  add(doc, 'TEXT', { insert: [10, 10, 0], height: 5, text: 'Linework' });
  const a = doc.addLayout('Sheet A');
  add(doc, 'LINE', { start: [0, 0, 0], end: [100, 100, 0] }, a.block.name);
  add(doc, 'VIEWPORT', { center: [150, 100, 0], width: 200, height: 120, status: 1, id: 2, view_center_point: [100, 50], view_height: 110 }, a.block.name);
  const b = doc.addLayout('Sheet B');
  add(doc, 'CIRCLE', { center: [50, 50, 0], radius: 20 }, b.block.name);
  return doc;
}

describe('page setup', () => {
  it('knows paper names and custom sizes', () => {
    expect(parsePaper('A3')).toMatchObject({ width: 297, height: 420 });
    expect(parsePaper('ansi b')).toMatchObject({ name: 'ANSI B', width: 279.4, height: 431.8 });
    expect(parsePaper('Letter')!.name).toBe('ANSI A');
    expect(parsePaper('500x300')).toMatchObject({ width: 300, height: 500 });
    expect(parsePaper('ISO_full_bleed_A1_(841.00_x_594.00_MM)')!.name).toBe('A1');
    expect(parsePaper('B7')).toBeNull();
  });

  it('stores the setup in the LAYOUT object and reads it back after save and open', async () => {
    const doc = await sample();
    const r = setPageSetup(doc, 'Sheet A', { paper: 'A3', orientation: 'landscape', fit: true, center: true });
    expect(r).toMatchObject({ layout: 'Sheet A', paper: 'A3', orientation: 'landscape', width: 420, height: 297, scale: { fit: true } });
    const r2 = setPageSetup(doc, 'Sheet B', { paper: 'ANSI B', orientation: 'portrait', fit: false, scale: '1:2', margins: 10 });
    expect(r2.scale).toMatchObject({ fit: false, ratio: 0.5, paper_units: 1, drawing_units: 2 });
    const file = join(dir, 'setup.dxf');
    await dxf.saveDxf(doc, file);
    const back = await readDoc(file);
    expect(readPageSetup(back, 'Sheet A')).toMatchObject({ paper: 'A3', orientation: 'landscape', width: 420, height: 297, fit: true, center: true });
    expect(readPageSetup(back, 'Sheet B')).toMatchObject({ paper: 'ANSI B', orientation: 'portrait', fit: false, ratio: 0.5, margins: { left: 10, top: 10 } });
    expect(() => setPageSetup(doc, 'Sheet A', { paper: 'Z9' })).toThrow(OpError);
    expect(() => setPageSetup(doc, 'Nope', { paper: 'A4' })).toThrow(/no layout/);
  });
});

describe('plot', () => {
  it('writes a PDF page of the layout paper size', async () => {
    const doc = await sample();
    setPageSetup(doc, 'Sheet A', { paper: 'A3', orientation: 'landscape', fit: true, center: true });
    const res = await plot(doc, { layout: 'Sheet A', path: join(dir, 'a.pdf') });
    expect(res.files).toEqual([join(dir, 'a.pdf')]);
    expect(res.pages).toMatchObject([{ layout: 'Sheet A', paper: 'A3', width: 420, height: 297 }]);
    const pdf = readFileSync(join(dir, 'a.pdf'));
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const boxes = pdfPageBoxes(pdf);
    expect(boxes.length).toBe(1);
    expect(boxes[0]![0]).toBeCloseTo(420 * MM, 0);
    expect(boxes[0]![1]).toBeCloseTo(297 * MM, 0);
    expect(pdf.toString('latin1')).toMatch(/DejaVu/);
  });

  it('plots all layouts into one multi-page PDF, or one file per page with {page}', async () => {
    const doc = await sample();
    setPageSetup(doc, 'Sheet A', { paper: 'A3', orientation: 'landscape', fit: true });
    setPageSetup(doc, 'Sheet B', { paper: 'A4', orientation: 'portrait', fit: true });
    const res = await plot(doc, { pages: 'all', path: join(dir, 'all.pdf') });
    // the new-drawing template brings an empty 'Layout1': every layout is a page
    expect(res.pages.map((p) => p.layout)).toEqual(['Model', 'Layout1', 'Sheet A', 'Sheet B']);
    const boxes = pdfPageBoxes(readFileSync(join(dir, 'all.pdf')));
    expect(boxes.length).toBe(4);
    expect(boxes[3]![0]).toBeCloseTo(210 * MM, 0);
    expect(boxes[3]![1]).toBeCloseTo(297 * MM, 0);
    if (hasCommand('pdfinfo')) {
      expect(execFileSync('pdfinfo', [join(dir, 'all.pdf')], { encoding: 'utf8' })).toMatch(/Pages:\s+4/);
    }
    const per = await plot(doc, { pages: ['Sheet A', 'sheet b'], path: join(dir, 'out-{page}.svg') });
    expect(per.files.map((f) => f.slice(dir.length + 1))).toEqual(['out-Sheet A.svg', 'out-Sheet B.svg']);
    expect(readFileSync(per.files[1]!, 'utf8')).toMatch(/<svg [^>]*width="210mm" height="297mm"/);
    const png = await plot(doc, { pages: 'all', path: join(dir, 'p-{page}.png'), dpi: 30 });
    expect(png.files.length).toBe(4);
    const img = decodePng(readFileSync(png.files[2]!));
    expect(img.width).toBe(Math.round((420 / 25.4) * 30));
    expect(readdirSync(dir).some((f) => f.endsWith('.tmp'))).toBe(false);
  });

  it('infers the format, sizes PNGs, and rejects what it cannot do', async () => {
    const doc = await sample();
    const r = await plot(doc, { path: join(dir, 'm.png'), width: 300 });
    expect(r.format).toBe('png');
    expect(r.pages[0]!.pixels!.width).toBe(300);
    const svg = await plot(doc, { path: join(dir, 'm.out'), format: 'svg' });
    expect(readFileSync(svg.files[0]!, 'utf8')).toContain('<svg');
    await expect(plot(doc, { pages: 'all', path: join(dir, 'x.svg') })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(plot(doc, { path: join(dir, 'x.docx') })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(plot(doc, { layout: 'Missing', path: join(dir, 'x.pdf') })).rejects.toMatchObject({ code: 'unknown_layout' });
    expect(existsSync(join(dir, 'x.svg'))).toBe(false);
  });

  it('plots at a fixed scale: 1:2 puts 200 units on 100 mm', async () => {
    const doc = await newDoc();
    add(doc, 'LINE', { color: 1, lineweight: 50, start: [0, 0, 0], end: [200, 0, 0] });
    add(doc, 'LINE', { color: 1, lineweight: 50, start: [0, 0, 0], end: [0, 10, 0] });
    setPageSetup(doc, 'Model', { paper: 'A4', orientation: 'landscape', fit: false, scale: '1:2', center: true, margins: 0 });
    const res = await plot(doc, { path: join(dir, 'scale.png'), dpi: 25.4 });
    expect(res.pages[0]).toMatchObject({ width: 297, height: 210, scale: 0.5 });
    const img = decodePng(readFileSync(res.files[0]!));
    // 1 px per mm: the line spans 100 px, centred on the 297 px page
    let minX = Infinity;
    let maxX = -Infinity;
    for (let x = 0; x < img.width; x++) {
      for (let y = 0; y < img.height; y++) {
        const [r, g] = img.at(x, y);
        if (r > 150 && g < 120) {
          minX = Math.min(minX, x);
          maxX = Math.max(maxX, x);
        }
      }
    }
    expect(maxX - minX).toBeGreaterThanOrEqual(99);
    expect(maxX - minX).toBeLessThanOrEqual(102);
    expect(Math.abs((minX + maxX) / 2 - 148.5)).toBeLessThan(2);
  });
});
