// The modify ops on many picks over a drawing of every curve type: each call succeeds or fails
// with a typed code (never internal_error), and a failure leaves the drawing unchanged.
import { describe, expect, it } from 'vitest';
import { active, call, dump } from './helpers.js';
import { drawing } from './modify-helpers.js';

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('modify ops on random picks', () => {
  it('never fail untyped and never leave a failed op half done', async () => {
    const { e, h } = await drawing([
      { type: 'Line', start: [0, 0], end: [10, 10] },
      { type: 'Line', start: [0, 10], end: [10, 0] },
      { type: 'Circle', center: [5, 5], radius: 3 },
      { type: 'Arc', center: [5, 5], radius: 5, start_angle: 30, end_angle: 250 },
      { type: 'Ellipse', center: [5, 5], major_axis: [6, 1], ratio: 0.4 },
      { type: 'LWPolyline', points: [[0, 2], [4, 2, 0, 0, 0.5], [8, 3], [10, 8, 0, 0, -0.3], [2, 9]], closed: true },
      { type: 'Spline', control_points: [[0, 5], [3, 9], [6, 1], [10, 5]] },
      { type: 'Line', start: [-5, 5], end: [15, 5] },
    ]);
    const r = rng(7);
    const pt = () => [Math.round(r() * 120 - 10) / 10 * 1, Math.round(r() * 120 - 10) / 10];
    const pick = () => h[Math.floor(r() * h.length)]!;
    const codes = new Map<string, number>();
    for (let i = 0; i < 160; i++) {
      const op = ['offset', 'trim', 'extend', 'fillet', 'chamfer', 'break', 'join'][i % 7]!;
      const fields: Record<string, unknown> = {
        offset: { handle: pick(), distance: 0.1 + r() * 3, side: pt() },
        trim: { handle: pick(), point: pt() },
        extend: { handle: pick(), point: pt() },
        fillet: { handles: [pick(), pick()], radius: r() * 2, points: [pt(), pt()] },
        chamfer: { handles: [pick(), pick()], distances: [r(), r()] },
        break: { handle: pick(), points: r() < 0.5 ? [pt()] : [pt(), pt()] },
        join: { handles: [pick(), pick()] },
      }[op] as Record<string, unknown>;
      const before = dump(active(e).doc);
      const res = await call(e, op, fields);
      const key = res.ok ? `${op}:ok` : `${op}:${res.code}`;
      codes.set(key, (codes.get(key) ?? 0) + 1);
      expect(res.code, `${op} ${JSON.stringify(fields)}: ${res.error}`).not.toBe('internal_error');
      if (!res.ok) expect(dump(active(e).doc), `${op} failed but changed the drawing`).toBe(before);
      else await call(e, 'undo');
      expect(dump(active(e).doc)).toBe(before);
    }
    // The picks reach successes and typed failures both.
    expect([...codes.keys()].some((k) => k.endsWith(':ok'))).toBe(true);
  });
});
