// `linework run SCRIPT FILE`: one drawing through a script, in a session of its own, as AutoCAD's
// accoreconsole runs a .scr over a drawing. SCRIPT is either an AutoCAD-style .scr of command-line
// commands (what POST /commands runs), or a .jsonl of protocol-1 requests. SAVE, SAVEAS and PLOT
// write into --out-dir only: a script never writes beside its inputs.
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, relative, resolve } from 'node:path';
import type { CommandIo } from './commands.js';

export const RUN_USAGE = `usage: linework run SCRIPT FILE [--out OUT.dxf] [--json]
  SCRIPT.scr      AutoCAD-style script: one command line per line (LINE 0,0 100,0, CIRCLE 50,50 10,
                  OFFSET, TRIM ..., what POST /commands runs); lines starting with ; are comments;
                  a leading _ or . on a command name is ignored. Script commands:
                    SAVE | QSAVE [NAME]          write the drawing to --out-dir (DIR/<name>.dxf)
                    SAVEAS VERSION [NAME]        the same in another DXF version (R12 ... R2018)
                    PLOT [NAME.pdf|.svg|.png]    plot model space (DIR/<name>.pdf)
                  NAME may hold {name}, the drawing's name without extension.
  SCRIPT.jsonl    protocol-1 requests, one JSON object per line ({"op":"entities_create", ...});
                  "protocol" and "document_id" may be left out. A save without path writes
                  DIR/<name>.dxf; paths of save, plot and wblock are inside --out-dir.
The script stops at the first failing line (exit 1), as AutoCAD's script does; what was saved
before it stays. Requests that write files need --out-dir.`;

/** What a script is, by its extension. */
export type ScriptKind = 'scr' | 'jsonl';

export function scriptKind(path: string): ScriptKind | null {
  const ext = extname(path).toLowerCase();
  if (ext === '.scr') return 'scr';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  return null;
}

/** Scripts are text people write; anything larger is not one. */
const SCRIPT_MAX_BYTES = 16 * 1024 * 1024;

/** One step of a script, with the line it came from. */
interface Step {
  line: number;
  text: string;
  request: Record<string, unknown>;
}

interface StepOutcome {
  line: number;
  op: string;
  ok: boolean;
  code?: string;
  error?: string;
  result?: unknown;
}

class ScriptError extends Error {
  constructor(readonly line: number, message: string) {
    super(message);
  }
}

const VERSION_WORDS = /^(R12|R13|R14|R2000|R2004|R2007|R2010|R2013|R2018|AC10\d\d|AC2\.10|12|13|14|2000|2004|2007|2010|2013|2018)$/i;

function versionOf(word: string): string {
  return /^\d/.test(word) && !/^AC/i.test(word) ? `R${word}` : word.toUpperCase();
}

function nameIn(template: string | undefined, stem: string, ext: string): string {
  if (template === undefined) return `${stem}${ext}`;
  const n = template.replace(/\{name\}/g, stem);
  return extname(n) ? n : `${n}${ext}`;
}

/** The .scr lines as requests: the script's own SAVE/SAVEAS/PLOT, the rest for the command line. */
function scrSteps(text: string, stem: string): Step[] {
  const steps: Step[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '' || raw.startsWith(';')) continue;
    // AutoCAD scripts write _LINE (the English name) and .LINE (the built-in command)
    const body = raw.replace(/^[_.]+/, '');
    const words = body.split(/\s+/);
    const name = words[0]!.toUpperCase();
    const args = words.slice(1);
    const line = i + 1;
    if (name === 'SAVE' || name === 'QSAVE') {
      if (args.length > 1) throw new ScriptError(line, `${name} takes at most a file name, got ${args.length} words`);
      steps.push({ line, text: raw, request: { op: 'save', path: nameIn(args[0], stem, '.dxf') } });
    } else if (name === 'SAVEAS') {
      const [version, file, ...rest] = args;
      if (version === undefined || !VERSION_WORDS.test(version)) {
        throw new ScriptError(line, `SAVEAS needs the DXF version first (R12, R2000, R2004, R2007, R2010, R2013, R2018), then an optional name; got ${version === undefined ? 'nothing' : JSON.stringify(version)}`);
      }
      if (rest.length) throw new ScriptError(line, `SAVEAS takes a version and a file name, got ${args.length} words`);
      steps.push({ line, text: raw, request: { op: 'save', version: versionOf(version), path: nameIn(file, stem, '.dxf') } });
    } else if (name === 'PLOT' || name === '-PLOT') {
      if (args.length > 1) throw new ScriptError(line, `PLOT takes at most a file name (.pdf, .svg or .png), got ${args.length} words`);
      steps.push({ line, text: raw, request: { op: 'plot', path: nameIn(args[0], stem, '.pdf'), fit: true } });
    } else {
      steps.push({ line, text: raw, request: { op: 'command', cmd: body } });
    }
  }
  return steps;
}

function jsonlSteps(text: string, stem: string): Step[] {
  const steps: Step[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw new ScriptError(i + 1, `not JSON: ${(err as Error).message}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ScriptError(i + 1, 'each line must be one JSON object (a protocol-1 request)');
    const request = { ...(value as Record<string, unknown>) };
    if (typeof request.op !== 'string') throw new ScriptError(i + 1, 'the request has no "op"');
    if (request.op === 'save' && request.path === undefined) request.path = `${stem}.dxf`;
    steps.push({ line: i + 1, text: raw, request });
  }
  return steps;
}

function inside(dir: string, file: string): boolean {
  const rel = relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

interface Parsed {
  script: string;
  input: string;
  out?: string;
  json: boolean;
}

function parse(args: readonly string[]): Parsed | string {
  const pos: string[] = [];
  let out: string | undefined;
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--out') {
      out = args[++i];
      if (out === undefined) return '--out needs the drawing file to save to';
    } else if (a === '--json') json = true;
    else if (a.startsWith('--')) return `unknown option ${a}`;
    else pos.push(a);
  }
  if (pos.length !== 2) return `run needs a script and a drawing (got ${pos.length} names)`;
  return { script: pos[0]!, input: pos[1]!, out, json };
}

/** Runs a script over one drawing; resolves to the exit code. */
export async function runScriptCommand(args: string[], io: CommandIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(RUN_USAGE + '\n');
    return 0;
  }
  const p = parse(args);
  if (typeof p === 'string') {
    io.stderr.write(`linework run: ${p}\n`);
    return 2;
  }
  const kind = scriptKind(p.script);
  if (!kind) {
    io.stderr.write(`linework run: ${p.script}: a script is a .scr (command lines) or a .jsonl (protocol-1 requests)\n`);
    return 2;
  }
  let text: string;
  try {
    if (statSync(p.script).size > SCRIPT_MAX_BYTES) throw new Error(`larger than ${SCRIPT_MAX_BYTES / 1024 / 1024} MB`);
    text = readFileSync(p.script, 'utf8');
  } catch (err) {
    io.stderr.write(`linework run: cannot read the script ${p.script}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
    return 2;
  }
  const input = resolve(p.input);
  const stem = basename(input, extname(input));
  let steps: Step[];
  try {
    steps = kind === 'scr' ? scrSteps(text, p.out ? basename(p.out, extname(p.out)) : stem) : jsonlSteps(text, p.out ? basename(p.out, extname(p.out)) : stem);
  } catch (err) {
    if (!(err instanceof ScriptError)) throw err;
    io.stderr.write(`linework run: ${basename(p.script)} line ${err.line}: ${err.message}\n`);
    return 2;
  }

  const { createEngine, buildCatalogue, Workspace } = await import('@linework/engine');
  const outDir = p.out !== undefined ? dirname(resolve(p.out)) : undefined;
  const writers = new Set(buildCatalogue().filter((op) => op.effect === 'write_files').map((op) => op.name));
  // Relative paths of the script start in --out-dir; the input's folder is readable (the drawing
  // itself, the files it references), but writes are checked to land in --out-dir.
  const roots = outDir !== undefined ? [outDir, dirname(input)] : [dirname(input)];
  let engine: ReturnType<typeof createEngine>;
  try {
    engine = createEngine({ empty: true, workspace: new Workspace(roots) });
  } catch (err) {
    io.stderr.write(`linework run: ${(err as Error).message}\n`);
    return 1;
  }
  const outcomes: StepOutcome[] = [];
  const written: string[] = [];
  const fail = (line: number | null, message: string): number => {
    const where = line === null ? '' : ` line ${line}`;
    if (p.json) io.stdout.write(JSON.stringify({ file: p.input, ok: false, failed_at: line, error: message, steps: outcomes, written }) + '\n');
    io.stderr.write(`linework run: ${basename(p.input)}:${where} ${message}\n`);
    return 1;
  };

  const opened = await engine.dispatch({ protocol: 1, op: 'document_open', path: input });
  if (!opened.ok) return fail(null, `cannot open the drawing: ${opened.code}: ${opened.error}`);
  const documentId = opened.document_id;

  let created = 0;
  for (const step of steps) {
    const req: Record<string, unknown> = { protocol: 1, document_id: documentId, ...step.request };
    const op = String(req.op);
    if (writers.has(op)) {
      if (outDir === undefined) return fail(step.line, `${op} writes a file: give --out-dir DIR (run never writes beside its inputs)`);
      const target = typeof req.path === 'string' ? resolve(outDir, req.path) : undefined;
      if (target === undefined || !inside(outDir, target)) return fail(step.line, `${op} writes ${JSON.stringify(req.path)}, outside --out-dir`);
      req.path = target;
    }
    const res = await engine.dispatch(req as Parameters<typeof engine.dispatch>[0]);
    const outcome: StepOutcome = { line: step.line, op, ok: res.ok };
    if (res.ok) {
      if (p.json) outcome.result = res.result;
      const r = res.result as { handles?: unknown; created?: unknown; path?: unknown; files?: unknown } | undefined;
      if (Array.isArray(r?.handles)) created += r.handles.length;
      else if (Array.isArray(r?.created)) created += r.created.length;
      if (op === 'save' && typeof r?.path === 'string') written.push(r.path);
      if (Array.isArray(r?.files)) for (const f of r.files) if (typeof f === 'string') written.push(f);
      if (op === 'wblock' && typeof r?.path === 'string') written.push(r.path);
      outcomes.push(outcome);
      continue;
    }
    outcome.code = res.code;
    outcome.error = res.error;
    outcomes.push(outcome);
    return fail(step.line, `${kind === 'scr' ? step.text : op}: ${res.code}: ${res.error}`);
  }
  const shown = [...new Set(written)].map((f) => (outDir !== undefined ? relative(process.cwd(), f) || f : f));
  if (p.json) {
    io.stdout.write(JSON.stringify({ file: p.input, ok: true, steps: outcomes, handles_made_or_changed: created, written: shown }) + '\n');
  } else {
    io.stdout.write(`${p.input}: ${steps.length} ${kind === 'scr' ? 'line' : 'request'}${steps.length === 1 ? '' : 's'} run${shown.length ? `; wrote ${shown.join(', ')}` : '; nothing saved (no SAVE in the script)'}\n`);
  }
  return 0;
}
