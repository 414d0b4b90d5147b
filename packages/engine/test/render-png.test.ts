// PNG back end: pixels where the drawing puts ink, white where it does not; previews.
import { describe, expect, it } from 'vitest';
import { fitPage, pageToPng, renderLayout, renderPreview } from '../src/render/index.js';
import { add, decodePng, inkBox, newDoc } from './render-helpers.js';

describe('PNG', () => {
  it('draws a red horizontal line where it must be, white elsewhere', async () => {
    const doc = await newDoc();
    add(doc, 'LINE', { color: 1, lineweight: 100, start: [0, 50, 0], end: [100, 50, 0] });
    add(doc, 'LINE', { color: 5, lineweight: 100, start: [0, 0, 0], end: [0, 100, 0] });
    const list = renderLayout(doc);
    // 100 x 100 drawing units on a 100 x 100 mm page, no margin: 1 mm = 4 px at 101.6 dpi
    const page = fitPage('Model', list, 100, 100, 0);
    const img = decodePng(pageToPng(page, { width: 400 }));
    expect([img.width, img.height]).toEqual([400, 400]);
    const [r, g, b] = img.at(200, 200);
    expect(r).toBeGreaterThan(200);
    expect(g).toBeLessThan(60);
    expect(b).toBeLessThan(60);
    expect(img.at(200, 100).slice(0, 3)).toEqual([255, 255, 255]);
    expect(img.at(300, 300).slice(0, 3)).toEqual([255, 255, 255]);
    const [r2, , b2] = img.at(1, 300);
    expect(b2).toBeGreaterThan(200);
    expect(r2).toBeLessThan(60);
  });

  it('renders text with the embedded font (ink inside the text box)', async () => {
    const doc = await newDoc();
    add(doc, 'LINE', { start: [0, 0, 0], end: [0.001, 0, 0] });
    add(doc, 'LINE', { start: [100, 40, 0], end: [100.001, 40, 0] });
    add(doc, 'TEXT', { insert: [10, 10, 0], height: 10, text: 'WWWW' });
    const img = decodePng(pageToPng(fitPage('Model', renderLayout(doc), 100, 40, 0), { width: 500 }));
    // W is about 0.99 em wide; 4 of them at cap height 10 => about 54 units from x = 10
    const box = inkBox(img, 128)!;
    const inner = { minX: 20, minY: 0, maxX: 480, maxY: 200 };
    expect(box).not.toBeNull();
    let ink = 0;
    for (let y = 100; y < 150; y++) for (let x = 60; x < 300; x++) if (img.at(x, y)[0] < 128) ink++;
    expect(ink).toBeGreaterThan(1000);
    expect(inner.minX).toBeLessThan(box.maxX);
  });

  it('fills a solid hatch with its colour, leaving the hole white', async () => {
    const doc = await newDoc();
    const sq = (x: number, y: number, s: number): [number, number, number][] => [[x, y, 0], [x + s, y, 0], [x + s, y + s, 0], [x, y + s, 0]];
    add(doc, 'HATCH', {
      color: 3, solid_fill: 1, pattern_name: 'SOLID',
      paths: [
        { flags: 1, type: 'polyline', is_closed: true, vertices: sq(0, 0, 100), source_handles: [] },
        { flags: 16, type: 'polyline', is_closed: true, vertices: sq(40, 40, 20), source_handles: [] },
      ],
    });
    const img = decodePng(pageToPng(fitPage('Model', renderLayout(doc), 100, 100, 0), { width: 100 }));
    expect(img.at(20, 20).slice(0, 3)).toEqual([0, 255, 0]);
    expect(img.at(50, 50).slice(0, 3)).toEqual([255, 255, 255]);
  });

  it('fills a leader\'s arrowhead at its first vertex', async () => {
    const doc = await newDoc();
    const ds = doc.addTableEntry('DIMSTYLE', 'Big');
    ds.extra = { ...ds.extra, AcDbDimStyleTableRecord: [[41, '20']] };
    add(doc, 'LEADER', { dimstyle: 'Big', vertices: [[0, 50, 0], [100, 50, 0]] });
    add(doc, 'LINE', { start: [0, 0, 0], end: [0.001, 0, 0] });
    add(doc, 'LINE', { start: [100, 100, 0], end: [100.001, 100, 0] });
    const img = decodePng(pageToPng(fitPage('Model', renderLayout(doc), 100, 100, 0), { width: 400 }));
    // 20 units long, 3.3 half-wide at its base (x = 20): inked well off the leader line near the
    // base, white beyond the base and beside the tip
    expect(img.at(70, 200 - 8)[0]).toBeLessThan(100);
    expect(img.at(70, 200 + 8)[0]).toBeLessThan(100);
    expect(img.at(100, 200 - 8)[0]).toBe(255);
    expect(img.at(12, 200 - 8)[0]).toBe(255);
  });

  it('makes previews of the requested pixel size in PNG and SVG', async () => {
    const doc = await newDoc();
    add(doc, 'CIRCLE', { color: 1, center: [0, 0, 0], radius: 10 });
    const png = decodePng(renderPreview(doc, { width: 320, height: 200, format: 'png' }));
    expect([png.width, png.height]).toEqual([320, 200]);
    const box = inkBox(png)!;
    // the circle is fitted (2 % margin) and centred
    expect(Math.abs((box.minX + box.maxX) / 2 - 160)).toBeLessThan(3);
    expect(box.maxY - box.minY).toBeGreaterThan(180);
    const svg = renderPreview(doc, { width: 320, height: 200, format: 'svg' }).toString('utf8');
    expect(svg).toMatch(/^<\?xml[\s\S]*<svg [^>]*width="320" height="200"/);
  });
});
