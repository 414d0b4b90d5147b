// DXF fidelity in the engine (issue 14): an R12 drawing without $HANDLING opens with a handle on
// every record (item 4); save reports what a conversion made of what and what it left out; plot
// draws viewport contents whatever the viewport's layer (item 7) and says when a page comes out
// (nearly) empty, `fit` plotting the extents instead (item 8). Compared through ezdxf.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PYTHON, ezdxfView, skipWithoutEzdxf, viewDifferences, scratchDir } from '../../dxf/test/helpers.js';
import { dxf, type DocumentApi, type Entity } from '../src/dxf.js';
import { plotCommand } from '../src/plot/index.js';
import { layoutPage, plot } from '../src/plot/plot.js';
import { renderLayout } from '../src/render/renderer.js';
import { engine, ok } from './helpers.js';
import { corpusDir, decodePng, type DecodedPng } from './render-helpers.js';

const FIXTURE = new URL('../../dxf/test/fixtures/r12_no_handles.dxf', import.meta.url).pathname;

describe('4. R12 without $HANDLING opens with handles', () => {
  it('every entity has its own handle, bounds and box queries find them, also after creations', async () => {
    expect(readFileSync(FIXTURE, 'latin1')).not.toContain('$HANDLING');
    const e = engine();
    await ok(e, 'document_open', { path: FIXTURE });
    const all = (await ok(e, 'entities_list', { detail: 'geometry' })).entities as { handle: string; type: string; bounds: { min: number[]; max: number[] } }[];
    expect(all.map((x) => x.type)).toEqual(['Insert', 'Polyline', 'Circle', 'Line']);
    const handles = all.map((x) => x.handle);
    for (const h of handles) expect(h).toMatch(/^[0-9A-F]+$/);
    expect(new Set(handles).size).toBe(handles.length);
    const circle = all.find((x) => x.type === 'Circle')!;
    expect(circle.bounds.min.slice(0, 2)).toEqual([2.5, 2.5]);
    expect(circle.bounds.max.slice(0, 2)).toEqual([7.5, 7.5]);
    const inBox = async (): Promise<string[]> => (await ok(e, 'entities_list', { bounds: [4, 4, 6, 6] })).entities.map((x: { type: string }) => x.type);
    expect(await inBox()).toEqual(['Circle', 'Line']);
    await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [5, 5] }] });
    expect(await inBox()).toEqual(['Circle', 'Line', 'Point']);
    expect((await ok(e, 'entity_get', { handle: circle.handle })).entities[0].type).toBe('Circle');
    await ok(e, 'entities_delete', { handles: [circle.handle] });
    expect(await inBox()).toEqual(['Line', 'Point']);
  });

  it.skipIf(skipWithoutEzdxf())('what a box query finds is what an edit changes: ezdxf sees exactly those entities gone', async () => {
    const e = engine();
    await ok(e, 'document_open', { path: FIXTURE });
    const found = (await ok(e, 'entities_list', { bounds: [4, 4, 6, 6] })).entities.map((x: { handle: string }) => x.handle);
    expect(found).toHaveLength(2);
    await ok(e, 'entities_delete', { handles: found });
    const out = join(scratchDir('lw-r12-open-'), 'saved.dxf');
    await ok(e, 'save', { path: out });
    const [r] = ezdxfView([{ original: FIXTURE, written: out }]);
    expect(r!.written_audit).toEqual([0, 0]);
    // the CIRCLE and the LINE (model space records 2 and 3, the LINE with its xdata) are gone;
    // nothing else changed
    expect(r!.differences?.entities).toMatchObject({ changed: 0, lost: 2, added: 0 });
    expect(r!.differences?.xdata).toMatchObject({ changed: 0, lost: 1, added: 0, example: 'lost *MODEL_SPACE#3' });
    expect(viewDifferences(r!, ['blocks', 'tables'])).toEqual([]);
  });
});

describe('save reports every conversion and every drop', () => {
  it('R2018 -> R12: what became what, what was left out', async () => {
    const e = engine();
    await ok(e, 'entities_create', {
      entities: [
        { type: 'LWPolyline', points: [[0, 0], [4, 0], [4, 4]], closed: true },
        { type: 'MText', value: 'one\\Ptwo', position: [0, 10] },
        { type: 'Hatch', boundary: [[0, 0], [2, 0], [2, 2]] },
        { type: 'Line', start: [0, 0], end: [1, 1] },
      ],
    });
    const out = join(scratchDir('lw-save-report-'), 'r12.dxf');
    const r = await ok(e, 'save', { path: out, version: 'R12' });
    // the HATCH becomes an anonymous block of what the renderer draws of it (AutoCAD's SAVEAS R12)
    expect(r.converted).toEqual({ 'LWPOLYLINE -> POLYLINE': 1, 'MTEXT -> TEXT': 1, 'HATCH -> INSERT of a block with its geometry': 1 });
    expect(r.dropped).not.toHaveProperty('HATCH');
    expect(r.warnings.some((w: string) => /header variables R12 has no place for/.test(w))).toBe(true);
    // the same version: nothing converted, nothing dropped
    const same = await ok(e, 'save', { path: out.replace('r12', 'same') });
    expect(same).toMatchObject({ converted: {}, dropped: {}, warnings: [] });
  });
});

const SHEETS = new URL('./fixtures/viewports_noplot.dxf', import.meta.url).pathname;
const tmp = scratchDir('lw-plot-fidelity-');

interface EzdxfLayoutInk {
  viewports: { handle: string; center: number[]; size: number[]; ink: number }[];
  prims: number;
  extents: number[] | null;
  plot_type: number;
  plot_window: number[];
}

/** What ezdxf's drawing add-on draws inside each viewport, and each layout's extents and plot window (ezdxf_ink.py). */
function ezdxfInk(file: string, layouts: string[]): Record<string, EzdxfLayoutInk> {
  const script = new URL('./ezdxf_ink.py', import.meta.url).pathname;
  const r = spawnSync(PYTHON, [script, file, ...layouts], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`ezdxf_ink.py failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, EzdxfLayoutInk>;
}

/** The floating viewports of a layout (not the layout's own one), as the drawing has them. */
function viewports(doc: DocumentApi, layout: string): Entity[] {
  const vps = doc.layouts().find((l) => l.name === layout)!.block.entities.filter((e) => e.type === 'VIEWPORT');
  const inactive = vps.every((v) => Number(v.attrs.status ?? 1) === 0);
  return vps.filter((v, i) => Number(v.attrs.id ?? 2) !== 1 && !(inactive && i === 0));
}

/** Inked pixels of a plotted PNG page inside a viewport's frame (a few pixels in from it). */
function inkInViewport(img: DecodedPng, page: { width: number; toPaper: number[] }, vp: Entity): number {
  const c = vp.attrs.center as number[];
  const w = Number(vp.attrs.width);
  const h = Number(vp.attrs.height);
  const px = img.width / page.width;
  const [a, , , d, e, f] = page.toPaper;
  const x0 = Math.ceil((a! * (c[0]! - w / 2) + e!) * px) + 3;
  const x1 = Math.floor((a! * (c[0]! + w / 2) + e!) * px) - 3;
  const y0 = Math.ceil(img.height - (d! * (c[1]! + h / 2) + f!) * px) + 3;
  const y1 = Math.floor(img.height - (d! * (c[1]! - h / 2) + f!) * px) - 3;
  let n = 0;
  for (let y = Math.max(0, y0); y <= Math.min(img.height - 1, y1); y++) {
    for (let x = Math.max(0, x0); x <= Math.min(img.width - 1, x1); x++) {
      const [r, g, b] = img.at(x, y);
      if (Math.min(r, g, b) < 200) n++;
    }
  }
  return n;
}

describe('7. a viewport on a layer that does not plot still shows its contents', () => {
  it.skipIf(skipWithoutEzdxf())('the display list has each viewport\'s contents where ezdxf draws them; borders only where the layer plots', async () => {
    const doc = await dxf.readDxf(SHEETS);
    const list = renderLayout(doc, { layout: 'Sheet' });
    const vps = viewports(doc, 'Sheet');
    expect(vps.map((v) => v.attrs.layer)).toEqual(['VP-NOPLOT', 'Defpoints', 'VP']);
    const model = new Set(doc.modelSpace().entities.map((e) => e.handle));
    const ez = ezdxfInk(SHEETS, ['Sheet']).Sheet!;
    for (const vp of vps) {
      const c = vp.attrs.center as number[];
      const w = Number(vp.attrs.width);
      const h = Number(vp.attrs.height);
      const inside = list.prims.filter((p) => model.has(p.handle) && p.kind === 'polyline' && p.pts.some((v, i) => i % 2 === 0 && Math.abs(v - c[0]!) <= w / 2 && Math.abs(p.pts[i + 1]! - c[1]!) <= h / 2));
      const ezdxfInkHere = ez.viewports.find((v) => v.handle === vp.handle)!.ink;
      expect(ezdxfInkHere, `ezdxf draws into ${vp.attrs.layer}`).toBeGreaterThan(0);
      expect(inside.length, `contents of the viewport on ${vp.attrs.layer}`).toBeGreaterThan(0);
      const border = list.prims.filter((p) => p.handle === vp.handle);
      expect(border.length, `border of the viewport on ${vp.attrs.layer}`).toBe(vp.attrs.layer === 'VP' ? 1 : 0);
    }
  });

  it('the plotted sheet has ink inside every viewport', async () => {
    const doc = await dxf.readDxf(SHEETS);
    const res = await plot(doc, { layout: 'Sheet', path: join(tmp, 'sheet.png'), dpi: 50 });
    const img = decodePng(readFileSync(res.files[0]!));
    const { page } = layoutPage(doc, 'Sheet', renderLayout(doc, { layout: 'Sheet' }));
    for (const vp of viewports(doc, 'Sheet')) expect(inkInViewport(img, page, vp), String(vp.attrs.layer)).toBeGreaterThan(20);
  });

  it.skipIf(!corpusDir())('dxfparser__api-cw750-details.dxf --all: each sheet has ink inside its viewports', async () => {
    const file = join(corpusDir()!, 'dxfparser__api-cw750-details.dxf');
    if (!existsSync(file)) return;
    let err = '';
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => ((err += s), true) } };
    expect(await plotCommand([file, join(tmp, 'cw-{page}.png'), '--all', '--dpi', '60'], io)).toBe(0);
    // only the Model page comes out empty (item 8); no sheet does
    expect(err).not.toMatch(/page Sheet \d is (nearly )?empty/);
    const doc = await dxf.readDxf(file);
    const sheets = doc.layouts().filter((l) => l.name !== 'Model').map((l) => l.name);
    expect(sheets).toEqual(['Sheet 1', 'Sheet 2', 'Sheet 3', 'Sheet 4']);
    for (const name of sheets) {
      const img = decodePng(readFileSync(join(tmp, `cw-${name}.png`)));
      const { page } = layoutPage(doc, name, renderLayout(doc, { layout: name }));
      const ink = viewports(doc, name).map((vp) => inkInViewport(img, page, vp));
      expect(Math.max(...ink), `${name}: ink per viewport ${ink.join(', ')}`).toBeGreaterThan(50);
    }
    // ezdxf 0.18 draws the viewports of the current layout only (Sheet 1, whose layer does not
    // plot): it does draw their contents
    if (!skipWithoutEzdxf()) {
      const ez = ezdxfInk(file, ['Sheet 1'])['Sheet 1']!;
      expect(ez.prims).toBeGreaterThan(1000);
    }
  });
});

describe('8. a page that comes out empty or nearly so is reported; fit plots the extents', () => {
  it.skipIf(skipWithoutEzdxf())('the Model page whose plot window misses the drawing: a warning in the result and on stderr; fit plots the extents', async () => {
    const ez = ezdxfInk(SHEETS, ['Model']).Model!;
    // as ezdxf reads the page setup: a window that does not meet the model extents
    expect(ez.plot_type).toBe(4);
    const [x1, y1, x2, y2] = ez.plot_window as [number, number, number, number];
    const [ex0, ey0, ex1, ey1] = ez.extents as [number, number, number, number];
    expect(x1 > ex1 || x2 < ex0 || y1 > ey1 || y2 < ey0).toBe(true);
    const e = engine();
    await ok(e, 'document_open', { path: SHEETS });
    const r = await ok(e, 'plot', { layout: 'Model', path: join(tmp, 'model.png'), dpi: 40 });
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatchObject({ layout: 'Model', code: 'empty_page', on_paper: 0 });
    expect(r.warnings[0].message).toContain('fit');
    const blank = decodePng(readFileSync(join(tmp, 'model.png')));
    expect(inkCount(blank)).toBe(0);
    const fitted = await ok(e, 'plot', { layout: 'Model', path: join(tmp, 'model-fit.png'), dpi: 40, fit: true });
    expect(fitted.warnings).toEqual([]);
    expect(fitted.pages[0].paper).toBe(r.pages[0].paper);
    expect(inkCount(decodePng(readFileSync(join(tmp, 'model-fit.png'))))).toBeGreaterThan(200);
    // the CLI says so on stderr, and --fit plots the extents
    let err = '';
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => ((err += s), true) } };
    expect(await plotCommand([SHEETS, join(tmp, 'cli-{page}.png'), '--all', '--dpi', '30'], io)).toBe(0);
    expect(err).toContain('warning: page Model is empty');
    expect(err).toContain('warning: page Layout1 is empty: the layout holds nothing that is drawn');
    expect(err).not.toContain('page Sheet');
    err = '';
    expect(await plotCommand([SHEETS, join(tmp, 'cli-fit-{page}.png'), '--layout', 'Model', '--fit', '--dpi', '30'], io)).toBe(0);
    expect(err).not.toContain('warning');
  });

  it.skipIf(!corpusDir())('dxfparser__api-cw750-details.dxf: the Model page (a tiny stored window) is reported; --fit plots its extents', async () => {
    const file = join(corpusDir()!, 'dxfparser__api-cw750-details.dxf');
    if (!existsSync(file)) return;
    let err = '';
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => ((err += s), true) } };
    expect(await plotCommand([file, join(tmp, 'cw-model.png'), '--dpi', '40'], io)).toBe(0);
    expect(err).toMatch(/warning: page Model is (nearly )?empty/);
    err = '';
    expect(await plotCommand([file, join(tmp, 'cw-model-fit.png'), '--fit', '--dpi', '40'], io)).toBe(0);
    expect(err).not.toContain('warning');
    expect(inkCount(decodePng(readFileSync(join(tmp, 'cw-model-fit.png'))))).toBeGreaterThan(200);
  });
});

function inkCount(img: DecodedPng): number {
  let n = 0;
  for (let i = 0; i < img.data.length; i += 4) if (Math.min(img.data[i]!, img.data[i + 1]!, img.data[i + 2]!) < 200) n++;
  return n;
}
