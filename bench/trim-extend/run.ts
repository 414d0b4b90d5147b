// trim and extend with implicit edges (every visible entity a boundary) on a large drawing: the
// spatial index finds the few entities near the curve, so an op costs what its neighbourhood
// holds, not what the drawing holds (goal: under 20 ms on 100k entities). For scale, the same
// ops with the boundary given explicitly, and a scan that tests every entity's box as a plain
// loop would. Times are of the whole request through the dispatcher (transaction and undo step
// included), median and 95th percentile of --runs ops on different cells, each undone after.
//
//   npx tsx bench/trim-extend/run.ts [--size 100000] [--runs 40] [--quick]   (--quick: 20 000 lines, 20 ops)
import { performance } from 'node:perf_hooks';
import { createEngine, type Engine } from '@linework/engine';

const args = process.argv.slice(2);
function opt(name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : args.find((a) => a.startsWith(name + '='))?.slice(name.length + 1);
}
const quick = args.includes('--quick');
const size = Math.max(100, Number(opt('--size') ?? (quick ? 20_000 : 100_000)) | 0);
const runs = Math.max(3, Number(opt('--runs') ?? (quick ? 20 : 40)) | 0);

async function call(e: Engine, op: string, fields: Record<string, unknown>) {
  const r = await e.dispatch({ protocol: 1, op, ...fields });
  if (!r.ok) throw new Error(`${op}: ${r.code}: ${r.error}`);
  return r.result as any;
}

/** A grid of walls: G x G cells of 10 units, each wall a line; size entities in all. */
async function grid(e: Engine): Promise<number> {
  const g = Math.floor(Math.sqrt(size / 2));
  const entities: Record<string, unknown>[] = [];
  for (let r = 0; r <= g && entities.length < size; r++) {
    for (let c = 0; c < g && entities.length < size; c++) {
      entities.push({ type: 'Line', start: [c * 10, r * 10], end: [c * 10 + 10, r * 10] });
      if (entities.length < size) entities.push({ type: 'Line', start: [r * 10, c * 10], end: [r * 10, c * 10 + 10] });
    }
  }
  for (let i = 0; i < entities.length; i += 50_000) await call(e, 'entities_create', { entities: entities.slice(i, i + 50_000) });
  return g;
}

function stats(ms: number[]): { median: number; p95: number } {
  const s = [...ms].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, p95: s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)]! };
}

async function timed(e: Engine, g: number, make: (x: number, y: number) => { create: Record<string, unknown>; op: string; fields: (h: string) => Record<string, unknown> }): Promise<{ median: number; p95: number }> {
  const ms: number[] = [];
  const warm = 5;
  for (let i = 0; i < runs + warm; i++) {
    // Cells spread over the drawing, away from its border.
    const cx = 1 + ((i * 7919) % Math.max(1, g - 2)), cy = 1 + ((i * 104729) % Math.max(1, g - 2));
    const m = make(cx * 10, cy * 10);
    const h = (await call(e, 'entities_create', { entities: [m.create] })).handles[0];
    const fields = m.fields(h);
    const t0 = performance.now();
    await call(e, m.op, fields);
    if (i >= warm) ms.push(performance.now() - t0);
    await call(e, 'undo', {});
    await call(e, 'undo', {});
  }
  return stats(ms);
}

/** The boxes a scan without the index would test: every entity, once per op. */
function scanBaseline(e: Engine): { median: number; p95: number } {
  const doc = e.active!.doc;
  const ms: number[] = [];
  for (let i = 0; i < Math.min(runs, 10); i++) {
    const t0 = performance.now();
    let n = 0;
    for (const x of doc.modelSpace().entities) {
      const s = x.attrs.start as number[] | undefined;
      if (s && s[0]! > 50 && s[0]! < 60) n++;
    }
    ms.push(performance.now() - t0);
    if (n < 0) console.log(n);
  }
  return stats(ms);
}

const e = createEngine({ appVersion: 'bench' });
const t0 = performance.now();
const g = await grid(e);
const count = e.active!.doc.modelSpace().entities.length;
console.log(`drawing: ${count} lines (a ${g} x ${g} grid of 10-unit cells), built in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${runs} ops each\n`);

// trim: a line across a cell and its two neighbours' walls, the middle piece picked.
const trimMake = (x: number, y: number) => ({
  create: { type: 'Line', start: [x + 5, y - 5], end: [x + 5, y + 15] },
  op: 'trim', fields: (h: string) => ({ handle: h, point: [x + 5, y + 5] }),
});
// extend: a short line inside a cell grown to the cell's right wall.
const extMake = (x: number, y: number) => ({
  create: { type: 'Line', start: [x + 3, y + 5], end: [x + 6, y + 5] },
  op: 'extend', fields: (h: string) => ({ handle: h, point: [x + 6, y + 5] }),
});

const rows: [string, { median: number; p95: number }][] = [];
rows.push(['trim, implicit edges (spatial index)', await timed(e, g, trimMake)]);
rows.push(['extend, implicit edges (spatial index)', await timed(e, g, extMake)]);
// The same trim with the two walls it meets given as edges: the work of the op itself.
rows.push(['trim, edges given (2 walls)', await timed(e, g, (x, y) => ({
  ...trimMake(x, y), fields: (h: string) => ({ handle: h, point: [x + 5, y + 5], edges: wallsAt(x, y) }),
}))]);
rows.push(['one pass over every entity (what a scan would cost at least)', scanBaseline(e)]);

/** Handles of the horizontal walls at y and y + 10 under x + 5 (found once, outside the clock). */
function wallsAt(x: number, y: number): string[] {
  const s = e.active!;
  return s.index.search(x + 5, y, x + 5, y + 10).map((it) => it.handle).filter((h) => {
    const ent = s.doc.get(h) as { attrs: { start: number[]; end: number[] } } | undefined;
    return !!ent && ent.attrs.start[1] === ent.attrs.end[1];
  });
}

console.log('| operation | entities | median ms | p95 ms | goal |');
console.log('|---|---:|---:|---:|---|');
for (const [name, s] of rows) console.log(`| ${name} | ${count} | ${s.median.toFixed(2)} | ${s.p95.toFixed(2)} | ${name.includes('implicit') ? (s.median < 20 ? 'under 20 ms: met' : 'under 20 ms: NOT met') : ''} |`);
