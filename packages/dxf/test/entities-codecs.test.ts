import { describe, expect, it } from 'vitest';
import '../src/entities/index.js';
import { getDef } from '../src/defs/registry.js';
import { DXF_VERSIONS } from '../src/types.js';
import type { AttrDef, CodecContext, DxfRecord, DxfVersion, Tag } from '../src/types.js';
import { ENTITY_DEFS, subclassMarkersFor } from '../src/entities/index.js';
import { readDxfSync, writeDxf } from '../src/index.js';
import { Collect, T, norm, rec } from './entities-helpers.js';
import { minimalDxf } from './helpers.js';

const R2018: CodecContext = { version: 'AC1032' };
const R2000: CodecContext = { version: 'AC1015' };

function codecOf(type: string, marker: string) {
  const sc = getDef(type)!.subclasses.find((s) => s.marker === marker)!;
  expect(sc.codec, `${type}/${marker} codec`).toBeDefined();
  return sc.codec!;
}

/** read -> write gives the same tags (numbers compared by value), unknown tags appended. */
function roundTrip(type: string, marker: string, tags: Tag[], ctx = R2018): DxfRecord {
  const c = codecOf(type, marker);
  const r = rec(type);
  const rest = c.read(tags, r, ctx);
  const out = new Collect();
  c.write(r, out, ctx);
  out.tags.push(...rest);
  expect(norm(out.tags)).toEqual(norm(tags));
  return r;
}

describe('LWPOLYLINE codec', () => {
  it('reads points with widths and bulges and writes them back', () => {
    const tags = T(90, 3, 70, 1, 43, 0, 10, 0, 20, 0, 10, 10, 20, 0, 42, 0.5, 10, 10, 20, 10, 40, 1, 41, 2, 210, 0, 220, 0, 230, 1);
    const r = roundTrip('LWPOLYLINE', 'AcDbPolyline', tags);
    expect(r.attrs.points).toEqual([[0, 0, 0, 0, 0], [10, 0, 0, 0, 0.5], [10, 10, 1, 2, 0]]);
    expect(r.attrs.flags).toBe(1);
    expect(r.attrs.vertex_tags).toBeUndefined();
  });
  it('keeps an explicit layout (zero widths written) and vertex ids', () => {
    const tags = T(90, 2, 70, 0, 10, 0, 20, 0, 91, 7, 40, 0, 41, 0, 10, 5, 20, 5, 91, 8, 40, 0, 41, 0, 42, 0);
    const r = roundTrip('LWPOLYLINE', 'AcDbPolyline', tags);
    expect(r.attrs.vertex_ids).toEqual([7, 8]);
    expect(r.attrs.vertex_tags).toEqual([1, 3]);
  });
  it('keeps a layout and ids that start at a later vertex, read from a file as from tags', () => {
    const body = T(90, 3, 70, 0, 10, 0, 20, 0, 10, 5, 20, 5, 91, 8, 40, 0, 41, 0, 10, 6, 20, 6, 42, 0.5, 1071, 5);
    const r = rec('LWPOLYLINE');
    const rest = codecOf('LWPOLYLINE', 'AcDbPolyline').read(body, r, R2018);
    expect(rest).toEqual(T(1071, 5));
    expect(r.attrs.points).toEqual([[0, 0, 0, 0, 0], [5, 5, 0, 0, 0], [6, 6, 0, 0, 0.5]]);
    expect(r.attrs.vertex_ids).toEqual([0, 8, 0]);
    expect(r.attrs.vertex_tags).toEqual([0, 1, 2]);
    const doc = readDxfSync(minimalDxf([[0, 'LWPOLYLINE'], [5, 'A0'], [100, 'AcDbEntity'], [8, '0'], [100, 'AcDbPolyline'], ...body], 'AC1032'));
    const e = doc.modelSpace().entities[0]!;
    expect(e.attrs).toEqual({ layer: '0', ...r.attrs });
    expect(e.extra).toEqual({ AcDbPolyline: T(1071, 5) });
  });
  it('derives the count from points and keeps unknown tags', () => {
    const c = codecOf('LWPOLYLINE', 'AcDbPolyline');
    const r = rec('LWPOLYLINE');
    const rest = c.read(T(90, 1, 70, 0, 10, 1, 20, 2, 1071, 5), r, R2018);
    expect(rest).toEqual(T(1071, 5));
    (r.attrs.points as number[][]).push([3, 4, 0, 0, 0]);
    const out = new Collect();
    c.write(r, out, R2018);
    expect(out.tags[0]).toEqual([90, '2']);
  });
});

describe('SPLINE codec', () => {
  it('round-trips knots, weights, control and fit points', () => {
    const tags = T(
      210, 0, 220, 0, 230, 1, 70, 12, 71, 2, 72, 6, 73, 3, 74, 0, 42, 1e-10, 43, 1e-10,
      40, 0, 40, 0, 40, 0, 40, 1, 40, 1, 40, 1, 41, 1, 41, 0.707, 41, 1,
      10, 0, 20, 0, 30, 0, 10, 1, 20, 1, 30, 0, 10, 2, 20, 0, 30, 0,
    );
    const r = roundTrip('SPLINE', 'AcDbSpline', tags);
    expect(r.attrs.knots).toEqual([0, 0, 0, 1, 1, 1]);
    expect(r.attrs.weights).toEqual([1, 0.707, 1]);
    expect(r.attrs.control_points).toEqual([[0, 0, 0], [1, 1, 0], [2, 0, 0]]);
    expect(r.attrs.degree).toBe(2);
  });
  it('round-trips a fit-point spline with tangents', () => {
    const tags = T(70, 8, 71, 3, 72, 0, 73, 0, 74, 2, 44, 1e-10, 12, 1, 22, 0, 32, 0, 13, 0, 23, 1, 33, 0, 11, 0, 21, 0, 31, 0, 11, 5, 21, 5, 31, 0);
    const r = roundTrip('SPLINE', 'AcDbSpline', tags);
    expect(r.attrs.fit_points).toEqual([[0, 0, 0], [5, 5, 0]]);
    expect(r.attrs.start_tangent).toEqual([1, 0, 0]);
  });
});

describe('MTEXT codec', () => {
  it('joins 3-chunks and the final 1, re-splits at 250 characters', () => {
    const long = 'x'.repeat(250);
    const tags = T(10, 1, 20, 2, 30, 0, 40, 2.5, 41, 100, 71, 1, 72, 5, 3, long, 3, long, 1, 'end', 7, 'Standard', 210, 0, 220, 0, 230, 1, 11, 1, 21, 0, 31, 0, 73, 1, 44, 1);
    const r = roundTrip('MTEXT', 'AcDbMText', tags);
    expect(r.attrs.text).toBe(long + long + 'end');
    expect(r.attrs.insert).toEqual([1, 2, 0]);
  });
  it('keeps background fill and the R2018 embedded column object in place', () => {
    const tags = T(10, 0, 20, 0, 30, 0, 40, 1, 41, 50, 46, 0, 71, 1, 72, 5, 1, 'abc', 73, 1, 44, 1, 90, 3, 63, 1, 45, 1.5, 441, 0, 101, 'Embedded Object', 70, 1, 10, 1, 20, 0, 30, 0, 11, 0, 21, 0, 31, 0, 40, 50, 41, 0, 42, 50, 43, 2, 71, 0, 72, 0, 44, 50, 45, 10, 73, 0, 74, 0, 46, 0);
    const c = codecOf('MTEXT', 'AcDbMText');
    const r = rec('MTEXT');
    const rest = c.read(tags, r, R2018);
    expect(rest[0]).toEqual([101, 'Embedded Object']);
    expect(rest.length).toBe(tags.length - tags.findIndex((t) => t[0] === 101));
    expect(r.attrs.bg_fill).toBe(3);
    expect(r.attrs.bg_fill_color).toBe(1);
    expect(r.attrs.text).toBe('abc');
  });
  it('never splits a surrogate pair', () => {
    const c = codecOf('MTEXT', 'AcDbMText');
    const text = 'a'.repeat(249) + '😀' + 'b';
    const out = new Collect();
    c.write(rec('MTEXT', { text }), out, R2018);
    const chunks = out.tags.filter((t) => t[0] === 3 || t[0] === 1).map((t) => t[1]);
    expect(chunks.join('')).toBe(text);
    expect(chunks[0]!.length).toBe(249);
  });
});

const HATCH_TAGS = T(
  10, 0, 20, 0, 30, 0, 210, 0, 220, 0, 230, 1, 2, 'ANSI31', 70, 0, 71, 1, 91, 2,
  // polyline path with a bulge
  92, 7, 72, 1, 73, 1, 93, 3, 10, 0, 20, 0, 42, 0, 10, 10, 20, 0, 42, 1, 10, 10, 20, 10, 42, 0, 97, 1, 330, 'AB',
  // edge path: line, arc, ellipse, spline
  92, 1, 93, 4,
  72, 1, 10, 0, 20, 0, 11, 5, 21, 0,
  72, 2, 10, 5, 20, 5, 40, 5, 50, 270, 51, 360, 73, 1,
  72, 3, 10, 5, 20, 10, 11, 3, 21, 0, 40, 0.5, 50, 0, 51, 180, 73, 0,
  72, 4, 94, 3, 73, 0, 74, 0, 95, 8, 96, 4, 40, 0, 40, 0, 40, 0, 40, 0, 40, 1, 40, 1, 40, 1, 40, 1,
  10, 0, 20, 10, 10, 0, 20, 7, 10, 0, 20, 3, 10, 0, 20, 0, 97, 0,
  97, 0,
  75, 1, 76, 1, 52, 45, 41, 1, 77, 0, 78, 1, 53, 45, 43, 0, 44, 0, 45, -2.24, 46, 2.24, 79, 2, 49, 3.175, 49, -1.5875,
  47, 0.05, 98, 1, 10, 1, 20, 1,
  450, 1, 451, 0, 460, 0.5, 461, 0, 452, 0, 462, 1, 453, 2, 463, 0, 63, 5, 421, 255, 463, 1, 63, 2, 421, 16776960, 470, 'LINEAR',
);

describe('HATCH codec', () => {
  it('parses paths, pattern, seeds and gradient and writes the same tags', () => {
    const r = roundTrip('HATCH', 'AcDbHatch', HATCH_TAGS);
    expect(r.attrs.raw_tags).toBeUndefined();
    const paths = r.attrs.paths as any[];
    expect(paths[0]).toEqual({ flags: 7, type: 'polyline', is_closed: true, vertices: [[0, 0, 0], [10, 0, 1], [10, 10, 0]], source_handles: ['AB'] });
    expect(paths[1].edges.map((e: any) => e.type)).toEqual(['line', 'arc', 'ellipse', 'spline']);
    expect(paths[1].edges[1]).toEqual({ type: 'arc', center: [5, 5], radius: 5, start_angle: 270, end_angle: 360, ccw: true });
    expect(paths[1].edges[3].knots.length).toBe(8);
    expect(r.attrs.pattern_lines).toEqual([{ angle: 45, base_point: [0, 0], offset: [-2.24, 2.24], dash_length_items: [3.175, -1.5875] }]);
    expect(r.attrs.seed_points).toEqual([[1, 1]]);
    expect(r.attrs.pattern_name).toBe('ANSI31');
    const g = r.attrs.gradient as any;
    expect(g.name).toBe('LINEAR');
    expect(g.color1).toBe(255);
    expect(g.aci2).toBe(2);
    expect(g.rotation).toBeCloseTo((0.5 * 180) / Math.PI, 12);
  });
  it('writes a regenerated subclass after edits', () => {
    const c = codecOf('HATCH', 'AcDbHatch');
    const r = rec('HATCH');
    c.read(HATCH_TAGS, r, R2018);
    r.attrs.pattern_scale = 2;
    const out = new Collect();
    c.write(r, out, R2018);
    expect(out.tags.find((t) => t[0] === 41)).toEqual([41, '2']);
  });
  it('keeps an unexpected layout verbatim in raw_tags and still parses what it can', () => {
    const odd = T(10, 0, 20, 0, 30, 0, 210, 0, 220, 0, 230, 1, 2, 'SOLID', 70, 1, 71, 0, 91, 1, 92, 2, 72, 0, 73, 1, 93, 2, 10, 0, 20, 0, 10, 1, 20, 1, 75, 0, 76, 1, 999, 'odd');
    const c = codecOf('HATCH', 'AcDbHatch');
    const r = rec('HATCH');
    expect(c.read(odd, r, R2018)).toEqual([]);
    expect(r.attrs.raw_tags).toEqual(odd);
    expect((r.attrs.paths as any[])[0].vertices.length).toBe(2);
    const out = new Collect();
    c.write(r, out, R2018);
    expect(out.tags).toEqual(odd);
  });
  it('round-trips a minimal solid hatch without pattern data', () => {
    const tags = T(10, 0, 20, 0, 30, 0, 210, 0, 220, 0, 230, 1, 2, 'SOLID', 70, 1, 71, 0, 91, 1, 92, 3, 72, 0, 73, 1, 93, 3, 10, 0, 20, 0, 10, 1, 20, 0, 10, 1, 20, 1, 97, 0, 75, 0, 76, 1, 98, 0);
    const r = roundTrip('HATCH', 'AcDbHatch', tags);
    expect(r.attrs.raw_tags).toBeUndefined();
  });
});

describe('LEADER, IMAGE, VIEWPORT, ATTRIB codecs', () => {
  it('LEADER vertices between text_width and block_color', () => {
    const tags = T(3, 'Standard', 71, 1, 72, 0, 73, 3, 74, 1, 75, 0, 40, 1, 41, 0, 76, 2, 10, 0, 20, 0, 30, 0, 10, 5, 20, 5, 30, 0, 77, 256, 340, '2F', 210, 0, 220, 0, 230, 1, 211, 1, 221, 0, 231, 0, 212, 0, 222, 0, 232, 0, 213, 0, 223, 0, 233, 0);
    const r = roundTrip('LEADER', 'AcDbLeader', tags);
    expect(r.attrs.vertices).toEqual([[0, 0, 0], [5, 5, 0]]);
    expect(r.attrs.annotation_handle).toBe('2F');
  });
  it('IMAGE clip boundary', () => {
    const tags = T(90, 0, 10, 1, 20, 2, 30, 0, 11, 0.1, 21, 0, 31, 0, 12, 0, 22, 0.1, 32, 0, 13, 640, 23, 480, 340, '3A', 70, 7, 280, 1, 281, 50, 282, 50, 283, 0, 360, '3B', 71, 1, 91, 2, 14, -0.5, 24, -0.5, 14, 639.5, 24, 479.5, 290, 0);
    const r = roundTrip('IMAGE', 'AcDbRasterImage', tags);
    expect(r.attrs.boundary_path).toEqual([[-0.5, -0.5], [639.5, 479.5]]);
    expect(r.attrs.image_size).toEqual([640, 480]);
  });
  it('VIEWPORT frozen layers after circle_zoom', () => {
    const tags = T(10, 5, 20, 5, 30, 0, 40, 10, 41, 8, 68, 1, 69, 2, 12, 0, 22, 0, 13, 0, 23, 0, 14, 10, 24, 10, 15, 10, 25, 10, 16, 0, 26, 0, 36, 1, 17, 0, 27, 0, 37, 0, 42, 50, 43, 0, 44, 0, 45, 8, 50, 0, 51, 0, 72, 1000, 341, '2A', 341, '2B', 90, 32864, 1, '', 281, 0, 71, 1, 74, 0, 110, 0, 120, 0, 130, 0, 111, 1, 121, 0, 131, 0, 112, 0, 122, 1, 132, 0, 79, 0, 146, 0, 170, 0, 61, 5, 348, '4F', 292, 1, 282, 1, 141, 0, 142, 0, 63, 250, 421, 3355443);
    const r = roundTrip('VIEWPORT', 'AcDbViewport', tags);
    expect(r.attrs.frozen_layer_handles).toEqual(['2A', '2B']);
  });
  it('ATTRIB: two 280s and the R2018 tail kept in place', () => {
    const tags = T(280, 0, 2, 'TAG1', 70, 0, 73, 0, 74, 2, 280, 1, 71, 2, 72, 0, 11, 1, 21, 2, 31, 0, 101, 'Embedded Object', 10, 1, 20, 2, 30, 0, 40, 2.5, 1, 'multi');
    const r = roundTrip('ATTRIB', 'AcDbAttribute', tags);
    expect(r.attrs).toMatchObject({ version: 0, tag: 'TAG1', lock_position: 1, valign: 2, attribute_type: 2 });
  });
  it('ATTDEF with prompt', () => {
    const r = roundTrip('ATTDEF', 'AcDbAttributeDefinition', T(3, 'Enter', 2, 'T', 70, 0), R2000);
    expect(r.attrs).toMatchObject({ prompt: 'Enter', tag: 'T', flags: 0 });
  });
});

describe('attributes a file carries before their declared version', () => {
  // AutoCAD writes some attributes in versions older than the one ezdxf (and our declarations) name,
  // e.g. MTEXT background fill in R2004 and ATTRIB lock_position in R2007. Every declared attribute
  // of every entity type, plain or read by a codec, must then come back from a same-version write.
  const sample = (a: AttrDef): Tag[] => {
    const v = a.kind === 'str' ? 'X' : a.kind === 'handle' ? 'AB' : a.kind === 'float' ? '1.5' : '1';
    if (a.kind === 'point2') return [[a.code, '1.5'], [a.code + 10, '2.5']];
    if (a.kind === 'point3' || a.kind === 'vec3') return [[a.code, '1.5'], [a.code + 10, '2.5'], [a.code + 20, '3.5']];
    return [[a.code, v]];
  };
  const PARENTS: Record<string, [number, string][]> = {
    VERTEX: [[0, 'POLYLINE'], [5, 'A1'], [100, 'AcDbEntity'], [8, '0'], [100, 'AcDb2dPolyline'], [66, '1'], [10, '0'], [20, '0'], [30, '0']],
    ATTRIB: [[0, 'INSERT'], [5, 'A1'], [100, 'AcDbEntity'], [8, '0'], [100, 'AcDbBlockReference'], [66, '1'], [2, 'B'], [10, '0'], [20, '0'], [30, '0']],
  };
  const previous = (v: DxfVersion): DxfVersion => DXF_VERSIONS[DXF_VERSIONS.indexOf(v) - 1]!;
  const cases: { type: string; marker: string; attr: AttrDef; version: DxfVersion }[] = [];
  for (const [type, def] of Object.entries(ENTITY_DEFS)) {
    const markers = subclassMarkersFor({ type, handle: '', owner: '', attrs: {} });
    for (const sc of def.subclasses) {
      if (!markers.includes(sc.marker)) continue;
      for (const attr of sc.attrs) {
        if (!attr.minVersion) continue;
        const version = previous(attr.minVersion);
        // markers (hence subclasses) exist from R13 on, and the type must exist in that version
        if (version < 'AC1012' || (def.minVersion && def.minVersion > version)) continue;
        cases.push({ type, marker: sc.marker, attr, version });
      }
    }
  }

  it('has cases for plain subclasses and codecs', () => {
    expect(cases.some((c) => c.type === 'MTEXT' && c.attr.name === 'bg_fill')).toBe(true);
    expect(cases.some((c) => c.type === 'ATTDEF' && c.attr.name === 'lock_position')).toBe(true);
    expect(cases.some((c) => c.type === 'DIMENSION' && c.attr.name === 'attachment_point')).toBe(true);
  });

  for (const { type, marker, attr, version } of cases) {
    it(`${type}.${attr.name} (${attr.code}) in ${version}`, () => {
      const markers = subclassMarkersFor({ type, handle: '', owner: '', attrs: {} });
      // VERTEX and ATTRIB only exist inside their parent
      const parent = PARENTS[type];
      const body: [number, string][] = [...(parent ?? []), [0, type], [5, 'A0'], [100, 'AcDbEntity'], [8, '0']];
      for (const m of markers) {
        body.push([100, m]);
        if (m === marker) body.push(...sample(attr));
      }
      if (parent) body.push([0, 'SEQEND'], [5, 'A2'], [100, 'AcDbEntity'], [8, '0']);
      const doc = readDxfSync(minimalDxf(body, version));
      const again = readDxfSync(writeDxf(doc));
      const find = (d: typeof doc) => d.modelSpace().entities.flatMap((e) => [e, ...(e.children ?? [])]).find((e) => e.handle === 'A0');
      const first = find(doc)!;
      expect(first, 'read').toBeDefined();
      expect(find(again)).toEqual(first);
      // kept as a tag of its subclass, not read as the attribute the version does not have
      const kept = first.extra?.[marker] ?? [];
      for (const t of sample(attr)) expect(kept, `${attr.name}`).toContainEqual(t);
    });
  }
});
