// `npm start`: the product on embedded defaults, wired together. Starts the API key service
// (SQLite in ./data), waits for its address, then the drawing automation server with
// `--keys-url` pointing at it: the session token works as always, and API keys of the key service
// are accepted too, each organization in its own folder of ./data/drawings. The server opens the
// sample drawing (a copy in the workspace, so saving it leaves the shipped one alone) in the
// graphical editor and the link to the editor is printed last. Ctrl-C stops both.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const keysBin = 'packages/keys/bin/linework-keys.js';
const lineworkBin = 'packages/server/bin/linework.js';
for (const [name, needs] of [['linework-keys', 'packages/keys/dist/cli.js'], ['linework', 'packages/server/dist/cli.js']]) {
  if (!existsSync(root + needs)) {
    console.error(`start: ${name} is not built (${needs} missing); run npm run build`);
    process.exit(1);
  }
}

const children = [];
let stopping = false;
function run(name, bin, args, stderr) {
  const child = spawn(process.execPath, [root + bin, ...args], { stdio: ['ignore', 'inherit', stderr], cwd: root });
  child.on('exit', (code, signal) => {
    console.error(`start: ${name} exited (${signal ?? code})`);
    stopping = true;
    for (const c of children) if (c !== child && c.exitCode === null) c.kill('SIGTERM');
    process.exitCode = code ?? 1;
  });
  children.push(child);
  return child;
}
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    stopping = true;
    for (const c of children) c.kill(sig);
  });
}

// The key service first: the drawing server is told where it listens (KEYS_PORT=0 works too).
const keys = run('linework-keys', keysBin, ['serve', '--port', process.env.KEYS_PORT ?? '8090'], 'pipe');
const keysUrl = await new Promise((resolve) => {
  let seen = '';
  keys.stderr.on('data', (chunk) => {
    process.stderr.write(chunk);
    if (seen === null) return;
    seen += chunk.toString();
    const m = /^(http:\/\/\S+:\d+)$/m.exec(seen);
    if (m) {
      seen = null;
      resolve(m[1]);
    }
  });
});
if (!stopping) {
  // Organization folders go under the workspace root: ./data/drawings unless LINEWORK_ROOT names one.
  const workspace = process.env.LINEWORK_ROOT ? [] : ['--root', 'data/drawings'];
  mkdirSync(root + 'data/drawings', { recursive: true });
  const sample = 'data/drawings/sample.dxf';
  if (!existsSync(root + sample)) copyFileSync(root + 'samples/sample.dxf', root + sample);
  const server = run('linework', lineworkBin, ['--http', process.env.LINEWORK_PORT ?? '8080', '--keys-url', keysUrl, ...workspace, sample], 'pipe');
  // the server's lines go on through; its editor link is repeated last, where a newcomer looks
  let seen = '';
  server.stderr.on('data', (chunk) => {
    process.stderr.write(chunk);
    if (seen === null) return;
    seen += chunk.toString();
    const m = /^editor: (\S+)$/m.exec(seen);
    if (m) {
      seen = null;
      // after the lines the server prints with it (addresses, the token)
      setTimeout(() => console.error(`\nLinework is running. Open the editor on the sample drawing:\n  ${m[1]}\n`), 300);
    }
  });
}
