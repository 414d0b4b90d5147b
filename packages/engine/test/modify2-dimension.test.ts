// dimension_create: the measurement (group 42) and the *D block, checked against ezdxf: its
// measurement of the saved DIMENSION, and the block ezdxf renders itself from the same definition
// points and style (lines and arrow tips must coincide for linear and aligned dimensions).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { active, dump, engine, fails, ok } from './helpers.js';

const python = process.env.LINEWORK_PYTHON ?? '/usr/bin/python3';
const hasEzdxf = existsSync(python) && spawnSync(python, ['-c', 'import ezdxf'], { encoding: 'utf8' }).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'linework-dims-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Pt = [number, number];
interface Drawn { lines: [Pt, Pt][]; arcs: [Pt, number, number, number][]; texts: { insert: Pt; text: string; rotation: number }[]; solids: Pt[]; inserts: { insert: Pt }[] }
interface DimInfo { handle: string; dimtype: number; measurement: number | Pt; actual_measurement: number; own: Drawn; ezdxf?: Drawn }

function ezdxfDims(path: string): DimInfo[] {
  const r = spawnSync(python, [new URL('./ezdxf_dims.py', import.meta.url).pathname, path], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ezdxf_dims.py failed: ${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout);
}

function audit(path: string): { errors: number; fixes: number; messages: string[] } {
  const r = spawnSync(python, [new URL('./ezdxf_audit.py', import.meta.url).pathname, path], { encoding: 'utf8' });
  return JSON.parse(r.stdout);
}

const near = (a: Pt, b: Pt) => Math.hypot(a[0] - b[0], a[1] - b[1]) < 1e-6;
const sameLine = (a: [Pt, Pt], b: [Pt, Pt]) => (near(a[0], b[0]) && near(a[1], b[1])) || (near(a[0], b[1]) && near(a[1], b[0]));

async function drawing() {
  const e = engine();
  const hs = (await ok(e, 'entities_create', { entities: [
    { type: 'Line', start: [0, 0], end: [20, 0] },
    { type: 'Line', start: [0, 0], end: [20, 20] },
    { type: 'Circle', center: [50, 0], radius: 8 },
    { type: 'Arc', center: [80, 0], radius: 4, start_angle: 0, end_angle: 120 },
  ] })).handles as string[];
  return { e, hs };
}

describe('dimension_create', () => {
  it('creates every kind with its measurement; ezdxf measures the same and draws the same lines', async () => {
    const { e, hs } = await drawing();
    const mk = async (f: Record<string, unknown>) => (await ok(e, 'dimension_create', f)).created[0] as string;
    const lin = await mk({ type: 'linear', points: [[0, 0], [20, 0]], position: [10, -8] });
    const ver = await mk({ type: 'linear', points: [[20, 0], [20, 20]], position: [30, 10] });
    const rot = await mk({ type: 'linear', points: [[0, 0], [20, 20]], position: [20, 0], angle: 45 });
    const ali = await mk({ type: 'aligned', points: [[0, 0], [12, 16]], position: [-4, 12] });
    const rad = await mk({ type: 'radius', handle: hs[2], position: [60, 10] });
    const dia = await mk({ type: 'diameter', handle: hs[2], position: [52, 1] });
    const arcR = await mk({ type: 'radius', handle: hs[3], position: [81, 1] });
    const ang = await mk({ type: 'angular', handles: [hs[0], hs[1]], position: [15, 5] });
    const ang3 = await mk({ type: 'angular', points: [[0, 0], [20, 0], [0, 20]], position: [-10, 10] });
    const ord = await mk({ type: 'ordinate', points: [[20, 20]], position: [20, 30] });
    const doc = active(e).doc;
    const m = (h: string) => Number((doc.get(h) as { attrs: Record<string, unknown> }).attrs.actual_measurement);
    expect(m(lin)).toBe(20);
    expect(m(ver)).toBe(20);
    expect(m(rot)).toBeCloseTo(Math.hypot(20, 20), 12);
    expect(m(ali)).toBeCloseTo(20, 12);
    expect(m(rad)).toBe(8);
    expect(m(dia)).toBe(16);
    expect(m(arcR)).toBe(4);
    // angular measurements are radians in the file
    expect(m(ang)).toBeCloseTo(Math.PI / 4, 12);
    // the position (-10, 10) lies in the 270 degree angle from the second leg round to the first
    expect(m(ang3)).toBeCloseTo((3 * Math.PI) / 2, 12);
    expect(m(ord)).toBe(20);
    const path = join(dir, 'dims.dxf');
    await ok(e, 'save', { path });
    if (!hasEzdxf) return;
    expect(audit(path)).toMatchObject({ errors: 0, fixes: 0 });
    const info = new Map(ezdxfDims(path).map((d) => [d.handle, d]));
    for (const h of [lin, ver, rot, ali, rad, dia, arcR]) expect(info.get(h)!.measurement, h).toBeCloseTo(m(h), 9);
    expect(info.get(ang)!.measurement).toBeCloseTo(45, 9);
    expect(info.get(ang3)!.measurement).toBeCloseTo(270, 9);
    expect(info.get(ord)!.measurement).toEqual([20, 20]);
    // linear and aligned: the same extension and dimension lines, arrows at the same tips, the same text
    for (const h of [lin, ver, rot, ali]) {
      const d = info.get(h)!;
      const theirs = d.ezdxf!;
      expect(d.own.lines.length, h).toBe(theirs.lines.length);
      for (const l of d.own.lines) expect(theirs.lines.some((t) => sameLine(l, t)), `${h} line ${JSON.stringify(l)}`).toBe(true);
      expect(d.own.solids.length).toBe(theirs.inserts.length);
      for (const tip of d.own.solids) expect(theirs.inserts.some((i) => near(i.insert, tip)), `${h} arrow at ${tip}`).toBe(true);
      // ezdxf 0.18 reads DIMRND 0 as "round to whole numbers" (AutoCAD: no rounding), so only whole
      // measurements read alike
      if (h !== rot) expect(d.own.texts.map((t) => t.text)).toEqual(theirs.texts.map((t) => t.text));
      expect(near(d.own.texts[0]!.insert, theirs.texts[0]!.insert), `${h} text at ${d.own.texts[0]!.insert} vs ${theirs.texts[0]!.insert}`).toBe(true);
    }
    expect(info.get(lin)!.own.texts[0]!.text).toBe('20');
    expect(info.get(rot)!.own.texts[0]!.text).toBe('28,28');
    // radius and diameter: the same text; the arrow tip on the curve, where ezdxf puts its arrow
    for (const [h, c, r] of [[rad, [50, 0], 8], [dia, [50, 0], 8], [arcR, [80, 0], 4]] as [string, Pt, number][]) {
      const d = info.get(h)!;
      expect(d.own.texts[0]!.text).toBe(d.ezdxf!.texts[0]!.text);
      for (const tip of d.own.solids) expect(Math.hypot(tip[0] - c[0], tip[1] - c[1])).toBeCloseTo(r, 9);
      expect(d.ezdxf!.inserts.some((i) => d.own.solids.some((t) => near(t, i.insert)))).toBe(true);
    }
    // angular: the arc is centred on the vertex and runs through the position
    const a = info.get(ang)!.own.arcs[0]!;
    expect(near(a[0], [0, 0])).toBe(true);
    expect(a[1]).toBeCloseTo(Math.hypot(15, 5), 9);
    expect(info.get(ang)!.own.texts[0]!.text).toBe('45%%d');
  });

  it('formats as the style says (DIMDEC 2, DIMZIN 8, decimal comma), takes text overrides, one undo step', async () => {
    const { e } = await drawing();
    const before = dump(active(e).doc);
    const h = (await ok(e, 'dimension_create', { type: 'aligned', points: [[0, 0], [10.125, 0]], position: [5, 30], text: 'L = <>' })).created[0];
    const doc = active(e).doc;
    const dim = doc.get(h) as { attrs: Record<string, unknown> };
    const block = doc.getBlock(String(dim.attrs.geometry))!;
    const text = block.entities.find((x) => x.type === 'MTEXT')!;
    // 10.125 to two decimals, trailing zeros suppressed, the template's ISO-25 decimal comma
    expect(text.attrs.text).toBe('L = 10,13');
    expect(dim.attrs.text).toBe('L = <>');
    expect(block.entities.filter((x) => x.type === 'POINT').every((p) => p.attrs.layer === 'Defpoints')).toBe(true);
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
  });

  it('refuses bad input with typed errors, the drawing unchanged', async () => {
    const { e, hs } = await drawing();
    const before = dump(active(e).doc);
    await fails(e, 'dimension_create', { type: 'linear', points: [[0, 0], [0, 0]], position: [1, 1] }, 'invalid_geometry');
    await fails(e, 'dimension_create', { type: 'linear', points: [[0, 0]], position: [1, 1] }, 'invalid_request');
    await fails(e, 'dimension_create', { type: 'radius', handle: hs[0], position: [1, 1] }, 'unsupported_entity');
    await fails(e, 'dimension_create', { type: 'radius', handle: 'FFFF', position: [1, 1] }, 'entity_absent');
    await fails(e, 'dimension_create', { type: 'radius', handle: hs[2], position: [50, 0] }, 'invalid_geometry');
    await fails(e, 'dimension_create', { type: 'angular', handles: [hs[0], hs[0]], position: [1, 1] }, 'invalid_geometry');
    await fails(e, 'dimension_create', { type: 'linear', points: [[0, 0], [5, 0]], position: [1, 1], style: 'NOPE' }, 'unknown_dimstyle');
    await fails(e, 'dimension_create', { type: 'linear', points: [[0, 0], [5, 0]], position: [1, Infinity] }, 'invalid_request');
    await fails(e, 'dimension_create', { type: 'linear', points: [[0, NaN], [5, 0]], position: [1, 1] }, 'invalid_request');
    expect(dump(active(e).doc)).toBe(before);
  });
});
