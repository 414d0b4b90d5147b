// Render benchmark: plot the largest corpus drawing and a generated 100k-entity drawing to PDF,
// SVG and PNG with Linework, beside ezdxf's drawing add-on (`python3 -m ezdxf draw`) and
// LibreCAD's `dxf2pdf` (PDF only) on the same files in the same run. Two comparisons:
//  - renderer against renderer, in process: Linework's read + plot against ezdxf's read + draw +
//    save (bench/render/ezdxf_draw.py: the calls `ezdxf draw` makes, imports before the clock);
//  - command against command, one process per plot, start-up included: `linework plot` against
//    `python3 -m ezdxf draw` and `librecad dxf2pdf`.
// Prints a markdown table.
//
//   npx tsx bench/render/run.ts [--quick] [--no-peers] [--all-peer-formats]
//
// ezdxf needs about seven minutes per format for the 100k drawing, and its drawing time hardly
// depends on the output format (matplotlib renders, then saves), so on the generated drawing it
// runs for PDF only unless --all-peer-formats is given, and once: ezdxf_draw.py's process gives
// both figures there (its wall time is the command's, its own clock the renderer's).
//
// Needs the built packages for the CLI column (npx tsc -b). The corpus comes from
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
const allPeerFormats = process.argv.includes('--all-peer-formats');
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

function timeCmd(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd = out): Timing {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { env: { ...process.env, ...env }, cwd, timeout: PEER_TIMEOUT, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const seconds = (performance.now() - t0) / 1000;
  const ok = r.status === 0;
  const note = r.error ? String(r.error.message) : r.signal ? `killed (${r.signal}) after ${Math.round(seconds)} s` : ok ? '' : `exit ${r.status}`;
  return { seconds, ok, note };
}

interface Timing {
  seconds: number;
  ok: boolean;
  note: string;
}

const FORMATS = ['pdf', 'svg', 'png'] as const;
type Format = (typeof FORMATS)[number];
const PNG_WIDTH = 2000;
/** The whole drawing fitted on one sheet, as the peers draw it (not the drawing's own page setup). */
const PAPER = 'A3';

/** In process: read + plot, best of `runs`, per format. */
async function lineworkInProcess(file: string): Promise<{ entities: number; read: number } & Record<Format, number>> {
  const name = basename(file, '.dxf');
  const runs = quick ? 1 : 3;
  const best = { read: Infinity, pdf: Infinity, svg: Infinity, png: Infinity };
  let entities = 0;
  for (let r = 0; r < runs; r++) {
    for (const f of FORMATS) {
      // each measurement reads the file and plots it, as the peers do
      const t0 = performance.now();
      const doc = await dxf.readDxf(file);
      const t1 = performance.now();
      entities = doc.modelSpace().entities.length;
      await plot(doc, { path: join(out, `${name}.lw.${f}`), paper: PAPER, width: f === 'png' ? PNG_WIDTH : undefined, baseDir: process.env.LINEWORK_DXF_CORPUS });
      const t2 = performance.now();
      best.read = Math.min(best.read, (t1 - t0) / 1000);
      best[f] = Math.min(best[f], (t2 - t0) / 1000);
    }
  }
  return { entities, ...best };
}

/** As a process, like the peers: `linework plot FILE OUT` (node start-up included). */
function lineworkCli(file: string, f: Format): Timing {
  const bin = join(root, 'packages/server/bin/linework.js');
  if (!existsSync(join(root, 'packages/server/dist/cli.js'))) return { seconds: NaN, ok: false, note: 'not built (npx tsc -b)' };
  const args = [bin, 'plot', file, join(out, `${basename(file, '.dxf')}.cli.${f}`), '--paper', PAPER];
  if (f === 'png') args.push('--width', String(PNG_WIDTH));
  return timeCmd(process.execPath, args);
}

/** ezdxf's renderer in process (best of `runs`), and the wall time of the whole process. */
function ezdxfInProcess(file: string, outFile: string, runs: number): { inProcess: Timing; process: Timing } {
  const script = join(root, 'bench/render/ezdxf_draw.py');
  const t0 = performance.now();
  const r = spawnSync(PY, [script, file, outFile, String(runs)], { env: { ...process.env, MPLBACKEND: 'Agg' }, cwd: out, timeout: PEER_TIMEOUT * runs, encoding: 'utf8' });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) {
    const note = r.error ? String(r.error.message) : r.signal ? `killed (${r.signal}) after ${Math.round(seconds)} s` : `exit ${r.status}`;
    const failed = { seconds: NaN, ok: false, note };
    return { inProcess: failed, process: failed };
  }
  const { best } = JSON.parse(r.stdout.trim().split('\n').pop()!) as { best: number };
  return { inProcess: { seconds: best, ok: true, note: '' }, process: { seconds, ok: runs === 1, note: runs === 1 ? '' : 'several runs' } };
}

function fmt(s: number): string {
  return s < 1 ? `${(s * 1000).toFixed(0)} ms` : `${s.toFixed(2)} s`;
}

function cell(t: Timing): string {
  return t.ok ? fmt(t.seconds) : t.note;
}

function ratio(peer: Timing, ours: Timing): string {
  return peer.ok && ours.ok ? `${(peer.seconds / ours.seconds).toFixed(1)}x` : '–';
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
  const n = quick ? 5_000 : 100_000;
  const gen = join(out, `generated-${n / 1000}k.dxf`);
  await generate(n, gen);
  files.push(gen);

  const rows: string[] = [];
  rows.push(
    '| drawing | format | Linework in process (read + plot) | ezdxf in process (read + draw + save) | ezdxf / Linework in process | Linework CLI process | ezdxf draw process | LibreCAD dxf2pdf process | ezdxf / Linework CLI | LibreCAD / Linework CLI |',
  );
  rows.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  const notRun = (note: string): Timing => ({ seconds: NaN, ok: false, note });
  for (const file of files) {
    const name = basename(file, '.dxf');
    const inProc = await lineworkInProcess(file);
    const label = `${basename(file)} (${(statSync(file).size / 1e6).toFixed(1)} MB, ${inProc.entities} model entities; read ${fmt(inProc.read)})`;
    const generated = file === gen;
    for (const f of FORMATS) {
      const cli = lineworkCli(file, f);
      const ours: Timing = { seconds: inProc[f], ok: true, note: '' };
      let ezIn = notRun('not run');
      let ez = notRun('not run');
      let lc = notRun(f === 'pdf' ? 'not run' : 'PDF only');
      if (peers && !existsSync(PY)) ezIn = ez = notRun('no python3');
      else if (peers && generated && f !== 'pdf' && !allPeerFormats) ezIn = ez = notRun('PDF row only');
      else if (peers && generated) {
        // One ezdxf_draw.py process: its wall time is the command's (same imports, same calls).
        ({ inProcess: ezIn, process: ez } = ezdxfInProcess(file, join(out, `${name}.ezdxf.${f}`), 1));
        if (ez.ok) ez = { ...ez, note: '' };
      } else if (peers) {
        ezIn = ezdxfInProcess(file, join(out, `${name}.ezdxf-inproc.${f}`), quick ? 1 : 3).inProcess;
        ez = timeCmd(PY, ['-m', 'ezdxf', 'draw', '-o', join(out, `${name}.ezdxf.${f}`), file], { MPLBACKEND: 'Agg' });
      }
      if (peers && f === 'pdf') lc = timeCmd('librecad', ['dxf2pdf', '-a', '-o', join(out, `${name}.librecad.pdf`), file], { QT_QPA_PLATFORM: 'offscreen' });
      const fmtName = `${f.toUpperCase()}${f === 'png' ? ` (${PNG_WIDTH} px wide)` : ''}`;
      const ezCell = generated && ez.ok ? `${cell(ez)} †` : cell(ez);
      rows.push(
        `| ${label} | ${fmtName} | ${fmt(inProc[f])} | ${cell(ezIn)} | ${ratio(ezIn, ours)} | ${cell(cli)} | ${ezCell} | ${cell(lc)} | ${ratio(ez, cli)} | ${f === 'pdf' ? ratio(lc, cli) : '–'} |`,
      );
      console.error(rows[rows.length - 1]);
    }
  }
  const runs = quick ? 1 : 3;
  console.log('Wall clock on this machine (2 cores; close other jobs for steady figures). In process: best of');
  console.log(`${runs} runs of read + plot (Linework) and of read + draw + save (ezdxf, bench/render/ezdxf_draw.py: the calls of`);
  console.log('`ezdxf draw`, imports done before the clock); one run each on the generated drawing. Processes: Linework CLI,');
  console.log('ezdxf (`python3 -m ezdxf draw -o OUT`, matplotlib, its default 300 dpi for PNG) and LibreCAD (`librecad dxf2pdf -a`),');
  console.log('single runs, start-up included (†: the ezdxf_draw.py process, whose wall time includes the same imports). Model');
  console.log(`space fitted to the page by every tool (Linework: --paper ${PAPER}).\n`);
  console.log(rows.join('\n'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
