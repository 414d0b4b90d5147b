// `linework plot FILE OUT.pdf|svg|png [options]`, or `linework plot FILE... --out ONE.pdf`: reads
// drawings and plots them. A progress bar goes to stderr when it is a terminal and there are
// several pages.
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve as resolvePath } from 'node:path';
import { dxf } from '../dxf.js';
import { OpError } from '../protocol.js';
import type { PlacedPage, PlotFormat, PlotOptions, PlotWarning } from './plot.js';
import { parseMargins, parsePlotScale, plot, plotPages, writeAtomic } from './plot.js';
import { monochromeStyle, readCtb } from './plot-style.js';
import { pagesToPdf } from '../render/pdf.js';
import { Workspace } from '../workspace.js';

// `linework convert` (the dxf package's) draws, when saving as R12, with the renderer
export { drawForR12 } from '../render/r12-drawer.js';

export interface CliIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown; isTTY?: boolean; columns?: number };
}

export const PLOT_USAGE = `usage: linework plot FILE OUT.pdf|OUT.svg|OUT.png [options]
  --layout NAME     plot this layout (default: model space)
  --all             plot every layout (PDF: one page each; SVG/PNG: put {page} in OUT)
  --paper NAME      paper instead of the layout's page setup: A0-A5, ANSI A-E, Letter, Tabloid, WxH (mm); fits the drawing
  --dpi N           PNG resolution (pixels per inch of paper, default 96)
  --width PX        PNG width in pixels (--height PX likewise)
  --format F        pdf, svg or png (default: from OUT's extension)
  --fit             plot each layout's extents fitted to its paper instead of the page setup's
                    plot area and scale (for pages that come out empty or nearly so)
  --scale 1:N       plot at a scale: 1 mm of paper for N drawing units (also A:B, or fit),
                    centred on the paper; a drawing larger than the paper is cut, with a warning
  --margins MM      unprintable margins in mm: one value, or LEFT,BOTTOM,RIGHT,TOP (default: the
                    page setup's, 5 mm without one)
  --monochrome      every colour plots black (AutoCAD's monochrome.ctb)
  --ctb FILE        AutoCAD colour-dependent plot style table (.ctb): pen colour, grayscale,
                    screening and lineweight by colour
  --out ONE.pdf     every page of every FILE given into one PDF, in order (with --all: every
                    layout of each file)
OUT may contain {page}, replaced by each layout's name (one file per page). A page that comes out
empty or nearly so is named on stderr ("warning: page ... is empty").`;

/** Runs the plot subcommand; resolves to the process exit code. */
export async function plotCommand(args: string[], io: CliIo): Promise<number> {
  const pos: string[] = [];
  const o: Partial<PlotOptions> & { all?: boolean } = {};
  let out: string | undefined;
  let monochrome = false;
  let ctb: string | undefined;
  try {
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      const val = (): string => {
        const v = args[++i];
        if (v === undefined) throw new OpError('invalid_request', `${a} needs a value`);
        return v;
      };
      const int = (): number => {
        const v = Number(val());
        if (!Number.isFinite(v) || v <= 0) throw new OpError('invalid_request', `${a} needs a positive number`);
        return v;
      };
      if (a === '-h' || a === '--help') {
        io.stdout.write(PLOT_USAGE + '\n');
        return 0;
      } else if (a === '--layout') o.layout = val();
      else if (a === '--all') o.all = true;
      else if (a === '--fit') o.fit = true;
      else if (a === '--paper') o.paper = val();
      else if (a === '--dpi') o.dpi = int();
      else if (a === '--width') o.width = Math.round(int());
      else if (a === '--height') o.height = Math.round(int());
      else if (a === '--format') o.format = val() as PlotFormat;
      else if (a === '--scale') {
        const v = parsePlotScale(val());
        if (v === 'fit') o.fit = true;
        else o.scale = v;
      } else if (a === '--margins') o.margins = parseMargins(val());
      else if (a === '--monochrome') monochrome = true;
      else if (a === '--ctb') ctb = val();
      else if (a === '--out') out = val();
      else if (a.startsWith('--')) throw new OpError('invalid_request', `unknown option ${a}`);
      else pos.push(a);
    }
    if (monochrome && ctb !== undefined) throw new OpError('invalid_request', '--monochrome and --ctb both choose the pens; give one');
    if (ctb !== undefined) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(resolvePath(ctb));
      } catch (err) {
        throw new OpError('invalid_request', `cannot read the plot style table ${ctb}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      o.plotStyle = readCtb(bytes, basename(ctb));
    } else if (monochrome) o.plotStyle = monochromeStyle();
    if (out !== undefined) {
      if (pos.length < 1) throw new OpError('invalid_request', '--out needs the drawings to plot (FILE... --out ONE.pdf)');
      return await plotIntoOne(pos, out, o, io);
    }
    if (pos.length !== 2) {
      io.stderr.write(PLOT_USAGE + '\n');
      return 2;
    }
    const [input, output] = pos as [string, string];
    const doc = await dxf.readDxf(resolvePath(input));
    const tty = Boolean(io.stderr.isTTY);
    let shown = false;
    const result = await plot(doc, {
      path: output,
      format: o.format,
      layout: o.layout,
      pages: o.all ? 'all' : undefined,
      paper: o.paper,
      dpi: o.dpi,
      width: o.width,
      height: o.height,
      fit: o.fit,
      scale: o.scale,
      margins: o.margins,
      plotStyle: o.plotStyle,
      baseDir: dirname(resolvePath(input)),
      // the user's own command: any folder they can write, created when missing
      resolveOutput: (file) => Workspace.unrestricted().forWrite(file, 'plot file', { createFolders: true }),
      onPage: (done, total, name) => {
        if (!tty || total < 2) return;
        const cols = Math.max(10, Math.min(40, (io.stderr.columns ?? 80) - 30));
        const fill = Math.round((done / total) * cols);
        io.stderr.write(`\r[${'#'.repeat(fill)}${'.'.repeat(cols - fill)}] ${done}/${total} ${name.slice(0, 20).padEnd(20)}`);
        shown = true;
      },
    });
    if (shown) io.stderr.write('\n');
    for (const p of result.pages) {
      io.stdout.write(`${p.file}: ${p.layout} on ${p.paper} (${p.width} x ${p.height} mm)${p.pixels ? `, ${p.pixels.width} x ${p.pixels.height} px` : ''}\n`);
    }
    printWarnings(io, result.warnings, result.skipped);
    return 0;
  } catch (err) {
    const e = err as Error & { code?: string };
    io.stderr.write(`linework plot: ${e.message}\n`);
    return e instanceof OpError && e.code === 'invalid_request' ? 2 : 1;
  }
}

function printWarnings(io: CliIo, warnings: readonly PlotWarning[], skipped: Record<string, number>, prefix = ''): void {
  for (const w of warnings) io.stderr.write(`warning: ${prefix}${w.message}\n`);
  const list = Object.entries(skipped);
  if (list.length) io.stderr.write(`${prefix}not drawn: ${list.map(([k, v]) => `${k} x${v}`).join(', ')}\n`);
}

/**
 * Several drawings (and with --all their layouts) into one PDF, in the order given: each drawing is
 * read, rendered and released before the next, so only the placed pages stay in memory.
 */
async function plotIntoOne(inputs: string[], out: string, o: Partial<PlotOptions> & { all?: boolean }, io: CliIo): Promise<number> {
  const format = o.format ?? (out.toLowerCase().endsWith('.pdf') ? 'pdf' : undefined);
  if (format !== 'pdf') throw new OpError('invalid_request', `--out puts every page into one PDF: name it .pdf (got ${out})`);
  const target = await Workspace.unrestricted().forWrite(out, 'plot file', { createFolders: true });
  const tty = Boolean(io.stderr.isTTY);
  const pages: PlacedPage[] = [];
  const lines: string[] = [];
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i]!;
    const doc = await dxf.readDxf(resolvePath(input));
    const got = plotPages(doc, { ...o, format: 'pdf', pages: o.all ? 'all' : undefined, baseDir: dirname(resolvePath(input)) });
    for (const p of got.pages) {
      pages.push(p);
      lines.push(`${target} page ${pages.length}: ${basename(input)} ${p.page.name} on ${p.paper} (${round2(p.page.width)} x ${round2(p.page.height)} mm)\n`);
    }
    printWarnings(io, got.warnings, got.skipped, `${basename(input)}: `);
    if (tty && inputs.length > 1) io.stderr.write(`\r${i + 1}/${inputs.length} ${basename(input).slice(0, 30).padEnd(30)}`);
  }
  if (tty && inputs.length > 1) io.stderr.write('\n');
  writeAtomic(target, await pagesToPdf(pages.map((p) => p.page), { title: inputs.map((f) => basename(f)).join(', ') }));
  for (const l of lines) io.stdout.write(l);
  return 0;
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}
