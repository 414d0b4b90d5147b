// Heavy 2D POLYLINEs (VERTEX records, bulges, closed flag) through the modify ops: offset gives a
// POLYLINE back (as AutoCAD's OFFSET does) with the right bulges and OFFSETGAPTYPE 0 corners;
// trim, extend, fillet, chamfer, break, join and explode keep the type; 3D polylines and meshes
// are refused naming the type. Every saved drawing is reloaded and audited by ezdxf.
import { describe, expect, it } from 'vitest';
import { active, dump, engine, fails, ok } from './helpers.js';
import { close, drawing, ezdxfRead, get, hasEzdxf, undoable } from './modify-helpers.js';
import type { Engine } from '../src/index.js';

const Q = Math.tan(Math.PI / 8); // the bulge of a quarter circle

/** A 2D POLYLINE of [x, y, bulge] vertices (bulges set on its VERTEX records, as a DXF file holds them). */
async function polyline2d(e: Engine, pts: number[][], opts: { closed?: boolean; elevation?: number; layer?: string; color?: number; flags?: number } = {}): Promise<string> {
  const r = await ok(e, 'entities_create', { entities: [{ type: 'Polyline', points: pts.map((p) => [p[0], p[1], 0]), closed: opts.closed ?? false, layer: opts.layer, color: opts.color }], create_layers: true });
  const rec = active(e).doc.get(r.handles[0]) as any;
  rec.children.forEach((v: any, i: number) => {
    if (pts[i]![2]) v.attrs.bulge = pts[i]![2];
    if (opts.elevation) v.attrs.location[2] = opts.elevation;
  });
  if (opts.elevation) rec.attrs.elevation = [0, 0, opts.elevation];
  if (opts.flags !== undefined) rec.attrs.flags = opts.flags;
  return r.handles[0];
}

/** [x, y, bulge] of a POLYLINE's vertices as the engine holds them. */
function vertices(e: Engine, handle: string): number[][] {
  const rec = active(e).doc.get(handle) as any;
  expect(rec.type).toBe('POLYLINE');
  return rec.children.filter((v: any) => v.type === 'VERTEX').map((v: any) => [v.attrs.location[0], v.attrs.location[1], v.attrs.bulge ?? 0]);
}

const flagsOf = (e: Engine, handle: string): number => Number((active(e).doc.get(handle) as any).attrs.flags ?? 0);

async function audited(e: Engine): Promise<Record<string, any>> {
  const z = await ezdxfRead(e);
  expect(z.errors + z.fixes, z.messages.join('; ')).toBe(0);
  return z.entities;
}

describe('2D POLYLINE', () => {
  it('offsets as a 2D POLYLINE: bulges, corners extended to meet, closed flag, elevation and properties kept', async () => {
    const e = engine();
    const open = await polyline2d(e, [[0, 0, 0], [10, 0, 1], [10, 10, 0], [0, 10, 0]], { layer: 'WALLS', color: 3, elevation: 5 });
    const sq = await polyline2d(e, [[0, 0], [10, 0], [10, 10], [0, 10]], { closed: true });
    const r = await undoable(e, 'offset', { handle: open, distance: 1, side: [5, 5] });
    expect(r).toMatchObject({ modified: [], erased: [] });
    const out = r.created[0];
    expect(await get(e, out)).toMatchObject({ type: 'Polyline', layer: 'WALLS', color: 3 });
    const v = vertices(e, out);
    expect(v).toHaveLength(4);
    close(v[0]!, [0, 1, 0]);
    close(v[1]!, [10, 1, 1]); // the half circle about (10, 5), radius 4, still a bulge of 1
    close(v[2]!, [10, 9, 0]);
    close(v[3]!, [0, 9, 0]);
    expect(flagsOf(e, out) & 1).toBe(0);
    const outer = await undoable(e, 'offset', { handle: sq, distance: 1, side: [20, 5] });
    expect(vertices(e, outer.created[0]).map((p) => [p[0], p[1]])).toEqual([[-1, -1], [11, -1], [11, 11], [-1, 11]]);
    expect(flagsOf(e, outer.created[0]) & 1).toBe(1);
    if (hasEzdxf) {
      const z = await audited(e);
      const ez = z[out]!;
      expect(ez).toMatchObject({ type: 'POLYLINE', is_2d: true, closed: false, layer: 'WALLS', color: 3 });
      close(ez.points[1], [10, 1, 1]);
      expect(ez.z).toEqual([5, 5, 5, 5]);
      expect(ez.elevation[2]).toBe(5);
      expect(z[outer.created[0]]).toMatchObject({ type: 'POLYLINE', closed: true });
    }
  });

  it('offsets a closed rounded rectangle of VERTEX bulges both ways, arcs concentric', async () => {
    const e = engine();
    const h = await polyline2d(e, [[1, 0], [9, 0, Q], [10, 1], [10, 9, Q], [9, 10], [1, 10, Q], [0, 9], [0, 1, Q]], { closed: true });
    const out = await undoable(e, 'offset', { handle: h, distance: 0.5, side: [50, 50] });
    const p = vertices(e, out.created[0]);
    expect(p.map((x) => [x[0], x[1]])).toEqual([[1, -0.5], [9, -0.5], [10.5, 1], [10.5, 9], [9, 10.5], [1, 10.5], [-0.5, 9], [-0.5, 1]].map((x) => x.map((c) => expect.closeTo(c, 12))));
    for (const i of [1, 3, 5, 7]) expect(p[i]![2]).toBeCloseTo(Q, 12);
    const inward = await undoable(e, 'offset', { handle: h, distance: 0.25, side: [5, 5] });
    close(vertices(e, inward.created[0])[1]!, [9, 0.25, Q]);
    if (hasEzdxf) await audited(e);
  });

  it('refuses 3D polylines and meshes naming the type, the drawing unchanged', async () => {
    const e = engine();
    const three = await polyline2d(e, [[0, 0], [10, 0], [10, 10]], { flags: 8 });
    const mesh = await polyline2d(e, [[0, 0], [10, 0], [10, 10], [0, 10]], { flags: 16 });
    const before = dump(active(e).doc);
    for (const op of [['offset', { handle: three, distance: 1, side: [5, 5] }], ['trim', { handle: three, point: [5, 0] }], ['extend', { handle: three, point: [10, 9] }], ['break', { handle: three, points: [[5, 0]] }]] as const) {
      const f = await fails(e, op[0], op[1], 'wrong_type');
      expect(f.error).toContain('3D POLYLINE');
      expect(f.error).toContain(three);
    }
    const m = await fails(e, 'offset', { handle: mesh, distance: 1, side: [5, 5] }, 'wrong_type');
    expect(m.error).toContain('mesh');
    const p = await fails(e, 'fillet', { handles: [three], radius: 1, polyline: true }, 'wrong_type');
    expect(p.error).toContain('3D POLYLINE');
    expect(dump(active(e).doc)).toBe(before);
  });

  it('trims and breaks a POLYLINE keeping its handle and type; the far piece is a new POLYLINE', async () => {
    const { e, h } = await drawing([{ type: 'Line', start: [4, -5], end: [4, 5] }, { type: 'Line', start: [6, -5], end: [6, 5] }]);
    const pl = await polyline2d(e, [[0, 0, 0], [10, 0, 1], [10, 4, 0], [0, 4]], { color: 5 });
    await ok(e, 'entities_create', { entities: [{ type: 'Line', start: [50, 50], end: [60, 60] }] }); // drawn after the POLYLINE
    const order = () => active(e).doc.modelSpace().entities.map((x) => x.handle);
    const before = order();
    const r = await undoable(e, 'trim', { handle: pl, point: [5, 0], edges: [h[0], h[1]] });
    expect(r.modified).toEqual([pl]);
    expect(order().slice(0, before.length)).toEqual(before); // the POLYLINE keeps its place in the drawing order
    expect(r.created).toHaveLength(1);
    expect(vertices(e, pl)).toEqual([[0, 0, 0], [4, 0, 0]]);
    const far = vertices(e, r.created[0]);
    close(far[0]!, [6, 0, 0]);
    close(far[1]!, [10, 0, 1]);
    expect(far).toHaveLength(4);
    expect(await get(e, r.created[0])).toMatchObject({ type: 'Polyline', color: 5 });
    // Break the far piece inside its arc: the bulges of both halves are those of quarter circles.
    const b = await undoable(e, 'break', { handle: r.created[0], points: [[12, 2]] });
    const first = vertices(e, r.created[0]), second = vertices(e, b.created[0]);
    close(first[1]!, [10, 0, Q]);
    close(first[2]!, [12, 2, 0]);
    close(second[0]!, [12, 2, Q]);
    close(second[1]!, [10, 4, 0]);
    if (hasEzdxf) {
      const z = await audited(e);
      expect(z[pl]).toMatchObject({ type: 'POLYLINE', points: [[0, 0, 0], [4, 0, 0]] });
    }
  });

  it('extends the end segment of an open POLYLINE to a boundary', async () => {
    const { e, h } = await drawing([{ type: 'Line', start: [20, -5], end: [20, 20] }]);
    const pl = await polyline2d(e, [[0, 10], [0, 0], [10, 0]]);
    const r = await undoable(e, 'extend', { handle: pl, point: [9, 0], edges: [h[0]] });
    expect(r).toEqual({ created: [], modified: [pl], erased: [] });
    expect(vertices(e, pl)).toEqual([[0, 10, 0], [0, 0, 0], [20, 0, 0]]);
    if (hasEzdxf) await audited(e);
  });

  it('fillets and chamfers POLYLINE corners as bulges and bevels, tangent within 1e-9', async () => {
    const e = engine();
    const sq = await polyline2d(e, [[20, 0], [30, 0], [30, 10], [20, 10]], { closed: true });
    const l = await polyline2d(e, [[0, 0], [10, 0], [10, 10]]);
    const r = await undoable(e, 'fillet', { handles: [sq], radius: 1, polyline: true });
    expect(r).toEqual({ created: [], modified: [sq], erased: [] });
    const q = vertices(e, sq);
    expect(q).toHaveLength(8);
    for (let i = 0; i < 8; i += 2) expect(q[i]![2]).toBeCloseTo(Q, 12);
    close(q[0]!, [20, 1]);
    close(q[1]!, [21, 0]);
    // The arc from (20, 1) to (21, 0) of bulge tan(22.5°) has its centre at (21, 1): tangent to both sides.
    const sw = 4 * Math.atan(q[0]![2]!);
    const chord = Math.hypot(1, 1), rad = chord / (2 * Math.sin(sw / 2));
    expect(Math.abs(rad - 1)).toBeLessThan(1e-9);
    expect(flagsOf(e, sq) & 1).toBe(1);
    await undoable(e, 'chamfer', { handles: [l, l], distances: [2, 3], points: [[5, 0], [10, 5]] });
    expect(vertices(e, l)).toEqual([[0, 0, 0], [8, 0, 0], [10, 3, 0], [10, 10, 0]]);
    if (hasEzdxf) {
      const z = await audited(e);
      expect(z[sq].points).toHaveLength(8);
    }
  });

  it('runs OFFSET and FILLET on a POLYLINE picked by point on the command line', async () => {
    const e = engine();
    const pl = await polyline2d(e, [[0, 0], [10, 0], [10, 10], [0, 10]], { closed: true });
    const r = await ok(e, 'command', { cmd: 'OFFSET 1 5,0 5,5' });
    const made = r.commands[0].created[0];
    expect(vertices(e, made).map((p) => [p[0], p[1]])).toEqual([[1, 1], [9, 1], [9, 9], [1, 9]]);
    await ok(e, 'command', { cmd: 'FILLET R 2 P 10,5' });
    const v = vertices(e, pl);
    expect(v).toHaveLength(8);
    close(v[0]!, [0, 2, Q]);
    close(v[2]!, [8, 0, Q]);
    if (hasEzdxf) await audited(e);
  });

  it('joins a line onto a POLYLINE (the POLYLINE kept) and explodes it into lines and arcs', async () => {
    const { e, h } = await drawing([{ type: 'Line', start: [10, 4], end: [0, 4] }]);
    const pl = await polyline2d(e, [[0, 0, 0], [10, 0, 1], [10, 4]]);
    const j = await undoable(e, 'join', { handles: [pl, h[0]] });
    expect(j).toEqual({ created: [], modified: [pl], erased: [h[0]] });
    vertices(e, pl).forEach((v, i) => close(v, [[0, 0, 0], [10, 0, 1], [10, 4, 0], [0, 4, 0]][i]!));
    const x = await undoable(e, 'explode', { handles: [pl] });
    const types = await Promise.all(x.created.map(async (c: string) => (await get(e, c)).type));
    expect(types).toEqual(['Line', 'Arc', 'Line']);
    if (hasEzdxf) await audited(e);
  });
});
