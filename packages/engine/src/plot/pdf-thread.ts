// PDF writing on a worker thread, for the CLI: a cold `linework plot OUT.pdf` spends about as long
// loading pdfkit as reading a large drawing, and on a second core the two overlap. The server keeps
// writing PDFs in its own thread, where pdfkit is loaded once.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Page } from '../render/page.js';
import { pagesToPdf, type PdfOptions } from '../render/pdf.js';
import type { PdfWriter } from './plot.js';

export interface PdfThread {
  write: PdfWriter;
  /** Whether a worker thread writes the PDFs (false: this thread does). */
  readonly usesWorker: boolean;
  close(): Promise<void>;
}

/**
 * Starts the worker now (so pdfkit loads while the caller reads the drawing). Where the worker
 * cannot run (the sources run through a TypeScript loader, no built worker file) or fails, pages
 * are written in this thread instead.
 */
export function startPdfThread(): PdfThread {
  const file = new URL('./pdf-worker.js', import.meta.url);
  let worker: Worker | null = null;
  if (existsSync(fileURLToPath(file))) {
    try {
      worker = new Worker(file);
      // An idle worker must not keep the process alive.
      worker.unref();
    } catch {
      worker = null;
    }
  }
  let next = 0;
  const waiting = new Map<number, { resolve(pdf: Uint8Array): void; reject(err: Error): void }>();
  let failed: Error | null = null;
  const fail = (err: Error): void => {
    failed = err;
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  worker?.on('message', (msg: { id: number; pdf?: Uint8Array; error?: string }) => {
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.pdf) w.resolve(msg.pdf);
    else w.reject(new Error(msg.error ?? 'PDF worker failed'));
    if (waiting.size === 0) worker?.unref();
  });
  worker?.on('error', fail);
  worker?.on('exit', (code) => fail(new Error(`PDF worker exited (${code})`)));

  const inThisThread = (pages: Page[], opts: PdfOptions): Promise<Uint8Array> => pagesToPdf(pages, opts);
  return {
    get usesWorker() {
      return worker !== null && failed === null;
    },
    write(pages, opts) {
      if (!worker || failed) return inThisThread(pages, opts);
      const id = next++;
      const w = worker;
      return new Promise<Uint8Array>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        w.ref();
        w.postMessage({ id, pages, opts });
      }).catch(() => inThisThread(pages, opts));
    },
    async close() {
      if (worker) await worker.terminate();
    },
  };
}
