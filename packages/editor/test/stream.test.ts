// A large drawing reaches the editor in parts, the view's first: the server streams frames (each
// after its byte length), the page draws the first at once and extends the same scene with the
// rest, ending with every entity drawn, the last parts' corners included.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dxf } from '../../engine/src/dxf.js';
import { add, decodePng, newDoc } from '../../engine/test/render-helpers.js';
import { hasChromium, launch, openEditor, startEditor, type EditorServer, closeEditorTest } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'lw-editor-stream-'));
const SIDE = 160; // 25 600 lines: over the 20 000 a first part holds
let s: EditorServer;
let browser: Browser;

/** The frames of a streamed display list: [byte length][LWDL frame]... -> each frame's JSON header. */
function headers(buf: Buffer): Record<string, any>[] {
  const out: Record<string, any>[] = [];
  for (let at = 0; at < buf.length;) {
    const len = buf.readUInt32LE(at);
    const frame = buf.subarray(at + 4, at + 4 + len);
    expect(frame.toString('latin1', 0, 4)).toBe('LWDL');
    out.push(JSON.parse(frame.toString('utf8', 8, 8 + frame.readUInt32LE(4))));
    at += 4 + len;
  }
  return out;
}

describe.skipIf(!hasChromium)('a large drawing streamed in parts', () => {
  beforeAll(async () => {
    const doc = await newDoc();
    for (let i = 0; i < SIDE * SIDE; i++) {
      const x = (i % SIDE) * 10, y = Math.floor(i / SIDE) * 10;
      add(doc, 'LINE', { color: 1 + (i % 6), start: [x, y, 0], end: [x + 6, y + 6, 0] });
    }
    await dxf.saveDxf(doc, join(dir, 'grid.dxf'));
    s = await startEditor(['--gui', '--root', dir, join(dir, 'grid.dxf')], { LINEWORK_ROOT: '' });
    browser = await launch();
  }, 120_000);

  afterAll(() => closeEditorTest(browser, s, dir));

  it('the server sends the parts around the view first, every entity once', async () => {
    const r = await fetch(`http://127.0.0.1:${s.editorPort}/gui/display-list?stream=1&view=0,0,100,100`, { headers: { Authorization: `Bearer ${s.token}` } });
    expect(r.status).toBe(200);
    const hs = headers(Buffer.from(await r.arrayBuffer()));
    expect(hs.length).toBeGreaterThan(1);
    expect(hs.map((h) => h.part)).toEqual(hs.map((_, i) => i));
    expect(hs.every((h) => h.parts === hs.length && h.origin.join() === hs[0]!.origin.join())).toBe(true);
    const all = hs.flatMap((h) => h.handles as string[]);
    expect(all.length).toBe(SIDE * SIDE);
    expect(new Set(all).size).toBe(SIDE * SIDE);
    // the view's corner comes in the first part, the far corner later
    expect(hs[0]!.bounds[0]).toBeLessThan(10);
    expect(hs[0]!.bounds[1]).toBeLessThan(10);
    expect(hs[0]!.extents).toEqual([0, 0, (SIDE - 1) * 10 + 6, (SIDE - 1) * 10 + 6]);
  });

  it('the page ends with one scene of every entity, drawn to the corners', async () => {
    const { page, errors } = await openEditor(browser, s.editorUrl);
    await page.waitForFunction(() => (globalThis as any).linework.complete === true, null, { timeout: 120_000 });
    await page.evaluate(() => (globalThis as any).linework.frameSync());
    expect(await page.evaluate(() => (globalThis as any).linework.app.base.entityCount)).toBe(SIDE * SIDE);
    // ink near each corner of the fitted drawing (the corners are the last parts)
    const box = (await page.locator('#gl').boundingBox())!;
    const img = decodePng(await page.screenshot({ clip: box }));
    const corners = await page.evaluate((far) => {
      const lw = (globalThis as any).linework;
      return [[0, 0], [far, 0], [0, far], [far, far], [far / 2, far / 2]].map(([x, y]) => lw.toScreen(x, y! + 3) as [number, number]);
    }, (SIDE - 1) * 10 + 3);
    const bg = img.at(2, 2);
    for (const [cx, cy] of corners) {
      let ink = false;
      for (let dy = -3; dy <= 3 && !ink; dy++) {
        for (let dx = -3; dx <= 3 && !ink; dx++) {
          const c = img.at(Math.round(cx + dx), Math.round(cy + dy));
          ink = Math.abs(c[0] - bg[0]) + Math.abs(c[1] - bg[1]) + Math.abs(c[2] - bg[2]) > 60;
        }
      }
      expect(ink, `ink near (${cx}, ${cy})`).toBe(true);
    }
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
