// `npm run bench`: runs every benchmark section in turn and prints their tables. Each section
// measures Linework beside its peers in the same run. Pick sections with `npm run bench -- dxf keys`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';

const root = new URL('..', import.meta.url).pathname;
const all = ['dxf', 'server', 'render', 'keys', 'hosted', 'cli', 'editor', 'modify2', 'trim-extend'];
const picked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const sections = picked.length ? picked : all;
const tsx = root + 'node_modules/.bin/tsx';

let failed = 0;
const times = [];
for (const section of sections) {
  const script = `${root}bench/${section}/run.ts`;
  if (!existsSync(script)) {
    console.log(`\n## ${section}\n\n(no benchmark for this section yet)`);
    continue;
  }
  console.log(`\n## ${section}\n`);
  const t0 = performance.now();
  const r = spawnSync(tsx, [script, ...process.argv.slice(2).filter((a) => a.startsWith('-'))], { stdio: 'inherit', cwd: root });
  times.push({ section, seconds: (performance.now() - t0) / 1000, ok: r.status === 0, load: loadavg()[0] });
  if (r.status !== 0) {
    console.error(`bench: section ${section} failed (${r.status ?? r.signal})`);
    failed++;
  }
}
// What each section took, and how busy the machine was (the 1-minute load average at its end):
// the wall times are only comparable on an idle machine.
console.log('\n## sections\n\n| section | seconds | load average at the end | |\n|---|---:|---:|---|');
for (const t of times) console.log(`| ${t.section} | ${t.seconds.toFixed(0)} | ${t.load.toFixed(1)} | ${t.ok ? '' : 'failed'} |`);
console.log(`| all | ${times.reduce((a, t) => a + t.seconds, 0).toFixed(0)} | | |`);
process.exit(failed ? 1 : 0);
