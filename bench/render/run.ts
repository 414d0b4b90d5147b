// Render benchmark: plot the largest corpus drawing and a generated 100k-entity drawing to PDF,
// SVG and PNG with Linework, beside ezdxf's drawing add-on (`python3 -m ezdxf draw`) and
// LibreCAD's `dxf2pdf` on the same files in the same run. Prints a markdown table.
//
//   npx tsx bench/render/run.ts [--quick] [--no-peers]
//
// Needs the built @linework/dxf (npx tsc -b packages/engine). The corpus comes from
// LINEWORK_DXF_CORPUS (skipped when unset). Outputs go to bench/out/render/.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { dxf } from '../../packages/engine/src/dxf.js';
import type { DocumentApi, Entity } from '../../packages/engine/src/dxf.js';
import { plot } from '../../packages/engine/src/plot/index.js';

const root = new URL('../..', import.meta.url).pathname;
const out = join(root, 'bench/out/render');
const quick = process.argv.includes('--quick');
const peers = !process.argv.includes('--no-peers');
const PY = process.env.LINEWORK_PYTHON ?? '/usr/bin/python3';
const PEER_TIMEOUT = quick ? 120_000 : 900_000;

function ent(type: string, attrs: Record<string, unknown>): Entity {
  return { kind: 'entity', type, handle: '', owner: '', attrs: { layer: '0', ...attrs } };
}

/** A drawing of `n` entities on 10 layers: lines, circles, arcs, polylines with bulges, texts. */
async function generate(n: number, file: string): Promise<void> {
  const doc: DocumentApi = await dxf.newDocument();
  for (let l = 0; l < 10; l++) doc.addTableEntry('LAYER', `L${l}`, { color: l + 1, linetype: 'Continuous' });
  let seed = 42;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const side = Math.ceil(Math.sqrt(n));
  for (let i = 0; i < n; i++) {
    const x = (i % side) * 10 + rnd() * 5;
    const y = Math.floor(i / side) * 10 + rnd() * 5;
    const layer = `L${i % 10}`;
    switch (i % 5) {
      case 0:
        doc.addEntity(ent('LINE', { layer, start: [x, y, 0], end: [x + rnd() * 8, y + rnd() * 8, 0] }));
        break;
      case 1:
        doc.addEntity(ent('CIRCLE', { layer, center: [x, y, 0], radius: 0.5 + rnd() * 3 }));
        break;
      case 2:
        doc.addEntity(ent('ARC', { layer, center: [x, y, 0], radius: 1 + rnd() * 3, start_angle: rnd() * 180, end_angle: 180 + rnd() * 180 }));
        break;
      case 3:
        doc.addEntity(ent('LWPOLYLINE', { layer, flags: 1, points: [[x, y, 0, 0, 0], [x + 4, y, 0, 0, 0.5], [x + 4, y + 3, 0, 0, 0], [x, y + 3, 0, 0, 0]] }));
        break;
      default:
        doc.addEntity(ent('TEXT', { layer, insert: [x, y, 0], height: 1.5, text: `T${i}` }));
    }
  }
  await dxf.saveDxf(doc, file);
}

function largestCorpusFile(): string | null {
  const dir = process.env.LINEWORK_DXF_CORPUS;
  if (!dir || !existsSync(dir)) return null;
  let best: string | null = null;
  let size = 0;
  for (const f of readdirSync(dir)) {
    if (!f.toLowerCase().endsWith('.dxf')) continue;
    const s = statSync(join(dir, f)).size;
    if (s > size) {
      size = s;
      best = join(dir, f);
    }
  }
  return best;
}

function timeCmd(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd = out): { seconds: number; ok: boolean; note: string } {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { env: { ...process.env, ...env }, cwd, timeout: PEER_TIMEOUT, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const seconds = (performance.now() - t0) / 1000;
  const ok = r.status === 0;
  const note = r.error ? String(r.error.message) : r.signal ? `killed (${r.signal}) after ${Math.round(seconds)} s` : ok ? '' : `exit ${r.status}`;
  return { seconds, ok, note };
}

async function lineworkTimes(file: string): Promise<{ entities: number; read: number; pdf: number; svg: number; png: number }> {
  const name = basename(file, '.dxf');
  const runs = quick ? 1 : 3;
  const best = { read: Infinity, pdf: Infinity, svg: Infinity, png: Infinity };
  let entities = 0;
  for (let r = 0; r < runs; r++) {
    for (const fmt of ['pdf', 'svg', 'png'] as const) {
      // each measurement reads the file and plots it, as the peers do
      const t0 = performance.now();
      const doc = await dxf.readDxf(file);
      const t1 = performance.now();
      entities = doc.modelSpace().entities.length;
      await plot(doc, { path: join(out, `${name}.lw.${fmt}`), width: fmt === 'png' ? 2000 : undefined, baseDir: process.env.LINEWORK_DXF_CORPUS });
      const t2 = performance.now();
      best.read = Math.min(best.read, (t1 - t0) / 1000);
      best[fmt] = Math.min(best[fmt], (t2 - t0) / 1000);
    }
  }
  return { entities, ...best };
}

function fmt(s: number): string {
  return s < 1 ? `${(s * 1000).toFixed(0)} ms` : `${s.toFixed(2)} s`;
}

async function main(): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const files: string[] = [];
  const corpusFile = largestCorpusFile();
  if (corpusFile) {
    const local = join(out, basename(corpusFile));
    copyFileSync(corpusFile, local);
    files.push(local);
  } else console.error('LINEWORK_DXF_CORPUS not set: corpus drawing skipped');
  const n = quick ? 20_000 : 100_000;
  const gen = join(out, `generated-${n / 1000}k.dxf`);
  await generate(n, gen);
  files.push(gen);

  const rows: string[] = [];
  rows.push('| drawing | size | entities (model) | Linework read | Linework PDF | Linework SVG | Linework PNG (2000 px) | ezdxf draw (PNG) | LibreCAD dxf2pdf | vs ezdxf | vs LibreCAD |');
  rows.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const file of files) {
    const lw = await lineworkTimes(file);
    let ez = { seconds: NaN, ok: false, note: 'not run' };
    let lc = { seconds: NaN, ok: false, note: 'not run' };
    if (peers) {
      ez = existsSync(PY) ? timeCmd(PY, ['-m', 'ezdxf', 'draw', '-o', join(out, `${basename(file, '.dxf')}.ezdxf.png`), file], { MPLBACKEND: 'Agg' }) : { seconds: NaN, ok: false, note: 'no python3' };
      lc = timeCmd('librecad', ['dxf2pdf', '-a', '-o', join(out, `${basename(file, '.dxf')}.librecad.pdf`), file], { QT_QPA_PLATFORM: 'offscreen' });
    }
    const slowest = Math.max(lw.pdf, lw.svg, lw.png);
    const ratio = (peer: { seconds: number; ok: boolean; note: string }, ours: number): string =>
      peer.ok ? `${(peer.seconds / ours).toFixed(1)}x` : '–';
    rows.push(
      `| ${basename(file)} | ${(statSync(file).size / 1e6).toFixed(1)} MB | ${lw.entities} | ${fmt(lw.read)} | ${fmt(lw.pdf)} | ${fmt(lw.svg)} | ${fmt(lw.png)} | ${ez.ok ? fmt(ez.seconds) : ez.note} | ${lc.ok ? fmt(lc.seconds) : lc.note} | ${ratio(ez, lw.png)} (PNG) | ${ratio(lc, lw.pdf)} (PDF); slowest format ${fmt(slowest)} |`,
    );
  }
  console.log('Linework times include reading the DXF (best of 3 runs, in-process); peers are timed as processes (wall clock).\n');
  console.log(rows.join('\n'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
