// `npm run bench`: runs every benchmark section in turn and prints their tables. Each section
// measures Linework beside its peers in the same run. Pick sections with `npm run bench -- dxf keys`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const all = ['dxf', 'server', 'render', 'keys', 'hosted', 'cli', 'editor', 'modify2', 'trim-extend'];
const picked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const sections = picked.length ? picked : all;
const tsx = root + 'node_modules/.bin/tsx';

let failed = 0;
for (const section of sections) {
  const script = `${root}bench/${section}/run.ts`;
  if (!existsSync(script)) {
    console.log(`\n## ${section}\n\n(no benchmark for this section yet)`);
    continue;
  }
  console.log(`\n## ${section}\n`);
  const r = spawnSync(tsx, [script, ...process.argv.slice(2).filter((a) => a.startsWith('-'))], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) {
    console.error(`bench: section ${section} failed (${r.status ?? r.signal})`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
