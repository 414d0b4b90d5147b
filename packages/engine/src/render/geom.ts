// Renderer-side geometry: affine 3x4 matrices (WCS/OCS/block space -> display), the arbitrary-axis
// OCS, and tessellation of arcs, bulges and ellipses into display-space points at a chord tolerance.
// Generic entity geometry (bounding boxes, transforms, flattening of splines) belongs to
// @linework/dxf's geometry module; these helpers exist because the renderer flattens directly
// into display space at the view's tolerance without allocating intermediate entities.

/** Row-major 3x4 affine matrix: x' = m0 x + m1 y + m2 z + m3, y' = m4 x + ..., z' = m8 x + ... */
export type Mat = Float64Array;

export function identity(): Mat {
  const m = new Float64Array(12);
  m[0] = 1;
  m[5] = 1;
  m[10] = 1;
  return m;
}

export function matFrom(a: ArrayLike<number>): Mat {
  return Float64Array.from(a as ArrayLike<number>);
}

/** a * b (apply b first, then a). */
export function mul(a: Mat, b: Mat): Mat {
  const r = new Float64Array(12);
  for (let i = 0; i < 3; i++) {
    const a0 = a[i * 4]!;
    const a1 = a[i * 4 + 1]!;
    const a2 = a[i * 4 + 2]!;
    const a3 = a[i * 4 + 3]!;
    r[i * 4] = a0 * b[0]! + a1 * b[4]! + a2 * b[8]!;
    r[i * 4 + 1] = a0 * b[1]! + a1 * b[5]! + a2 * b[9]!;
    r[i * 4 + 2] = a0 * b[2]! + a1 * b[6]! + a2 * b[10]!;
    r[i * 4 + 3] = a0 * b[3]! + a1 * b[7]! + a2 * b[11]! + a3;
  }
  return r;
}

export function translation(x: number, y: number, z = 0): Mat {
  const m = identity();
  m[3] = x;
  m[7] = y;
  m[11] = z;
  return m;
}

export function rotationZ(rad: number): Mat {
  const c = Math.cos(rad);
  const s = Math.sin(rad);
  const m = identity();
  m[0] = c;
  m[1] = -s;
  m[4] = s;
  m[5] = c;
  return m;
}

export function scaling(x: number, y: number, z = 1): Mat {
  const m = identity();
  m[0] = x;
  m[5] = y;
  m[10] = z;
  return m;
}

const EPS = 1e-12;

/** True when the extrusion is (0, 0, 1) or absent. */
export function isDefaultExtrusion(ex: unknown): boolean {
  if (!Array.isArray(ex)) return true;
  return Math.abs((ex[0] as number) ?? 0) < EPS && Math.abs((ex[1] as number) ?? 0) < EPS && ((ex[2] as number) ?? 1) > 0;
}

/** OCS -> WCS matrix of an extrusion vector (AutoCAD's arbitrary axis algorithm). */
export function ocsMatrix(ex: readonly number[]): Mat {
  let nx = ex[0] ?? 0;
  let ny = ex[1] ?? 0;
  let nz = ex[2] ?? 1;
  const len = Math.hypot(nx, ny, nz) || 1;
  nx /= len;
  ny /= len;
  nz /= len;
  let ax: number, ay: number, az: number;
  if (Math.abs(nx) < 1 / 64 && Math.abs(ny) < 1 / 64) {
    // Wy x N
    ax = nz;
    ay = 0;
    az = -nx;
  } else {
    // Wz x N
    ax = -ny;
    ay = nx;
    az = 0;
  }
  const al = Math.hypot(ax, ay, az) || 1;
  ax /= al;
  ay /= al;
  az /= al;
  // Ay = N x Ax
  const bx = ny * az - nz * ay;
  const by = nz * ax - nx * az;
  const bz = nx * ay - ny * ax;
  const m = new Float64Array(12);
  m[0] = ax;
  m[1] = bx;
  m[2] = nx;
  m[4] = ay;
  m[5] = by;
  m[6] = ny;
  m[8] = az;
  m[9] = bz;
  m[10] = nz;
  return m;
}

/** Largest linear scale of the matrix in the display plane (for tolerances and dash lengths). */
export function scaleOf(m: Mat): number {
  const sx = Math.hypot(m[0]!, m[4]!);
  const sy = Math.hypot(m[1]!, m[5]!);
  const sz = Math.hypot(m[2]!, m[6]!);
  return Math.max(sx, sy, sz) || 1;
}

/** Mean scale (geometric mean of x and y column lengths): text heights, widths. */
export function meanScale(m: Mat): number {
  return Math.sqrt(Math.hypot(m[0]!, m[4]!) * Math.hypot(m[1]!, m[5]!)) || scaleOf(m);
}

/** Determinant of the display-plane 2x2 part: negative = mirrored. */
export function det2(m: Mat): number {
  return m[0]! * m[5]! - m[1]! * m[4]!;
}

/** Appends the display point of (x, y, z) to `out`. */
export function pushPt(out: number[], m: Mat, x: number, y: number, z: number): void {
  out.push(m[0]! * x + m[1]! * y + m[2]! * z + m[3]!, m[4]! * x + m[5]! * y + m[6]! * z + m[7]!);
}

/** Appends points ([x, y] or [x, y, z]) mapped through m. */
export function pushPts(out: number[], m: Mat, points: readonly (readonly number[])[]): void {
  for (const q of points) pushPt(out, m, q[0]!, q[1]!, q[2] ?? 0);
}

/** Number of segments for an arc of radius r (display units) and sweep (radians) at tolerance tol. */
export function arcSegments(r: number, sweep: number, tol: number): number {
  const a = Math.abs(sweep);
  if (!(r > 0) || !(a > 0)) return 1;
  const t = Math.min(tol, r);
  const step = 2 * Math.acos(1 - t / r) || 0.5;
  let n = Math.ceil(a / Math.max(step, 0.02));
  const min = Math.max(2, Math.ceil((a / (2 * Math.PI)) * 8));
  if (n < min) n = min;
  if (n > 1024) n = 1024;
  return n;
}

/** Points of an arc in OCS (center, radius, angles in radians, counter-clockwise from a0 to a1), transformed. */
export function pushArc(out: number[], m: Mat, cx: number, cy: number, z: number, r: number, a0: number, a1: number, tol: number, skipFirst = false): void {
  let sweep = a1 - a0;
  const n = arcSegments(r * scaleOf(m), sweep, tol);
  sweep /= n;
  for (let i = skipFirst ? 1 : 0; i <= n; i++) {
    const a = a0 + sweep * i;
    pushPt(out, m, cx + r * Math.cos(a), cy + r * Math.sin(a), z);
  }
}

/** Points of a bulge segment from (x0,y0) to (x1,y1) in OCS, excluding the start point. */
export function pushBulge(out: number[], m: Mat, x0: number, y0: number, x1: number, y1: number, bulge: number, z: number, tol: number): void {
  if (Math.abs(bulge) < 1e-9) {
    pushPt(out, m, x1, y1, z);
    return;
  }
  const dx = x1 - x0;
  const dy = y1 - y0;
  const chord = Math.hypot(dx, dy);
  if (chord < 1e-12) return;
  const theta = 4 * Math.atan(bulge); // included angle, signed
  const r = chord / (2 * Math.sin(Math.abs(theta) / 2));
  // centre: from the chord midpoint, perpendicular to the chord
  const mx = (x0 + x1) / 2;
  const my = (y0 + y1) / 2;
  const nx = -dy / chord;
  const ny = dx / chord;
  const sign = bulge > 0 ? 1 : -1;
  const d = (chord / 2) / Math.tan(Math.abs(theta) / 2);
  const cx = mx + nx * d * sign;
  const cy = my + ny * d * sign;
  const a0 = Math.atan2(y0 - cy, x0 - cx);
  const n = arcSegments(Math.abs(r) * scaleOf(m), theta, tol);
  const step = theta / n;
  for (let i = 1; i < n; i++) {
    const a = a0 + step * i;
    pushPt(out, m, cx + Math.abs(r) * Math.cos(a), cy + Math.abs(r) * Math.sin(a), z);
  }
  pushPt(out, m, x1, y1, z);
}

/** Ellipse points (WCS centre, major axis, ratio, params in radians), through m. */
export function pushEllipse(
  out: number[], m: Mat, c: readonly number[], major: readonly number[], ex: readonly number[], ratio: number, p0: number, p1: number, tol: number,
): void {
  const mx = major[0] ?? 0;
  const my = major[1] ?? 0;
  const mz = major[2] ?? 0;
  // minor axis = (extrusion x major) * ratio
  let nx = ex[0] ?? 0;
  let ny = ex[1] ?? 0;
  let nz = ex[2] ?? 1;
  const nl = Math.hypot(nx, ny, nz) || 1;
  nx /= nl;
  ny /= nl;
  nz /= nl;
  const vx = (ny * mz - nz * my) * ratio;
  const vy = (nz * mx - nx * mz) * ratio;
  const vz = (nx * my - ny * mx) * ratio;
  let sweep = p1 - p0;
  if (sweep <= 1e-12) sweep += Math.PI * 2;
  const r = Math.hypot(mx, my, mz);
  const n = arcSegments(r * scaleOf(m), sweep, tol);
  const step = sweep / n;
  const cx = c[0] ?? 0;
  const cy = c[1] ?? 0;
  const cz = c[2] ?? 0;
  for (let i = 0; i <= n; i++) {
    const t = p0 + step * i;
    const ct = Math.cos(t);
    const st = Math.sin(t);
    pushPt(out, m, cx + mx * ct + vx * st, cy + my * ct + vy * st, cz + mz * ct + vz * st);
  }
}

/**
 * Points of a B-spline (control points, knots, optional weights) evaluated with de Boor's algorithm
 * at `n` samples per knot span, through m. Used when @linework/dxf's `flatten` is not available.
 */
export function pushSpline(out: number[], m: Mat, degree: number, ctrl: readonly (readonly number[])[], knots: readonly number[], weights: readonly number[] | null, tol: number, scale: number): void {
  const p = degree;
  const nc = ctrl.length;
  if (nc === 0) return;
  if (nc <= p || knots.length !== nc + p + 1) {
    for (const c of ctrl) pushPt(out, m, c[0] ?? 0, c[1] ?? 0, c[2] ?? 0);
    return;
  }
  const t0 = knots[p]!;
  const t1 = knots[nc]!;
  // samples: proportional to control polygon length / tolerance, bounded
  let len = 0;
  for (let i = 1; i < nc; i++) len += Math.hypot(ctrl[i]![0]! - ctrl[i - 1]![0]!, ctrl[i]![1]! - ctrl[i - 1]![1]!);
  const samples = Math.max(nc * 4, Math.min(2000, Math.ceil(Math.sqrt((len * scale) / Math.max(tol, 1e-9)) * 2)));
  const d = new Float64Array((p + 1) * 4);
  for (let s = 0; s <= samples; s++) {
    const t = s === samples ? t1 : t0 + ((t1 - t0) * s) / samples;
    let k = p;
    while (k < nc - 1 && t >= knots[k + 1]!) k++;
    for (let j = 0; j <= p; j++) {
      const c = ctrl[k - p + j]!;
      const w = weights ? (weights[k - p + j] ?? 1) : 1;
      d[j * 4] = (c[0] ?? 0) * w;
      d[j * 4 + 1] = (c[1] ?? 0) * w;
      d[j * 4 + 2] = (c[2] ?? 0) * w;
      d[j * 4 + 3] = w;
    }
    for (let r = 1; r <= p; r++) {
      for (let j = p; j >= r; j--) {
        const i = k - p + j;
        const den = knots[i + p - r + 1]! - knots[i]!;
        const a = den === 0 ? 0 : (t - knots[i]!) / den;
        for (let q = 0; q < 4; q++) d[j * 4 + q] = (1 - a) * d[(j - 1) * 4 + q]! + a * d[j * 4 + q]!;
      }
    }
    const w = d[p * 4 + 3] || 1;
    pushPt(out, m, d[p * 4]! / w, d[p * 4 + 1]! / w, d[p * 4 + 2]! / w);
  }
}
