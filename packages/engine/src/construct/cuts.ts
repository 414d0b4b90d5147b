// Where edges cut a path: the global parameters of every crossing, for trim and break.
import type { Entity } from '../dxf.js';
import { type Path, type Seg, point, samples } from './curve.js';
import { intersect } from './intersect.js';
import { type Box, type EdgeSource, segsBox } from './edges.js';
import type { P } from './vec2.js';

export function segBox(s: Seg, pad: number): Box {
  const n = samples(s);
  const pts: P[] = [];
  for (let i = 0; i <= n; i++) pts.push(point(s, i / n));
  // Arcs and curves bulge between samples: pad by the chord sagitta bound.
  const extra = s.k === 'arc' ? s.r * (1 - Math.cos(Math.abs(s.sw) / n / 2)) : s.k === 'line' ? 0 : segsBox(pts, 0).maxX - segsBox(pts, 0).minX;
  return segsBox(pts, pad + (s.k === 'ell' || s.k === 'spl' ? extra / n : extra));
}

const meets = (a: Box, b: Box | null) => !!b && a.minX <= b.maxX && a.maxX >= b.minX && a.minY <= b.maxY && a.maxY >= b.minY;

/** Global parameters (segment index + t) where the entities cut the path, sorted, deduplicated. */
export function cutsOf(path: Path, edges: Entity[], src: EdgeSource, pad: number): number[] {
  const boxes = path.segs.map((s) => segBox(s, pad));
  const cuts: number[] = [];
  for (const e of edges) {
    const { segs } = src.segsOf(e);
    for (const es of segs) {
      const eb = segBox(es, pad);
      path.segs.forEach((ts, i) => {
        if (!meets(boxes[i]!, eb)) return;
        for (const h of intersect(ts, es)) cuts.push(i + h.ta);
      });
    }
  }
  cuts.sort((a, b) => a - b);
  const out: number[] = [];
  for (const c of cuts) if (!out.length || c - out[out.length - 1]! > 1e-9) out.push(c);
  return out;
}
