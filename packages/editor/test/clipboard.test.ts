// The clipboard between drawings in a real headless Chromium with real mouse and keyboard: a window
// selection of a drawing with dependencies (dimensions with their *D blocks and style, blocks
// nested three deep, text in its own style, layers, linetypes, an image) copied with Ctrl+C and
// pasted with Ctrl+V at a clicked point into a new drawing, and a DIMENSION cut with Ctrl+X from
// one drawing and pasted into another; INSERT of the drawing file typed on the command line. The
// saved targets go through ezdxf's audit (engine/test/ezdxf_closure.py): nothing undefined, the
// entities by type as in the source.
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { click, closeEditorTest, drag, hasChromium, launch, openEditor, settle, startEditor, waitFor, type EditorServer } from './helpers.js';
import { audits, hasEzdxf, type Audit } from '../../engine/test/ezdxf-closure.js';

const FIXTURES = new URL('../../engine/test/fixtures/', import.meta.url).pathname;

const dir = mkdtempSync(join(tmpdir(), 'lw-clipboard-'));
let s: EditorServer;
let browser: Browser;
let page: Page;


const sorted = (c: Record<string, number>) => Object.fromEntries(Object.entries(c).sort(([a], [b]) => a.localeCompare(b)));
const undefinedFixes = (a: Audit): string[] => Object.keys({ ...a.fixes, ...a.errors }).filter((k) => k.startsWith('UNDEFINED'));

type Listed = { handle: string; type: string; dxftype: string; bounds?: { min: number[]; max: number[] } | null; start?: number[]; defpoint?: number[] };

const history = (): Promise<string> => page.locator('#history').innerText();
const prompt = (): Promise<string | null> => page.evaluate(() => (globalThis as any).linework.prompt as string | null);
const pageSelection = (): Promise<string[]> => page.evaluate(() => [...((globalThis as any).linework.selection as string[])]);

async function entities(documentId: number): Promise<Listed[]> {
  const r = await s.api.post('/api/v1/entities_list', { document_id: documentId, detail: 'geometry', limit: 1000 });
  expect(r.status, r.text).toBe(200);
  return r.json.result.entities as Listed[];
}

async function open(body: Record<string, unknown>): Promise<number> {
  const r = await s.api.post('/api/v1/documents', body);
  expect(r.status, r.text).toBe(201);
  return r.json.result.document_id as number;
}

/** Shows the drawing's tab and `bounds` of it. */
async function show(documentId: number, bounds: [number, number, number, number]): Promise<void> {
  await page.locator(`#doc-tabs button[data-document="${documentId}"]`).click();
  await waitFor(() => page.evaluate(() => (globalThis as any).linework.drawn as number | null), (d) => d === documentId);
  expect((await s.api.post('/api/v1/view_focus', { document_id: documentId, bounds, margin: 0 })).status).toBe(200);
  await settle(page);
  await page.locator('#gl').focus();
}

const clearSelection = (documentId: number): Promise<number> =>
  waitFor(async () => {
    const n = (await s.api.post('/api/v1/get_selection', { document_id: documentId })).json.result.entities.length as number;
    if (n !== 0) await page.keyboard.press('Escape');
    return n;
  }, (n) => n === 0);

async function save(documentId: number, name: string): Promise<string> {
  const path = join(dir, name);
  const r = await s.api.post('/api/v1/save', { document_id: documentId, path });
  expect(r.status, r.text).toBe(200);
  return path;
}

describe.skipIf(!hasChromium)('the clipboard between drawings in the editor', () => {
  beforeAll(async () => {
    copyFileSync(join(FIXTURES, 'closure_source.dxf'), join(dir, 'source.dxf'));
    s = await startEditor(['--gui', '--root', dir], { LINEWORK_ROOT: '' });
    browser = await launch();
    ({ page } = await openEditor(browser, s.editorUrl, { width: 1280, height: 800 }));
  }, 60_000);

  afterAll(() => closeEditorTest(browser, s, dir));

  it('a window around a drawing, Ctrl+C, Ctrl+V at a point in a new drawing: all of it with its dependencies, one undo step', async () => {
    const source = await open({ path: join(dir, 'source.dxf') });
    // every entity has extents, MLINE and MULTILEADER too: a window round them all holds them all
    const all = await entities(source);
    for (const e of all) expect(e.bounds, e.type).toBeTruthy();
    const boxes = all.map((e) => e.bounds!);
    const min = [Math.min(...boxes.map((b) => b.min[0]!)), Math.min(...boxes.map((b) => b.min[1]!))];
    const max = [Math.max(...boxes.map((b) => b.max[0]!)), Math.max(...boxes.map((b) => b.max[1]!))];
    const pad = 0.1 * Math.max(max[0]! - min[0]!, max[1]! - min[1]!);
    await show(source, [min[0]! - 2 * pad, min[1]! - 2 * pad, max[0]! + 2 * pad, max[1]! + 2 * pad]);
    await clearSelection(source);
    // a window (left to right) from an empty corner around them
    await drag(page, [min[0]! - pad, max[1]! + pad], [max[0]! + pad, min[1]! - pad]);
    await waitFor(pageSelection, (hs) => hs.length === all.length);
    await page.keyboard.press('Control+c');
    await waitFor(history, (h) => h.includes(`COPYCLIP: ${all.length} objects`));

    const target = await open({ version: 'R2018' });
    await show(target, [-100, -100, 100, 100]);
    await page.keyboard.press('Control+v');
    await waitFor(prompt, (p) => p === 'Specify insertion point:');
    await click(page, 20, 40);
    const pasted = await waitFor(() => entities(target), (l) => l.length === all.length);
    await waitFor(history, (h) => h.includes(`PASTECLIP: ${all.length} objects`));
    // the clipboard's base point (the lower left of the entities' extents) is on the clicked point
    // (within a pixel): the LINE moved by the click point minus that corner
    const px = await page.evaluate(() => 1 / ((globalThis as any).linework.app.view.scale as number));
    const from = all.find((e) => e.type === 'Line')!.start!, to = pasted.find((e) => e.type === 'Line')!.start!;
    expect(Math.abs(to[0]! - from[0]! - (20 - min[0]!))).toBeLessThanOrEqual(px);
    expect(Math.abs(to[1]! - from[1]! - (40 - min[1]!))).toBeLessThanOrEqual(px);

    const file = await save(target, 'pasted.dxf');
    if (hasEzdxf) {
      const [src, copy] = audits([join(dir, 'source.dxf'), file]);
      expect(copy!.ok, copy!.messages.join('; ')).toBe(true);
      expect(undefinedFixes(copy!)).toEqual([]);
      expect(copy!.fixes, copy!.messages.join('; ')).toEqual({});
      const byType: Record<string, number> = {};
      for (const e of all) byType[e.dxftype] = (byType[e.dxftype] ?? 0) + 1;
      expect(sorted(copy!.modelspace)).toEqual(sorted(byType));
      // the window took all of model space, MLINE and MULTILEADER too (boxed by what they draw)
      expect(Object.keys(byType).sort()).toEqual(['DIMENSION', 'IMAGE', 'INSERT', 'LINE', 'MLINE', 'MULTILEADER', 'TEXT']);
      expect(sorted(byType)).toEqual(sorted(src!.modelspace));
      // the *D blocks came along under names of the target, the named blocks under their own
      expect(copy!.blocks.filter((b) => b.startsWith('*D'))).toHaveLength(2);
      expect(copy!.blocks).toEqual(expect.arrayContaining(['FRAME', 'PLATE', 'BOLT', 'TICK_ARROW']));
    }
    // the paste (copy and move) is one undo step
    expect((await s.api.post('/api/v1/undo', { document_id: target })).status).toBe(200);
    expect(await entities(target)).toHaveLength(0);
  });

  it('Ctrl+X of a DIMENSION in one drawing, Ctrl+V in another: it arrives with its *D block, the first drawing lost it', async () => {
    const source = await open({ path: join(dir, 'source.dxf') });
    const dims = (await entities(source)).filter((e) => e.type === 'Dimension');
    // the linear dimension's dimension line runs along y = -30 from x = 0 to 100 (its text at 50)
    const linear = dims.find((d) => d.defpoint && Math.abs(d.defpoint[1]! + 30) < 1e-9)!;
    expect(linear).toBeTruthy();
    await show(source, [-20, -60, 120, 20]);
    await clearSelection(source);
    await click(page, 25, -30);
    await waitFor(pageSelection, (hs) => hs.length === 1 && hs[0] === linear.handle);
    await page.keyboard.press('Control+x');
    await waitFor(history, (h) => h.includes('CUTCLIP: 1 object'));
    await waitFor(() => entities(source), (l) => !l.some((e) => e.handle === linear.handle) && l.filter((e) => e.type === 'Dimension').length === dims.length - 1);

    const target = await open({ version: 'R2018' });
    await show(target, [-20, -60, 120, 20]);
    await page.keyboard.press('Control+v');
    await waitFor(prompt, (p) => p === 'Specify insertion point:');
    await click(page, 10, 10);
    const got = await waitFor(() => entities(target), (l) => l.length === 1);
    expect(got[0]!.type).toBe('Dimension');
    await waitFor(history, (h) => h.includes('PASTECLIP: 1 object'));

    const file = await save(target, 'cut-pasted.dxf');
    const left = await save(source, 'cut-from.dxf');
    if (hasEzdxf) {
      const [b, a] = audits([file, left]);
      expect(b!.ok, b!.messages.join('; ')).toBe(true);
      expect(undefinedFixes(b!)).toEqual([]);
      expect(b!.fixes, b!.messages.join('; ')).toEqual({});
      expect(b!.modelspace).toEqual({ DIMENSION: 1 });
      expect(b!.blocks.filter((x) => x.startsWith('*D'))).toHaveLength(1);
      expect(a!.modelspace.DIMENSION).toBe(dims.length - 1);
    }
  });

  it('INSERT of a drawing file typed on the command line brings the file as a block with what it depends on', async () => {
    const target = await open({ version: 'R2018' });
    await show(target, [-100, -100, 300, 200]);
    await page.keyboard.type('-INSERT source.dxf 200,0');
    await page.keyboard.press('Enter');
    const got = await waitFor(() => entities(target), (l) => l.length === 1);
    expect(got[0]!.type).toBe('Insert');
    const file = await save(target, 'inserted.dxf');
    if (hasEzdxf) {
      const [a] = audits([file]);
      expect(a!.ok, a!.messages.join('; ')).toBe(true);
      expect(a!.fixes, a!.messages.join('; ')).toEqual({});
      expect(a!.modelspace).toEqual({ INSERT: 1 });
      expect(a!.blocks).toEqual(expect.arrayContaining(['source', 'FRAME', 'PLATE', 'BOLT', 'TICK_ARROW']));
      expect(a!.blocks.filter((b) => b.startsWith('*D'))).toHaveLength(2);
    }
  });
});
