// The editor as a drafting tool, in a real headless Chromium with real mouse and keyboard, against
// the real server: picks that never hang (types refused at the cursor, count ending the pick, a
// client that went away), files (SAVE, Ctrl+S, SAVEAS R12 read back by ezdxf, OPEN from the
// dialog), the clipboard, and the layout with ten drawings open. One browser and one server for
// the whole file: each Chromium start costs seconds.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePng } from '../../engine/test/render-helpers.js';
import { at, click, hasChromium, launch, openEditor, settle, startEditor, waitFor, type EditorServer, showView, closeEditorTest } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'lw-drafting-'));
const plan = join(dir, 'plan.dxf');
let s: EditorServer;
let browser: Browser;
let page: Page;
const H: Record<string, string> = {};

const prompt = (): Promise<string | null> => page.evaluate(() => (globalThis as any).linework.prompt as string | null);
const history = (): Promise<string> => page.locator('#history').innerText();
const state = async (): Promise<{ document_id: number; documents: { document_id: number; name: string; path: string | null; modified: boolean }[] }> => (await s.api.get('/api/v1/state')).json;

/**
 * Escape until the session's selection is empty: a click still on its way (a loaded machine) can
 * land after one Escape, so each poll that still sees a selection presses it again.
 */
const clearSelection = (): Promise<number> =>
  waitFor(async () => {
    const n = (await s.api.post('/api/v1/get_selection', {})).json.result.entities.length as number;
    if (n !== 0) await page.keyboard.press('Escape');
    return n;
  }, (n) => n === 0);

async function typeCommand(text: string): Promise<void> {
  await page.locator('#gl').focus();
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

function ezdxfInfo(path: string): { version: string; entities: string[] } {
  const out = execFileSync('/usr/bin/python3', ['-c', [
    'import sys, json, ezdxf',
    'doc = ezdxf.readfile(sys.argv[1])',
    'print(json.dumps({"version": doc.dxfversion, "entities": [e.dxftype() for e in doc.modelspace()]}))',
  ].join('\n'), path]);
  return JSON.parse(out.toString()) as { version: string; entities: string[] };
}

describe.skipIf(!hasChromium)('the editor as a drafting tool', () => {
  beforeAll(async () => {
    s = await startEditor(['--gui', '--root', dir], { LINEWORK_ROOT: '' });
    const made = await s.api.post('/api/v1/entities', {
      create_layers: true,
      entities: [
        { type: 'Line', start: [0, 0], end: [100, 0], layer: 'Walls' },
        { type: 'Circle', center: [50, 30], radius: 10 },
        { type: 'Line', start: [70, 40], end: [90, 55] },
      ],
    });
    expect(made.status, made.text).toBe(201);
    [H.L, H.C, H.D] = made.json.result.handles;
    expect((await s.api.post('/api/v1/save', { path: plan })).status).toBe(200);
    browser = await launch();
    ({ page } = await openEditor(browser, s.editorUrl, { width: 1280, height: 800 }));
    await showView(s, page, [-10, -10, 110, 70]);
  }, 60_000);

  afterAll(() => closeEditorTest(browser, s, dir));

  it('a types pick refuses a Line at the cursor and accepts the Circle; Enter with too few says so', async () => {
    const pending = s.api.post('/api/v1/user_select', { message: 'Pick the circle', types: ['Circle'] });
    await waitFor(prompt, (p) => p === 'Pick the circle');
    await click(page, 50, 0);
    await waitFor(history, (h) => h.includes(`${H.L} is a Line; pick Circle`));
    expect(await prompt()).toBe('Pick the circle');
    await click(page, 60, 30);
    await page.keyboard.press('Enter');
    const r = await pending;
    expect(r.status, r.text).toBe(200);
    expect(r.json.result.handles).toEqual([H.C]);

    const two = s.api.post('/api/v1/user_select', { message: 'Pick two', count: 2 });
    await waitFor(prompt, (p) => p === 'Pick two');
    await click(page, 50, 0);
    await click(page, 30, 0);
    await waitFor(history, (h) => h.includes(`${H.L} is already picked`));
    await page.keyboard.press('Enter');
    await waitFor(history, (h) => h.includes('Pick 2 objects: 1 picked so far'));
    expect(await prompt()).toBe('Pick two');
    // the second distinct pick ends the prompt by itself: no Enter
    await click(page, 80, 47.5);
    const r2 = await two;
    expect(r2.json.result.handles).toEqual([H.L, H.D]);
    await waitFor(prompt, (p) => p === null);
  });

  it('a pick whose client went away leaves the screen; the next client\'s pick is answered by one click', async () => {
    const body = JSON.stringify({ message: 'Abandoned' });
    const req = httpRequest({ host: '127.0.0.1', port: s.port, method: 'POST', path: '/api/v1/getpoint', headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
    req.on('error', () => undefined);
    req.end(body);
    await waitFor(prompt, (p) => p === 'Abandoned');
    req.destroy();
    await waitFor(prompt, (p) => p === null);
    const next = s.api.post('/api/v1/getpoint', { message: 'Next' });
    await waitFor(prompt, (p) => p === 'Next');
    expect(await page.locator('#prompt').textContent()).not.toContain('waiting');
    await click(page, 100, 0);
    expect((await next).json.result.point).toEqual([100, 0, 0]);
  });

  it('hover highlights the entity under the cursor before the click, changing only its pixels', async () => {
    await page.mouse.move(5, 5);
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.hover as string[]), (h) => h.length === 0);
    await settle(page);
    const box = (await page.locator('#gl').boundingBox())!;
    // the drawing's own canvas (the overlay with the crosshair left out), kept and compared in the page
    const shot = (keep: boolean, rect?: number[]): Promise<{ changed: number; outside: number }> => page.evaluate(([k, r]) => {
      const lw = (globalThis as any).linework;
      lw.frameSync();
      const c = document.getElementById('gl') as HTMLCanvasElement;
      const gl = lw.app.view.gl as WebGL2RenderingContext;
      const px = new Uint8Array(c.width * c.height * 4);
      gl.readPixels(0, 0, c.width, c.height, gl.RGBA, gl.UNSIGNED_BYTE, px);
      const g = globalThis as any;
      if (k) {
        g.__before = px;
        return { changed: 0, outside: 0 };
      }
      const before = g.__before as Uint8Array;
      let changed = 0, outside = 0;
      for (let row = 0; row < c.height; row++) {
        for (let col = 0; col < c.width; col++) {
          // readPixels rows go bottom up
          const o = ((c.height - 1 - row) * c.width + col) * 4;
          if (before[o] === px[o] && before[o + 1] === px[o + 1] && before[o + 2] === px[o + 2]) continue;
          changed++;
          if (col < r![0]! || col > r![1]! || row < r![2]! || row > r![3]!) outside++;
        }
      }
      return { changed, outside };
    }, [keep, rect] as const);
    await shot(true);
    const [mx, my] = await at(page, 80, 47.5);
    await page.mouse.move(mx, my, { steps: 3 });
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.hover as string[]), (h) => h.join() === H.D);
    await settle(page);
    const dpr = await page.evaluate(() => devicePixelRatio);
    // the line's box on screen, with the lineweight's margin
    const [ax, ay] = await at(page, 70, 40), [bx, by] = await at(page, 90, 55);
    const rect = [(Math.min(ax, bx) - box.x) * dpr - 3, (Math.max(ax, bx) - box.x) * dpr + 3, (Math.min(ay, by) - box.y) * dpr - 3, (Math.max(ay, by) - box.y) * dpr + 3];
    const { changed, outside } = await shot(false, rect);
    expect(changed).toBeGreaterThan(20);
    expect(outside).toBe(0);
    await page.mouse.move(5, 5);
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.hover as string[]), (x) => x.length === 0);
  });

  it('dragging a selected line\'s end grip stretches it to the dropped point (snapped), one undo step', async () => {
    await click(page, 50, 0);
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.grips as { handle: string; role: string }[]), (g) => g.filter((x) => x.handle === H.L).length === 3);
    const v0 = (await s.api.get('/api/v1/state')).json.version as number;
    const [gx, gy] = await at(page, 100, 0);
    const [tx, ty] = await at(page, 70, 40);
    await page.mouse.move(gx, gy);
    await page.mouse.down();
    await waitFor(prompt, (p) => p?.includes('STRETCH') ?? false);
    // off the snap a little: the endpoint snap of the other line takes the drop
    await page.mouse.move((gx + tx) / 2, (gy + ty) / 2, { steps: 4 });
    await page.mouse.move(tx + 2, ty - 1, { steps: 4 });
    await page.waitForTimeout(200);
    await page.mouse.move(tx + 2, ty - 2);
    await page.waitForTimeout(200);
    await page.mouse.up();
    const line = async () => (await s.api.get(`/api/v1/entities/${H.L}`)).json;
    const got = await waitFor(line, (r) => r.entities[0].end[0] !== 100);
    expect(got.entities[0].end).toEqual([70, 40, 0]);
    expect(got.entities[0].start).toEqual([0, 0, 0]);
    expect((await s.api.get('/api/v1/state')).json.version).toBe(v0 + 1);
    // the grips follow the stretched line
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.grips as { handle: string; at: number[]; role: string }[]), (g) => g.some((x) => x.handle === H.L && x.role === 'end' && x.at[0] === 70));
    await page.keyboard.press('Escape');
    await waitFor(async () => (await s.api.post('/api/v1/get_selection', {})).json.result.entities.length, (n) => n === 0);
  });

  it('draws RECTANG, ARC, PLINE with an arc segment and TEXT from the command line, and edits the text by a double click', async () => {
    const answer = async (text: string): Promise<void> => {
      await page.keyboard.type(text);
      await page.keyboard.press('Enter');
    };
    const made = async (): Promise<Record<string, any>> => {
      const r = await s.api.post('/api/v1/entities_list', { detail: 'full', limit: 1000 });
      const list = r.json.result.entities as Record<string, any>[];
      return list[list.length - 1]!;
    };
    await typeCommand('REC');
    await answer('200,0');
    await waitFor(prompt, (p) => p === 'Specify other corner point:');
    await answer('210,5');
    await waitFor(made, (e) => e.type === 'LWPolyline');
    expect((await made()).points.map((p: number[]) => p.slice(0, 2))).toEqual([[200, 0], [210, 0], [210, 5], [200, 5]]);

    await typeCommand('A');
    await answer('300,0');
    await answer('310,10');
    await waitFor(prompt, (p) => p === 'Specify end point of arc:');
    await answer('320,0');
    const arc = await waitFor(made, (e) => e.type === 'Arc');
    expect(arc.center[0]).toBeCloseTo(310, 9);
    expect(arc.center[1]).toBeCloseTo(0, 9);
    expect(arc.radius).toBeCloseTo(10, 9);
    expect([arc.start_angle, arc.end_angle].map((a: number) => Math.round(a))).toEqual([0, 180]);

    await typeCommand('PL');
    await answer('400,0');
    await answer('410,0');
    await answer('A');
    await waitFor(prompt, (p) => p?.startsWith('Specify endpoint of arc') ?? false);
    await answer('420,10');
    await page.keyboard.press('Enter');
    const pl = await waitFor(made, (e) => e.type === 'LWPolyline' && e.points.length === 3);
    // the arc leaves along the line before it: a quarter circle, bulge tan(22.5 deg)
    expect(pl.points[1][4]).toBeCloseTo(Math.tan(Math.PI / 8), 9);

    await typeCommand('DT');
    await answer('30,55');
    await answer('3');
    await answer('0');
    await waitFor(prompt, (p) => p === 'Enter text:');
    // typed in place; an empty line ends TEXT
    await answer('HELLO WORLD');
    await page.keyboard.press('Enter');
    const t = await waitFor(made, (e) => e.type === 'Text');
    expect(t.text).toBe('HELLO WORLD');
    await settle(page);
    // a point on the text's strokes (picks find geometry, not the space between letters)
    const b = t.bounds as { min: number[]; max: number[] };
    const aperture = await page.evaluate(() => 4 / ((globalThis as any).linework.app.view.scale as number));
    let hit: number[] | null = null;
    for (let x = b.min[0]!; x <= b.max[0]! && !hit; x += 0.1) {
      const r = await s.api.post('/api/v1/pick', { point: [x, (b.min[1]! + b.max[1]!) / 2], aperture });
      if ((r.json.result.handles as string[]).includes(t.handle)) hit = [x, (b.min[1]! + b.max[1]!) / 2];
    }
    expect(hit).not.toBeNull();
    const [tx, ty] = await at(page, hit![0]!, hit![1]!);
    await page.mouse.dblclick(tx, ty);
    await waitFor(prompt, (p) => p?.startsWith('Edit TEXT') ?? false);
    await page.keyboard.press('Control+a');
    await answer('GOODBYE');
    await waitFor(async () => (await s.api.get(`/api/v1/entities/${t.handle}`)).json.entities[0].text, (x) => x === 'GOODBYE');
    // the double click's first click selected the text: cleared for the tests after
    await page.locator('#gl').focus();
    await clearSelection();
  });

  it('SAVE and Ctrl+S write the file (modified false); SAVEAS R12 from the dialog gives a file ezdxf reads', async () => {
    const before = readFileSync(plan, 'utf8');
    const made = await s.api.post('/api/v1/entities', { entities: [{ type: 'Circle', center: [20, 40], radius: 2 }] });
    const h1 = made.json.result.handles[0] as string;
    await waitFor(() => page.locator('#doc-tabs [aria-selected=true]').innerText(), (t) => t.endsWith('*'));
    expect((await state()).documents[0]!.modified).toBe(true);
    await typeCommand('SAVE');
    await waitFor(state, (st) => !st.documents[0]!.modified);
    const after = readFileSync(plan, 'utf8');
    expect(after).not.toBe(before);
    expect(after).toMatch(new RegExp(`\\n  5\\r?\\n${h1}\\r?\\n`));
    await waitFor(() => page.locator('#doc-tabs [aria-selected=true]').innerText(), (t) => !t.endsWith('*'));

    const h2 = (await s.api.post('/api/v1/entities', { entities: [{ type: 'Circle', center: [25, 40], radius: 2 }] })).json.result.handles[0] as string;
    await waitFor(state, (st) => st.documents[0]!.modified);
    await page.locator('#gl').focus();
    await page.keyboard.press('Control+s');
    await waitFor(state, (st) => !st.documents[0]!.modified);
    expect(readFileSync(plan, 'utf8')).toMatch(new RegExp(`\\n  5\\r?\\n${h2}\\r?\\n`));

    await typeCommand('SAVEAS');
    await page.locator('#file-dialog').waitFor();
    await page.locator('#file-dialog li[data-path="plan.dxf"]').waitFor();
    await page.locator('#file-name').fill('plan-r12');
    await page.locator('#file-version').selectOption('R12');
    await page.locator('#file-ok').click();
    const r12 = join(dir, 'plan-r12.dxf');
    await waitFor(async () => existsSync(r12) && statSync(r12).size > 0, (x) => x);
    const info = ezdxfInfo(r12);
    expect(info.version).toBe('AC1009');
    expect(info.entities.filter((t) => t === 'CIRCLE')).toHaveLength(3);
    const st = await state();
    expect(st.documents[0]!.path).toBe(r12);
    expect(st.documents[0]!.modified).toBe(false);
  });

  it('OPEN lists the workspace in a dialog, walks into a folder and opens the drawing clicked', async () => {
    mkdirSync(join(dir, 'sub'));
    copyFileSync(plan, join(dir, 'sub', 'other.dxf'));
    await page.locator('#gl').focus();
    await page.keyboard.press('Control+o');
    await page.locator('#file-dialog li[data-path="sub"]').waitFor();
    if (process.env.LINEWORK_EDITOR_SHOTS) await page.screenshot({ path: join(process.env.LINEWORK_EDITOR_SHOTS, 'open-dialog.png') });
    await page.locator('#file-dialog li[data-path="sub"]').click();
    await page.locator('#file-dialog li[data-path="sub/other.dxf"]').click();
    const st = await waitFor(state, (x) => x.documents.some((d) => d.name === 'other.dxf'));
    const other = st.documents.find((d) => d.name === 'other.dxf')!;
    expect(other.path).toBe(join(dir, 'sub', 'other.dxf'));
    await waitFor(() => page.locator(`#doc-tabs button[data-document="${other.document_id}"]`).getAttribute('aria-selected'), (v) => v === 'true');
    // the recent list remembers it for the next OPEN
    await page.keyboard.press('Control+o');
    await page.locator('#file-dialog .recent li[data-path="sub/other.dxf"]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('#file-dialog').waitFor({ state: 'detached' });
  });

  it('Ctrl+C then Ctrl+V in another drawing adds one entity, its base point at the picked point', async () => {
    const st = await state();
    const first = st.documents[0]!.document_id;
    const other = st.documents.find((d) => d.name === 'other.dxf')!.document_id;
    // in the first drawing: pick the circle, copy it
    await page.locator(`#doc-tabs button[data-document="${first}"]`).click();
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.drawn as number | null), (d) => d === first);
    expect((await s.api.post('/api/v1/view_focus', { bounds: [-10, -10, 110, 70], margin: 0 })).status).toBe(200);
    await settle(page);
    await page.locator('#gl').focus();
    await clearSelection();
    await click(page, 60, 30);
    await waitFor(async () => (await s.api.post('/api/v1/get_selection', { document_id: first })).json.result.entities.length, (n) => n === 1);
    // the page copies what it holds as selected: wait until the session's selection reached it
    await waitFor(() => page.evaluate(() => ((globalThis as any).linework.selection as string[]).length), (n) => n === 1);
    await page.keyboard.press('Control+c');
    await waitFor(history, (h) => h.includes('COPYCLIP: 1 object'));
    // into the other drawing
    await page.locator(`#doc-tabs button[data-document="${other}"]`).click();
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.drawn as number | null), (d) => d === other);
    expect((await s.api.post('/api/v1/view_focus', { document_id: other, bounds: [-10, -10, 110, 70], margin: 0 })).status).toBe(200);
    await settle(page);
    const circlesOf = async (): Promise<{ center: number[]; radius: number }[]> =>
      ((await s.api.post('/api/v1/entities_list', { document_id: other, detail: 'full', limit: 1000 })).json.result.entities as { type: string; center: number[]; radius: number }[]).filter((e) => e.type === 'Circle');
    const count = async (): Promise<number> => (await circlesOf()).length;
    const n0 = await count();
    await page.locator('#gl').focus();
    await page.keyboard.press('Control+v');
    await waitFor(prompt, (p) => p === 'Specify insertion point:');
    await click(page, 25, 50);
    await waitFor(count, (n) => n === n0 + 1);
    // the clipboard's base (the circle's lower left, 40,20) lands on the clicked pixel: within a pixel of 25,50
    // (clipboard_paste: the copy from the clipboard and the move to the point in one step)
    const px = await page.evaluate(() => 1 / ((globalThis as any).linework.app.view.scale as number));
    const at3550 = (c: { center: number[]; radius: number }): boolean => c.radius === 10 && Math.abs(c.center[0]! - 35) <= px && Math.abs(c.center[1]! - 60) <= px;
    await waitFor(circlesOf, (cs) => cs.some(at3550));
    expect(await count()).toBe(n0 + 1);
    await waitFor(history, (h) => h.includes('PASTECLIP: 1 object'));
  });

  it('with ten drawings open every panel stays on screen (1280x800 and 1920x1080); the overflow menu reaches each', async () => {
    for (let i = (await state()).documents.length; i < 10; i++) expect((await s.api.post('/api/v1/documents', {})).status).toBe(201);
    const st = await waitFor(state, (x) => x.documents.length === 10);
    await waitFor(() => page.locator('#doc-tabs button[role=tab]').count(), (n) => n === 10);
    for (const size of [{ width: 1280, height: 800 }, { width: 1920, height: 1080 }]) {
      await page.setViewportSize(size);
      await settle(page);
      for (const sel of ['#layers', '#properties', '#doc-new', '#doc-more', '#layout-more', '#cmd', '#t-osnap', '#gl']) {
        const b = (await page.locator(sel).boundingBox())!;
        expect(b, sel).toBeTruthy();
        expect(b.x, sel).toBeGreaterThanOrEqual(0);
        expect(b.y, sel).toBeGreaterThanOrEqual(0);
        expect(b.x + b.width, `${sel} at ${size.width}`).toBeLessThanOrEqual(size.width + 0.5);
        expect(b.y + b.height, `${sel} at ${size.height}`).toBeLessThanOrEqual(size.height + 0.5);
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    const target = st.documents[0]!;
    await page.locator('#doc-more').click();
    await page.locator('.menu li', { hasText: target.name }).first().click();
    await waitFor(async () => (await state()).document_id, (id) => id === target.document_id);
    // collapsing a panel gives its width to the drawing
    const w0 = (await page.locator('#gl').boundingBox())!.width;
    await page.locator('button.collapse[data-panel="properties"]').click();
    await waitFor(async () => (await page.locator('#gl').boundingBox())!.width, (w) => w > w0 + 150);
  });

  it('draws gradient hatches as gradients, pixel for pixel the colours of the PNG plot', async () => {
    const file = join(dir, 'gradient-hatches.dxf');
    copyFileSync(new URL('./fixtures/gradient-hatches.dxf', import.meta.url), file);
    const opened = await s.api.post('/api/v1/documents', { path: file });
    expect(opened.status, opened.text).toBe(201);
    const id = (opened.json.document_id ?? opened.json.result.document_id) as number;
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.drawn as number | null), (d) => d === id);
    expect((await s.api.post('/api/v1/view_focus', { bounds: [-5, -5, 175, 65], margin: 0 })).status).toBe(200);
    await page.mouse.move(2, 2);
    await settle(page);
    const box = (await page.locator('#gl').boundingBox())!;
    const v = await page.evaluate(() => {
      const view = (globalThis as any).linework.app.view;
      return { cx: view.cx as number, cy: view.cy as number, scale: view.scale as number };
    });
    const W = Math.round(box.width), Hh = Math.round(box.height);
    // the preview's margin (see editor.test.ts): ask for exactly the area on screen
    const short = Math.min(W, Hh);
    const m = Math.min(short / 4, Math.max(8, short * 0.05));
    const pw = (W - 2 * m) / v.scale, ph = (Hh - 2 * m) / v.scale;
    const pr = await s.api.post('/api/v1/preview', { width: W, height: Hh, area: [v.cx - pw / 2, v.cy - ph / 2, v.cx + pw / 2, v.cy + ph / 2] });
    expect(pr.status, pr.text).toBe(200);
    const plot = decodePng(Buffer.from(pr.json.result.data, 'base64'));
    const shot = await page.screenshot({ clip: { x: box.x, y: box.y, width: W, height: Hh } });
    const screen = decodePng(shot);
    if (process.env.LINEWORK_EDITOR_SHOTS) {
      writeFileSync(join(process.env.LINEWORK_EDITOR_SHOTS, 'gradient-screen.png'), shot);
      writeFileSync(join(process.env.LINEWORK_EDITOR_SHOTS, 'gradient-plot.png'), Buffer.from(pr.json.result.data, 'base64'));
    }
    // every strongly coloured pixel of the plot (the gradients) has its colour on screen within a pixel
    let n = 0, same = 0;
    for (let y = 2; y < Hh - 2; y += 3) {
      for (let x = 2; x < W - 2; x += 3) {
        const c = plot.at(x, y);
        if (Math.max(c[0], c[1], c[2]) - Math.min(c[0], c[1], c[2]) < 80) continue;
        n++;
        let hit = false;
        for (let dy = -1; dy <= 1 && !hit; dy++) {
          for (let dx = -1; dx <= 1 && !hit; dx++) {
            const d = screen.at(x + dx, y + dy);
            if (Math.abs(d[0] - c[0]) + Math.abs(d[1] - c[1]) + Math.abs(d[2] - c[2]) <= 36) hit = true;
          }
        }
        if (hit) same++;
      }
    }
    expect(n).toBeGreaterThan(5000);
    expect(same / n).toBeGreaterThan(0.97);
  });
});
