// `linework info|convert|plot|audit`: one file, or many (names, folders, globs) with --out-dir,
// processed in parallel on worker threads. Each file runs the package's own single-file command
// with its own options, unchanged; this layer picks the inputs and outputs, schedules, shows
// progress on stderr (a terminal only), and sums up. Nothing but the commands' own output and
// --json records goes to stdout.
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { FILE_COMMANDS, outputIn, refuseOutput, type CommandIo, type FileCommandName, type FileCommandSpec } from './commands.js';
import { expandInputs } from './inputs.js';
import { StatusLine, formatSeconds } from './progress.js';
import type { Task, WorkerMessage } from './worker.js';

export interface RunnerIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown; isTTY?: boolean; columns?: number };
}

export interface FileRunOptions {
  inputs: string[];
  /** Single file: `IN OUT` (convert, plot), or `--fix OUT` (audit). */
  output?: string;
  outDir?: string;
  jobs: number;
  quiet: boolean;
  json: boolean;
  /** audit --fix */
  fix: boolean;
  /** The file command's own options, passed to every file unchanged. */
  pass: string[];
  /** Inputs came as several names, a folder or a pattern: a batch even when they are one file. */
  batch: boolean;
  /** plot --out ONE.pdf: every input's pages into one file, in the order given. */
  combined?: string;
  /** run's SCRIPT. */
  leading?: string;
}

export type Parsed = { kind: 'help' } | { kind: 'error'; message: string } | { kind: 'run'; options: FileRunOptions };

const BATCH_USAGE = `Several files (names, folders of .dxf files, or quoted patterns such as 'dwg/**/*.dxf'):
  --out-dir DIR   where each file's output goes (the same name, the output's extension)
  --jobs N        files processed at once on worker threads (default: the number of cores)
  --quiet         nothing but errors: no progress, no line per file, no warnings; a failed
                  file's messages and the total of a run with failures still print
  --json          one JSON object per file on stdout, then {"summary": ...}
One line per file and a total go to stderr; a bad file does not stop the others. Exit code 0
when every file succeeded, 1 when any failed, 2 for a bad command line. Progress is drawn on
stderr when it is a terminal and the work takes over a second.`;

/** The --help text of a file command: its own usage, then the batch options. */
export async function fileCommandHelp(name: FileCommandName): Promise<string> {
  const spec = FILE_COMMANDS[name];
  const batchLine: Record<FileCommandName, string> = {
    info: 'usage: linework info FILE... [--json] [--out-dir DIR]   (with --out-dir: DIR/<name>.txt or .json)',
    convert: 'usage: linework convert FILE... --out-dir DIR [options]   (or: convert FILE... DIR, DIR an existing folder)',
    plot: 'usage: linework plot FILE... --out-dir DIR [options]   (DIR/<name>.pdf, or the --format; --all to SVG/PNG: <name>-{page})\n       linework plot FILE... --out ONE.pdf [options]   (every page of every file into one PDF)',
    audit: 'usage: linework audit FILE... [--fix --out-dir DIR] [--json]',
    run: 'usage: linework run SCRIPT FILE... [--out-dir DIR] [--json]   (SAVE/PLOT in the script write DIR/<name>.dxf/.pdf)',
  };
  return `${await spec.usage()}\n${batchLine[name]}\n${BATCH_USAGE}`;
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Splits a file command's arguments into the runner's options, inputs and the command's own options. */
export function parseFileArgs(name: FileCommandName, argv: readonly string[]): Parsed {
  const spec = FILE_COMMANDS[name];
  const positionals: string[] = [];
  const pass: string[] = [];
  let outDir: string | undefined;
  let jobs = availableParallelism();
  let quiet = false;
  let json = false;
  let fix = false;
  let fixOut: string | undefined;
  let combined: string | undefined;
  const hasOutDir = argv.some((a) => a === '--out-dir' || a.startsWith('--out-dir='));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const inline = eq > 0 ? a.slice(eq + 1) : undefined;
    const value = (): string | undefined => inline ?? argv[++i];
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    switch (flag) {
      case '-h':
      case '--help':
        return { kind: 'help' };
      case '--out-dir': {
        const v = value();
        if (!v) return { kind: 'error', message: '--out-dir needs a folder' };
        outDir = v;
        continue;
      }
      case '-j':
      case '--jobs': {
        const v = value();
        if (!v || !/^[1-9]\d*$/.test(v)) return { kind: 'error', message: '--jobs needs a whole number of 1 or more' };
        jobs = Number(v);
        continue;
      }
      case '-q':
      case '--quiet':
        quiet = true;
        continue;
      case '--json':
        json = true;
        continue;
    }
    if (name === 'plot' && flag === '--out') {
      const v = value();
      if (!v) return { kind: 'error', message: '--out needs the PDF to write every page into' };
      combined = v;
      continue;
    }
    if (name === 'audit' && flag === '--fix') {
      fix = true;
      if (inline !== undefined) fixOut = inline;
      else if (!hasOutDir && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('-')) fixOut = argv[++i];
      continue;
    }
    if (spec.valueOptions.includes(flag)) {
      pass.push(a);
      if (inline === undefined) {
        const v = argv[++i];
        if (v === undefined) return { kind: 'error', message: `${a} needs a value` };
        pass.push(v);
      }
      continue;
    }
    if (a.startsWith('-') && a !== '-') {
      // An option of the single-file command (e.g. convert --recover): passed on as given.
      pass.push(a);
      continue;
    }
    positionals.push(a);
  }

  let leading: string | undefined;
  if (spec.leadingArg !== undefined) {
    leading = positionals.shift();
    if (leading === undefined) return { kind: 'error', message: `${name} needs ${spec.leadingArg} and the files to run it on` };
  }
  let inputs = positionals;
  let output: string | undefined;
  let batch = false;
  if (combined !== undefined) {
    if (outDir !== undefined) return { kind: 'error', message: '--out writes one PDF and --out-dir one file per drawing: choose one' };
    if (inputs.length === 0) return { kind: 'error', message: 'plot --out needs the drawings to plot' };
    return { kind: 'run', options: { inputs: expandInputs(inputs), jobs, quiet, json, fix, pass, batch: false, combined } };
  }
  if (spec.takesOutput && outDir === undefined) {
    const last = positionals.at(-1);
    if (positionals.length >= 2 && last !== undefined && isDir(last)) {
      outDir = last;
      inputs = positionals.slice(0, -1);
    } else if (positionals.length === 2) {
      inputs = [positionals[0]!];
      output = positionals[1]!;
    } else if (positionals.length > 2) {
      return { kind: 'error', message: `${positionals.length} files given: several inputs need --out-dir DIR (or an existing folder last)` };
    } else {
      return { kind: 'error', message: `${name} needs ${positionals.length ? 'an output (OUT, or --out-dir DIR)' : 'a file to read and an output'}` };
    }
  }
  if (name === 'audit') {
    if (fix && outDir === undefined && fixOut === undefined) return { kind: 'error', message: '--fix needs the file to write (--fix OUT.dxf) or --out-dir DIR' };
    if (fixOut !== undefined && outDir !== undefined) return { kind: 'error', message: '--fix OUT names one file; with --out-dir give --fix alone' };
    if (outDir !== undefined && !fix) return { kind: 'error', message: 'audit writes files only with --fix (--fix --out-dir DIR)' };
    output = fixOut;
  }
  if (inputs.length === 0) return { kind: 'error', message: `${name} needs a file` };
  const expanded = expandInputs(inputs);
  batch = outDir !== undefined || expanded.length > 1 || inputs.some((i) => i !== expanded[0]);
  if (output !== undefined && batch) {
    return { kind: 'error', message: `${expanded.length} files to one output (${output}): use --out-dir DIR` };
  }
  return { kind: 'run', options: { inputs: expanded, output, outDir, jobs, quiet, json, fix, pass, batch, leading } };
}

/** The arguments of one file's command. */
function argsFor(name: FileCommandName, input: string, output: string | undefined, o: FileRunOptions): string[] {
  switch (name) {
    case 'convert':
    case 'plot':
      return [input, output!, ...o.pass];
    case 'audit':
      return [input, ...(output !== undefined ? ['--fix', output] : []), ...(o.json ? ['--json'] : []), ...o.pass];
    case 'info':
      return [input, ...(o.json ? ['--json'] : []), ...o.pass];
    case 'run':
      return [o.leading!, input, ...(output !== undefined ? ['--out', output] : []), ...(o.json ? ['--json'] : []), ...o.pass];
  }
}

interface FileResult {
  input: string;
  output?: string;
  code: number;
  stdout: string;
  stderr: string;
  seconds: number;
}

function statusOf(name: FileCommandName, r: FileResult): 'ok' | 'errors' | 'failed' {
  if (r.code === 0) return 'ok';
  // audit: exit 1 with a report means the drawing has errors; without one it could not be read.
  if (name === 'audit' && r.code === 1 && r.stdout.trim() !== '') return 'errors';
  return 'failed';
}

function record(name: FileCommandName, spec: FileCommandSpec, r: FileResult): Record<string, unknown> {
  const rec: Record<string, unknown> = { file: r.input, status: statusOf(name, r), exit_code: r.code, seconds: Number(r.seconds.toFixed(3)) };
  if (r.output !== undefined) rec.output = r.output;
  let parsed: unknown;
  if (spec.ownJson && r.stdout.trim()) {
    try {
      parsed = JSON.parse(r.stdout);
    } catch {
      parsed = undefined;
    }
  }
  if (parsed !== undefined) rec.result = parsed;
  else if (r.stdout) rec.stdout = r.stdout;
  rec.messages = r.stderr.split('\n').filter((l) => l.trim() !== '' && !l.includes('\r'));
  return rec;
}

/** Runs a file command; resolves with the exit code. */
export async function runFileCommand(name: FileCommandName, argv: readonly string[], io: RunnerIo): Promise<number> {
  const parsed = parseFileArgs(name, argv);
  if (parsed.kind === 'help') {
    io.stdout.write((await fileCommandHelp(name)) + '\n');
    return 0;
  }
  if (parsed.kind === 'error') {
    io.stderr.write(`linework ${name}: ${parsed.message}\n${(await fileCommandHelp(name)).split('\n')[0]}\n(linework ${name} --help for more)\n`);
    return 2;
  }
  const o = parsed.options;
  if (o.combined !== undefined) return runCombined(name, o, io);
  return o.batch ? runBatch(name, o, io) : runSingle(name, o, io);
}

/**
 * Commands whose product is a file: their stdout lines only describe what was written, so --quiet
 * silences them as well (info and audit print their product on stdout).
 */
function writesItsProduct(name: FileCommandName): boolean {
  return name === 'convert' || name === 'plot' || name === 'run';
}

// ---- many files into one (plot --out ONE.pdf) ------------------------------------------------------

async function runCombined(name: FileCommandName, o: FileRunOptions, io: RunnerIo): Promise<number> {
  const spec = FILE_COMMANDS[name];
  const args = [...o.inputs, '--out', o.combined!, ...o.pass];
  if (o.json) {
    const started = performance.now();
    const r = await inProcess(spec, args);
    io.stdout.write(JSON.stringify(record(name, spec, { input: o.inputs.join(', '), output: o.combined, ...r, seconds: (performance.now() - started) / 1000 })) + '\n');
    return r.code;
  }
  if (!o.quiet) return (await spec.load())(args, { stdout: io.stdout, stderr: io.stderr });
  const r = await inProcess(spec, args);
  if (r.code !== 0) io.stderr.write(r.stderr);
  return r.code;
}

// ---- one file -----------------------------------------------------------------------------------

async function runSingle(name: FileCommandName, o: FileRunOptions, io: RunnerIo): Promise<number> {
  const spec = FILE_COMMANDS[name];
  const input = o.inputs[0]!;
  if (o.output !== undefined) {
    const refused = refuseOutput(name, o.output, o.pass);
    if (refused) {
      io.stderr.write(`linework ${name}: ${refused}\n`);
      return 2;
    }
  }
  const args = argsFor(name, input, o.output, o);
  const started = performance.now();
  // --json of a command without a JSON form of its own: its output becomes one record.
  if (o.json && !spec.ownJson) {
    const r = await inProcess(spec, args);
    const result: FileResult = { input, output: o.output, ...r, seconds: (performance.now() - started) / 1000 };
    io.stdout.write(JSON.stringify(record(name, spec, result)) + '\n');
    return r.code;
  }
  const tty = io.stderr.isTTY === true && !o.quiet;
  if (tty) return runLive(name, args, input, io);
  if (o.quiet) {
    // Nothing but errors: messages show only when the command failed; stdout stays where it is the
    // command's product (info, audit), and is dropped where it only describes the file written.
    let err = '';
    const stdout = writesItsProduct(name) ? { write: () => true } : io.stdout;
    const code = await (await spec.load())(args, { stdout, stderr: { write: (s: string) => ((err += s), true) } });
    if (code !== 0) io.stderr.write(err);
    return code;
  }
  return (await spec.load())(args, { stdout: io.stdout, stderr: io.stderr });
}

async function inProcess(spec: FileCommandSpec, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = { stdout: { write: (s: string) => ((stdout += s), true) }, stderr: { write: (s: string) => ((stderr += s), true) } };
  let code: number;
  try {
    code = await (await spec.load())(args, io);
  } catch (err) {
    stderr += `linework ${spec.name}: ${(err as Error)?.message ?? String(err)}\n`;
    code = 1;
  }
  return { code, stdout, stderr };
}

const WORKER_URL = new URL('./worker.js', import.meta.url);

/** Progress shows once work has taken this long (LINEWORK_PROGRESS_AFTER_MS replaces it, for tests). */
function progressAfterMs(): number {
  const v = Number(process.env.LINEWORK_PROGRESS_AFTER_MS);
  return Number.isInteger(v) && v >= 0 ? v : 1000;
}

/**
 * One file on a terminal: the command runs on a worker thread, its output (its own progress bars
 * included) passed on as written, while this thread keeps an elapsed-time line going whenever the
 * command itself has drawn nothing for a moment: reading and plotting a big drawing is no longer
 * silent.
 */
async function runLive(name: FileCommandName, args: string[], input: string, io: RunnerIo): Promise<number> {
  const status = new StatusLine(io.stderr, true);
  const started = performance.now();
  const after = progressAfterMs();
  let lastBar = -Infinity;
  const worker = new Worker(WORKER_URL);
  const tick = (): void => {
    const now = performance.now();
    if (now - started < after || now - lastBar < 400) return;
    status.show(`${name} ${basename(input)}: ${formatSeconds((now - started) / 1000)} ${status.spinner()}`);
  };
  const timer = setInterval(tick, 100);
  tick();
  try {
    return await new Promise<number>((resolvePromise) => {
      worker.on('message', (m: WorkerMessage) => {
        if (m.type === 'done') {
          resolvePromise(m.code);
          return;
        }
        if (m.type === 'stderr' && m.text.startsWith('\r')) {
          // The command's own bar: it owns the line now.
          status.clear();
          lastBar = performance.now();
          io.stderr.write(m.text);
          return;
        }
        status.clear();
        (m.type === 'stdout' ? io.stdout : io.stderr).write(m.text);
      });
      worker.on('error', (err) => {
        status.clear();
        io.stderr.write(`linework ${name}: ${input}: ${err.message}\n`);
        resolvePromise(1);
      });
      const task: Task = { id: 1, command: name, args, live: { columns: io.stderr.columns || 80 } };
      worker.postMessage(task);
    });
  } finally {
    clearInterval(timer);
    status.clear();
    await worker.terminate();
  }
}

// ---- many files ---------------------------------------------------------------------------------

async function runBatch(name: FileCommandName, o: FileRunOptions, io: RunnerIo): Promise<number> {
  const spec = FILE_COMMANDS[name];
  // Plan every output first: a clash or a name the command cannot write stops the run before any work.
  const writes = spec.takesOutput || (name === 'audit' && o.fix) || (name === 'run' && o.outDir !== undefined);
  const plan = o.inputs.map((input) => ({ input, output: o.outDir !== undefined ? outputIn(name, o.outDir, input, o.pass, o.json) : undefined }));
  if (writes) {
    const byOutput = new Map<string, string>();
    for (const p of plan) {
      if (p.output === undefined) continue;
      const refused = refuseOutput(name, p.output.replace('{page}', 'page'), o.pass);
      if (refused) {
        io.stderr.write(`linework ${name}: ${refused}\n`);
        return 2;
      }
      const key = resolve(p.output);
      if (key === resolve(p.input)) {
        io.stderr.write(`linework ${name}: ${p.input} would be overwritten by its own output; choose another --out-dir\n`);
        return 2;
      }
      const other = byOutput.get(key);
      if (other !== undefined) {
        io.stderr.write(`linework ${name}: ${other} and ${p.input} would both write ${p.output}\n`);
        return 2;
      }
      byOutput.set(key, p.input);
    }
  }
  if (o.outDir !== undefined) mkdirSync(o.outDir, { recursive: true });

  const total = plan.length;
  const workers = Math.max(1, Math.min(o.jobs, total));
  const status = new StatusLine(io.stderr, io.stderr.isTTY === true && !o.quiet);
  const started = performance.now();
  const after = progressAfterMs();
  const running = new Map<number, string>();
  let done = 0;
  const counts = { ok: 0, errors: 0, failed: 0 };
  const draw = (): void => {
    const elapsed = (performance.now() - started) / 1000;
    if (elapsed * 1000 < after) return;
    const width = 20;
    const filled = Math.round((done / total) * width);
    const bad = counts.failed + counts.errors;
    const now = [...running.values()].map((f) => basename(f)).join(', ');
    status.show(`[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} files${bad ? `, ${bad} ${name === 'audit' ? 'not clean' : 'failed'}` : ''}, ${formatSeconds(elapsed)}${now ? `  ${spec.name}: ${now}` : ''}`);
  };
  const timer = setInterval(draw, 250);
  draw();

  const report = (r: FileResult): void => {
    done++;
    const s = statusOf(name, r);
    counts[s]++;
    if (o.json) {
      io.stdout.write(JSON.stringify(record(name, spec, r)) + '\n');
    } else {
      if (name === 'info' && r.output !== undefined) writeFileSync(r.output, r.stdout);
      else if (r.stdout && !(o.quiet && writesItsProduct(name))) status.print(io.stdout, r.stdout);
      if (!o.quiet || s !== 'ok') {
        const word = s === 'ok' ? 'ok' : s === 'errors' ? 'errors' : 'FAILED';
        const counter = `[${String(done).padStart(String(total).length)}/${total}]`;
        const lines = [`${counter} ${word.padEnd(6)} ${r.input}${r.output !== undefined ? ` -> ${r.output}` : ''} (${formatSeconds(r.seconds)})`];
        for (const l of r.stderr.split('\n')) if (l.trim() !== '' && !l.includes('\r')) lines.push(`    ${l}`);
        status.print(io.stderr, lines.join('\n') + '\n');
      }
    }
    draw();
  };

  const queue = plan.map((p, id) => ({ id, ...p }));
  const pool: Worker[] = [];
  await new Promise<void>((finish) => {
    let active = 0;
    const startWorker = (): void => {
      const worker = new Worker(WORKER_URL);
      pool.push(worker);
      let current: (typeof queue)[number] | undefined;
      const next = (): void => {
        current = queue.shift();
        if (!current) {
          void worker.terminate();
          if (--active === 0) finish();
          return;
        }
        running.set(current.id, current.input);
        const task: Task = { id: current.id, command: name, args: argsFor(name, current.input, current.output, o) };
        worker.postMessage(task);
      };
      worker.on('message', (m: WorkerMessage) => {
        if (m.type !== 'done' || !current) return;
        running.delete(current.id);
        report({ input: current.input, output: current.output, code: m.code, stdout: m.stdout, stderr: m.stderr, seconds: m.seconds });
        next();
      });
      worker.on('error', (err) => {
        // A crash takes this file down, not the batch: the next files get a fresh worker.
        if (current) {
          running.delete(current.id);
          report({ input: current.input, output: current.output, code: 1, stdout: '', stderr: `linework ${name}: ${err.message}\n`, seconds: 0 });
          current = undefined;
        }
        active--;
        if (queue.length) {
          active++;
          startWorker();
        } else if (active === 0) finish();
      });
      active++;
      next();
    };
    for (let i = 0; i < workers; i++) startWorker();
  });
  clearInterval(timer);
  status.clear();
  await Promise.allSettled(pool.map((w) => w.terminate()));

  const seconds = (performance.now() - started) / 1000;
  if (o.json) {
    io.stdout.write(JSON.stringify({ summary: { command: name, files: total, ...counts, seconds: Number(seconds.toFixed(3)), workers } }) + '\n');
  } else if (!o.quiet || counts.ok < total) {
    const parts = [`${counts.ok} ok`];
    if (name === 'audit') parts.push(`${counts.errors} with errors`);
    parts.push(`${counts.failed} failed`);
    io.stderr.write(`${name}: ${total} file${total === 1 ? '' : 's'} in ${formatSeconds(seconds)} on ${workers} worker thread${workers === 1 ? '' : 's'}: ${parts.join(', ')}\n`);
  }
  return counts.ok === total ? 0 : 1;
}
