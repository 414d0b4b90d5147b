// The graphical editor against the field's WebGL reference, dxf-viewer (npm), in the same run and
// the same browser (Debian chromium, headless, WebGL2 through SwiftShader): time from asking the
// open editor (viewer) to open a file to its first frame, frame time while panning and zooming (each frame drawn and waited for with
// a one-pixel readPixels), tab memory (PSS of the browser's processes, and the page's JS heap), and for
// Linework the time from a client's POST /entities to the changed pixels on the 1M drawing.
//
//   npx tsx bench/editor/run.ts [--quick] [--sizes 100k,1M] [--linework-only] [--runs N]
//   (--quick: a 20k drawing instead of 100k and 1M, one open each; --sizes: the generated drawings
//   to run, e.g. 100k, and no corpus drawing; --linework-only: leaves dxf-viewer out; --runs: this
//   many opens each)
// Files: dxfparser__api-cw750-details.dxf from LINEWORK_DXF_CORPUS (when set), and generated
// drawings of 100k and 1M mixed entities (bench/dxf/worker.mjs generate).
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { launch, startEditor, type EditorServer } from '../../packages/editor/test/helpers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const quick = process.argv.includes('--quick');
const lineworkOnly = process.argv.includes('--linework-only');
/** `--sizes 100k,1M`: the generated drawings' entity counts. */
function sizesArg(): number[] | null {
  const i = process.argv.indexOf('--sizes');
  if (i < 0) return null;
  const list = (process.argv[i + 1] ?? '').split(',').filter(Boolean).map((t) => {
    const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(t.trim());
    if (!m) throw new Error(`--sizes: ${t} is not a count like 20k, 100k or 1M`);
    return Math.round(Number(m[1]) * (m[2] ? (m[2].toLowerCase() === 'k' ? 1e3 : 1e6) : 1));
  });
  if (!list.length) throw new Error('--sizes needs a list, e.g. --sizes 100k');
  return list;
}
const sizesAsked = sizesArg();
const sizes = sizesAsked ?? (quick ? [20_000] : [100_000, 1_000_000]);
const runsAt = process.argv.indexOf('--runs');
const runsAsked = runsAt >= 0 ? Number(process.argv[runsAt + 1]) || undefined : undefined;
const tmp = mkdtempSync(join(tmpdir(), 'lw-bench-editor-'));
const VIEW = { width: 1280, height: 800 };

interface Row {
  file: string;
  tool: string;
  openMs: number;
  panMs: number;
  panP95: number;
  zoomMs: number;
  pssMb: number;
  heapMb: number;
  updateMs?: number;
  updateBytes?: number;
  /** Linework: time until every part of the display list is in and drawn. */
  completeMs?: number;
  /** Linework: time until the client's open was answered (the rest of "open" is the display). */
  answeredMs?: number;
  /** Linework: a frame that changes the hovered entity (highlight set, drawn, waited for). */
  hoverMs?: number;
  /** Linework: a frame of a grip drag's preview (computed and drawn on the overlay). */
  gripMs?: number;
  error?: string;
}

function median(a: number[]): number {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)] ?? NaN;
}
function p95(a: number[]): number {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.95))] ?? NaN;
}

/** Proportional set size of every chromium process below this one (the browser, GPU and tab). */
function browserPssMb(): number {
  const parent = new Map<number, number>();
  const names = new Map<number, string>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      parent.set(Number(d), Number(stat.slice(close + 2).split(' ')[1]));
      names.set(Number(d), stat.slice(stat.indexOf('(') + 1, close));
    } catch {
      // gone
    }
  }
  const below = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  let kb = 0;
  for (const [pid, name] of names) {
    if (!/chrom/i.test(name) || !below(pid)) continue;
    try {
      const m = /Pss:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      if (m) kb += Number(m[1]);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}

async function heapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await cdp.send('HeapProfiler.collectGarbage').catch(() => undefined);
  const { metrics } = await cdp.send('Performance.getMetrics');
  return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 1048576;
}

/**
 * Frames while panning (and then zooming) by a fixed step, each waited for on the GPU: 40 and 30,
 * or what fits in 15 s each (at least 5) when frames take seconds.
 */
async function frames(page: Page, step: string): Promise<{ pan: number[]; zoom: number[] }> {
  return page.evaluate(`(async () => {
    const step = ${step};
    const pan = [], zoom = [];
    for (let i = 0; i < 3; i++) step(3, 2, 1);   // warm-up
    let t0 = performance.now();
    for (let i = 0; i < 40 && (i < 5 || performance.now() - t0 < 15000); i++) pan.push(step(i % 20 < 10 ? 9 : -9, i % 20 < 10 ? 5 : -5, 1));
    t0 = performance.now();
    for (let i = 0; i < 30 && (i < 5 || performance.now() - t0 < 15000); i++) zoom.push(step(0, 0, i % 10 < 5 ? 1.15 : 1 / 1.15));
    return { pan, zoom };
  })()`);
}

/** Lets the page and the browser's GPU process finish their start-up work before timing. */
async function settleBrowser(page: Page): Promise<void> {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await new Promise((r) => setTimeout(r, 1500));
}

/**
 * Hover and grip frames at the view's centre: the two entities nearest it are hovered in turn
 * (the highlight set and the frame drawn and waited for, as a pick's answer does), then the first is
 * selected by a click, one of its grips pressed and dragged with the mouse, and preview frames
 * (the stretched entity computed and the overlay drawn, waited for with a one-pixel read) timed at
 * moving points.
 */
async function hoverAndGrip(page: Page): Promise<{ hoverMs: number; gripMs: number }> {
  const found = await page.evaluate(async () => {
    const lw = (globalThis as any).linework;
    const app = lw.app, v = app.view;
    const picks: string[] = [];
    for (const [dx, dy] of [[0, 0], [60, 0], [0, 60], [-60, 0], [0, -60], [60, 60]] as [number, number][]) {
      const p = [v.cx + dx / v.scale, v.cy + dy / v.scale];
      const r = await app.api.op('pick', { document_id: app.docId, point: p, aperture: 400 / v.scale });
      const h = r.result?.handles?.[0];
      if (h && !picks.includes(h)) picks.push(h);
      if (picks.length === 2) break;
    }
    return picks;
  });
  if (found.length < 2) throw new Error('no entities near the view centre to hover');
  const hover = await page.evaluate((hs) => {
    const lw = (globalThis as any).linework;
    const out: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      lw.app.setHover([hs[i % 2]]);
      lw.frameSync();
      out.push(performance.now() - t0);
    }
    lw.app.setHover([]);
    return out;
  }, found);
  // select the first entity, then press one of its grips and drag it
  await page.evaluate((h) => (globalThis as any).linework.app.api.op('select', { document_id: (globalThis as any).linework.app.docId, handles: [h] }), found[0]);
  await page.waitForFunction(() => (globalThis as any).linework.grips.length > 0, null, { timeout: 60_000 });
  const grip = await page.evaluate(() => {
    const lw = (globalThis as any).linework;
    const g = lw.grips[0];
    const [sx, sy] = lw.toScreen(g.at[0], g.at[1]) as [number, number];
    const r = document.getElementById('gl')!.getBoundingClientRect();
    return [r.left + sx, r.top + sy];
  });
  await page.mouse.move(grip[0]!, grip[1]!);
  await page.mouse.down();
  // the button held: releasing it would drop the grip (and end the drag)
  await page.mouse.move(grip[0]! + 12, grip[1]! + 7, { steps: 3 });
  await page.waitForFunction(() => (globalThis as any).linework.app.preview !== null, null, { timeout: 30_000 });
  const preview = await page.evaluate(() => {
    const app = (globalThis as any).linework.app, v = app.view;
    const out: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      const to = v.toWorld(v.width / 2 + 20 * Math.cos(i / 3), v.height / 2 + 20 * Math.sin(i / 3));
      app.overlay.bands = app.preview(to);
      app.drawOverlay();
      // a one-pixel read makes the canvas draw now (as readPixels does for the GL frames)
      app.overlayCanvas.getContext('2d').getImageData(0, 0, 1, 1);
      out.push(performance.now() - t0);
    }
    return out;
  });
  await page.keyboard.press('Escape');
  await page.mouse.up();
  return { hoverMs: median(hover), gripMs: median(preview) };
}

async function lineworkRun(file: string, label: string, browser: Browser, measureUpdate: boolean): Promise<Row> {
  const s: EditorServer = await startEditor(['--gui', '--root', dirname(file)], { LINEWORK_ROOT: '', LINEWORK_LOG_LEVEL: 'error' });
  const page = await browser.newPage({ viewport: VIEW });
  try {
    // the editor is open (on an untitled drawing); then a client opens the file
    await page.goto(s.editorUrl);
    await page.waitForFunction(() => (globalThis as any).linework?.drawn !== null && (globalThis as any).linework?.drawn !== undefined, null, { timeout: 60_000 });
    await settleBrowser(page);
    const t0 = performance.now();
    // fetch, not the test client: its 10 s reply timeout is shorter than a loaded machine's open
    const opened = await fetch(`http://127.0.0.1:${s.port}/api/v1/documents`, { method: 'POST', headers: { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ path: file }) });
    const body = (await opened.json()) as { document_id?: number };
    if (opened.status !== 201) throw new Error(`open: ${JSON.stringify(body)}`);
    const answeredMs = performance.now() - t0;
    const id = body.document_id as number;
    await page.waitForFunction((want) => (globalThis as any).linework.drawn === want, id, { timeout: 600_000, polling: 10 });
    await page.evaluate(() => (globalThis as any).linework.frameSync());
    const openMs = performance.now() - t0;
    // a large drawing comes in parts, the view's first: then the rest
    await page.waitForFunction(() => (globalThis as any).linework.complete === true, null, { timeout: 600_000, polling: 20 });
    await page.evaluate(() => (globalThis as any).linework.frameSync());
    const completeMs = performance.now() - t0;
    const f = await frames(page, `(dx, dy, z) => { const v = window.linework.app.view; v.panBy(dx, dy); if (z !== 1) v.zoomAt(v.width / 2, v.height / 2, z); return window.linework.frameSync(); }`);
    const row: Row = { file: label, tool: 'Linework', openMs, completeMs, answeredMs, panMs: median(f.pan), panP95: p95(f.pan), zoomMs: median(f.zoom), pssMb: browserPssMb(), heapMb: await heapMb(page) };
    Object.assign(row, await hoverAndGrip(page).catch((err: unknown) => {
      process.stderr.write(`${label}: hover and grip not measured: ${String((err as Error)?.message ?? err).slice(0, 200)}\n`);
      return {};
    }));
    if (measureUpdate) {
      // a client adds one line at the middle of the view; time until a frame shows it
      let bytes = 0;
      page.on('response', (r) => {
        if (r.url().includes('/gui/display-list') && r.url().includes('handles=')) void r.body().then((b) => (bytes += b.length), () => undefined);
      });
      const times: number[] = [];
      for (let i = 0; i < 7; i++) {
        const c = await page.evaluate(() => { const v = (globalThis as any).linework.app.view; return [v.cx, v.cy, 40 / v.scale]; });
        const [cx, cy, d] = c as [number, number, number];
        const f0 = await page.evaluate(() => (globalThis as any).linework.frames);
        const t = performance.now();
        const r = await s.api.post('/api/v1/entities', { entities: [{ type: 'Line', start: [cx - d, cy - d + i], end: [cx + d, cy + d + i] }] }, { timeout: 600_000 });
        const v = r.json.version as number;
        await page.waitForFunction(([want, f]) => (globalThis as any).linework.version >= want && (globalThis as any).linework.frames > f, [v, f0] as const, { polling: 'raf', timeout: 30_000 });
        times.push(performance.now() - t);
      }
      await new Promise((r) => setTimeout(r, 200));
      row.updateMs = median(times.slice(2));
      row.updateBytes = bytes / times.length;
    }
    return row;
  } finally {
    await page.close();
    await s.proc.stop();
  }
}

async function peerRun(file: string, label: string, browser: Browser, base: string): Promise<Row> {
  const page = await browser.newPage({ viewport: VIEW });
  try {
    // the viewer is open; then it loads the file (fetch, parse in its worker, build, first frame)
    await page.goto(`${base}/peer/index.html`);
    await page.waitForFunction(() => (globalThis as any).peer?.ready === true, null, { timeout: 60_000 });
    await settleBrowser(page);
    const t0 = performance.now();
    const err = await page.evaluate((url) => (globalThis as any).peer.load(url).then(() => null, (e: unknown) => String(e)), `${base}/files/${basename(file)}`);
    if (err) throw new Error(err);
    const openMs = performance.now() - t0;
    const f = await frames(page, '(dx, dy, z) => window.peer.frameSync(dx, dy, z)');
    return { file: label, tool: 'dxf-viewer', openMs, panMs: median(f.pan), panP95: p95(f.pan), zoomMs: median(f.zoom), pssMb: browserPssMb(), heapMb: await heapMb(page) };
  } finally {
    await page.close();
  }
}

function serveStatic(dirs: Record<string, string>): Promise<{ base: string; close: () => void }> {
  const MIME: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.ttf': 'font/ttf', '.dxf': 'application/octet-stream' };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const [, prefix, ...rest] = url.pathname.split('/');
    const d = dirs[prefix ?? ''];
    const f = d ? join(d, decodeURIComponent(rest.join('/'))) : '';
    if (!d || !f.startsWith(d) || !existsSync(f) || !statSync(f).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': MIME[extname(f)] ?? 'application/octet-stream', 'Content-Length': statSync(f).size });
    createReadStream(f).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const a = server.address() as { port: number };
    resolve({ base: `http://127.0.0.1:${a.port}`, close: () => {
      server.closeAllConnections();
      server.close();
    } });
  }));
}

function fmt(v: number | undefined, digits = 0): string {
  return v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits);
}

async function main(): Promise<void> {
  const peerDir = join(root, 'bench/out/editor-peer');
  const built = spawnSync(join(root, 'node_modules/.bin/vite'), ['build', '--config', join(root, 'bench/editor/peer/vite.config.ts')], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('building the dxf-viewer page failed');
  const files: { label: string; path: string }[] = [];
  const corpus = process.env.LINEWORK_DXF_CORPUS;
  if (!sizesAsked && corpus && existsSync(join(corpus, 'dxfparser__api-cw750-details.dxf'))) files.push({ label: 'api-cw750-details (corpus)', path: join(corpus, 'dxfparser__api-cw750-details.dxf') });
  for (const n of sizes) {
    const path = join(tmp, `generated-${n}.dxf`);
    const g = spawnSync(process.execPath, [join(root, 'bench/dxf/worker.mjs'), 'generate', String(n), path], { encoding: 'utf8' });
    if (g.status !== 0) throw new Error(`generate ${n}: ${g.stderr}`);
    files.push({ label: `generated ${n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`}`, path });
  }
  const rows: Row[] = [];
  for (const f of files) {
    const stat = serveStatic({ peer: peerDir, files: dirname(f.path) });
    const { base, close } = await stat;
    try {
      // the time to the first frame swings between fresh browsers: the median of three opens
      // (one for drawings over 50 MB), the frames and memory of the last
      const runs = runsAsked ?? (quick || statSync(f.path).size > 50e6 ? 1 : 3);
      for (const tool of lineworkOnly ? (['Linework'] as const) : (['Linework', 'dxf-viewer'] as const)) {
        const tries: Row[] = [];
        for (let k = 0; k < runs; k++) {
          // a fresh browser per run: memory and caches start equal
          const browser = await launch();
          try {
            tries.push(tool === 'Linework'
              ? await lineworkRun(f.path, f.label, browser, k === runs - 1 && (f.label.includes('1M') || (quick && f.label.includes('20k'))))
              : await peerRun(f.path, f.label, browser, base));
          } catch (err) {
            tries.push({ file: f.label, tool, openMs: NaN, panMs: NaN, panP95: NaN, zoomMs: NaN, pssMb: NaN, heapMb: NaN, error: String((err as Error)?.message ?? err).slice(0, 120) });
          } finally {
            await browser.close();
          }
        }
        const r = { ...tries[tries.length - 1]!, openMs: median(tries.map((t) => t.openMs)) };
        rows.push(r);
        const hovers = tool === 'Linework' ? `, hover ${tries.map((t) => fmt(t.hoverMs, 1)).join(' / ')} ms` : '';
        const answered = tool === 'Linework' ? ` (the client's open answered at ${tries.map((t) => fmt(t.answeredMs)).join(' / ')} ms)` : '';
        process.stderr.write(`${r.file} ${r.tool}: ${r.error ?? `open ${tries.map((t) => fmt(t.openMs)).join(' / ')} ms${answered}, pan ${fmt(r.panMs, 1)} ms${hovers}`}\n`);
      }
    } finally {
      close();
    }
  }
  console.log('| drawing | viewer | open to first frame (ms) | whole drawing in (ms) | pan frame median / p95 (ms) | zoom frame median (ms) | hover frame (ms) | grip drag preview frame (ms) | tab memory PSS (MB) | JS heap (MB) | POST /entities to pixels (ms) | bytes sent per update |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    if (r.error) {
      console.log(`| ${r.file} | ${r.tool} | failed: ${r.error} | | | | | | | | | |`);
      continue;
    }
    const lw = r.tool === 'Linework';
    console.log(`| ${r.file} | ${r.tool} | ${fmt(r.openMs)} | ${lw ? fmt(r.completeMs) : fmt(r.openMs)} | ${fmt(r.panMs, 1)} / ${fmt(r.panP95, 1)} | ${fmt(r.zoomMs, 1)} | ${lw ? fmt(r.hoverMs, 1) : '–'} | ${lw ? fmt(r.gripMs, 1) : '–'} | ${fmt(r.pssMb)} | ${fmt(r.heapMb)} | ${r.tool === 'Linework' ? fmt(r.updateMs, 0) : '–'} | ${r.tool === 'Linework' ? fmt(r.updateBytes, 0) : '–'} |`);
  }
  console.log(`\nChromium headless (SwiftShader WebGL2), viewport ${VIEW.width}x${VIEW.height}, a fresh browser (and server) per run, open: ${quick ? 'one run (--quick)' : 'median of 3 runs (1 for the 1M drawing)'}; frames drawn and waited for with readPixels (Chromium's finish() does not wait).`);
}

// Done once the tables are printed: a browser's idle keep-alive socket to the static server (or a
// child's pipe) must not hold the process, and with it `npm run bench`, open.
main().then(() => {
  rmSync(tmp, { recursive: true, force: true });
  process.exit(0);
}, (err: unknown) => {
  rmSync(tmp, { recursive: true, force: true });
  console.error(err);
  process.exit(1);
});
