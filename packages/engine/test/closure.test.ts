// Copies between drawings carry what they depend on (store/closure.ts): entities_copy_to and
// wblock on the project's fixture and, with LINEWORK_DXF_CORPUS, on every corpus file; the
// standard symbols every opened drawing has. Saved copies are checked by ezdxf's audit
// (ezdxf_closure.py, one Python process for many files).
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { afterAll, describe, expect, it } from 'vitest';
import { readDxf } from '@linework/dxf';
import { dxf, type DocumentApi, type DxfVersion, type Entity } from '../src/dxf.js';
import { copyEntities, directSink } from '../src/store/closure.js';
import { wblock } from '../src/plot/wblock.js';
import { Workspace } from '../src/index.js';
import { TEST_ROOTS, active, dump, engine, fails, ok } from './helpers.js';
import { audits, hasEzdxf, type Audit } from './ezdxf-closure.js';

const FIXTURE = new URL('./fixtures/closure_source.dxf', import.meta.url).pathname;
const R12_NO_TABLES = new URL('./fixtures/r12_no_tables.dxf', import.meta.url).pathname;
const corpus = process.env.LINEWORK_DXF_CORPUS;
const dir = mkdtempSync(join(tmpdir(), 'linework-closure-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Counts by type with sorted keys, so two of them compare as JSON. */
function sorted(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

function undefinedFixes(a: Audit): Record<string, number> {
  return Object.fromEntries(Object.entries({ ...a.fixes, ...a.errors }).filter(([k]) => k.startsWith('UNDEFINED')));
}

/** New drawings are R12 or R2000 on; R13/R14 copies are R2000 (as ezdxf saves them). */
function sameVersion(v: DxfVersion): DxfVersion {
  if (v < 'AC1009') return 'AC1009';
  if (v > 'AC1009' && v < 'AC1015') return 'AC1015';
  return v;
}

function anonymousBlocks(doc: DocumentApi): string[] {
  return [...doc.blocks.keys()].filter((n) => n.startsWith('*') && !/^[*$](model|paper)_space/i.test(n));
}

function namedBlocks(doc: DocumentApi): string[] {
  return [...doc.blocks.keys()].filter((n) => !n.startsWith('*') && !n.startsWith('$'));
}

/**
 * Anonymous blocks the entities reach without passing through a named block: a second copy into
 * the same target copies these again (what a named block holds comes with the target's own).
 */
function anonymousReach(doc: DocumentApi, entities: Entity[]): number {
  const seen = new Set<string>();
  const work = [...entities];
  while (work.length) {
    const e = work.pop()!;
    for (const name of [e.type === 'INSERT' ? e.attrs.name : undefined, /DIMENSION/.test(e.type) ? e.attrs.geometry : undefined]) {
      if (typeof name !== 'string' || !name.startsWith('*') || seen.has(name.toUpperCase())) continue;
      const b = doc.getBlock(name);
      if (!b) continue;
      seen.add(name.toUpperCase());
      work.push(...b.entities);
    }
  }
  return seen.size;
}

describe('entities_copy_to brings the dependency closure', () => {
  async function twoDocuments() {
    const e = engine();
    const from = (await ok(e, 'document_open', { path: FIXTURE })).document_id as number;
    const to = (await ok(e, 'document_open', { version: 'R2018' })).document_id as number;
    await ok(e, 'activate', { document_id: from });
    const source = e.documents.get(from)!;
    const target = e.documents.get(to)!;
    return { e, source, target, to, from, handles: source.doc.modelSpace().entities.map((x) => x.handle) };
  }

  it('copies all of model space with blocks, styles, image, mline/mleader styles and xdata; one undo step', async () => {
    const { e, source, target, to, handles } = await twoDocuments();
    const before = dump(target.doc);
    const r = await ok(e, 'entities_copy_to', { handles, document_id: to });
    expect(r.count).toBe(handles.length);
    const d = r.dependencies;
    expect(d.blocks).toEqual(expect.arrayContaining(['FRAME', 'PLATE', 'BOLT', 'TICK_ARROW']));
    expect(d.blocks.filter((b: string) => b.startsWith('*D'))).toHaveLength(2);
    expect(d.layers).toEqual(expect.arrayContaining(['WALLS', 'DIMS']));
    expect(d.linetypes).toContain('DASHDOT_X');
    expect(d.text_styles).toEqual(expect.arrayContaining(['NOTES', 'DIMTEXT']));
    expect(d.dimension_styles).toContain('ARCH');
    expect(d.appids).toContain('LINEWORK_FIXTURE');
    expect(d.mline_styles).toContain('DOUBLE_X');
    expect(d.mleader_styles).toContain('CALLOUT_X');
    expect(d.image_defs).toHaveLength(1);
    expect(r.kept_from_target.layers).toContain('0');
    expect(r.kept_from_target.linetypes).toContain('Continuous');
    // what nothing uses stays behind
    expect(target.doc.getTableEntry('LAYER', 'UNUSED')).toBeUndefined();
    expect(target.doc.getTableEntry('STYLE', 'UNUSED_STYLE')).toBeUndefined();
    expect(target.doc.getBlock('UNUSED_BLOCK')).toBeUndefined();
    // the copy points at the target's records: the text style of the dimension style, its arrow block
    const arch = target.doc.getTableEntry('DIMSTYLE', 'ARCH')!;
    const pointers = Object.values(arch.extra ?? {}).flat().filter((t) => t[0] >= 340 && t[0] <= 344).map((t) => target.doc.get(t[1])?.attrs.name);
    expect(pointers).toEqual(expect.arrayContaining(['DIMTEXT', 'TICK_ARROW']));
    const copiedImage = target.doc.modelSpace().entities.find((x) => x.type === 'IMAGE')!;
    const def = target.doc.get(String(copiedImage.attrs.image_def_handle))!;
    expect(def.type).toBe('IMAGEDEF');
    expect(String(def.attrs.filename)).toMatch(/closure_image\.png$/);
    expect(target.doc.get(String(copiedImage.attrs.image_def_reactor_handle))?.type).toBe('IMAGEDEF_REACTOR');

    const file = join(dir, 'copy-all.dxf');
    await ok(e, 'save', { document_id: to, path: file });
    if (hasEzdxf) {
      const [src, copy] = audits([FIXTURE, file]);
      expect(copy!.ok, copy!.messages.join('; ')).toBe(true);
      expect(undefinedFixes(copy!)).toEqual({});
      expect(copy!.fixes).toEqual({});
      expect(copy!.modelspace).toEqual(src!.modelspace);
    }
    await ok(e, 'undo', { document_id: to });
    expect(dump(target.doc)).toBe(before);
    expect(source.doc.modelSpace().entities).toHaveLength(handles.length);
  });

  it('copying twice keeps one definition per named block and two copies of each anonymous block', async () => {
    const { e, source, target, to, handles } = await twoDocuments();
    const first = await ok(e, 'entities_copy_to', { handles, document_id: to });
    const second = await ok(e, 'entities_copy_to', { handles, document_id: to });
    const srcAnon = anonymousBlocks(source.doc).filter((n) => /^\*D/i.test(n));
    expect(anonymousBlocks(target.doc).filter((n) => /^\*D/i.test(n))).toHaveLength(2 * srcAnon.length);
    for (const name of ['FRAME', 'PLATE', 'BOLT', 'TICK_ARROW']) expect(namedBlocks(target.doc).filter((n) => n.toUpperCase() === name)).toHaveLength(1);
    // the second copy keeps the target's definitions and names what it kept
    expect(second.dependencies.blocks.every((b: string) => b.startsWith('*'))).toBe(true);
    // FRAME is kept, so what only the source's FRAME needs (PLATE) is not even looked at
    expect(second.kept_from_target.blocks.sort()).toEqual(['BOLT', 'FRAME', 'TICK_ARROW']);
    expect(second.kept_from_target.layers).toEqual(expect.arrayContaining(['WALLS', 'DIMS']));
    expect(second.kept_from_target.mline_styles).toContain('DOUBLE_X');
    expect(second.kept_from_target.image_defs).toHaveLength(1);
    expect(Object.keys(second.renamed_blocks).length).toBe(srcAnon.length);
    const firstDims = new Set(first.dependencies.blocks.filter((b: string) => b.startsWith('*D')));
    for (const b of second.dependencies.blocks.filter((x: string) => x.startsWith('*D'))) expect(firstDims.has(b)).toBe(false);
    // each DIMENSION names its own geometry block
    const geometry = target.doc.modelSpace().entities.filter((x) => x.type === 'DIMENSION').map((x) => x.attrs.geometry);
    expect(new Set(geometry).size).toBe(geometry.length);
    const file = join(dir, 'copy-twice.dxf');
    await ok(e, 'save', { document_id: to, path: file });
    if (hasEzdxf) {
      const [src, copy] = audits([FIXTURE, file]);
      expect(undefinedFixes(copy!)).toEqual({});
      const doubled = Object.fromEntries(Object.entries(src!.modelspace).map(([k, v]) => [k, 2 * v]));
      expect(copy!.modelspace).toEqual(doubled);
    }
  });

  it('a named block the target has keeps the target\'s definition', async () => {
    const { e, target, source, to, from } = await twoDocuments();
    await ok(e, 'activate', { document_id: to });
    await ok(e, 'entities_create', { create_layers: true, entities: [{ type: 'Circle', center: [0, 0], radius: 9, layer: 'MINE' }] });
    await ok(e, 'block_define', { name: 'BOLT', base: [0, 0], handles: [target.doc.modelSpace().entities[0]!.handle] });
    await ok(e, 'activate', { document_id: from });
    const bolt = source.doc.modelSpace().entities.find((x) => x.type === 'INSERT' && x.attrs.name === 'BOLT')!;
    const r = await ok(e, 'entities_copy_to', { handles: [bolt.handle], document_id: to });
    expect(r.kept_from_target.blocks).toEqual(['BOLT']);
    expect(r.dependencies.blocks).toEqual([]);
    // the target's BOLT is still one circle of radius 9 on MINE; WALLS (used only inside the source's BOLT) did not come
    const own = target.doc.getBlock('BOLT')!;
    expect(own.entities.map((x) => [x.type, x.attrs.radius])).toEqual([['CIRCLE', 9]]);
    expect(target.doc.getTableEntry('LAYER', 'WALLS')).toBeUndefined();
  });

  it('within one drawing (a paste into the same drawing): every name kept, anonymous blocks copied anew', async () => {
    const { e, source, from, handles } = await twoDocuments();
    const blocksBefore = source.doc.blocks.size;
    const dims = source.doc.modelSpace().entities.filter((x) => x.type === 'DIMENSION').map((x) => x.handle);
    const r = await ok(e, 'entities_copy_to', { handles: [...dims, ...handles.filter((h) => !dims.includes(h))], document_id: from });
    expect(Object.values(r.dependencies).flat().every((n) => String(n).startsWith('*'))).toBe(true);
    expect(r.dependencies.blocks).toHaveLength(dims.length);
    expect(r.kept_from_target.blocks).toEqual(expect.arrayContaining(['FRAME', 'BOLT']));
    expect(source.doc.blocks.size).toBe(blocksBefore + dims.length);
    expect(source.doc.modelSpace().entities).toHaveLength(2 * handles.length);
  });

  it('into an R12 drawing: what R12 has comes along, the image definition does not', async () => {
    const { e, source, handles } = await twoDocuments();
    const r12 = (await ok(e, 'document_open', { version: 'R12' })).document_id as number;
    await ok(e, 'activate', { document_id: source.id });
    const r = await ok(e, 'entities_copy_to', { handles, document_id: r12 });
    expect(r.dependencies.blocks).toEqual(expect.arrayContaining(['FRAME', 'PLATE', 'BOLT', 'TICK_ARROW']));
    expect(r.dependencies.image_defs).toEqual([]);
    // R12 has no IMAGE, MLINE or MLEADER: they come as anonymous blocks of what they draw (the
    // image its frame), as AutoCAD's SAVEAS R12 keeps them, and the conversion says so
    expect(Object.keys(r.dropped).join(' ')).not.toMatch(/IMAGE|MLINE|MULTILEADER/);
    expect(Object.keys(r.converted).join(' ')).toMatch(/IMAGE -> INSERT of a block with its frame/);
    expect(Object.keys(r.converted).join(' ')).toMatch(/MLINE -> INSERT of a block with its geometry/);
    expect(r.count).toBe(handles.length);
    const file = join(dir, 'copy-r12.dxf');
    await ok(e, 'save', { document_id: r12, path: file });
    if (hasEzdxf) {
      const [copy] = audits([file]);
      expect(copy!.ok, copy!.messages.join('; ')).toBe(true);
      expect(undefinedFixes(copy!)).toEqual({});
      expect(copy!.modelspace).toMatchObject({ INSERT: 2 + 3, LINE: 1, TEXT: 1, DIMENSION: 2 });
    }
  });

  it('a paper-space viewport goes to the layout of the same name, created when missing', async () => {
    const { e, source, target, to } = await twoDocuments();
    const sheet = source.doc.layouts().find((l) => l.name === 'Sheet')!;
    const vp = sheet.block.entities.filter((x) => x.type === 'VIEWPORT').map((x) => x.handle);
    const r = await ok(e, 'entities_copy_to', { handles: vp, document_id: to });
    expect(r.dependencies.layouts).toEqual(['Sheet']);
    const there = target.doc.layouts().find((l) => l.name === 'Sheet')!;
    expect(there.block.entities.map((x) => x.type)).toEqual(['VIEWPORT']);
    expect(target.doc.modelSpace().entities).toHaveLength(0);
  });
});

describe('the clipboard (clipboard_copy / clipboard_cut / clipboard_paste) brings the same closure', () => {
  async function fixtureAndNew() {
    const e = engine();
    const from = (await ok(e, 'document_open', { path: FIXTURE })).document_id as number;
    const to = (await ok(e, 'document_open', { version: 'R2018' })).document_id as number;
    return { e, from, to, source: e.documents.get(from)!, target: e.documents.get(to)! };
  }
  const modelCounts = (doc: DocumentApi) => sorted(Object.fromEntries([...new Set(doc.modelSpace().entities.map((x) => x.type))].map((t) => [t, doc.modelSpace().entities.filter((x) => x.type === t).length])));

  it('copy, then paste at a point in another drawing: everything with its dependencies, moved, one undo step', async () => {
    const { e, from, to, source, target } = await fixtureAndNew();
    const handles = source.doc.modelSpace().entities.map((x) => x.handle);
    const copied = await ok(e, 'clipboard_copy', { document_id: from, handles });
    expect(copied.count).toBe(handles.length);
    expect(copied.dependencies.blocks).toEqual(expect.arrayContaining(['FRAME', 'PLATE', 'BOLT', 'TICK_ARROW']));
    const base = copied.base as number[];
    const line = source.doc.modelSpace().entities.find((x) => x.type === 'LINE')!;
    const before = dump(target.doc);
    const r = await ok(e, 'clipboard_paste', { document_id: to, point: [base[0]! + 1000, base[1]! - 500] });
    expect(r.vector).toEqual([1000, -500]);
    expect(r.count).toBe(handles.length);
    expect(r.source).toEqual({ document_id: from, name: 'closure_source.dxf' });
    expect(r.dependencies.blocks.filter((b: string) => b.startsWith('*D'))).toHaveLength(2);
    expect(r.dependencies.layers).toEqual(expect.arrayContaining(['WALLS', 'DIMS']));
    expect(r.dependencies.text_styles).toEqual(expect.arrayContaining(['NOTES', 'DIMTEXT']));
    expect(r.dependencies.dimension_styles).toContain('ARCH');
    expect(r.dependencies.image_defs).toHaveLength(1);
    const pasted = target.doc.modelSpace().entities.find((x) => x.type === 'LINE')!;
    const s0 = line.attrs.start as number[], p0 = pasted.attrs.start as number[];
    expect([p0[0]! - s0[0]!, p0[1]! - s0[1]!]).toEqual([1000, -500]);
    expect(modelCounts(target.doc)).toEqual(modelCounts(source.doc));
    const file = join(dir, 'paste-all.dxf');
    await ok(e, 'save', { document_id: to, path: file });
    if (hasEzdxf) {
      const [src, copy] = audits([FIXTURE, file]);
      expect(copy!.ok, copy!.messages.join('; ')).toBe(true);
      expect(copy!.fixes).toEqual({});
      expect(copy!.modelspace).toEqual(src!.modelspace);
    }
    // the copy and the move are one step
    await ok(e, 'undo', { document_id: to });
    expect(dump(target.doc)).toBe(before);
  });

  it('cut a DIMENSION in one drawing, paste it in another: it comes with its *D block and style, the source lost it', async () => {
    const { e, from, to, source, target } = await fixtureAndNew();
    const dim = source.doc.modelSpace().entities.find((x) => x.type === 'DIMENSION')!;
    const geometry = String(dim.attrs.geometry);
    const count = source.doc.modelSpace().entities.length;
    const cut = await ok(e, 'clipboard_cut', { document_id: from, handles: [dim.handle] });
    expect(cut.handles).toEqual([dim.handle]);
    expect(source.doc.get(dim.handle)).toBeUndefined();
    expect(source.doc.modelSpace().entities).toHaveLength(count - 1);
    // the source is closed before the paste: the clipboard needs nothing of it
    await ok(e, 'document_close', { document_id: from, discard: true });
    const r = await ok(e, 'clipboard_paste', { document_id: to });
    expect(r.cut).toBe(true);
    expect(r.vector).toEqual([0, 0]);
    const copy = target.doc.get(r.handles[0])!;
    expect(copy.type).toBe('DIMENSION');
    const block = target.doc.getBlock(String(copy.attrs.geometry))!;
    expect(block.entities.length).toBeGreaterThan(0);
    expect(r.renamed_blocks[Object.keys(r.renamed_blocks)[0]!]).toBe(block.name);
    expect(Object.keys(r.renamed_blocks)).toHaveLength(1);
    expect(target.doc.getTableEntry('DIMSTYLE', String(copy.attrs.dimstyle))).toBeDefined();
    expect(target.doc.getTableEntry('LAYER', 'DIMS')).toBeDefined();
    const file = join(dir, 'paste-cut.dxf');
    await ok(e, 'save', { document_id: to, path: file });
    if (hasEzdxf) {
      const [a] = audits([file]);
      expect(a!.ok, a!.messages.join('; ')).toBe(true);
      expect(a!.fixes).toEqual({});
      expect(a!.modelspace).toEqual({ DIMENSION: 1 });
      expect(a!.blocks).toContain(block.name);
    }
    expect(geometry).toMatch(/^\*D/);
  });

  it('undo of a cut brings the entities back and keeps the clipboard; a paste twice into one drawing gives two anonymous blocks', async () => {
    const { e, from, to, source, target } = await fixtureAndNew();
    const dims = source.doc.modelSpace().entities.filter((x) => x.type === 'DIMENSION').map((x) => x.handle);
    await ok(e, 'clipboard_cut', { document_id: from, handles: dims });
    await ok(e, 'undo', { document_id: from });
    for (const h of dims) expect(source.doc.get(h)?.type).toBe('DIMENSION');
    const first = await ok(e, 'clipboard_paste', { document_id: to, point: [0, 0] });
    const second = await ok(e, 'clipboard_paste', { document_id: to, point: [50, 0] });
    const all = [...first.dependencies.blocks, ...second.dependencies.blocks].filter((b: string) => b.startsWith('*D'));
    expect(new Set(all).size).toBe(2 * dims.length);
    expect(second.kept_from_target.dimension_styles).toContain('ARCH');
    // within the source drawing: its names are kept, the anonymous blocks copied anew
    const own = await ok(e, 'clipboard_paste', { document_id: from });
    expect(Object.values(own.dependencies).flat().every((n) => String(n).startsWith('*'))).toBe(true);
    expect(own.kept_from_target.layers).toContain('DIMS');
    expect(source.doc.modelSpace().entities.filter((x) => x.type === 'DIMENSION')).toHaveLength(2 * dims.length);
    expect(target.doc.modelSpace().entities).toHaveLength(2 * dims.length);
  });

  it('paper-space entities paste into their layout by default; into model space a viewport is left out', async () => {
    const { e, from, to, source, target } = await fixtureAndNew();
    const sheet = source.doc.layouts().find((l) => l.name === 'Sheet')!;
    const vp = sheet.block.entities.find((x) => x.type === 'VIEWPORT')!;
    await ok(e, 'clipboard_copy', { document_id: from, handles: [vp.handle] });
    const r = await ok(e, 'clipboard_paste', { document_id: to });
    expect(r.dependencies.layouts).toEqual(['Sheet']);
    expect(target.doc.layouts().find((l) => l.name === 'Sheet')!.block.entities.map((x) => x.type)).toEqual(['VIEWPORT']);
    await fails(e, 'clipboard_paste', { document_id: to, layout: 'Model' }, 'invalid_request');
    const line = source.doc.modelSpace().entities.find((x) => x.type === 'LINE')!;
    await ok(e, 'clipboard_copy', { document_id: from, handles: [vp.handle, line.handle] });
    const mixed = await ok(e, 'clipboard_paste', { document_id: to, layout: 'Model' });
    expect(mixed.skipped).toEqual({ VIEWPORT: 1 });
    expect(target.doc.modelSpace().entities.map((x) => x.type)).toEqual(['LINE']);
  });

  it('paste with nothing on the clipboard fails with clipboard_empty', async () => {
    const e = engine();
    await fails(e, 'clipboard_paste', {}, 'clipboard_empty');
    await ok(e, 'entities_create', { entities: [{ type: 'Line', start: [0, 0], end: [1, 1] }] });
    await fails(e, 'clipboard_copy', { handles: ['FFFF'] }, 'entity_absent');
    await fails(e, 'clipboard_paste', {}, 'clipboard_empty');
  });
});

describe('images between drawings: one IMAGEDEF per file, as embed_image keeps it', () => {
  function png(path: string, fill: string): void {
    writeFileSync(path, new Resvg(`<svg xmlns="http://www.w3.org/2000/svg" width="8" height="4"><rect width="8" height="4" fill="${fill}"/></svg>`).render().asPng());
  }

  it('an image of another file under a name the target uses gets a name of its own; one of the same file shares the target\'s definition', async () => {
    mkdirSync(join(dir, 'a'), { recursive: true });
    mkdirSync(join(dir, 'b'), { recursive: true });
    png(join(dir, 'a', 'pic.png'), '#ff0000');
    png(join(dir, 'b', 'pic.png'), '#0000ff');
    const e = engine();
    const a = (await ok(e, 'document_open', { version: 'R2018' })).document_id as number;
    const fromA = await ok(e, 'embed_image', { document_id: a, path: join(dir, 'a', 'pic.png'), insert: [0, 0], width: 8 });
    const b = (await ok(e, 'document_open', { version: 'R2018' })).document_id as number;
    const ownB = await ok(e, 'embed_image', { document_id: b, path: join(dir, 'b', 'pic.png'), insert: [0, 0], width: 8 });
    const target = e.documents.get(b)!.doc;
    const fileOf = (imageHandle: string) => String(target.get(String(target.get(imageHandle)!.attrs.image_def_handle))!.attrs.filename);
    // both are "pic" in their image dictionary, and they are different pictures
    const r = await ok(e, 'entities_copy_to', { source_document_id: a, document_id: b, handles: [fromA.handle] });
    expect(fileOf(r.handles[0])).toBe(join(dir, 'a', 'pic.png'));
    expect(fileOf(ownB.handle)).toBe(join(dir, 'b', 'pic.png'));
    expect(r.dependencies.image_defs).toEqual(['pic_2']);
    // the same file again: the definition the target has now
    const again = await ok(e, 'entities_copy_to', { source_document_id: a, document_id: b, handles: [fromA.handle] });
    expect(again.kept_from_target.image_defs).toEqual(['pic_2']);
    expect(target.get(String(target.get(again.handles[0])!.attrs.image_def_handle))).toBe(target.get(String(target.get(r.handles[0])!.attrs.image_def_handle)));
    // and embed_image of that file in the target uses it too (one IMAGEDEF per file)
    const embedded = await ok(e, 'embed_image', { document_id: b, path: join(dir, 'a', 'pic.png'), insert: [20, 0], width: 8 });
    expect(embedded.image_def).toBe(target.get(r.handles[0])!.attrs.image_def_handle);
    const file = join(dir, 'images.dxf');
    await ok(e, 'save', { document_id: b, path: file });
    if (hasEzdxf) {
      const [x] = audits([file]);
      expect(x!.ok, x!.messages.join('; ')).toBe(true);
      expect(x!.fixes, x!.messages.join('; ')).toEqual({});
      expect(x!.modelspace).toEqual({ IMAGE: 4 });
    }
  });
});

describe('INSERT of a drawing file brings the same closure', () => {
  it('the file\'s model space becomes a block named after it, with everything it depends on; one undo step', async () => {
    const e = engine();
    const to = (await ok(e, 'document_open', { version: 'R2018' })).document_id as number;
    const target = e.documents.get(to)!;
    const before = dump(target.doc);
    const r = await ok(e, 'command', { cmd: `INSERT ${FIXTURE} 100,50` });
    const step = r.commands[0];
    expect(step.block).toBe('closure_source');
    expect(step.kept).toBe(false);
    expect(step.dependencies.blocks).toEqual(expect.arrayContaining(['FRAME', 'PLATE', 'BOLT', 'TICK_ARROW']));
    expect(step.dependencies.blocks.filter((b: string) => b.startsWith('*D'))).toHaveLength(2);
    expect(step.dependencies.layers).toEqual(expect.arrayContaining(['WALLS', 'DIMS']));
    expect(step.dependencies.text_styles).toContain('NOTES');
    expect(step.dependencies.dimension_styles).toContain('ARCH');
    const source = await dxf.readDxf(FIXTURE);
    const types = (list: Entity[]) => sorted(Object.fromEntries([...new Set(list.map((x) => x.type))].map((t) => [t, list.filter((x) => x.type === t).length])));
    expect(types(target.doc.getBlock('closure_source')!.entities)).toEqual(types(source.modelSpace().entities));
    const insert = target.doc.get(step.handles[0])!;
    expect([insert.type, insert.attrs.name, insert.attrs.insert]).toEqual(['INSERT', 'closure_source', [100, 50, 0]]);
    // a second INSERT of the file uses the definition the drawing has now
    const again = (await ok(e, 'command', { cmd: `INSERT ${FIXTURE} 0,0` })).commands[0];
    expect(again.kept).toBe(true);
    expect([...target.doc.blocks.keys()].filter((n) => n.toUpperCase() === 'CLOSURE_SOURCE')).toHaveLength(1);
    const file = join(dir, 'insert-drawing.dxf');
    await ok(e, 'save', { document_id: to, path: file });
    if (hasEzdxf) {
      const [a] = audits([file]);
      expect(a!.ok, a!.messages.join('; ')).toBe(true);
      expect(a!.fixes, a!.messages.join('; ')).toEqual({});
      expect(a!.modelspace).toEqual({ INSERT: 2 });
      expect(a!.blocks).toEqual(expect.arrayContaining(['closure_source', 'FRAME', 'PLATE', 'BOLT', 'TICK_ARROW']));
    }
    // each INSERT is one step: the first one's undo takes the block definition with it
    await ok(e, 'undo', { document_id: to });
    expect(target.doc.getBlock('closure_source')).toBeDefined();
    expect(target.doc.modelSpace().entities).toHaveLength(1);
    await ok(e, 'undo', { document_id: to });
    expect(dump(target.doc)).toBe(before);
  });

  it('a file that is not there fails with file_not_found and changes nothing', async () => {
    const e = engine();
    const doc = active(e).doc;
    const before = dump(doc);
    await fails(e, 'command', { cmd: `INSERT ${join(dir, 'nothing-here.dxf')} 0,0` }, 'file_not_found');
    expect(dump(doc)).toBe(before);
  });
});

describe('wblock brings the same closure', () => {
  it('writes all of model space of the fixture; ezdxf finds nothing undefined', async () => {
    const e = engine();
    await ok(e, 'document_open', { path: FIXTURE });
    const file = join(dir, 'wblock-all.dxf');
    const r = await ok(e, 'wblock', { path: file });
    expect(r.count).toBe(active(e).doc.modelSpace().entities.length);
    expect(r.dependencies.blocks).toEqual(expect.arrayContaining(['FRAME', 'PLATE', 'BOLT', 'TICK_ARROW']));
    expect(r.dependencies.image_defs).toHaveLength(1);
    const back = await dxf.readDxf(file);
    expect(back.getBlock('UNUSED_BLOCK')).toBeUndefined();
    expect(back.getTableEntry('LAYER', 'UNUSED')).toBeUndefined();
    if (hasEzdxf) {
      const [src, copy] = audits([FIXTURE, file]);
      expect(copy!.ok, copy!.messages.join('; ')).toBe(true);
      expect(copy!.fixes).toEqual({});
      expect(copy!.modelspace).toEqual(src!.modelspace);
    }
  });
});

describe('the symbols every drawing has', () => {
  it('an R12 file without TABLES opens with layer 0 (a repair), accepts entities on it and saves a LAYER table', async () => {
    const e = engine();
    const opened = await ok(e, 'document_open', { path: R12_NO_TABLES });
    expect(opened.repairs.map((x: { message: string }) => x.message)).toEqual(expect.arrayContaining([expect.stringContaining('LAYER "0"')]));
    const doc = active(e).doc;
    for (const [t, n] of [['LAYER', '0'], ['LTYPE', 'Continuous'], ['LTYPE', 'ByLayer'], ['LTYPE', 'ByBlock'], ['STYLE', 'Standard'], ['DIMSTYLE', 'Standard']] as const) {
      expect(doc.getTableEntry(t, n), `${t} ${n}`).toBeDefined();
    }
    const made = await ok(e, 'entities_create', { entities: [{ type: 'Line', start: [0, 0], end: [5, 5], layer: '0' }] });
    expect(made.count).toBe(1);
    const file = join(dir, 'r12-layer0.dxf');
    await ok(e, 'save', { path: file });
    // read without adding anything: the file itself has the table and the entry
    const back = await readDxf(file);
    expect(back.version).toBe('AC1009');
    expect(back.tables.get('LAYER')?.entries.map((x) => x.attrs.name)).toContain('0');
    if (hasEzdxf) {
      const [a] = audits([file]);
      expect(a!.ok, a!.messages.join('; ')).toBe(true);
      expect(a!.modelspace).toEqual({ LINE: 2 });
    }
  });

  it('a drawing that has them gets no repair', async () => {
    const e = engine();
    const opened = await ok(e, 'document_open', { path: FIXTURE });
    expect(opened.repairs).toBeUndefined();
  });
});

describe.skipIf(!corpus)('every corpus file: copy and wblock of all of model space (LINEWORK_DXF_CORPUS)', () => {
  it('ezdxf finds nothing undefined and the same entities by type (copy, wblock, clipboard paste); a second copy adds anonymous blocks only', { timeout: 900_000 }, async () => {
    const files = readdirSync(corpus!).filter((f) => /\.dxf$/i.test(f)).sort();
    const rows: { name: string; source: string; copy: string; wblock: string; paste: string }[] = [];
    // the editor's paste: clipboard_copy of all of model space, clipboard_paste into a new drawing
    const session = engine({ workspace: new Workspace([...TEST_ROOTS, corpus!]) });
    for (const name of files) {
      const source = join(corpus!, name);
      const src = await dxf.readDxf(source);
      const entities = src.modelSpace().entities;
      const out = dxf.newDocument(sameVersion(src.version));
      const r = copyEntities(src, entities, directSink(out));
      expect(r.handles, name).toHaveLength(entities.length);
      const copy = join(dir, `copy-${name}`);
      await dxf.saveDxf(out, copy);
      const wb = join(dir, `wblock-${name}`);
      await wblock(src, { path: wb });
      // a second copy into the same target: named blocks once, anonymous ones (reached from the
      // entities, not held by a named block the target now has) once more
      const named = namedBlocks(out).length;
      const anon = anonymousBlocks(out).length;
      const again = copyEntities(src, entities, directSink(out));
      expect(again.dependencies.blocks.filter((b) => !b.startsWith('*')), name).toEqual([]);
      const againAnon = again.dependencies.blocks.filter((b) => b.startsWith('*')).length;
      expect({ name, named: namedBlocks(out).length, anon: anonymousBlocks(out).length }).toEqual({ name, named, anon: anon + againAnon });
      expect(againAnon, name).toBeGreaterThanOrEqual(anonymousReach(src, entities));
      // every anonymous block of the second copy got a name of its own
      expect(Object.keys(again.renamed_blocks).length, name).toBe(againAnon);
      const paste = join(dir, `paste-${name}`);
      const from = (await ok(session, 'document_open', { path: source })).document_id as number;
      const to = (await ok(session, 'document_open', { version: sameVersion(src.version) })).document_id as number;
      const all = session.documents.get(from)!.doc.modelSpace().entities.map((x) => x.handle);
      if (all.length) {
        await ok(session, 'clipboard_copy', { document_id: from, handles: all });
        expect((await ok(session, 'clipboard_paste', { document_id: to })).count, name).toBe(all.length);
      }
      await ok(session, 'save', { document_id: to, path: paste });
      for (const id of [from, to]) await ok(session, 'document_close', { document_id: id, discard: true });
      rows.push({ name, source, copy, wblock: wb, paste });
    }
    if (!hasEzdxf) return;
    const results = audits(rows.flatMap((r) => [r.source, r.copy, r.wblock, r.paste]));
    const failures: unknown[] = [];
    rows.forEach((row, i) => {
      const [src, copy, wb, paste] = [results[4 * i]!, results[4 * i + 1]!, results[4 * i + 2]!, results[4 * i + 3]!];
      if (!src.ok) return; // ezdxf cannot read the original either: nothing to compare with
      // a source ezdxf repairs itself (undefined blocks, duplicate handles) is compared on what it
      // lacks: the copy may lack no more than the source does
      const clean = !Object.keys(src.fixes).length && !Object.keys(src.errors).length;
      for (const [how, a] of [['copy', copy], ['wblock', wb], ['paste', paste]] as const) {
        const lacking = a.ok ? undefinedFixes(a) : {};
        const allowed = clean ? {} : undefinedFixes(src);
        const tooMany = Object.entries(lacking).filter(([k, n]) => n > (allowed[k] ?? 0));
        // entities by type: as the source has them; where ezdxf repairs the source, it may lose
        // entities there (duplicate handles) that the copy keeps, never the other way round
        const fewer = Object.entries(src.modelspace).filter(([k, n]) => (a.modelspace?.[k] ?? 0) < n);
        const got = {
          name: row.name, how, ok: a.ok, undefined: Object.fromEntries(tooMany),
          modelspace: a.ok && clean ? sorted(a.modelspace) : {}, fewer: a.ok ? fewer : [],
        };
        const want = { name: row.name, how, ok: true, undefined: {}, modelspace: clean ? sorted(src.modelspace) : {}, fewer: [] };
        if (JSON.stringify(got) !== JSON.stringify(want)) failures.push({ got, want, messages: a.messages?.slice(0, 5) });
      }
    });
    expect(failures).toEqual([]);
  });
});
