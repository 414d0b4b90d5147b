// The planar arrangement of flattened curves: segments split where they cross, joined where their
// ends meet, dangling pieces pruned, then faces traced with the face on the left of each half-edge
// (bounded faces run counter-clockwise, the outline of each connected piece clockwise). Hatch by
// point picks the face around the point from it.

/** A straight piece of a curve; `src` names the exact curve it approximates. */
export interface Seg {
  ax: number;
  ay: number;
  bx: number;
  by: number;
  src: number;
}

export interface HalfEdge {
  from: number;
  to: number;
  twin: number;
  next: number;
  src: number;
  angle: number;
}

export interface Cycle {
  edges: number[];
  area: number;
  component: number;
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export interface Arrangement {
  xs: number[];
  ys: number[];
  edges: HalfEdge[];
  cycles: Cycle[];
  /** Cycle of each half-edge. */
  cycleOf: Int32Array;
  /** Ends of curves that meet nothing (before pruning): where a boundary has gaps. */
  freeEnds: [number, number][];
}

/** Builds the arrangement; `eps` is the distance under which two points are one. */
export function buildArrangement(segs: Seg[], eps: number): Arrangement {
  const cuts = splitParams(segs, eps);
  const xs: number[] = [];
  const ys: number[] = [];
  // points closer than eps are one vertex: a hash grid of cells 4 eps wide (numeric keys;
  // colliding cells are told apart by the coordinate check)
  const grid = new Map<number, number[]>();
  const cell = eps * 4;
  const key = (gx: number, gy: number) => (Math.imul(gx | 0, 73856093) ^ Math.imul(gy | 0, 19349663)) >>> 0;
  const vertexAt = (x: number, y: number): number => {
    const gx = Math.floor(x / cell), gy = Math.floor(y / cell);
    for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) {
      const list = grid.get(key(gx + dx, gy + dy));
      if (!list) continue;
      for (const v of list) if (Math.abs(xs[v]! - x) <= eps && Math.abs(ys[v]! - y) <= eps) return v;
    }
    const id = xs.length;
    xs.push(x);
    ys.push(y);
    const k = key(gx, gy);
    const l = grid.get(k);
    if (l) l.push(id);
    else grid.set(k, [id]);
    return id;
  };
  // undirected edges, deduplicated (curves drawn twice, overlapping collinear pieces)
  const seen = new Map<number, number>();
  const und: { a: number; b: number; src: number }[] = [];
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]!;
    const ts = cuts[i]!.sort((p, q) => p - q);
    let prev = vertexAt(s.ax, s.ay);
    for (const t of ts) {
      if (t <= 0) continue;
      const v = t >= 1 ? vertexAt(s.bx, s.by) : vertexAt(s.ax + (s.bx - s.ax) * t, s.ay + (s.by - s.ay) * t);
      if (v !== prev) {
        const k = prev < v ? prev * 4294967296 + v : v * 4294967296 + prev;
        if (!seen.has(k)) {
          seen.set(k, und.length);
          und.push({ a: prev, b: v, src: s.src });
        }
      }
      prev = v;
    }
    const end = vertexAt(s.bx, s.by);
    if (end !== prev) {
      const k = prev < end ? prev * 4294967296 + end : end * 4294967296 + prev;
      if (!seen.has(k)) {
        seen.set(k, und.length);
        und.push({ a: prev, b: end, src: s.src });
      }
    }
  }
  // prune dangling edges: a vertex of degree 1 cannot be on a closed boundary
  const nv = xs.length;
  const deg = new Int32Array(nv);
  const incident: number[][] = Array.from({ length: nv }, () => []);
  und.forEach((e, i) => {
    deg[e.a]!++;
    deg[e.b]!++;
    incident[e.a]!.push(i);
    incident[e.b]!.push(i);
  });
  const freeEnds: [number, number][] = [];
  for (let v = 0; v < nv; v++) if (deg[v] === 1) freeEnds.push([xs[v]!, ys[v]!]);
  const alive = new Uint8Array(und.length).fill(1);
  const stack: number[] = [];
  for (let v = 0; v < nv; v++) if (deg[v] === 1) stack.push(v);
  while (stack.length) {
    const v = stack.pop()!;
    if (deg[v] !== 1) continue;
    for (const ei of incident[v]!) {
      if (!alive[ei]) continue;
      alive[ei] = 0;
      const e = und[ei]!;
      const o = e.a === v ? e.b : e.a;
      deg[v]!--;
      deg[o]!--;
      if (deg[o] === 1) stack.push(o);
      break;
    }
  }
  // half-edges, sorted around each vertex by angle
  const edges: HalfEdge[] = [];
  const out: number[][] = Array.from({ length: nv }, () => []);
  und.forEach((e, i) => {
    if (!alive[i]) return;
    const h = edges.length;
    edges.push({ from: e.a, to: e.b, twin: h + 1, next: -1, src: e.src, angle: Math.atan2(ys[e.b]! - ys[e.a]!, xs[e.b]! - xs[e.a]!) });
    edges.push({ from: e.b, to: e.a, twin: h, next: -1, src: e.src, angle: Math.atan2(ys[e.a]! - ys[e.b]!, xs[e.a]! - xs[e.b]!) });
    out[e.a]!.push(h);
    out[e.b]!.push(h + 1);
  });
  const pos = new Int32Array(edges.length);
  for (const list of out) {
    list.sort((p, q) => edges[p]!.angle - edges[q]!.angle);
    list.forEach((h, i) => { pos[h] = i; });
  }
  // the face on the left: at the end of h, take the edge just clockwise of h's twin
  for (let h = 0; h < edges.length; h++) {
    const e = edges[h]!;
    const list = out[e.to]!;
    const tw = e.twin;
    e.next = list[(pos[tw]! - 1 + list.length) % list.length]!;
  }
  // components (union-find over vertices of live edges)
  const parent = new Int32Array(nv).map((_, i) => i);
  const find = (v: number): number => {
    while (parent[v] !== v) {
      parent[v] = parent[parent[v]!]!;
      v = parent[v]!;
    }
    return v;
  };
  for (const e of edges) {
    const a = find(e.from), b = find(e.to);
    if (a !== b) parent[a] = b;
  }
  const cycleOf = new Int32Array(edges.length).fill(-1);
  const cycles: Cycle[] = [];
  for (let h0 = 0; h0 < edges.length; h0++) {
    if (cycleOf[h0] !== -1) continue;
    const list: number[] = [];
    let area = 0;
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    let h = h0;
    let guard = 0;
    do {
      cycleOf[h] = cycles.length;
      list.push(h);
      const e = edges[h]!;
      const x0 = xs[e.from]!, y0 = ys[e.from]!, x1 = xs[e.to]!, y1 = ys[e.to]!;
      area += x0 * y1 - x1 * y0;
      if (x0 < minX) minX = x0;
      if (x0 > maxX) maxX = x0;
      if (y0 < minY) minY = y0;
      if (y0 > maxY) maxY = y0;
      h = e.next;
    } while (h !== h0 && ++guard <= edges.length);
    cycles.push({ edges: list, area: area / 2, component: find(edges[h0]!.from), minX, minY, maxX, maxY });
  }
  return { xs, ys, edges, cycles, cycleOf, freeEnds };
}

/** Parameters (0..1) where each segment meets another: a sweep over x with the active segments. */
function splitParams(segs: Seg[], eps: number): number[][] {
  const cuts: number[][] = segs.map(() => []);
  const order = segs.map((_, i) => i).sort((p, q) => Math.min(segs[p]!.ax, segs[p]!.bx) - Math.min(segs[q]!.ax, segs[q]!.bx));
  const active: number[] = [];
  for (const i of order) {
    const s = segs[i]!;
    const sMinX = Math.min(s.ax, s.bx);
    let w = 0;
    for (let k = 0; k < active.length; k++) {
      const j = active[k]!;
      const o = segs[j]!;
      if (Math.max(o.ax, o.bx) < sMinX - eps) continue;
      active[w++] = j;
      if (Math.min(o.ay, o.by) > Math.max(s.ay, s.by) + eps || Math.max(o.ay, o.by) < Math.min(s.ay, s.by) - eps) continue;
      crossing(s, o, eps, cuts[i]!, cuts[j]!);
    }
    active.length = w;
    active.push(i);
  }
  return cuts;
}

/** Where two segments meet (crossing, touching or overlapping), as parameters on each. */
function crossing(s: Seg, o: Seg, eps: number, ts: number[], to: number[]): void {
  const dx = s.bx - s.ax, dy = s.by - s.ay;
  const ex = o.bx - o.ax, ey = o.by - o.ay;
  const ls = Math.hypot(dx, dy), lo = Math.hypot(ex, ey);
  if (ls === 0 || lo === 0) return;
  const den = dx * ey - dy * ex;
  const wx = o.ax - s.ax, wy = o.ay - s.ay;
  if (Math.abs(den) <= 1e-12 * ls * lo) {
    // parallel: only collinear overlaps matter; each end inside the other splits it
    if (Math.abs(wx * dy - wy * dx) / ls > eps) return;
    const onS = (x: number, y: number) => ((x - s.ax) * dx + (y - s.ay) * dy) / (ls * ls);
    const onO = (x: number, y: number) => ((x - o.ax) * ex + (y - o.ay) * ey) / (lo * lo);
    for (const [x, y] of [[o.ax, o.ay], [o.bx, o.by]] as const) { const t = onS(x, y); if (t > 0 && t < 1) ts.push(t); }
    for (const [x, y] of [[s.ax, s.ay], [s.bx, s.by]] as const) { const t = onO(x, y); if (t > 0 && t < 1) to.push(t); }
    return;
  }
  const t = (wx * ey - wy * ex) / den;
  const u = (wx * dy - wy * dx) / den;
  const es = eps / ls, eo = eps / lo;
  if (t < -es || t > 1 + es || u < -eo || u > 1 + eo) return;
  ts.push(Math.min(1, Math.max(0, t)));
  to.push(Math.min(1, Math.max(0, u)));
}

/** The cycle of the face containing (px, py) and the islands the ray passed, or null when unbounded. */
export function faceAt(arr: Arrangement, px: number, py: number): Cycle | null {
  const hits: { x: number; h: number }[] = [];
  const { xs, ys, edges } = arr;
  for (let h = 0; h < edges.length; h++) {
    const e = edges[h]!;
    const y0 = ys[e.from]!, y1 = ys[e.to]!;
    // the half-edge running upwards has the point (to its west) on its left
    if (!(y0 <= py && y1 > py)) continue;
    const x0 = xs[e.from]!, x1 = xs[e.to]!;
    const x = x0 + ((py - y0) / (y1 - y0)) * (x1 - x0);
    if (x > px) hits.push({ x, h });
  }
  hits.sort((a, b) => a.x - b.x);
  const skipped = new Set<number>();
  for (const hit of hits) {
    const c = arr.cycles[arr.cycleOf[hit.h]!]!;
    if (skipped.has(c.component)) continue;
    if (c.area > 0) return c;
    // the outline of a piece the point lies outside of: an island of the face around the point
    skipped.add(c.component);
  }
  return null;
}

/** Even-odd point in polygon over a cycle's vertices. */
export function cycleContains(arr: Arrangement, c: Cycle, px: number, py: number): boolean {
  let inside = false;
  for (const h of c.edges) {
    const e = arr.edges[h]!;
    const ax = arr.xs[e.from]!, ay = arr.ys[e.from]!, bx = arr.xs[e.to]!, by = arr.ys[e.to]!;
    if (ay > py !== by > py && px < ((bx - ax) * (py - ay)) / (by - ay) + ax) inside = !inside;
  }
  return inside;
}
