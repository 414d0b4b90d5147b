// wblock (new drawing with exactly what the entities need, clean ezdxf audit, LibreCAD reads it)
// and embed_image (IMAGE + IMAGEDEF + reactor + dictionary + raster variables, drawn by all back ends).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { afterAll, describe, expect, it } from 'vitest';
import type { DocumentApi, DxfObject } from '../src/dxf.js';
import { dxf } from '../src/dxf.js';
import { embedImage, plot, wblock } from '../src/plot/index.js';
import { renderLayout } from '../src/render/index.js';
import { add, corpusDir, decodePng, ent, ezdxfAudit, hasCommand, hasEzdxf, newDoc, readDoc } from './render-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'lw-wblock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ezdxf = hasEzdxf();
const librecad = hasCommand('librecad');

function librecadPdf(file: string): boolean {
  const r = spawnSync('librecad', ['dxf2pdf', '-a', file], { env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' }, timeout: 60_000, cwd: dir });
  const pdf = file.replace(/\.dxf$/, '.pdf');
  return r.status === 0 && existsSync(pdf) && readFileSync(pdf).subarray(0, 5).toString() === '%PDF-';
}

async function drawing(): Promise<DocumentApi> {
  const doc = await newDoc();
  const lt = doc.addTableEntry('LTYPE', 'DASHDOT2', { description: '_ . _', items: 4, total_pattern_length: 10 });
  lt.extra = { AcDbLinetypeTableRecord: [[49, '6'], [74, '0'], [49, '-2'], [74, '0'], [49, '0'], [74, '0'], [49, '-2'], [74, '0']] };
  doc.addTableEntry('LAYER', 'Walls', { color: 1, linetype: 'DASHDOT2' });
  doc.addTableEntry('LAYER', 'Doors', { color: 2, linetype: 'Continuous' });
  doc.addTableEntry('LAYER', 'Unused', { color: 3, linetype: 'Continuous' });
  doc.addTableEntry('STYLE', 'Notes', { font: 'DejaVuSans.ttf', width: 0.9 });
  doc.addTableEntry('STYLE', 'UnusedStyle', { font: 'txt' });
  doc.addTableEntry('APPID', 'LINEWORK_TEST', { flags: 0 });
  doc.addTableEntry('APPID', 'UNUSED_APP', { flags: 0 });
  doc.addBlock('HINGE', [0, 0, 0]);
  add(doc, 'CIRCLE', { layer: 'Doors', center: [0, 0, 0], radius: 0.5 }, 'HINGE');
  doc.addBlock('DOOR', [0, 0, 0], { flags: 2 });
  add(doc, 'ARC', { layer: '0', center: [0, 0, 0], radius: 9, start_angle: 0, end_angle: 90 }, 'DOOR');
  add(doc, 'INSERT', { name: 'HINGE', insert: [0, 0, 0] }, 'DOOR');
  add(doc, 'ATTDEF', { insert: [0, -2, 0], height: 1, text: '', tag: 'NO', prompt: 'Number', style: 'Notes' }, 'DOOR');
  doc.addBlock('UNUSED_BLOCK', [0, 0, 0]);
  add(doc, 'LINE', { start: [0, 0, 0], end: [1, 1, 0] }, 'UNUSED_BLOCK');
  return doc;
}

describe('wblock', () => {
  it('writes chosen entities with exactly the tables and blocks they need', async () => {
    const doc = await drawing();
    const wall = add(doc, 'LINE', { layer: 'Walls', start: [0, 0, 0], end: [100, 0, 0] });
    wall.xdata = [{ app: 'LINEWORK_TEST', tags: [[1000, 'hello']] }];
    const attrib = ent('ATTRIB', { insert: [10, 8, 0], height: 1, text: 'D1', tag: 'NO', style: 'Notes' });
    const door = doc.addEntity(ent('INSERT', { layer: 'Doors', name: 'DOOR', insert: [10, 10, 0], attribs_follow: 1 }, [attrib]));
    add(doc, 'LINE', { layer: 'Unused', start: [0, 0, 0], end: [1, 0, 0] });
    const path = join(dir, 'part.dxf');
    const res = await wblock(doc, { path, handles: [wall.handle, door.handle], base: [10, 10] });
    expect(res).toMatchObject({ path, count: 2 });
    const back = await readDoc(path);
    expect(back.modelSpace().entities.map((e) => e.type).sort()).toEqual(['INSERT', 'LINE']);
    expect(back.getTableEntry('LAYER', 'Unused')).toBeUndefined();
    expect(back.getTableEntry('STYLE', 'UnusedStyle')).toBeUndefined();
    expect(back.getBlock('UNUSED_BLOCK')).toBeUndefined();
    expect(back.getBlock('DOOR')).toBeDefined();
    expect(back.getBlock('HINGE')).toBeDefined();
    expect(back.getTableEntry('LTYPE', 'DASHDOT2')).toBeDefined();
    expect(back.getTableEntry('APPID', 'LINEWORK_TEST')).toBeDefined();
    expect(back.getTableEntry('APPID', 'UNUSED_APP')).toBeUndefined();
    expect(back.getHeader('$INSBASE')).toEqual([10, 10, 0]);
    // the copy draws like the original
    expect(renderLayout(back).prims.length).toBe(renderLayout(doc).prims.length - 1);
    if (ezdxf) {
      const a = ezdxfAudit(path);
      expect(a.errors).toEqual([]);
      expect(a.layers).toEqual(expect.arrayContaining(['0', 'Walls', 'Doors']));
      expect(a.layers).not.toContain('Unused');
      expect(a.blocks).toEqual(expect.arrayContaining(['DOOR', 'HINGE']));
      expect(a.blocks).not.toContain('UNUSED_BLOCK');
      expect(a.appids).toContain('LINEWORK_TEST');
      expect(a.styles).toContain('Notes');
    }
    if (librecad) expect(librecadPdf(path)).toBe(true);
  });

  it('writes a block as a drawing (base point from the block) and rejects unknown handles', async () => {
    const doc = await drawing();
    const res = await wblock(doc, { path: join(dir, 'door.dxf'), block: 'DOOR' });
    expect(res.count).toBe(3);
    const back = await readDoc(res.path);
    expect(back.modelSpace().entities.map((e) => e.type).sort()).toEqual(['ARC', 'ATTDEF', 'INSERT']);
    if (ezdxf) expect(ezdxfAudit(res.path).errors).toEqual([]);
    await expect(wblock(doc, { path: join(dir, 'x.dxf'), handles: ['FFFFF'] })).rejects.toMatchObject({ code: 'entity_absent' });
    await expect(wblock(doc, { path: join(dir, 'x.dxf'), block: 'NOPE' })).rejects.toMatchObject({ code: 'unknown_block' });
  });

  const corpus = corpusDir();
  it.skipIf(!corpus)('wblocks corpus drawings with dimensions and nested blocks cleanly', async () => {
    for (const name of ['ezdxf__dimension_in_nested_blocks.dxf', 'librecad__dim_sample.dxf', 'ezdxf__multi_insert_with_attribs.dxf', 'skydxf__Ceco.NET-Architecture-Tm-53.dxf']) {
      const src = join(corpus!, name);
      if (!existsSync(src)) continue;
      const doc = await readDoc(src);
      const out = join(dir, `wb-${name}`);
      const res = await wblock(doc, { path: out });
      expect(res.count).toBe(doc.modelSpace().entities.length);
      if (ezdxf) expect({ name, errors: ezdxfAudit(out).errors }).toEqual({ name, errors: [] });
      if (librecad) expect(librecadPdf(out)).toBe(true);
    }
  }, 120_000);
});

function redPng(path: string, w: number, h: number): void {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="#ff0000"/><rect width="${w / 2}" height="${h}" fill="#0000ff"/></svg>`;
  writeFileSync(path, new Resvg(svg).render().asPng());
}

describe('embed_image', () => {
  it('adds IMAGE, IMAGEDEF, reactor, dictionary entry and raster variables', async () => {
    const doc = await newDoc();
    const img = join(dir, 'pic.png');
    redPng(img, 40, 20);
    const r = embedImage(doc, { path: img, insert: [10, 10], width: 80, rotation: 0 });
    expect(r.pixels).toEqual([40, 20]);
    expect(r.size).toEqual([80, 40]);
    const image = doc.get(r.handle)!;
    expect(image.type).toBe('IMAGE');
    const def = doc.get(r.image_def) as DxfObject;
    expect(def.type).toBe('IMAGEDEF');
    expect(def.attrs.image_size).toEqual([40, 20]);
    const reactor = doc.get(String(image.attrs.image_def_reactor_handle))!;
    expect(reactor.type).toBe('IMAGEDEF_REACTOR');
    expect(reactor.owner).toBe(r.handle);
    const root = doc.objects[0]!;
    const names = (root.attrs.entries as { name: string }[]).map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['ACAD_IMAGE_DICT', 'ACAD_IMAGE_VARS']));
    // a second image of the same file shares the IMAGEDEF
    const r2 = embedImage(doc, { path: img, insert: [100, 10], height: 10 });
    expect(r2.image_def).toBe(r.image_def);
    expect(r2.size).toEqual([20, 10]);
    const file = join(dir, 'img.dxf');
    await dxf.saveDxf(doc, file);
    if (ezdxf) expect(ezdxfAudit(file).errors).toEqual([]);
    if (librecad) expect(librecadPdf(file)).toBe(true);
    expect(() => embedImage(doc, { path: join(dir, 'missing.png'), insert: [0, 0] })).toThrow(expect.objectContaining({ code: 'file_not_found' }));
  });

  it('draws the image in SVG, PDF and PNG', async () => {
    const doc = await newDoc();
    const img = join(dir, 'pic2.png');
    redPng(img, 40, 20);
    embedImage(doc, { path: img, insert: [0, 0], width: 100 });
    const svg = await plot(doc, { path: join(dir, 'img.svg') });
    expect(readFileSync(svg.files[0]!, 'utf8')).toMatch(/<image [^>]*href="data:image\/png;base64,/);
    const pdf = await plot(doc, { path: join(dir, 'img.pdf') });
    expect(readFileSync(pdf.files[0]!).toString('latin1')).toMatch(/\/Subtype \/Image/);
    const png = await plot(doc, { path: join(dir, 'img.png'), width: 400 });
    const p = decodePng(readFileSync(png.files[0]!));
    // left half blue, right half red, centred on the page
    const cy = p.height / 2;
    const left = p.at(p.width * 0.35, cy);
    const right = p.at(p.width * 0.65, cy);
    expect(left[2]).toBeGreaterThan(200);
    expect(left[0]).toBeLessThan(60);
    expect(right[0]).toBeGreaterThan(200);
    expect(right[2]).toBeLessThan(60);
    // relative file names are found next to the drawing
    const rel = join(dir, 'rel');
    rmSync(rel, { recursive: true, force: true });
    copyFileSync(img, join(dir, 'copy.png'));
    const doc2 = await newDoc();
    const e = embedImage(doc2, { path: join(dir, 'copy.png'), insert: [0, 0], width: 10 });
    (doc2.get(e.image_def)!.attrs as Record<string, unknown>).filename = basename(join(dir, 'copy.png'));
    const list = renderLayout(doc2, { baseDir: dir });
    expect(list.prims.some((q) => q.kind === 'image')).toBe(true);
  });
});
