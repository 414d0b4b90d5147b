// The CLI's PDF worker thread (built dist only: the worker is compiled JavaScript) writes the same
// PDF as the in-process back end, text and images included.
import { existsSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Page } from '../src/render/page.js';

const built = new URL('../dist/render/pdf.js', import.meta.url);

/** The PDF without its creation date and the file ID pdfkit derives from it (all that differs
 * between two runs). */
function stable(pdf: Buffer): string {
  return pdf.toString('latin1').replace(/\(D:\d{14}Z\)/g, '(D:)').replace(/\/ID \[<[0-9a-f]+> <[0-9a-f]+>\]/, '');
}

/** Decompressed content streams, to see that the worker drew something. */
function streams(pdf: Buffer): string {
  const s = pdf.toString('latin1');
  let out = '';
  for (const m of s.matchAll(/\/FlateDecode[^]*?stream\n([^]*?)\nendstream/g)) {
    try {
      out += inflateSync(Buffer.from(m[1]!, 'latin1')).toString('latin1');
    } catch {
      // a font file or image: not a content stream
    }
  }
  return out;
}

const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC', 'base64');

function page(): Page {
  const base = { layer: '0', clip: -1, handle: '1' };
  return {
    name: 'Model',
    width: 297,
    height: 210,
    toPaper: [1, 0, 0, 1, 10, 10],
    list: {
      prims: [
        { ...base, kind: 'polyline', color: 0xff0000, pts: [0, 0, 100, 50, 150, 0], closed: false, lw: 0.25, dash: null, dashOffset: 0, width: 0 },
        { ...base, kind: 'text', color: 0x0000ff, text: 'Linework fi AV 123', x: 5, y: 60, height: 5, em: 6.86, rotation: 0, widthFactor: 1, oblique: 0, font: 'txt', align: 'left', width: 40, mirrorX: false, mirrorY: false, underline: true, overline: false, strike: false },
        { ...base, kind: 'image', color: 0, path: null, data: PNG_1x1, mime: 'image/png', pxWidth: 1, pxHeight: 1, matrix: [20, 0, 0, -20, 100, 100] },
      ],
      clips: [],
      layers: ['0'],
      bounds: { minX: 0, minY: 0, maxX: 150, maxY: 100 },
      background: 0xffffff,
      skipped: {},
    },
  };
}

describe.skipIf(!existsSync(built))('PDF worker', () => {
  it('writes the same PDF as pagesToPdf in process', async () => {
    const { pagesToPdf, startPdfWorker } = (await import(built.href)) as typeof import('../src/render/pdf.js');
    const worker = startPdfWorker();
    expect(worker).not.toBeNull();
    try {
      const viaWorker = await worker!.pagesToPdf([page(), page()], { title: 'two' });
      const inProcess = await pagesToPdf([page(), page()], { title: 'two' });
      expect(stable(viaWorker)).toBe(stable(inProcess));
      const drawn = streams(viaWorker);
      expect(drawn).toMatch(/ l\n/);
      expect(drawn).toMatch(/Tj|TJ/);
      expect(drawn).toMatch(/\/I\d+ Do/);
    } finally {
      worker!.close();
    }
  });

  it('skips a broken image as in process, and rejects once the worker is gone', async () => {
    const { startPdfWorker } = (await import(built.href)) as typeof import('../src/render/pdf.js');
    const worker = startPdfWorker()!;
    const bad = page();
    (bad.list.prims[2] as { data: Buffer }).data = Buffer.from('not an image');
    bad.list.prims.push({ ...(bad.list.prims[2] as object), data: null, path: '/nonexistent.png' } as never);
    try {
      expect((await worker.pagesToPdf([bad])).subarray(0, 5).toString('latin1')).toBe('%PDF-');
      worker.close();
      await expect(worker.pagesToPdf([page()])).rejects.toThrow(/PDF worker stopped/);
    } finally {
      worker.close();
    }
  });
});
