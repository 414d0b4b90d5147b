// `npm start`: the product on embedded defaults. Runs the drawing automation server (headless)
// and the API key service side by side; Ctrl-C stops both.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const services = [
  { name: 'linework', bin: 'packages/server/bin/linework.js', args: ['--http', process.env.LINEWORK_PORT ?? '8080'], needs: 'packages/server/dist/cli.js' },
  { name: 'linework-keys', bin: 'packages/keys/bin/linework-keys.js', args: ['serve', '--port', process.env.KEYS_PORT ?? '8090'], needs: 'packages/keys/dist/cli.js' },
];

const children = [];
for (const s of services) {
  if (!existsSync(root + s.needs)) {
    console.error(`start: ${s.name} is not built (${s.needs} missing); run npm run build`);
    process.exit(1);
  }
  const child = spawn(process.execPath, [root + s.bin, ...s.args], { stdio: ['ignore', 'inherit', 'inherit'], cwd: root });
  child.on('exit', (code, signal) => {
    console.error(`start: ${s.name} exited (${signal ?? code})`);
    for (const c of children) if (c !== child && c.exitCode === null) c.kill('SIGTERM');
    process.exitCode = code ?? 1;
  });
  children.push(child);
}
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => { for (const c of children) c.kill(sig); });
}
