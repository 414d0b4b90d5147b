// DXF fidelity where it used to break (issue 14): binary group-code ranges, handle references
// across a renumbering, R2018 -> R12, damaged input, dxflib polylines, undeclared code pages and
// header variables after a stray ENDSEC. Each case is compared through ezdxf's view of the files
// (ezdxf_view.py: every record as ezdxf would write it, handles replaced by what they point to).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newDocument, readDxfSync, readTags, writeDxf } from '../src/index.js';
import type { Tag } from '../src/types.js';
import { ValueKind, valueKind } from '../src/tags/group-codes.js';
import type { DxfDocument } from '../src/document.js';
import { binaryDxf, ezdxfView, skipWithoutEzdxf, viewDifferences, type ViewCategory } from './helpers.js';
import { normalize } from './normalize.js';

const HERE = new URL('./fixtures/', import.meta.url).pathname;
const ALL: ViewCategory[] = ['entities', 'tables', 'blocks', 'objects', 'xdata', 'header'];
const out = mkdtempSync(join(tmpdir(), 'lw-fidelity-'));

function fixture(name: string): Buffer {
  return readFileSync(HERE + name);
}

/** Writes `bytes` to the temporary folder and returns the path. */
function temp(name: string, bytes: Buffer | string): string {
  const p = join(out, name);
  writeFileSync(p, bytes);
  return p;
}

/** The model as JSON, numbers of numeric tags compared as numbers ("1e+20" and "100000000000000000000" alike). */
function numericModel(doc: DxfDocument): unknown {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) {
      if (v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'string') {
        const kind = valueKind(v[0]);
        return kind === ValueKind.Str || kind === ValueKind.Binary ? v : [v[0], Number(v[1])];
      }
      return v.map(walk);
    }
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(JSON.parse(JSON.stringify(normalize(doc))));
}

describe('1. binary DXF group-code ranges', () => {
  it('reads a binary drawing as the same drawing saved as ASCII', () => {
    const bin = readDxfSync(fixture('codes_r2018_binary.dxf'));
    const ascii = readDxfSync(fixture('codes_r2018_ascii.dxf'));
    expect(bin.diagnostics.filter((d) => d.level !== 'info')).toEqual([]);
    const xrec = (d: DxfDocument) => d.objects.find((o) => o.type === 'XRECORD')!.extra;
    expect(xrec(bin)).toEqual(xrec(ascii));
    expect(numericModel(bin)).toEqual(numericModel(ascii));
  });

  it.skipIf(skipWithoutEzdxf())('ezdxf sees our ASCII of the binary drawing as its own ASCII', () => {
    const ours = temp('codes-from-binary.dxf', writeDxf(readDxfSync(fixture('codes_r2018_binary.dxf'))));
    const [r] = ezdxfView([{ original: HERE + 'codes_r2018_ascii.dxf', written: ours }]);
    expect(r!.written_audit).toEqual([0, 0]);
    expect(viewDifferences(r!, ALL)).toEqual([]);
  });

  it.skipIf(skipWithoutEzdxf())('a line break inside a binary MTEXT value is a paragraph break (\\P), as ezdxf reads it', () => {
    // an MTEXT whose value holds raw line feeds, as AutoCAD's binary DXF carries them
    const src = newDocument('R2018');
    const tags = readTags(writeDxf(src)).tags;
    const at = tags.findIndex((t) => t[0] === 2 && t[1] === 'ENTITIES') + 1;
    const mtext: Tag[] = [
      [0, 'MTEXT'], [5, 'FFF0'], [330, src.modelSpace().block.owner], [100, 'AcDbEntity'], [8, '0'], [100, 'AcDbMText'],
      [10, '1'], [20, '2'], [30, '0'], [40, '2.5'], [71, '1'], [1, 'first\nsecond\r\nthird'],
    ];
    const withMtext = [...tags.slice(0, at), ...mtext, ...tags.slice(at)];
    const binPath = temp('mtext-newline-binary.dxf', binaryDxf(withMtext));
    const doc = readDxfSync(readFileSync(binPath));
    const m = doc.modelSpace().entities.find((e) => e.type === 'MTEXT')!;
    expect(m.attrs.text).toBe('first\\Psecond\\Pthird');
    const ours = temp('mtext-newline-ours.dxf', writeDxf(doc));
    const [r] = ezdxfView([{ original: binPath, written: ours }]);
    expect(viewDifferences(r!, ['entities'])).toEqual([]);
  });
});
