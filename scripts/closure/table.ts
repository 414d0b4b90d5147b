// The copy-closure table of docs/engine.md: every DXF file of a folder has all of its model space
// copied into a new drawing of its version (R13/R14: R2000) through the dependency closure
// (packages/engine/src/store/closure.ts) and written by wblock; ezdxf audits the original, the copy
// and the wblock file (packages/engine/test/ezdxf_closure.py, one Python process for all files).
// Not a test: a measurement to put beside a change (the test is packages/engine/test/closure.test.ts).
//
//   npx tsx scripts/closure/table.ts [CORPUS_DIR] [--json]
//
// CORPUS_DIR defaults to $LINEWORK_DXF_CORPUS; the Python with ezdxf is $LINEWORK_PYTHON (default
// /usr/bin/python3). Prints a Markdown table and a totals line.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dxf, type DxfVersion } from '../../packages/engine/src/dxf.js';
import { copyEntities, directSink, type Dependencies } from '../../packages/engine/src/store/closure.js';
import { wblock } from '../../packages/engine/src/plot/wblock.js';

interface Audit {
  ok: boolean;
  fixes?: Record<string, number>;
  errors?: Record<string, number>;
  messages: string[];
  modelspace?: Record<string, number>;
}

interface Row {
  file: string;
  version: string;
  copied: number;
  dependencies: Dependencies;
  kept: number;
  failure?: string;
  source?: Audit;
  copy?: Audit;
  wblock?: Audit;
}

const args = process.argv.slice(2);
const json = args.includes('--json');
const dir = args.find((a) => !a.startsWith('--')) ?? process.env.LINEWORK_DXF_CORPUS;
if (!dir) {
  console.error('usage: npx tsx scripts/closure/table.ts CORPUS_DIR [--json]  (or set LINEWORK_DXF_CORPUS)');
  process.exit(2);
}
const python = process.env.LINEWORK_PYTHON ?? '/usr/bin/python3';
const script = fileURLToPath(new URL('../../packages/engine/test/ezdxf_closure.py', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'linework-closure-table-'));

function targetVersion(v: DxfVersion): DxfVersion {
  if (v < 'AC1009') return 'AC1009';
  if (v > 'AC1009' && v < 'AC1015') return 'AC1015';
  return v;
}

const count = (d: Record<string, unknown[]>) => Object.values(d).reduce((n, l) => n + l.length, 0);
const sum = (r: Record<string, number> | undefined) => Object.values(r ?? {}).reduce((n, v) => n + v, 0);
const undefinedCount = (a: Audit | undefined) => Object.entries({ ...a?.fixes, ...a?.errors }).filter(([k]) => k.startsWith('UNDEFINED')).reduce((n, [, v]) => n + v, 0);
const sameCounts = (a: Audit | undefined, b: Audit | undefined) => {
  const norm = (x: Record<string, number> | undefined) => JSON.stringify(Object.entries(x ?? {}).sort(([p], [q]) => p.localeCompare(q)));
  return !!a?.ok && !!b?.ok && norm(a.modelspace) === norm(b.modelspace);
};

/** Every type at least as often in `a` as in `b`. */
function atLeast(a: Audit | undefined, b: Audit | undefined): boolean {
  return !!a?.ok && Object.entries(b?.modelspace ?? {}).every(([k, n]) => (a.modelspace?.[k] ?? 0) >= n);
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const files: string[] = [];
  for (const file of readdirSync(dir!).filter((f) => /\.dxf$/i.test(f)).sort()) {
    const source = join(dir!, file);
    try {
      const src = await dxf.readDxf(source);
      const out = dxf.newDocument(targetVersion(src.version));
      const r = copyEntities(src, src.modelSpace().entities, directSink(out));
      await dxf.saveDxf(out, join(work, `copy-${file}`));
      await wblock(src, { path: join(work, `wblock-${file}`) });
      rows.push({ file, version: src.version, copied: r.handles.length, dependencies: r.dependencies, kept: count(r.kept_from_target) });
      files.push(source, join(work, `copy-${file}`), join(work, `wblock-${file}`));
    } catch (err) {
      rows.push({ file, version: '', copied: 0, dependencies: {} as Dependencies, kept: 0, failure: (err as Error).message.slice(0, 120) });
    }
  }
  const r = spawnSync(python, [script, ...files], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`ezdxf_closure.py failed: ${r.stderr}`);
  const audits = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Audit);
  let i = 0;
  for (const row of rows) if (!row.failure) [row.source, row.copy, row.wblock] = [audits[i++], audits[i++], audits[i++]];
  rmSync(work, { recursive: true, force: true });
  if (json) {
    console.log(JSON.stringify(rows, null, 2));
    return;
  }
  const fixes = (a: Audit | undefined) => (a?.ok ? String(sum(a.fixes) + sum(a.errors)) : 'unreadable');
  console.log('| file | version | entities copied | dependencies brought (blocks / layers / linetypes / text styles / dim styles / other) | kept from target | ezdxf fixes: source / copy / wblock | UNDEFINED_* fixes: copy / wblock | model space by type as the source (as ezdxf reads them) |');
  console.log('|---|---|---:|---|---:|---|---|---|');
  const totals = { files: 0, copied: 0, brought: 0, undefinedCopy: 0, undefinedWblock: 0, same: 0, compared: 0 };
  for (const row of rows) {
    if (row.failure) {
      console.log(`| ${row.file} | | | failed: ${row.failure} | | | | |`);
      continue;
    }
    const d = row.dependencies;
    const other = count(d) - d.blocks.length - d.layers.length - d.linetypes.length - d.text_styles.length - d.dimension_styles.length;
    const comparable = !!row.source?.ok;
    const equal = sameCounts(row.source, row.copy) && sameCounts(row.source, row.wblock);
    const repaired = !!row.source?.ok && (sum(row.source.fixes) > 0 || sum(row.source.errors) > 0);
    const same = !comparable ? 'source unreadable by ezdxf' : equal ? (repaired ? 'yes (source repaired by ezdxf)' : 'yes')
      : repaired && atLeast(row.copy, row.source) && atLeast(row.wblock, row.source) ? 'more: ezdxf drops some from the repaired source' : 'NO';
    totals.files++;
    totals.copied += row.copied;
    totals.brought += count(d);
    if (row.source?.ok) {
      totals.undefinedCopy += Math.max(0, undefinedCount(row.copy) - undefinedCount(row.source));
      totals.undefinedWblock += Math.max(0, undefinedCount(row.wblock) - undefinedCount(row.source));
    }
    if (comparable) {
      totals.compared++;
      if (equal) totals.same++;
    }
    console.log(`| ${row.file} | ${row.version} | ${row.copied} | ${count(d)} (${d.blocks.length} / ${d.layers.length} / ${d.linetypes.length} / ${d.text_styles.length} / ${d.dimension_styles.length} / ${other}) | ${row.kept} | ${fixes(row.source)} / ${fixes(row.copy)} / ${fixes(row.wblock)} | ${undefinedCount(row.copy)} / ${undefinedCount(row.wblock)} | ${same} |`);
  }
  console.log('');
  console.log(`${totals.files} files, ${totals.copied} entities copied, ${totals.brought} dependencies brought; UNDEFINED_* fixes beyond the source's own: copy ${totals.undefinedCopy}, wblock ${totals.undefinedWblock} (goal 0); model space by type as the source: ${totals.same} of ${totals.compared} files ezdxf reads.`);
}

await main();
