// The R12 conversion's own parts, without ezdxf or the renderer: a drawer's geometry becomes an
// anonymous block inserted in the entity's place; IMAGE, RAY/XLINE and MESH need no drawer; the
// paper space with content is kept; the report names what R12 cannot hold; dimensions keep their
// text. (packages/server/test/r12-convert.test.ts runs the whole with the renderer, ezdxf and LibreCAD.)
import { describe, expect, it } from 'vitest';
import { BudgetError, convert, newDocument, readDxfSync, writeDxf, type DxfDocument, type Entity, type R12Drawer } from '../src/index.js';

function e(type: string, attrs: Record<string, unknown>): Entity {
  return { kind: 'entity', type, handle: '', owner: '', attrs };
}

/** A drawer that draws every entity it is given as one line, one triangle and one text. */
const drawer: R12Drawer = () => ({
  lines: [{ pts: [0, 0, 10, 0, 10, 5], closed: true }],
  solids: [{ pts: [0, 0, 1, 0, 0, 1], color: 3 }],
  texts: [{ text: 'A', x: 1, y: 2, height: 2.5, rotation: 90, widthFactor: 1, oblique: 0, align: 1 }],
});

function r12(doc: DxfDocument, withDrawer = true): ReturnType<typeof convert> {
  return convert(doc, 'AC1009', withDrawer ? { r12Drawer: drawer } : {});
}

describe('saving as R12 (AutoCAD SAVEAS R12)', () => {
  it('puts what a drawer draws into an anonymous block (flags 1) inserted with the entity\'s handle, layer, colour and linetype', () => {
    const doc = newDocument('R2018');
    doc.addTableEntry('LAYER', 'H', { color: 1 });
    const hatch = doc.addEntity(e('HATCH', { layer: 'H', color: 5, linetype: 'DASHED', pattern_name: 'ANSI31', paths: [] }));
    const res = r12(doc);
    expect(res.converted['HATCH -> INSERT of a block with its geometry']).toBe(1);
    const ins = res.doc.getBlock('$MODEL_SPACE')!.entities.find((x) => x.type === 'INSERT')!;
    expect(ins.handle).toBe(hatch.handle);
    expect(ins.attrs).toMatchObject({ layer: 'H', color: 5, linetype: 'DASHED', insert: [0, 0, 0] });
    const block = res.doc.getBlock(String(ins.attrs.name))!;
    expect(block.name).toMatch(/^\*U\d+$/);
    expect(block.block.attrs.flags).toBe(1);
    // a closed outline: three LINEs; the fill keeps its own colour; content BYBLOCK on layer 0
    expect(block.entities.map((x) => x.type).sort()).toEqual(['LINE', 'LINE', 'LINE', 'SOLID', 'TEXT']);
    for (const x of block.entities) expect(x.attrs.layer).toBe('0');
    expect(block.entities.find((x) => x.type === 'SOLID')!.attrs).toMatchObject({ color: 3, vtx2: [0, 1, 0], vtx3: [0, 1, 0] });
    expect(block.entities.find((x) => x.type === 'LINE')!.attrs).toMatchObject({ color: 0, linetype: 'BYBLOCK' });
    expect(block.entities.find((x) => x.type === 'TEXT')!.attrs).toMatchObject({ text: 'A', rotation: 90, halign: 1, align_point: [1, 2, 0] });
    // the written file reads back with the block and its INSERT
    const back = readDxfSync(writeDxf(res.doc));
    expect(back.getBlock(block.name)!.entities).toHaveLength(5);
    // without a drawer the HATCH is dropped and said so
    expect(r12(doc, false).dropped.HATCH).toBe(1);
  });

  it('an entity its drawer fails on is left out and reported; a work budget stops the save', () => {
    const doc = newDocument('R2018');
    doc.addEntity(e('MLINE', {}));
    const failing: R12Drawer = () => {
      throw new Error('cannot draw');
    };
    expect(convert(doc, 'AC1009', { r12Drawer: failing }).dropped.MLINE).toBe(1);
    const over: R12Drawer = () => {
      throw new BudgetError('expanded_entities', 1, 2, 'over');
    };
    expect(() => convert(doc, 'AC1009', { r12Drawer: over })).toThrow(BudgetError);
  });

  it('numbers its blocks after the drawing\'s own *U blocks', () => {
    const doc = newDocument('R2018');
    doc.addBlock('*U7', [0, 0, 0], { flags: 1 });
    doc.addEntity(e('WIPEOUT', {}));
    const res = r12(doc);
    const ins = res.doc.getBlock('$MODEL_SPACE')!.entities.find((x) => x.type === 'INSERT')!;
    expect(ins.attrs.name).toBe('*U8');
  });

  it('IMAGE: its frame; RAY and XLINE: LINEs within the extents; MESH: a polyface POLYLINE', () => {
    const doc = newDocument('R2018');
    doc.setHeaderTags('$EXTMIN', [[10, '0'], [20, '0'], [30, '0']]);
    doc.setHeaderTags('$EXTMAX', [[10, '100'], [20, '50'], [30, '0']]);
    doc.addEntity(e('IMAGE', { insert: [10, 10, 0], u_pixel: [0.5, 0, 0], v_pixel: [0, 0.5, 0], image_size: [40, 20] }));
    doc.addEntity(e('RAY', { start: [10, 10, 0], unit_vector: [1, 0, 0] }));
    doc.addEntity(e('XLINE', { start: [50, 10, 0], unit_vector: [0, 1, 0] }));
    const mesh = e('MESH', {});
    mesh.extra = {
      '': [[71, '2'], [72, '0'], [91, '0'], [92, '5'],
        [10, '0'], [20, '0'], [30, '0'], [10, '10'], [20, '0'], [30, '0'], [10, '10'], [20, '10'], [30, '0'], [10, '0'], [20, '10'], [30, '0'], [10, '5'], [20, '15'], [30, '3'],
        [93, '10'], [90, '5'], [90, '0'], [90, '1'], [90, '2'], [90, '4'], [90, '3'], [90, '3'], [90, '2'], [90, '4'], [90, '3']],
    };
    doc.addEntity(mesh);
    const res = r12(doc, false);
    const ms = res.doc.getBlock('$MODEL_SPACE')!.entities;
    const frame = res.doc.getBlock(String(ms.find((x) => x.type === 'INSERT')!.attrs.name))!.entities;
    expect(frame.map((x) => [x.attrs.start, x.attrs.end])).toEqual([
      [[10, 10, 0], [30, 10, 0]], [[30, 10, 0], [30, 20, 0]], [[30, 20, 0], [10, 20, 0]], [[10, 20, 0], [10, 10, 0]],
    ]);
    const lines = ms.filter((x) => x.type === 'LINE').map((x) => [x.attrs.start, x.attrs.end]);
    expect(lines).toEqual([[[10, 10, 0], [100, 10, 0]], [[50, 0, 0], [50, 50, 0]]]);
    const pf = ms.find((x) => x.type === 'POLYLINE')!;
    expect(pf.attrs).toMatchObject({ flags: 64, m_count: 5, n_count: 4 });
    const faces = pf.children!.filter((v) => v.attrs.flags === 128).map((v) => [v.attrs.vtx0, v.attrs.vtx1, v.attrs.vtx2, v.attrs.vtx3]);
    // the pentagon as a fan: inner edges invisible (negative); the triangle as it is
    expect(faces).toEqual([[1, 2, -3, undefined], [-1, 3, -5, undefined], [-1, 5, 4, undefined], [3, 5, 4, undefined]]);
    expect(res.dropped).toEqual(expect.not.objectContaining({ IMAGE: expect.anything(), RAY: expect.anything(), MESH: expect.anything() }));
  });

  it('keeps the paper space of the layout with content when the active one is empty, and names the others', () => {
    const doc = newDocument('R2018');
    const sheet = doc.addLayout('Sheet');
    doc.addEntity(e('LINE', { start: [0, 0, 0], end: [270, 0, 0] }), sheet.block.name);
    const poly = doc.addEntity(e('LWPOLYLINE', { points: [[0, 0], [10, 0], [10, 10]], flags: 1 }), sheet.block.name);
    const res = r12(doc);
    expect(res.diagnostics.map((d) => d.message)).toContain('paper space of layout "Sheet" kept: the active layout is empty (R12 has one paper space)');
    expect(Object.keys(res.dropped)).toContain('paper-space layout "Layout1"');
    const paper = res.doc.getBlock('$PAPER_SPACE')!.entities;
    expect(paper.map((x) => x.type)).toEqual(['LINE', 'POLYLINE']);
    const pl = paper[1]!;
    for (const x of [pl, ...pl.children!, pl.seqend!]) expect(x.attrs.paperspace).toBe(1);
    // the source drawing is not touched
    expect(poly.type).toBe('LWPOLYLINE');
    expect(poly.children).toBeUndefined();
  });

  it('names every header variable and attribute R12 cannot hold, lineweights apart', () => {
    const doc = newDocument('R2018');
    doc.addTableEntry('LAYER', 'HEAVY', { color: 3, lineweight: 70 });
    doc.addEntity(e('LINE', { start: [0, 0, 0], end: [1, 0, 0], lineweight: 50, transparency: 0x2000040 }));
    const res = r12(doc);
    const msg = (code: string): string => res.diagnostics.find((d) => d.code === code)?.message ?? '';
    const header = /^(\d+) header variables R12 has no place for, left out: (.*)$/.exec(msg('header-dropped'))!;
    expect(header[2]!.split(', ')).toHaveLength(Number(header[1]));
    expect(header[2]!.split(', ')).toEqual(expect.arrayContaining(['$DIMDEC', '$CELWEIGHT', '$INSUNITS']));
    expect(msg('lineweights-dropped')).toMatch(/^2 lineweights \(layers and entities\) left out: R12 has no lineweight, and AutoCAD's SAVEAS R12 drops them likewise/);
    expect(msg('attributes-dropped')).toMatch(/LAYER lineweight \(370\) x1/);
    expect(msg('attributes-dropped')).toMatch(/LINE lineweight \(370\) x1, LINE transparency \(440\) x1/);
    expect(msg('attributes-dropped')).toMatch(/DIMSTYLE DIMDEC \(271\) x\d/);
  });

  it('gives each dimension whose text is the measurement the text its block shows', () => {
    const doc = newDocument('R2018');
    const blk = doc.addBlock('*D1', [0, 0, 0], { flags: 1 });
    doc.addEntity(e('MTEXT', { insert: [5, 1, 0], char_height: 2.5, text: '\\A1;33.33' }), blk.name);
    doc.addEntity(e('DIMENSION', { geometry: '*D1', dimstyle: 'Standard', defpoint: [0, 0, 0], text_midpoint: [5, 1, 0], dimtype: 32, text: '' }));
    doc.addEntity(e('DIMENSION', { geometry: '*D1', dimstyle: 'Standard', defpoint: [0, 0, 0], text_midpoint: [5, 1, 0], dimtype: 32, text: 'FIXED' }));
    const res = r12(doc);
    const dims = res.doc.getBlock('$MODEL_SPACE')!.entities.filter((x) => x.type === 'DIMENSION');
    expect(dims.map((d) => d.attrs.text)).toEqual(['33.33', 'FIXED']);
    expect(res.converted['dimension text -> text override (R12 DIMSTYLE has no DIMDEC)']).toBe(1);
  });
});

describe('names as R12 holds them', () => {
  const longA = 'Mechanical Details Layer Number One';
  const longB = 'Mechanical Details Layer Number Two';
  function named(): DxfDocument {
    const doc = newDocument('R2018');
    doc.addTableEntry('LTYPE', 'dash dot (fine)', { description: '-.-', items: 0, total_pattern_length: 0 });
    doc.addTableEntry('LAYER', 'Wall Hatch', { color: 1, linetype: 'dash dot (fine)' });
    doc.addTableEntry('LAYER', longA, { color: 2 });
    doc.addTableEntry('LAYER', longB, { color: 3 });
    doc.addTableEntry('LAYER', 'WALL_HATCH', { color: 4 });
    doc.addTableEntry('STYLE', 'Arial narrow', { font: 'arialn.ttf' });
    doc.addTableEntry('APPID', 'My App');
    doc.addBlock('door panel (left)', [0, 0, 0]);
    doc.addEntity(e('LINE', { layer: 'Wall Hatch', start: [0, 0, 0], end: [1, 0, 0] }), 'door panel (left)');
    const ins = doc.addEntity(e('INSERT', { name: 'door panel (left)', layer: 'Wall Hatch', insert: [5, 5, 0] }));
    ins.xdata = [{ app: 'My App', tags: [[1000, 'x'], [1003, 'Wall Hatch']] }];
    doc.addEntity(e('TEXT', { layer: longA, style: 'Arial narrow', text: 'a', insert: [0, 0, 0], height: 1 }));
    doc.addEntity(e('LINE', { layer: longB, linetype: 'dash dot (fine)', start: [0, 0, 0], end: [0, 1, 0] }));
    doc.setHeader('$CLAYER', 'Wall Hatch');
    return doc;
  }

  it('renames what R12 cannot hold (A-Z a-z 0-9 $ _ -, 31 characters, unique without case) and every reference follows; the source keeps its names', () => {
    const doc = named();
    const res = r12(doc);
    const out = res.doc;
    const layers = out.tables.get('LAYER')!.entries.map((l) => String(l.attrs.name));
    for (const n of layers) expect(n).toMatch(/^[A-Za-z0-9$_-]{1,31}$/);
    // WALL_HATCH was already an R12 name: the renamed "Wall Hatch" does not take it
    expect(layers).toContain('WALL_HATCH');
    const wall = layers.find((n) => n.toUpperCase().startsWith('WALL_HATCH') && n !== 'WALL_HATCH')!;
    expect(wall).toBe('Wall_Hatch1');
    const a = layers.find((n) => n.startsWith('Mechanical_Details_Layer_Number') && n.length === 31)!;
    const b = layers.find((n) => n.startsWith('Mechanical_Details_Layer_Numbe') && n !== a)!;
    expect(a).toBe('Mechanical_Details_Layer_Number');
    expect(b).toBe('Mechanical_Details_Layer_Numbe1');
    expect(out.tables.get('LAYER')!.entries.find((l) => l.attrs.name === wall)!.attrs.linetype).toBe('dash_dot__fine_');
    const ms = out.getBlock('$MODEL_SPACE')!.entities;
    const insert = ms.find((x) => x.type === 'INSERT')!;
    expect(insert.attrs).toMatchObject({ name: 'door_panel__left_', layer: wall });
    expect(insert.xdata).toEqual([{ app: 'My_App', tags: [[1000, 'x'], [1003, wall]] }]);
    expect(out.getBlock('door_panel__left_')!.block.attrs.name).toBe('door_panel__left_');
    expect(out.getBlock('door_panel__left_')!.entities[0]!.attrs.layer).toBe(wall);
    expect(ms.find((x) => x.type === 'TEXT')!.attrs).toMatchObject({ layer: a, style: 'Arial_narrow' });
    expect(ms.find((x) => x.type === 'LINE')!.attrs).toMatchObject({ layer: b, linetype: 'dash_dot__fine_' });
    expect(out.getHeader('$CLAYER')).toBe(wall);
    const renames = res.diagnostics.filter((d) => d.code === 'r12-name').map((d) => d.message).join('\n');
    expect(renames).toContain(`"Wall Hatch" -> ${wall}`);
    expect(renames).toContain('"door panel (left)" -> door_panel__left_');
    // the source drawing is not touched
    expect(doc.getBlock('door panel (left)')).toBeDefined();
    expect(doc.tables.get('LAYER')!.entries.some((l) => l.attrs.name === 'Wall Hatch')).toBe(true);
    expect(doc.getBlock('*Model_Space')!.entities.find((x) => x.type === 'INSERT')!.attrs.layer).toBe('Wall Hatch');
    // written and read back, the references still resolve
    const back = readDxfSync(writeDxf(out));
    const backIns = back.getBlock('$MODEL_SPACE')!.entities.find((x) => x.type === 'INSERT')!;
    expect(back.getBlock(String(backIns.attrs.name))).toBeDefined();
    expect(back.tables.get('LAYER')!.entries.some((l) => l.attrs.name === backIns.attrs.layer)).toBe(true);
  });

  it('a drawing whose names all fit is left as it is (case kept)', () => {
    const doc = newDocument('R2018');
    doc.addTableEntry('LAYER', 'Walls');
    const res = r12(doc);
    expect(res.diagnostics.filter((d) => d.code === 'r12-name')).toEqual([]);
    expect(res.doc.tables.get('LAYER')!.entries.map((l) => l.attrs.name)).toContain('Walls');
  });
});

describe('names beyond ASCII in R12', () => {
  it('keeps letters of other scripts (R12 in Japanese AutoCAD had Japanese names); spaces still go', () => {
    const doc = newDocument('R2018');
    doc.addTableEntry('LAYER', '非表示画層');
    doc.addTableEntry('LAYER', 'pálená vrstva');
    const names = convert(doc, 'AC1009').doc.tables.get('LAYER')!.entries.map((l) => l.attrs.name);
    expect(names).toContain('非表示画層');
    expect(names).toContain('pálená_vrstva');
  });
});
