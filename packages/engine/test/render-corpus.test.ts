// Every corpus drawing (LINEWORK_DXF_CORPUS) plots to PDF, SVG and PNG; a few are compared with
// LibreCAD's rendering of the same file (ink bounding box aspect and a coarse ink-coverage grid).
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { plot } from '../src/plot/index.js';
import { corpusDir, corpusFiles, decodePng, hasCommand, inkBox, inkGrid, pdfPageBoxes, readDoc } from './render-helpers.js';

const corpus = corpusDir();
const dir = mkdtempSync(join(tmpdir(), 'lw-corpus-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

if (!corpus) {
  console.warn('render-corpus: LINEWORK_DXF_CORPUS is not set (or missing): corpus plots skipped');
}

describe.skipIf(!corpus)('corpus plots', () => {
  it('plots every corpus drawing to PDF (all layouts), SVG and PNG', async () => {
    const failures: string[] = [];
    let n = 0;
    for (const file of corpusFiles(corpus!)) {
      const name = basename(file, '.dxf');
      try {
        const doc = await readDoc(file);
        const base = { baseDir: corpus! };
        const pdf = await plot(doc, { ...base, pages: 'all', path: join(dir, `${name}.pdf`) });
        const boxes = pdfPageBoxes(readFileSync(pdf.files[0]!));
        if (boxes.length !== doc.layouts().length) failures.push(`${name}: ${boxes.length} PDF pages for ${doc.layouts().length} layouts`);
        const svg = await plot(doc, { ...base, path: join(dir, `${name}.svg`) });
        if (!readFileSync(svg.files[0]!, 'utf8').includes('</svg>')) failures.push(`${name}: bad SVG`);
        const png = await plot(doc, { ...base, path: join(dir, `${name}.png`), width: 160 });
        const img = decodePng(readFileSync(png.files[0]!));
        if (img.width !== 160) failures.push(`${name}: PNG width ${img.width}`);
        n++;
      } catch (err) {
        failures.push(`${name}: ${(err as Error).stack?.split('\n').slice(0, 2).join(' ')}`);
      }
    }
    expect(failures).toEqual([]);
    expect(n).toBeGreaterThan(10);
  }, 300_000);

  const canCompare = hasCommand('librecad') && hasCommand('pdftoppm');
  it.skipIf(!canCompare)('draws like LibreCAD (ink extents and coarse coverage)', async () => {
    const names = ['librecad__gost_sand.dxf', 'inkscape__dxf_outlines.dxf', 'librecad__A0H.dxf', 'skydxf__openscad_export.dxf', 'ezdxf__hatches_1.dxf', 'inkscape__dxf12_outlines__shapes__svg.dxf'];
    let compared = 0;
    for (const n of names) {
      const src = join(corpus!, n);
      if (!existsSync(src)) continue;
      const local = join(dir, n);
      copyFileSync(src, local);
      const r = spawnSync('librecad', ['dxf2pdf', '-a', local], { env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' }, timeout: 60_000, cwd: dir });
      const lcPdf = local.replace(/\.dxf$/, '.pdf');
      if (r.status !== 0 || !existsSync(lcPdf)) continue;
      execFileSync('pdftoppm', ['-png', '-r', '50', '-scale-to', '400', '-singlefile', lcPdf, local.replace(/\.dxf$/, '-lc')]);
      const theirs = decodePng(readFileSync(local.replace(/\.dxf$/, '-lc.png')));
      const doc = await readDoc(src);
      const ours = decodePng(readFileSync((await plot(doc, { path: local.replace(/\.dxf$/, '-lw.png'), width: 400, baseDir: corpus! })).files[0]!));
      const a = inkBox(ours, 230);
      const b = inkBox(theirs, 230);
      expect(a, n).not.toBeNull();
      expect(b, n).not.toBeNull();
      const aspect = (x: NonNullable<typeof a>): number => (x.maxX - x.minX + 1) / (x.maxY - x.minY + 1);
      expect(Math.abs(Math.log(aspect(a!) / aspect(b!))), `${n}: ink aspect ${aspect(a!)} vs LibreCAD ${aspect(b!)}`).toBeLessThan(0.2);
      const ga = inkGrid(ours, a!, 4, 230).map((v) => v > 0.005);
      const gb = inkGrid(theirs, b!, 4, 230).map((v) => v > 0.005);
      const agree = ga.filter((v, i) => v === gb[i]).length;
      expect(agree, `${n}: coverage grid ${ga.map(Number).join('')} vs LibreCAD ${gb.map(Number).join('')}`).toBeGreaterThanOrEqual(12);
      compared++;
    }
    expect(compared).toBeGreaterThan(2);
  }, 180_000);
});
