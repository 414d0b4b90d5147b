// hatch by point and by boundary: the region found around a point (islands as holes, normal
// style), exact areas, gaps reported, the spatial index keeping the search local, undo, ezdxf.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { active, dump, engine, fails, ok } from './helpers.js';
import { Workspace } from '../src/index.js';
import { boundaryAt, loopArea } from '../src/construct-more/boundary.js';

const python = process.env.LINEWORK_PYTHON ?? '/usr/bin/python3';
const hasEzdxf = existsSync(python) && spawnSync(python, ['-c', 'import ezdxf'], { encoding: 'utf8' }).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'linework-hatch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Loop = [number, number, number][];

function hatchArea(e: ReturnType<typeof engine>, h: string): number {
  const rec = active(e).doc.get(h) as unknown as { attrs: { paths: { vertices: Loop }[] } };
  // even-odd over the paths: the outer loop counter-clockwise, islands clockwise
  return rec.attrs.paths.reduce((s, p) => s + loopArea(p.vertices), 0);
}

async function room(e: ReturnType<typeof engine>) {
  return (await ok(e, 'entities_create', {
    entities: [
      { type: 'Line', start: [0, 0], end: [10, 0] },
      { type: 'Line', start: [10, 0], end: [10, 8] },
      { type: 'Line', start: [10, 8], end: [0, 8] },
      { type: 'Line', start: [0, 8], end: [0, 0] },
      { type: 'Circle', center: [3, 3], radius: 1 },
      { type: 'LWPolyline', points: [[6, 1], [9, 1], [9, 4], [6, 4]], closed: true },
      { type: 'Circle', center: [7.5, 2.5], radius: 0.5 },
      // a wall stub: dangling, it must not change the region
      { type: 'Line', start: [10, 5], end: [8, 5] },
    ],
  })).handles as string[];
}

describe('hatch by point', () => {
  it('hatches the room with its islands (normal style): exact area', async () => {
    const e = engine();
    await room(e);
    const before = dump(active(e).doc);
    const r = await ok(e, 'hatch', { point: [1, 7], pattern: 'ANSI31' });
    expect(r).toEqual({ created: [expect.any(String)], modified: [], erased: [] });
    const area = hatchArea(e, r.created[0]);
    expect(area).toBeCloseTo(80 - Math.PI - 9 + Math.PI / 4, 9);
    const rec = active(e).doc.get(r.created[0]) as { attrs: Record<string, unknown> };
    expect(rec.attrs.pattern_name).toBe('ANSI31');
    expect((rec.attrs.pattern_lines as unknown[]).length).toBeGreaterThan(0);
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
  });

  it('hatches an island from inside it, and a region bounded by arcs and lines', async () => {
    const e = engine();
    await room(e);
    const r = await ok(e, 'hatch', { point: [3, 3.2] });
    expect(hatchArea(e, r.created[0])).toBeCloseTo(Math.PI, 9);
    // between the square and the small circle: the square with the circle as a hole
    const s = await ok(e, 'hatch', { point: [6.5, 3.5] });
    expect(hatchArea(e, s.created[0])).toBeCloseTo(9 - Math.PI / 4, 9);
    // a D shape: a line and an arc crossing it
    const f = engine();
    await ok(f, 'entities_create', { entities: [
      { type: 'Line', start: [-5, 0], end: [5, 0] },
      { type: 'Arc', center: [0, 0], radius: 3, start_angle: 0, end_angle: 180 },
    ] });
    const d = await ok(f, 'hatch', { point: [0, 1] });
    expect(hatchArea(f, d.created[0])).toBeCloseTo((Math.PI * 9) / 2, 9);
  });

  it('reports the nearest gap when nothing closes around the point', async () => {
    const e = engine();
    await ok(e, 'entities_create', { entities: [
      { type: 'Line', start: [0, 0], end: [10, 0] },
      { type: 'Line', start: [10, 0], end: [10, 10] },
      { type: 'Line', start: [10, 10], end: [0, 10] },
      { type: 'Line', start: [0, 10], end: [0, 0.5] },
    ] });
    const before = dump(active(e).doc);
    const r = await fails(e, 'hatch', { point: [5, 5] }, 'no_boundary');
    expect(r.error).toMatch(/gap is between \(0, 0\.5\) and \(0, 0\), 0\.5 apart/);
    expect(dump(active(e).doc)).toBe(before);
  });
});

describe('hatch by boundary, locality, files', () => {
  it('hatches closed entities, the inner ones as holes; refuses open and unsupported ones', async () => {
    const e = engine();
    const [sq, c, el, open, line] = (await ok(e, 'entities_create', { entities: [
      { type: 'LWPolyline', points: [[0, 0], [10, 0], [10, 10], [0, 10]], closed: true },
      { type: 'Circle', center: [3, 3], radius: 1 },
      { type: 'Ellipse', center: [7, 7], major_axis: [2, 0], ratio: 0.5 },
      { type: 'LWPolyline', points: [[20, 0], [30, 0], [30, 10]] },
      { type: 'Line', start: [0, 20], end: [5, 20] },
    ] })).handles;
    const r = await ok(e, 'hatch', { boundary: [c, sq, el], pattern: 'SOLID' });
    // the ellipse is flattened within a millionth of its size
    expect(hatchArea(e, r.created[0])).toBeCloseTo(100 - Math.PI - Math.PI * 2 * 1, 4);
    const before = dump(active(e).doc);
    await fails(e, 'hatch', { boundary: [open] }, 'not_closed');
    await fails(e, 'hatch', { boundary: [line] }, 'unsupported_entity');
    await fails(e, 'hatch', { boundary: [sq], pattern: 'NO_SUCH' }, 'unknown_pattern');
    await fails(e, 'hatch', { boundary: [sq], point: [1, 1] }, 'invalid_request');
    await fails(e, 'hatch', { point: [1, NaN] }, 'invalid_request');
    await fails(e, 'hatch', { boundary: [sq], layer: 'NOPE' }, 'unknown_layer');
    expect(dump(active(e).doc)).toBe(before);
  });

  it('reads only the entities near the point (the spatial index), and ezdxf reads the result', async () => {
    const e = engine();
    const entities: Record<string, unknown>[] = [];
    for (let i = 0; i < 20; i++) for (let j = 0; j < 20; j++) {
      const x = i * 12, y = j * 10;
      entities.push({ type: 'LWPolyline', points: [[x, y], [x + 10, y], [x + 10, y + 8], [x, y + 8]], closed: true });
      entities.push({ type: 'Circle', center: [x + 5, y + 4], radius: 1 });
    }
    await ok(e, 'entities_create', { entities });
    const p: [number, number] = [10 * 12 + 1, 10 * 10 + 1];
    const found = boundaryAt(active(e), p);
    expect(found.examined).toBeLessThan(40);
    const r = await ok(e, 'hatch', { point: p, pattern: 'ANSI37', scale: 0.5, angle: 30 });
    expect(hatchArea(e, r.created[0])).toBeCloseTo(80 - Math.PI, 9);
    const path = join(dir, 'hatched.dxf');
    await ok(e, 'save', { path });
    if (!hasEzdxf) return;
    const audit = spawnSync(python, [new URL('./ezdxf_audit.py', import.meta.url).pathname, path], { encoding: 'utf8' });
    expect(JSON.parse(audit.stdout)).toMatchObject({ errors: 0, fixes: 0 });
    // ezdxf sees the same boundary: its paths' vertices and bulges
    const py = [
      'import ezdxf, sys, json',
      'doc = ezdxf.readfile(sys.argv[1])',
      'h = doc.modelspace().query("HATCH")[0]',
      'print(json.dumps({"pattern": h.dxf.pattern_name, "paths": [[list(v) for v in p.vertices] for p in h.paths]}))',
    ].join('\n');
    const out = JSON.parse(spawnSync(python, ['-c', py, path], { encoding: 'utf8' }).stdout);
    expect(out.pattern).toBe('ANSI37');
    const area = (out.paths as number[][][]).reduce((s, l) => s + loopArea(l.map((v) => [v[0]!, v[1]!, v[2]!])), 0);
    expect(area).toBeCloseTo(80 - Math.PI, 9);
  });
});

const corpus = process.env.LINEWORK_DXF_CORPUS;
const floorplan = corpus ? join(corpus, 'skydxf__floorplan.dxf') : '';
describe.skipIf(!corpus || !existsSync(floorplan))('hatch on the corpus floor plan (LINEWORK_DXF_CORPUS)', () => {
  it('hatches a room by a point inside it, reading a fraction of the plan', async () => {
    const e = engine({ workspace: new Workspace([corpus!, tmpdir()]) });
    await ok(e, 'document_open', { path: floorplan });
    const p: [number, number] = [-403, 263];
    const found = boundaryAt(active(e), p);
    expect(found.examined).toBeLessThan(active(e).doc.modelSpace().entities.length);
    const r = await ok(e, 'hatch', { point: p, pattern: 'ANSI31' });
    const area = hatchArea(e, r.created[0]);
    // a room of about 60 x 59 drawing units
    expect(area).toBeGreaterThan(1000);
    expect(area).toBeLessThan(60 * 60);
    const b = active(e).index.box(r.created[0])!;
    expect(b.minX <= p[0] && p[0] <= b.maxX && b.minY <= p[1] && p[1] <= b.maxY).toBe(true);
  });
});
