// `linework info` counts and boxes most entities as they are scanned (reader/entity-summary.ts):
// what it says must be what a full reading says, on every drawing; where the reading repaired
// anything, the summary does not stand and the file is read again whole.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { documentInfo, infoCommand, newDocument, readDxfSync, writeDxf } from '../src/index.js';
import { EntitySummary } from '../src/reader/entity-summary.js';

const line = (layer: string, x: number): Record<string, unknown> => ({ layer, start: [x, 0, 0], end: [x + 5, 3, 0] });

/** A drawing with every type the summary counts, and others beside them, in model and paper space. */
function drawing(): Buffer {
  const doc = newDocument();
  const mark = doc.addBlock('MARK', [1, 1, 0]);
  doc.addEntity({ kind: 'entity', type: 'CIRCLE', handle: '', owner: '', attrs: { layer: '0', center: [0, 0, 0], radius: 0.5 } }, mark.name);
  doc.addEntity({ kind: 'entity', type: 'ATTDEF', handle: '', owner: '', attrs: { layer: '0', insert: [0, 0, 0], height: 1, text: 'x', tag: 'T', prompt: 'T' } }, mark.name);
  const add = (type: string, attrs: Record<string, unknown>, block?: string): void => {
    doc.addEntity({ kind: 'entity', type, handle: '', owner: '', attrs }, block);
  };
  add('LINE', line('0', 0));
  add('POINT', { layer: '0', location: [-40, 7, 2] });
  add('CIRCLE', { layer: '0', center: [3, 3, 0], radius: 2 });
  // an OCS circle: its box comes from the tilted plane
  add('CIRCLE', { layer: '0', center: [3, 3, 1], radius: 2, extrusion: [0, 0.6, 0.8] });
  add('ARC', { layer: '0', center: [10, 10, 0], radius: 4, start_angle: 30, end_angle: 200 });
  add('TEXT', { layer: '0', insert: [1, 1, 0], height: 2.5, text: 'Größe ±1', rotation: 15 });
  add('TEXT', { layer: '0', insert: [1, 1, 0], align_point: [20, 1, 0], halign: 2, height: 1, text: 'right' });
  add('LWPOLYLINE', { layer: '0', flags: 1, points: [[0, 0, 0, 0, 0], [4, 0, 0, 0, 0.5], [4, 4, 0, 0, 0]] });
  // tilted: boxed through its full geometry, so read as always
  add('LWPOLYLINE', { layer: '0', flags: 0, extrusion: [0, 0, -1], points: [[0, 0, 0, 0, 0], [-60, 2, 0, 0, 0]] });
  add('INSERT', { layer: '0', name: 'MARK', insert: [100, 50, 0], rotation: 30, xscale: 2 });
  add('INSERT', { layer: '0', name: 'MARK', insert: [0, 0, 0], column_count: 3, row_count: 2, column_spacing: 5, row_spacing: 5 });
  add('ELLIPSE', { layer: '0', center: [0, -30, 0], major_axis: [10, 0, 0], ratio: 0.5 });
  add('MTEXT', { layer: '0', insert: [0, 80, 0], height: 2, text: 'note' });
  const ins = doc.addEntity({ kind: 'entity', type: 'INSERT', handle: '', owner: '', attrs: { layer: '0', name: 'MARK', insert: [-70, -70, 0], attribs_follow: 1 } });
  ins.children = [{ kind: 'entity', type: 'ATTRIB', handle: '', owner: '', attrs: { layer: '0', insert: [-90, -70, 0], height: 3, text: 'wide attribute', tag: 'T' } }];
  ins.seqend = { kind: 'entity', type: 'SEQEND', handle: '', owner: '', attrs: { layer: '0' } };
  doc.ensureHandles();
  for (const c of [...ins.children, ins.seqend]) c.owner = ins.handle;
  for (let i = 0; i < 50; i++) add('LINE', line(`L${i % 3}`, i * 2));
  // paper space: counted for its layout, not in the model's extents
  add('LINE', { ...line('0', 500), paperspace: 1 }, '*Paper_Space');
  add('CIRCLE', { layer: '0', center: [900, 900, 0], radius: 1, paperspace: 1 }, '*Paper_Space');
  return writeDxf(doc);
}

/** `info` of the bytes read whole, and read with a summary (which must stand and count something). */
function both(bytes: Uint8Array): { full: unknown; summarized: unknown; summary: EntitySummary } {
  const full = documentInfo(readDxfSync(bytes), 'f');
  const summary = new EntitySummary();
  const doc = readDxfSync(bytes, { lazy: true, summary });
  return { full, summarized: summary.trustworthy(doc) ? documentInfo(doc, 'f', summary) : null, summary };
}

const canonical = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe('the entity summary of info', () => {
  it('says what a full reading says, having counted most entities without records', () => {
    const bytes = drawing();
    const { full, summarized, summary } = both(bytes);
    expect(summarized).not.toBeNull();
    expect(canonical(summarized)).toEqual(canonical(full));
    const f = full as { entities: number; layouts: { name: string; entities: number }[] };
    expect(f.layouts.find((l) => l.name === 'Layout1')?.entities).toBe(2);
    // the ellipse, the MTEXT, the MINSERT, the tilted polyline and the INSERT with an ATTRIB are
    // read as always, as is the block's content (a CIRCLE and an ATTDEF)
    expect(summary.total).toBe(f.entities - 5 - 2);
  });

  it('stands for CRLF files and binary DXF too', () => {
    const text = drawing().toString('latin1');
    for (const bytes of [Buffer.from(text.replace(/\n/g, '\r\n'), 'latin1'), writeDxf(readDxfSync(drawing()), { binary: true })]) {
      const { full, summarized, summary } = both(bytes);
      expect(summary.total).toBeGreaterThan(50);
      expect(canonical(summarized)).toEqual(canonical(full));
    }
  });

  it('does not stand where the reading repaired anything', () => {
    const text = drawing().toString('latin1');
    // a LINE with the handle of the first dictionary, read after it
    const dict = /\n {2}0\nDICTIONARY\n {2}5\n([0-9A-F]+)\n/.exec(text)![1]!;
    const lineAt = text.lastIndexOf('\n  0\nLINE\n  5\n');
    const handleEnd = text.indexOf('\n', lineAt + 14);
    const dup = text.slice(0, lineAt + 14) + dict + text.slice(handleEnd);
    // two LINEs with one handle
    const firstLine = /\n {2}0\nLINE\n {2}5\n([0-9A-F]+)\n/.exec(text)![1]!;
    const twice = text.slice(0, lineAt + 14) + firstLine + text.slice(handleEnd);
    // the file cut inside ENTITIES
    const cut = text.slice(0, lineAt + 30);
    for (const damaged of [dup, twice, cut]) {
      const bytes = Buffer.from(damaged, 'latin1');
      const summary = new EntitySummary();
      const doc = readDxfSync(bytes, { lazy: true, summary });
      expect(summary.total).toBeGreaterThan(0);
      expect(summary.trustworthy(doc)).toBe(false);
    }
    // where nothing was repaired, a record with an unusual handle spelling does not break it
    const lower = text.slice(0, lineAt + 14) + text.slice(lineAt + 14, handleEnd).toLowerCase() + text.slice(handleEnd);
    const { full, summarized } = both(Buffer.from(lower, 'latin1'));
    expect(canonical(summarized)).toEqual(canonical(full));
  });

  it('says what a full reading says of damaged copies too (lines dropped or doubled, handles reused, the file cut short)', () => {
    const text = drawing().toString('latin1');
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let compared = 0;
    for (let k = 0; k < 120; k++) {
      const lines = text.split('\n');
      const handles = lines.flatMap((l, i) => (l.trim() === '5' ? [i + 1] : []));
      switch (k % 5) {
        case 0: lines.splice(rnd(lines.length), 1); break;
        case 1: { const i = rnd(lines.length); lines.splice(i, 0, lines[i]!); break; }
        case 2: lines.splice(rnd(lines.length - 1), 2); break;
        case 3: lines[handles[rnd(handles.length)]!] = lines[handles[rnd(handles.length)]!]!; break;
        default: lines.length = rnd(lines.length);
      }
      const bytes = Buffer.from(lines.join('\n'), 'latin1');
      let full: unknown;
      try {
        full = documentInfo(readDxfSync(bytes), 'f');
      } catch {
        // what a full reading refuses, a summarizing one refuses too
        expect(() => readDxfSync(bytes, { lazy: true, summary: new EntitySummary() })).toThrow();
        continue;
      }
      const summary = new EntitySummary();
      const doc = readDxfSync(bytes, { lazy: true, summary });
      if (!summary.trustworthy(doc)) continue;
      expect(canonical(documentInfo(doc, 'f', summary)), `copy ${k}`).toEqual(canonical(full));
      compared++;
    }
    expect(compared).toBeGreaterThan(20);
  });

  describe('through `linework info`', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lw-summary-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    async function info(file: string): Promise<unknown> {
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (c: Buffer) => chunks.push(c));
      const code = await infoCommand([file, '--json'], { stdout: out, stderr: new PassThrough() });
      expect(code).toBe(0);
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    }

    it('reads a damaged file again whole: its repairs and counts are the full reading\'s', async () => {
      const text = drawing().toString('latin1');
      const firstLine = /\n {2}0\nLINE\n {2}5\n([0-9A-F]+)\n/.exec(text)![1]!;
      const lineAt = text.lastIndexOf('\n  0\nLINE\n  5\n');
      const twice = text.slice(0, lineAt + 14) + firstLine + text.slice(text.indexOf('\n', lineAt + 14));
      const file = join(dir, 'twice.dxf');
      writeFileSync(file, twice, 'latin1');
      const got = (await info(file)) as { diagnostics: { code: string }[]; entities: number };
      expect(got).toEqual(canonical(documentInfo(readDxfSync(readFileSync(file)), file)));
      expect(got.diagnostics.map((d) => d.code)).toContain('duplicate-handle');
    });

    it.runIf(process.env.LINEWORK_DXF_CORPUS)('says of every corpus file what a full reading says', async () => {
      const corpus = process.env.LINEWORK_DXF_CORPUS!;
      let summarized = 0;
      for (const name of readdirSync(corpus).filter((f) => f.toLowerCase().endsWith('.dxf'))) {
        const file = join(corpus, name);
        const bytes = readFileSync(file);
        let full: unknown;
        try {
          full = documentInfo(readDxfSync(bytes), file);
        } catch {
          continue; // (what a full reading refuses, info refuses too: cli.test.ts)
        }
        expect(await info(file), name).toEqual(canonical(full));
        const { summary } = both(bytes);
        if (summary.total > 0) summarized++;
      }
      expect(summarized).toBeGreaterThan(10);
    });
  });
});
