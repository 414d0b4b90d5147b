// Minimal vector helpers on tuples, plus the DXF arbitrary axis algorithm (OCS <-> WCS).
import type { Vec3 } from '../types.js';

export const add = (a: readonly number[], b: readonly number[]): Vec3 => [a[0]! + b[0]!, a[1]! + b[1]!, (a[2] ?? 0) + (b[2] ?? 0)];
export const sub = (a: readonly number[], b: readonly number[]): Vec3 => [a[0]! - b[0]!, a[1]! - b[1]!, (a[2] ?? 0) - (b[2] ?? 0)];
export const mul = (a: readonly number[], s: number): Vec3 => [a[0]! * s, a[1]! * s, (a[2] ?? 0) * s];
export const dot = (a: readonly number[], b: readonly number[]): number => a[0]! * b[0]! + a[1]! * b[1]! + (a[2] ?? 0) * (b[2] ?? 0);
export const cross = (a: readonly number[], b: readonly number[]): Vec3 => {
  const az = a[2] ?? 0;
  const bz = b[2] ?? 0;
  return [a[1]! * bz - az * b[1]!, az * b[0]! - a[0]! * bz, a[0]! * b[1]! - a[1]! * b[0]!];
};
export const len = (a: readonly number[]): number => Math.hypot(a[0]!, a[1]!, a[2] ?? 0);
export const normalize = (a: readonly number[]): Vec3 => {
  const l = len(a);
  return l > 0 ? [a[0]! / l, a[1]! / l, (a[2] ?? 0) / l] : [0, 0, 0];
};
export const dist = (a: readonly number[], b: readonly number[]): number => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, (a[2] ?? 0) - (b[2] ?? 0));
export const lerp = (a: readonly number[], b: readonly number[], t: number): Vec3 => [
  a[0]! + (b[0]! - a[0]!) * t, a[1]! + (b[1]! - a[1]!) * t, (a[2] ?? 0) + ((b[2] ?? 0) - (a[2] ?? 0)) * t,
];
export const vec3 = (v: unknown, fallback: Vec3 = [0, 0, 0]): Vec3 =>
  Array.isArray(v) ? [Number(v[0] ?? 0), Number(v[1] ?? 0), Number(v[2] ?? 0)] : [fallback[0], fallback[1], fallback[2]];

const ARBITRARY_AXIS_LIMIT = 1 / 64;

/** An object coordinate system from an extrusion vector (the DXF arbitrary axis algorithm). */
export interface Ocs {
  ux: Vec3;
  uy: Vec3;
  uz: Vec3;
  /** True for extrusion (0,0,1): OCS = WCS. */
  identity: boolean;
}

const WCS: Ocs = { ux: [1, 0, 0], uy: [0, 1, 0], uz: [0, 0, 1], identity: true };

/** True when the extrusion is absent or (0,0,1). */
export function isDefaultExtrusion(e: unknown): boolean {
  if (!Array.isArray(e)) return true;
  return Math.abs(Number(e[0])) < 1e-12 && Math.abs(Number(e[1])) < 1e-12 && Number(e[2]) > 0;
}

export function ocsFromExtrusion(extrusion: unknown): Ocs {
  if (isDefaultExtrusion(extrusion)) return WCS;
  const uz = normalize(vec3(extrusion, [0, 0, 1]));
  if (uz[0] === 0 && uz[1] === 0 && uz[2] === 0) return WCS;
  const ux = Math.abs(uz[0]) < ARBITRARY_AXIS_LIMIT && Math.abs(uz[1]) < ARBITRARY_AXIS_LIMIT
    ? normalize(cross([0, 1, 0], uz))
    : normalize(cross([0, 0, 1], uz));
  const uy = normalize(cross(uz, ux));
  return { ux, uy, uz, identity: false };
}

export function ocsToWcs(ocs: Ocs, p: readonly number[]): Vec3 {
  const x = p[0]!;
  const y = p[1]!;
  const z = p[2] ?? 0;
  if (ocs.identity) return [x, y, z];
  const { ux, uy, uz } = ocs;
  return [ux[0] * x + uy[0] * y + uz[0] * z, ux[1] * x + uy[1] * y + uz[1] * z, ux[2] * x + uy[2] * y + uz[2] * z];
}

/** Directions transform like points (the OCS has no translation). */
export const ocsDirToWcs = ocsToWcs;

export function wcsToOcs(ocs: Ocs, p: readonly number[]): Vec3 {
  if (ocs.identity) return [p[0]!, p[1]!, p[2] ?? 0];
  return [dot(ocs.ux, p), dot(ocs.uy, p), dot(ocs.uz, p)];
}

/** The angle (radians) of a WCS direction measured in an OCS's XY plane. */
export function ocsAngle(ocs: Ocs, d: readonly number[]): number {
  return Math.atan2(dot(ocs.uy, d), dot(ocs.ux, d));
}

export const DEG = Math.PI / 180;
export const TAU = 2 * Math.PI;

/** Normalizes an angle (radians) into [0, 2π). */
export function normAngle(a: number): number {
  const r = a % TAU;
  return r < 0 ? r + TAU : r;
}
