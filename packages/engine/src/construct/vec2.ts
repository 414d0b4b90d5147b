// 2D vectors as [x, y] tuples, for the construct kernel.
export type P = [number, number];

export const add = (a: P, b: P): P => [a[0] + b[0], a[1] + b[1]];
export const sub = (a: P, b: P): P => [a[0] - b[0], a[1] - b[1]];
export const mul = (a: P, s: number): P => [a[0] * s, a[1] * s];
export const dot = (a: P, b: P): number => a[0] * b[0] + a[1] * b[1];
export const cross = (a: P, b: P): number => a[0] * b[1] - a[1] * b[0];
export const len = (a: P): number => Math.hypot(a[0], a[1]);
export const dist = (a: P, b: P): number => Math.hypot(a[0] - b[0], a[1] - b[1]);
export const unit = (a: P): P => {
  const l = Math.hypot(a[0], a[1]);
  return l > 0 ? [a[0] / l, a[1] / l] : [0, 0];
};
/** Turned a quarter counter-clockwise. */
export const perp = (a: P): P => [-a[1], a[0]];
export const polar = (c: P, r: number, a: number): P => [c[0] + r * Math.cos(a), c[1] + r * Math.sin(a)];
export const TAU = Math.PI * 2;
/** An angle in [0, 2π). */
export function norm(a: number): number {
  const r = a % TAU;
  return r < 0 ? r + TAU : r;
}
