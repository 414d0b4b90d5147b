// The symbols every drawing has (layer 0, ByBlock/ByLayer/Continuous, Standard text and
// dimension styles, the space block records), added on reading with `standardSymbols` only.
import { describe, expect, it } from 'vitest';
import { readDxfSync, writeDxf } from '../src/index.js';

const ENTITIES_ONLY = ['  0', 'SECTION', '  2', 'ENTITIES', '  0', 'LINE', '  8', 'WALL', ' 10', '0', ' 20', '0', ' 30', '0', ' 11', '1', ' 21', '1', ' 31', '0', '  0', 'ENDSEC', '  0', 'EOF', ''].join('\n');
const STANDARD = [['LAYER', '0'], ['LTYPE', 'ByBlock'], ['LTYPE', 'ByLayer'], ['LTYPE', 'Continuous'], ['STYLE', 'Standard'], ['DIMSTYLE', 'Standard']] as const;

describe('standard symbols', () => {
  it('a plain read keeps the file as it is', () => {
    const doc = readDxfSync(Buffer.from(ENTITIES_ONLY));
    expect(doc.getTableEntry('LAYER', '0')).toBeUndefined();
    expect(doc.diagnostics.filter((d) => d.code === 'missing-symbol')).toEqual([]);
  });

  it('standardSymbols adds what the file lacks, one diagnostic each, and writing keeps them', () => {
    const doc = readDxfSync(Buffer.from(ENTITIES_ONLY), { standardSymbols: true, assignHandles: true });
    for (const [table, name] of STANDARD) expect(doc.getTableEntry(table, name), `${table} ${name}`).toBeDefined();
    expect(doc.diagnostics.filter((d) => d.code === 'missing-symbol')).toHaveLength(STANDARD.length);
    const back = readDxfSync(Buffer.from(writeDxf(doc)));
    for (const [table, name] of STANDARD) expect(back.getTableEntry(table, name), `${table} ${name} written`).toBeDefined();
    // a file that has them gets nothing
    const again = readDxfSync(Buffer.from(writeDxf(doc)), { standardSymbols: true });
    expect(again.diagnostics.filter((d) => d.code === 'missing-symbol')).toEqual([]);
  });

  it('R2000 on: model and paper space have their block records', () => {
    const doc = readDxfSync(Buffer.from(['  0', 'SECTION', '  2', 'HEADER', '  9', '$ACADVER', '  1', 'AC1015', '  0', 'ENDSEC', ENTITIES_ONLY].join('\n')), { standardSymbols: true });
    const ms = doc.modelSpace();
    const record = doc.getTableEntry('BLOCK_RECORD', ms.name)!;
    expect(record).toBeDefined();
    expect(ms.block.owner).toBe(record.handle);
    expect(doc.getTableEntry('BLOCK_RECORD', doc.paperSpace().name)).toBeDefined();
  });
});
