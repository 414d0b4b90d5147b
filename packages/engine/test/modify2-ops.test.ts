// explode, mirror, scale, array and stretch: exact geometry, kept properties, typed errors with
// the drawing unchanged, one undo step each, and saved drawings ezdxf reads without complaint.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { active, dump, engine, fails, ok } from './helpers.js';

const python = process.env.LINEWORK_PYTHON ?? '/usr/bin/python3';
const hasEzdxf = existsSync(python) && spawnSync(python, ['-c', 'import ezdxf'], { encoding: 'utf8' }).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'linework-modify2-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function audit(path: string): { errors: number; fixes: number; messages: string[] } {
  const r = spawnSync(python, [new URL('./ezdxf_audit.py', import.meta.url).pathname, path], { encoding: 'utf8' });
  return JSON.parse(r.stdout);
}

type E = ReturnType<typeof engine>;
const attrs = (e: E, h: string) => (active(e).doc.get(h) as unknown as { type: string; attrs: Record<string, any> });
const close = (a: number[], b: number[], digits = 9) => b.forEach((v, i) => expect(a[i], `[${i}] of ${a} vs ${b}`).toBeCloseTo(v, digits));

async function saveAndAudit(e: E, name: string) {
  const path = join(dir, name);
  await ok(e, 'save', { path });
  if (hasEzdxf) expect(audit(path)).toMatchObject({ errors: 0, fixes: 0 });
}

describe('explode', () => {
  it('an LWPolyline with a bulge becomes lines and an exact arc, keeping its properties', async () => {
    const e = engine();
    await ok(e, 'command', { cmd: '-LAYER N WALLS' });
    const [p] = (await ok(e, 'entities_create', { entities: [
      { type: 'LWPolyline', points: [[0, 0, 0, 0, 1], [10, 0], [10, 5]], layer: 'WALLS', color: 3, lineweight: 50 },
    ] })).handles;
    const before = dump(active(e).doc);
    const r = await ok(e, 'explode', { handles: [p] });
    expect(r.erased).toEqual([p]);
    expect(r.modified).toEqual([]);
    const parts = r.created.map((h: string) => attrs(e, h));
    expect(parts.map((x: { type: string }) => x.type)).toEqual(['ARC', 'LINE']);
    // bulge 1 from (0,0) to (10,0): a half circle below the chord, centre (5,0), radius 5
    const arc = parts[0].attrs;
    close(arc.center, [5, 0, 0]);
    expect(arc.radius).toBeCloseTo(5, 12);
    expect(arc.start_angle).toBeCloseTo(180, 9);
    expect(arc.end_angle % 360).toBeCloseTo(0, 9);
    for (const x of parts) expect(x.attrs).toMatchObject({ layer: 'WALLS', color: 3, lineweight: 50 });
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
  });

  it('an INSERT becomes its block content through the transform, attribute values as TEXT', async () => {
    const e = engine();
    const hs = (await ok(e, 'entities_create', { entities: [
      { type: 'Line', start: [0, 0], end: [1, 0], color: 0 },
      { type: 'Circle', center: [0, 0], radius: 1 },
    ] })).handles;
    await ok(e, 'block_define', { name: 'B', base: [0, 0, 0], handles: hs });
    const doc = active(e).doc;
    doc.addEntity({ kind: 'entity', type: 'ATTDEF', handle: '', owner: '', attrs: { layer: '0', tag: 'NO', text: '?', prompt: 'n', insert: [0, 2, 0], height: 1 } }, 'B');
    await ok(e, 'command', { cmd: '-LAYER N DOORS' });
    const [ins] = (await ok(e, 'entities_create', { entities: [
      { type: 'Insert', name: 'B', position: [10, 10], xscale: 2, yscale: 3, rotation: 90, layer: 'DOORS', color: 5, attributes: { NO: 'D12' } },
    ] })).handles;
    const r = await ok(e, 'explode', { handles: [ins] });
    const parts = r.created.map((h: string) => attrs(e, h));
    const byType = (t: string) => parts.filter((x: { type: string }) => x.type === t);
    // x scale 2 then 90 degrees: the line runs from (10,10) to (10,12)
    const line = byType('LINE')[0].attrs;
    close(line.start, [10, 10, 0]);
    close(line.end, [10, 12, 0]);
    // BYBLOCK colour and layer 0 take the insert's
    expect(line).toMatchObject({ layer: 'DOORS', color: 5 });
    // the circle under non-uniform scaling is an ellipse with axes 3 (along -x after rotation) and 2
    const el = byType('ELLIPSE')[0].attrs;
    close(el.center, [10, 10, 0]);
    expect(Math.hypot(el.major_axis[0], el.major_axis[1])).toBeCloseTo(3, 9);
    expect(el.ratio).toBeCloseTo(2 / 3, 9);
    const text = byType('TEXT')[0].attrs;
    expect(text.text).toBe('D12');
    expect(byType('ATTDEF')).toHaveLength(0);
    await saveAndAudit(e, 'explode-insert.dxf');
  });

  it('MTEXT becomes one TEXT per line; a pattern hatch its lines inside the boundary; a dimension its block', async () => {
    const e = engine();
    const [m, h] = (await ok(e, 'entities_create', { entities: [
      { type: 'MText', value: 'first\\Psecond\\Pthird', position: [0, 10], height: 2 },
      { type: 'Hatch', boundary: [[0, 0], [10, 0], [10, 10], [0, 10]], pattern: 'ANSI31' },
    ] })).handles;
    const r = await ok(e, 'explode', { handles: [m, h] });
    const parts = r.created.map((x: string) => attrs(e, x));
    const texts = parts.filter((x: { type: string }) => x.type === 'TEXT');
    expect(texts.map((t: { attrs: { text: string } }) => t.attrs.text)).toEqual(['first', 'second', 'third']);
    // first baseline one text height below the top, then 5/3 of the height apart
    close(texts[0].attrs.insert, [0, 8, 0]);
    close(texts[1].attrs.insert, [0, 8 - 10 / 3, 0]);
    const lines = parts.filter((x: { type: string }) => x.type === 'LINE');
    expect(lines.length).toBeGreaterThan(3);
    for (const l of lines) {
      for (const p of [l.attrs.start, l.attrs.end]) {
        expect(p[0]).toBeGreaterThanOrEqual(-1e-9);
        expect(p[0]).toBeLessThanOrEqual(10 + 1e-9);
        expect(p[1]).toBeGreaterThanOrEqual(-1e-9);
        expect(p[1]).toBeLessThanOrEqual(10 + 1e-9);
      }
      // ANSI31 runs at 45 degrees
      expect(Math.abs(l.attrs.end[1] - l.attrs.start[1])).toBeCloseTo(Math.abs(l.attrs.end[0] - l.attrs.start[0]), 9);
    }
    const [d] = (await ok(e, 'dimension_create', { type: 'linear', points: [[0, 0], [10, 0]], position: [5, -5] })).created;
    const x = await ok(e, 'explode', { handles: [d] });
    const types = x.created.map((k: string) => attrs(e, k).type).sort();
    expect(types).toEqual(['LINE', 'LINE', 'LINE', 'MTEXT', 'SOLID', 'SOLID']);
    await saveAndAudit(e, 'explode-more.dxf');
  });

  it('refuses what does not explode, naming the handle; the drawing unchanged', async () => {
    const e = engine();
    const [l, p] = (await ok(e, 'entities_create', { entities: [
      { type: 'Line', start: [0, 0], end: [1, 0] },
      { type: 'LWPolyline', points: [[0, 0], [1, 1]] },
    ] })).handles;
    const before = dump(active(e).doc);
    const r = await fails(e, 'explode', { handles: [p, l] }, 'not_explodable');
    expect(r.error).toContain(`LINE ${l}`);
    await fails(e, 'explode', { handles: ['ABCDEF'] }, 'entity_absent');
    expect(dump(active(e).doc)).toBe(before);
  });
});

describe('mirror, scale, array, stretch', () => {
  it('mirror copies (or moves with erase_source) and keeps text readable', async () => {
    const e = engine();
    const [l, t, a] = (await ok(e, 'entities_create', { entities: [
      { type: 'Line', start: [1, 1], end: [3, 2], color: 2 },
      { type: 'Text', value: 'ABC', position: [1, 5], height: 1 },
      { type: 'Arc', center: [2, 0], radius: 1, start_angle: 0, end_angle: 90 },
    ] })).handles;
    const before = dump(active(e).doc);
    const r = await ok(e, 'mirror', { handles: [l, t, a], axis: [[0, 0], [0, 10]] });
    expect(r.created).toHaveLength(3);
    expect(r.erased).toEqual([]);
    const [ml, mt, ma] = r.created.map((h: string) => attrs(e, h).attrs);
    close(ml.start, [-1, 1, 0]);
    close(ml.end, [-3, 2, 0]);
    expect(ml.color).toBe(2);
    // the text's insertion point mirrors; it still reads left to right, not mirror-written
    close(mt.insert, [-1, 5, 0]);
    expect(mt.rotation).toBeCloseTo(0, 12);
    expect(Number(mt.text_generation_flag ?? 0) & 2).toBe(0);
    // the arc from 0 to 90 degrees about x = 0 runs from 90 to 180 about (-2, 0)
    close(ma.center, [-2, 0, 0]);
    expect(ma.start_angle).toBeCloseTo(90, 9);
    expect(ma.end_angle).toBeCloseTo(180, 9);
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
    // about a horizontal axis, in place: the text stays upright
    const s = await ok(e, 'mirror', { handles: [t], axis: [[0, 0], [1, 0]], erase_source: true });
    expect(s).toEqual({ created: [], modified: [t], erased: [] });
    expect(attrs(e, t).attrs.rotation).toBeCloseTo(0, 12);
    close(attrs(e, t).attrs.insert, [1, -5, 0]);
    await fails(e, 'mirror', { handles: [l], axis: [[1, 1], [1, 1]] }, 'invalid_transform');
    await fails(e, 'mirror', { handles: [l], axis: [[0, 0], [NaN, 1]] }, 'invalid_request');
  });

  it('scale about a base point; refuses factors that are not positive', async () => {
    const e = engine();
    const [c] = (await ok(e, 'entities_create', { entities: [{ type: 'Circle', center: [2, 0], radius: 1 }] })).handles;
    const before = dump(active(e).doc);
    expect(await ok(e, 'scale', { handles: [c], base: [0, 0], factor: 2.5 })).toEqual({ created: [], modified: [c], erased: [] });
    close(attrs(e, c).attrs.center, [5, 0, 0]);
    expect(attrs(e, c).attrs.radius).toBeCloseTo(2.5, 12);
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
    for (const factor of [0, -1]) await fails(e, 'scale', { handles: [c], base: [0, 0], factor }, 'invalid_transform');
    await fails(e, 'scale', { handles: [c], base: [0, 0], factor: Infinity }, 'invalid_request');
    expect(dump(active(e).doc)).toBe(before);
  });

  it('array: rectangular copies at the spacings, polar copies rotated about the centre', async () => {
    const e = engine();
    const [p] = (await ok(e, 'entities_create', { entities: [{ type: 'Point', location: [1, 0] }] })).handles;
    const r = await ok(e, 'array', { handles: [p], rows: 2, columns: 3, row_spacing: 5, column_spacing: 10 });
    const locs = r.created.map((h: string) => attrs(e, h).attrs.location.slice(0, 2));
    expect(locs).toEqual([[11, 0], [21, 0], [1, 5], [11, 5], [21, 5]]);
    await ok(e, 'undo');
    const q = await ok(e, 'array', { handles: [p], center: [0, 0], count: 4 });
    const pl = q.created.map((h: string) => attrs(e, h).attrs.location);
    close(pl[0], [0, 1, 0]);
    close(pl[1], [-1, 0, 0]);
    close(pl[2], [0, -1, 0]);
    await ok(e, 'undo');
    const half = await ok(e, 'array', { handles: [p], center: [0, 0], count: 3, angle: 180 });
    close(attrs(e, half.created[1]).attrs.location, [-1, 0, 0]);
    await fails(e, 'array', { handles: [p], rows: 1, columns: 1 }, 'invalid_request');
    await fails(e, 'array', { handles: [p], rows: 2, columns: 2 }, 'invalid_request');
    await fails(e, 'array', { handles: [p], rows: 1000, columns: 1000, row_spacing: 1, column_spacing: 1 }, 'too_many_entities');
    await fails(e, 'array', { handles: [p], rows: 1.5, columns: 2, row_spacing: 1, column_spacing: 1 }, 'invalid_request');
  });

  it('stretch moves the ends inside the crossing window and what lies wholly inside', async () => {
    const e = engine();
    const [l, c, pl, a, far] = (await ok(e, 'entities_create', { entities: [
      { type: 'Line', start: [0, 0], end: [10, 0] },
      { type: 'Circle', center: [10, 5], radius: 0.5 },
      { type: 'LWPolyline', points: [[0, 2], [10, 2, 0, 0, 0.5], [10, 4], [0, 4]] },
      { type: 'Arc', center: [5, 8], radius: 5, start_angle: 0, end_angle: 180 },
      { type: 'Line', start: [0, 20], end: [1, 20] },
    ] })).handles;
    const before = dump(active(e).doc);
    const r = await ok(e, 'stretch', { window: [[8, -1], [12, 9]], vector: [3, 0] });
    expect(r.modified.sort()).toEqual([l, c, pl, a].sort());
    expect(r.modified).not.toContain(far);
    close(attrs(e, l).attrs.start, [0, 0, 0]);
    close(attrs(e, l).attrs.end, [13, 0, 0]);
    close(attrs(e, c).attrs.center, [13, 5, 0]);
    const pts = attrs(e, pl).attrs.points;
    expect(pts.map((q: number[]) => [q[0], q[1], q[4]])).toEqual([[0, 2, 0], [13, 2, 0.5], [13, 4, 0], [0, 4, 0]]);
    // the arc's end at (10, 8) moved to (13, 8); its start stayed, its bulge (a half circle) too
    const arc = attrs(e, a).attrs;
    close(arc.center, [6.5, 8, 0]);
    expect(arc.radius).toBeCloseTo(6.5, 9);
    await ok(e, 'undo');
    expect(dump(active(e).doc)).toBe(before);
    await fails(e, 'stretch', { window: [[0, 0], [0, 5]], vector: [1, 0] }, 'invalid_request');
    await saveAndAudit(e, 'stretch.dxf');
  });
});
