// The graphical mode under test: the real `linework --http 0 <file>` process, its editor page in
// Debian's headless Chromium (WebGL2 through SwiftShader) driven by playwright-core with real
// mouse and keyboard events, and helpers to aim at drawing coordinates.
import { existsSync, rmSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { client, startHttpProcess, type HttpServerProcess } from '../../server/test/helpers.js';

export const CHROMIUM = process.env.LINEWORK_CHROMIUM ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

export interface EditorServer extends HttpServerProcess {
  editorUrl: string;
  editorPort: number;
  api: ReturnType<typeof client>;
}

export async function startEditor(args: string[], env: Record<string, string> = {}): Promise<EditorServer> {
  const s = await startHttpProcess(args, env);
  const m = await s.proc.waitStderr(/^editor: (http:\/\/127\.0\.0\.1:(\d+)\/#token=\S+)$/m);
  return { ...s, editorUrl: m[1]!, editorPort: Number(m[2]), api: client(s.port, s.token) };
}

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless=new', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}

export interface EditorPage {
  page: Page;
  /** Requests the page made to anything but its own port. */
  foreign: string[];
  errors: string[];
}

export async function openEditor(browser: Browser, url: string, size = { width: 1200, height: 800 }): Promise<EditorPage> {
  const page = await browser.newPage({ viewport: size });
  const origin = new URL(url).origin;
  const foreign: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(origin)) foreign.push(r.url());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => (globalThis as any).linework?.ready === true, null, { timeout: 30_000 });
  await settle(page);
  return { page, foreign, errors };
}

/** Shows `bounds` of the drawing on every screen (the tests' clicks aim at drawing points) and waits for the page. */
export async function showView(s: EditorServer, page: Page, bounds: [number, number, number, number]): Promise<void> {
  const r = await s.api.post('/api/v1/view_focus', { bounds, margin: 0 });
  if (r.status !== 200) throw new Error(`view_focus: ${r.status} ${r.text}`);
  await waitFor(() => at(page, 0, 0), ([x]) => x > 0);
  await settle(page);
}

/** A test file's end: its browser, its server and its folder. */
export async function closeEditorTest(browser: Browser | undefined, s: EditorServer | undefined, dir: string | undefined): Promise<void> {
  await browser?.close();
  await s?.proc.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}

/** Waits until the page has drawn and nothing is pending (a few frames without a change). */
export async function settle(page: Page): Promise<void> {
  await page.waitForTimeout(150);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/** Page coordinates (CSS px) of a drawing point. */
export async function at(page: Page, x: number, y: number): Promise<[number, number]> {
  return page.evaluate(([wx, wy]) => {
    const lw = (globalThis as any).linework;
    const [sx, sy] = lw.toScreen(wx, wy) as [number, number];
    const r = document.getElementById('gl')!.getBoundingClientRect();
    return [r.left + sx, r.top + sy] as [number, number];
  }, [x, y] as const);
}

export async function click(page: Page, x: number, y: number, opts: { shift?: boolean } = {}): Promise<void> {
  const [px, py] = await at(page, x, y);
  await page.mouse.move(px, py);
  if (opts.shift) await page.keyboard.down('Shift');
  await page.mouse.down();
  await page.mouse.up();
  if (opts.shift) await page.keyboard.up('Shift');
}

/** A press-drag-release from one drawing point to another (a selection window or crossing). */
export async function drag(page: Page, from: [number, number], to: [number, number]): Promise<void> {
  const [ax, ay] = await at(page, from[0], from[1]);
  const [bx, by] = await at(page, to[0], to[1]);
  await page.mouse.move(ax, ay);
  await page.mouse.down();
  await page.mouse.move((ax + bx) / 2, (ay + by) / 2, { steps: 4 });
  await page.mouse.move(bx, by, { steps: 4 });
  await page.mouse.up();
}

export async function waitFor<T>(f: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`condition not met in ${ms} ms; last value: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The ink (dark on white) of an image as a mask, and how well two masks agree within `r` pixels. */
export function inkMask(img: { width: number; height: number; data: Uint8Array }, threshold = 200): Uint8Array {
  const m = new Uint8Array(img.width * img.height);
  for (let i = 0; i < m.length; i++) {
    const o = i * 4;
    m[i] = Math.min(img.data[o]!, img.data[o + 1]!, img.data[o + 2]!) < threshold ? 1 : 0;
  }
  return m;
}

/** Fraction of the ink of `a` that has ink of `b` within `r` pixels (1 when `a` has none). */
export function inkCovered(a: Uint8Array, b: Uint8Array, w: number, h: number, r = 2): number {
  let n = 0, hit = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!a[y * w + x]) continue;
      n++;
      let found = false;
      for (let dy = -r; dy <= r && !found; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -r; dx <= r; dx++) {
          const xx = x + dx;
          if (xx >= 0 && xx < w && b[yy * w + xx]) {
            found = true;
            break;
          }
        }
      }
      if (found) hit++;
    }
  }
  return n ? hit / n : 1;
}
