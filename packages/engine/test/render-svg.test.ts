// Golden tests of the renderer and its SVG back end on small drawings built in memory.
import { describe, expect, it } from 'vitest';
import { fitPage, pageToSvg, renderLayout } from '../src/render/index.js';
import type { PathPrim, PolylinePrim, TextPrim } from '../src/render/index.js';
import { decodeText, layoutMText, parseMText } from '../src/render/text.js';
import { parseTolerance } from '../src/render/tolerance.js';
import type { Entity } from '../src/dxf.js';
import { add, ent, newDoc } from './render-helpers.js';

function svgOf(doc: Awaited<ReturnType<typeof newDoc>>, layout?: string): string {
  const list = renderLayout(doc, { layout });
  return pageToSvg(fitPage('Model', list, 200, 100, 5));
}

describe('renderer + SVG', () => {
  it('draws a red line in its layer group and a text as <text>', async () => {
    const doc = await newDoc();
    doc.addTableEntry('LAYER', 'Walls', { color: 1, linetype: 'Continuous' });
    add(doc, 'LINE', { layer: 'Walls', start: [0, 0, 0], end: [100, 50, 0] });
    add(doc, 'TEXT', { insert: [10, 10, 0], height: 5, text: 'Hello <world> %%c10' });
    const svg = svgOf(doc);
    expect(svg).toMatch(/<g id="layer-Walls" data-layer="Walls">\n<path d="M0 0 100 50" stroke="#ff0000"/);
    expect(svg).toContain('>Hello &lt;world&gt; \u00d810</text>');
    expect(svg).toContain('font-family="DejaVu Sans"');
    expect(svg).toMatch(/<g id="layer-0" data-layer="0">/);
  });

  it('skips an invisible 3DFACE (code 60) but draws one with invisible edges (code 70) minus those edges', async () => {
    const doc = await newDoc();
    add(doc, '3DFACE', { invisible: 1, vtx0: [0, 0, 0], vtx1: [1, 0, 0], vtx2: [1, 1, 0], vtx3: [0, 1, 0] });
    expect(renderLayout(doc).prims).toHaveLength(0);
    add(doc, '3DFACE', { invisible_edges: 1, vtx0: [0, 0, 0], vtx1: [1, 0, 0], vtx2: [1, 1, 0], vtx3: [0, 1, 0] });
    const prims = renderLayout(doc).prims.filter((p): p is PolylinePrim => p.kind === 'polyline');
    expect(prims.length).toBeGreaterThan(0);
    // Edge 1 (vtx0 -> vtx1) is hidden: no segment runs along y = 0.
    const along = prims.some((p) => {
      for (let i = 2; i + 1 < p.pts.length; i += 2) if (p.pts[i + 1] === 0 && p.pts[i - 1] === 0) return true;
      return false;
    });
    expect(along).toBe(false);
  });

  it('resolves ByLayer, ByBlock, true colour and colour 7 as black', async () => {
    const doc = await newDoc();
    doc.addTableEntry('LAYER', 'Green', { color: 3 });
    add(doc, 'LINE', { layer: 'Green', start: [0, 0, 0], end: [1, 0, 0] });
    add(doc, 'LINE', { color: 7, start: [0, 1, 0], end: [1, 1, 0] });
    add(doc, 'LINE', { color: 1, true_color: 0x123456, start: [0, 2, 0], end: [1, 2, 0] });
    doc.addBlock('B', [0, 0, 0]);
    add(doc, 'LINE', { color: 0, start: [0, 0, 0], end: [1, 0, 0] }, 'B');
    add(doc, 'LINE', { layer: '0', start: [0, 1, 0], end: [1, 1, 0] }, 'B');
    add(doc, 'INSERT', { name: 'B', insert: [10, 0, 0], color: 5, layer: 'Green' });
    const list = renderLayout(doc);
    const polys = list.prims.filter((p): p is PolylinePrim => p.kind === 'polyline');
    expect(polys.map((p) => p.color)).toEqual([0x00ff00, 0x000000, 0x123456, 0x0000ff, 0x00ff00]);
    // block content on layer 0 takes the insert's layer
    expect(polys[4]!.layer).toBe('Green');
    expect(polys[3]!.pts).toEqual([10, 0, 11, 0]);
  });

  it('skips off and frozen layers, and non-plotting layers', async () => {
    const doc = await newDoc();
    doc.addTableEntry('LAYER', 'Off', { color: -1 });
    doc.addTableEntry('LAYER', 'Frozen', { color: 1, flags: 1 });
    doc.addTableEntry('LAYER', 'NoPlot', { color: 1, plot: false });
    for (const layer of ['Off', 'Frozen', 'NoPlot', '0']) add(doc, 'LINE', { layer, start: [0, 0, 0], end: [1, 1, 0] });
    const list = renderLayout(doc);
    expect(list.prims.map((p) => p.layer)).toEqual(['0']);
    expect(list.layers).toEqual(['0']);
  });

  it('applies LTYPE dash patterns scaled by $LTSCALE and entity ltscale', async () => {
    const doc = await newDoc();
    const lt = doc.addTableEntry('LTYPE', 'DASHED2', { description: '__ __', items: 2, total_pattern_length: 7.5 });
    lt.extra = { AcDbLinetypeTableRecord: [[49, '5'], [74, '0'], [49, '-2.5'], [74, '0']] };
    doc.setHeader('$LTSCALE', 2);
    add(doc, 'LINE', { linetype: 'DASHED2', ltscale: 0.5, start: [0, 0, 0], end: [100, 0, 0] });
    const list = renderLayout(doc);
    const p = list.prims[0] as PolylinePrim;
    expect(p.dash).toEqual([5, 2.5]);
    const svg = pageToSvg(fitPage('Model', list, 200, 100, 5));
    expect(svg).toContain('stroke-dasharray="5 2.5"');
  });

  it('explodes nested inserts with attributes and MINSERT arrays, with a depth guard', async () => {
    const doc = await newDoc();
    doc.addBlock('INNER', [0, 0, 0]);
    add(doc, 'CIRCLE', { center: [0, 0, 0], radius: 1 }, 'INNER');
    doc.addBlock('OUTER', [0, 0, 0]);
    add(doc, 'INSERT', { name: 'INNER', insert: [5, 0, 0] }, 'OUTER');
    add(doc, 'INSERT', { name: 'OUTER', insert: [0, 0, 0] }, 'OUTER'); // self reference
    const attrib = ent('ATTRIB', { insert: [0, -3, 0], height: 1, text: 'TAG-VALUE', tag: 'T' });
    doc.addEntity(ent('INSERT', { name: 'OUTER', insert: [100, 100, 0], xscale: 2, yscale: 2, attribs_follow: 1 }, [attrib]));
    add(doc, 'INSERT', { name: 'INNER', insert: [0, 0, 0], column_count: 3, row_count: 2, column_spacing: 10, row_spacing: 20 });
    const list = renderLayout(doc);
    const circles = list.prims.filter((p) => p.kind === 'polyline');
    expect(circles.length).toBe(1 + 6);
    const texts = list.prims.filter((p): p is TextPrim => p.kind === 'text');
    expect(texts.map((t) => t.text)).toEqual(['TAG-VALUE']);
    expect(list.skipped['INSERT(depth)']).toBeGreaterThan(0);
    // the scaled inner circle: centre (100 + 2*5, 100), radius 2
    const c = circles[0] as PolylinePrim;
    const xs = c.pts.filter((_, i) => i % 2 === 0);
    expect(Math.min(...xs)).toBeCloseTo(108, 1);
    expect(Math.max(...xs)).toBeCloseTo(112, 1);
    // MINSERT: cells at x 0/10/20, y 0/20
    const centres = circles.slice(1).map((p) => {
      const q = (p as PolylinePrim).pts;
      const x = q.filter((_, i) => i % 2 === 0);
      const y = q.filter((_, i) => i % 2 === 1);
      return [Math.round((Math.min(...x) + Math.max(...x)) / 2), Math.round((Math.min(...y) + Math.max(...y)) / 2)];
    });
    expect(centres.sort()).toEqual([[0, 0], [0, 20], [10, 0], [10, 20], [20, 0], [20, 20]].sort());
  });

  it('fills solid hatches even-odd and draws ANSI31 pattern lines clipped to the boundary', async () => {
    const doc = await newDoc();
    const square = (x: number, y: number, s: number): [number, number, number][] => [[x, y, 0], [x + s, y, 0], [x + s, y + s, 0], [x, y + s, 0]];
    add(doc, 'HATCH', {
      color: 1, solid_fill: 1, pattern_name: 'SOLID', hatch_style: 0,
      paths: [
        { flags: 1, type: 'polyline', is_closed: true, vertices: square(0, 0, 10), source_handles: [] },
        { flags: 16, type: 'polyline', is_closed: true, vertices: square(3, 3, 4), source_handles: [] },
      ],
    });
    add(doc, 'HATCH', {
      color: 5, solid_fill: 0, pattern_name: 'ANSI31', pattern_scale: 1, pattern_angle: 0,
      paths: [{ flags: 1, type: 'edges', source_handles: [], edges: [
        { type: 'line', start: [20, 0], end: [40, 0] },
        { type: 'line', start: [40, 0], end: [40, 20] },
        { type: 'arc', center: [30, 20], radius: 10, start_angle: 0, end_angle: 180, ccw: true },
        { type: 'line', start: [20, 20], end: [20, 0] },
      ] }],
    });
    const list = renderLayout(doc);
    const fill = list.prims.find((p) => p.kind === 'path')!;
    expect(fill.kind === 'path' && fill.rings.length).toBe(2);
    const pattern = list.prims.find((p) => p.kind === 'polyline') as PolylinePrim;
    expect(pattern.color).toBe(0x0000ff);
    // 45° lines 3.175 mm apart across a 20 x 30 area: about (20 + 30) / sqrt(2) / 3.175 = 11 lines
    expect(pattern.breaks!.length + 1).toBeGreaterThanOrEqual(8);
    expect(pattern.breaks!.length + 1).toBeLessThanOrEqual(14);
    for (let i = 0; i < pattern.pts.length; i += 2) {
      expect(pattern.pts[i]!).toBeGreaterThanOrEqual(20 - 1e-6);
      expect(pattern.pts[i]!).toBeLessThanOrEqual(40 + 1e-6);
      expect(pattern.pts[i + 1]!).toBeLessThanOrEqual(30 + 1e-6);
    }
    const svg = pageToSvg(fitPage('Model', list, 200, 100, 5));
    expect(svg).toMatch(/fill="#ff0000" fill-rule="evenodd"/);
  });

  it('aligns TEXT (centre, right, middle) and lays out MTEXT with formatting', async () => {
    const doc = await newDoc();
    add(doc, 'TEXT', { insert: [0, 0, 0], align_point: [50, 0, 0], halign: 1, valign: 0, height: 2, text: 'C' });
    add(doc, 'TEXT', { insert: [0, 0, 0], align_point: [50, 10, 0], halign: 2, valign: 3, height: 2, text: 'R' });
    add(doc, 'MTEXT', { insert: [0, 50, 0], char_height: 2.5, width: 0, attachment_point: 1, text: '{\\C1;red}\\Pline 2 \\S1/2;' });
    const list = renderLayout(doc);
    const texts = list.prims.filter((p): p is TextPrim => p.kind === 'text');
    const c = texts.find((t) => t.text === 'C')!;
    expect(c.align).toBe('center');
    expect([c.x, c.y]).toEqual([50, 0]);
    const r = texts.find((t) => t.text === 'R')!;
    expect(r.align).toBe('right');
    expect(r.y).toBeCloseTo(8); // top aligned: baseline one cap height below
    const red = texts.find((t) => t.text === 'red')!;
    expect(red.color).toBe(0xff0000);
    expect(red.y).toBeCloseTo(47.5);
    const line2 = texts.find((t) => t.text.startsWith('line 2'))!;
    expect(line2.y).toBeCloseTo(47.5 - (2.5 * 5) / 3);
    expect(texts.some((t) => t.text === '1')).toBe(true);
    expect(texts.some((t) => t.text === '2')).toBe(true);
  });

  it('renders POINT, SOLID, 3DFACE, ELLIPSE, SPLINE, LWPOLYLINE with bulges and widths, WIPEOUT', async () => {
    const doc = await newDoc();
    add(doc, 'POINT', { location: [1, 1, 0] });
    add(doc, 'SOLID', { vtx0: [0, 0, 0], vtx1: [1, 0, 0], vtx2: [0, 1, 0], vtx3: [1, 1, 0] });
    add(doc, '3DFACE', { vtx0: [0, 0, 0], vtx1: [1, 0, 0], vtx2: [1, 1, 0], vtx3: [0, 1, 0] });
    add(doc, 'ELLIPSE', { center: [0, 0, 0], major_axis: [10, 0, 0], ratio: 0.5, start_param: 0, end_param: Math.PI * 2 });
    add(doc, 'SPLINE', { degree: 3, flags: 8, knots: [0, 0, 0, 0, 1, 1, 1, 1], control_points: [[0, 0, 0], [1, 2, 0], [3, 2, 0], [4, 0, 0]], weights: [] });
    add(doc, 'LWPOLYLINE', { flags: 0, const_width: 0.5, points: [[0, 0, 0, 0, 1], [10, 0, 0, 0, 0], [10, 10, 0, 0, 0]] });
    add(doc, 'WIPEOUT', { insert: [0, 0, 0], u_pixel: [1, 0, 0], v_pixel: [0, 1, 0], image_size: [1, 1], boundary_path: [[-0.5, -0.5], [0.5, 0.5]] });
    const list = renderLayout(doc);
    expect(list.skipped).toEqual({});
    const kinds = list.prims.map((p) => p.kind);
    expect(kinds).toEqual(['polyline', 'path', 'polyline', 'polyline', 'polyline', 'polyline', 'path']);
    const ell = list.prims[3] as PolylinePrim;
    const ys = ell.pts.filter((_, i) => i % 2 === 1);
    expect(Math.max(...ys)).toBeCloseTo(5, 1);
    const spline = list.prims[4] as PolylinePrim;
    expect(spline.pts.slice(0, 2)).toEqual([0, 0]);
    expect(spline.pts.slice(-2)[0]).toBeCloseTo(4);
    const lw = list.prims[5] as PolylinePrim;
    expect(lw.width).toBeCloseTo(0.5);
    // bulge 1 = half circle below the chord from (0,0) to (10,0)
    expect(Math.min(...lw.pts.filter((_, i) => i % 2 === 1))).toBeCloseTo(-5, 1);
    const wipe = list.prims[6]!;
    expect(wipe.kind === 'path' && wipe.mask).toBe(true);
    expect(wipe.color).toBe(0xffffff);
  });

  it('maps model space into paper-space viewports, clipped to their frames', async () => {
    const doc = await newDoc();
    add(doc, 'LINE', { start: [0, 0, 0], end: [1000, 0, 0] });
    const lay = doc.addLayout('Sheet');
    add(doc, 'VIEWPORT', { center: [100, 100, 0], width: 80, height: 40, status: 1, id: 2, view_center_point: [0, 0], view_height: 20, view_target_point: [0, 0, 0], view_direction_vector: [0, 0, 1] }, lay.block.name);
    const list = renderLayout(doc, { layout: 'Sheet' });
    expect(list.clips.length).toBe(1);
    const line = list.prims.find((p) => p.kind === 'polyline' && p.clip === 0) as PolylinePrim;
    // scale 40 / 20 = 2, model origin at the viewport centre
    expect(line.pts.slice(0, 4)).toEqual([100, 100, 2100, 100]);
    const svg = pageToSvg(fitPage('Sheet', list, 200, 100, 5));
    expect(svg).toContain('<clipPath id="clip0"');
    expect(svg).toContain('clip-path="url(#clip0)"');
    // the frame itself is drawn
    expect(list.prims.filter((p) => p.kind === 'polyline' && p.clip === -1).length).toBe(1);
  });
});

describe('LEADER arrowheads', () => {
  const leaderDoc = async (style: Record<number, string>, arrow = 1): Promise<Awaited<ReturnType<typeof newDoc>>> => {
    const doc = await newDoc();
    const ds = doc.addTableEntry('DIMSTYLE', 'Arrows');
    ds.extra = { ...ds.extra, AcDbDimStyleTableRecord: Object.entries(style).map(([k, v]) => [Number(k), v] as [number, string]) };
    add(doc, 'LEADER', { dimstyle: 'Arrows', has_arrowhead: arrow, vertices: [[0, 0, 0], [50, 0, 0], [50, 20, 0]] });
    return doc;
  };

  it('draws the closed filled arrow, DIMASZ * DIMSCALE long, pointing away from the second vertex', async () => {
    const list = renderLayout(await leaderDoc({ 41: '4', 40: '2' }));
    expect(list.skipped).toEqual({});
    const fills = list.prims.filter((p): p is PathPrim => p.kind === 'path');
    expect(fills).toHaveLength(1);
    const ring = fills[0]!.rings[0]!.map((v) => Math.round(v * 1000) / 1000);
    const h = Math.round(8 * Math.sin((9.462322 * Math.PI) / 180) * 1000) / 1000;
    expect(ring).toEqual([8, -h, 0, 0, 8, h]);
    const svg = pageToSvg(fitPage('Model', list, 200, 100, 5));
    expect(svg).toMatch(/<path d="M8 [-0-9.]+ 0 0 8 [-0-9.]+Z" fill="#000000"/);
  });

  it('takes DIMASZ from the leader\'s own DSTYLE override before its dimension style', async () => {
    const doc = await leaderDoc({ 41: '4' });
    const leader = doc.modelSpace().entities.find((e) => e.type === 'LEADER')!;
    leader.xdata = [{ app: 'ACAD', tags: [[1000, 'DSTYLE'], [1002, '{'], [1070, '41'], [1040, '6.0'], [1002, '}']] }];
    const fill = renderLayout(doc).prims.find((p): p is PathPrim => p.kind === 'path')!;
    expect(fill.rings[0]![0]).toBeCloseTo(6);
  });

  it('draws no arrow when code 71 is 0, and a named arrow block or built-in arrow when DIMLDRBLK says so', async () => {
    expect(renderLayout(await leaderDoc({ 41: '4' }, 0)).prims.map((p) => p.kind)).toEqual(['polyline']);
    // oblique tick: a stroke from (-0.5, -0.5) to (0.5, 0.5) in arrow space, turned 180 degrees
    const doc = await leaderDoc({ 41: '2' });
    const tick = doc.addTableEntry('BLOCK_RECORD', '_OBLIQUE');
    const ds = doc.tables.get('DIMSTYLE')!.entries.find((d) => d.attrs.name === 'Arrows')!;
    ds.extra!.AcDbDimStyleTableRecord!.push([341, tick.handle]);
    let polys = renderLayout(doc).prims.filter((p): p is PolylinePrim => p.kind === 'polyline');
    expect(polys.map((p) => p.pts.map((v) => Math.round(v * 1e9) / 1e9))).toEqual([[0, 0, 50, 0, 50, 20], [1, 1, -1, -1]]);
    // a block of that name wins over the built-in shape: drawn scaled and turned like an insert
    doc.addBlock('_OBLIQUE', [0, 0, 0]);
    add(doc, 'LINE', { start: [0, 0, 0], end: [-1, 0.5, 0] }, '_OBLIQUE');
    polys = renderLayout(doc).prims.filter((p): p is PolylinePrim => p.kind === 'polyline');
    expect(polys[1]!.pts.map((v) => Math.round(v * 1e9) / 1e9)).toEqual([0, 0, 2, -1]);
  });
});

describe('MLINE', () => {
  // as ezdxf writes a 2-element MLINE (offsets +10 red, -10 blue, square caps) through
  // (0, 0), (100, 0), (100, 100) with zero justification
  const mlineTags = (closed: boolean): [number, string][] => {
    const t: [number, string][] = [[2, 'TWO'], [40, '1'], [70, '1'], [71, closed ? '3' : '1'], [72, '3'], [73, '2'], [10, '0'], [20, '0'], [30, '0']];
    const vertex = (x: number, y: number, dx: number, dy: number, mx: number, my: number, d: number): void => {
      t.push([11, String(x)], [21, String(y)], [31, '0'], [12, String(dx)], [22, String(dy)], [32, '0'], [13, String(mx)], [23, String(my)], [33, '0']);
      t.push([74, '2'], [41, String(d)], [41, '0'], [75, '0'], [74, '2'], [41, String(-d)], [41, '0'], [75, '0']);
    };
    vertex(0, 0, 1, 0, 0, 1, 10);
    vertex(100, 0, 0, 1, -Math.SQRT1_2, Math.SQRT1_2, 10 * Math.SQRT2);
    vertex(100, 100, 0, 1, -1, 0, 10);
    return t;
  };
  const mlineDoc = async (closed = false, styleFlags = 272): Promise<Awaited<ReturnType<typeof newDoc>>> => {
    const doc = await newDoc();
    doc.objects.push({
      kind: 'object', type: 'MLINESTYLE', handle: '', owner: '', attrs: {},
      extra: { AcDbMlineStyle: [[2, 'TWO'], [70, String(styleFlags)], [3, ''], [62, '3'], [51, '90'], [52, '90'], [71, '2'], [49, '10'], [62, '1'], [6, 'BYLAYER'], [49, '-10'], [62, '5'], [6, 'BYLAYER']] },
    });
    const e = add(doc, 'MLINE', {});
    e.extra = { AcDbMline: mlineTags(closed) };
    return doc;
  };
  const rounded = (p: PolylinePrim): number[] => p.pts.map((v) => Math.round(v * 1e6) / 1e6);

  it('draws each element along the miters in its style colour, with square caps', async () => {
    const list = renderLayout(await mlineDoc());
    expect(list.skipped).toEqual({});
    const polys = list.prims.filter((p): p is PolylinePrim => p.kind === 'polyline');
    expect(polys.map((p) => [p.color, rounded(p)])).toEqual([
      [0xff0000, [0, 10, 90, 10, 90, 100]],
      [0x0000ff, [0, -10, 110, -10, 110, 100]],
      // start cap, then end cap: top half in the top element's colour, bottom half in the bottom's
      [0xff0000, [0, 10, 0, 0]], [0x0000ff, [0, -10, 0, 0]],
      [0xff0000, [90, 100, 100, 100]], [0x0000ff, [110, 100, 100, 100]],
    ]);
    const svg = pageToSvg(fitPage('Model', list, 200, 100, 5));
    expect(svg).toMatch(/<path d="M0 10 90 10 90 100" stroke="#ff0000"/);
    expect(svg).toMatch(/<path d="M0 -10 110 -10 110 100" stroke="#0000ff"/);
  });

  it('closes closed MLINEs without caps, fills when the style says so and rounds caps into half circles', async () => {
    const closed = renderLayout(await mlineDoc(true, 1 | 16));
    const kinds = closed.prims.map((p) => p.kind);
    expect(kinds).toEqual(['path', 'polyline', 'polyline']);
    expect(closed.prims[0]!.color).toBe(0x00ff00);
    // the band between the borders: two rings, filled even-odd
    expect((closed.prims[0] as PathPrim).rings.map((r) => r.length)).toEqual([6, 6]);
    expect((closed.prims[1] as PolylinePrim).closed).toBe(true);
    const round = renderLayout(await mlineDoc(false, 64));
    const arc = round.prims.filter((p): p is PolylinePrim => p.kind === 'polyline').slice(2);
    // two quarter circles of radius 10 about (0, 0) bulging to -x: red from the top, blue to the bottom
    expect(arc.map((p) => p.color)).toEqual([0xff0000, 0x0000ff]);
    const xs = arc.flatMap((p) => p.pts.filter((_, i) => i % 2 === 0));
    expect(Math.min(...xs)).toBeCloseTo(-10, 1);
    expect(arc[0]!.pts[0]).toBeCloseTo(0);
    expect(arc[0]!.pts[1]).toBeCloseTo(10);
    expect(arc[1]!.pts.at(-2)).toBeCloseTo(0);
    expect(arc[1]!.pts.at(-1)).toBeCloseTo(-10);
  });
});

describe('RAY and XLINE', () => {
  it('clips them to the extents of the rest, which they do not change', async () => {
    const doc = await newDoc();
    add(doc, 'LINE', { start: [0, 0, 0], end: [100, 50, 0] });
    add(doc, 'XLINE', { color: 1, start: [50, 25, 0], unit_vector: [1, 0, 0] });
    add(doc, 'RAY', { color: 5, start: [50, 10, 0], unit_vector: [0, 1, 0] });
    // a ray pointing away from the drawing shows nothing
    add(doc, 'RAY', { color: 3, start: [200, 10, 0], unit_vector: [1, 0, 0] });
    const list = renderLayout(doc);
    expect(list.skipped).toEqual({});
    expect(list.bounds).toEqual({ minX: 0, minY: 0, maxX: 100, maxY: 50 });
    const polys = list.prims.filter((p): p is PolylinePrim => p.kind === 'polyline');
    expect(polys.map((p) => [p.color, p.pts])).toEqual([[0x000000, [0, 0, 100, 50]], [0xff0000, [0, 25, 100, 25]], [0x0000ff, [50, 10, 50, 50]]]);
    const svg = pageToSvg(fitPage('Model', list, 200, 100, 5));
    expect(svg).toMatch(/<path d="M0 25 100 25" stroke="#ff0000"/);
    expect(svg).toMatch(/<path d="M50 10 50 50" stroke="#0000ff"/);
  });

  it('follows block transforms and clips to a given area', async () => {
    const doc = await newDoc();
    add(doc, 'LINE', { start: [0, 0, 0], end: [10, 10, 0] });
    doc.addBlock('R', [0, 0, 0]);
    add(doc, 'RAY', { start: [0, 0, 0], unit_vector: [1, 0, 0] }, 'R');
    // rotated 90 degrees at (5, 2): the ray runs up from there
    add(doc, 'INSERT', { name: 'R', insert: [5, 2, 0], rotation: 90 });
    const ray = (list: ReturnType<typeof renderLayout>): number[] => (list.prims[1] as PolylinePrim).pts.map((v) => Math.round(v * 1e9) / 1e9);
    expect(ray(renderLayout(doc))).toEqual([5, 2, 5, 10]);
    const wide = renderLayout(doc, { area: { minX: -100, minY: -100, maxX: 100, maxY: 40 } });
    expect(ray(wide)).toEqual([5, 2, 5, 40]);
    expect(wide.bounds).toEqual({ minX: 0, minY: 0, maxX: 10, maxY: 10 });
  });

  it('gives a drawing of nothing but infinite lines finite extents around their base points', async () => {
    const doc = await newDoc();
    add(doc, 'XLINE', { start: [3, 4, 0], unit_vector: [0.6, 0.8, 0] });
    const list = renderLayout(doc);
    expect(list.bounds).toEqual({ minX: -7, minY: -6, maxX: 13, maxY: 14 });
    const pts = (list.prims[0] as PolylinePrim).pts;
    // through (3, 4) with slope 4/3, from the bottom edge to the top edge of that box
    expect(pts[1]).toBeCloseTo(-6);
    expect(pts[0]).toBeCloseTo(3 - 7.5);
    expect(pts[3]).toBeCloseTo(14);
    expect(pts[2]).toBeCloseTo(3 + 7.5);
  });

  it('ends model-space infinite lines at the viewport frame in paper space', async () => {
    const doc = await newDoc();
    add(doc, 'LINE', { start: [0, 0, 0], end: [1000, 1000, 0] });
    add(doc, 'XLINE', { start: [0, 500, 0], unit_vector: [1, 0, 0] });
    const layout = doc.layouts().find((l) => l.block.name.toUpperCase() !== '*MODEL_SPACE')!;
    add(doc, 'VIEWPORT', { center: [50, 50, 0], width: 80, height: 40, id: 2, status: 1, view_center_point: [500, 500, 0], view_height: 400 }, layout.block.name);
    const list = renderLayout(doc, { layout: layout.name });
    const polys = list.prims.filter((p): p is PolylinePrim => p.kind === 'polyline' && p.pts.length === 4 && p.pts[1] === p.pts[3]);
    // the xline at model y = 500 is the frame's horizontal centre line, exactly as wide as the frame
    expect(polys.map((p) => p.pts)).toContainEqual([10, 50, 90, 50]);
    expect(list.bounds).toEqual({ minX: 10, minY: 30, maxX: 90, maxY: 70 });
  });
});

describe('text codes', () => {
  it('decodes %% codes and \\U+ escapes', () => {
    expect(decodeText('%%c50 %%d %%p0.1 %%%').text).toBe('\u00d850 \u00b0 \u00b10.1 %');
    expect(decodeText('%%uunder').flags.underline).toBe(true);
    expect(decodeText('\\U+00E9t\\U+00E9').text).toBe('\u00e9t\u00e9');
  });

  it('parses MTEXT inline codes', () => {
    const paras = parseMText('{\\fArial|b1;\\H2x;Big}\\PA\\~B \\L under\\l {\\C3;green} \\S3/4; %%d', 1, 'txt');
    expect(paras.length).toBe(2);
    expect(paras[0]!.runs[0]).toMatchObject({ text: 'Big', height: 2, font: 'Arial' });
    const r = paras[1]!.runs;
    expect(r[0]!.text).toBe('A\u00a0B ');
    expect(r.find((x) => x.text === ' under')!.underline).toBe(true);
    expect(r.find((x) => x.text === 'green')!.color).toBe(0x00ff00);
    expect(r.find((x) => x.stack)!.stack).toEqual({ up: '3', down: '4', kind: '/' });
    expect(r[r.length - 1]!.text).toBe(' \u00b0');
  });

  it('word-wraps MTEXT at its width and honours attachment points', () => {
    const pieces = layoutMText(parseMText('one two three four five six', 1, 'txt'), 1, 8, 5, 1);
    const ys = [...new Set(pieces.map((p) => p.y.toFixed(3)))];
    expect(ys.length).toBeGreaterThan(1);
    // middle centre: lines centred on x = 0
    for (const p of pieces) expect(Math.abs(p.x + p.width / 2)).toBeLessThan(4);
  });
});

describe('MULTILEADER', () => {
  const RED = String(0xc2ff0000 | 0);
  const BY_BLOCK = String(0xc1000000 | 0);
  /** The tags AutoCAD writes, trimmed to what drawing reads: context data, one leader, one line. */
  function mleaderTags(content: Array<[number, string]>, entityLevel: Array<[number, string]> = []): Array<[number, string]> {
    return [
      [100, 'AcDbMLeader'],
      [270, '2'],
      [300, 'CONTEXT_DATA{'],
      [40, '1'],
      [10, '20'], [20, '10'], [30, '0'],
      [41, '2.5'],
      [140, '2'],
      [145, '0.5'],
      ...content,
      [302, 'LEADER{'],
      [290, '1'],
      [291, '1'],
      [10, '18'], [20, '10'], [30, '0'],
      [11, '1'], [21, '0'], [31, '0'],
      [90, '0'],
      [40, '2'],
      [304, 'LEADER_LINE{'],
      [10, '0'], [20, '0'], [30, '0'],
      [91, '0'],
      [305, '}'],
      [303, '}'],
      [301, '}'],
      [170, '1'],
      [91, RED],
      [290, '1'],
      [291, '1'],
      ...entityLevel,
    ];
  }

  it('draws the leader line to the landing, the dogleg, the arrow at the first vertex and the MTEXT', async () => {
    const doc = await newDoc();
    const text: Array<[number, string]> = [[290, '1'], [304, 'NOTE\\Ptwo'], [12, '20.5'], [22, '11.25'], [32, '0'], [13, '1'], [23, '0'], [33, '0'], [43, '0'], [171, '1'], [90, BY_BLOCK], [296, '0']];
    doc.addEntity({ kind: 'entity', type: 'MULTILEADER', handle: '', owner: '', attrs: { layer: '0' }, extra: { '': mleaderTags(text) } });
    const list = renderLayout(doc);
    expect(list.skipped).toEqual({});
    const lines = list.prims.filter((p): p is PolylinePrim => p.kind === 'polyline');
    expect(lines.map((l) => [l.pts, l.color])).toEqual([
      [[0, 0, 18, 10], 0xff0000],
      [[18, 10, 20, 10], 0xff0000],
    ]);
    const arrows = list.prims.filter((p): p is PathPrim => p.kind === 'path');
    expect(arrows).toHaveLength(1);
    expect(arrows[0]!.color).toBe(0xff0000);
    const ring = arrows[0]!.rings[0]!;
    // tip at the first vertex, the body towards the landing
    expect([ring[2], ring[3]]).toEqual([0, 0]);
    expect(ring[0]! > 0 && ring[1]! > 0).toBe(true);
    const texts = list.prims.filter((p): p is TextPrim => p.kind === 'text');
    expect(texts.map((t) => t.text)).toEqual(['NOTE', 'two']);
    // top-left attachment at the text location: the first line hangs below y = 11.25
    expect(texts[0]!.y).toBeLessThan(11.25);
    expect(texts[0]!.x).toBeCloseTo(20.5, 6);
    expect(texts[0]!.color).toBe(0x000000);
  });

  it('frames the text the landing gap away from it when the entity asks for a text frame (292)', async () => {
    const doc = await newDoc();
    const text: Array<[number, string]> = [[290, '1'], [304, 'NOTE'], [12, '20.5'], [22, '11.25'], [32, '0'], [13, '1'], [23, '0'], [33, '0'], [43, '0'], [171, '1'], [90, BY_BLOCK], [296, '0']];
    doc.addEntity({ kind: 'entity', type: 'MULTILEADER', handle: '', owner: '', attrs: { layer: '0' }, extra: { '': mleaderTags(text, [[292, '1']]) } });
    const list = renderLayout(doc);
    const frames = list.prims.filter((p): p is PolylinePrim => p.kind === 'polyline' && p.closed);
    expect(frames).toHaveLength(1);
    const xs = frames[0]!.pts.filter((_, i) => i % 2 === 0);
    const ys = frames[0]!.pts.filter((_, i) => i % 2 === 1);
    const text0 = list.prims.find((p): p is TextPrim => p.kind === 'text')!;
    // the landing gap (145: 0.5) around the text, whose top-left corner is the text location
    expect(Math.min(...xs)).toBeCloseTo(20.5 - 0.5, 9);
    expect(Math.max(...ys)).toBeCloseTo(11.25 + 0.5, 6);
    expect(Math.max(...xs)).toBeGreaterThan(text0.x + text0.width);
    expect(Math.min(...ys)).toBeLessThan(text0.y);
  });

  it('draws block content scaled and rotated at its location, and no lines when the leader type is 0', async () => {
    const doc = await newDoc();
    const block = doc.addBlock('MARK', [0, 0, 0]);
    // ByBlock: takes the block content colour
    add(doc, 'LINE', { color: 0, start: [0, 0, 0], end: [1, 0, 0] }, 'MARK');
    const content: Array<[number, string]> = [[290, '0'], [296, '1'], [341, block.block.owner], [15, '50'], [25, '50'], [35, '0'], [16, '2'], [26, '2'], [36, '2'], [46, String(Math.PI / 2)], [93, RED]];
    const tags = mleaderTags(content).map(([c, v]): [number, string] => (c === 170 ? [170, '0'] : [c, v]));
    doc.addEntity({ kind: 'entity', type: 'MULTILEADER', handle: '', owner: '', attrs: { layer: '0' }, extra: { '': tags } });
    const list = renderLayout(doc);
    expect(list.skipped).toEqual({});
    const lines = list.prims.filter((p): p is PolylinePrim => p.kind === 'polyline');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.pts.map((v) => Math.round(v * 1e9) / 1e9)).toEqual([50, 50, 50, 52]);
    expect(lines[0]!.color).toBe(0xff0000);
  });
});

describe('TOLERANCE', () => {
  it('reads rows (^J), boxes (%%v) and gdt symbols, dropping empty boxes', () => {
    expect(parseTolerance('{\\Fgdt;j}%%v{\\Fgdt;n}0.1{\\Fgdt;m}%%v%%vA^J.5')).toEqual([
      [[{ kind: 'symbol', code: 'j' }], [{ kind: 'symbol', code: 'n' }, { kind: 'text', text: '0.1' }, { kind: 'symbol', code: 'm' }], [{ kind: 'text', text: 'A' }]],
      [[{ kind: 'text', text: '.5' }]],
    ]);
  });

  it('frames each box of each row, rows stacked down from the insertion point, with text DIMTXT high', async () => {
    const doc = await newDoc();
    const tags: Array<[number, string]> = [[100, 'AcDbFcf'], [3, 'Standard'], [10, '100'], [20, '50'], [30, '0'], [1, '{\\Fgdt;j}%%v{\\Fgdt;n}0.1%%vA^J{\\Fgdt;u}%%v0.05'], [11, '1'], [21, '0'], [31, '0']];
    doc.addEntity({ kind: 'entity', type: 'TOLERANCE', handle: '', owner: '', attrs: { layer: '0' }, extra: { '': tags } });
    const list = renderLayout(doc);
    expect(list.skipped).toEqual({});
    const frames = list.prims.filter((p): p is PolylinePrim => p.kind === 'polyline' && p.closed && p.pts.length === 8);
    // 3 boxes in the first row, 2 in the second (circles of the symbols have more vertices)
    const rows = new Map<number, number[][]>();
    for (const f of frames) {
      const top = Math.max(f.pts[1]!, f.pts[3]!, f.pts[5]!, f.pts[7]!);
      rows.set(Math.round(top * 1000), [...(rows.get(Math.round(top * 1000)) ?? []), f.pts]);
    }
    const tops = [...rows.keys()].sort((a, b) => b - a);
    expect(tops.map((t) => rows.get(t)!.length)).toEqual([3, 2]);
    // first row centred on the insertion point's y, the second right below it, both starting at its x
    const ys = (pts: number[]) => [Math.min(pts[1]!, pts[5]!), Math.max(pts[1]!, pts[5]!)];
    const [bottom0, top0] = ys(rows.get(tops[0]!)![0]!);
    expect((bottom0! + top0!) / 2).toBeCloseTo(50, 9);
    expect(Math.max(...rows.get(tops[1]!)!.map((p) => ys(p)[1]!))).toBeCloseTo(bottom0!, 9);
    for (const r of tops) expect(Math.min(...rows.get(r)!.flatMap((p) => [p[0]!, p[2]!, p[4]!, p[6]!]))).toBeCloseTo(100, 9);
    const texts = list.prims.filter((p): p is TextPrim => p.kind === 'text');
    expect(texts.map((t) => t.text)).toEqual(['0.1', 'A', '0.05']);
    expect(texts[0]!.height).toBeCloseTo(2.5, 9);
  });
});

describe('proxy graphics', () => {
  /** Builds a proxy graphics stream from (type, payload) commands. */
  function proxyBytes(commands: Array<[number, Buffer]>): Buffer {
    const parts = commands.map(([type, payload]) => {
      const head = Buffer.alloc(8);
      head.writeInt32LE(8 + payload.length, 0);
      head.writeInt32LE(type, 4);
      return Buffer.concat([head, payload]);
    });
    const head = Buffer.alloc(8);
    head.writeInt32LE(8 + parts.reduce((n, p) => n + p.length, 0), 0);
    head.writeInt32LE(commands.length, 4);
    return Buffer.concat([head, ...parts]);
  }
  const doubles = (...v: number[]) => {
    const b = Buffer.alloc(v.length * 8);
    v.forEach((x, i) => b.writeDoubleLE(x, i * 8));
    return b;
  };
  const int = (v: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v | 0, 0);
    return b;
  };
  const utf16 = (s: string) => {
    const raw = Buffer.from(`${s}\0`, 'utf16le');
    return Buffer.concat([raw, Buffer.alloc((4 - (raw.length % 4)) % 4)]);
  };

  it('draws an entity it has no code for from its proxy graphics: lines, circles, colours, text', async () => {
    const bytes = proxyBytes([
      [19, int(1)], // marker: nothing to draw
      [6, Buffer.concat([int(2), doubles(0, 0, 0, 10, 0, 0)])], // polyline
      [22, int(0xc2ff0000)], // true colour red
      [2, doubles(5, 5, 0, 2, 0, 0, 1)], // circle, normal +z
      [36, Buffer.concat([doubles(1, 8, 0, 0, 0, 1, 1, 0, 0, 1.5, 1, 0), utf16('Hi')])], // unicode text
      [999, Buffer.alloc(16)], // unknown: skipped by its size
    ]);
    const hex = bytes.toString('hex').toUpperCase();
    const tags: Array<[number, string]> = [[100, 'AcDbProxyEntity'], [90, '498'], [92, String(bytes.length)]];
    for (let i = 0; i < hex.length; i += 254) tags.push([310, hex.slice(i, i + 254)]);
    tags.push([93, '0']);
    const doc = await newDoc();
    doc.addEntity({ kind: 'entity', type: 'ACAD_PROXY_ENTITY', handle: '', owner: '', attrs: { layer: '0' }, extra: { '': tags } });
    const list = renderLayout(doc);
    expect(list.skipped).toEqual({});
    const lines = list.prims.filter((p): p is PolylinePrim => p.kind === 'polyline');
    expect(lines).toHaveLength(2);
    expect(lines[0]!.pts).toEqual([0, 0, 10, 0]);
    expect(lines[0]!.color).toBe(0x000000);
    const circle = lines[1]!;
    expect(circle.closed).toBe(true);
    expect(circle.color).toBe(0xff0000);
    for (let i = 0; i < circle.pts.length; i += 2) expect(Math.hypot(circle.pts[i]! - 5, circle.pts[i + 1]! - 5)).toBeCloseTo(2, 9);
    const texts = list.prims.filter((p): p is TextPrim => p.kind === 'text');
    expect(texts.map((t) => [t.text, t.x, t.y, t.height, t.color])).toEqual([['Hi', 1, 8, 1.5, 0xff0000]]);
  });

  it('draws what precedes a cut or malformed command and stops there', async () => {
    const whole = proxyBytes([
      [6, Buffer.concat([int(2), doubles(0, 0, 0, 10, 0, 0)])],
      [6, Buffer.concat([int(1000), doubles(0, 5, 0, 10, 5, 0)])], // claims 1000 vertices
      [2, doubles(5, 5, 0, 2, 0, 0, 1)],
    ]);
    const cut = whole.subarray(0, whole.length - 20); // the circle's command is cut short as well
    for (const bytes of [whole, cut]) {
      const hex = bytes.toString('hex').toUpperCase();
      const doc = await newDoc();
      doc.addEntity({ kind: 'entity', type: 'ACAD_PROXY_ENTITY', handle: '', owner: '', attrs: { layer: '0' }, extra: { '': [[100, 'AcDbProxyEntity'], [92, String(bytes.length)], [310, hex]] } });
      const list = renderLayout(doc);
      expect(list.skipped).toEqual({});
      expect(list.prims.filter((p): p is PolylinePrim => p.kind === 'polyline').map((p) => p.pts)).toEqual([[0, 0, 10, 0]]);
    }
  });

  it('still counts an unknown entity without proxy graphics as not drawn', async () => {
    const doc = await newDoc();
    doc.addEntity({ kind: 'entity', type: 'WIDGET', handle: '', owner: '', attrs: { layer: '0' }, extra: { '': [[100, 'AcDbWidget'], [10, '1']] } });
    expect(renderLayout(doc).skipped).toEqual({ WIDGET: 1 });
  });
});

describe('POLYLINE meshes', () => {
  it('draws a smoothed polygon mesh as the grid of its surface vertices, without the control frame', async () => {
    const doc = await newDoc();
    const vertex = (x: number, y: number, flags: number) => ent('VERTEX', { location: [x, y, 0], flags });
    const control = [vertex(0, 0, 80), vertex(0, 100, 80), vertex(100, 0, 80), vertex(100, 100, 80)];
    const surface: Entity[] = [];
    for (let i = 0; i < 3; i++) for (let j = 0; j < 2; j++) surface.push(vertex(i * 10, j * 10, 72));
    doc.addEntity(ent('POLYLINE', { flags: 20, m_count: 2, n_count: 2, m_smooth_density: 3, n_smooth_density: 2, smooth_type: 5 }, [...control, ...surface]));
    const list = renderLayout(doc);
    expect(list.skipped).toEqual({});
    const lines = list.prims.filter((p): p is PolylinePrim => p.kind === 'polyline');
    expect(lines).toHaveLength(1);
    // 3 rows of 2 vertices, then 2 columns of 3: no point of the 100-unit control frame
    expect(lines[0]!.pts).toEqual([0, 0, 0, 10, 10, 0, 10, 10, 20, 0, 20, 10, 0, 0, 10, 0, 20, 0, 0, 10, 10, 10, 20, 10]);
    expect(lines[0]!.breaks).toEqual([2, 4, 6, 9]);
  });
});

describe('MTEXT text frame', () => {
  it('draws a frame around the text when the background flags have bit 16, none without', async () => {
    const doc = await newDoc('AC1032');
    add(doc, 'MTEXT', { insert: [0, 10, 0], char_height: 2, text: 'framed', bg_fill: 16, box_fill_scale: 1.5 });
    add(doc, 'MTEXT', { insert: [0, 30, 0], char_height: 2, text: 'plain' });
    const frames = renderLayout(doc).prims.filter((p): p is PolylinePrim => p.kind === 'polyline' && p.closed);
    expect(frames).toHaveLength(1);
    const ys = frames[0]!.pts.filter((_, i) => i % 2 === 1);
    // around the first text only: top at its insertion point plus the gap (0.25 of the height)
    expect(Math.max(...ys)).toBeCloseTo(10.5, 9);
  });
});
