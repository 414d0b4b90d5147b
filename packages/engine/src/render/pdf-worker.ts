// Worker thread of the `linework plot` PDF path: it loads pdfkit (and the font) while the main
// thread is still reading the drawing, then turns the pages it is sent into a PDF. A cold process
// would otherwise pay for pdfkit's module graph (fontkit, unicode tries, ciphers: ~100 ms) after
// the read instead of beside it.
import { parentPort } from 'node:worker_threads';
import type { Page } from './page.js';
import type { PdfOptions } from './pdf.js';
import { pagesToPdf, preloadPdf } from './pdf.js';

export interface PdfJob {
  id: number;
  pages: Page[];
  opts: PdfOptions;
}

export type PdfReply = { id: number; pdf: Uint8Array } | { id: number; error: string };

const port = parentPort;
if (!port) throw new Error('pdf-worker runs as a worker thread');
const ready = preloadPdf();

port.on('message', (job: PdfJob) => {
  void (async () => {
    try {
      await ready;
      // image bytes arrive as plain Uint8Arrays (structured clone), which pdfkit takes as well
      const pdf = await pagesToPdf(job.pages, job.opts);
      // move the bytes rather than copy them, unless they sit in Node's shared pool of small
      // buffers, which must stay usable here
      const own = pdf.byteOffset === 0 && pdf.byteLength === pdf.buffer.byteLength;
      port.postMessage({ id: job.id, pdf } satisfies PdfReply, own ? [pdf.buffer as ArrayBuffer] : []);
    } catch (err) {
      port.postMessage({ id: job.id, error: (err as Error)?.message ?? String(err) } satisfies PdfReply);
    }
  })();
});
