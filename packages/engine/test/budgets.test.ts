// Work budgets (issue 21): each hostile probe answers a budget error or finishes quickly with the
// offending entity left undrawn, the process stays small, and a request past its deadline is
// stopped with the document as it was. Fixtures are generated here.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { active, call, dump, engine, fails, ok } from './helpers.js';
import { Workspace, restoreSession, saveSession, type Engine } from '../src/index.js';
import { BUDGETS, DEFAULT_BUDGETS, budgetsFromEnv, configureBudgets } from '../src/budgets.js';
import { mtextComplexity } from '../src/entity-budget.js';
import { renderLayout } from '../src/render/renderer.js';
import { dxf } from '../src/dxf.js';
import { plotCommand } from '../src/plot/index.js';

const dir = mkdtempSync(join(tmpdir(), 'lw-budgets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => configureBudgets(DEFAULT_BUDGETS));

const GB = 1024 ** 3;

/** DXF text of group code / value pairs. */
function tags(pairs: [number, string | number][]): string {
  return pairs.map(([c, v]) => `${c}\n${v}\n`).join('');
}

/** A minimal DXF file: BLOCKS and ENTITIES sections (the reader repairs the rest). */
export function dxfFile(name: string, blocks: string, entities: string): string {
  const path = join(dir, name);
  writeFileSync(path, tags([[0, 'SECTION'], [2, 'BLOCKS']]) + blocks + tags([[0, 'ENDSEC'], [0, 'SECTION'], [2, 'ENTITIES']]) + entities + tags([[0, 'ENDSEC'], [0, 'EOF']]));
  return path;
}

export const LINE_BLOCK = tags([
  [0, 'BLOCK'], [8, '0'], [2, 'B'], [70, 0], [10, 0], [20, 0], [30, 0], [3, 'B'],
  [0, 'LINE'], [8, '0'], [10, 0], [20, 0], [30, 0], [11, 1], [21, 1], [31, 0],
  [0, 'ENDBLK'], [8, '0'],
]);

/** An INSERT of block B as a rows x cols array. */
export function minsert(rows: number, cols: number): string {
  return tags([[0, 'INSERT'], [8, '0'], [2, 'B'], [10, 0], [20, 0], [30, 0], [70, cols], [71, rows], [44, 2], [45, 2]]);
}

/** An MTEXT of `depth` nested `{\H2;` groups. */
export function nestedMText(depth: number): string {
  const text = '{\\H2;'.repeat(depth) + 'x' + '}'.repeat(depth);
  const pairs: [number, string | number][] = [[0, 'MTEXT'], [8, '0'], [10, 0], [20, 0], [30, 0], [40, 2.5]];
  for (let i = 0; i < text.length; i += 250) pairs.push([i + 250 < text.length ? 3 : 1, text.slice(i, i + 250)]);
  return tags(pairs);
}

/** A SPLINE of `degree` through `n` control points (clamped uniform knots). */
export function bigSpline(degree: number, n: number): string {
  const pairs: [number, string | number][] = [
    [0, 'SPLINE'], [8, '0'], [100, 'AcDbEntity'], [100, 'AcDbSpline'], [70, 8], [71, degree], [72, n + degree + 1], [73, n], [74, 0],
  ];
  for (let i = 0; i < n + degree + 1; i++) pairs.push([40, Math.min(Math.max(i - degree, 0), n - degree)]);
  for (let i = 0; i < n; i++) pairs.push([10, i], [20, Math.sin(i)], [30, 0]);
  return tags(pairs);
}

function fresh(): Engine {
  return engine({ workspace: new Workspace([dir]) });
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const r = await fn();
  return [r, performance.now() - t];
}

describe('budgets from the environment', () => {
  it('reads each variable, refuses what is not a positive integer', () => {
    expect(budgetsFromEnv({})).toEqual(DEFAULT_BUDGETS);
    const b = budgetsFromEnv({ LINEWORK_MAX_PLOT_PIXELS: '5000', LINEWORK_REQUEST_TIMEOUT_MS: '0', LINEWORK_MAX_OPEN_DOCUMENTS: ' 7 ' });
    expect(b.plotPixels).toBe(5000);
    expect(b.requestMs).toBe(0);
    expect(b.sessionDocuments).toBe(7);
    expect(() => budgetsFromEnv({ LINEWORK_MAX_PLOT_PIXELS: '1e3x' })).toThrow(/LINEWORK_MAX_PLOT_PIXELS/);
    expect(() => budgetsFromEnv({ LINEWORK_MAX_EXPANDED_ENTITIES: '0' })).toThrow(/>= 1/);
    expect(() => budgetsFromEnv({ LINEWORK_REQUEST_TIMEOUT_MS: '-5' })).toThrow(/>= 0/);
  });

  it('capabilities list the budgets in force and the ops\' budget codes', async () => {
    const caps = await ok(fresh(), 'capabilities');
    const plot = caps.ops.find((o: { name: string }) => o.name === 'plot');
    expect(plot.errors).toContain('budget_exceeded');
    expect(caps.budgets).toMatchObject({ plot_pixels: 100_000_000, expanded_entities: 1_000_000, session_documents: 32, request_ms: 60_000 });
    expect(Object.keys(caps.budgets)).toHaveLength(13);
  });
});

describe('plot: pixels and paper', () => {
  it('a 5000 x 5000 mm PNG at 2400 dpi answers plot_pixels at once, writes nothing', async () => {
    const e = fresh();
    await ok(e, 'entities_create', { entities: [{ type: 'Line', start: [0, 0], end: [10, 10] }] });
    const rss = process.memoryUsage().rss;
    const [r, ms] = await timed(() => fails(e, 'plot', { path: 'huge.png', paper: '5000x5000', dpi: 2400 }, 'budget_exceeded'));
    expect(ms).toBeLessThan(2000);
    expect(r.details).toMatchObject({ budget: 'plot_pixels', limit: 100_000_000 });
    expect((r.details as { requested: number }).requested).toBeGreaterThan(2e11);
    expect(r.error).toContain('100000000');
    expect(existsSync(join(dir, 'huge.png'))).toBe(false);
    expect(process.memoryUsage().rss - rss).toBeLessThan(GB);
  });

  it('the paper side, explicit pixel sizes and the operator\'s own budget', async () => {
    const e = fresh();
    await ok(e, 'entities_create', { entities: [{ type: 'Line', start: [0, 0], end: [10, 10] }] });
    const paper = await fails(e, 'plot', { path: 'p.pdf', paper: '9000x9000' }, 'budget_exceeded');
    expect(paper.details).toMatchObject({ budget: 'paper_mm', limit: 5000, requested: 9000 });
    await fails(e, 'plot', { path: 'p.png', width: 20000, height: 20000 }, 'budget_exceeded');
    configureBudgets({ plotPixels: 10_000 });
    const small = await fails(e, 'plot', { path: 'p.png', width: 200, height: 100 }, 'budget_exceeded');
    expect(small.error).toContain('10000 pixels');
    await ok(e, 'plot', { path: 'p.png', width: 100, height: 100 });
  });
});

describe('block expansion', () => {
  it('set_properties of an INSERT to a 1e6 x 1e6 array is refused quickly; the document is unchanged', async () => {
    const e = fresh();
    await ok(e, 'document_open', { path: dxfFile('one-insert.dxf', LINE_BLOCK, minsert(1, 1)) });
    const ins = (await ok(e, 'entities_list', { type: 'INSERT' })).entities[0].handle as string;
    const before = dump(active(e).doc);
    const version = active(e).version;
    const [r, ms] = await timed(() => fails(e, 'set_properties', { handles: [ins], properties: { row_count: 1_000_000, column_count: 1_000_000 } }, 'budget_exceeded'));
    expect(ms).toBeLessThan(2000);
    expect(r.details).toMatchObject({ budget: 'expanded_entities', limit: 1_000_000, requested: 1e12 });
    expect(active(e).version).toBe(version);
    expect(dump(active(e).doc)).toBe(before);
    // within the budget it is an ordinary change
    await ok(e, 'set_properties', { handles: [ins], properties: { row_count: 10, column_count: 10 } });
  });

  it('a DXF file with a 1e6 x 1e6 MINSERT opens, keeps it, and plots without expanding it', async () => {
    const e = fresh();
    const path = dxfFile('minsert.dxf', LINE_BLOCK, minsert(1_000_000, 1_000_000) + tags([[0, 'LINE'], [8, '0'], [10, 0], [20, 0], [30, 0], [11, 5], [21, 5], [31, 0]]));
    const rss = process.memoryUsage().rss;
    const [opened, openMs] = await timed(() => ok(e, 'document_open', { path }));
    expect(openMs).toBeLessThan(2000);
    expect(opened.document_id).toBeGreaterThan(0);
    // kept: the entity and its array are in the drawing
    const kept = active(e).doc.modelSpace().entities.find((x) => x.type === 'INSERT')!;
    expect([kept.attrs.row_count, kept.attrs.column_count]).toEqual([1_000_000, 1_000_000]);
    // extents come from the block's box through the corner cells: the whole array
    const focus = await ok(e, 'view_focus', {});
    expect(JSON.stringify(focus)).toContain('1999999');
    // the PDF writer is loaded on the first PDF: not part of the timing
    await ok(fresh(), 'plot', { path: 'warm-up.pdf' });
    const [plotted, plotMs] = await timed(() => ok(e, 'plot', { path: 'minsert.pdf' }));
    expect(plotMs).toBeLessThan(2000);
    expect(plotted.skipped).toEqual({ 'INSERT(over the expanded_entities budget)': 1 });
    const dl = await ok(e, 'display_list', {});
    expect(JSON.stringify(dl)).toContain('expanded_entities');
    expect(process.memoryUsage().rss - rss).toBeLessThan(GB);
  });

  it('geometry queries refuse to expand it: budget_exceeded', async () => {
    const e = fresh();
    await ok(e, 'document_open', { path: dxfFile('minsert-q.dxf', LINE_BLOCK, minsert(1_000_000, 1_000_000)) });
    const [r, ms] = await timed(() => call(e, 'entities_list', { near: [0, 0, 1] }));
    expect(ms).toBeLessThan(2000);
    if (!r.ok) expect(r.code).toBe('budget_exceeded');
  });

  it('nested blocks through the API (six levels of ten inserts, then ten of the top) answer quickly', async () => {
    const e = fresh();
    const { handles } = await ok(e, 'entities_create', { entities: Array.from({ length: 10 }, (_, i) => ({ type: 'Line', start: [i, 0], end: [i, 1] })) });
    await ok(e, 'block_define', { name: 'L1', handles });
    for (let level = 2; level <= 6; level++) {
      const ins = await ok(e, 'entities_create', { entities: Array.from({ length: 10 }, (_, i) => ({ type: 'Insert', name: `L${level - 1}`, position: [i * 20 ** (level - 1), 0] })) });
      await ok(e, 'block_define', { name: `L${level}`, handles: ins.handles });
    }
    const top = Array.from({ length: 10 }, (_, i) => ({ type: 'Insert', name: 'L6', position: [0, i * 100] }));
    // 10^6 lines plus the inserts between them: over the default budget, counted before expanding
    const [r, ms] = await timed(() => fails(e, 'entities_create', { entities: top }, 'budget_exceeded'));
    expect(ms).toBeLessThan(2000);
    expect(r.details).toMatchObject({ budget: 'expanded_entities', requested: 1_111_110 });
    // with the budget raised the same request is accepted, and just as fast: boxes come from the
    // blocks' boxes, nothing is expanded to index them
    configureBudgets({ expandedEntities: 2_000_000 });
    const [created, ms2] = await timed(() => ok(e, 'entities_create', { entities: top }));
    expect(ms2).toBeLessThan(2000);
    expect(created.handles).toHaveLength(10);
    const focus = await ok(e, 'view_focus', {});
    expect(focus).toBeTruthy();
    // drawing them is held to the per-request budget: those past it are left out, and named
    configureBudgets({ expandedPerRequest: 100_000 });
    const t = performance.now();
    const list = renderLayout(active(e).doc);
    expect(performance.now() - t).toBeLessThan(2000);
    expect(list.skipped['INSERT(over the expanded_per_request budget)']).toBe(10);
  });

  it('a block that contains itself (twice) is drawn once, the references back not followed', async () => {
    const e = fresh();
    const selfRef = tags([
      [0, 'BLOCK'], [8, '0'], [2, 'B'], [70, 0], [10, 0], [20, 0], [30, 0], [3, 'B'],
      [0, 'LINE'], [8, '0'], [10, 0], [20, 0], [30, 0], [11, 1], [21, 1], [31, 0],
      [0, 'INSERT'], [8, '0'], [2, 'B'], [10, 1], [20, 0], [30, 0],
      [0, 'INSERT'], [8, '0'], [2, 'B'], [10, 0], [20, 1], [30, 0],
      [0, 'ENDBLK'], [8, '0'],
    ]);
    const [, ms] = await timed(() => ok(e, 'document_open', { path: dxfFile('cycle.dxf', selfRef, minsert(1, 1)) }));
    expect(ms).toBeLessThan(2000);
    const plotted = await ok(e, 'plot', { path: 'cycle.svg' });
    expect(plotted.skipped).toEqual({ 'INSERT(depth)': 2 });
    const ins = active(e).doc.modelSpace().entities.find((x) => x.type === 'INSERT')!;
    expect(dxf.boundingBox(ins, active(e).doc)).toEqual({ min: [0, 0, 0], max: [1, 1, 0] });
    expect(dxf.geometry(ins, active(e).doc)).toHaveLength(1);
  });
});

describe('hostile MTEXT and SPLINE', () => {
  it('20,000 nested {\\H2; groups: opens and plots in well under a second, the text left out and named', async () => {
    expect(mtextComplexity('{\\H2;{\\H3;x}}')).toEqual({ depth: 2, codes: 6 });
    const e = fresh();
    await ok(e, 'document_open', { path: dxfFile('mtext.dxf', '', nestedMText(20_000)) });
    const [plotted, ms] = await timed(() => ok(e, 'plot', { path: 'mtext.png' }));
    expect(ms).toBeLessThan(1000);
    expect(plotted.skipped).toEqual({ 'MTEXT(over the mtext_depth budget)': 1 });
    // made through the API, it is refused
    const text = '{\\H2;'.repeat(20_000) + 'x' + '}'.repeat(20_000);
    const r = await fails(e, 'entities_create', { create_layers: true, entities: [{ type: 'MText', text, position: [0, 0] }] }, 'budget_exceeded');
    expect(r.details).toMatchObject({ budget: 'mtext_depth', limit: 64, requested: 20_000 });
    const flat = '\\H2;x'.repeat(12_000);
    const codes = await fails(e, 'entities_create', { create_layers: true, entities: [{ type: 'MText', text: flat, position: [0, 0] }] }, 'budget_exceeded');
    expect(codes.details).toMatchObject({ budget: 'mtext_codes', limit: 10_000, requested: 12_000 });
    // an ordinary formatted text still draws
    await ok(e, 'entities_create', { create_layers: true, entities: [{ type: 'MText', text: '{\\H2;big} {\\C1;red}', position: [0, 0] }] });
  });

  it('a degree-11 spline of 200k control points opens, plots quickly (left out, named) and is refused through the API', async () => {
    const e = fresh();
    await ok(e, 'document_open', { path: dxfFile('spline.dxf', '', bigSpline(11, 200_000)) });
    const [plotted, ms] = await timed(() => ok(e, 'plot', { path: 'spline.png' }));
    expect(ms).toBeLessThan(1000);
    expect(plotted.skipped).toEqual({ 'SPLINE(over the spline_points budget)': 1 });
    // its box is its control points' box (the hull bounds the curve), not an evaluation
    const b = dxf.boundingBox(active(e).doc.modelSpace().entities[0]!, active(e).doc)!;
    expect(b.max[0]).toBe(199_999);
    const pts = Array.from({ length: 30_000 }, (_, i) => [i, Math.sin(i), 0]);
    const r = await fails(e, 'entities_create', { create_layers: true, entities: [{ type: 'Spline', degree: 3, control_points: pts }] }, 'budget_exceeded');
    expect(r.details).toMatchObject({ budget: 'spline_points', limit: 20_000, requested: 30_000 });
    configureBudgets({ splineDegree: 5 });
    const deg = await fails(e, 'entities_create', { create_layers: true, entities: [{ type: 'Spline', degree: 7, control_points: pts.slice(0, 20) }] }, 'budget_exceeded');
    expect(deg.details).toMatchObject({ budget: 'spline_degree', limit: 5, requested: 7 });
  });

  it('vertices per entity', async () => {
    configureBudgets({ entityVertices: 1000 });
    const e = fresh();
    const pts = Array.from({ length: 1001 }, (_, i) => [i, i % 2]);
    const r = await fails(e, 'entities_create', { entities: [{ type: 'LWPolyline', points: pts }] }, 'budget_exceeded');
    expect(r.details).toMatchObject({ budget: 'entity_vertices', limit: 1000, requested: 1001 });
    await ok(e, 'entities_create', { entities: [{ type: 'LWPolyline', points: pts.slice(0, 1000) }] });
  });
});

describe('open documents per session', () => {
  it('opens stop at the budget with session_full; closing one makes room', async () => {
    const e = fresh();
    const path = dxfFile('small.dxf', '', tags([[0, 'LINE'], [8, '0'], [10, 0], [20, 0], [30, 0], [11, 1], [21, 1], [31, 0]]));
    const answers: string[] = [];
    for (let i = 0; i < 50; i++) {
      const r = await call(e, 'document_open', { path });
      answers.push(r.ok ? 'ok' : r.code!);
    }
    // the untitled drawing the session starts with is one of the 32
    expect(answers.filter((a) => a === 'ok')).toHaveLength(BUDGETS.sessionDocuments - 1);
    expect(answers.slice(BUDGETS.sessionDocuments - 1).every((a) => a === 'session_full')).toBe(true);
    const r = await fails(e, 'document_new', {}, 'session_full');
    expect(r.details).toMatchObject({ budget: 'session_documents', limit: 32 });
    expect(r.error).toContain('32');
    await ok(e, 'document_close', { document_id: e.activeId });
    await ok(e, 'document_open', { path });
  });

  it('bytes of open files', async () => {
    const e = fresh();
    const path = dxfFile('bytes.dxf', '', tags([[0, 'LINE'], [8, '0'], [10, 0], [20, 0], [30, 0], [11, 1], [21, 1], [31, 0]]));
    const size = (await import('node:fs')).statSync(path).size;
    configureBudgets({ sessionBytes: size * 2 });
    await ok(e, 'document_open', { path });
    await ok(e, 'document_open', { path });
    const r = await fails(e, 'document_open', { path }, 'session_full');
    expect(r.details).toMatchObject({ budget: 'session_bytes', limit: size * 2, requested: size * 3 });
  });
});

describe('deadline per request', () => {
  it('a change past its deadline answers deadline_exceeded and leaves the document as it was', async () => {
    const e = fresh();
    const entities = Array.from({ length: 30_000 }, (_, i) => ({ type: 'Line', start: [i, 0], end: [i, 1] }));
    const { handles } = await ok(e, 'entities_create', { entities });
    const before = dump(active(e).doc);
    const version = active(e).version;
    configureBudgets({ requestMs: 1 });
    const r = await fails(e, 'entities_transform', { handles, action: 'move', vector: [5, 5] }, 'deadline_exceeded');
    expect(r.details).toMatchObject({ budget: 'request_ms', limit: 1 });
    expect(active(e).version).toBe(version);
    expect(dump(active(e).doc)).toBe(before);
    // a plot and a query stop too
    await fails(e, 'plot', { path: 'late.svg' }, 'deadline_exceeded');
    expect(existsSync(join(dir, 'late.svg'))).toBe(false);
    await fails(e, 'entities_list', { where: [{ path: '/layer', op: 'eq', value: '0' }] }, 'deadline_exceeded');
    // a trim fence crossing all 30 000 lines (each cut by the two long lines across them) stops
    // between its edits, and none of them stays
    configureBudgets({ requestMs: DEFAULT_BUDGETS.requestMs });
    await ok(e, 'entities_create', { entities: [{ type: 'Line', start: [-1, 0.25], end: [30_001, 0.25] }, { type: 'Line', start: [-1, 0.75], end: [30_001, 0.75] }] });
    const withEdges = dump(active(e).doc);
    const v2 = active(e).version;
    configureBudgets({ requestMs: 1 });
    await fails(e, 'trim', { fence: [[-0.5, 0.5], [30_000.5, 0.5]] }, 'deadline_exceeded');
    expect(active(e).version).toBe(v2);
    expect(dump(active(e).doc)).toBe(withEdges);
    configureBudgets({ requestMs: DEFAULT_BUDGETS.requestMs });
    await ok(e, 'entities_transform', { handles: handles.slice(0, 10), action: 'move', vector: [5, 5] });
  });
});

describe('linework plot', () => {
  function io() {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s), isTTY: false, columns: 80 } } };
  }

  it('a file with a 1e6 x 1e6 MINSERT plots quickly, the array named as not drawn', async () => {
    const file = dxfFile('cli-minsert.dxf', LINE_BLOCK, minsert(1_000_000, 1_000_000));
    const a = io();
    const t = performance.now();
    expect(await plotCommand([file, join(dir, 'cli-minsert.png')], a.io)).toBe(0);
    expect(performance.now() - t).toBeLessThan(2000);
    expect(a.err.join('')).toContain('not drawn: INSERT(over the expanded_entities budget) x1');
  });

  it('a PNG over the pixel budget is refused before anything is drawn (exit 1)', async () => {
    const file = dxfFile('cli-small.dxf', '', tags([[0, 'LINE'], [8, '0'], [10, 0], [20, 0], [30, 0], [11, 1], [21, 1], [31, 0]]));
    const a = io();
    expect(await plotCommand([file, join(dir, 'cli-huge.png'), '--paper', '5000x5000', '--dpi', '2400'], a.io)).toBe(1);
    expect(a.err.join('')).toMatch(/budget is 100000000 pixels/);
    expect(existsSync(join(dir, 'cli-huge.png'))).toBe(false);
  });
});

describe('a restored session', () => {
  it('counts against the budget too: documents past it are left out and reported', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lw-budgets-session-'));
    try {
      const a = engine({ workspace: new Workspace([root]) });
      for (let i = 0; i < 4; i++) await ok(a, 'entities_create', { document_id: (await ok(a, 'document_open', {})).document_id, entities: [{ type: 'Point', location: [i, 0] }] });
      await saveSession(a);
      configureBudgets({ sessionDocuments: 3 });
      const b = engine({ workspace: new Workspace([root]), empty: true });
      const report = await restoreSession(b);
      expect(report.restored).toHaveLength(3);
      expect(report.skipped).toHaveLength(2);
      expect(report.skipped[0]!.reason).toMatch(/budget is 3/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
