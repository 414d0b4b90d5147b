// Same-version round trips keep what the file said: handles spelled in lower case stay so (their
// references too), and a $ACADVER the library reads as another version (AC2.10 as AC1009) is
// written back as it was; a conversion writes the target's $ACADVER.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDxfSync, writeDxf } from '@linework/dxf';

const fixture = new URL('./fixtures/handles_as_spelled.dxf', import.meta.url).pathname;
const lines = (b: Buffer) => b.toString('latin1').split('\n').map((l) => l.trim());
/** The value after each `5` group code. */
const handles = (b: Buffer) => lines(b).flatMap((l, i, all) => (l === '5' && i % 2 === 0 ? [all[i + 1]!] : []));

describe('handles and $ACADVER as the file said', () => {
  it('keeps lower-case handles lower case and upper-case ones upper case', () => {
    const doc = readDxfSync(readFileSync(fixture));
    expect(doc.modelSpace().entities.map((e) => e.handle)).toEqual(['2A', '2B']);
    const out = writeDxf(doc);
    expect(handles(out)).toEqual(expect.arrayContaining(['2a', '2B']));
    expect(handles(out)).not.toContain('2A');
  });

  it('keeps $ACADVER AC2.10 on a same-version round trip, and writes AC1015 converting to R2000', () => {
    const doc = readDxfSync(readFileSync(fixture));
    expect(doc.version).toBe('AC1009');
    const same = lines(writeDxf(doc));
    expect(same[same.indexOf('$ACADVER') + 2]).toBe('AC2.10');
    const up = lines(writeDxf(doc, { version: 'R2000' }));
    expect(up[up.indexOf('$ACADVER') + 2]).toBe('AC1015');
    // read again, it is still AC2.10
    const again = lines(writeDxf(readDxfSync(writeDxf(doc))));
    expect(again[again.indexOf('$ACADVER') + 2]).toBe('AC2.10');
  });
});

/** An R12 file as the Leica DISTO and dxflib write them: tables whose entries have no handles (a DIMSTYLE with an empty one), entities with lower-case handles, some after the AcDbEntity marker. */
function partialTablesR12(): Buffer {
  const tags: Array<[number, string]> = [
    [0, 'SECTION'], [2, 'HEADER'], [9, '$ACADVER'], [1, 'AC1009'], [9, '$HANDSEED'], [5, '7c5'], [0, 'ENDSEC'],
    [0, 'SECTION'], [2, 'TABLES'],
    [0, 'TABLE'], [2, 'LAYER'], [70, '1'], [0, 'LAYER'], [2, 'PTS'], [70, '0'], [62, '7'], [6, 'CONTINUOUS'], [0, 'ENDTAB'],
    [0, 'TABLE'], [2, 'DIMSTYLE'], [70, '1'], [0, 'DIMSTYLE'], [105, ''], [2, 'Standard'], [70, '0'], [0, 'ENDTAB'],
    [0, 'ENDSEC'],
    [0, 'SECTION'], [2, 'ENTITIES'],
    [0, 'POINT'], [5, '6a'], [100, 'AcDbEntity'], [8, 'PTS'], [100, 'AcDbPoint'], [10, '1'], [20, '2'], [30, '0'],
    [0, 'LINE'], [100, 'AcDbEntity'], [8, 'PTS'], [62, '256'], [5, '7b'], [100, 'AcDbLine'], [10, '0'], [20, '0'], [30, '0'], [11, '5'], [21, '5'], [31, '0'],
    [0, 'LINE'], [5, '70'], [8, 'PTS'], [10, '1'], [20, '0'], [30, '0'], [11, '2'], [21, '0'], [31, '0'],
    [0, 'CIRCLE'], [8, 'PTS'], [10, '0'], [20, '0'], [30, '0'], [40, '1'],
    [0, 'ENDSEC'], [0, 'EOF'],
  ];
  return Buffer.from(tags.map(([c, v]) => `${c}\n${v}\n`).join(''), 'latin1');
}

/** [type, handle as spelled] of every record that has a handle, in file order (the header's $HANDSEED left out). */
function recordHandles(b: Buffer): Array<[string, string]> {
  const l = lines(b);
  const out: Array<[string, string]> = [];
  let type = '';
  let taken = true;
  for (let i = 0; i + 1 < l.length; i += 2) {
    if (l[i] === '0') {
      type = l[i + 1]!;
      taken = false;
    } else if ((l[i] === '5' || l[i] === '105') && !taken && type !== 'SECTION') {
      out.push([type, l[i + 1]!]);
      taken = true;
    }
  }
  return out;
}

describe('R12 with partial tables: the handles the file has are kept', () => {
  it('keeps every handle where it was, also one written after the AcDbEntity marker, and numbers the others above the highest', () => {
    const input = partialTablesR12();
    const doc = readDxfSync(input);
    expect(doc.modelSpace().entities.map((e) => e.handle)).toEqual(['6A', '7B', '70', expect.any(String)]);
    const out = writeDxf(doc);
    const kept = recordHandles(out).filter(([t]) => ['POINT', 'LINE', 'CIRCLE'].includes(t));
    expect(kept.slice(0, 3)).toEqual([['POINT', '6a'], ['LINE', '7b'], ['LINE', '70']]);
    // the records that had none (table entries, the CIRCLE, the DIMSTYLE's empty one) get new ones above 7c5
    const fresh = recordHandles(out).filter(([t, h]) => !['6a', '7b', '70'].includes(h) && t !== 'BLOCK_RECORD');
    expect(fresh.length).toBeGreaterThan(3);
    for (const [, h] of fresh) expect(parseInt(h, 16)).toBeGreaterThanOrEqual(0x7c5);
    // and a second round trip changes nothing
    expect(recordHandles(writeDxf(readDxfSync(out)))).toEqual(recordHandles(out));
  });

  const corpus = process.env.LINEWORK_DXF_CORPUS;
  const files = ['ezdxf__cc_dxflib.dxf', 'ezdxf__Leica_Disto_S910.dxf'].map((f) => join(corpus ?? '', f));
  it.skipIf(!corpus || !files.every((f) => existsSync(f)))('keeps every handle of the corpus files with partial tables (LINEWORK_DXF_CORPUS)', () => {
    for (const f of files) {
      const input = readFileSync(f);
      const before = recordHandles(input).filter(([, h]) => h !== '');
      const after = recordHandles(writeDxf(readDxfSync(input)));
      // each record with a handle still has it, spelled the same, in the same order
      const afterKept = after.filter(([t, h]) => before.some(([bt, bh]) => bt === t && bh === h));
      expect(afterKept, f).toEqual(before);
    }
  });
});
