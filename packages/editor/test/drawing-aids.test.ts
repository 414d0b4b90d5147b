// The editor's drawing aids, palette and in-place text, in a real headless Chromium with real mouse
// and keyboard against the real server: dynamic input (a typed length along the cursor, Tab to the
// angle, @dx,dy and x,y), polar tracking (F10) at the drawing's POLARANG, the object snap settings
// as the drawing's OSMODE (kept through save and reopen), the properties palette (*VARIES*, Radius
// for two circles, an index colour from the swatches), TEXT and MTEXT typed in place and a text
// edited in place by a double click. One browser and one server for the file.
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { at, click, hasChromium, launch, openEditor, settle, startEditor, waitFor, type EditorServer, showView, closeEditorTest } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'lw-aids-'));
let s: EditorServer;
let browser: Browser;
let page: Page;
const H: Record<string, string> = {};

const prompt = (): Promise<string | null> => page.evaluate(() => (globalThis as any).linework.prompt as string | null);
const version = async (): Promise<number> => (await s.api.get('/api/v1/state')).json.version as number;
const entity = async (h: string): Promise<Record<string, any>> => (await s.api.get(`/api/v1/entities/${h}`)).json.entities[0];
const sysvar = async (name: string): Promise<unknown> => (await s.api.post('/api/v1/sysvars', { get: [name] })).json.result.values[name];
/** The newest entities of the drawing (the last `n`). */
const newest = async (n = 1): Promise<Record<string, any>[]> => {
  const list = (await s.api.post('/api/v1/entities_list', { detail: 'full', limit: 10000 })).json.result.entities as Record<string, any>[];
  return list.slice(-n);
};

async function typeCommand(text: string): Promise<void> {
  await page.locator('#gl').focus();
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

/** Escape until nothing is asked and nothing is selected. */
async function idle(): Promise<void> {
  await waitFor(async () => {
    const busy = await prompt();
    const n = (await s.api.post('/api/v1/get_selection', {})).json.result.entities.length as number;
    if (busy !== null || n) {
      await page.locator('#gl').focus();
      await page.keyboard.press('Escape');
    }
    return busy === null && n === 0;
  }, (ok) => ok);
}

/** Moves the real mouse to a drawing point (in a few steps, as a hand would). */
async function hover(x: number, y: number): Promise<void> {
  const [px, py] = await at(page, x, y);
  await page.mouse.move(px, py, { steps: 3 });
}

describe.skipIf(!hasChromium)('drawing aids, the properties palette and text in place', () => {
  beforeAll(async () => {
    s = await startEditor(['--gui', '--root', dir], { LINEWORK_ROOT: '' });
    const made = await s.api.post('/api/v1/entities', {
      entities: [
        { type: 'Circle', center: [200, 0], radius: 5 },
        { type: 'Circle', center: [230, 10], radius: 8 },
        { type: 'Line', start: [200, 40], end: [240, 40] },
      ],
    });
    expect(made.status, made.text).toBe(201);
    [H.C1, H.C2, H.L] = made.json.result.handles;
    // the drawing's polar increment, read by the page when it shows the drawing
    expect((await s.api.post('/api/v1/sysvars', { set: { POLARANG: 30 } })).status).toBe(200);
    browser = await launch();
    ({ page } = await openEditor(browser, s.editorUrl, { width: 1280, height: 800 }));
    await showView(s, page, [-10, -20, 250, 60]);
  }, 60_000);

  afterAll(() => closeEditorTest(browser, s, dir));

  it('dynamic input: x,y first, a typed length along the cursor, Tab to the angle, @dx,dy and x,y', async () => {
    await typeCommand('LINE');
    await waitFor(prompt, (p) => p === 'Specify first point:');
    // typed on the drawing: the box at the cursor takes it
    await hover(5, 5);
    await page.locator('#gl').focus();
    await page.keyboard.type('10,10');
    expect(await page.locator('#dyn').isVisible()).toBe(true);
    expect(await page.locator('#dyn .dyn-prompt').innerText()).toBe('Specify first point:');
    await page.keyboard.press('Enter');
    await waitFor(prompt, (p) => p?.startsWith('Specify next point') ?? false);
    // the cursor to the right of the first point: 25 typed is 25 along that direction
    await hover(30, 10.4);
    await page.keyboard.type('25');
    expect(await page.locator('#dyn .dyn-field[data-field="0"]').inputValue()).toBe('25');
    expect(await page.locator('#dyn .dyn-field[data-field="0"]').getAttribute('aria-label')).toBe('Distance');
    await page.keyboard.press('Enter');
    // distance Tab angle: 10 at 90 degrees
    await page.keyboard.type('10');
    await page.keyboard.press('Tab');
    await page.keyboard.type('90');
    expect(await page.locator('#dyn .dyn-field[data-field="1"]').inputValue()).toBe('90');
    await page.keyboard.press('Enter');
    await page.keyboard.type('@-5,5');
    await page.keyboard.press('Enter');
    await page.keyboard.type('0,0');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    const lines = await waitFor(() => newest(4), (l) => l.every((e) => e.type === 'Line') && l[0]!.start[0] === 10 && l[0]!.start[1] === 10);
    // the first length is exactly 25, along the cursor's direction (within a pixel's angle)
    const [x1, y1] = lines[0]!.end as number[];
    expect(Math.hypot(x1! - 10, y1! - 10)).toBeCloseTo(25, 9);
    expect(Math.atan2(y1! - 10, x1! - 10)).toBeCloseTo(Math.atan2(0.4, 20), 1);
    const want = [[10, 10], [x1!, y1!], [x1!, y1! + 10], [x1! - 5, y1! + 15], [0, 0]];
    for (const [i, l] of lines.entries()) {
      for (const [k, p] of [l.start, l.end].entries()) {
        expect(p[0]).toBeCloseTo(want[i + k]![0]!, 9);
        expect(p[1]).toBeCloseTo(want[i + k]![1]!, 9);
      }
    }
    await idle();
  });

  it('F10 polar tracking snaps the point to the POLARANG increment, with its tooltip', async () => {
    await page.locator('#gl').focus();
    await page.keyboard.press('F10');
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.app.toggles.polar as boolean), (on) => on);
    expect(await page.evaluate(() => (globalThis as any).linework.app.polarAngle)).toBe(30);
    await typeCommand('LINE');
    await page.keyboard.type('100,-10');
    await page.keyboard.press('Enter');
    await waitFor(prompt, (p) => p?.startsWith('Specify next point') ?? false);
    // 2 degrees off 30: polar holds the ray at 30
    const a = (32 * Math.PI) / 180;
    await hover(100 + 20 * Math.cos(a), -10 + 20 * Math.sin(a));
    const label = await waitFor(() => page.evaluate(() => (globalThis as any).linework.app.overlay.track?.label as string | null), (l) => !!l);
    expect(label).toMatch(/^Polar: [\d.]+ < 30°$/);
    const [px, py] = await at(page, 100 + 20 * Math.cos(a), -10 + 20 * Math.sin(a));
    await page.mouse.down();
    await page.mouse.up();
    await page.mouse.move(px + 1, py);
    await page.keyboard.press('Enter');
    const line = await waitFor(async () => (await newest())[0]!, (e) => e.type === 'Line' && e.start[0] === 100 && e.start[1] === -10);
    const ang = (Math.atan2(line.end[1] - line.start[1], line.end[0] - line.start[0]) * 180) / Math.PI;
    expect(ang).toBeCloseTo(30, 9);
    await page.keyboard.press('F10');
    await idle();
  });

  it('F11 object-snap tracking: a point rested on, then followed along its horizontal', async () => {
    await page.locator('#gl').focus();
    await page.keyboard.press('F11');
    await typeCommand('LINE');
    await page.keyboard.type('150,50');
    await page.keyboard.press('Enter');
    await waitFor(prompt, (p) => p?.startsWith('Specify next point') ?? false);
    // rest on the line's start (200, 40): the endpoint snap shows and is acquired
    await hover(200.3, 40.2);
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.app.acquired.map((a: { at: number[] }) => a.at) as number[][]), (a) => a.some((p) => p[0] === 200 && p[1] === 40));
    // away from it, a little above its horizontal: the cursor follows the horizontal
    await hover(175, 40.5);
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.app.overlay.snap as unknown), (x) => x === null);
    const label = await waitFor(() => page.evaluate(() => (globalThis as any).linework.app.overlay.track?.label as string | null), (l) => l?.startsWith('Endpoint:') ?? false);
    expect(label).toMatch(/^Endpoint: [\d.]+ < 180°$/);
    await page.mouse.down();
    await page.mouse.up();
    await page.keyboard.press('Enter');
    const line = await waitFor(async () => (await newest())[0]!, (e) => e.type === 'Line' && e.start[0] === 150 && e.start[1] === 50);
    expect(line.end[1]).toBe(40);
    expect(line.end[0]).toBeGreaterThan(170);
    expect(line.end[0]).toBeLessThan(180);
    await page.keyboard.press('F11');
    await idle();
  });

  it('the palette shows *VARIES* for two circles; Radius typed changes both in one undo step', async () => {
    await click(page, 205, 0);
    await click(page, 238, 10);
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.selection as string[]), (sel) => sel.length === 2);
    const radius = page.locator('#prop-body input[data-field="radius"]');
    await radius.waitFor();
    // the palette may show the first circle alone for a moment, then both
    await waitFor(() => radius.getAttribute('placeholder'), (p) => p === '*VARIES*');
    expect(await page.locator('#prop-body input[data-field="center_x"]').getAttribute('placeholder')).toBe('*VARIES*');
    expect(await page.locator('#prop-body input[data-field="center_z"]').inputValue()).toBe('0');
    expect(await page.locator('#prop-body input[data-field="area"]').getAttribute('placeholder')).toBe('*VARIES*');
    expect(await page.locator('#prop-body [data-field="count"]').innerText()).toBe('2 objects (Circle)');
    const v0 = await version();
    await radius.fill('7');
    await radius.press('Enter');
    await waitFor(async () => [(await entity(H.C1!)).radius, (await entity(H.C2!)).radius], (r) => r[0] === 7 && r[1] === 7);
    expect(await version()).toBe(v0 + 1);
    // now shared: the palette shows it, and the derived fields with it
    await waitFor(() => page.locator('#prop-body input[data-field="diameter"]').inputValue(), (v) => v === '14');
    expect(await page.locator('#prop-body input[data-field="radius"]').inputValue()).toBe('7');
    // Center X for both: each keeps its own Y, still one step
    const cx = page.locator('#prop-body input[data-field="center_x"]');
    expect(await cx.getAttribute('placeholder')).toBe('*VARIES*');
    await cx.fill('150');
    await cx.press('Enter');
    await waitFor(async () => [(await entity(H.C1!)).center, (await entity(H.C2!)).center], (c) => c[0][0] === 150 && c[1][0] === 150);
    expect((await entity(H.C1!)).center).toEqual([150, 0, 0]);
    expect((await entity(H.C2!)).center).toEqual([150, 10, 0]);
    expect(await version()).toBe(v0 + 2);
    // the circles back where the other tests expect them
    expect((await s.api.post('/api/v1/undo', {})).status).toBe(200);
    await waitFor(async () => (await entity(H.C2!)).center[0], (x) => x === 230);
    await idle();
  });

  it('the colour picker sets an index colour; linetype and lineweight lists come from the drawing', async () => {
    await idle();
    await click(page, 220, 40);
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.selection as string[]), (sel) => sel.join() === H.L);
    const color = page.locator('#prop-body select[data-field="color"]');
    await color.waitFor();
    expect(await color.inputValue()).toBe('256');
    const lw = await page.locator('#prop-body select[data-field="lineweight"] option').allInnerTexts();
    expect(lw.slice(0, 6)).toEqual(['ByLayer', 'ByBlock', 'Default', '0.00 mm', '0.05 mm', '0.09 mm']);
    expect(lw).toContain('2.11 mm');
    expect(await page.locator('#prop-body select[data-field="linetype"] option').allInnerTexts()).toEqual(['ByLayer', 'ByBlock', 'Continuous']);
    expect(await page.locator('#prop-body input[data-field="length"]').inputValue()).toBe('40');
    expect(await page.locator('#prop-body input[data-field="length"]').getAttribute('readonly')).not.toBeNull();
    await color.selectOption('pick');
    const picker = page.locator('#color-picker');
    await picker.waitFor();
    await picker.locator('button.swatch[data-aci="30"]').click();
    await waitFor(async () => (await entity(H.L!)).color, (c) => c === 30);
    await waitFor(() => page.locator('#prop-body select[data-field="color"] option:checked').innerText(), (t) => t === 'Color 30');
    // a true colour from the picker: kept with its nearest index for older readers
    await page.locator('#prop-body select[data-field="color"]').selectOption('pick');
    await picker.waitFor();
    await picker.locator('input[type="color"]').fill('#336699');
    await picker.locator('[data-action="true-color"]').click();
    await waitFor(async () => (await entity(H.L!)).true_color, (c) => c === 0x336699);
    await waitFor(() => page.locator('#prop-body select[data-field="color"] option:checked').innerText(), (t) => t === '51,102,153');
    await idle();
  });

  it('TEXT typed in place: each Enter ends a line and starts the next below; one undo step', async () => {
    const v0 = await version();
    await typeCommand('TEXT');
    await hover(20, 45);
    await page.locator('#gl').focus();
    await page.keyboard.type('20,45');
    await page.keyboard.press('Enter');
    await waitFor(prompt, (p) => p?.startsWith('Specify height') ?? false);
    await page.keyboard.type('4');
    await page.keyboard.press('Enter');
    await waitFor(prompt, (p) => p?.startsWith('Specify rotation') ?? false);
    await page.keyboard.press('Enter');
    await waitFor(prompt, (p) => p === 'Enter text:');
    const box = page.locator('input.inplace-text');
    await box.waitFor();
    // the box sits at the insertion point, in the text's height on screen
    const scale = await page.evaluate(() => (globalThis as any).linework.app.view.scale as number);
    expect(parseFloat(await box.evaluate((e) => (e as HTMLElement).style.fontSize))).toBeCloseTo(4 * scale, 3);
    await page.keyboard.type('FIRST LINE');
    await page.keyboard.press('Enter');
    await page.keyboard.type('SECOND');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    const texts = await waitFor(() => newest(2), (l) => l.every((e) => e.type === 'Text'));
    expect(texts.map((t) => t.text)).toEqual(['FIRST LINE', 'SECOND']);
    expect(texts[0]!.insert).toEqual([20, 45, 0]);
    expect(texts[1]!.insert[0]).toBeCloseTo(20, 9);
    expect(texts[1]!.insert[1]).toBeCloseTo(45 - 4 * 1.667, 9);
    expect(texts.map((t) => t.height)).toEqual([4, 4]);
    expect(await version()).toBe(v0 + 1);
    H.T = texts[0]!.handle;
    await waitFor(prompt, (p) => p === null);
  });

  it('a double click on a text edits it in place (one undo step); MTEXT typed in place ends with Ctrl+Enter', async () => {
    await idle();
    await settle(page);
    const t = await entity(H.T!);
    const b = t.bounds as { min: number[]; max: number[] };
    const aperture = await page.evaluate(() => 4 / ((globalThis as any).linework.app.view.scale as number));
    let hit: number[] | null = null;
    for (let x = b.min[0]!; x <= b.max[0]! && !hit; x += 0.2) {
      const r = await s.api.post('/api/v1/pick', { point: [x, (b.min[1]! + b.max[1]!) / 2], aperture });
      if ((r.json.result.handles as string[]).includes(H.T!)) hit = [x, (b.min[1]! + b.max[1]!) / 2];
    }
    expect(hit).not.toBeNull();
    const [tx, ty] = await at(page, hit![0]!, hit![1]!);
    const v0 = await version();
    await page.mouse.dblclick(tx, ty);
    await waitFor(prompt, (p) => p === `Edit TEXT ${H.T}:`);
    const box = page.locator('input.inplace-text');
    expect(await box.inputValue()).toBe('FIRST LINE');
    await page.keyboard.press('Control+a');
    await page.keyboard.type('EDITED');
    await page.keyboard.press('Enter');
    await waitFor(async () => (await entity(H.T!)).text, (x) => x === 'EDITED');
    expect(await version()).toBe(v0 + 1);
    await idle();

    await typeCommand('MTEXT');
    await page.keyboard.type('60,30');
    await page.keyboard.press('Enter');
    await page.keyboard.type('100,20');
    await page.keyboard.press('Enter');
    await waitFor(prompt, (p) => p?.startsWith('Enter text') ?? false);
    await page.locator('textarea.inplace-text').waitFor();
    await page.keyboard.type('ab');
    await page.keyboard.press('Enter');
    await page.keyboard.type('cd');
    await page.keyboard.press('Control+Enter');
    const m = await waitFor(async () => (await newest())[0]!, (e) => e.type === 'MText');
    expect(m.text).toBe('ab\\Pcd');
    expect(m.insert).toEqual([60, 30, 0]);
    expect(m.width).toBe(40);
  });

  it('the object snap settings change OSMODE (read through the API), F3 sets its off bit, and it survives save and reopen', async () => {
    const before = await sysvar('OSMODE');
    expect(before).toBe(767);
    await page.locator('#t-osnap').click({ button: 'right' });
    const dlg = page.locator('#osnap-settings');
    await dlg.waitFor();
    expect(await dlg.locator('input[data-mode="midpoint"]').isChecked()).toBe(true);
    expect(await dlg.locator('input[data-mode="tangent"]').isChecked()).toBe(false);
    await dlg.locator('input[data-mode="midpoint"]').click();
    await waitFor(() => sysvar('OSMODE'), (v) => v === 767 - 2);
    await dlg.locator('input[data-mode="tangent"]').click();
    await dlg.locator('input[data-mode="extension"]').click();
    await waitFor(() => sysvar('OSNAP'), (v) => v === 767 - 2 + 256 + 4096);
    await dlg.locator('[data-action="close"]').click();
    await page.locator('#gl').focus();
    await page.keyboard.press('F3');
    await waitFor(() => sysvar('OSMODE'), (v) => v === 767 - 2 + 256 + 4096 + 16384);
    expect((await page.locator('#t-osnap').getAttribute('class'))?.split(' ')).not.toContain('on');
    await page.keyboard.press('F3');
    await waitFor(() => sysvar('OSMODE'), (v) => v === 767 - 2 + 256 + 4096);

    const file = join(dir, 'aids.dxf');
    expect((await s.api.post('/api/v1/save', { path: file })).status).toBe(200);
    // the saved file opened again, as a second drawing (a copy: the first is still open)
    copyFileSync(file, join(dir, 'aids-again.dxf'));
    const opened = await s.api.post('/api/v1/document_open', { path: join(dir, 'aids-again.dxf') });
    expect(opened.status, opened.text).toBeLessThan(300);
    const id = opened.json.document_id ?? opened.json.result?.document_id;
    const r = await s.api.post('/api/v1/sysvars', { document_id: id, get: ['OSMODE', 'POLARANG'] });
    expect(r.json.result.values).toEqual({ OSMODE: 767 - 2 + 256 + 4096, POLARANG: 30 });
    expect((await s.api.post('/api/v1/document_close', { document_id: id })).status).toBeLessThan(300);
  });

  it('a read of OSMODE asked before F3 and answered after it does not turn object snap back on', async () => {
    // the page's reads of the drawing aids answer late, as over a slow link
    await page.route('**/api/v1/sysvars', async (route) => {
      if (!route.request().postData()?.includes('"get"')) return route.continue();
      // answered by the server now, handed to the page 0.7 s later
      const response = await route.fetch();
      await new Promise((r) => setTimeout(r, 700));
      await route.fulfill({ response });
    });
    try {
      const osmode = await sysvar('OSMODE');
      expect((await page.locator('#t-osnap').getAttribute('class'))?.split(' ')).toContain('on');
      // another client sets POLARANG: the page asks for the aids again (answered in 0.7 s)
      expect((await s.api.post('/api/v1/sysvars', { set: { POLARANG: 45 } })).status).toBe(200);
      await page.waitForTimeout(200);
      await page.locator('#gl').focus();
      await page.keyboard.press('F3');
      const seen = new Set<string | null>();
      for (const t0 = Date.now(); Date.now() - t0 < 2000; ) {
        seen.add(await page.locator('#t-osnap').getAttribute('class'));
        await page.waitForTimeout(25);
      }
      expect([...seen].filter((c) => c?.split(' ').includes('on'))).toEqual([]);
      expect(await sysvar('OSMODE')).toBe((osmode as number) | 16384);
      expect(await page.evaluate(() => (globalThis as any).linework.app.toggles.osnap)).toBe(false);
    } finally {
      await page.unroute('**/api/v1/sysvars');
    }
    await page.keyboard.press('F3');
    await waitFor(() => sysvar('OSMODE'), (v) => !((v as number) & 16384));
  });

});
