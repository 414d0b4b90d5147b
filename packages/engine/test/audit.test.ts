// AUDIT: each finding code on a drawing broken by hand, the fix as one undo step, and the fixed
// drawing clean for ezdxf's auditor.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { active, dump, engine, ok } from './helpers.js';
import type { DxfObject, Entity } from '../src/dxf.js';

const python = process.env.LINEWORK_PYTHON ?? '/usr/bin/python3';
const hasEzdxf = existsSync(python) && spawnSync(python, ['-c', 'import ezdxf'], { encoding: 'utf8' }).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'linework-audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('audit', () => {
  it('finds every kind of problem and fixes them in one undo step', async () => {
    const e = engine();
    const hs = (await ok(e, 'entities_create', {
      entities: [
        { type: 'Line', start: [0, 0], end: [1, 0] }, { type: 'Text', value: 't', position: [0, 0], height: 1 },
        { type: 'Point', location: [0, 0] }, { type: 'Circle', center: [0, 0], radius: 1 }, { type: 'Point', location: [2, 2] },
      ],
    })).handles;
    await ok(e, 'block_define', { name: 'B', handles: [hs[4]] });
    const [ins] = (await ok(e, 'entities_create', { entities: [{ type: 'Insert', name: 'B', position: [0, 0] }] })).handles;
    await ok(e, 'group_create', { name: 'G', handles: [hs[2], hs[3]] });
    const doc = active(e).doc;
    const line = doc.get(hs[0]) as Entity;
    line.attrs.layer = 'GHOST';
    line.attrs.linetype = 'NOPE';
    (doc.get(hs[1]) as Entity).attrs.style = 'NOSTYLE';
    (doc.get(hs[2]) as Entity).owner = 'ABCDE';
    (doc.get(ins) as Entity).attrs.name = 'MISSING';
    const group = doc.objects.find((o) => o.type === 'GROUP')!;
    (group.attrs.handles as string[]).push('FFFFFF');
    const root = doc.objects[0] as DxfObject;
    (root.attrs.entries as { name: string; handle: string; code: number }[]).push({ name: 'DEAD', handle: 'EEEEEE', code: 350 });
    const before = dump(doc);
    const a = await ok(e, 'audit', {});
    expect(a.counts).toEqual({
      missing_layer: 1, missing_linetype: 1, missing_style: 1, bad_owner: 1, missing_block: 1, broken_group: 1, broken_dictionary: 1,
    });
    expect(dump(doc)).toBe(before);
    const f = await ok(e, 'audit', { fix: true });
    expect(f).toMatchObject({ fixed: 7, remaining: 0 });
    expect((await ok(e, 'audit', {})).count).toBe(0);
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
    await ok(e, 'redo');
    expect((await ok(e, 'audit', {})).count).toBe(0);
    if (hasEzdxf) {
      const p = join(dir, 'fixed.dxf');
      await ok(e, 'save', { path: p });
      const r = spawnSync(python, [new URL('./ezdxf_audit.py', import.meta.url).pathname, p], { encoding: 'utf8' });
      const out = JSON.parse(r.stdout);
      expect(out, out.messages.join('; ')).toMatchObject({ errors: 0, fixes: 0 });
    }
  });

  it('finds duplicate handles', async () => {
    const e = engine();
    const [a, b] = (await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [0, 0] }, { type: 'Point', location: [1, 0] }] })).handles;
    const doc = active(e).doc;
    const tb = doc.tables.get('LAYER')!.entries[0]!;
    const eb = doc.get(b) as Entity;
    // a second record under an existing handle (as a damaged file can have)
    eb.handle = tb.handle;
    const r = await ok(e, 'audit', {});
    expect(r.counts.duplicate_handle).toBe(1);
    void a;
  });
});

describe('audit: the checks of ezdxf\'s auditor', () => {
  it('finds record-level problems, fixes them in one step, and ezdxf then fixes nothing', async () => {
    const e = engine();
    const hs = (await ok(e, 'entities_create', {
      entities: [
        { type: 'Circle', center: [0, 0], radius: 1 }, { type: 'Line', start: [0, 0], end: [1, 0] },
        { type: 'Ellipse', center: [5, 0], major_axis: [2, 0], ratio: 0.5, start_param: 0.5, end_param: 2 },
        { type: 'Leader', vertices: [[0, 0], [3, 3]] }, { type: 'Point', location: [9, 9] },
      ],
    })).handles;
    await ok(e, 'group_create', { name: 'G', handles: [hs[4]] });
    const doc = active(e).doc;
    (doc.get(hs[0]) as Entity).attrs.extrusion = [0, 0, 0];
    (doc.get(hs[1]) as Entity).attrs.transparency = 5;
    // The same ellipse described from its minor axis (ratio 2), as some writers leave it.
    const el = doc.get(hs[2]) as Entity;
    el.attrs.major_axis = [0, 1, 0];
    el.attrs.ratio = 2;
    el.attrs.start_param = 0.5 + Math.PI / 2;
    el.attrs.end_param = 2 + Math.PI / 2;
    (doc.get(hs[3]) as Entity).attrs.vertices = [[0, 0, 0]];
    // The group's only entity is gone: the group is empty.
    const group = doc.objects.find((o) => o.type === 'GROUP')!;
    group.attrs.handles = ['FFFFF0'];
    // A dictionary entry that names another owner, and an object whose owner does not exist.
    const root = doc.objects[0] as DxfObject;
    const entry = doc.get((root.attrs.entries as { handle: string }[])[0]!.handle)!;
    entry.owner = 'ABCDEF';
    doc.addObject({ kind: 'object', type: 'IDBUFFER', handle: '', owner: 'ABCDEE', attrs: {}, extra: { '': [[100, 'AcDbIdBuffer']] } });
    // An old file's REPEAT: not a graphical entity.
    const repeat = doc.addEntity({ kind: 'entity', type: 'REPEAT', handle: '', owner: '', attrs: { layer: '0' }, extra: { '': [[8, '0']] } }, '*Model_Space');
    const a = await ok(e, 'audit', {});
    expect(a.counts).toMatchObject({
      invalid_extrusion: 1, invalid_transparency: 1, invalid_ellipse: 1, invalid_vertex_count: 1, empty_group: 1,
      dictionary_entry_owner: 1, invalid_owner: 1, not_graphical: 1,
    });
    const f = await ok(e, 'audit', { fix: true });
    expect(f.remaining, JSON.stringify((await ok(e, 'audit', {})).findings)).toBe(0);
    // The swapped ellipse is the same curve: its major axis is the old minor one's length.
    const fixedEl = active(e).doc.get(hs[2]) as Entity;
    expect(fixedEl.attrs.ratio).toBeCloseTo(0.5, 12);
    const ax = fixedEl.attrs.major_axis as number[];
    expect(Math.hypot(ax[0]!, ax[1]!)).toBeCloseTo(2, 12);
    expect(fixedEl.attrs.start_param).toBeCloseTo(0.5, 12);
    expect(fixedEl.attrs.end_param).toBeCloseTo(2, 12);
    expect(active(e).doc.get(hs[3])).toBeUndefined();
    expect(active(e).doc.get(repeat.handle)).toBeUndefined();
    await ok(e, 'undo');
    expect((await ok(e, 'audit', {})).count).toBe(a.count);
    await ok(e, 'redo');
    if (hasEzdxf) {
      const p = join(dir, 'fixed-records.dxf');
      await ok(e, 'save', { path: p });
      const r = spawnSync(python, [new URL('./ezdxf_audit.py', import.meta.url).pathname, p], { encoding: 'utf8' });
      const out = JSON.parse(r.stdout);
      expect(out, out.messages.join('; ')).toMatchObject({ errors: 0, fixes: 0 });
    }
  });

  it('reports what reading repaired, and a damaged file as an error that no fix removes', async () => {
    const e = engine();
    const whole = join(dir, 'whole.dxf');
    await ok(e, 'entities_create', { entities: Array.from({ length: 40 }, (_, i) => ({ type: 'MText', value: `line ${i}`, position: [0, i], height: 1 })) });
    await ok(e, 'save', { path: whole });
    const bytes = readFileSync(whole);
    const cut = join(dir, 'cut.dxf');
    // Cut inside the ENTITIES section: the last MTEXT is not known to be whole.
    const at = bytes.indexOf('ENTITIES') + 4000;
    writeFileSync(cut, bytes.subarray(0, at));
    await ok(e, 'document_open', { path: cut });
    const a = await ok(e, 'audit', {});
    expect(a.counts.damaged_input).toBeGreaterThan(0);
    expect(a.counts.read_repair).toBeGreaterThan(0);
    const f = await ok(e, 'audit', { fix: true });
    expect(f.remaining).toBe(a.counts.damaged_input);
  });
});

describe('audit of files cut short or with handles mixed up', () => {
  /** A drawing with a second sheet holding a circle, saved; its text. */
  async function sheets(): Promise<{ e: ReturnType<typeof engine>; text: string }> {
    const e = engine();
    await ok(e, 'entities_create', { entities: [{ type: 'Line', start: [0, 0], end: [10, 0] }] });
    await ok(e, 'layout_create', { name: 'Sheet 2' });
    await ok(e, 'entities_create', { layout: 'Sheet 2', entities: [{ type: 'Circle', center: [50, 50], radius: 20 }] });
    const p = join(dir, 'sheets.dxf');
    await ok(e, 'save', { path: p });
    return { e, text: readFileSync(p, 'latin1') };
  }

  /** Opens `text`, audits, fixes, saves; the fixed drawing's layouts and ezdxf's audit of it. */
  async function fixed(e: ReturnType<typeof engine>, text: string, name: string): Promise<{ counts: Record<string, number>; layouts: string[]; ezdxf?: { errors: number; fixes: number; messages: string[] } }> {
    const p = join(dir, `${name}.dxf`);
    writeFileSync(p, text, 'latin1');
    await ok(e, 'document_open', { path: p });
    const a = await ok(e, 'audit', {});
    const f = await ok(e, 'audit', { fix: true });
    expect(f.remaining, JSON.stringify((await ok(e, 'audit', {})).findings)).toBe(0);
    const out = join(dir, `${name}-fixed.dxf`);
    await ok(e, 'save', { path: out });
    const layouts = (await ok(e, 'layout_list', {})).layouts as string[];
    if (!hasEzdxf) return { counts: a.counts, layouts };
    const r = spawnSync(python, [new URL('./ezdxf_audit.py', import.meta.url).pathname, out], { encoding: 'utf8' });
    return { counts: a.counts, layouts, ezdxf: JSON.parse(r.stdout) };
  }

  it('gives a drawing without OBJECTS the objects of a new drawing and every sheet its tab', async () => {
    const { e, text } = await sheets();
    const at = text.indexOf('  0\nSECTION\n  2\nOBJECTS\n');
    const r = await fixed(e, text.slice(0, at) + '  0\nEOF\n', 'no-objects');
    expect(r.counts).toMatchObject({ missing_objects: 1 });
    expect(r.layouts).toEqual(['Model', 'Layout1', 'Layout2']);
    // the second sheet's circle is still on a sheet (ezdxf would have deleted that paper space)
    const circles = (await ok(e, 'entities_list', { layout: 'Layout2', types: ['CIRCLE'] })).entities;
    expect(circles).toHaveLength(1);
    if (r.ezdxf) expect(r.ezdxf, r.ezdxf.messages.join('; ')).toMatchObject({ errors: 0, fixes: 0 });
  });

  it('gives back a lost LAYOUT under its name, a lost default plot style, and takes the entries that name no object out of dictionaries', async () => {
    const { e, text } = await sheets();
    const drop = (t: string, type: string, which: (rec: string) => boolean): string => {
      const parts = t.split('\n  0\n');
      return parts.filter((rec) => !(rec.startsWith(`${type}\n`) && which(rec))).join('\n  0\n');
    };
    let broken = drop(text, 'LAYOUT', (rec) => rec.includes('\n  1\nSheet 2\n'));
    broken = drop(broken, 'ACDBPLACEHOLDER', () => true);
    const r = await fixed(e, broken, 'lost-layout');
    expect(r.counts).toMatchObject({ missing_layout: 1, missing_default: 1 });
    expect(r.counts.broken_dictionary).toBeGreaterThanOrEqual(2);
    expect(r.layouts).toContain('Sheet 2');
    if (r.ezdxf) expect(r.ezdxf, r.ezdxf.messages.join('; ')).toMatchObject({ errors: 0, fixes: 0 });
  });

  it('puts owners right where a handle was used twice: a table entry, a BLOCK, a LAYOUT naming a record that is gone, a dictionary naming a table entry', async () => {
    const { e } = await sheets();
    const doc = active(e).doc;
    const layerTable = doc.tables.get('LAYER')!;
    const ltypeTable = doc.tables.get('LTYPE')!;
    layerTable.entries[0]!.owner = ltypeTable.head.handle;
    ltypeTable.head.owner = layerTable.head.handle;
    const sheet = doc.layouts().find((l) => l.name === 'Sheet 2')!;
    sheet.block.block.owner = 'ABCDE1';
    const layout = doc.get(sheet.handle)!;
    layout.attrs.block_record_handle = 'ABCDE2';
    const root = doc.objects[0] as DxfObject;
    (root.attrs.entries as { name: string; handle: string; code: number }[]).push({ name: 'MIXED', handle: layerTable.entries[0]!.handle, code: 350 });
    const p = join(dir, 'mixed.dxf');
    await ok(e, 'save', { path: p });
    const r = await fixed(e, readFileSync(p, 'latin1'), 'mixed-fixed');
    expect(r.counts).toMatchObject({ bad_owner: 3, missing_layout: 1, broken_dictionary: 1 });
    expect(r.layouts).toContain('Sheet 2');
    if (r.ezdxf) expect(r.ezdxf, r.ezdxf.messages.join('; ')).toMatchObject({ errors: 0, fixes: 0 });
  });
});

describe('audit --fix: what it keeps rather than erases', () => {
  it('draws a DIMENSION\'s missing *D block again with dimension_create\'s generator, the same block it made', async () => {
    const e = engine();
    const [c] = (await ok(e, 'entities_create', { entities: [{ type: 'Circle', center: [50, 0], radius: 5 }] })).handles;
    const specs = [
      { type: 'linear', points: [[0, 0], [10, 0]], position: [5, 6] },
      { type: 'aligned', points: [[0, 0], [8, 6]], position: [0, 8] },
      { type: 'radius', handle: c, position: [58, 4] },
      { type: 'diameter', handle: c, position: [53, 2] },
      { type: 'angular', points: [[20, 0], [30, 0], [20, 10]], position: [26, 5] },
      { type: 'ordinate', points: [[12, 7]], position: [12, 15] },
    ];
    const dims: string[] = [];
    for (const s of specs) dims.push((await ok(e, 'dimension_create', s)).created[0]);
    const doc = active(e).doc;
    /** The drawn content of a dimension's block: types and rounded coordinates. */
    const content = (h: string) => {
      const b = doc.getBlock(String((doc.get(h) as Entity).attrs.geometry))!;
      return b.entities.map((x) => `${x.type} ${JSON.stringify(x.attrs, (_k, v) => (typeof v === 'number' ? Math.round(v * 1e6) / 1e6 : v))}`).sort();
    };
    const drawn = dims.map(content);
    const names = dims.map((h) => String((doc.get(h) as Entity).attrs.geometry));
    for (const n of names) doc.removeBlock(n);
    const a = await ok(e, 'audit', {});
    expect(a.counts).toEqual({ missing_dimension_block: dims.length });
    const f = await ok(e, 'audit', { fix: true });
    expect(f).toMatchObject({ fixed: dims.length, remaining: 0 });
    // every dimension is still there, drawing what it drew before
    for (let i = 0; i < dims.length; i++) {
      expect(doc.get(dims[i]!), specs[i]!.type).toBeDefined();
      expect(content(dims[i]!), specs[i]!.type).toEqual(drawn[i]);
    }
    expect((await ok(e, 'audit', {})).count).toBe(0);
    if (hasEzdxf) {
      const p = join(dir, 'fixed-dims.dxf');
      await ok(e, 'save', { path: p });
      const r = spawnSync(python, [new URL('./ezdxf_audit.py', import.meta.url).pathname, p], { encoding: 'utf8' });
      const out = JSON.parse(r.stdout);
      expect(out, out.messages.join('; ')).toMatchObject({ errors: 0, fixes: 0 });
    }
  });

  it('erases a DIMENSION whose definition points define nothing to draw', async () => {
    const e = engine();
    const [h] = (await ok(e, 'dimension_create', { type: 'linear', points: [[0, 0], [10, 0]], position: [5, 6] })).created;
    const doc = active(e).doc;
    const dim = doc.get(h) as Entity;
    doc.removeBlock(String(dim.attrs.geometry));
    dim.attrs.defpoint3 = dim.attrs.defpoint2;
    await ok(e, 'audit', { fix: true });
    expect(doc.get(h)).toBeUndefined();
  });

  it('gives a DIMENSION that names a missing dimension style Standard, as ezdxf\'s auditor does', async () => {
    const e = engine();
    const [h] = (await ok(e, 'dimension_create', { type: 'linear', points: [[0, 0], [10, 0]], position: [5, 6] })).created;
    const doc = active(e).doc;
    (doc.get(h) as Entity).attrs.dimstyle = 'GONE';
    expect((await ok(e, 'audit', {})).counts).toEqual({ missing_dimstyle: 1 });
    await ok(e, 'audit', { fix: true });
    expect((await ok(e, 'audit', {})).count).toBe(0);
    if (hasEzdxf) {
      const p = join(dir, 'fixed-dimstyle.dxf');
      await ok(e, 'save', { path: p });
      const r = spawnSync(python, [new URL('./ezdxf_audit.py', import.meta.url).pathname, p], { encoding: 'utf8' });
      const out = JSON.parse(r.stdout);
      expect(out, out.messages.join('; ')).toMatchObject({ errors: 0, fixes: 0 });
    }
  });

  it('reads an ELLIPSE written without its AcDbEllipse marker as an ellipse: the ratio check sees it, and --fix writes it whole', async () => {
    // As in ezdxf's duplicate_handles.dxf: AcDbEntity, then the ellipse's groups unmarked, ratio > 1.
    const tags: Array<[number, string]> = [
      [0, 'SECTION'], [2, 'HEADER'], [9, '$ACADVER'], [1, 'AC1015'], [0, 'ENDSEC'],
      [0, 'SECTION'], [2, 'ENTITIES'],
      [0, 'ELLIPSE'], [5, '110'], [100, 'AcDbEntity'], [8, '0'], [62, '15'],
      [10, '-97.6'], [20, '0'], [30, '0'], [11, '24.7'], [21, '0'], [31, '0'], [40, '1.0095'], [41, '3.14159'], [42, '4.71239'],
      [0, 'ENDSEC'], [0, 'EOF'],
    ];
    const file = join(dir, 'unmarked-ellipse.dxf');
    writeFileSync(file, tags.map(([code, v]) => `${code}\n${v}\n`).join(''));
    const e = engine();
    await ok(e, 'document_open', { path: file });
    const el = active(e).doc.modelSpace().entities.find((x) => x.type === 'ELLIPSE')!;
    expect(el.attrs).toMatchObject({ center: [-97.6, 0, 0], major_axis: [24.7, 0, 0], ratio: 1.0095 });
    // (the file is a minimal one: reading adds the tables it lacks, findings of their own)
    expect((await ok(e, 'audit', {})).counts.invalid_ellipse).toBe(1);
    await ok(e, 'audit', { fix: true });
    const out = join(dir, 'unmarked-ellipse-fixed.dxf');
    await ok(e, 'save', { path: out });
    const text = readFileSync(out, 'latin1');
    expect(text).toMatch(/100\r?\nAcDbEllipse\r?\n/);
    if (hasEzdxf) {
      const r = spawnSync(python, [new URL('./ezdxf_audit.py', import.meta.url).pathname, out], { encoding: 'utf8' });
      const res = JSON.parse(r.stdout);
      expect(res, res.messages.join('; ')).toMatchObject({ errors: 0, fixes: 0 });
    }
  });
});

describe('undo of the remaining mutations', () => {
  it('page_setup, purge, copy-to restore the documents exactly', async () => {
    const e = engine();
    await ok(e, 'layout_create', { name: 'S1' });
    let before = dump(active(e).doc);
    await ok(e, 'page_setup', { layout: 'S1', paper: 'A2', orientation: 'portrait', fit: false, scale: '1:50', margins: 5 });
    expect(dump(active(e).doc)).not.toBe(before);
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
    await ok(e, 'command', { cmd: '-LAYER N X,Y' });
    before = dump(active(e).doc);
    const p = await ok(e, 'purge', { types: ['layers'] });
    expect(p.purged.layers).toEqual(['X', 'Y']);
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
    const src = (await ok(e, 'entities_create', { entities: [{ type: 'Circle', center: [0, 0], radius: 1 }] })).handles;
    await ok(e, 'document_open', {});
    const target = e.documents.get(2)!;
    const tBefore = dump(target.doc);
    await ok(e, 'entities_copy_to', { handles: src, document_id: 2, source_document_id: 1 });
    expect(dump(target.doc)).not.toBe(tBefore);
    await ok(e, 'undo', { document_id: 2 });
    expect(dump(target.doc)).toBe(tBefore);
  });
});
