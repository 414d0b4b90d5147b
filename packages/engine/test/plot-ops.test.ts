// plot, wblock, embed_image and preview as catalogue ops, through the dispatcher: fields, paths
// relative to the workspace root, typed failure codes, and embed_image as one undo step.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { afterAll, describe, expect, it } from 'vitest';
import { active, call, dump, engine, fails, ok } from './helpers.js';
import { decodePng, ezdxfAudit, hasEzdxf, inkBox, readDoc } from './render-helpers.js';
import { Workspace, type Engine } from '../src/index.js';
import type { DxfObject, Tag } from '../src/dxf.js';
import { pageSetupOf } from '../src/plot/index.js';

const dir = mkdtempSync(join(tmpdir(), 'lw-plot-ops-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function png(path: string, w: number, h: number): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="#00ff00"/></svg>`;
  writeFileSync(path, new Resvg(svg).render().asPng());
  return path;
}

/** The head of a baseline JPEG: SOI, a JFIF APP0 segment, then SOF0 with the pixel size. */
function jpegHeader(path: string, w: number, h: number): string {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, h >> 8, h & 255, w >> 8, w & 255, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  writeFileSync(path, Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xd9])]));
  return path;
}

async function drawing(): Promise<{ e: Engine; handles: string[] }> {
  const e = engine({ workspace: new Workspace([dir]) });
  const { handles } = await ok(e, 'entities_create', {
    create_layers: true,
    entities: [
      { type: 'Line', start: [0, 0], end: [100, 0], layer: 'Walls' },
      { type: 'Line', start: [100, 0], end: [100, 50], layer: 'Walls' },
      { type: 'Circle', center: [50, 25], radius: 10 },
      { type: 'Text', value: 'PLAN', position: [5, 40], height: 5 },
    ],
  });
  return { e, handles };
}

describe('plot op', () => {
  it('writes PDF, SVG and PNG; relative paths resolve against the workspace root', async () => {
    const { e } = await drawing();
    const pdf = await ok(e, 'plot', { path: 'a.pdf' });
    expect(pdf).toMatchObject({ format: 'pdf', count: 1, files: [join(dir, 'a.pdf')], pages: [{ layout: 'Model', file: join(dir, 'a.pdf') }] });
    expect(readFileSync(join(dir, 'a.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    const svg = await ok(e, 'plot', { path: join(dir, 'a.svg') });
    expect(svg.format).toBe('svg');
    expect(readFileSync(svg.files[0], 'utf8')).toMatch(/^<\?xml|^<svg/);
    const res = await ok(e, 'plot', { path: join(dir, 'a.img'), format: 'png', width: 600 });
    expect(res.pages[0].pixels.width).toBe(600);
    const img = decodePng(readFileSync(join(dir, 'a.img')));
    expect(img.width).toBe(600);
    // the drawing leaves ink on the page, wider than tall like the drawing
    const box = inkBox(img)!;
    expect(box).not.toBeNull();
    expect(box.maxX - box.minX).toBeGreaterThan(box.maxY - box.minY);
  });

  it('writes one file per layout with {page}, and one multi-page PDF without', async () => {
    const { e } = await drawing();
    await ok(e, 'layout_create', { name: 'Sheet A' });
    await ok(e, 'layout_create', { name: 'Sheet B' });
    const layouts = active(e).doc.layouts().map((l) => l.name);
    const per = await ok(e, 'plot', { path: join(dir, 'sheet-{page}.png'), pages: 'all' });
    expect(per.files).toHaveLength(layouts.length);
    for (const name of layouts) expect(existsSync(join(dir, `sheet-${name}.png`)), name).toBe(true);
    const some = await ok(e, 'plot', { path: join(dir, 'two-{page}.svg'), pages: ['Sheet B', 'sheet a'] });
    expect(some.files).toEqual([join(dir, 'two-Sheet B.svg'), join(dir, 'two-Sheet A.svg')]);
    const book = await ok(e, 'plot', { path: join(dir, 'book.pdf'), pages: 'all' });
    expect(book.files).toEqual([join(dir, 'book.pdf')]);
    expect(book.pages).toHaveLength(layouts.length);
    expect(readFileSync(join(dir, 'book.pdf')).toString('latin1').match(/\/Type\s*\/Page\b/g)).toHaveLength(layouts.length);
  });

  it('answers typed failures and writes nothing', async () => {
    const { e } = await drawing();
    await fails(e, 'plot', { path: join(dir, 'x.pdf'), layout: 'Nope' }, 'unknown_layout');
    await fails(e, 'plot', { path: join(dir, 'x.pdf'), pages: ['Model', 'Nope'] }, 'unknown_layout');
    await fails(e, 'plot', { path: join(dir, 'x.svg'), pages: 'all' }, 'invalid_request');
    await fails(e, 'plot', { path: join(dir, 'x.doc') }, 'invalid_request');
    expect(existsSync(join(dir, 'x.pdf'))).toBe(false);
    writeFileSync(join(dir, 'afile'), 'x');
    await fails(e, 'plot', { path: join(dir, 'afile', 'y.pdf') }, 'io_error');
  });
});

describe('page setup scale units', () => {
  const layout = (tags: Tag[]): DxfObject => ({ kind: 'object', type: 'LAYOUT', handle: '1', owner: '0', attrs: {}, extra: { AcDbPlotSettings: tags } });
  it('reads standard scales on inch paper as inches of paper per drawing unit', () => {
    // a Tabloid sheet at 1:1 with paper units in inches (72 = 0), as AutoCAD writes US drawings
    const inch = pageSetupOf('S', layout([[44, '279.4'], [45, '431.8'], [70, '692'], [72, '0'], [74, '1'], [75, '16'], [142, '1'], [143, '1']]));
    expect(inch).toMatchObject({ fit: false, ratio: 25.4, center: true, plotArea: 'extents' });
    const mm = pageSetupOf('S', layout([[44, '297'], [45, '420'], [70, '692'], [72, '1'], [74, '1'], [75, '16']]));
    expect(mm.ratio).toBe(1);
    const half = pageSetupOf('S', layout([[70, '16'], [72, '0'], [75, '17']]));
    expect(half.ratio).toBeCloseTo(12.7, 9);
    const custom = pageSetupOf('S', layout([[70, '0'], [72, '0'], [142, '1'], [143, '48']]));
    expect(custom.ratio).toBeCloseTo(25.4 / 48, 9);
  });
});

describe('wblock op', () => {
  it('writes entities, a block or model space to a new drawing', async () => {
    const { e, handles } = await drawing();
    const res = await ok(e, 'wblock', { path: 'part.dxf', handles: [handles[0], handles[2]], base: [10, 5] });
    expect(res).toMatchObject({ path: join(dir, 'part.dxf'), count: 2, dependencies: { layers: ['Walls'] } });
    const back = await readDoc(join(dir, 'part.dxf'));
    expect(back.modelSpace().entities.map((x) => x.type).sort()).toEqual(['CIRCLE', 'LINE']);
    expect(back.getTableEntry('LAYER', 'Walls')).toBeDefined();
    expect(back.getHeader('$INSBASE')).toEqual([10, 5, 0]);
    await ok(e, 'block_define', { name: 'FRAME', handles: [handles[0], handles[1]], base: [1, 2] });
    const blk = await ok(e, 'wblock', { path: join(dir, 'frame.dxf'), block: 'frame' });
    expect(blk.count).toBe(2);
    expect((await readDoc(join(dir, 'frame.dxf'))).getHeader('$INSBASE')).toEqual([1, 2, 0]);
    const all = await ok(e, 'wblock', { path: join(dir, 'all.dxf') });
    expect(all.count).toBe(active(e).doc.modelSpace().entities.length);
    if (hasEzdxf()) {
      for (const f of ['part.dxf', 'frame.dxf', 'all.dxf']) {
        const a = ezdxfAudit(join(dir, f));
        expect(a.errors, f).toEqual([]);
        expect(a.fixes, f).toBe(0);
      }
    }
  });

  it('answers entity_absent and unknown_block', async () => {
    const { e, handles } = await drawing();
    const r = await fails(e, 'wblock', { path: join(dir, 'y.dxf'), handles: [handles[0], 'FFFFF'] }, 'entity_absent');
    expect(r.details).toMatchObject({ handles: ['FFFFF'] });
    await fails(e, 'wblock', { path: join(dir, 'y.dxf'), block: 'NOPE' }, 'unknown_block');
    expect(existsSync(join(dir, 'y.dxf'))).toBe(false);
  });
});

describe('embed_image op', () => {
  it('adds IMAGE + IMAGEDEF + reactor in one undo step; undo removes them all, redo brings them back', async () => {
    const { e } = await drawing();
    const store = active(e);
    const before = dump(store.doc);
    const classesBefore = store.doc.classes.length;
    const objectsBefore = store.doc.objects.length;
    const v0 = store.version;
    const file = png(join(dir, 'pic.png'), 30, 10);
    const r = await ok(e, 'embed_image', { path: 'pic.png', insert: [5, 5], width: 60, rotation: 90 });
    expect(store.version).toBe(v0 + 1);
    expect(r).toMatchObject({ handle: expect.any(String), pixels: [30, 10], size: [60, 20], path: file });
    const image = store.doc.get(r.handle)!;
    expect(image.type).toBe('IMAGE');
    expect(image.attrs.u_pixel as number[]).toEqual([expect.closeTo(0, 9), expect.closeTo(2, 9), 0]);
    const def = store.doc.get(r.image_def)!;
    expect(def).toMatchObject({ type: 'IMAGEDEF', attrs: { filename: file, image_size: [30, 10] } });
    const reactor = store.doc.get(String(image.attrs.image_def_reactor_handle))!;
    expect(reactor).toMatchObject({ type: 'IMAGEDEF_REACTOR', owner: r.handle });
    expect(store.doc.objects.length).toBe(objectsBefore + 4); // vars, image dict, def, reactor
    const classNames = () => store.doc.classes.map((c) => c.tags.find((t) => t[0] === 1)?.[1]);
    expect(classNames()).toEqual(expect.arrayContaining(['IMAGE', 'IMAGEDEF', 'IMAGEDEF_REACTOR', 'RASTERVARIABLES']));
    const classesAfter = store.doc.classes.length;
    expect(classesAfter).toBeGreaterThan(classesBefore);
    const got = await ok(e, 'entity_get', { handle: r.handle });
    expect(got.entities[0].type).toBe('Image');

    await ok(e, 'undo');
    expect(store.doc.get(r.handle)).toBeUndefined();
    expect(store.doc.get(r.image_def)).toBeUndefined();
    expect(store.doc.get(reactor.handle)).toBeUndefined();
    expect(store.doc.classes.length).toBe(classesBefore);
    expect(dump(store.doc)).toBe(before);

    await ok(e, 'redo');
    expect(store.doc.get(r.handle)?.type).toBe('IMAGE');
    expect(store.doc.get(reactor.handle)?.type).toBe('IMAGEDEF_REACTOR');
    expect(store.doc.classes.length).toBe(classesAfter);

    // a second image of the same file shares its IMAGEDEF; undoing it leaves the first intact
    const mid = dump(store.doc);
    const r2 = await ok(e, 'embed_image', { path: file, insert: [100, 0], height: 5 });
    expect(r2.image_def).toBe(r.image_def);
    expect(r2.size).toEqual([15, 5]);
    await ok(e, 'undo');
    expect(dump(store.doc)).toBe(mid);
  });

  it('reads the pixel size of a JPEG', async () => {
    const { e } = await drawing();
    const r = await ok(e, 'embed_image', { path: jpegHeader(join(dir, 'pic.jpg'), 640, 480), insert: [0, 0], width: 64 });
    expect(r).toMatchObject({ pixels: [640, 480], size: [64, 48] });
  });

  it('answers file_not_found, invalid_image, not_a_file and unknown_layer, changing nothing', async () => {
    const { e } = await drawing();
    const store = active(e);
    const v = store.version;
    const before = dump(store.doc);
    await fails(e, 'embed_image', { path: join(dir, 'missing.png'), insert: [0, 0] }, 'file_not_found');
    writeFileSync(join(dir, 'fake.png'), 'not an image at all');
    await fails(e, 'embed_image', { path: join(dir, 'fake.png'), insert: [0, 0] }, 'invalid_image');
    writeFileSync(join(dir, 'pic.gif'), Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'));
    await fails(e, 'embed_image', { path: join(dir, 'pic.gif'), insert: [0, 0] }, 'invalid_image');
    await fails(e, 'embed_image', { path: dir, insert: [0, 0] }, 'not_a_file');
    await fails(e, 'embed_image', { path: png(join(dir, 'ok.png'), 4, 4), insert: [0, 0], layer: 'NoSuchLayer' }, 'unknown_layer');
    await fails(e, 'embed_image', { path: join(dir, 'ok.png'), insert: [0] }, 'invalid_request');
    expect(store.version).toBe(v);
    expect(dump(store.doc)).toBe(before);
  });
});

describe('preview op', () => {
  it('renders model space or a layout to PNG (base64) of the asked size, or SVG', async () => {
    const { e } = await drawing();
    const r = await ok(e, 'preview', { width: 320, height: 200 });
    expect(r).toMatchObject({ layout: 'Model', format: 'png', mime_type: 'image/png', width: 320, height: 200 });
    const img = decodePng(Buffer.from(r.data, 'base64'));
    expect([img.width, img.height]).toEqual([320, 200]);
    expect(inkBox(img)).not.toBeNull();
    const svg = await ok(e, 'preview', { format: 'svg', width: 100, height: 100 });
    expect(svg.mime_type).toBe('image/svg+xml');
    expect(Buffer.from(svg.data, 'base64').toString('utf8')).toMatch(/<svg[^>]*width="100"/);
    await ok(e, 'layout_create', { name: 'Sheet' });
    expect((await ok(e, 'preview', { layout: 'sheet' })).layout).toBe('Sheet');
    await fails(e, 'preview', { layout: 'Nope' }, 'unknown_layout');
    await fails(e, 'preview', { width: 100000 }, 'invalid_request');
    // a read: no new version
    const v = active(e).version;
    await call(e, 'preview', {});
    expect(active(e).version).toBe(v);
  });
});
