import { describe, expect, it } from 'vitest';
import { BoxMemo, boundingBox, extents } from '../src/geometry/index.js';
import type { BBox } from '../src/geometry/index.js';
import { docWith, ent } from './geometry-helpers.js';

function expectBox(b: BBox | null, min: number[], max: number[], digits = 9): void {
  expect(b).not.toBeNull();
  b!.min.forEach((v, i) => expect(v).toBeCloseTo(min[i]!, digits));
  b!.max.forEach((v, i) => expect(v).toBeCloseTo(max[i]!, digits));
}

describe('boundingBox', () => {
  it('LINE, POINT, CIRCLE', () => {
    expectBox(boundingBox(ent('LINE', { start: [5, 1, 0], end: [-1, 3, 2] })), [-1, 1, 0], [5, 3, 2]);
    expectBox(boundingBox(ent('POINT', { location: [1, 2, 3] })), [1, 2, 3], [1, 2, 3]);
    expectBox(boundingBox(ent('CIRCLE', { center: [1, 1, 0], radius: 2 })), [-1, -1, 0], [3, 3, 0]);
  });
  it('ARC across quadrants: only extremes on the arc', () => {
    // 45° .. 200°: passes 90 and 180, not 0 or 270
    const b = boundingBox(ent('ARC', { center: [0, 0, 0], radius: 1, start_angle: 45, end_angle: 200 }));
    expectBox(b, [-1, Math.sin((200 * Math.PI) / 180), 0], [Math.cos(Math.PI / 4), 1, 0]);
    // wrapping arc 300° .. 60° passes 0 only
    expectBox(boundingBox(ent('ARC', { center: [0, 0, 0], radius: 2, start_angle: 300, end_angle: 60 })), [1, -Math.sqrt(3), 0], [2, Math.sqrt(3), 0]);
  });
  it('OCS circle and arc with extrusion (0,0,-1)', () => {
    // OCS x axis is -X: center (3,1) in OCS is (-3,1) in WCS, z = -elevation
    expectBox(boundingBox(ent('CIRCLE', { center: [3, 1, 2], radius: 1, extrusion: [0, 0, -1] })), [-4, 0, -2], [-2, 2, -2]);
    // arc 0..90 in OCS -> WCS from (-1,0) to (0,1) through (-cos, sin)
    expectBox(boundingBox(ent('ARC', { center: [0, 0, 0], radius: 1, start_angle: 0, end_angle: 90, extrusion: [0, 0, -1] })), [-1, 0, 0], [0, 1, 0]);
  });
  it('LWPOLYLINE with bulges', () => {
    // half circle bulge 1 from (0,0) to (2,0): ccw, below the chord
    expectBox(boundingBox(ent('LWPOLYLINE', { points: [[0, 0, 0, 0, 1], [2, 0, 0, 0, 0]] })), [0, -1, 0], [2, 0, 0]);
    expectBox(boundingBox(ent('LWPOLYLINE', { points: [[0, 0, 0, 0, -1], [2, 0, 0, 0, 0]], elevation: 4 })), [0, 0, 4], [2, 1, 4]);
    // closing segment bulge counts only when closed
    const pts = [[0, 0, 0, 0, 0], [2, 0, 0, 0, 0], [2, 2, 0, 0, 1]];
    expectBox(boundingBox(ent('LWPOLYLINE', { points: pts, flags: 0 })), [0, 0, 0], [2, 2, 0]);
    const closed = boundingBox(ent('LWPOLYLINE', { points: pts, flags: 1 }))!;
    expect(closed.min[0]).toBeLessThan(0);
  });
  it('rotated ellipse arc', () => {
    // major axis along 45°, a = 2, b = 1, upper half (params 0..π)
    const s = Math.SQRT1_2;
    const b = boundingBox(ent('ELLIPSE', { center: [0, 0, 0], major_axis: [2 * s, 2 * s, 0], ratio: 0.5, start_param: 0, end_param: Math.PI }))!;
    // x(t) = 2s cos t - s sin t, y(t) = 2s cos t + s sin t
    const xs: number[] = [];
    const ys: number[] = [];
    for (let i = 0; i <= 100000; i++) {
      const t = (Math.PI * i) / 100000;
      xs.push(2 * s * Math.cos(t) - s * Math.sin(t));
      ys.push(2 * s * Math.cos(t) + s * Math.sin(t));
    }
    expect(b.min[0]).toBeCloseTo(Math.min(...xs), 6);
    expect(b.max[0]).toBeCloseTo(Math.max(...xs), 6);
    expect(b.min[1]).toBeCloseTo(Math.min(...ys), 6);
    expect(b.max[1]).toBeCloseTo(Math.max(...ys), 6);
  });
  it('SPLINE: tight box of a quadratic Bézier', () => {
    const b = boundingBox(ent('SPLINE', { degree: 2, knots: [0, 0, 0, 1, 1, 1], control_points: [[0, 0, 0], [1, 2, 0], [2, 0, 0]] }))!;
    expectBox(b, [0, 0, 0], [2, 1, 0], 3);
  });
  it('TEXT alignment, rotation, width factor', () => {
    // 4 chars, height 1 -> width 2.4
    expectBox(boundingBox(ent('TEXT', { insert: [0, 0, 0], height: 1, text: 'ABCD' })), [0, 0, 0], [2.4, 1, 0]);
    // centered (halign 1, valign 2 = middle) at align point (10, 10)
    expectBox(boundingBox(ent('TEXT', { insert: [0, 0, 0], align_point: [10, 10, 0], height: 1, text: 'ABCD', halign: 1, valign: 2 })), [8.8, 9.5, 0], [11.2, 10.5, 0]);
    // right aligned, rotated 90°, width factor 0.5
    expectBox(boundingBox(ent('TEXT', { insert: [0, 0, 0], align_point: [0, 0, 0], height: 1, text: 'ABCD', halign: 2, rotation: 90, width: 0.5 })), [-1, -1.2, 0], [0, 0, 0]);
    // ALIGNED: spans insert -> align point
    expectBox(boundingBox(ent('TEXT', { insert: [0, 0, 0], align_point: [4.8, 0, 0], height: 1, text: 'ABCD', halign: 3 })), [0, 0, 0], [4.8, 2, 0]);
  });
  it('MTEXT by rect_width / attachment', () => {
    expectBox(boundingBox(ent('MTEXT', { insert: [0, 10, 0], char_height: 2, text: 'hello', rect_width: 20, rect_height: 5, attachment_point: 1 })), [0, 5, 0], [20, 10, 0]);
    expectBox(boundingBox(ent('MTEXT', { insert: [0, 0, 0], char_height: 1, text: 'ab\\Pcd', attachment_point: 5 })), [-0.6, -(1 + 5 / 3) / 2, 0], [0.6, (1 + 5 / 3) / 2, 0]);
  });
  it('HATCH by its boundary', () => {
    const paths = [{ flags: 1, type: 'edges', source_handles: [], edges: [
      { type: 'line', start: [0, 0], end: [4, 0] },
      { type: 'arc', center: [4, 2], radius: 2, start_angle: 270, end_angle: 90, ccw: true },
      { type: 'line', start: [4, 4], end: [0, 4] },
      { type: 'line', start: [0, 4], end: [0, 0] },
    ] }];
    expectBox(boundingBox(ent('HATCH', { paths, elevation: [0, 0, 1] })), [0, 0, 1], [6, 4, 1]);
  });
  it('nested INSERT with scale/rotation, attributes, and MINSERT', () => {
    const doc = docWith({
      INNER: { entities: [ent('LINE', { start: [0, 0, 0], end: [1, 0, 0] })] },
      OUTER: { base: [1, 1, 0], entities: [ent('INSERT', { name: 'INNER', insert: [1, 1, 0], xscale: 2, yscale: 2 }), ent('CIRCLE', { center: [1, 1, 0], radius: 0.5 })] },
    });
    // OUTER content (relative to base 1,1): line (0,0)-(2,0), circle r .5 at (0,0)
    const ins = ent('INSERT', { name: 'OUTER', insert: [10, 0, 0], rotation: 90, xscale: 3, yscale: 3 });
    // rotated 90°, scale 3: line -> (10,0)-(10,6); circle r 1.5 at (10,0)
    expectBox(boundingBox(ins, doc), [8.5, -1.5, 0], [11.5, 6, 0]);
    const att = ent('ATTRIB', { insert: [20, 20, 0], height: 1, text: 'X', tag: 'T' });
    const withAtt = ent('INSERT', { name: 'OUTER', insert: [10, 0, 0], rotation: 90, xscale: 3, yscale: 3 }, [att]);
    expectBox(boundingBox(withAtt, doc), [8.5, -1.5, 0], [20.6, 21, 0]);
    const minsert = ent('INSERT', { name: 'INNER', insert: [0, 0, 0], column_count: 3, row_count: 2, column_spacing: 5, row_spacing: 10 });
    expectBox(boundingBox(minsert, doc), [0, 0, 0], [11, 10, 0]);
  });
  it('a BoxMemo shared by many INSERTs gives each the box it has alone (nested, rotated, arrays, attributes)', () => {
    const doc = docWith({
      INNER: { entities: [ent('LINE', { start: [0, 0, 0], end: [1, 0, 0] }), ent('ARC', { center: [0, 0, 0], radius: 1, start_angle: 10, end_angle: 80 })] },
      OUTER: { base: [1, 1, 0], entities: [ent('INSERT', { name: 'INNER', insert: [1, 1, 0], xscale: 2, yscale: 2 }), ent('CIRCLE', { center: [1, 1, 0], radius: 0.5 })] },
    });
    const refs = [
      ent('INSERT', { name: 'OUTER', insert: [10, 0, 0], rotation: 90, xscale: 3, yscale: 3 }),
      ent('INSERT', { name: 'OUTER', insert: [-4, 2, 0], rotation: 33, xscale: -1, yscale: 2 }, [ent('ATTRIB', { insert: [20, 20, 0], height: 1, text: 'X', tag: 'T' })]),
      ent('INSERT', { name: 'INNER', insert: [0, 0, 0], column_count: 3, row_count: 2, column_spacing: 5, row_spacing: 10 }),
      ent('INSERT', { name: 'INNER', insert: [7, 7, 0], rotation: 200 }),
      ent('INSERT', { name: 'MISSING', insert: [0, 0, 0] }),
      ent('LINE', { start: [0, 0, 0], end: [3, 4, 0] }),
    ];
    const memo = new BoxMemo();
    for (const r of refs) expect(boundingBox(r, doc, memo)).toEqual(boundingBox(r, doc));
    // and once more, every block's work already done
    for (const r of refs) expect(boundingBox(r, doc, memo)).toEqual(boundingBox(r, doc));
  });
  it('unbounded and empty', () => {
    expect(boundingBox(ent('XLINE', { start: [0, 0, 0], unit_vector: [1, 0, 0] }))).toBeNull();
    expect(boundingBox(ent('RAY', { start: [0, 0, 0], unit_vector: [1, 0, 0] }))).toBeNull();
    expect(boundingBox(ent('SEQEND', {}))).toBeNull();
    expect(boundingBox(ent('INSERT', { name: 'MISSING', insert: [0, 0, 0] }), docWith({}))).toBeNull();
    expectBox(extents([ent('LINE', { start: [0, 0, 0], end: [1, 1, 0] }), ent('XLINE', { start: [9, 9, 9], unit_vector: [1, 0, 0] }), ent('POINT', { location: [-1, 5, 0] })]), [-1, 0, 0], [1, 5, 0]);
  });
  it('is fast for the hot types', () => {
    const list = [];
    for (let i = 0; i < 200000; i++) {
      list.push(ent('LINE', { start: [i, 0, 0], end: [i + 1, 1, 0] }));
      list.push(ent('ARC', { center: [i, 0, 0], radius: 1, start_angle: 10, end_angle: 100 }));
      list.push(ent('LWPOLYLINE', { points: [[0, 0, 0, 0, 0], [1, 0, 0, 0, 0.3], [1, 1, 0, 0, 0]] }));
      list.push(ent('TEXT', { insert: [i, 0, 0], height: 1, text: 'hello' }));
      list.push(ent('POINT', { location: [i, 1, 0] }));
    }
    const t0 = performance.now();
    for (const e of list) boundingBox(e);
    const ms = performance.now() - t0;
    expect(ms).toBeLessThan(3000); // 1M entities; ~1 s on an idle core
  });
});
