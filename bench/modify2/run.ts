// Construct/modify benchmark (2): `hatch` by point, in process through the engine's dispatcher
// (validation, transaction, spatial index, undo step included), on
//  - a room of the corpus's floor plan (skydxf__floorplan.dxf, when LINEWORK_DXF_CORPUS is set);
//  - a generated drawing of rooms (four walls, furniture inside: circles, arcs, closed and open
//    polylines, text) of 100k entities (10k with --quick), hatched in a room in its middle.
// Each figure is the median of 15 runs after 3 warm-up runs, each hatch undone before the next;
// wall time and the process's CPU time (the machine may be shared), and how many entities the
// search read (the spatial index keeps it local). Prints a markdown table.
//
//   npx tsx bench/modify2/run.ts [--quick]
import { performance } from 'node:perf_hooks';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine, Workspace, type Engine } from '../../packages/engine/src/index.js';
import { boundaryAt } from '../../packages/engine/src/construct-more/boundary.js';

const quick = process.argv.includes('--quick');
const RUNS = 15;
const WARM = 3;

interface Row { drawing: string; entities: number; examined: number; wall: number; cpu: number; paths: number }

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function call(e: Engine, op: string, fields: Record<string, unknown>) {
  const r = await e.dispatch({ protocol: 1, op, ...fields });
  if (!r.ok) throw new Error(`${op}: ${r.code}: ${r.error}`);
  return r.result as Record<string, unknown>;
}

async function measure(e: Engine, drawing: string, point: [number, number]): Promise<Row> {
  const store = e.active!;
  const walls: number[] = [];
  const cpus: number[] = [];
  let paths = 0;
  for (let i = 0; i < WARM + RUNS; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await call(e, 'hatch', { point, pattern: 'ANSI31' });
    const wall = performance.now() - t0;
    const c = process.cpuUsage(c0);
    const h = (r.created as string[])[0]!;
    paths = ((store.doc.get(h) as unknown as { attrs: { paths: unknown[] } }).attrs.paths).length;
    await call(e, 'undo', {});
    if (i >= WARM) {
      walls.push(wall);
      cpus.push((c.user + c.system) / 1000);
    }
  }
  return { drawing, entities: store.doc.modelSpace().entities.length, examined: boundaryAt(store, point).examined, wall: median(walls), cpu: median(cpus), paths };
}

/** Rooms of 10 x 8 in a grid, four walls each, furniture inside; about 25 entities a room. */
async function rooms(e: Engine, n: number): Promise<[number, number]> {
  await call(e, 'document_new', {});
  const perRoom = 25;
  const count = Math.ceil(n / perRoom);
  const side = Math.ceil(Math.sqrt(count));
  const entities: Record<string, unknown>[] = [];
  for (let k = 0; k < count; k++) {
    const x = (k % side) * 12, y = Math.floor(k / side) * 10;
    entities.push(
      { type: 'Line', start: [x, y], end: [x + 10, y] }, { type: 'Line', start: [x + 10, y], end: [x + 10, y + 8] },
      { type: 'Line', start: [x + 10, y + 8], end: [x, y + 8] }, { type: 'Line', start: [x, y + 8], end: [x, y] },
    );
    for (let j = 0; j < perRoom - 4; j++) {
      const fx = x + 1 + (j % 7) * 1.2, fy = y + 1 + Math.floor(j / 7) * 2;
      switch (j % 5) {
        case 0: entities.push({ type: 'Circle', center: [fx + 0.3, fy + 0.3], radius: 0.3 }); break;
        case 1: entities.push({ type: 'LWPolyline', points: [[fx, fy], [fx + 0.8, fy], [fx + 0.8, fy + 0.6, 0, 0, 0.4], [fx, fy + 0.6]], closed: true }); break;
        case 2: entities.push({ type: 'Arc', center: [fx + 0.4, fy], radius: 0.4, start_angle: 0, end_angle: 180 }); break;
        case 3: entities.push({ type: 'Text', value: 'T', position: [fx, fy], height: 0.3 }); break;
        default: entities.push({ type: 'Line', start: [fx, fy], end: [fx + 0.7, fy + 0.5] });
      }
    }
  }
  await call(e, 'entities_create', { entities });
  const mid = Math.floor(count / 2) + Math.floor(side / 2);
  // a point in the room's free band above the furniture
  return [(mid % side) * 12 + 5, Math.floor(mid / side) * 10 + 7.5];
}

const rows: Row[] = [];
const corpus = process.env.LINEWORK_DXF_CORPUS;
const e = createEngine({ appVersion: 'bench', workspace: new Workspace([corpus ?? process.cwd(), process.cwd()]) });
if (corpus && existsSync(join(corpus, 'skydxf__floorplan.dxf'))) {
  await call(e, 'document_open', { path: join(corpus, 'skydxf__floorplan.dxf') });
  // a room of the plan (about 60 x 59 drawing units)
  rows.push(await measure(e, 'skydxf__floorplan.dxf, a room', [-403, 263]));
}
for (const n of quick ? [10_000] : [10_000, 100_000]) {
  const p = await rooms(e, n);
  rows.push(await measure(e, `generated rooms, ${n / 1000}k`, p));
}
console.log('| drawing | entities | entities read | paths | hatch wall ms (median) | CPU ms (median) |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.drawing} | ${r.entities} | ${r.examined} | ${r.paths} | ${r.wall.toFixed(1)} | ${r.cpu.toFixed(1)} |`);
