// The hover pre-highlight drawn over the cached picture (Scene.drawHover, View.invalidateHover), in
// a real headless Chromium against the real server: a change of the hovered entity renders no
// part of the drawing again, changes only the hovered entity's pixels (lines and circles dashed:
// runs of the hover colour and of their own alternate along them, in every direction; text and
// fills whole, and of a fill not the line drawn over it; lineweights on too; after a pan by a
// fraction of a pixel) and gives them back exactly; a selected entity keeps the selection's
// colour; a large hover set (a window's preview) still shows.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { at, closeEditorTest, hasChromium, launch, openEditor, settle, showView, startEditor, waitFor, type EditorServer } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'lw-hover-'));
let s: EditorServer;
let browser: Browser;
let page: Page;
const H: Record<string, string> = {};

/** Drawing boxes of the entities (a margin left to the pixel rectangle). */
const BOX: Record<string, [number, number, number, number]> = {
  D: [70, 40, 90, 55],
  C: [40, 20, 60, 40],
  T: [5, 45, 40, 55],
  F: [45, 50, 60, 65],
};

/** The entities' own colours on screen (white lines on the dark background, a red hatch). */
const OWN: Record<string, number[]> = { D: [255, 255, 255], C: [255, 255, 255], T: [255, 255, 255], F: [255, 0, 0] };

interface Diff {
  /** Pixels that differ from the kept picture. */
  changed: number;
  /** ... outside the rectangle given. */
  outside: number;
  /** ... that were the background before (the highlight landed beside the entity). */
  wasBackground: number;
  /** ... that were neither the background nor the entity's own colour (another entity over it). */
  wasOther: number;
  /** ... that are not the hover colour now. */
  notHover: number;
  /** Pixels of the entity's own colour inside the rectangle that did not change (the highlight missed part of it). */
  missed: number;
}

/**
 * Draws a frame now (the hover set first, when given, in the same task: no pick's answer comes
 * between); keeps its pixels (`keep`) or compares them with the kept ones inside `rect`.
 */
async function shot(keep: boolean, rect: number[] = [0, 0, 0, 0], hover?: string[], own: number[] = [255, 255, 255]): Promise<Diff> {
  return page.evaluate(([k, r, hs, mine]) => {
    const lw = (globalThis as any).linework;
    if (hs) lw.app.setHover(hs);
    lw.frameSync();
    const c = document.getElementById('gl') as HTMLCanvasElement;
    const gl = lw.app.view.gl as WebGL2RenderingContext;
    const px = new Uint8Array(c.width * c.height * 4);
    gl.readPixels(0, 0, c.width, c.height, gl.RGBA, gl.UNSIGNED_BYTE, px);
    const g = globalThis as any;
    const out = { changed: 0, outside: 0, wasBackground: 0, wasOther: 0, notHover: 0, missed: 0 };
    if (k) {
      g.__kept = px;
      return out;
    }
    const before = g.__kept as Uint8Array;
    const bg = [0x21, 0x28, 0x30];
    // the hover colour (view.ts: 1, 0.85, 0.3)
    const hov = [255, 217, 77];
    const near = (a: ArrayLike<number>, o: number, b: number[]): boolean => Math.abs(a[o]! - b[0]!) <= 2 && Math.abs(a[o + 1]! - b[1]!) <= 2 && Math.abs(a[o + 2]! - b[2]!) <= 2;
    for (let row = 0; row < c.height; row++) {
      for (let col = 0; col < c.width; col++) {
        // readPixels rows go bottom up
        const o = ((c.height - 1 - row) * c.width + col) * 4;
        const inside = col >= r[0]! && col <= r[1]! && row >= r[2]! && row <= r[3]!;
        if (before[o] === px[o] && before[o + 1] === px[o + 1] && before[o + 2] === px[o + 2]) {
          if (inside && near(before, o, mine)) out.missed++;
          continue;
        }
        out.changed++;
        if (!inside) out.outside++;
        if (near(before, o, bg)) out.wasBackground++;
        else if (!near(before, o, mine)) out.wasOther++;
        if (!near(px, o, hov)) out.notHover++;
      }
    }
    return out;
  }, [keep, rect, hover, own] as const);
}

/** The device-pixel rectangle (columns, then rows from the top) of a drawing box, `pad` pixels wider. */
async function rectOf(b: [number, number, number, number], pad = 3): Promise<number[]> {
  const box = (await page.locator('#gl').boundingBox())!;
  const dpr = await page.evaluate(() => devicePixelRatio);
  const [ax, ay] = await at(page, b[0], b[1]), [bx, by] = await at(page, b[2], b[3]);
  return [(Math.min(ax, bx) - box.x) * dpr - pad, (Math.max(ax, bx) - box.x) * dpr + pad, (Math.min(ay, by) - box.y) * dpr - pad, (Math.max(ay, by) - box.y) * dpr + pad];
}

/** Scene renders (whole or in part) since the counter was installed. */
const sceneDraws = (): Promise<number> => page.evaluate(() => (globalThis as any).__sceneDraws as number);

describe.skipIf(!hasChromium)('hover pre-highlight over the cached picture', () => {
  beforeAll(async () => {
    s = await startEditor(['--gui', '--root', dir], { LINEWORK_ROOT: '' });
    const made = await s.api.post('/api/v1/entities', {
      entities: [
        { type: 'Line', start: [0, 0], end: [100, 0] },
        { type: 'Line', start: [70, 40], end: [90, 55], lineweight: 100 },
        { type: 'Circle', center: [50, 30], radius: 10 },
        { type: 'Text', value: 'HOVER', position: [5, 46], height: 6 },
        { type: 'Hatch', boundary: [[45, 50], [60, 50], [60, 65], [45, 65]], color: 'red' },
        // drawn over the hatch
        { type: 'Line', start: [40, 57], end: [65, 57] },
        // steep (more up than across)
        { type: 'Line', start: [95, 5], end: [100, 60] },
        // near the diagonal (44.6 degrees)
        { type: 'Line', start: [5, 5.6], end: [35, 35.2] },
      ],
    });
    expect(made.status, made.text).toBe(201);
    [H.L, H.D, H.C, H.T, H.F, , H.K, H.N] = made.json.result.handles;
    browser = await launch();
    ({ page } = await openEditor(browser, s.editorUrl, { width: 1000, height: 700 }));
    await showView(s, page, [-10, -10, 110, 70]);
    // the cursor off the drawing, its hover query answered
    await page.mouse.move(3, 3);
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.hover as string[]), (h) => h.length === 0);
    await settle(page);
    // every render of the drawing (into the cached picture) is counted from here on
    await page.evaluate(() => {
      const g = globalThis as any;
      g.__sceneDraws = 0;
      const scene = g.linework.app.view.scene;
      const draw = scene.draw.bind(scene);
      scene.draw = (...a: unknown[]) => {
        g.__sceneDraws++;
        return draw(...a);
      };
    });
  }, 60_000);

  afterAll(() => closeEditorTest(browser, s, dir));

  it('a hover change renders no part of the drawing again and changes exactly the hovered entity\'s pixels, also after a pan by a fraction of a pixel', async () => {
    for (const pan of [[0, 0], [0.4, 0.3]] as const) {
      await page.evaluate(([dx, dy]) => (globalThis as any).linework.app.view.panBy(dx, dy), pan);
      await shot(true);
      const draws = await sceneDraws();
      for (const k of ['D', 'C', 'T', 'F'] as const) {
        const d = await shot(false, await rectOf(BOX[k]!), [H[k]!], OWN[k]);
        expect(d.changed, `${k} at pan ${pan}`).toBeGreaterThan(20);
        expect(d.outside, `${k} at pan ${pan}`).toBe(0);
        // the highlight covers the entity's own pixels, none beside them and none of the line over
        // the hatch (text's edges are blended)
        if (k !== 'T') {
          expect(d.wasBackground, `${k} at pan ${pan}`).toBe(0);
          expect(d.wasOther, `${k} at pan ${pan}`).toBe(0);
          expect(d.notHover, `${k} at pan ${pan}`).toBe(0);
        }
        if (k === 'F') expect(d.missed, `${k} at pan ${pan}`).toBe(0);
        // lines are dashed: 6 of every 10 pixels along them in the hover colour, the rest their own
        if (k === 'D' || k === 'C') {
          const share = d.changed / (d.changed + d.missed);
          expect(share, `${k} at pan ${pan}`).toBeGreaterThan(0.45);
          expect(share, `${k} at pan ${pan}`).toBeLessThan(0.75);
        }
      }
      expect((await shot(false, undefined, [])).changed).toBe(0);
      expect(await sceneDraws()).toBe(draws);
    }
    expect(await page.evaluate(() => (globalThis as any).linework.app.view.stats.hoverFrames)).toBeGreaterThan(8);
  });

  it('the highlight of a line or a curve is dashed: hover-coloured and own-coloured runs of pixels alternate along it', async () => {
    // drawing coordinates to the canvas's device pixels (columns, rows from the top)
    const box = (await page.locator('#gl').boundingBox())!;
    const dpr = await page.evaluate(() => devicePixelRatio);
    const dev = async (x: number, y: number): Promise<[number, number]> => {
      const [px, py] = await at(page, x, y);
      return [(px - box.x) * dpr, (py - box.y) * dpr];
    };
    const cases = [
      { k: 'L', along: [await dev(0, 0), await dev(100, 0)], box: [0, -1, 100, 1] as [number, number, number, number] },
      { k: 'D', along: [await dev(70, 40), await dev(90, 55)], box: BOX.D! },
      { k: 'K', along: [await dev(95, 5), await dev(100, 60)], box: [95, 5, 100, 60] as [number, number, number, number] },
      { k: 'N', along: [await dev(5, 5.6), await dev(35, 35.2)], box: [5, 5.6, 35, 35.2] as [number, number, number, number] },
      { k: 'C', centre: await dev(50, 30), box: BOX.C! },
    ];
    for (const c of cases) {
      // nothing hovered, kept
      await page.evaluate(() => (globalThis as any).linework.app.setHover([]));
      await shot(true);
      const rect = await rectOf(c.box);
      // the entity's own pixels (white before), in order along it, each now hover (h) or own (o)
      const runs = await page.evaluate(([r, hs, along, centre]) => {
        const lw = (globalThis as any).linework;
        lw.app.setHover(hs);
        lw.frameSync();
        const cv = document.getElementById('gl') as HTMLCanvasElement;
        const gl = lw.app.view.gl as WebGL2RenderingContext;
        const px = new Uint8Array(cv.width * cv.height * 4);
        gl.readPixels(0, 0, cv.width, cv.height, gl.RGBA, gl.UNSIGNED_BYTE, px);
        const before = (globalThis as any).__kept as Uint8Array;
        const near = (a: ArrayLike<number>, o: number, b: number[]): boolean => Math.abs(a[o]! - b[0]!) <= 2 && Math.abs(a[o + 1]! - b[1]!) <= 2 && Math.abs(a[o + 2]! - b[2]!) <= 2;
        const pts: { key: number; h: boolean }[] = [];
        for (let row = Math.max(0, Math.floor(r[2]!)); row <= Math.min(cv.height - 1, r[3]!); row++) {
          for (let col = Math.max(0, Math.floor(r[0]!)); col <= Math.min(cv.width - 1, r[1]!); col++) {
            const o = ((cv.height - 1 - row) * cv.width + col) * 4;
            if (!near(before, o, [255, 255, 255])) continue;
            const x = col + 0.5, y = row + 0.5;
            const key = along ? (x - along[0]![0]!) * (along[1]![0]! - along[0]![0]!) + (y - along[0]![1]!) * (along[1]![1]! - along[0]![1]!) : Math.atan2(y - centre![1]!, x - centre![0]!);
            pts.push({ key, h: near(px, o, [255, 217, 77]) });
          }
        }
        pts.sort((a, b) => a.key - b.key);
        const out: [string, number][] = [];
        for (const p of pts) {
          const last = out[out.length - 1];
          if (last && last[0] === (p.h ? 'h' : 'o')) last[1]++;
          else out.push([p.h ? 'h' : 'o', 1]);
        }
        return out;
      }, [rect, [H[c.k]!], c.along ?? null, c.centre ?? null] as const);
      expect((await shot(false, undefined, [])).changed).toBe(0);
      const on = runs.filter((x) => x[0] === 'h').map((x) => x[1]);
      const off = runs.filter((x) => x[0] === 'o').map((x) => x[1]);
      const median = (a: number[]): number => [...a].sort((p, q) => p - q)[a.length >> 1]!;
      const msg = `${c.k}: ${runs.map((x) => x.join('')).join(' ')}`;
      // about one dash per 10 pixels along the entity (its pixels counted along the axis it runs most along)
      const length = runs.reduce((n, x) => n + x[1], 0);
      expect(on.length, msg).toBeGreaterThan(length / 14);
      expect(off.length, msg).toBeGreaterThan(length / 14);
      expect(median(on), msg).toBeGreaterThanOrEqual(5);
      expect(median(on), msg).toBeLessThanOrEqual(7);
      expect(median(off), msg).toBeGreaterThanOrEqual(3);
      expect(median(off), msg).toBeLessThanOrEqual(5);
      // every run between the ends: 6 on, 4 off (a line's pixels are one per step of the axis it runs
      // most along); a circle's where its direction passes 45 degrees up to 8
      const [hi, oi] = c.k === 'C' ? [[4, 8], [2, 8]] : [[5, 7], [3, 5]];
      for (const [kind, n] of runs.slice(1, -1)) {
        const [lo, up] = kind === 'h' ? hi! : oi!;
        expect(n, msg).toBeGreaterThanOrEqual(lo!);
        expect(n, msg).toBeLessThanOrEqual(up!);
      }
    }
  });

  it('hovering by the mouse highlights the line under the cursor; moving off gives its pixels back', async () => {
    await shot(true);
    const draws = await sceneDraws();
    const [mx, my] = await at(page, 80, 47.5);
    await page.mouse.move(mx, my, { steps: 3 });
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.hover as string[]), (h) => h.join() === H.D);
    await settle(page);
    const d = await shot(false, await rectOf(BOX.D!));
    expect(d.changed).toBeGreaterThan(20);
    expect(d.outside).toBe(0);
    await page.mouse.move(3, 3);
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.hover as string[]), (h) => h.length === 0);
    await settle(page);
    expect((await shot(false)).changed).toBe(0);
    expect(await sceneDraws()).toBe(draws);
  });

  it('with lineweights shown, the hovered line is drawn at its lineweight in the hover colour', async () => {
    const hairline = async (): Promise<number> => {
      await shot(true);
      const d = await shot(false, await rectOf(BOX.D!, 6), [H.D!]);
      expect(d.outside).toBe(0);
      expect(d.wasBackground).toBe(0);
      // dashed, at its lineweight too
      const share = d.changed / (d.changed + d.missed);
      expect(share).toBeGreaterThan(0.45);
      expect(share).toBeLessThan(0.75);
      expect((await shot(false, undefined, [])).changed).toBe(0);
      return d.changed;
    };
    const thin = await hairline();
    await page.evaluate(() => {
      const v = (globalThis as any).linework.app.view;
      v.lineweights = true;
      v.dropCache();
    });
    const thick = await hairline();
    await page.evaluate(() => {
      const v = (globalThis as any).linework.app.view;
      v.lineweights = false;
      v.dropCache();
    });
    // 1 mm at 96 dpi is about 3.8 px wide
    expect(thick).toBeGreaterThan(thin * 2.5);
  });

  it('a selected entity keeps the selection colour under the cursor', async () => {
    expect((await s.api.post('/api/v1/select', { handles: [H.C] })).status).toBe(200);
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.selection as string[]), (x) => x.join() === H.C);
    await settle(page);
    await page.evaluate(() => (globalThis as any).linework.app.setHover([]));
    await shot(true);
    expect((await shot(false, undefined, [H.C!])).changed).toBe(0);
    await shot(false, undefined, []);
    expect((await s.api.post('/api/v1/select', { mode: 'clear' })).status).toBe(200);
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.selection as string[]), (x) => x.length === 0);
    await settle(page);
  });

  it('a hover set too large to draw over the picture (a window\'s preview) is flagged and still shows', async () => {
    await shot(true);
    const draws = await sceneDraws();
    // handles this drawing lacks fill the set past HOVER_OVERLAY_MAX (2000)
    const d = await shot(false, await rectOf(BOX.D!), [...Array.from({ length: 2001 }, (_, i) => `FFFF${i}`), H.D!]);
    expect(d.changed).toBeGreaterThan(20);
    expect(d.outside).toBe(0);
    expect(await sceneDraws()).toBeGreaterThan(draws);
    expect((await shot(false, undefined, [])).changed).toBe(0);
  });
});
