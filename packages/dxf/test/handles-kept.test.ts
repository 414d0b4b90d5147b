// Same-version round trips keep what the file said: handles spelled in lower case stay so (their
// references too), and a $ACADVER the library reads as another version (AC2.10 as AC1009) is
// written back as it was; a conversion writes the target's $ACADVER.
import { readFileSync } from 'node:fs';
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
