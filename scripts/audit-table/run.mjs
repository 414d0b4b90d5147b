// The audit table of docs/engine.md: for every DXF file of a folder (LINEWORK_DXF_CORPUS by
// default), ezdxf's auditor on the file as it is, `linework audit --fix` (its findings), and
// ezdxf's auditor again on the repaired file. Usage: node scripts/audit-table/run.mjs [DIR]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const dir = process.argv[2] ?? process.env.LINEWORK_DXF_CORPUS;
if (!dir) {
  console.error('usage: node scripts/audit-table/run.mjs DIR (or set LINEWORK_DXF_CORPUS)');
  process.exit(2);
}
const python = process.env.LINEWORK_PYTHON ?? '/usr/bin/python3';
const files = readdirSync(dir).filter((f) => f.toLowerCase().endsWith('.dxf')).sort();
const out = mkdtempSync(join(tmpdir(), 'lw-audit-table-'));
const lw = spawnSync(process.execPath, [join(root, 'packages/server/bin/linework.js'), 'audit', ...files.map((f) => join(dir, f)), '--fix', '--out-dir', out, '--json', '--quiet'], { encoding: 'utf8', maxBuffer: 1 << 28 });
const ours = new Map();
for (const line of lw.stdout.split('\n')) {
  if (!line.startsWith('{')) continue;
  const r = JSON.parse(line);
  if (r.file) ours.set(r.file.split('/').pop(), { ...r.result, error: r.error ?? r.messages?.join(' ') });
}
const ezdxf = (paths) => JSON.parse(spawnSync(python, [join(root, 'scripts/audit-table/ezdxf_audit_many.py'), ...paths], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout);
const before = ezdxf(files.map((f) => join(dir, f)));
const after = ezdxf(files.map((f) => join(out, f)));
const cell = (r) => (!r ? 'not written' : r.failed ? `cannot load (${r.failed.replace(/\|/g, '/')})` : `${r.fixes + r.errors}${r.fixes + r.errors ? ` (${Object.entries(r.codes).map(([k, v]) => `${k.replace(/^fix:|^error:/, '')} ${v}`).join(', ')})` : ''}`);
console.log('| file | ezdxf on the file: fixes + errors | linework audit: findings | linework --fix: fixed, left | ezdxf after --fix |');
console.log('|---|---|---|---|---|');
let clean = 0;
for (const f of files) {
  const o = ours.get(f);
  const a = after[f];
  if (a && !a.failed && a.fixes + a.errors === 0) clean++;
  const found = o && o.count !== undefined ? (o.count ? `${o.count} (${Object.entries(o.counts).map(([k, v]) => `${k} ${v}`).join(', ')})` : '0') : `failed: ${(o?.error ?? 'see stderr').slice(0, 60)}`;
  console.log(`| ${f} | ${cell(before[f])} | ${found} | ${o && o.fixed !== undefined ? `${o.fixed}, ${o.remaining}` : '-'} | ${cell(a)} |`);
}
console.log(`\n${files.length} files; ezdxf's auditor finds nothing to fix in ${clean} of the repaired ones.`);
rmSync(out, { recursive: true, force: true });
