// The document API the engine works with: handles, owners, tables, blocks, layouts, copies.
import { describe, expect, it } from 'vitest';
import { DxfError, newDocument, readDxfSync, writeDxf } from '../src/index.js';
import type { Entity } from '../src/types.js';

function line(x: number): Entity {
  return { kind: 'entity', type: 'LINE', handle: '', owner: '', attrs: { layer: '0', start: [x, 0, 0], end: [x + 1, 1, 0] } };
}

describe('new documents', () => {
  it('has the standard tables, blocks, layouts and dictionaries', () => {
    const doc = newDocument();
    expect(doc.version).toBe('AC1032');
    expect(doc.getTableEntry('LAYER', '0')).toBeDefined();
    for (const lt of ['ByBlock', 'ByLayer', 'Continuous']) expect(doc.getTableEntry('LTYPE', lt)).toBeDefined();
    expect(doc.getTableEntry('STYLE', 'Standard')).toBeDefined();
    expect(doc.getTableEntry('DIMSTYLE', 'Standard')).toBeDefined();
    expect(doc.getTableEntry('APPID', 'ACAD')).toBeDefined();
    expect(doc.getTableEntry('APPID', 'EZDXF')).toBeUndefined();
    expect(doc.getTableEntry('VPORT', '*Active')).toBeDefined();
    expect(doc.layouts().map((l) => l.name)).toEqual(['Model', 'Layout1']);
    for (const name of ['ACAD_GROUP', 'ACAD_LAYOUT', 'ACAD_PLOTSETTINGS', 'ACAD_PLOTSTYLENAME']) expect(doc.namedDictionary(name)).toBeDefined();
    expect(doc.getHeader('$TDCREATE')).toBeGreaterThan(2459000);
  });

  it('can be R12 or any version from R2000 on', () => {
    expect(newDocument('R12').version).toBe('AC1009');
    expect(newDocument('R12').tables.has('BLOCK_RECORD')).toBe(false);
    expect(newDocument('AC1015').version).toBe('AC1015');
    expect(() => newDocument('R14')).toThrow(DxfError);
  });
});

describe('editing', () => {
  it('adds entities with handles and owners, finds and removes them', () => {
    const doc = newDocument();
    const seed = parseInt(String(doc.getHeader('$HANDSEED')), 16);
    const e = doc.addEntity(line(0));
    expect(parseInt(e.handle, 16)).toBeGreaterThanOrEqual(seed);
    expect(parseInt(String(doc.getHeader('$HANDSEED')), 16)).toBeGreaterThan(parseInt(e.handle, 16));
    expect(doc.get(e.handle)).toBe(e);
    expect(e.owner).toBe(doc.modelSpace().block.owner);
    expect(doc.blockOf(e.handle)).toBe(doc.modelSpace());
    expect(doc.removeEntity(e.handle)).toBe(e);
    expect(doc.get(e.handle)).toBeUndefined();
    expect(doc.modelSpace().entities).toHaveLength(0);
  });

  it('copies: a deep clone with a cleared handle gets a new one and no shared extension dictionary', () => {
    const doc = newDocument();
    const a = doc.addEntity(line(0));
    a.appData = [{ name: 'ACAD_XDICTIONARY', tags: [[360, 'FFF']] }];
    const copy = structuredClone(a);
    copy.handle = '';
    doc.addEntity(copy);
    expect(copy.handle).not.toBe(a.handle);
    expect(copy.appData).toBeUndefined();
    const clash = structuredClone(a);
    doc.addEntity(clash);
    expect(clash.handle).not.toBe(a.handle);
    expect(doc.modelSpace().entities).toHaveLength(3);
  });

  it('gives children and SEQEND handles owned by their parent', () => {
    const doc = newDocument();
    const pl: Entity = {
      kind: 'entity', type: 'POLYLINE', handle: '', owner: '', attrs: { layer: '0', flags: 0 },
      children: [0, 1].map((i) => ({ kind: 'entity' as const, type: 'VERTEX', handle: '', owner: '', attrs: { layer: '0', location: [i, i, 0] } })),
    };
    doc.addEntity(pl);
    expect(pl.seqend?.owner).toBe(pl.handle);
    for (const v of pl.children!) expect(doc.get(v.handle)).toBe(v);
    doc.removeEntity(pl.handle);
    for (const v of pl.children!) expect(doc.get(v.handle)).toBeUndefined();
  });

  it('adds and removes blocks with their block records', () => {
    const doc = newDocument();
    const b = doc.addBlock('Door', [1, 2, 0]);
    doc.addEntity(line(0), 'door');
    const rec = doc.getTableEntry('BLOCK_RECORD', 'Door')!;
    expect(b.block.owner).toBe(rec.handle);
    expect(b.entities[0]!.owner).toBe(rec.handle);
    expect(() => doc.addBlock('DOOR', [0, 0, 0])).toThrow(DxfError);
    const h = b.entities[0]!.handle;
    doc.removeBlock('Door');
    expect(doc.getBlock('Door')).toBeUndefined();
    expect(doc.getTableEntry('BLOCK_RECORD', 'Door')).toBeUndefined();
    expect(doc.get(h)).toBeUndefined();
  });

  it('adds layouts with their LAYOUT object, block record and dictionary entry', () => {
    const doc = newDocument();
    const l = doc.addLayout('Sheet 2');
    expect(doc.layouts().map((x) => x.name)).toEqual(['Model', 'Layout1', 'Sheet 2']);
    expect(l.block.name).toBe('*Paper_Space0');
    const e = doc.addEntity(line(0), l.block.name);
    expect(e.attrs.paperspace).toBe(1);
    const layout = doc.get(l.handle)!;
    expect(layout.attrs.block_record_handle).toBe(doc.getTableEntry('BLOCK_RECORD', '*Paper_Space0')!.handle);
    const again = readDxfSync(writeDxf(doc));
    expect(again.layouts().map((x) => x.name)).toEqual(['Model', 'Layout1', 'Sheet 2']);
    expect(again.getBlock('*Paper_Space0')!.entities).toHaveLength(1);
  });

  it('manages table entries case-insensitively', () => {
    const doc = newDocument();
    const layer = doc.addTableEntry('LAYER', 'Walls', { color: 5 });
    expect(doc.get(layer.handle)).toBe(layer);
    expect(layer.owner).toBe(doc.tables.get('LAYER')!.head.handle);
    expect(() => doc.addTableEntry('LAYER', 'WALLS')).toThrow('exists already');
    expect(doc.getTableEntry('LAYER', 'walls')).toBe(layer);
    doc.removeTableEntry('LAYER', 'walls');
    expect(doc.get(layer.handle)).toBeUndefined();
  });

  it('reads and sets typed header variables', () => {
    const doc = newDocument();
    doc.setHeader('$INSUNITS', 4);
    doc.setHeader('$EXTMIN', [1, 2, 3]);
    doc.setHeader('$PROJECTNAME', 'P');
    const again = readDxfSync(writeDxf(doc));
    expect(again.getHeader('$INSUNITS')).toBe(4);
    expect(again.getHeader('$EXTMIN')).toEqual([1, 2, 3]);
    expect(again.getHeader('$PROJECTNAME')).toBe('P');
    expect(again.getHeader('$NOPE')).toBeUndefined();
  });

  it('gives an R12 drawing without handles handles once the engine needs one', () => {
    const text = writeDxf(newDocument('R12')).toString('latin1');
    const withoutHandles = text.replace(/\n {2}5\n[0-9A-F]+\n/g, '\n').replace(/\n105\n[0-9A-F]+\n/g, '\n').replace('$HANDLING\n 70\n1', '$HANDLING\n 70\n0');
    const r12 = readDxfSync(Buffer.from(withoutHandles, 'latin1'));
    expect(r12.hasHandles).toBe(false);
    const e = r12.addEntity(line(0));
    expect(r12.hasHandles).toBe(true);
    expect(e.handle).not.toBe('');
    expect(r12.modelSpace().block.handle).not.toBe('');
  });
});
