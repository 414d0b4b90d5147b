// The editor's construct and modify commands, run as a drafter runs them: typed at the command
// line and answered by clicks in a real headless Chromium (real mouse and keyboard) against the
// real server. OFFSET, TRIM, FILLET and HATCH must give what their op gives when called over
// HTTP with the same picks: each command's edit is undone and the op called directly, and the two
// results compared entity by entity. MIRROR and DIMLINEAR are checked against the expected
// geometry, and an op's refusal must stay at the prompt with the command alive. TRIM's Fence, its
// Shift+pick (extend), FILLET's hover preview (pixels before the click) and the radius kept in
// FILLETRAD, and HATCH with two internal points (one hatch, two boundaries) likewise.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePng } from '../../engine/test/render-helpers.js';
import { at, click, hasChromium, launch, openEditor, settle, startEditor, waitFor, type EditorServer } from './helpers.js';

let s: EditorServer;
let browser: Browser;
let page: Page;
const H: Record<string, string> = {};

type Rec = Record<string, any> & { handle: string; type: string };

const prompt = (): Promise<string | null> => page.evaluate(() => (globalThis as any).linework.prompt as string | null);
const history = (): Promise<string> => page.locator('#history').innerText();
const version = async (): Promise<number> => (await s.api.get('/api/v1/state')).json.version as number;

async function entities(): Promise<Map<string, Rec>> {
  const r = await s.api.post('/api/v1/entities_list', { detail: 'full', limit: 1000 });
  expect(r.status, r.text).toBe(200);
  return new Map((r.json.result.entities as Rec[]).map((e) => [e.handle, e]));
}

/** What changed between two listings: new records, changed records and erased handles. */
function changes(before: Map<string, Rec>, after: Map<string, Rec>): { added: Rec[]; changed: Rec[]; erased: string[] } {
  return {
    added: [...after.values()].filter((e) => !before.has(e.handle)),
    changed: [...after.values()].filter((e) => before.has(e.handle) && JSON.stringify(before.get(e.handle)) !== JSON.stringify(e)),
    erased: [...before.keys()].filter((h) => !after.has(h)),
  };
}

/**
 * The geometry of a change, for comparing two runs: new entities without their handles (a second
 * run numbers them on), numbers rounded to 1e-9, the seed point of a hatch (where it was picked,
 * not what it is) left out.
 */
function shapeOf(c: { added: Rec[]; changed: Rec[]; erased: string[] }): unknown {
  const clean = (e: Rec, keepHandle: boolean): unknown => JSON.parse(JSON.stringify({ ...e, handle: keepHandle ? e.handle : '', seed_points: undefined, seeds: undefined }), (_k, v: unknown) => (typeof v === 'number' ? Math.round(v * 1e9) / 1e9 : v));
  return { added: c.added.map((e) => clean(e, false)), changed: c.changed.map((e) => clean(e, true)), erased: c.erased };
}

async function typeLine(text: string): Promise<void> {
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

async function typeCommand(text: string): Promise<void> {
  await page.locator('#gl').focus();
  await typeLine(text);
}

/** Frames a part of the drawing and waits until the page shows it. */
async function focus(bounds: [number, number, number, number]): Promise<void> {
  expect((await s.api.post('/api/v1/view_focus', { bounds, margin: 0 })).status).toBe(200);
  const box = (await page.locator('#gl').boundingBox())!;
  const cx = (bounds[0] + bounds[2]) / 2, cy = (bounds[1] + bounds[3]) / 2;
  await waitFor(() => at(page, cx, cy), ([x, y]) => Math.abs(x - (box.x + box.width / 2)) < 2 && Math.abs(y - (box.y + box.height / 2)) < 2);
  await settle(page);
}

/**
 * Runs `interactive` (one edit, one undo step), undoes it, runs the op directly with `fields`, and
 * expects the same change from both.
 */
async function sameAsOp(interactive: () => Promise<void>, op: string, fields: Record<string, unknown>): Promise<{ added: Rec[]; changed: Rec[]; erased: string[] }> {
  const before = await entities();
  const v0 = await version();
  await interactive();
  await waitFor(version, (v) => v > v0);
  await waitFor(prompt, (p) => p === null);
  const byHand = changes(before, await entities());
  // one command, one undo step
  expect(await version()).toBe(v0 + 1);
  expect((await s.api.post('/api/v1/undo', {})).status).toBe(200);
  expect(changes(before, await entities())).toEqual({ added: [], changed: [], erased: [] });
  const r = await s.api.post(`/api/v1/${op}`, fields);
  expect(r.status, r.text).toBe(200);
  const direct = changes(before, await entities());
  expect(byHand.added.length + byHand.changed.length + byHand.erased.length).toBeGreaterThan(0);
  expect(shapeOf(byHand)).toEqual(shapeOf(direct));
  return direct;
}

/** How many pixels differ between two PNG screenshots of the same size. */
function differing(a: Buffer, b: Buffer): number {
  const pa = decodePng(a), pb = decodePng(b);
  let n = 0;
  for (let i = 0; i < pa.data.length; i += 4) {
    if (Math.abs(pa.data[i]! - pb.data[i]!) + Math.abs(pa.data[i + 1]! - pb.data[i + 1]!) + Math.abs(pa.data[i + 2]! - pb.data[i + 2]!) > 48) n++;
  }
  return n;
}

describe.skipIf(!hasChromium)('the editor\'s modify commands', () => {
  beforeAll(async () => {
    s = await startEditor(['--gui'], { LINEWORK_ROOT: '' });
    const made = await s.api.post('/api/v1/entities', {
      entities: [
        { type: 'Line', start: [0, 0], end: [40, 0] },
        { type: 'Line', start: [100, 0], end: [140, 0] },
        { type: 'Line', start: [120, -10], end: [120, 10] },
        { type: 'Line', start: [100, 30], end: [140, 30] },
        { type: 'Line', start: [200, 0], end: [235, 0] },
        { type: 'Line', start: [240, 5], end: [240, 40] },
        { type: 'LWPolyline', points: [[300, 0], [340, 0], [340, 40], [300, 40]], closed: true },
        { type: 'Circle', center: [320, 20], radius: 8 },
        { type: 'Line', start: [400, 0], end: [420, 10] },
        { type: 'Line', start: [500, 0], end: [540, 0] },
        { type: 'Line', start: [600, 0], end: [620, 0] },
        { type: 'Line', start: [640, -10], end: [640, 10] },
        { type: 'Line', start: [700, 0], end: [740, 0] },
        { type: 'Line', start: [740, 0], end: [740, 40] },
        { type: 'Line', start: [800, 0], end: [840, 0] },
        { type: 'Line', start: [900, 0], end: [910, 0] },
        { type: 'Line', start: [910, 0], end: [920, 0] },
        { type: 'LWPolyline', points: [[1000, 0], [1020, 0], [1020, 10], [1000, 10]], closed: true },
        { type: 'Circle', center: [1100, 0], radius: 5 },
        { type: 'Line', start: [1200, 0], end: [1205, 0] },
        { type: 'Line', start: [1300, 0], end: [1320, 0] },
        { type: 'Line', start: [1500, 0], end: [1530, 0] },
        { type: 'Line', start: [1500, 0], end: [1520, 20] },
        { type: 'Line', start: [1600, 0], end: [1600, 40] },
        { type: 'Line', start: [1620, 0], end: [1620, 40] },
        { type: 'Line', start: [1590, 10], end: [1630, 10] },
        { type: 'Line', start: [1590, 30], end: [1630, 30] },
        { type: 'Line', start: [1700, 0], end: [1720, 0] },
        { type: 'Line', start: [1740, -10], end: [1740, 10] },
        { type: 'LWPolyline', points: [[1800, 0], [1810, 0], [1810, 10], [1800, 10]], closed: true },
        { type: 'LWPolyline', points: [[1820, 0], [1830, 0], [1830, 10], [1820, 10]], closed: true },
        { type: 'Line', start: [1900, 0], end: [1940, 0] },
        { type: 'Line', start: [1940, 0], end: [1940, 40] },
        { type: 'Line', start: [2000, 0], end: [2040, 0] },
        { type: 'Line', start: [2020, 5], end: [2020, 15] },
        { type: 'Line', start: [2100, 0], end: [2100, 20] },
        { type: 'Line', start: [2110, 0], end: [2110, 20] },
        { type: 'Line', start: [2090, 10], end: [2120, 10] },
      ],
    });
    expect(made.status, made.text).toBe(201);
    [H.offset, H.trimmed, H.edge, H.alone, H.f1, H.f2, H.square, H.island, H.mirror, H.dim, H.ext, H.bound, H.c1, H.c2, H.brk, H.j1, H.j2, H.rect, H.circle, H.arr, H.str, H.a1, H.a2, H.fv1, H.fv2, H.fh1, H.fh2, H.sx, H.sb, H.sq1, H.sq2, H.ch1, H.ch2, H.el, H.ev, H.cv1, H.cv2, H.ch] = made.json.result.handles;
    browser = await launch();
    ({ page } = await openEditor(browser, s.editorUrl, { width: 1280, height: 800 }));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await s?.proc.stop();
  });

  it('OFFSET (O): distance, object, side with its preview: the op\'s geometry', async () => {
    await focus([-10, -20, 50, 30]);
    const got = await sameAsOp(async () => {
      await typeCommand('O');
      await waitFor(prompt, (p) => p?.startsWith('Specify offset distance or [Through]') ?? false);
      await typeLine('5');
      await waitFor(prompt, (p) => p === 'Select object to offset or [Exit] <Exit>:');
      await click(page, 20, 0);
      await waitFor(prompt, (p) => p === 'Specify point on side to offset or [Exit] <Exit>:');
      // the preview follows the cursor before the click
      const [x, y] = await at(page, 22, 10);
      await page.mouse.move(x, y, { steps: 3 });
      await waitFor(() => page.evaluate(() => (globalThis as any).linework.app.overlay.bands.length as number), (n) => n > 0);
      if (process.env.LINEWORK_EDITOR_SHOTS) await page.screenshot({ path: join(process.env.LINEWORK_EDITOR_SHOTS, 'offset-preview.png') });
      await click(page, 22, 10);
      await waitFor(prompt, (p) => p === 'Select object to offset or [Exit] <Exit>:');
      await page.keyboard.press('Enter');
    }, 'offset', { handle: H.offset, distance: 5, side: [20, 10] });
    expect(got.added).toHaveLength(1);
    expect(got.added[0]!.start).toEqual([0, 5, 0]);
    expect(got.added[0]!.end).toEqual([40, 5, 0]);
  });

  it('TRIM (TR) Quick mode: an object that meets nothing is erased (AutoCAD 2021+), one undo step brings it back', async () => {
    await focus([90, -20, 150, 40]);
    const v0 = await version();
    await typeCommand('TR');
    const ask = 'Select object to trim or shift-select to extend or [cuTting edges/Fence/Crossing/mOde/Project/Edge/eRase/Undo]:';
    await waitFor(prompt, (p) => p === ask);
    await click(page, 130, 30);
    await waitFor(history, (h) => h.includes(`TRIM: erased ${H.alone}`));
    expect((await s.api.get(`/api/v1/entities/${H.alone}`)).status).toBe(404);
    await waitFor(prompt, (p) => p === ask);
    await page.keyboard.press('Enter');
    await waitFor(prompt, (p) => p === null);
    expect(await version()).toBe(v0 + 1);
    expect((await s.api.post('/api/v1/undo', {})).status).toBe(200);
    expect(await s.api.get(`/api/v1/entities/${H.alone}`).then((r) => r.json.entities[0].end)).toEqual([140, 30, 0]);
  });

  it('TRIM (TR): hovering an object draws what the trim would leave of it, before the click, changing nothing', async () => {
    await focus([90, -20, 150, 40]);
    const v0 = await version();
    await typeCommand('TR');
    await waitFor(prompt, (p) => p?.startsWith('Select object to trim') ?? false);
    const bands = (): Promise<number> => page.evaluate(() => (globalThis as any).linework.app.overlay.bands.length as number);
    const [x, y] = await at(page, 130, 0);
    await page.mouse.move(x, y, { steps: 3 });
    // the piece left (100,0)-(120,0): one band on screen
    await waitFor(bands, (n) => n >= 1);
    expect(await version()).toBe(v0);
    await page.keyboard.press('Escape');
    await waitFor(prompt, (p) => p === null);
    expect(await version()).toBe(v0);
  });

  it('TRIM (TR): a refusal stays at the prompt, the command goes on; the trim is the op\'s', async () => {
    await focus([90, -20, 150, 40]);
    const got = await sameAsOp(async () => {
      await typeCommand('TR');
      const ask = 'Select object to trim or shift-select to extend or [cuTting edges/Fence/Crossing/mOde/Project/Edge/eRase/Undo]:';
      await waitFor(prompt, (p) => p === ask);
      // Standard mode with the edge as the only cutting edge: the lone line meets it nowhere, the
      // op refuses, the error is shown, the prompt stays
      await typeLine('T');
      await waitFor(prompt, (p) => p?.startsWith('Select cutting edges') ?? false);
      await click(page, 120, 5);
      await waitFor(() => page.evaluate(() => ((globalThis as any).linework.app.ask?.picked ?? []) as string[]), (hs) => hs.length === 1);
      await page.keyboard.press('Enter');
      await waitFor(history, (h) => h.includes(`Edges: ${H.edge}`));
      await waitFor(prompt, (p) => p === ask);
      await click(page, 130, 30);
      await waitFor(history, (h) => h.includes('no_intersection'));
      await waitFor(prompt, (p) => p === ask);
      expect(await s.api.get(`/api/v1/entities/${H.alone}`).then((r) => r.json.entities[0].end)).toEqual([140, 30, 0]);
      await click(page, 130, 0);
      await waitFor(async () => (await s.api.get(`/api/v1/entities/${H.trimmed}`)).json.entities[0].end[0] as number, (x) => x === 120);
      // still trimming until Enter
      await waitFor(prompt, (p) => p === ask);
      await page.keyboard.press('Enter');
    }, 'trim', { handle: H.trimmed, point: [130, 0] });
    expect(got.changed.map((e) => [e.start, e.end])).toEqual([[[100, 0, 0], [120, 0, 0]]]);
  });

  it('TRIM (TR) Fence: every piece the fence crosses, as the op trims along the same fence', async () => {
    await focus([1580, -5, 1640, 45]);
    const got = await sameAsOp(async () => {
      await typeCommand('TR');
      await waitFor(prompt, (p) => p?.startsWith('Select object to trim') ?? false);
      await typeLine('F');
      await waitFor(prompt, (p) => p === 'Specify first fence point:');
      await typeLine('1595,20');
      await waitFor(prompt, (p) => p === 'Specify next fence point:');
      await typeLine('1625,20');
      await waitFor(prompt, (p) => p === 'Specify next fence point or [Undo]:');
      // the fence is drawn to the cursor
      const [x, y] = await at(page, 1630, 25);
      await page.mouse.move(x, y, { steps: 3 });
      await waitFor(() => page.evaluate(() => (globalThis as any).linework.app.overlay.bands.length as number), (n) => n >= 2);
      await page.keyboard.press('Enter');
      await waitFor(history, (h) => h.includes('TRIM: changed'));
      await waitFor(prompt, (p) => p?.startsWith('Select object to trim') ?? false);
      await page.keyboard.press('Enter');
    }, 'trim', { fence: [[1595, 20], [1625, 20]] });
    // both verticals lose their middle piece: each is cut back to y = 10 and a piece from y = 30 is added
    expect(got.changed.map((e) => [e.start, e.end])).toEqual([[[1600, 0, 0], [1600, 10, 0]], [[1620, 0, 0], [1620, 10, 0]]]);
    expect(got.added.map((e) => [e.start, e.end])).toEqual([[[1600, 30, 0], [1600, 40, 0]], [[1620, 30, 0], [1620, 40, 0]]]);
  });

  it('TRIM (TR): Shift+pick extends the object instead, as the extend op does', async () => {
    await focus([1690, -15, 1750, 15]);
    const got = await sameAsOp(async () => {
      await typeCommand('TR');
      await waitFor(prompt, (p) => p?.startsWith('Select object to trim or shift-select to extend') ?? false);
      await click(page, 1715, 0, { shift: true });
      await waitFor(history, (h) => h.includes('EXTEND: changed'));
      await waitFor(prompt, (p) => p?.startsWith('Select object to trim') ?? false);
      await page.keyboard.press('Enter');
    }, 'extend', { handle: H.sx, point: [1715, 0] });
    expect(got.changed.map((e) => [e.start, e.end])).toEqual([[[1700, 0, 0], [1740, 0, 0]]]);
  });

  it('TRIM (TR) Crossing: the pieces the window\'s sides cross; Edge Extend (EDGEMODE 1): cut where an edge would reach', async () => {
    await focus([2085, -5, 2125, 25]);
    const box = [[2115, 12], [2095, 12], [2095, 14], [2115, 14], [2115, 12]];
    const crossed = await sameAsOp(async () => {
      await typeCommand('TR');
      await waitFor(prompt, (p) => p?.startsWith('Select object to trim') ?? false);
      await typeLine('C');
      await waitFor(prompt, (p) => p === 'Specify first corner:');
      await click(page, 2115, 12);
      await waitFor(prompt, (p) => p === 'Specify opposite corner:');
      await click(page, 2095, 14);
      await waitFor(history, (h) => h.includes('TRIM: changed'));
      await waitFor(prompt, (p) => p?.startsWith('Select object to trim') ?? false);
      await page.keyboard.press('Enter');
    }, 'trim', { fence: box });
    expect(crossed.changed.map((e) => [e.start, e.end])).toEqual([[[2100, 0, 0], [2100, 10, 0]], [[2110, 0, 0], [2110, 10, 0]]]);

    await focus([1995, -10, 2045, 20]);
    const extended = await sameAsOp(async () => {
      await typeCommand('TR');
      await waitFor(prompt, (p) => p?.startsWith('Select object to trim') ?? false);
      await typeLine('E');
      await waitFor(prompt, (p) => p === 'Enter an implied edge extension mode [Extend/No extend] <No extend>:');
      await typeLine('E');
      await waitFor(history, (h) => h.includes('Edge=Extend'));
      await waitFor(prompt, (p) => p?.startsWith('Select object to trim') ?? false);
      await click(page, 2030, 0);
      await waitFor(history, (h) => h.includes('TRIM: changed'));
      await waitFor(prompt, (p) => p?.startsWith('Select object to trim') ?? false);
      await page.keyboard.press('Enter');
    }, 'trim', { handle: H.el, point: [2030, 0], extended_edges: true });
    expect(extended.changed.map((e) => [e.start, e.end])).toEqual([[[2000, 0, 0], [2020, 0, 0]]]);
    expect((await s.api.post('/api/v1/sysvars', { get: ['EDGEMODE'] })).json.result.values.EDGEMODE).toBe(1);
    expect((await s.api.post('/api/v1/sysvars', { set: { EDGEMODE: 0 } })).status).toBe(200);
  });

  it('FILLET (F): Radius kept in FILLETRAD; the result previewed over the second object before the click; the op\'s arc and trimmed lines', async () => {
    await focus([190, -10, 250, 50]);
    const first = 'Select first object or [Undo/Polyline/Radius/Trim/Multiple]:';
    await typeCommand('F');
    await waitFor(prompt, (p) => p === first);
    await typeLine('R');
    await waitFor(prompt, (p) => p?.startsWith('Specify fillet radius') ?? false);
    await typeLine('5');
    await waitFor(prompt, (p) => p === first);
    // the Radius option sets the drawing's FILLETRAD, read back through the sysvars op
    const rad = await s.api.post('/api/v1/sysvars', { get: ['FILLETRAD'] });
    expect(rad.json.result.values.FILLETRAD).toBe(5);
    await page.keyboard.press('Escape');
    await waitFor(prompt, (p) => p === null);
    // where the fillet arc will run (its middle), away from both lines and the cursor
    const [ax, ay] = await at(page, 235 + 5 * Math.SQRT1_2, 5 - 5 * Math.SQRT1_2);
    const clip = { x: ax - 8, y: ay - 8, width: 16, height: 16 };
    const got = await sameAsOp(async () => {
      await typeCommand('F');
      // FILLETRAD is the default the next run starts with
      await waitFor(history, (h) => h.includes('Radius = 5'));
      await waitFor(prompt, (p) => p === first);
      // the cursor over the second line before the first pick: no preview yet
      const [x, y] = await at(page, 240, 25);
      await page.mouse.move(x, y, { steps: 3 });
      await settle(page);
      const before = await page.screenshot({ clip });
      await click(page, 215, 0);
      await waitFor(prompt, (p) => p === 'Select second object or shift-select to apply corner or [Radius]:');
      await page.mouse.move(x + 1, y, { steps: 2 });
      await page.mouse.move(x, y, { steps: 2 });
      await waitFor(() => page.evaluate(() => (globalThis as any).linework.app.overlay.bands.length as number), (n) => n > 3);
      await settle(page);
      const after = await page.screenshot({ clip });
      expect(differing(before, after)).toBeGreaterThan(3);
      // Shift held: the sharp corner previewed instead (two lines, no arc); released: the fillet again
      const bands = (): Promise<number> => page.evaluate(() => (globalThis as any).linework.app.overlay.bands.length as number);
      const withArc = await bands();
      await page.keyboard.down('Shift');
      await waitFor(bands, (n) => n > 0 && n < withArc);
      await page.keyboard.up('Shift');
      await waitFor(bands, (n) => n === withArc);
      if (process.env.LINEWORK_EDITOR_SHOTS) await page.screenshot({ path: join(process.env.LINEWORK_EDITOR_SHOTS, 'fillet-preview.png') });
      // no edit yet: the preview is made and rolled back
      expect(await s.api.get(`/api/v1/entities/${H.f1}`).then((r) => r.json.entities[0].end)).toEqual([235, 0, 0]);
      await click(page, 240, 25);
    }, 'fillet', { handles: [H.f1, H.f2], points: [[215, 0], [240, 25]], radius: 5 });
    expect(got.added.map((e) => e.type)).toEqual(['Arc']);
    expect(got.added[0]!.radius).toBeCloseTo(5, 9);
    expect(got.added[0]!.center.slice(0, 2).map((v: number) => Math.round(v * 1e6) / 1e6)).toEqual([235, 5]);
  });

  it('HATCH (H): a click inside the square around the circle: the op\'s hatch with its hole', async () => {
    await focus([290, -10, 350, 50]);
    const got = await sameAsOp(async () => {
      await typeCommand('H');
      await waitFor(prompt, (p) => p?.startsWith('Pick internal point or [Select objects/Undo/Properties]') ?? false);
      await click(page, 305, 5);
      await waitFor(history, (h) => h.includes('1 internal point'));
      await page.keyboard.press('Enter');
    }, 'hatch', { point: [305, 5], pattern: 'SOLID' });
    expect(got.added.map((e) => e.type)).toEqual(['Hatch']);
    // the square outside, the circle a hole in it
    expect(got.added[0]!.paths.map((q: { vertices: unknown[] }) => q.vertices.length)).toEqual([4, 2]);
  });

  it('HATCH (H): two internal points, then Enter: one hatch with both boundaries, as the op makes of the two points', async () => {
    await focus([1795, -10, 1835, 20]);
    const got = await sameAsOp(async () => {
      await typeCommand('H');
      await waitFor(prompt, (p) => p?.startsWith('Pick internal point') ?? false);
      await click(page, 1805, 5);
      await waitFor(history, (h) => h.includes('1 internal point'));
      // the region found is drawn while the next point is picked
      await waitFor(() => page.evaluate(() => (globalThis as any).linework.app.overlay.bands.length as number), (n) => n >= 4);
      await click(page, 1825, 5);
      await waitFor(history, (h) => h.includes('2 internal points'));
      await page.keyboard.press('Enter');
    }, 'hatch', { points: [[1805, 5], [1825, 5]], pattern: 'SOLID' });
    expect(got.added.map((e) => e.type)).toEqual(['Hatch']);
    expect(got.added[0]!.paths).toHaveLength(2);
  });

  it('MIRROR (MI): objects clicked, the mirror line with its preview, Erase source No', async () => {
    await focus([390, -20, 470, 30]);
    await typeCommand('MI');
    await waitFor(prompt, (p) => p === 'Select objects:');
    await click(page, 410, 5);
    await waitFor(() => page.evaluate(() => ((globalThis as any).linework.app.ask?.picked ?? []) as string[]), (hs) => hs.length === 1);
    await page.keyboard.press('Enter');
    await waitFor(prompt, (p) => p === 'Specify first point of mirror line:');
    await typeLine('430,0');
    await waitFor(prompt, (p) => p === 'Specify second point of mirror line:');
    const [x, y] = await at(page, 431, 20);
    await page.mouse.move(x, y, { steps: 3 });
    // the mirrored line drawn beside the mirror line while the point is asked
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.app.overlay.bands.length as number), (n) => n >= 3);
    await typeLine('430,10');
    await waitFor(prompt, (p) => p === 'Erase source objects? [Yes/No] <No>:');
    const before = await entities();
    await page.keyboard.press('Enter');
    const after = await waitFor(entities, (m) => m.size === before.size + 1);
    const c = changes(before, after);
    expect(c.erased).toEqual([]);
    const line = c.added[0]!;
    expect([line.start, line.end].map((p: number[]) => p.map((v) => Math.round(v * 1e9) / 1e9))).toEqual([[460, 0, 0], [440, 10, 0]]);
    expect(after.get(H.mirror!)!.start).toEqual([400, 0, 0]);
  });

  it('DIMLINEAR (DLI): two snapped clicks and the location (previewed): a horizontal dimension of 40', async () => {
    await focus([490, -30, 550, 20]);
    const before = await entities();
    await typeCommand('DLI');
    await waitFor(prompt, (p) => p === 'Specify first extension line origin or <select object>:');
    await click(page, 500, 0);
    await waitFor(prompt, (p) => p === 'Specify second extension line origin:');
    await click(page, 540, 0);
    await waitFor(prompt, (p) => p?.startsWith('Specify dimension line location') ?? false);
    const [x, y] = await at(page, 522, -12);
    await page.mouse.move(x, y, { steps: 3 });
    await waitFor(() => page.evaluate(() => (globalThis as any).linework.app.overlay.bands.length as number), (n) => n >= 3);
    if (process.env.LINEWORK_EDITOR_SHOTS) await page.screenshot({ path: join(process.env.LINEWORK_EDITOR_SHOTS, 'dimlinear-preview.png') });
    await click(page, 522, -12);
    const after = await waitFor(entities, (m) => m.size > before.size);
    const dims = changes(before, after).added.filter((e) => e.type === 'Dimension');
    expect(dims).toHaveLength(1);
    const d = dims[0]!;
    expect(d.actual_measurement).toBeCloseTo(40, 6);
    // the snapped clicks: the line's ends exactly; horizontal, its line where the location was clicked
    expect([d.defpoint2, d.defpoint3]).toEqual([[500, 0, 0], [540, 0, 0]]);
    expect(d.angle).toBe(0);
    expect(d.defpoint[1]).toBeCloseTo(-12, 0);
    await waitFor(history, (h) => h.includes('Dimension text = 40'));
    await waitFor(prompt, (p) => p === null);
  });

  /** Runs a command by keyboard and clicks; the listing's change once `done` holds. */
  async function edit(steps: () => Promise<void>, done: (c: ReturnType<typeof changes>) => boolean): Promise<ReturnType<typeof changes>> {
    const before = await entities();
    const v0 = await version();
    await steps();
    const c = await waitFor(async () => changes(before, await entities()), done);
    await waitFor(prompt, (p) => p === null);
    // one edit, one undo step
    expect(await version()).toBe(v0 + 1);
    return c;
  }
  const ask = (start: string): Promise<string | null> => waitFor(prompt, (p) => p?.startsWith(start) ?? false);
  const rounded = (p: number[]): number[] => p.map((v) => Math.round(v * 1e6) / 1e6);

  it('EXTEND (EX) grows the end nearer the pick to the boundary', async () => {
    await focus([590, -20, 650, 20]);
    const c = await edit(async () => {
      await typeCommand('EX');
      await ask('Select object to extend or shift-select to trim or [Boundary edges/Fence/Crossing/mOde/Project/Edge/Undo]:');
      await click(page, 615, 0);
      await waitFor(async () => (await s.api.get(`/api/v1/entities/${H.ext}`)).json.entities[0].end[0] as number, (x) => x === 640);
      await page.keyboard.press('Enter');
    }, (x) => x.changed.length === 1);
    expect([c.changed[0]!.start, c.changed[0]!.end]).toEqual([[600, 0, 0], [640, 0, 0]]);
  });

  const sysvars = async (...names: string[]): Promise<Record<string, unknown>> => (await s.api.post('/api/v1/sysvars', { get: names })).json.result.values;

  it('CHAMFER (CHA): Distance 5 and 5 (the second by Enter, kept in CHAMFERA/B), two lines: the bevel', async () => {
    await focus([690, -10, 750, 50]);
    await typeCommand('CHA');
    await ask('Select first line or [Undo/Polyline/Distance/Angle/Trim/mEthod/Multiple]:');
    await typeLine('D');
    await ask('Specify first chamfer distance');
    await typeLine('5');
    await ask('Specify second chamfer distance <5>:');
    await page.keyboard.press('Enter');
    await ask('Select first line');
    await page.keyboard.press('Escape');
    await waitFor(prompt, (p) => p === null);
    expect(await sysvars('CHAMFERA', 'CHAMFERB', 'CHAMMODE')).toEqual({ CHAMFERA: 5, CHAMFERB: 5, CHAMMODE: 0 });
    const c = await edit(async () => {
      await typeCommand('CHA');
      await waitFor(history, (h) => h.includes('(TRIM mode) Current chamfer Dist1 = 5, Dist2 = 5'));
      await ask('Select first line');
      await click(page, 720, 0);
      await ask('Select second line or shift-select to apply corner or [Distance/Angle/Method]:');
      await click(page, 740, 20);
    }, (x) => x.added.length === 1);
    expect([c.added[0]!.start, c.added[0]!.end].map(rounded).sort()).toEqual([[735, 0, 0], [740, 5, 0]]);
  });

  it('CHAMFER (CHA): Angle (CHAMFERC/D, CHAMMODE 1) and No trim (TRIMMODE 0): the bevel at the angle, both lines left whole', async () => {
    await focus([1890, -10, 1950, 50]);
    await typeCommand('CHA');
    await ask('Select first line');
    await typeLine('A');
    await ask('Specify chamfer length on the first line');
    await typeLine('4');
    await ask('Specify chamfer angle from the first line');
    await typeLine('30');
    await ask('Select first line');
    await typeLine('T');
    await ask('Enter Trim mode option [Trim/No trim] <Trim>:');
    await typeLine('N');
    await waitFor(history, (h) => h.includes('(NOTRIM mode) Current chamfer Length = 4, Angle = 30'));
    await page.keyboard.press('Escape');
    await waitFor(prompt, (p) => p === null);
    expect(await sysvars('CHAMFERC', 'CHAMFERD', 'CHAMMODE', 'TRIMMODE')).toEqual({ CHAMFERC: 4, CHAMFERD: 30, CHAMMODE: 1, TRIMMODE: 0 });
    const c = await edit(async () => {
      await typeCommand('CHA');
      await ask('Select first line');
      await click(page, 1920, 0);
      await ask('Select second line');
      await click(page, 1940, 20);
    }, (x) => x.added.length === 1);
    // 4 along the first line from the corner (1940, 0), leaving it at 30 degrees: it meets the
    // second 4 tan 30 up; no trim: neither line changed
    expect(c.changed).toEqual([]);
    expect([c.added[0]!.start, c.added[0]!.end].map(rounded).sort()).toEqual([[1936, 0, 0], rounded([1940, 4 * Math.tan(Math.PI / 6), 0])].sort());
    expect((await s.api.post('/api/v1/sysvars', { set: { TRIMMODE: 1, CHAMMODE: 0 } })).status).toBe(200);
  });

  it('BREAK (BR): the pick is the first point, the second typed: the part between is gone', async () => {
    await focus([790, -20, 850, 20]);
    const c = await edit(async () => {
      await typeCommand('BR');
      await ask('Select object:');
      await click(page, 810, 0);
      await ask('Specify second break point or [First point]:');
      await typeLine('830,0');
    }, (x) => x.added.length === 1);
    expect(c.changed[0]!.start).toEqual([800, 0, 0]);
    expect(c.changed[0]!.end[0]).toBeCloseTo(810, 0);
    expect([c.added[0]!.start, c.added[0]!.end]).toEqual([[830, 0, 0], [840, 0, 0]]);
  });

  it('JOIN (J) two collinear lines clicked; EXPLODE (X) a rectangle into four lines', async () => {
    await focus([890, -20, 1030, 20]);
    const j = await edit(async () => {
      await typeCommand('J');
      await ask('Select source object');
      await click(page, 905, 0);
      await click(page, 915, 0);
      await waitFor(() => page.evaluate(() => ((globalThis as any).linework.app.ask?.picked ?? []) as string[]), (hs) => hs.length === 2);
      await page.keyboard.press('Enter');
    }, (x) => x.erased.length === 1);
    expect(j.changed.map((e) => [e.start, e.end])).toEqual([[[900, 0, 0], [920, 0, 0]]]);
    const x = await edit(async () => {
      await typeCommand('X');
      await ask('Select objects:');
      await click(page, 1010, 10);
      await waitFor(() => page.evaluate(() => ((globalThis as any).linework.app.ask?.picked ?? []) as string[]), (hs) => hs.length === 1);
      await page.keyboard.press('Enter');
    }, (c) => c.erased.length === 1);
    expect(x.erased).toEqual([H.rect]);
    expect(x.added.map((e) => e.type)).toEqual(['Line', 'Line', 'Line', 'Line']);
  });

  it('SCALE (SC) by a typed factor; ARRAY (AR) rectangular; STRETCH (S) by a crossing window', async () => {
    await focus([1090, -20, 1110, 20]);
    const sc = await edit(async () => {
      await typeCommand('SC');
      await ask('Select objects:');
      await click(page, 1100, 5);
      await waitFor(() => page.evaluate(() => ((globalThis as any).linework.app.ask?.picked ?? []) as string[]), (hs) => hs.length === 1);
      await page.keyboard.press('Enter');
      await ask('Specify base point:');
      await typeLine('1100,0');
      await ask('Specify scale factor or [Reference] <1.0000>:');
      // the scaled circle follows the cursor
      const [x, y] = await at(page, 1102, 3);
      await page.mouse.move(x, y, { steps: 3 });
      await waitFor(() => page.evaluate(() => (globalThis as any).linework.app.overlay.bands.length as number), (n) => n > 10);
      await typeLine('2');
    }, (c) => c.changed.length === 1);
    expect(sc.changed[0]!.radius).toBe(10);

    await focus([1190, -20, 1260, 40]);
    const ar = await edit(async () => {
      await typeCommand('AR');
      await ask('Select objects:');
      await click(page, 1202, 0);
      await waitFor(() => page.evaluate(() => ((globalThis as any).linework.app.ask?.picked ?? []) as string[]), (hs) => hs.length === 1);
      await page.keyboard.press('Enter');
      await ask('Enter the type of array [Rectangular/Polar] <R>:');
      await page.keyboard.press('Enter');
      await ask('Enter the number of rows');
      await typeLine('2');
      await ask('Enter the number of columns');
      await typeLine('3');
      await ask('Enter the distance between rows');
      await typeLine('10');
      await ask('Specify the distance between columns');
      await typeLine('20');
    }, (c) => c.added.length === 5);
    expect(ar.added.map((e) => rounded(e.start)).sort()).toEqual([[1200, 10, 0], [1220, 0, 0], [1220, 10, 0], [1240, 0, 0], [1240, 10, 0]]);

    await focus([1290, -20, 1340, 20]);
    const st = await edit(async () => {
      await typeCommand('S');
      await ask('Specify first corner:');
      await click(page, 1315, -5);
      await ask('Specify opposite corner:');
      await click(page, 1325, 5);
      await ask('Specify base point or [Displacement]');
      await typeLine('1320,0');
      await ask('Specify second point');
      await typeLine('1330,0');
    }, (c) => c.changed.length === 1);
    expect([st.changed[0]!.start, st.changed[0]!.end]).toEqual([[1300, 0, 0], [1330, 0, 0]]);
  });

  it('DIMRADIUS (DRA) on the scaled circle and DIMANGULAR (DAN) between two lines', async () => {
    await focus([1080, -20, 1130, 20]);
    const r = await edit(async () => {
      await typeCommand('DRA');
      await ask('Select arc or circle:');
      await click(page, 1110, 0);
      await ask('Specify dimension line location or [Mtext/Text]:');
      await click(page, 1118, 6);
    }, (c) => c.added.some((e) => e.type === 'Dimension'));
    expect(r.added.find((e) => e.type === 'Dimension')!.actual_measurement).toBeCloseTo(10, 9);

    await focus([1490, -10, 1540, 30]);
    const a = await edit(async () => {
      await typeCommand('DAN');
      await ask('Select arc, circle, line, or <specify vertex>:');
      await click(page, 1525, 0);
      await ask('Select second line:');
      await click(page, 1510, 10);
      await ask('Specify dimension arc line location');
      await click(page, 1522, 8);
    }, (c) => c.added.some((e) => e.type === 'Dimension'));
    const m = a.added.find((e) => e.type === 'Dimension')!.actual_measurement as number;
    // DXF keeps an angular measurement in radians
    expect(m).toBeCloseTo(Math.PI / 4, 9);
  });
});
