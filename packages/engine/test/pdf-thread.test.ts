// The CLI's PDF writer on a worker thread: it runs from the built package (the worker file is the
// compiled pdf-worker.js; `npm test` builds first), gets pages with image bytes across, and falls
// back to this thread once the worker is gone.
import { Resvg } from '@resvg/resvg-js';
import { describe, expect, it } from 'vitest';
import { startPdfThread } from '../dist/plot/pdf-thread.js';
import type { Page } from '../src/render/index.js';
import { fitPage, renderLayout } from '../src/render/index.js';
import { add, newDoc } from './render-helpers.js';

async function pageWithImage(): Promise<Page> {
  const doc = await newDoc();
  add(doc, 'LINE', { color: 1, start: [0, 0, 0], end: [100, 50, 0] });
  add(doc, 'TEXT', { insert: [10, 10, 0], height: 5, text: 'Hello' });
  const list = renderLayout(doc);
  const png = Buffer.from(new Resvg('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="4"><rect width="8" height="4" fill="#00f"/></svg>').render().asPng());
  list.prims.push({ kind: 'image', layer: '0', color: 0, clip: -1, handle: '', path: null, data: png, mime: 'image/png', pxWidth: 8, pxHeight: 4, matrix: [1, 0, 0, 1, 20, 20] });
  return fitPage('Model', list, 200, 100, 5);
}

describe('startPdfThread', () => {
  it('writes the PDF on a worker, images and fonts included', async () => {
    const thread = startPdfThread();
    try {
      expect(thread.usesWorker).toBe(true);
      const pdf = Buffer.from(await thread.write([await pageWithImage()], { title: 'T' })).toString('latin1');
      expect(pdf.startsWith('%PDF-')).toBe(true);
      expect(pdf).toMatch(/\/Subtype \/Image/);
      expect(pdf).toMatch(/\/FontFile2/);
      expect(pdf.match(/\/Type \/Page\b(?!s)/g)).toHaveLength(1);
    } finally {
      await thread.close();
    }
  });

  it('writes in this thread once the worker has gone', async () => {
    const thread = startPdfThread();
    await thread.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(thread.usesWorker).toBe(false);
    const pdf = Buffer.from(await thread.write([await pageWithImage()], {})).toString('latin1');
    expect(pdf).toMatch(/\/Subtype \/Image/);
  });
});
