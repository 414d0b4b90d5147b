// `linework plot FILE OUT.pdf|svg|png [--layout NAME | --all] [--paper A4|...] [--dpi N]`
// [--width PX] [--height PX] [--format pdf|svg|png]: reads a drawing and plots it. A progress bar
// goes to stderr when it is a terminal and there are several pages.
import { dirname, resolve as resolvePath } from 'node:path';
import { dxf } from '../dxf.js';
import { OpError } from '../protocol.js';
import type { PlotFormat, PlotOptions } from './plot.js';
import { plot } from './plot.js';
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
OUT may contain {page}, replaced by each layout's name (one file per page). A page that comes out
empty or nearly so is named on stderr ("warning: page ... is empty").`;

/** Runs the plot subcommand; resolves to the process exit code. */
export async function plotCommand(args: string[], io: CliIo): Promise<number> {
  const pos: string[] = [];
  const o: Partial<PlotOptions> & { all?: boolean } = {};
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
      else if (a.startsWith('--')) throw new OpError('invalid_request', `unknown option ${a}`);
      else pos.push(a);
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
    for (const w of result.warnings) io.stderr.write(`warning: ${w.message}\n`);
    const skipped = Object.entries(result.skipped);
    if (skipped.length) io.stderr.write(`not drawn: ${skipped.map(([k, v]) => `${k} x${v}`).join(', ')}\n`);
    return 0;
  } catch (err) {
    const e = err as Error & { code?: string };
    io.stderr.write(`linework plot: ${e.message}\n`);
    return e instanceof OpError && e.code === 'invalid_request' ? 2 : 1;
  }
}
