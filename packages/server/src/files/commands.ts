// The single-file commands the batch runner drives: each is the package's own function, run
// unchanged with its own options; the runner only decides which files go in and where outputs go.
import { basename, extname, join } from 'node:path';

/** What a single-file command writes to. Progress bars are drawn only when stderr says it is a TTY. */
export interface CommandIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown; isTTY?: boolean; columns?: number };
}

export type FileCommandName = 'info' | 'convert' | 'plot' | 'audit' | 'run';
export type SingleFileCommand = (args: string[], io: CommandIo) => Promise<number>;

export interface FileCommandSpec {
  name: FileCommandName;
  /** Options of the single-file command that take a value (the runner must not read it as an input). */
  valueOptions: readonly string[];
  /** `IN OUT` (convert, plot) or only inputs (info, audit). */
  takesOutput: boolean;
  /** The command has a `--json` form of its own (the runner uses it for machine-readable output). */
  ownJson: boolean;
  /** What the first name on the command line is, when it is not an input (run's SCRIPT). */
  leadingArg?: string;
  load(): Promise<SingleFileCommand>;
  usage(): Promise<string>;
}

export const FILE_COMMANDS: Record<FileCommandName, FileCommandSpec> = {
  info: {
    name: 'info',
    valueOptions: [],
    takesOutput: false,
    ownJson: true,
    // the package's command entry: reader and geometry, without the writer, converters, DWG
    load: async () => (await import('@linework/dxf/cli')).infoCommand as SingleFileCommand,
    usage: async () => (await import('@linework/dxf/cli')).INFO_USAGE.trimEnd(),
  },
  convert: {
    name: 'convert',
    valueOptions: ['--version'],
    takesOutput: true,
    ownJson: false,
    // What R12 has no type for is drawn by the engine's renderer (its plot-only entry), loaded
    // only for a conversion to R12: other conversions keep the lean `@linework/dxf/cli` start.
    load: async () => {
      const { convertCommand } = await import('@linework/dxf/cli');
      const run: typeof convertCommand = async (args, io) => {
        const version = optionValue(args, '--version')?.toUpperCase().replace(/^R/, '');
        if (version !== '12' && version !== 'AC1009') return convertCommand(args, io);
        const { drawForR12 } = await import('@linework/engine/plot-cli');
        return convertCommand(args, io, { r12Drawer: drawForR12 });
      };
      return run as SingleFileCommand;
    },
    usage: async () => (await import('@linework/dxf/cli')).CONVERT_USAGE.trimEnd(),
  },
  plot: {
    name: 'plot',
    valueOptions: ['--layout', '--paper', '--dpi', '--width', '--height', '--format', '--scale', '--margins', '--ctb'],
    takesOutput: true,
    ownJson: false,
    // The engine's plot-only entry: without the op catalogue and its schemas.
    load: async () => (await import('@linework/engine/plot-cli')).plotCommand as SingleFileCommand,
    usage: async () => (await import('@linework/engine/plot-cli')).PLOT_USAGE.trimEnd(),
  },
  audit: {
    name: 'audit',
    valueOptions: [],
    takesOutput: false,
    ownJson: true,
    load: async () => (await import('./audit.js')).auditCommand,
    usage: async () => (await import('./audit.js')).AUDIT_USAGE,
  },
  run: {
    name: 'run',
    valueOptions: [],
    takesOutput: false,
    ownJson: true,
    leadingArg: 'SCRIPT',
    load: async () => (await import('./script.js')).runScriptCommand,
    usage: async () => (await import('./script.js')).RUN_USAGE,
  },
};

export function isFileCommand(name: string | undefined): name is FileCommandName {
  return name !== undefined && Object.prototype.hasOwnProperty.call(FILE_COMMANDS, name);
}

/** The output formats `plot` can write, by extension. */
export const PLOT_FORMATS = ['pdf', 'svg', 'png'] as const;

/** The option's value among a file's own options (`--format svg` or `--format=svg`). */
export function optionValue(options: readonly string[], name: string): string | undefined {
  for (let i = 0; i < options.length; i++) {
    const a = options[i]!;
    if (a === name) return options[i + 1];
    if (a.startsWith(name + '=')) return a.slice(name.length + 1);
  }
  return undefined;
}

/**
 * Why the command cannot write `out`, or null when it can. convert writes DXF only (a `.dwg` name
 * used to get DXF bytes silently), plot PDF, SVG or PNG, audit --fix DXF.
 */
export function refuseOutput(command: FileCommandName, out: string, options: readonly string[]): string | null {
  const ext = extname(out).slice(1).toLowerCase();
  if (command === 'convert' || command === 'audit') {
    if (ext === 'dxf') return null;
    return `cannot write ${out}: ${command === 'convert' ? 'convert' : 'audit --fix'} writes DXF only; name the output .dxf${ext === 'dwg' ? ' (DWG is read, not written: see docs/files.md)' : ''}`;
  }
  if (command === 'plot') {
    const format = optionValue(options, '--format')?.toLowerCase();
    if (format !== undefined) {
      if (!(PLOT_FORMATS as readonly string[]).includes(format)) return `--format must be pdf, svg or png, got ${format}`;
      if (ext !== format && (PLOT_FORMATS as readonly string[]).includes(ext)) return `cannot write ${out} as ${format.toUpperCase()}: the name says ${ext.toUpperCase()}`;
      return null;
    }
    if ((PLOT_FORMATS as readonly string[]).includes(ext)) return null;
    return `cannot write ${out}: plot writes PDF, SVG or PNG; name the output .pdf, .svg or .png (or give --format)`;
  }
  return null;
}

/** Where a file's output goes in `--out-dir DIR`. */
export function outputIn(command: FileCommandName, dir: string, input: string, options: readonly string[], json: boolean): string | undefined {
  const stem = basename(input, extname(input));
  switch (command) {
    case 'convert':
    case 'audit':
    case 'run':
      return join(dir, `${stem}.dxf`);
    case 'plot': {
      const format = optionValue(options, '--format')?.toLowerCase() ?? 'pdf';
      // Several pages to SVG or PNG are one file each.
      const perPage = format !== 'pdf' && options.includes('--all');
      return join(dir, `${stem}${perPage ? '-{page}' : ''}.${format}`);
    }
    case 'info':
      return join(dir, `${stem}.${json ? 'json' : 'txt'}`);
  }
}
