// Worker thread of `linework plot` for PDF output: loads pdfkit (and its fontkit, a fifth of a
// second at start-up) while the main thread reads and renders the drawing, then writes the pages
// it is sent. See pdf-thread.ts.
import { parentPort } from 'node:worker_threads';
import type { Page } from '../render/page.js';
import { pagesToPdf, type PdfOptions } from '../render/pdf.js';
import { pdfFontBytes } from '../render/font.js';

const port = parentPort;
if (!port) throw new Error('pdf-worker runs as a worker thread');

// Started now, awaited per request: the loads overlap the main thread's reading of the drawing.
const ready = import('pdfkit').then(() => pdfFontBytes());

port.on('message', (msg: { id: number; pages: Page[]; opts: PdfOptions }) => {
  void (async () => {
    try {
      await ready;
      for (const page of msg.pages) {
        // Buffers arrive as plain Uint8Arrays; pdfkit's image loader wants Buffers.
        for (const prim of page.list.prims) {
          if (prim.kind === 'image' && prim.data && !Buffer.isBuffer(prim.data)) {
            const d = prim.data as Uint8Array;
            prim.data = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
          }
        }
      }
      const pdf = await pagesToPdf(msg.pages, msg.opts);
      port.postMessage({ id: msg.id, pdf });
    } catch (err) {
      port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
    }
  })();
});
