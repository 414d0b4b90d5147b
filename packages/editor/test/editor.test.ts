// The web editor in a real headless Chromium with real mouse and keyboard events, against the real
// server: picks, windows, snaps, prompts answered on screen, live updates from other clients,
// layers, undo, the command line, the properties palette, and the page's security.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePng, type DecodedPng } from '../../engine/test/render-helpers.js';
import { request } from '../../server/test/helpers.js';
import { writeFileSync } from 'node:fs';
import { Resvg } from '@resvg/resvg-js';
import { at, click, drag, hasChromium, inkCovered, inkMask, launch, openEditor, settle, startEditor, waitFor, type EditorServer, showView, closeEditorTest } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'lw-editor-'));
let s: EditorServer;
let browser: Browser;
let page: Page;
const H: Record<string, string> = {};

async function selection(): Promise<string[]> {
  const r = await s.api.post('/api/v1/get_selection', {});
  return (r.json.result.entities as { handle: string }[]).map((e) => e.handle);
}

async function screenshot(): Promise<DecodedPng> {
  const box = (await page.locator('#gl').boundingBox())!;
  return decodePng(await page.screenshot({ clip: box }));
}

/** True when some pixel within `r` px of the drawing point differs from the background. */
async function inkNear(img: DecodedPng, x: number, y: number, r = 2): Promise<boolean> {
  const box = (await page.locator('#gl').boundingBox())!;
  const [px, py] = await at(page, x, y);
  const cx = px - box.x, cy = py - box.y;
  const bg = img.at(2, 2);
  for (let dy = -r; dy <= r; dy++) {
    for (let dx = -r; dx <= r; dx++) {
      const c = img.at(Math.min(img.width - 1, Math.max(0, cx + dx)), Math.min(img.height - 1, Math.max(0, cy + dy)));
      if (Math.abs(c[0] - bg[0]) + Math.abs(c[1] - bg[1]) + Math.abs(c[2] - bg[2]) > 120) return true;
    }
  }
  return false;
}

/**
 * Compares the editor's screen (light background) with the server's PNG preview of exactly the
 * area on screen: the ink of each must lie within 2 px of the other's.
 */
async function compareWithPlot(p: Page, api: EditorServer['api']): Promise<{ screen: number; plot: number; inkPx: number }> {
  const box = (await p.locator('#gl').boundingBox())!;
  const v = await p.evaluate(() => {
    const view = (globalThis as any).linework.app.view;
    return { cx: view.cx as number, cy: view.cy as number, scale: view.scale as number };
  });
  const W = Math.round(box.width), Hh = Math.round(box.height);
  // the preview leaves a margin (5 % of the shorter side, 8 px to a quarter): ask for the area that
  // lands exactly where the screen shows it
  const short = Math.min(W, Hh);
  const m = Math.min(short / 4, Math.max(8, short * 0.05));
  const pw = (W - 2 * m) / v.scale, ph = (Hh - 2 * m) / v.scale;
  const pr = await api.post('/api/v1/preview', { width: W, height: Hh, area: [v.cx - pw / 2, v.cy - ph / 2, v.cx + pw / 2, v.cy + ph / 2] });
  expect(pr.status, pr.text).toBe(200);
  const plot = decodePng(Buffer.from(pr.json.result.data, 'base64'));
  const screen = decodePng(await p.screenshot({ clip: { x: box.x, y: box.y, width: W, height: Hh } }));
  if (process.env.LINEWORK_EDITOR_SHOTS) {
    writeFileSync(join(process.env.LINEWORK_EDITOR_SHOTS, `screen-${W}.png`), await p.screenshot({ clip: { x: box.x, y: box.y, width: W, height: Hh } }));
    writeFileSync(join(process.env.LINEWORK_EDITOR_SHOTS, `plot-${W}.png`), Buffer.from(pr.json.result.data, 'base64'));
  }
  const a = inkMask(screen), b = inkMask(plot);
  let inkPx = 0;
  for (const x of a) inkPx += x;
  return { screen: inkCovered(a, b, W, Hh), plot: inkCovered(b, a, W, Hh), inkPx };
}

async function prompt(): Promise<string | null> {
  return page.evaluate(() => (globalThis as any).linework.prompt as string | null);
}

async function version(): Promise<number> {
  return (await s.api.get('/api/v1/state')).json.version;
}

async function editorVersion(): Promise<number> {
  return page.evaluate(() => (globalThis as any).linework.version as number);
}

describe.skipIf(!hasChromium)('the graphical editor', () => {
  beforeAll(async () => {
    s = await startEditor(['--gui', '--root', dir], { LINEWORK_ROOT: '' });
    const made = await s.api.post('/api/v1/entities', {
      create_layers: true,
      entities: [
        { type: 'Line', start: [0, 0], end: [100, 0], layer: 'Walls' },
        { type: 'Line', start: [0, 0], end: [0, 60], layer: 'Walls' },
        { type: 'Circle', center: [50, 30], radius: 10 },
        { type: 'Line', start: [70, 40], end: [90, 55], layer: 'Notes' },
        { type: 'Text', value: 'HELLO', position: [5, 45], height: 5 },
      ],
    });
    expect(made.status, made.text).toBe(201);
    [H.A, H.B, H.C, H.D, H.T] = made.json.result.handles;
    browser = await launch();
    ({ page } = await openEditor(browser, s.editorUrl));
    // the view every screen follows
    await showView(s, page, [-10, -10, 110, 70]);
  }, 60_000);

  afterAll(() => closeEditorTest(browser, s, dir));

  it('serves the page with a strict CSP, loads nothing from elsewhere, and keeps the token out of the URL', async () => {
    const r = await request(s.editorPort, 'GET', '/', { headers: { Host: `127.0.0.1:${s.editorPort}`, Connection: 'close' } });
    expect(r.status).toBe(200);
    expect(r.headers['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'/);
    const p2 = await openEditor(browser, s.editorUrl);
    expect(p2.foreign).toEqual([]);
    expect(p2.errors).toEqual([]);
    expect(p2.page.url()).not.toContain('token');
    await p2.page.close();
    expect(s.proc.stderr().split(s.token).length - 1).toBe(2); // the token line and the editor address, nothing else
  });

  it('refuses every data route without the token (401) and other Host names (400)', async () => {
    for (const path of ['/gui/events', '/gui/display-list', '/api/v1/state']) {
      const r = await request(s.editorPort, 'GET', path, { headers: { Host: `127.0.0.1:${s.editorPort}`, Connection: 'close' } });
      expect(r.status, path).toBe(401);
    }
    const rebound = await request(s.editorPort, 'GET', '/', { headers: { Host: 'evil.example:80', Connection: 'close' } });
    expect(rebound.status).toBe(400);
  });

  it('zooms about the cursor with the wheel and pans with a middle drag; the drawing follows on screen', async () => {
    const view = () => page.evaluate(() => { const v = (globalThis as any).linework.app.view; return { cx: v.cx as number, cy: v.cy as number, scale: v.scale as number }; });
    const v0 = await view();
    const [px, py] = await at(page, 100, 0);
    await page.mouse.move(px, py);
    await page.mouse.wheel(0, -300);
    await waitFor(view, (v) => v.scale > v0.scale * 1.5);
    // the point under the cursor stays under it
    const [qx, qy] = await at(page, 100, 0);
    expect(Math.hypot(qx - px, qy - py)).toBeLessThan(1);
    await settle(page);
    await page.waitForTimeout(250); // the zoom settles and the drawing is redrawn sharp
    expect(await inkNear(await screenshot(), 95, 0)).toBe(true);
    // middle drag: the drawing moves with the mouse
    const v1 = await view();
    await page.mouse.move(600, 400);
    await page.mouse.down({ button: 'middle' });
    await page.mouse.move(520, 360, { steps: 5 });
    await page.mouse.up({ button: 'middle' });
    const v2 = await view();
    expect(v2.cx - v1.cx).toBeCloseTo(80 / v1.scale, 6);
    expect(v2.cy - v1.cy).toBeCloseTo(-40 / v1.scale, 6);
    await settle(page);
    expect(await inkNear(await screenshot(), 95, 0)).toBe(true);
    expect(await inkNear(await screenshot(), 95, 3)).toBe(false);
    // back to the view the other tests use
    expect((await s.api.post('/api/v1/view_focus', { bounds: [-10, -10, 110, 70], margin: 0 })).status).toBe(200);
    await waitFor(view, (v) => Math.abs(v.scale - v0.scale) < 1e-9 * v0.scale);
    await settle(page);
  });

  it('a click selects the entity under the pick box, shift-click removes it, Esc clears', async () => {
    await click(page, 60, 30); // on the circle's edge
    await waitFor(selection, (sel) => sel.join() === H.C);
    await click(page, 50, 0.2);
    await waitFor(selection, (sel) => sel.join() === [H.C, H.A].join());
    await click(page, 60, 30, { shift: true });
    await waitFor(selection, (sel) => sel.join() === H.A);
    await page.keyboard.press('Escape');
    await waitFor(selection, (sel) => sel.length === 0);
  });

  it('a window (left to right) takes what is inside; a crossing (right to left) what it crosses', async () => {
    await drag(page, [-5, -5], [105, 5]);
    await waitFor(selection, (sel) => sel.join() === H.A);
    await page.keyboard.press('Escape');
    await waitFor(selection, (sel) => sel.length === 0);
    await drag(page, [35, 25], [65, 35]);
    await settle(page);
    expect(await selection()).toEqual([]);
    await drag(page, [65, 35], [35, 25]);
    await waitFor(selection, (sel) => sel.join() === H.C);
    await page.keyboard.press('Escape');
    await waitFor(selection, (sel) => sel.length === 0);
  });

  it('user_select from a client is answered by clicks on screen, in the order picked', async () => {
    const pending = s.api.post('/api/v1/user_select', { message: 'Pick two', count: 2 });
    await waitFor(prompt, (p) => p === 'Pick two');
    expect(await page.locator('#prompt').textContent()).toContain('Pick two');
    await click(page, 40, 30);
    await click(page, 80, 47.5);
    const r = await pending;
    expect(r.status, r.text).toBe(200);
    expect(r.json.result.handles).toEqual([H.C, H.D]);
    expect(r.json.result.entities[0]).toMatchObject({ handle: H.C, type: 'Circle' });
  });

  it('getpoint snaps to an endpoint and returns its exact coordinate', async () => {
    const pending = s.api.post('/api/v1/getpoint', { message: 'Where?' });
    await waitFor(prompt, (p) => p === 'Where?');
    const [x, y] = await at(page, 100, 0);
    await page.mouse.move(x + 3, y - 2, { steps: 3 });
    await page.mouse.down();
    await page.mouse.up();
    const r = await pending;
    expect(r.json.result).toEqual({ point: [100, 0, 0] });
  });

  it('queues several pending picks in order; Esc answers cancelled, and cancel from a client ends one', async () => {
    const first = s.api.post('/api/v1/getpoint', { message: 'First', request_id: 'q1' });
    const second = s.api.post('/api/v1/getpoint', { message: 'Second', request_id: 'q2' });
    await waitFor(prompt, (p) => p === 'First');
    expect(await page.locator('#prompt').textContent()).toContain('1 more waiting');
    await click(page, 0, 60);
    expect((await first).json.result.point).toEqual([0, 60, 0]);
    await waitFor(prompt, (p) => p === 'Second');
    await page.keyboard.press('Escape');
    const c = await second;
    expect(c.status).toBe(400);
    expect(c.json.code).toBe('cancelled');
    const third = s.api.post('/api/v1/user_select', { message: 'Third', request_id: 'q3' });
    await waitFor(prompt, (p) => p === 'Third');
    expect((await s.api.post('/api/v1/cancel', { id: 'q3' })).status).toBe(200);
    expect((await third).json.code).toBe('cancelled');
    await waitFor(prompt, (p) => p === null);
  });

  it('shows an entity a client creates, as a diff, and undo in the editor takes it back through the session', async () => {
    const before = await screenshot();
    expect(await inkNear(before, 20, 18)).toBe(false);
    const v0 = await version();
    const r = await s.api.post('/api/v1/entities', { entities: [{ type: 'Circle', center: [20, 15], radius: 3 }] });
    const h = r.json.result.handles[0] as string;
    await waitFor(editorVersion, (v) => v >= v0 + 1);
    await settle(page);
    expect(await inkNear(await screenshot(), 20, 18)).toBe(true);
    // Ctrl+Z on the drawing is the session's undo
    await page.locator('#gl').focus();
    await page.keyboard.press('Control+z');
    await waitFor(version, (v) => v === v0 + 2);
    expect((await s.api.get(`/api/v1/entities/${h}`)).status).toBe(404);
    await waitFor(editorVersion, (v) => v === v0 + 2);
    await settle(page);
    expect(await inkNear(await screenshot(), 20, 18)).toBe(false);
    await page.keyboard.press('Control+y');
    await waitFor(version, (v) => v === v0 + 3);
    expect((await s.api.get(`/api/v1/entities/${h}`)).status).toBe(200);
  });

  it('a layer turned off in the layers panel hides its pixels (a layer op, undoable)', async () => {
    expect(await inkNear(await screenshot(), 80, 47.5)).toBe(true);
    await page.locator('tr[data-layer="Notes"] input[data-field="on"]').click();
    await waitFor(async () => (await s.api.get('/api/v1/layers')).json.result.layers.find((l: { name: string }) => l.name === 'Notes').on, (on) => on === false);
    await settle(page);
    await waitFor(async () => inkNear(await screenshot(), 80, 47.5), (ink) => ink === false);
    expect(await inkNear(await screenshot(), 50, 0)).toBe(true);
    expect((await s.api.post('/api/v1/undo', {})).status).toBe(200);
    await waitFor(async () => inkNear(await screenshot(), 80, 47.5), (ink) => ink === true);
  });

  it('runs the command line: a command typed whole, and one that prompts for picked points', async () => {
    const count = async () => (await s.api.get('/api/v1/entities?type=Circle')).json.count as number;
    const circles = await count();
    await page.locator('#cmd').fill('CIRCLE 30,50 4');
    await page.keyboard.press('Enter');
    await waitFor(count, (n) => n === circles + 1);
    const lines = async () => (await s.api.get('/api/v1/entities?type=Line')).json.count as number;
    const n0 = await lines();
    await page.locator('#gl').focus();
    await page.keyboard.type('LINE');
    await page.keyboard.press('Enter');
    await waitFor(prompt, (p) => p === 'Specify first point:');
    await click(page, 100, 0); // snaps to the endpoint
    await waitFor(prompt, (p) => p === 'Specify next point:');
    await page.locator('#cmd').fill('@0,20');
    await page.keyboard.press('Enter');
    await waitFor(prompt, (p) => p === 'Specify next point or [Close]:');
    await page.locator('#cmd').press('Enter');
    await waitFor(lines, (n) => n === n0 + 1);
    const made = (await s.api.get('/api/v1/entities?type=Line&detail=full')).json.entities.at(-1);
    expect(made.start).toEqual([100, 0, 0]);
    expect(made.end).toEqual([100, 20, 0]);
    expect(await page.locator('#history').textContent()).toContain('LINE');
  });

  it('moves the selection by two picked points (MOVE), as one undo step', async () => {
    await click(page, 80, 47.5);
    await waitFor(selection, (sel) => sel.join() === H.D);
    // the page shows it selected (pickfirst: MOVE takes it)
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.selection as string[]), (sel) => sel.join() === H.D);
    await page.locator('#cmd').fill('MOVE');
    await page.keyboard.press('Enter');
    await waitFor(prompt, (p) => p === 'Specify base point:');
    await click(page, 70, 40);
    await waitFor(prompt, (p) => p === 'Specify second point:');
    await page.locator('#cmd').fill('@5,0');
    await page.keyboard.press('Enter');
    await waitFor(async () => (await s.api.get(`/api/v1/entities/${H.D}`)).json.entities[0].start, (p) => p[0] === 75);
    await waitFor(prompt, (p) => p === null);
  });

  it('edits the selection in the properties palette through set_properties', async () => {
    // Esc ends a command still finishing first, then clears the selection (as in AutoCAD)
    await waitFor(async () => {
      await page.keyboard.press('Escape');
      return selection();
    }, (sel) => sel.length === 0);
    await click(page, 60, 30);
    await waitFor(selection, (sel) => sel.join() === H.C);
    const radius = page.locator('#prop-body input[data-field="radius"]');
    await radius.waitFor();
    await radius.fill('12');
    await radius.press('Enter');
    await waitFor(async () => (await s.api.get(`/api/v1/entities/${H.C}`)).json.entities[0].radius, (r) => r === 12);
    await page.locator('#prop-body select[data-field="layer"]').selectOption('Walls');
    await waitFor(async () => (await s.api.get(`/api/v1/entities/${H.C}`)).json.entities[0].layer, (l) => l === 'Walls');
    await page.keyboard.press('Escape');
  });

  it('draws embedded images (inside the workspace) and matches the PNG plot of the same view on a light background', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#ff0000"/></svg>';
    writeFileSync(join(dir, 'red.png'), new Resvg(svg).render().asPng());
    const v0 = await version();
    expect((await s.api.post('/api/v1/images', { path: 'red.png', insert: [30, 5], width: 8 })).status).toBe(201);
    await waitFor(editorVersion, (v) => v >= v0 + 1);
    await page.locator('#t-bg').click();
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.app.view.scene?.background as number), (bg) => bg === 0xffffff);
    await settle(page);
    const img = await screenshot();
    const box = (await page.locator('#gl').boundingBox())!;
    const [px, py] = await at(page, 34, 9);
    const c = img.at(px - box.x, py - box.y);
    expect(c[0]).toBeGreaterThan(200);
    expect(c[1]).toBeLessThan(60);
    const r = await compareWithPlot(page, s.api);
    expect(r.inkPx).toBeGreaterThan(500);
    expect(r.screen).toBeGreaterThan(0.9);
    expect(r.plot).toBeGreaterThan(0.9);
    await page.locator('#t-bg').click();
  });

  it('shows several drawings as tabs; activate from a client switches them', async () => {
    const made = await s.api.post('/api/v1/documents', {});
    const id = made.json.document_id as number;
    await waitFor(() => page.locator('#doc-tabs button[role=tab]').count(), (n) => n === 2);
    await waitFor(() => page.locator(`#doc-tabs button[data-document="${id}"]`).getAttribute('aria-selected'), (v) => v === 'true');
    const first = (await s.api.get('/api/v1/state')).json.documents[0].document_id as number;
    expect((await s.api.post('/api/v1/activate', { document_id: first })).status).toBe(200);
    await waitFor(() => page.locator(`#doc-tabs button[data-document="${first}"]`).getAttribute('aria-selected'), (v) => v === 'true');
  });
});

const corpus = process.env.LINEWORK_DXF_CORPUS;

describe.skipIf(!hasChromium || !corpus)('a corpus drawing in the editor', () => {
  it('matches the PNG plot of the same view', async () => {
    const file = join(corpus!, 'librecad__dim_sample.dxf');
    const own = mkdtempSync(join(tmpdir(), 'lw-editor-corpus-'));
    const c = await startEditor(['--root', own, file], { LINEWORK_ROOT: '' });
    const b = await launch();
    try {
      const { page: p } = await openEditor(b, c.editorUrl);
      await p.locator('#t-bg').click();
      await waitFor(() => p.evaluate(() => (globalThis as any).linework.app.view.scene?.background as number), (bg) => bg === 0xffffff);
      await settle(p);
      const r = await compareWithPlot(p, c.api);
      expect(r.inkPx).toBeGreaterThan(2000);
      expect(r.screen).toBeGreaterThan(0.9);
      expect(r.plot).toBeGreaterThan(0.9);
    } finally {
      await b.close();
      await c.proc.stop();
      rmSync(own, { recursive: true, force: true });
    }
  }, 60_000);
});
