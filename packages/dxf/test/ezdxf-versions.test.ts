// Files ezdxf writes in each DXF version read back right (generated at test time).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newDocument, readDxfSync, writeDxf } from '../src/index.js';
import { ezdxfCompare, ezdxfWrite, skipWithoutEzdxf, scratchDir } from './helpers.js';

const VERSIONS: [string, string][] = [
  ['R12', 'AC1009'], ['R2000', 'AC1015'], ['R2004', 'AC1018'], ['R2007', 'AC1021'], ['R2010', 'AC1024'], ['R2013', 'AC1027'], ['R2018', 'AC1032'],
];

describe.skipIf(skipWithoutEzdxf())('files written by ezdxf', () => {
  const dir = scratchDir('lw-ezdxf-');
  for (const [release, acadver] of VERSIONS) {
    it(`reads and rewrites ezdxf's ${release}`, () => {
      const src = join(dir, `${release}.dxf`);
      ezdxfWrite(release, src);
      const doc = readDxfSync(readFileSync(src));
      expect(doc.version).toBe(acadver);
      expect(doc.diagnostics.filter((d) => d.level !== 'info')).toEqual([]);
      const ms = doc.modelSpace().entities;
      const types = ms.map((e) => e.type);
      expect(types.slice(0, 5)).toEqual(['LINE', 'CIRCLE', 'ARC', 'TEXT', 'POLYLINE']);
      expect(ms[0]!.attrs).toMatchObject({ layer: 'Walls', start: [0, 0, 0], end: [10, 5, 0] });
      expect(ms[3]!.attrs.text).toBe('Hello äöü');
      expect(ms.at(-1)!.xdata).toEqual([{ app: 'ACAD', tags: [[1000, 'xdata']] }]);
      expect(doc.getBlock('DOOR')!.entities).toHaveLength(1);
      const out = join(dir, `${release}-linework.dxf`);
      const bytes = writeDxf(doc);
      writeFileSync(out, bytes);
      const [r] = ezdxfCompare([{ original: src, written: out }]);
      expect(r!.written_audit).toEqual([0, 0]);
      expect(r!.problems).toEqual([]);
    });
  }
});

describe.skipIf(skipWithoutEzdxf())('files ezdxf audits clean', () => {
  const dir = scratchDir('lw-audit-');
  const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;

  it('new documents and conversions between R12 and R2000+', () => {
    const cases: [string, Buffer][] = [
      ['new-r2018.dxf', writeDxf(newDocument())],
      ['new-r2000.dxf', writeDxf(newDocument('R2000'))],
      ['new-r2010.dxf', writeDxf(newDocument('AC1024'))],
      ['new-r12.dxf', writeDxf(newDocument('R12'))],
      ['r12-to-r2018.dxf', writeDxf(readDxfSync(readFileSync(FIXTURES + 'r12_ascii.dxf')), { version: 'R2018' })],
      ['r12bin-to-r2000.dxf', writeDxf(readDxfSync(readFileSync(FIXTURES + 'r12_binary.dxf')), { version: 'R2000' })],
      ['r2018-to-r12.dxf', writeDxf(readDxfSync(readFileSync(FIXTURES + 'r2018.dxf')), { version: 'R12' })],
      ['r2018-to-r2004.dxf', writeDxf(readDxfSync(readFileSync(FIXTURES + 'r2018.dxf')), { version: 'R2004' })],
    ];
    const pairs = cases.map(([name, bytes]) => {
      writeFileSync(join(dir, name), bytes);
      return { original: join(dir, name), written: join(dir, name) };
    });
    const audits = ezdxfCompare(pairs).map((r) => [r.written.split('/').at(-1), r.written_error ?? r.written_audit, r.written_fix_messages]);
    expect(audits).toEqual(cases.map(([name]) => [name, [0, 0], []]));
  });
});
