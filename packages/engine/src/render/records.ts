// Reading record attributes for rendering: declared attributes by their ezdxf names, with a
// fallback to the raw tags for types or attributes the DXF model keeps undeclared.
import type { DxfRecord, Tag } from '../dxf.js';

/** Group codes of attributes the renderer reads, for records whose type is kept as raw tags. */
const FALLBACK_CODES: Record<string, number> = {
  start: 10, end: 11, unit_vector: 11, center: 10, radius: 40, start_angle: 50, end_angle: 51, location: 10, insert: 10,
  vtx0: 10, vtx1: 11, vtx2: 12, vtx3: 13, u_pixel: 11, v_pixel: 12, image_size: 13, image_def_handle: 340,
  major_axis: 11, ratio: 40, start_param: 41, end_param: 42, extrusion: 210, thickness: 39,
  height: 40, text: 1, rotation: 50, name: 2, geometry: 2, block_name: 2, xscale: 41, yscale: 42, zscale: 43,
  invisible_edges: 70, flags: 70, clipping: 280, filename: 1, char_height: 40, width: 41, attachment_point: 71,
  layer: 8, color: 62, linetype: 6, lineweight: 370, ltscale: 48, true_color: 420, invisible: 60,
};

const NO_TAGS: readonly Tag[] = [];

/** The tags of a record kept undeclared, subclass by subclass in file order (read only). */
export function rawTags(rec: DxfRecord): readonly Tag[] {
  if (!rec.extra) return NO_TAGS;
  const keys = Object.keys(rec.extra);
  if (keys.length === 1) return rec.extra[keys[0]!]!;
  const out: Tag[] = [];
  for (const k of keys) for (const t of rec.extra[k]!) out.push(t);
  return out;
}

/** Raw tag value of a code (first occurrence), or undefined. */
export function rawValue(rec: DxfRecord, code: number): string | undefined {
  for (const t of rawTags(rec)) if (t[0] === code) return t[1];
  return undefined;
}

/** All raw values of a code, in order. */
export function rawValues(rec: DxfRecord, code: number): string[] {
  const out: string[] = [];
  for (const t of rawTags(rec)) if (t[0] === code) out.push(t[1]);
  return out;
}

export function rawPoint(rec: DxfRecord, code: number): number[] | undefined {
  let x: number | undefined, y: number | undefined, z = 0;
  for (const t of rawTags(rec)) {
    if (t[0] === code && x === undefined) x = parseFloat(t[1]);
    else if (t[0] === code + 10 && y === undefined) y = parseFloat(t[1]);
    else if (t[0] === code + 20) {
      z = parseFloat(t[1]);
      if (x !== undefined && y !== undefined) break;
    }
  }
  return x === undefined || y === undefined ? undefined : [x, y, z];
}

/** Attribute value by name (declared), or from raw tags when the record keeps it undeclared. */
export function attr(rec: DxfRecord, name: string): unknown {
  const v = rec.attrs[name];
  if (v !== undefined) return v;
  if (!rec.extra) return undefined;
  const code = FALLBACK_CODES[name];
  if (code === undefined) return undefined;
  if ((code >= 10 && code < 20) || code === 210) return rawPoint(rec, code);
  const s = rawValue(rec, code);
  if (s === undefined) return undefined;
  if (code === 1 || code === 2 || code === 6 || code === 8 || code === 340) return s;
  const n = Number(s);
  return Number.isFinite(n) ? n : s;
}

export function num(rec: DxfRecord, name: string, def: number): number {
  const v = attr(rec, name);
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const n = Number(v);
    return Number.isFinite(n) ? n : def;
  }
  if (typeof v === 'boolean') return v ? 1 : 0;
  return def;
}

export function str(rec: DxfRecord, name: string, def: string): string {
  const v = attr(rec, name);
  return typeof v === 'string' ? v : v === undefined || v === null ? def : String(v);
}

const ZERO: readonly number[] = [0, 0, 0];

/** A point attribute as [x, y, z] (z = 0 for 2D points); `def` when absent. */
export function pt(rec: DxfRecord, name: string, def: readonly number[] = ZERO): readonly number[] {
  const v = attr(rec, name);
  if (Array.isArray(v) && v.length >= 2) return v as number[];
  if (v && typeof v === 'object' && 'x' in (v as object)) {
    const o = v as { x: number; y: number; z?: number };
    return [o.x, o.y, o.z ?? 0];
  }
  return def;
}

/** Converts a colour given as 0xRRGGBB, [r, g, b] or {r, g, b} to a number. */
export function rgbOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v & 0xffffff;
  if (Array.isArray(v) && v.length >= 3) return ((v[0] & 255) << 16) | ((v[1] & 255) << 8) | (v[2] & 255);
  if (v && typeof v === 'object' && 'r' in (v as object)) {
    const o = v as { r: number; g: number; b: number };
    return ((o.r & 255) << 16) | ((o.g & 255) << 8) | (o.b & 255);
  }
  return undefined;
}
