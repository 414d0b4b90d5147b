// Plot options of CAD batch plotting: a scale (1:N), margins, monochrome and AutoCAD's
// colour-dependent plot style tables (.ctb, binary), and many drawings into one PDF.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { dxf } from '../src/dxf.js';
import { plot } from '../src/plot/plot.js';
import { plotCommand } from '../src/plot/cli.js';
import { aciFor, applyPlotStyle, monochromeStyle, readCtb } from '../src/plot/plot-style.js';
import { add, newDoc, pdfPageBoxes } from './render-helpers.js';
import { engine, fails, ok } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'lw-plot-style-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s), isTTY: false, columns: 80 } } };
}

/** Two lines 1000 units long, red (ACI 1) and green (ACI 3), 100 units apart; a blue (ACI 5) circle. */
async function drawing(name = 'lines.dxf'): Promise<string> {
  const doc = await newDoc();
  add(doc, 'LINE', { color: 1, start: [0, 0, 0], end: [1000, 0, 0] });
  add(doc, 'LINE', { color: 3, start: [0, 100, 0], end: [1000, 100, 0] });
  add(doc, 'CIRCLE', { color: 5, center: [500, 50, 0], radius: 20 });
  const file = join(dir, name);
  await dxf.saveDxf(doc, file);
  return file;
}

/** The paths of an SVG page: their colour, stroke width and the page matrix's scale. */
function svgInfo(svg: string): { scale: number; tx: number; ty: number; strokes: Array<{ stroke: string; width: number }> } {
  const m = /<g transform="matrix\(([-\d.e]+) 0 0 ([-\d.e]+) ([-\d.e]+) ([-\d.e]+)\)"/.exec(svg);
  expect(m).not.toBeNull();
  const strokes = [...svg.matchAll(/<path d="[^"]*" stroke="(#[0-9a-f]{6})" stroke-width="([\d.e-]+)"/g)].map((x) => ({ stroke: x[1]!, width: Number(x[2]) }));
  return { scale: Number(m![1]), tx: Number(m![3]), ty: Number(m![4]), strokes };
}

/** A .ctb as AutoCAD writes it: the 60-byte header, then the zlib-compressed text with a NUL at the end. */
function ctbBytes(styles: Record<number, { color?: number; lineweight?: number; color_policy?: number; screen?: number }>): Buffer {
  const lines = ['description="test pens', 'aci_table_available=TRUE', 'scale_factor=1.0', 'apply_factor=FALSE', 'custom_lineweight_display_units=0', 'plot_style{'];
  for (let i = 0; i < 255; i++) {
    const s = styles[i + 1] ?? {};
    lines.push(` ${i}{`, `  name="Color_${i + 1}`, '  localized_name="', '  description="');
    const color = s.color === undefined ? -1006632961 : (0xc2000000 | s.color) | 0;
    lines.push(`  color=${color}`, `  mode_color=${color}`, `  color_policy=${s.color_policy ?? 1}`, '  physical_pen_number=0', '  virtual_pen_number=0');
    lines.push(`  screen=${s.screen ?? 100}`, '  linepattern_size=0.5', '  linetype=31', '  adaptive_linetype=TRUE', `  lineweight=${s.lineweight ?? 0}`);
    lines.push('  fill_style=73', '  end_style=4', '  join_style=5', ' }');
  }
  lines.push('}', 'custom_lineweight_table{');
  const weights = [0, 0.05, 0.09, 0.1, 0.13, 0.15, 0.18, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.53, 0.6, 0.65, 0.7, 0.8, 0.9, 1.0];
  weights.forEach((w, i) => lines.push(` ${i}=${w.toFixed(2)}`));
  lines.push('}', '');
  const text = Buffer.concat([Buffer.from(lines.join('\n'), 'latin1'), Buffer.from([0])]);
  const body = deflateSync(text);
  const head = Buffer.alloc(60);
  head.write('PIAFILEVERSION_2.0,CTBVER1,compress\r\npmzlibcodec', 'latin1');
  head.writeUInt32LE(0, 48);
  head.writeUInt32LE(text.length, 52);
  head.writeUInt32LE(body.length, 56);
  return Buffer.concat([head, body]);
}

describe('plot scale and margins', () => {
  it('plots at 1:100 (1000 units are 10 mm), centred, and at 1:1 warns that the page is cut', async () => {
    const file = await drawing();
    const a = io();
    expect(await plotCommand([file, join(dir, 's.svg'), '--scale', '1:100', '--paper', 'A4', '--margins', '0'], a.io)).toBe(0);
    const s = svgInfo(readFileSync(join(dir, 's.svg'), 'utf8'));
    expect(s.scale).toBeCloseTo(0.01, 12);
    // centre of the extents (500, 50 at 1:100: 5 mm, 0.5 mm) on the centre of the sheet (148.5, 105)
    expect(s.tx + 500 * s.scale).toBeCloseTo(148.5, 6);
    const b = io();
    expect(await plotCommand([file, join(dir, 'big.pdf'), '--scale', '1:1', '--paper', 'A4'], b.io)).toBe(0);
    expect(b.err.join('')).toMatch(/page Model is cut: at the scale asked for the plot area is 1000 x 1\d\d mm and the paper's printable area 287 x 200 mm/);
    const c = io();
    expect(await plotCommand([file, join(dir, 'two.svg'), '--scale', '2:1', '--paper', '2000x1000'], c.io)).toBe(0);
    expect(svgInfo(readFileSync(join(dir, 'two.svg'), 'utf8')).scale).toBeCloseTo(2, 12);
  });

  it('fits inside the margins given', async () => {
    const file = await drawing('m.dxf');
    const a = io();
    expect(await plotCommand([file, join(dir, 'm.svg'), '--paper', 'A4', '--margins', '40,10,10,10'], a.io)).toBe(0);
    const s = svgInfo(readFileSync(join(dir, 'm.svg'), 'utf8'));
    // the 1000-unit width fills 297 - 40 - 10 mm; the left end sits on the 40 mm margin
    expect(1000 * s.scale).toBeCloseTo(247, 0);
    expect(s.tx).toBeCloseTo(40, 0);
  });

  it('refuses a scale, margins or plot style it cannot use, with exit 2', async () => {
    const file = await drawing('bad.dxf');
    for (const [args, message] of [
      [['--scale', '1:0'], /scale takes 1:N/],
      [['--scale', 'big'], /scale takes 1:N/],
      [['--margins', '1,2'], /margins take one number of mm or four/],
      [['--margins', '-3'], /margins take/],
      [['--monochrome', '--ctb', file], /--monochrome and --ctb both choose the pens/],
      [['--ctb', file], /is not a colour-dependent plot style table/],
      [['--ctb', join(dir, 'missing.ctb')], /cannot read the plot style table/],
    ] as Array<[string[], RegExp]>) {
      const a = io();
      expect(await plotCommand([file, join(dir, 'x.pdf'), ...args], a.io)).toBe(2);
      expect(a.err.join('')).toMatch(message);
    }
    expect(existsSync(join(dir, 'x.pdf'))).toBe(false);
  });
});

describe('plot styles', () => {
  it('--monochrome plots every colour black, keeping lineweights', async () => {
    const file = await drawing('mono.dxf');
    expect(await plotCommand([file, join(dir, 'colour.svg'), '--paper', 'A4'], io().io)).toBe(0);
    expect(new Set(svgInfo(readFileSync(join(dir, 'colour.svg'), 'utf8')).strokes.map((s) => s.stroke))).toEqual(new Set(['#ff0000', '#00ff00', '#0000ff']));
    expect(await plotCommand([file, join(dir, 'mono.svg'), '--paper', 'A4', '--monochrome'], io().io)).toBe(0);
    const mono = svgInfo(readFileSync(join(dir, 'mono.svg'), 'utf8'));
    expect(new Set(mono.strokes.map((s) => s.stroke))).toEqual(new Set(['#000000']));
    // same-looking paths merge into one path element: the three entities are its three sub-paths
    const svg = readFileSync(join(dir, 'mono.svg'), 'utf8');
    expect([...svg.matchAll(/<path d="([^"]*)"/g)].reduce((n, m) => n + (m[1]!.match(/M/g)?.length ?? 0), 0)).toBe(3);
  });

  it('reads a binary .ctb: pen colour, lineweight, grayscale and screening by ACI', async () => {
    const ctb = join(dir, 'pens.ctb');
    // ACI 1 plots blue at 0.70 mm (table entry 17); ACI 3 in grayscale; ACI 5 screened to 50 %
    writeFileSync(ctb, ctbBytes({ 1: { color: 0x0000ff, lineweight: 17 }, 3: { color_policy: 3 }, 5: { screen: 50 } }));
    const table = readCtb(readFileSync(ctb), 'pens.ctb');
    expect(table.pens[1]).toEqual({ color: 0x0000ff, grayscale: false, screen: 100, lineweight: 0.7 });
    expect(table.pens[2]).toEqual({ color: null, grayscale: false, screen: 100, lineweight: null });
    const file = await drawing('ctb.dxf');
    expect(await plotCommand([file, join(dir, 'ctb.svg'), '--paper', 'A4', '--ctb', ctb], io().io)).toBe(0);
    const s = svgInfo(readFileSync(join(dir, 'ctb.svg'), 'utf8'));
    const byColour = new Map(s.strokes.map((x) => [x.stroke, x.width * s.scale]));
    // blue at 0.7 mm for the red line; green (0,255,0) in grayscale is 150; blue screened to 50 %
    expect(byColour.get('#0000ff')).toBeCloseTo(0.7, 4);
    expect(byColour.has('#969696')).toBe(true);
    expect(byColour.has('#8080ff')).toBe(true);
    expect(byColour.has('#ff0000')).toBe(false);
  });

  it('takes the pen of the ACI a colour is (lowest index for shared colours, nearest for true colours)', () => {
    expect(aciFor(0xff0000)).toBe(1);
    expect(aciFor(0x000000)).toBe(7);
    expect(aciFor(0xfe0101)).toBe(1);
    const list = { prims: [{ kind: 'path' as const, layer: '0', color: 0xff0000, clip: -1, handle: '1', rings: [[0, 0, 1, 0, 1, 1]], gradient: null, mask: true }], clips: [], layers: ['0'], bounds: { minX: 0, minY: 0, maxX: 1, maxY: 1 }, background: 0xffffff, skipped: {} };
    // a wipeout keeps the paper's colour under any plot style
    expect(applyPlotStyle(list, monochromeStyle()).prims[0]!.color).toBe(0xff0000);
  });

  const python = process.env.LINEWORK_PYTHON ?? '/usr/bin/python3';
  const hasEzdxf = existsSync(python) && spawnSync(python, ['-c', 'import ezdxf.addons.acadctb'], { encoding: 'utf8' }).status === 0;
  it.skipIf(!hasEzdxf)('reads a .ctb written by ezdxf (an independent writer)', async () => {
    const ctb = join(dir, 'ezdxf.ctb');
    const code = [
      'import sys', 'from ezdxf.addons import acadctb',
      'ctb = acadctb.new_ctb()', 'ctb[1].color = (0, 0, 255)', 'ctb[1].set_lineweight(0.5)', 'ctb[3].grayscale = True', 'ctb.save(sys.argv[1])',
    ].join('\n');
    const r = spawnSync(python, ['-c', code, ctb], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const table = readCtb(readFileSync(ctb));
    expect(table.pens[1]!.color).toBe(0x0000ff);
    expect(table.pens[1]!.lineweight).toBeCloseTo(0.5, 6);
    expect(table.pens[3]!.grayscale).toBe(true);
    expect(table.pens[2]!.color).toBeNull();
    const file = await drawing('ez.dxf');
    const res = await plot(await dxf.readDxf(file), { path: join(dir, 'ez.svg'), paper: 'A4', plotStyle: table });
    expect(res.files).toHaveLength(1);
    expect(readFileSync(join(dir, 'ez.svg'), 'utf8')).toContain('stroke="#0000ff"');
  });
});

describe('many drawings into one PDF', () => {
  it('puts every layout of every file into one PDF, in order', async () => {
    const a = await drawing('one.dxf');
    const doc = await newDoc();
    add(doc, 'CIRCLE', { center: [0, 0, 0], radius: 5 });
    const l = doc.addLayout('Sheet');
    add(doc, 'LINE', { start: [0, 0, 0], end: [10, 10, 0] }, l.block.name);
    const b = join(dir, 'two.dxf');
    await dxf.saveDxf(doc, b);
    const r = io();
    expect(await plotCommand([a, b, '--all', '--out', join(dir, 'all.pdf'), '--paper', 'A3'], r.io)).toBe(0);
    const pages = pdfPageBoxes(readFileSync(join(dir, 'all.pdf')));
    const expected = (await dxf.readDxf(a)).layouts().length + (await dxf.readDxf(b)).layouts().length;
    expect(pages.length).toBe(expected);
    expect(r.out.join('')).toMatch(/page 1: one\.dxf Model[\s\S]*two\.dxf Sheet/);
    const bad = io();
    expect(await plotCommand([a, b, '--out', join(dir, 'all.svg')], bad.io)).toBe(2);
    expect(bad.err.join('')).toMatch(/--out puts every page into one PDF/);
  });
});

describe('the plot op', () => {
  it('takes scale, margins and monochrome as the command line does', async () => {
    const e = engine();
    await ok(e, 'entities_create', { entities: [{ type: 'Line', start: [0, 0], end: [1000, 0], color: 1 }, { type: 'Circle', center: [500, 50], radius: 20, color: 5 }] });
    const file = join(dir, 'op.svg');
    const r = await ok(e, 'plot', { path: file, paper: 'A4', scale: '1:100', margins: [0, 0, 0, 0], monochrome: true });
    expect(r.pages[0].scale).toBeCloseTo(0.01, 12);
    const s = svgInfo(readFileSync(file, 'utf8'));
    expect(s.scale).toBeCloseTo(0.01, 12);
    expect(new Set(s.strokes.map((x) => x.stroke))).toEqual(new Set(['#000000']));
    const bad = await fails(e, 'plot', { path: join(dir, 'no.svg'), scale: '1:0' }, 'invalid_request');
    expect(bad.error).toMatch(/scale takes 1:N/);
    expect(existsSync(join(dir, 'no.svg'))).toBe(false);
  });
});
