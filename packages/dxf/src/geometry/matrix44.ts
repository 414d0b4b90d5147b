// Affine 3D transformations. Points are column vectors: p' = M · p; `a.then(b)` is "apply a, then
// b" (b · a). Storage is column-major like WebGL: m[0..2] is the image of the x axis, m[12..14]
// the translation.
import type { Vec3 } from '../types.js';

export class Matrix44 {
  readonly m: Float64Array;

  constructor(values?: ArrayLike<number>) {
    this.m = new Float64Array(16);
    if (values) this.m.set(values);
    else {
      this.m[0] = 1;
      this.m[5] = 1;
      this.m[10] = 1;
      this.m[15] = 1;
    }
  }

  static identity(): Matrix44 {
    return new Matrix44();
  }

  /** A matrix from the images of the axes and the origin. */
  static fromAxes(ux: readonly number[], uy: readonly number[], uz: readonly number[], origin: readonly number[] = [0, 0, 0]): Matrix44 {
    return new Matrix44([
      ux[0]!, ux[1]!, ux[2]!, 0, uy[0]!, uy[1]!, uy[2]!, 0, uz[0]!, uz[1]!, uz[2]!, 0, origin[0]!, origin[1]!, origin[2] ?? 0, 1,
    ]);
  }

  static translate(dx: number, dy: number, dz = 0): Matrix44 {
    const r = new Matrix44();
    r.m[12] = dx;
    r.m[13] = dy;
    r.m[14] = dz;
    return r;
  }

  static scale(sx: number, sy = sx, sz = sx): Matrix44 {
    const r = new Matrix44();
    r.m[0] = sx;
    r.m[5] = sy;
    r.m[10] = sz;
    return r;
  }

  /** Rotation about the Z axis through the origin, angle in radians (counter-clockwise). */
  static rotateZ(angle: number): Matrix44 {
    const c = Math.cos(angle);
    const s = Math.sin(angle);
    const r = new Matrix44();
    r.m[0] = c;
    r.m[1] = s;
    r.m[4] = -s;
    r.m[5] = c;
    return r;
  }

  /** Rotation about an arbitrary axis through the origin (Rodrigues), angle in radians. */
  static axisRotate(axis: readonly number[], angle: number): Matrix44 {
    const l = Math.hypot(axis[0]!, axis[1]!, axis[2]!);
    const x = axis[0]! / l;
    const y = axis[1]! / l;
    const z = axis[2]! / l;
    const c = Math.cos(angle);
    const s = Math.sin(angle);
    const t = 1 - c;
    return new Matrix44([
      t * x * x + c, t * x * y + s * z, t * x * z - s * y, 0,
      t * x * y - s * z, t * y * y + c, t * y * z + s * x, 0,
      t * x * z + s * y, t * y * z - s * x, t * z * z + c, 0,
      0, 0, 0, 1,
    ]);
  }

  /** Rotation about the Z axis through `base`, angle in radians. */
  static rotateZAround(base: readonly number[], angle: number): Matrix44 {
    const bx = base[0]!;
    const by = base[1]!;
    return Matrix44.translate(-bx, -by).then(Matrix44.rotateZ(angle)).then(Matrix44.translate(bx, by));
  }

  /** Scaling about `base` (non-uniform when sy/sz differ). */
  static scaleAround(base: readonly number[], sx: number, sy = sx, sz = sx): Matrix44 {
    const bx = base[0]!;
    const by = base[1]!;
    const bz = base[2] ?? 0;
    return Matrix44.translate(-bx, -by, -bz).then(Matrix44.scale(sx, sy, sz)).then(Matrix44.translate(bx, by, bz));
  }

  /** Mirror about the vertical plane through the line p1-p2 (a 2D mirror in XY; z is kept). */
  static mirror(p1: readonly number[], p2: readonly number[]): Matrix44 {
    const dx = p2[0]! - p1[0]!;
    const dy = p2[1]! - p1[1]!;
    const l = Math.hypot(dx, dy);
    if (l === 0) throw new Error('mirror line needs two distinct points');
    const ux = dx / l;
    const uy = dy / l;
    // reflection about the line direction u: R = 2uu^T - I
    const r = new Matrix44([2 * ux * ux - 1, 2 * ux * uy, 0, 0, 2 * ux * uy, 2 * uy * uy - 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    return Matrix44.translate(-p1[0]!, -p1[1]!).then(r).then(Matrix44.translate(p1[0]!, p1[1]!));
  }

  /** this · other: apply `other` first, then this. */
  multiply(other: Matrix44): Matrix44 {
    const a = this.m;
    const b = other.m;
    // written straight into the result's storage: a typed array is costly to allocate
    const out = new Matrix44();
    const r = out.m;
    for (let col = 0; col < 4; col++) {
      for (let row = 0; row < 4; row++) {
        r[col * 4 + row] =
          a[row]! * b[col * 4]! + a[4 + row]! * b[col * 4 + 1]! + a[8 + row]! * b[col * 4 + 2]! + a[12 + row]! * b[col * 4 + 3]!;
      }
    }
    return out;
  }

  /** Apply this, then `next`. */
  then(next: Matrix44): Matrix44 {
    return next.multiply(this);
  }

  transformPoint(p: readonly number[]): Vec3 {
    const m = this.m;
    const x = p[0]!;
    const y = p[1]!;
    const z = p[2] ?? 0;
    return [m[0]! * x + m[4]! * y + m[8]! * z + m[12]!, m[1]! * x + m[5]! * y + m[9]! * z + m[13]!, m[2]! * x + m[6]! * y + m[10]! * z + m[14]!];
  }

  transformDirection(v: readonly number[]): Vec3 {
    const m = this.m;
    const x = v[0]!;
    const y = v[1]!;
    const z = v[2] ?? 0;
    return [m[0]! * x + m[4]! * y + m[8]! * z, m[1]! * x + m[5]! * y + m[9]! * z, m[2]! * x + m[6]! * y + m[10]! * z];
  }

  /** Determinant of the linear part (negative for mirrors). */
  determinant(): number {
    const m = this.m;
    return (
      m[0]! * (m[5]! * m[10]! - m[9]! * m[6]!) - m[4]! * (m[1]! * m[10]! - m[9]! * m[2]!) + m[8]! * (m[1]! * m[6]! - m[5]! * m[2]!)
    );
  }

  /** Inverse of an affine matrix; throws for singular ones. */
  inverse(): Matrix44 {
    const m = this.m;
    const det = this.determinant();
    if (Math.abs(det) < 1e-300) throw new Error('singular matrix');
    const a = m[0]!, b = m[4]!, c = m[8]!;
    const d = m[1]!, e = m[5]!, f = m[9]!;
    const g = m[2]!, h = m[6]!, i = m[10]!;
    const r00 = (e * i - f * h) / det, r01 = (c * h - b * i) / det, r02 = (b * f - c * e) / det;
    const r10 = (f * g - d * i) / det, r11 = (a * i - c * g) / det, r12 = (c * d - a * f) / det;
    const r20 = (d * h - e * g) / det, r21 = (b * g - a * h) / det, r22 = (a * e - b * d) / det;
    const tx = m[12]!, ty = m[13]!, tz = m[14]!;
    return new Matrix44([
      r00, r10, r20, 0, r01, r11, r21, 0, r02, r12, r22, 0,
      -(r00 * tx + r01 * ty + r02 * tz), -(r10 * tx + r11 * ty + r12 * tz), -(r20 * tx + r21 * ty + r22 * tz), 1,
    ]);
  }

  isIdentity(eps = 1e-12): boolean {
    const id = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    return id.every((v, k) => Math.abs(this.m[k]! - v) <= eps);
  }

  toArray(): number[] {
    return [...this.m];
  }
}
