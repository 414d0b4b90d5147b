// Consecutive pieces of one curve as one segment again (a trimmed circle's two arcs across its
// seam are one arc; an ellipse's two pieces one elliptical arc).
import type { Seg } from './curve.js';
import { dist } from './vec2.js';

export function mergeSegs(segs: Seg[]): Seg[] {
  const out: Seg[] = [];
  for (const s of segs) {
    const last = out[out.length - 1];
    if (last && last.k === 'arc' && s.k === 'arc' && dist(last.c, s.c) < 1e-12 * (1 + last.r) && Math.abs(last.r - s.r) < 1e-12 * last.r && Math.sign(last.sw) === Math.sign(s.sw)) {
      out[out.length - 1] = { ...last, sw: last.sw + s.sw };
      continue;
    }
    if (last && last.k === 'ell' && s.k === 'ell' && dist(last.c, s.c) === 0 && dist(last.u, s.u) === 0 && dist(last.v, s.v) === 0 && Math.sign(last.sw) === Math.sign(s.sw)) {
      out[out.length - 1] = { ...last, sw: last.sw + s.sw };
      continue;
    }
    out.push(s);
  }
  return out;
}
