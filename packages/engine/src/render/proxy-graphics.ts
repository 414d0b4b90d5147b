// Proxy graphics: the drawing commands an authoring program stores with entities that other
// programs may not understand (ACAD_PROXY_ENTITY, MESH, custom objects, and as a fallback on
// others), in binary chunks (code 310) after a size (92, or 160 when large). Read here into
// primitives the renderer draws; unknown command types are skipped by their size.
import type { DxfRecord, Tag } from '../dxf.js';

export type ProxyItem =
  | { kind: 'polyline'; pts: number[][]; closed: boolean; filled: boolean }
  | { kind: 'arc'; center: number[]; radius: number; normal: number[]; start: number[]; sweep: number }
  | { kind: 'text'; insert: number[]; direction: number[]; height: number; widthFactor: number; oblique: number; text: string }
  | { kind: 'color'; aci: number }
  | { kind: 'trueColor'; raw: number }
  | { kind: 'lineweight'; value: number }
  | { kind: 'pushMatrix'; matrix: number[] }
  | { kind: 'popMatrix' };

/** The bytes of the entity's proxy graphics, or null when it has none. */
export function proxyGraphicsBytes(rec: DxfRecord): Buffer | null {
  const extra = rec.extra;
  if (!extra) return null;
  for (const tags of Object.values(extra) as Tag[][]) {
    for (let i = 0; i + 1 < tags.length; i++) {
      const code = tags[i]![0];
      if ((code !== 92 && code !== 160) || tags[i + 1]![0] !== 310) continue;
      const hex: string[] = [];
      for (let k = i + 1; k < tags.length && tags[k]![0] === 310; k++) hex.push(tags[k]![1]);
      const bytes = Buffer.from(hex.join(''), 'hex');
      return bytes.length >= 8 ? bytes : null;
    }
  }
  return null;
}

const TYPES = {
  CIRCLE: 2,
  CIRCLE_3P: 3,
  ARC: 4,
  ARC_3P: 5,
  POLYLINE: 6,
  POLYGON: 7,
  MESH: 8,
  SHELL: 9,
  TEXT: 10,
  TEXT2: 11,
  COLOR: 14,
  TRUE_COLOR: 22,
  LINEWEIGHT: 23,
  PUSH_MATRIX: 29,
  PUSH_MATRIX2: 30,
  POP_MATRIX: 31,
  POLYLINE_WITH_NORMALS: 32,
  UNICODE_TEXT: 36,
  UNICODE_TEXT2: 38,
} as const;

/** Bounds-checked little-endian reads over one command's payload. */
class Reader {
  constructor(
    private readonly buf: Buffer,
    public pos: number,
    private readonly end: number,
  ) {}

  private need(n: number): void {
    if (this.pos + n > this.end) throw new RangeError('proxy graphics command too short');
  }

  int(): number {
    this.need(4);
    const v = this.buf.readInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  double(): number {
    this.need(8);
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  vertex(): number[] {
    return [this.double(), this.double(), this.double()];
  }

  vertices(n: number): number[][] {
    if (n < 0 || n * 24 > this.end - this.pos) throw new RangeError('proxy graphics vertex count out of range');
    const out: number[][] = [];
    for (let i = 0; i < n; i++) out.push(this.vertex());
    return out;
  }

  /** A NUL-terminated string padded to 4 bytes, in 8-bit (latin1) or UTF-16LE characters. */
  padded(unicode: boolean): string {
    const unit = unicode ? 2 : 1;
    let stop = this.pos;
    while (stop + unit <= this.end && (unicode ? this.buf.readUInt16LE(stop) : this.buf[stop]) !== 0) stop += unit;
    const s = this.buf.toString(unicode ? 'utf16le' : 'latin1', this.pos, stop);
    const used = stop + unit - this.pos;
    this.pos = Math.min(this.end, this.pos + Math.ceil(used / 4) * 4);
    return s;
  }
}

/** The commands, in order; reading stops at the first malformed one (what came before stays). */
export function readProxyGraphics(bytes: Buffer): ProxyItem[] {
  const out: ProxyItem[] = [];
  if (bytes.length < 8) return out;
  const count = bytes.readInt32LE(4);
  let pos = 8;
  for (let n = 0; n < count && pos + 8 <= bytes.length; n++) {
    const size = bytes.readInt32LE(pos);
    const type = bytes.readInt32LE(pos + 4);
    if (size < 8 || pos + size > bytes.length) break;
    try {
      readCommand(type, new Reader(bytes, pos + 8, pos + size), out);
    } catch {
      break;
    }
    pos += size;
  }
  return out;
}

function readCommand(type: number, r: Reader, out: ProxyItem[]): void {
  switch (type) {
    case TYPES.CIRCLE: {
      const center = r.vertex();
      const radius = r.double();
      const normal = r.vertex();
      out.push({ kind: 'arc', center, radius, normal, start: [], sweep: Math.PI * 2 });
      return;
    }
    case TYPES.CIRCLE_3P: {
      const c = circleThrough(r.vertex(), r.vertex(), r.vertex());
      if (c) out.push({ kind: 'arc', ...c, start: [], sweep: Math.PI * 2 });
      return;
    }
    case TYPES.ARC: {
      const center = r.vertex();
      const radius = r.double();
      const normal = r.vertex();
      const start = r.vertex();
      const sweep = r.double();
      out.push({ kind: 'arc', center, radius, normal, start, sweep });
      return;
    }
    case TYPES.ARC_3P: {
      const [a, b, c] = [r.vertex(), r.vertex(), r.vertex()];
      const circle = circleThrough(a, b, c);
      if (!circle) {
        out.push({ kind: 'polyline', pts: [a, c], closed: false, filled: false });
        return;
      }
      const { center, radius, normal } = circle;
      const start = sub(a, center);
      // sweep from a through b to c, counter-clockwise about the normal
      const angle = (p: number[]): number => {
        const u = unit(start);
        const v = cross(normal, u);
        const d = sub(p, center);
        const t = Math.atan2(dot(d, v), dot(d, u));
        return t < 0 ? t + Math.PI * 2 : t;
      };
      out.push({ kind: 'arc', center, radius, normal, start, sweep: angle(c) });
      return;
    }
    case TYPES.POLYLINE:
    case TYPES.POLYGON:
    case TYPES.POLYLINE_WITH_NORMALS: {
      const pts = r.vertices(r.int());
      if (pts.length >= 2) out.push({ kind: 'polyline', pts, closed: type === TYPES.POLYGON, filled: type === TYPES.POLYGON });
      return;
    }
    case TYPES.MESH: {
      const rows = r.int();
      const cols = r.int();
      if (rows < 1 || cols < 1) return;
      const vs = r.vertices(rows * cols);
      for (let i = 0; i < rows; i++) out.push({ kind: 'polyline', pts: vs.slice(i * cols, i * cols + cols), closed: false, filled: false });
      for (let j = 0; j < cols; j++) out.push({ kind: 'polyline', pts: Array.from({ length: rows }, (_, i) => vs[i * cols + j]!), closed: false, filled: false });
      return;
    }
    case TYPES.SHELL: {
      const vs = r.vertices(r.int());
      const entries = r.int();
      let read = 0;
      while (read < entries) {
        const n = Math.abs(r.int());
        read++;
        const face: number[][] = [];
        for (let k = 0; k < n && read < entries; k++, read++) {
          const v = vs[r.int()];
          if (v) face.push(v);
        }
        if (face.length >= 2) out.push({ kind: 'polyline', pts: face, closed: true, filled: false });
      }
      return;
    }
    case TYPES.TEXT:
    case TYPES.UNICODE_TEXT: {
      const insert = r.vertex();
      r.vertex(); // normal
      const direction = r.vertex();
      const height = r.double();
      const widthFactor = r.double();
      const oblique = r.double();
      const text = r.padded(type === TYPES.UNICODE_TEXT);
      out.push({ kind: 'text', insert, direction, height, widthFactor, oblique, text });
      return;
    }
    case TYPES.TEXT2:
    case TYPES.UNICODE_TEXT2: {
      const insert = r.vertex();
      r.vertex(); // normal
      const direction = r.vertex();
      const text = r.padded(type === TYPES.UNICODE_TEXT2);
      r.int(); // ignore length of string
      r.int(); // raw
      const height = r.double();
      const widthFactor = r.double();
      const oblique = r.double();
      out.push({ kind: 'text', insert, direction, height, widthFactor, oblique, text });
      return;
    }
    case TYPES.COLOR:
      out.push({ kind: 'color', aci: r.int() });
      return;
    case TYPES.TRUE_COLOR:
      out.push({ kind: 'trueColor', raw: r.int() });
      return;
    case TYPES.LINEWEIGHT:
      out.push({ kind: 'lineweight', value: r.int() });
      return;
    case TYPES.PUSH_MATRIX:
    case TYPES.PUSH_MATRIX2: {
      const matrix: number[] = [];
      for (let i = 0; i < 16; i++) matrix.push(r.double());
      out.push({ kind: 'pushMatrix', matrix });
      return;
    }
    case TYPES.POP_MATRIX:
      out.push({ kind: 'popMatrix' });
      return;
    default:
    // markers, fills, layers, linetypes, clips, materials: nothing to draw
  }
}

const sub = (a: number[], b: number[]): number[] => [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!];
const dot = (a: number[], b: number[]): number => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
const cross = (a: number[], b: number[]): number[] => [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
function unit(a: number[]): number[] {
  const l = Math.hypot(a[0]!, a[1]!, a[2]!) || 1;
  return [a[0]! / l, a[1]! / l, a[2]! / l];
}

/** The circle through three points (centre, radius, unit normal), or null when they are collinear. */
function circleThrough(a: number[], b: number[], c: number[]): { center: number[]; radius: number; normal: number[] } | null {
  const ab = sub(b, a);
  const ac = sub(c, a);
  const n = cross(ab, ac);
  const nn = dot(n, n);
  if (nn < 1e-24) return null;
  // a + (|ac|^2 (n x ab) + |ab|^2 (ac x n)) / (2 |n|^2)
  const t1 = cross(n, ab).map((v) => v * dot(ac, ac));
  const t2 = cross(ac, n).map((v) => v * dot(ab, ab));
  const center = [0, 1, 2].map((i) => a[i]! + (t1[i]! + t2[i]!) / (2 * nn));
  return { center, radius: Math.hypot(...sub(a, center)), normal: unit(n) };
}

/** Orthonormal in-plane axes of an arc: u along `start` (or an arbitrary axis), v = normal x u. */
export function arcAxes(normal: number[], start: number[]): [number[], number[]] {
  const nz = unit(normal.length === 3 && Math.hypot(normal[0]!, normal[1]!, normal[2]!) > 1e-12 ? normal : [0, 0, 1]);
  let u: number[];
  if (start.length === 3 && Math.hypot(start[0]!, start[1]!, start[2]!) > 1e-12) u = unit(start);
  else {
    // AutoCAD's arbitrary axis algorithm
    u = Math.abs(nz[0]!) < 1 / 64 && Math.abs(nz[1]!) < 1 / 64 ? unit(cross([0, 1, 0], nz)) : unit(cross([0, 0, 1], nz));
  }
  return [u, cross(nz, u)];
}
