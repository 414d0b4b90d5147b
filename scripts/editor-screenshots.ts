// Regenerates the editor's screenshots of docs/editor.md (docs/images/*.png): the real editor (the
// built page, `npm run build` first) in headless Chromium through playwright-core, on the shipped
// sample drawing (samples/sample.dxf, copied into a temporary workspace):
//   editor-main.png          the main window with the drawing
//   editor-grips.png         grips on a selected entity (zoomed to it)
//   editor-hover.png         a circle hovered (its dashed highlight before the click)
//   editor-context-menu.png  the right-click menu
//   editor-open-dialog.png   OPEN's file dialog
//
//   npx tsx scripts/editor-screenshots.ts
// Each file must stay under 150 KB (the script fails otherwise).
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launch, startEditor } from '../packages/editor/test/helpers.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'docs/images');
const MAX_BYTES = 150 * 1024;
const VIEW = { width: 1100, height: 680 };

async function shot(page: Page, name: string): Promise<void> {
  // the page settles (a frame after the last change) before the picture
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.waitForTimeout(300);
  const file = join(out, name);
  await page.screenshot({ path: file });
  const bytes = statSync(file).size;
  process.stderr.write(`${name}: ${Math.round(bytes / 1024)} KB\n`);
  if (bytes > MAX_BYTES) throw new Error(`${name} is ${bytes} bytes, over ${MAX_BYTES}`);
}

async function main(): Promise<void> {
  mkdirSync(out, { recursive: true });
  const ws = mkdtempSync(join(tmpdir(), 'lw-shots-'));
  const drawing = join(ws, 'sample.dxf');
  copyFileSync(join(root, 'samples/sample.dxf'), drawing);
  // a folder and a second drawing, so the file dialog shows what it navigates
  mkdirSync(join(ws, 'details'));
  copyFileSync(join(root, 'samples/sample.dxf'), join(ws, 'details', 'detail-a.dxf'));
  copyFileSync(join(root, 'samples/sample.dxf'), join(ws, 'site-plan.dxf'));
  const browser = await launch();
  const s = await startEditor(['--gui', '--root', ws, drawing], { LINEWORK_ROOT: '', LINEWORK_LOG_LEVEL: 'error' });
  try {
    const page = await browser.newPage({ viewport: VIEW });
    await page.goto(s.editorUrl);
    await page.waitForFunction(() => (globalThis as any).linework?.complete === true && (globalThis as any).linework?.drawn !== null, null, { timeout: 60_000 });
    await shot(page, 'editor-main.png');

    // grips: the entity nearest the middle of the view, selected, the view zoomed to it
    const handle = await page.evaluate(async () => {
      const app = (globalThis as any).linework.app, v = app.view;
      for (const r of [20, 60, 150, 400]) {
        const p = await app.api.op('pick', { document_id: app.docId, point: [v.cx, v.cy], aperture: r / v.scale });
        const h = p.result?.handles?.[0];
        if (h) return h as string;
      }
      return null;
    });
    if (!handle) throw new Error('no entity near the middle of the sample drawing');
    await page.evaluate((h) => (globalThis as any).linework.app.api.op('select', { document_id: (globalThis as any).linework.app.docId, handles: [h] }), handle);
    await page.waitForFunction(() => (globalThis as any).linework.grips.length > 0, null, { timeout: 30_000 });
    await page.evaluate(() => {
      const lw = (globalThis as any).linework;
      const pts = lw.grips.map((g: { at: number[] }) => g.at) as number[][];
      const xs = pts.map((p) => p[0]!), ys = pts.map((p) => p[1]!);
      const w = Math.max(...xs) - Math.min(...xs), hgt = Math.max(...ys) - Math.min(...ys);
      const pad = Math.max(w, hgt, 1) * 0.6;
      lw.app.view.fit([Math.min(...xs) - pad, Math.min(...ys) - pad, Math.max(...xs) + pad, Math.max(...ys) + pad]);
      lw.app.view.invalidate();
      lw.app.overlayOnly();
    });
    await page.waitForTimeout(800);
    await shot(page, 'editor-grips.png');

    // hover: the sample's circle (centre 9,4, radius 0.6), deselected, the view around it, the
    // cursor on it at 225 degrees (the crosshair across it, not along it): the dashed highlight
    await page.evaluate(() => (globalThis as any).linework.app.api.op('select', { document_id: (globalThis as any).linework.app.docId, mode: 'clear' }));
    await page.waitForFunction(() => (globalThis as any).linework.grips.length === 0, null, { timeout: 30_000 });
    const spot = await page.evaluate(async () => {
      const lw = (globalThis as any).linework, app = lw.app, v = app.view;
      v.fit([9 - 2, 4 - 1.5, 9 + 2, 4 + 1.5]);
      v.invalidate();
      const x = 9 + 0.6 * Math.cos((5 * Math.PI) / 4), y = 4 + 0.6 * Math.sin((5 * Math.PI) / 4);
      const p = await app.api.op('pick', { document_id: app.docId, point: [x, y], aperture: 2 / v.scale });
      if (!p.result?.handles?.length) return null;
      const [sx, sy] = lw.toScreen(x, y) as [number, number];
      const b = document.getElementById('gl')!.getBoundingClientRect();
      return { at: [b.left + sx, b.top + sy] as [number, number], handle: p.result.handles[0] as string };
    });
    if (!spot) throw new Error('the sample drawing has no circle at 9,4 radius 0.6 any more');
    await page.waitForTimeout(500);
    await page.mouse.move(spot.at[0], spot.at[1], { steps: 4 });
    await page.waitForFunction((h) => ((globalThis as any).linework.hover as string[]).includes(h), spot.handle, { timeout: 30_000 });
    await shot(page, 'editor-hover.png');
    await page.mouse.move(5, VIEW.height - 5);

    // the right-click menu, over the drawing
    await page.mouse.move(VIEW.width / 2 - 60, VIEW.height / 2 - 40);
    await page.mouse.click(VIEW.width / 2 - 60, VIEW.height / 2 - 40, { button: 'right' });
    await page.locator('.menu').waitFor();
    await shot(page, 'editor-context-menu.png');
    await page.keyboard.press('Escape');

    // OPEN's dialog (Ctrl+O), back on the whole drawing
    await page.keyboard.press('Escape');
    await page.evaluate(() => {
      const app = (globalThis as any).linework.app;
      app.view.fit(app.base.bounds ? [app.base.bounds[0], app.base.bounds[1], app.base.bounds[2], app.base.bounds[3]] : null);
      app.view.invalidate();
    });
    await page.locator('#gl').focus();
    await page.keyboard.press('Control+o');
    await page.locator('#file-dialog li[data-path="details"]').waitFor();
    await shot(page, 'editor-open-dialog.png');
  } finally {
    await s.proc.stop();
    await browser.close();
    rmSync(ws, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
