// The corpus round-trip table: every DXF file of a folder is read and written back by @linework/dxf
// (in its own version, or `--version V`), then ezdxf compares the two files record by record,
// ignoring handles (packages/dxf/test/ezdxf_view.py). Not a test: a measurement to put beside a change.
//
//   npx tsx scripts/dxf-roundtrip/table.ts [CORPUS_DIR] [--version R12] [--out DIR] [--json]
//
// CORPUS_DIR defaults to $LINEWORK_DXF_CORPUS; the Python with ezdxf is $LINEWORK_PYTHON
// (default /usr/bin/python3). Prints a Markdown table: per file, ezdxf's audit (errors/fixes) of
// the original and of our file, and "equal" or the categories that differ.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDxfSync, writeDxfWithResult } from '../../packages/dxf/src/index.js';

interface Row {
  original: string;
  written: string;
  original_audit?: [number, number];
  written_audit?: [number, number];
  original_error?: string;
  written_error?: string;
  differences?: Record<string, { changed: number; lost: number; added: number; example: string }>;
}

const args = process.argv.slice(2);
let dir = process.env.LINEWORK_DXF_CORPUS;
let version: string | undefined;
let outDir: string | undefined;
let json = false;
for (let i = 0; i < args.length; i++) {
  const a = args[i]!;
  if (a === '--version') version = args[++i];
  else if (a === '--out') outDir = args[++i];
  else if (a === '--json') json = true;
  else dir = a;
}
if (!dir) {
  process.stderr.write('usage: table.ts CORPUS_DIR [--version V] [--out DIR] [--json] (or set LINEWORK_DXF_CORPUS)\n');
  process.exit(2);
}
const python = process.env.LINEWORK_PYTHON || '/usr/bin/python3';
const out = outDir ?? mkdtempSync(join(tmpdir(), 'lw-roundtrip-'));
mkdirSync(out, { recursive: true });
const files = readdirSync(dir).filter((f) => f.toLowerCase().endsWith('.dxf')).sort();
const pairs: { original: string; written: string }[] = [];
const ours = new Map<string, string>();
for (const f of files) {
  const src = join(dir, f);
  const dst = join(out, f);
  try {
    const doc = readDxfSync(readFileSync(src));
    const res = writeDxfWithResult(doc, version ? { version } : {});
    writeFileSync(dst, res.buffer);
    const warnings = doc.diagnostics.filter((d) => d.level !== 'info').length + res.diagnostics.filter((d) => d.level !== 'info').length;
    ours.set(f, warnings ? `${warnings} warnings` : '');
    pairs.push({ original: src, written: dst });
  } catch (e) {
    ours.set(f, `failed: ${(e as Error).message}`);
  }
}
const script = fileURLToPath(new URL('../../packages/dxf/test/ezdxf_view.py', import.meta.url));
const r = spawnSync(python, [script], { input: JSON.stringify(pairs), encoding: 'utf8', maxBuffer: 256 << 20 });
if (r.status !== 0) {
  process.stderr.write(r.stderr);
  process.exit(1);
}
const rows = new Map<string, Row>();
for (const line of r.stdout.trim().split('\n').filter(Boolean)) {
  const row = JSON.parse(line) as Row;
  rows.set(basename(row.original), row);
}
if (json) {
  process.stdout.write(JSON.stringify([...rows.values()], null, 1) + '\n');
  process.exit(0);
}
const audit = (a?: [number, number], err?: string): string => (err ? 'not loaded' : a ? `${a[0]}/${a[1]}` : '-');
let equal = 0;
process.stdout.write(`| file | ours | ezdxf audit e/f original | written | round trip (ezdxf view, handles ignored) |\n|---|---|---|---|---|\n`);
for (const f of files) {
  const row = rows.get(f);
  let verdict: string;
  if (!row) verdict = 'not written';
  else if (row.original_error && row.written_error) verdict = `neither loads: ${row.written_error}`;
  else if (row.written_error) verdict = `ours does not load: ${row.written_error}`;
  else if (row.original_error) verdict = `original does not load (${row.original_error.slice(0, 60)}); ours does`;
  else {
    const d = Object.entries(row.differences ?? {});
    if (d.length === 0) {
      verdict = 'equal';
      equal++;
    } else {
      verdict = d.map(([cat, x]) => `${cat}: ${[x.changed && `${x.changed} changed`, x.lost && `${x.lost} lost`, x.added && `${x.added} added`].filter(Boolean).join(', ')} (${x.example.replace(/\|/g, '\\|').slice(0, 160)})`).join('; ');
    }
  }
  process.stdout.write(`| ${f} | ${ours.get(f) ?? ''} | ${audit(row?.original_audit, row?.original_error)} | ${audit(row?.written_audit, row?.written_error)} | ${verdict} |\n`);
}
process.stdout.write(`\n${equal} of ${files.length} equal${version ? ` (written as ${version})` : ''}\n`);
