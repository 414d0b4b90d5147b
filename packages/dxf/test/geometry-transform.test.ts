import { describe, expect, it } from 'vitest';
import {
  Matrix44, boundingBox, mirrorEntity, moveEntity, rotateEntity, scaleEntity, transformEntity, bulgeToArc, ocsFromExtrusion, ocsToWcs, wcsToOcs,
} from '../src/geometry/index.js';
import type { Entity } from '../src/types.js';
import { entityAttr } from '../src/entities/index.js';
import { close, ent } from './geometry-helpers.js';

function deepClose(a: unknown, b: unknown, eps = 1e-9): boolean {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Math.abs(a - b) <= eps) return true;
    // angles in degrees may wrap
    const d = Math.abs(a - b) % 360;
    return Math.min(d, 360 - d) <= eps;
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepClose(x, b[i], eps));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a as object).filter((k) => (a as any)[k] !== undefined);
    return ka.every((k) => deepClose((a as any)[k], (b as any)[k], eps));
  }
  return a === b;
}

const SAMPLES: Entity[] = [
  ent('LINE', { start: [1, 2, 0], end: [4, 6, 0] }),
  ent('POINT', { location: [1, 2, 3] }),
  ent('CIRCLE', { center: [1, 2, 0], radius: 3 }),
  ent('ARC', { center: [1, 2, 0], radius: 3, start_angle: 10, end_angle: 120 }),
  ent('ARC', { center: [1, 2, 5], radius: 3, start_angle: 10, end_angle: 120, extrusion: [0, 0, -1] }),
  ent('ELLIPSE', { center: [1, 2, 0], major_axis: [3, 1, 0], ratio: 0.5, start_param: 0.3, end_param: 2 }),
  ent('LWPOLYLINE', { points: [[0, 0, 0, 0, 0.4], [5, 0, 1, 1, 0], [5, 5, 0, 0, -0.3]], flags: 1 }),
  ent('SPLINE', { degree: 3, control_points: [[0, 0, 0], [1, 2, 0], [3, 2, 0], [4, 0, 0]], knots: [0, 0, 0, 0, 1, 1, 1, 1] }),
  ent('TEXT', { insert: [1, 1, 0], height: 2, text: 'Hello', rotation: 30, oblique: 10 }),
  ent('MTEXT', { insert: [1, 1, 0], char_height: 2, text: 'Hi', width: 10 }),
  ent('INSERT', { name: 'B', insert: [3, 4, 0], rotation: 20, xscale: 2, yscale: 2 }),
  ent('SOLID', { vtx0: [0, 0, 0], vtx1: [1, 0, 0], vtx2: [0, 1, 0], vtx3: [1, 1, 0] }),
  ent('3DFACE', { vtx0: [0, 0, 0], vtx1: [1, 0, 0], vtx2: [0, 1, 1], vtx3: [1, 1, 1] }),
  ent('HATCH', {
    elevation: [0, 0, 0], pattern_name: 'SOLID', solid_fill: 1,
    paths: [
      { flags: 3, type: 'polyline', is_closed: true, vertices: [[0, 0, 0], [4, 0, 0.5], [4, 4, 0]], source_handles: [] },
      { flags: 1, type: 'edges', source_handles: [], edges: [
        { type: 'line', start: [0, 0], end: [2, 0] },
        { type: 'arc', center: [2, 1], radius: 1, start_angle: 270, end_angle: 450, ccw: true },
        { type: 'ellipse', center: [1, 2], major_axis: [1, 0], ratio: 0.5, start_angle: 0, end_angle: 180, ccw: true },
      ] },
    ],
    seed_points: [[1, 1]],
  }),
  ent('DIMENSION', { defpoint: [0, 0, 0], text_midpoint: [2, 1, 0], defpoint2: [0, 0, 0], defpoint3: [4, 0, 0], dimtype: 32 }),
  ent('LEADER', { vertices: [[0, 0, 0], [2, 2, 0]] }),
  ent('IMAGE', { insert: [0, 0, 0], u_pixel: [0.1, 0, 0], v_pixel: [0, 0.1, 0], image_size: [10, 10] }),
  ent('XLINE', { start: [1, 1, 0], unit_vector: [1, 0, 0] }),
  ent('RAY', { start: [1, 1, 0], unit_vector: [0, 1, 0] }),
];

const OPS: [string, Matrix44][] = [
  ['move', Matrix44.translate(5, -3, 1)],
  ['rotate', Matrix44.rotateZAround([2, 3, 0], 0.7)],
  ['scale', Matrix44.scaleAround([1, -1, 0], 2.5)],
  ['mirror', Matrix44.mirror([0, 0, 0], [1, 2, 0])],
];

describe('transformEntity is undo-able', () => {
  for (const [name, m] of OPS) {
    for (const s of SAMPLES) {
      it(`${name} ${s.type}`, () => {
        const e = structuredClone(s);
        const r1 = transformEntity(e, m);
        expect(r1).toBeUndefined();
        transformEntity(e, m.inverse());
        // attributes written with their default value count as absent
        const keys = new Set([...Object.keys(e.attrs), ...Object.keys(s.attrs)]);
        for (const k of keys) expect(deepClose(entityAttr(e, k), entityAttr(s, k)), `${k}: ${JSON.stringify(e.attrs)}`).toBe(true);
      });
    }
  }
});

describe('transformEntity results', () => {
  it('moves a line and rotates an arc', () => {
    const l = ent('LINE', { start: [0, 0, 0], end: [1, 0, 0] });
    moveEntity(l, [1, 2, 3]);
    expect(l.attrs).toMatchObject({ start: [1, 2, 3], end: [2, 2, 3] });
    const a = ent('ARC', { center: [1, 0, 0], radius: 1, start_angle: 0, end_angle: 90 });
    rotateEntity(a, [0, 0, 0], 90);
    expect(close(a.attrs.center as number[], [0, 1, 0])).toBe(true);
    expect(a.attrs.start_angle).toBeCloseTo(90, 9);
    expect(a.attrs.end_angle).toBeCloseTo(180, 9);
  });
  it('mirrors an arc keeping extrusion (0,0,1) and swapping angles', () => {
    const a = ent('ARC', { center: [2, 0, 0], radius: 1, start_angle: 0, end_angle: 90 });
    mirrorEntity(a, [0, 0, 0], [0, 1, 0]);
    expect(close(a.attrs.center as number[], [-2, 0, 0])).toBe(true);
    expect(a.attrs.start_angle).toBeCloseTo(90, 9);
    expect(a.attrs.end_angle).toBeCloseTo(180, 9);
    expect(a.attrs.extrusion).toBeUndefined();
  });
  it('mirrors bulges and text', () => {
    const p = ent('LWPOLYLINE', { points: [[0, 0, 0, 0, 1], [2, 0, 0, 0, 0]] });
    mirrorEntity(p, [0, 0, 0], [1, 0, 0]);
    expect(p.attrs.points).toEqual([[0, 0, 0, 0, -1], [2, 0, 0, 0, 0]]);
    const t = ent('TEXT', { insert: [1, 0, 0], height: 1, text: 'AB' });
    const before = boundingBox(t)!;
    mirrorEntity(t, [0, 0, 0], [0, 1, 0]);
    expect(t.attrs.text_generation_flag).toBe(2);
    const after = boundingBox(t)!;
    expect(after.min[0]).toBeCloseTo(-before.max[0], 9);
    expect(after.max[0]).toBeCloseTo(-before.min[0], 9);
  });
  it('scales a circle non-uniformly into an ellipse with the same handle', () => {
    const c = ent('CIRCLE', { center: [1, 1, 0], radius: 2, layer: 'L1' });
    const r = transformEntity(c, Matrix44.scale(3, 1, 1));
    expect(r).toBeDefined();
    expect(r!.type).toBe('ELLIPSE');
    expect(r!.handle).toBe(c.handle);
    expect(r!.attrs.layer).toBe('L1');
    expect(close(r!.attrs.center as number[], [3, 1, 0])).toBe(true);
    expect(close(r!.attrs.major_axis as number[], [6, 0, 0])).toBe(true);
    expect(r!.attrs.ratio).toBeCloseTo(1 / 3, 12);
    const b = boundingBox(r!)!;
    expect(close(b.min, [-3, -1, 0])).toBe(true);
    expect(close(b.max, [9, 3, 0])).toBe(true);
  });
  it('scales an arc non-uniformly into an elliptical arc over the same points', () => {
    const a = ent('ARC', { center: [0, 0, 0], radius: 1, start_angle: 0, end_angle: 90 });
    const r = transformEntity(a, Matrix44.scale(1, 2, 1))!;
    expect(r.type).toBe('ELLIPSE');
    const b = boundingBox(r)!;
    expect(close(b.min, [0, 0, 0])).toBe(true);
    expect(close(b.max, [1, 2, 0])).toBe(true);
  });
  it('OCS circle (0,0,-1) moves in WCS', () => {
    const c = ent('CIRCLE', { center: [3, 1, 2], radius: 1, extrusion: [0, 0, -1] });
    moveEntity(c, [1, 0, 0]);
    // WCS center (-3,1,-2) -> (-2,1,-2) -> OCS (2,1,2)
    expect(close(c.attrs.center as number[], [2, 1, 2])).toBe(true);
  });
  it('rotates and scales inserts, with their attributes', () => {
    const att = ent('ATTRIB', { insert: [4, 0, 0], height: 1, text: 'X', tag: 'T' });
    const i = ent('INSERT', { name: 'B', insert: [1, 0, 0] }, [att]);
    rotateEntity(i, [0, 0, 0], 90);
    scaleEntity(i, [0, 0, 0], 2);
    expect(close(i.attrs.insert as number[], [0, 2, 0])).toBe(true);
    expect(i.attrs.rotation).toBeCloseTo(90, 9);
    expect(i.attrs.xscale).toBe(2);
    expect(close(att.attrs.insert as number[], [0, 8, 0])).toBe(true);
    expect(att.attrs.height).toBeCloseTo(2, 12);
    mirrorEntity(i, [0, 0, 0], [0, 1, 0]);
    expect(i.attrs.xscale).toBe(-2);
  });
  it('OCS helpers are inverse', () => {
    const ocs = ocsFromExtrusion([0.3, -0.4, 0.8]);
    const p = [1, 2, 3];
    expect(close(wcsToOcs(ocs, ocsToWcs(ocs, p)), p)).toBe(true);
    const arc = bulgeToArc([0, 0], [2, 0], 1);
    expect(close(arc.center, [1, 0])).toBe(true);
    expect(arc.radius).toBeCloseTo(1, 12);
  });
  it('Matrix44 compositions', () => {
    const m = Matrix44.translate(1, 2, 3).then(Matrix44.rotateZ(Math.PI / 2));
    expect(close(m.transformPoint([1, 0, 0]), [-2, 2, 3])).toBe(true);
    expect(close(m.transformDirection([1, 0, 0]), [0, 1, 0])).toBe(true);
    expect(m.then(m.inverse()).isIdentity(1e-12)).toBe(true);
    expect(Matrix44.mirror([0, 0], [1, 1]).determinant()).toBeCloseTo(-1, 12);
    expect(close(Matrix44.mirror([0, 1], [1, 1]).transformPoint([3, 3, 0]), [3, -1, 0])).toBe(true);
  });
});
