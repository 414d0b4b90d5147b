// DXF fidelity where it used to break (issue 14): binary group-code ranges, handle references
// across a renumbering, R2018 -> R12, damaged input, dxflib polylines, undeclared code pages and
// header variables after a stray ENDSEC. Each case is compared through ezdxf's view of the files
// (ezdxf_view.py: every record as ezdxf would write it, handles replaced by what they point to).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertCommand, newDocument, readDxfSync, readTags, writeDxf, writeDxfWithResult, type CommandIO } from '../src/index.js';
import type { Entity, Tag } from '../src/types.js';
import { ValueKind, valueKind } from '../src/tags/group-codes.js';
import type { DxfDocument } from '../src/document.js';
import { binaryDxf, binaryTagOffsets, dxf, ezdxfR12, ezdxfView, skipWithoutEzdxf, viewDifferences, type ViewCategory, scratchDir } from './helpers.js';
import { normalize } from './normalize.js';

const HERE = new URL('./fixtures/', import.meta.url).pathname;
const ALL: ViewCategory[] = ['entities', 'tables', 'blocks', 'objects', 'xdata', 'header'];
const out = scratchDir('lw-fidelity-');

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

describe('6. dxflib polylines, undeclared code pages, header variables after a stray ENDSEC', () => {
  const HEAD: [number, string | number][] = [[0, 'SECTION'], [2, 'HEADER'], [9, '$ACADVER'], [1, 'AC1015'], [0, 'ENDSEC']];

  it.skipIf(skipWithoutEzdxf())('an LWPOLYLINE with a 30 code per vertex (dxflib) keeps every vertex; code 90 is not trusted', () => {
    const vertex = (x: number, y: number): [number, number][] => [[10, x], [20, y], [30, 0]];
    const src = temp('dxflib-lwpolyline.dxf', dxf([
      ...HEAD, [0, 'SECTION'], [2, 'ENTITIES'],
      [0, 'LWPOLYLINE'], [5, '30'], [100, 'AcDbEntity'], [8, '0'], [100, 'AcDbPolyline'], [90, 6], [70, 1],
      ...[[0, 0], [10, 0], [10, 5], [5, 8], [0, 5], [-2, 2]].flatMap(([x, y]) => vertex(x!, y!)),
      // a count that says one vertex fewer than there are
      [0, 'LWPOLYLINE'], [5, '31'], [100, 'AcDbEntity'], [8, '0'], [100, 'AcDbPolyline'], [90, 2], [70, 0],
      [10, 20], [20, 0], [10, 30], [20, 0], [10, 30], [20, 9],
      [0, 'ENDSEC'], [0, 'EOF'],
    ]));
    const doc = readDxfSync(readFileSync(src));
    const [a, b] = doc.modelSpace().entities;
    expect((a!.attrs.points as number[][]).map((p) => p.slice(0, 2))).toEqual([[0, 0], [10, 0], [10, 5], [5, 8], [0, 5], [-2, 2]]);
    expect(b!.attrs.points).toHaveLength(3);
    const bytes = writeDxf(doc);
    expect(bytes.toString('latin1')).toContain(' 90\n6\n 70\n1\n 10\n0.0\n 20\n0.0\n 30\n0.0\n 10\n10.0\n');
    const [r] = ezdxfView([{ original: src, written: temp('dxflib-lwpolyline-ours.dxf', bytes) }]);
    expect(viewDifferences(r!, ['entities'])).toEqual([]);
  });

  it.skipIf(skipWithoutEzdxf())('text of a file without $DWGCODEPAGE keeps its bytes (Shift-JIS stays Shift-JIS)', () => {
    // 文字、。 and a layer named 図面: Shift-JIS bytes, among them 0x81 and 0x90, which cp1252 lacks
    const sjis = (s: string): string => Buffer.from(s, 'hex').toString('latin1');
    const text = sjis('95b68e9a8141814220') + 'abc';
    const layer = sjis('907d96ca');
    const src = temp('sjis-undeclared.dxf', dxf([
      [0, 'SECTION'], [2, 'HEADER'], [9, '$ACADVER'], [1, 'AC1015'], [0, 'ENDSEC'],
      [0, 'SECTION'], [2, 'TABLES'], [0, 'TABLE'], [2, 'LAYER'], [70, 1],
      [0, 'LAYER'], [5, '10'], [100, 'AcDbSymbolTableRecord'], [100, 'AcDbLayerTableRecord'], [2, layer], [70, 0], [62, 7], [6, 'CONTINUOUS'],
      [0, 'ENDTAB'], [0, 'ENDSEC'],
      [0, 'SECTION'], [2, 'ENTITIES'],
      [0, 'TEXT'], [5, '20'], [100, 'AcDbEntity'], [8, layer], [100, 'AcDbText'], [10, 0], [20, 0], [30, 0], [40, 2.5], [1, text], [100, 'AcDbText'],
      [0, 'ENDSEC'], [0, 'EOF'],
    ]));
    const original = readFileSync(src);
    const bytes = writeDxf(readDxfSync(original));
    for (const s of [text, layer]) expect(bytes.includes(Buffer.from(s, 'latin1'))).toBe(true);
    expect(bytes.toString('latin1')).not.toContain('\\U+');
    // the code page stays unknown, as the file had it
    expect(bytes.toString('latin1')).not.toContain('$DWGCODEPAGE');
    const [r] = ezdxfView([{ original: src, written: temp('sjis-undeclared-ours.dxf', bytes) }]);
    expect(viewDifferences(r!, ['entities', 'tables'])).toEqual([]);
  });

  it.skipIf(skipWithoutEzdxf())('header variables after a stray ENDSEC are kept, as ezdxf recovers them', () => {
    const src = temp('stray-endsec.dxf', dxf([
      [0, 'SECTION'], [2, 'ENTITIES'],
      [0, 'LINE'], [8, '0'], [10, 0], [20, 0], [30, 0], [11, 10], [21, 5], [31, 0],
      [0, 'ENDSEC'],
      [9, '$EXTMIN'], [10, -1099.5], [20, 686.5375], [30, 0],
      [9, '$EXTMAX'], [10, 0], [20, 1463.4625], [30, 0],
      [0, 'ENDSEC'],
      [0, 'SECTION'], [2, 'ENTITIES'], [0, 'CIRCLE'], [8, '0'], [10, 1], [20, 1], [30, 0], [40, 2], [0, 'ENDSEC'],
      [0, 'EOF'],
    ]));
    const doc = readDxfSync(readFileSync(src));
    expect(doc.getHeader('$EXTMIN')).toEqual([-1099.5, 686.5375, 0]);
    expect(doc.getHeader('$EXTMAX')).toEqual([0, 1463.4625, 0]);
    expect(doc.diagnostics.map((d) => d.code)).toContain('header-outside-section');
    const [r] = ezdxfView([{ original: src, written: temp('stray-endsec-ours.dxf', writeDxf(doc)) }]);
    expect(viewDifferences(r!, ['entities', 'header'])).toEqual([]);
  });
});

describe('2. handle references follow a renumbering', () => {
  it.skipIf(skipWithoutEzdxf())('R12 -> R2018: xdata 1005 still points at the CIRCLE it pointed at', () => {
    const src = HERE + 'r12_handles.dxf';
    const doc = readDxfSync(fixture('r12_handles.dxf'));
    const line = doc.modelSpace().entities.find((e) => e.type === 'LINE')!;
    const circle = doc.modelSpace().entities.find((e) => e.type === 'CIRCLE')!;
    expect(line.xdata![0]!.tags).toContainEqual([1005, circle.handle]);
    const up = readDxfSync(writeDxf(doc, { version: 'R2018' }));
    const upLine = up.modelSpace().entities.find((e) => e.type === 'LINE')!;
    const ref = upLine.xdata![0]!.tags.find((t) => t[0] === 1005)![1];
    expect(up.get(ref)?.type).toBe('CIRCLE');
    const ours = temp('r12-handles-r2018.dxf', writeDxf(doc, { version: 'R2018' }));
    const [r] = ezdxfView([{ original: src, written: ours, as_version: 'AC1032' }]);
    expect(r!.written_audit).toEqual([0, 0]);
    expect(viewDifferences(r!, ['entities', 'xdata'])).toEqual([]);
  });

  it.skipIf(skipWithoutEzdxf())('handles given anew on reading: group members, dictionary entries, reactors, 340 and 1005 follow', () => {
    // the same drawing twice: with good handles, and with two of them not hex ("Z1", "Z2")
    const drawing = (line: string, xrec: string): Buffer => dxf([
      [0, 'SECTION'], [2, 'HEADER'], [9, '$ACADVER'], [1, 'AC1015'], [9, '$HANDSEED'], [5, '100'], [0, 'ENDSEC'],
      [0, 'SECTION'], [2, 'ENTITIES'],
      [0, 'LINE'], [5, line], [102, '{ACAD_REACTORS'], [330, 'A0'], [102, '}'], [100, 'AcDbEntity'], [8, '0'],
      [100, 'AcDbLine'], [10, 0], [20, 0], [30, 0], [11, 10], [21, 0], [31, 0],
      [0, 'CIRCLE'], [5, '50'], [100, 'AcDbEntity'], [8, '0'], [100, 'AcDbCircle'], [10, 0], [20, 0], [30, 0], [40, 3],
      [1001, 'ACAD'], [1000, 'points at the line'], [1005, line],
      [0, 'ENDSEC'],
      [0, 'SECTION'], [2, 'OBJECTS'],
      [0, 'DICTIONARY'], [5, 'C'], [330, '0'], [100, 'AcDbDictionary'], [281, 1],
      [3, 'ACAD_GROUP'], [350, 'D'], [3, 'LINEWORK_DATA'], [350, xrec],
      [0, 'DICTIONARY'], [5, 'D'], [330, 'C'], [100, 'AcDbDictionary'], [281, 1], [3, 'G1'], [350, 'A0'],
      [0, 'GROUP'], [5, 'A0'], [102, '{ACAD_REACTORS'], [330, 'D'], [102, '}'], [330, 'D'], [100, 'AcDbGroup'],
      [300, 'the line'], [70, 0], [71, 1], [340, line],
      [0, 'XRECORD'], [5, xrec], [330, 'C'], [100, 'AcDbXrecord'], [280, 1], [340, line], [1, 'data'],
      [0, 'ENDSEC'], [0, 'EOF'],
    ]);
    const good = temp('renumber-good.dxf', drawing('40', 'B0'));
    const broken = readDxfSync(drawing('Z1', 'Z2'));
    expect(broken.diagnostics.filter((d) => d.code === 'invalid-handle')).toHaveLength(2);
    const line = broken.modelSpace().entities[0]!;
    const group = broken.objects.find((o) => o.type === 'GROUP')!;
    expect(group.attrs.handles).toEqual([line.handle]);
    const ours = temp('renumber-ours.dxf', writeDxf(broken));
    const [r] = ezdxfView([{ original: good, written: ours }]);
    expect(viewDifferences(r!, ['entities', 'objects', 'xdata'])).toEqual([]);
  });
});

describe('3. R2018 -> R12 keeps what R12 can express', () => {
  it('converts LWPOLYLINE, MTEXT (in blocks and *D blocks too), true colours and VIEWPORTs and says so', () => {
    const doc = readDxfSync(fixture('r2018_to_r12.dxf'));
    const res = writeDxfWithResult(doc, { version: 'R12' });
    expect(res.converted).toEqual({
      'LWPOLYLINE -> POLYLINE': 5,
      'MTEXT -> TEXT': 4,
      'true colour -> nearest ACI colour': 3,
      'VIEWPORT -> R12 VIEWPORT (MVIEW xdata)': 1,
      'dimension text -> text override (R12 DIMSTYLE has no DIMDEC)': 1,
    });
    // dropped: only what R12 has no form for (a HATCH needs a drawer: the engine's renderer)
    expect(res.dropped).toEqual({ HATCH: 1, 'objects (OBJECTS section)': 48, 'classes (CLASSES section)': 15 });
    expect(res.diagnostics.filter((d) => d.code === 'converted')).toHaveLength(5);
    const r12 = readDxfSync(res.buffer);
    const dim = r12.getBlock('*D1')!.entities.map((e) => e.type);
    expect(dim).toContain('TEXT');
    expect(dim).not.toContain('MTEXT');
    // the source drawing is untouched
    expect(doc.modelSpace().entities.filter((e) => e.type === 'LWPOLYLINE')).toHaveLength(2);
  });

  it.skipIf(skipWithoutEzdxf())('ezdxf loads the R12 file and reads the same polylines, texts, viewport views and nearest colours', () => {
    const ours = temp('r2018-to-r12.dxf', writeDxf(readDxfSync(fixture('r2018_to_r12.dxf')), { version: 'R12' }));
    const r = ezdxfR12(HERE + 'r2018_to_r12.dxf', ours);
    expect(r.version).toBe('AC1009');
    expect(r.converted.polylines).toEqual(r.original.polylines);
    expect(r.converted.texts).toEqual(r.original.texts);
    expect(r.converted.texts['*D1']).toEqual(['1000']);
    expect(r.viewports_r12.length).toBeGreaterThan(0);
    for (const vp of r.viewports_r12) expect(vp.ours).toEqual(vp.ezdxf);
    expect(r.colors).toHaveLength(3);
    for (const c of r.colors) expect(c.aci).toBe(c.nearest);
    // ezdxf 0.18 gives each POLYLINE and INSERT in a block of an R12 file a SEQEND it then deletes
    // (its own R12 files get the same fix); nothing else
    expect(r.audit[0]).toBe(0);
    for (const m of r.audit_messages) expect(m).toMatch(/Deleted SEQEND\(#[0-9A-F]+\) entity with invalid owner handle #None/);
  });
});

describe('5. damaged input: what is whole is kept, the rest dropped with an error, the output loads in ezdxf', () => {
  /** A drawing whose ENTITIES hold a SPLINE between other records. */
  function drawing(): Buffer {
    const doc = newDocument('R2018');
    const e = (type: string, attrs: Record<string, unknown>): Entity => ({ kind: 'entity', type, handle: '', owner: '', attrs: { layer: '0', ...attrs } });
    doc.addEntity(e('LINE', { start: [0, 0, 0], end: [10, 0, 0] }));
    doc.addEntity(e('SPLINE', {
      degree: 3, flags: 8, knots: [0, 0, 0, 0, 0.5, 1, 1, 1, 1], weights: [],
      control_points: [[0, 0, 0], [2, 4, 0], [4, -2, 0], [6, 5, 0], [8, 0, 0]], fit_points: [],
    }));
    const pl = e('POLYLINE', { flags: 0 });
    pl.children = [[0, 0], [1, 1], [2, 0], [3, 1]].map(([x, y]) => e('VERTEX', { location: [x, y, 0] }));
    doc.addEntity(pl);
    doc.addEntity(e('CIRCLE', { center: [5, 5, 0], radius: 2 }));
    doc.addEntity(e('LWPOLYLINE', { points: [[0, 0, 0, 0, 0], [4, 0, 0, 0, 0], [4, 4, 0, 0, 0]], flags: 1 }));
    return writeDxf(doc);
  }

  function entitiesRange(text: string): [number, number] {
    const start = text.indexOf('ENTITIES\n');
    return [start, text.indexOf('ENDSEC\n', start)];
  }

  it('a file cut inside a SPLINE keeps the records before it and drops the SPLINE with an error', () => {
    const full = drawing();
    const text = full.toString('latin1');
    const cut = text.indexOf('\nSPLINE\n') + 250;
    const doc = readDxfSync(full.subarray(0, cut));
    expect(doc.modelSpace().entities.map((x) => x.type)).toEqual(['LINE']);
    const errors = doc.diagnostics.filter((d) => d.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/SPLINE .*dropped/);
    // the cut inside the POLYLINE's vertices drops the POLYLINE: it is not whole
    const inVertices = readDxfSync(full.subarray(0, text.indexOf('\nVERTEX\n', text.indexOf('\nVERTEX\n') + 1) + 20));
    expect(inVertices.modelSpace().entities.map((x) => x.type)).toEqual(['LINE', 'SPLINE']);
  });

  it.skipIf(skipWithoutEzdxf())('ezdxf loads what is written from a file cut anywhere in ENTITIES, ASCII or binary', () => {
    const ascii = drawing();
    const [from, to] = entitiesRange(ascii.toString('latin1'));
    const binary = binaryDxf(readTags(ascii).tags);
    const bFrom = binary.indexOf(Buffer.from('ENTITIES\0', 'latin1'));
    const bTo = binary.indexOf(Buffer.from('ENDSEC\0', 'latin1'), bFrom);
    const pairs: { original: string; written: string }[] = [];
    const cuts: string[] = [];
    for (const [bytes, a, b, kind] of [[ascii, from, to, 'ascii'], [binary, bFrom, bTo, 'binary']] as const) {
      for (let k = 1; k <= 12; k++) {
        const cut = a + Math.floor(((b - a) * k) / 13);
        const doc = readDxfSync(bytes.subarray(0, cut));
        expect(doc.diagnostics.some((d) => d.level === 'error'), `${kind} cut at ${cut}`).toBe(true);
        const p = temp(`cut-${kind}-${k}.dxf`, writeDxf(doc));
        pairs.push({ original: p, written: p });
        cuts.push(`${kind} cut at ${cut}`);
      }
    }
    const results = ezdxfView(pairs);
    const failed = results.flatMap((r, i) => (r.written_error ? [`${cuts[i]}: ${r.written_error}`] : []));
    expect(failed).toEqual([]);
  });

  it.skipIf(skipWithoutEzdxf())('a corrupted group code in a binary file: no records of made-up types, the damage reported, ezdxf loads the output', () => {
    const good = fixture('codes_r2018_binary.dxf');
    const tags = binaryTagOffsets(good);
    const first = tags.findIndex((t) => t.code === 2 && t.value === 'ENTITIES');
    const last = tags.findIndex((t, i) => i > first && t.code === 0 && t.value === 'ENDSEC');
    const pairs: { original: string; written: string }[] = [];
    const names: string[] = [];
    const plausible = /^[A-Z0-9_$*][A-Z0-9_$*-]*$/;
    let damaged = 0;
    for (let i = first + 1; i < last; i += 3) {
      for (const [byte, x] of [[0, 0x20], [0, 0x80], [1, 0x01]] as const) {
        const b = Buffer.from(good);
        const at = tags[i]!.at + byte;
        b[at] = b[at]! ^ x;
        const name = `code ${tags[i]!.code} -> ${b.readUInt16LE(tags[i]!.at)} at byte ${tags[i]!.at}`;
        const doc = readDxfSync(b);
        // the damage is placed where it is, and reading resumes after it
        for (const d of doc.diagnostics) {
          const hit = /at byte (\d+)/.exec(d.message);
          if (d.code === 'corrupt' && d.level === 'error' && hit) expect(Number(hit[1]), `${name}: ${d.message}`).toBeGreaterThanOrEqual(tags[i]!.at);
          const resumed = /resumes at byte (\d+), (-?\d+) bytes after/.exec(d.message);
          if (resumed) expect(Number(resumed[2]), `${name}: ${d.message}`).toBeGreaterThan(0);
        }
        const types = [...doc.blocks.values()].flatMap((bl) => bl.entities.map((e) => e.type)).concat(doc.objects.map((o) => o.type));
        for (const t of types) expect(t, name).toMatch(plausible);
        if (doc.diagnostics.some((d) => d.level === 'error')) damaged++;
        // ASCII out: ezdxf's recover mode, which puts up with what the damage left, reads no binary DXF
        const p = temp(`corrupt-${i}-${byte}-${x}.dxf`, writeDxf(doc, { binary: false }));
        pairs.push({ original: p, written: p });
        names.push(name);
      }
    }
    expect(damaged).toBeGreaterThan(0);
    const failed = ezdxfView(pairs).flatMap((r, i) => (r.written_error ? [`${names[i]}: ${r.written_error}`] : []));
    expect(failed).toEqual([]);
  });
});

describe('5. linework convert and damaged input', () => {
  function sinks(): { io: CommandIO; err: () => string } {
    let e = '';
    const stdout = new Writable({ write: (_d: Buffer, _enc, done) => done() });
    const stderr = new Writable({ write: (d: Buffer, _enc, done) => ((e += d.toString()), done()) });
    return { io: { stdout, stderr }, err: () => e };
  }

  it.skipIf(skipWithoutEzdxf())('exits 1 and writes nothing for a damaged file; with --recover writes what was whole, which ezdxf loads', async () => {
    const full = fixture('codes_r2018_ascii.dxf');
    const text = full.toString('latin1');
    const cut = temp('cut.dxf', full.subarray(0, text.indexOf('\nHATCH\n') + 100));
    const outPath = join(out, 'cut-out.dxf');
    const a = sinks();
    expect(await convertCommand([cut, outPath, '--version', 'R2000'], a.io)).toBe(1);
    expect(a.err()).toMatch(/error: .*HATCH.*dropped/);
    expect(a.err()).toContain('--recover');
    expect(existsSync(outPath)).toBe(false);
    const b = sinks();
    expect(await convertCommand([cut, outPath, '--version', 'R2000', '--recover'], b.io)).toBe(0);
    expect(readDxfSync(readFileSync(outPath)).modelSpace().entities.map((e) => e.type)).toEqual(['CIRCLE', 'LINE']);
    const [r] = ezdxfView([{ original: outPath, written: outPath }]);
    expect(r!.written_error).toBeUndefined();
    // an undamaged file converts as before
    const c = sinks();
    expect(await convertCommand([HERE + 'codes_r2018_binary.dxf', join(out, 'fine.dxf')], c.io)).toBe(0);
    expect(c.err()).not.toContain('error:');
  });
});

describe('AcDbEntity attributes a writer puts after the next subclass marker', () => {
  it.skipIf(skipWithoutEzdxf())('layer and colour before AcDbEntity or after the next marker stay the entity\'s, as ezdxf reads them', () => {
    const src = temp('misplaced-layer.dxf', dxf([
      [0, 'SECTION'], [2, 'HEADER'], [9, '$ACADVER'], [1, 'AC1015'], [0, 'ENDSEC'],
      [0, 'SECTION'], [2, 'BLOCKS'],
      [0, 'BLOCK'], [5, '20'], [100, 'AcDbEntity'], [8, '0'], [100, 'AcDbBlockBegin'], [2, 'B1'], [70, 0], [10, 0], [20, 0], [30, 0], [3, 'B1'], [1, ''],
      [0, 'LINE'], [5, '21'], [100, 'AcDbEntity'], [8, '0'], [100, 'AcDbLine'], [10, 0], [20, 0], [30, 0], [11, 1], [21, 1], [31, 0],
      [0, 'ENDBLK'], [5, '22'], [100, 'AcDbEntity'], [8, '0'], [100, 'AcDbBlockEnd'],
      [0, 'ENDSEC'],
      [0, 'SECTION'], [2, 'ENTITIES'],
      // as skydxf's writer has them: an empty AcDbEntity, its attributes after AcDbBlockReference
      [0, 'INSERT'], [5, '30'], [100, 'AcDbEntity'], [100, 'AcDbBlockReference'], [8, 'boxes'], [62, 3], [6, 'ByLayer'],
      [2, 'B1'], [10, 5], [20, 5], [30, 0],
      // before the AcDbEntity marker
      [0, 'LWPOLYLINE'], [5, '31'], [8, 'boxes'], [62, 4], [100, 'AcDbEntity'], [100, 'AcDbPolyline'], [90, 2], [70, 0],
      [10, 0], [20, 0], [10, 5], [20, 5],
      // after the marker of a subclass read by a codec
      [0, 'MTEXT'], [5, '32'], [100, 'AcDbEntity'], [100, 'AcDbMText'], [8, 'boxes'], [62, 5], [10, 1], [20, 1], [30, 0],
      [40, 2.5], [71, 1], [1, 'text'],
      [0, 'ENDSEC'], [0, 'EOF'],
    ]));
    const doc = readDxfSync(readFileSync(src));
    expect(doc.modelSpace().entities.map((e) => [e.attrs.layer, e.attrs.color])).toEqual([['boxes', 3], ['boxes', 4], ['boxes', 5]]);
    const [r] = ezdxfView([{ original: src, written: temp('misplaced-layer-ours.dxf', writeDxf(doc)) }]);
    expect(viewDifferences(r!, ['entities'])).toEqual([]);
  });
});
