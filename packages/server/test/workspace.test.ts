// The workspace root, through every transport: no op reads or writes outside it (absolute paths,
// `..`, symlinks), refusals are 403 path_outside_root without a word of the file, relative paths
// start at the root (also over MCP with no working folder), only regular files are opened (a FIFO
// does not stall the server), and graphical mode adds the folders of the files it opened.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startHttpProcess, type HttpServerProcess } from './helpers.js';
import { runHttp, runMcp, runStdio, runTcp, startMcpClient, type Answer, type Req } from './transports.js';

const SECRET = 'root:$6$very-secret-hash-9f3a:19000:0:99999:7:::';
const base = mkdtempSync(join(tmpdir(), 'lw-ws-'));
const root = join(base, 'root');
const outside = join(base, 'outside');
mkdirSync(root);
mkdirSync(outside);
const DXF = '  0\nSECTION\n  2\nENTITIES\n  0\nLINE\n  8\n0\n 10\n0\n 20\n0\n 11\n5\n 21\n5\n  0\nENDSEC\n  0\nEOF\n';
writeFileSync(join(outside, 'secret.txt'), SECRET + '\n');
writeFileSync(join(outside, 'drawing.dxf'), DXF);
writeFileSync(join(root, 'plan.dxf'), DXF);
writeFileSync(join(root, 'notes.txt'), SECRET + '\n');
// links inside the root that lead out of it
symlinkSync(outside, join(root, 'out-dir'));
symlinkSync(join(outside, 'drawing.dxf'), join(root, 'out-file.dxf'));
symlinkSync(join(outside, 'missing.dxf'), join(root, 'dangling.dxf'));
symlinkSync(join(outside, 'secret.txt'), join(root, 'secret-link.txt'));
symlinkSync(join(outside, 'plot.pdf'), join(root, 'out-plot.pdf'));
execFileSync('mkfifo', [join(root, 'pipe.dxf')]);

afterAll(() => rmSync(base, { recursive: true, force: true }));

const ROOT_ARGS = { args: ['--root', root], env: { LINEWORK_ROOT: '' } };

/** Every op that names a path, pointed outside the root in every way. */
function escapes(): Req[] {
  const outsidePaths = [
    join(outside, 'x.dxf'), // absolute
    '../outside/x.dxf', // relative, climbing out
    `${root}/../outside/x.dxf`,
    'out-dir/x.dxf', // through a folder link
    'out-file.dxf', // through a file link
  ];
  const reqs: Req[] = [];
  for (const p of outsidePaths) {
    reqs.push({ op: 'save', fields: { path: p } });
    reqs.push({ op: 'wblock', fields: { path: p } });
    if (p === 'out-file.dxf') {
      reqs.push({ op: 'plot', fields: { path: 'out-plot.pdf' } });
      continue;
    }
    reqs.push({ op: 'plot', fields: { path: p.replace(/\.dxf$/, '.pdf') } });
    reqs.push({ op: 'plot', fields: { path: p.replace(/x\.dxf$/, '{page}.svg'), pages: 'all' } });
  }
  for (const p of [join(outside, 'drawing.dxf'), '../outside/drawing.dxf', 'out-dir/drawing.dxf', 'out-file.dxf', 'dangling.dxf', join(outside, 'missing.dxf'), '/etc/passwd']) {
    reqs.push({ op: 'document_open', fields: { path: p } });
    reqs.push({ op: 'document_open', fields: { template: p } });
    reqs.push({ op: 'embed_image', fields: { path: p, insert: [0, 0] } });
  }
  return reqs;
}

function expectRefusals(answers: Answer[], reqs: Req[], transport: string): void {
  expect(answers).toHaveLength(reqs.length);
  answers.forEach(({ res, http }, i) => {
    const what = `${transport}: ${reqs[i]!.op} ${JSON.stringify(reqs[i]!.fields)}`;
    expect(res.ok, what).toBe(false);
    expect(res.code, what).toBe('path_outside_root');
    if (http !== undefined) expect(http, what).toBe(403);
    expect(JSON.stringify(res), what).not.toContain('very-secret');
  });
  // nothing was written outside, no folder was made there
  expect(readdirSync(outside).sort()).toEqual(['drawing.dxf', 'secret.txt']);
}

describe('every transport keeps every path inside the workspace root', () => {
  const reqs = escapes();
  it('HTTP', async () => expectRefusals(await runHttp(reqs, ROOT_ARGS), reqs, 'http'));
  it('stdio', async () => expectRefusals(await runStdio(reqs, ROOT_ARGS), reqs, 'stdio'));
  it('TCP', async () => expectRefusals(await runTcp(reqs, ROOT_ARGS), reqs, 'tcp'));
  it('MCP', async () => expectRefusals(await runMcp(reqs, ROOT_ARGS), reqs, 'mcp'));
});

describe('inside the root (HTTP)', () => {
  let s: HttpServerProcess;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    // started elsewhere on purpose: relative paths start at the root, not the working folder
    s = await startHttpProcess(['--root', root], { LINEWORK_ROOT: '' }, { cwd: outside });
    c = client(s.port, s.token);
  });
  afterAll(async () => s?.proc.stop());

  it('relative paths resolve against the root; plot creates folders only there', async () => {
    const save = await c.post('/api/v1/save', { path: 'sub-saved.dxf' });
    expect(save.status, save.text).toBe(200);
    expect(existsSync(join(root, 'sub-saved.dxf'))).toBe(true);
    const plot = await c.post('/api/v1/plot', { path: 'sheets/new/{page}.svg', pages: 'all' });
    expect(plot.status, plot.text).toBe(200);
    expect(readdirSync(join(root, 'sheets', 'new'))).toContain('Model.svg');
    const open = await c.post('/api/v1/documents', { path: 'plan.dxf' });
    expect(open.status, open.text).toBe(201);
    expect(open.json.result.path).toBe(join(root, 'plan.dxf'));
  });

  it('a missing file inside answers file_not_found; outside, the same question answers path_outside_root', async () => {
    const inside = await c.post('/api/v1/documents', { path: 'nope.dxf' });
    expect([inside.status, inside.json.code]).toEqual([400, 'file_not_found']);
    for (const p of [join(outside, 'nope.dxf'), join(outside, 'drawing.dxf'), 'dangling.dxf']) {
      const r = await c.post('/api/v1/documents', { path: p });
      expect([r.status, r.json.code], p).toEqual([403, 'path_outside_root']);
    }
  });

  it('a file that is not a drawing is refused without quoting it', async () => {
    for (const p of ['notes.txt', 'secret-link.txt', '/etc/shadow']) {
      const r = await c.post('/api/v1/documents', { path: p });
      expect(r.json.ok, p).toBe(false);
      expect(r.text, p).not.toContain('very-secret');
      expect(r.text, p).not.toContain('root:');
    }
    const r = await c.post('/api/v1/documents', { path: 'notes.txt' });
    expect([r.status, r.json.code]).toEqual([400, 'invalid_dxf']);
    expect(r.json.error).toMatch(/line 1: expected a group code, found \d+ characters of text/);
    expect((await c.post('/api/v1/documents', {})).status).toBe(201);
    const img = await c.post('/api/v1/images', { path: 'notes.txt', insert: [0, 0] });
    expect([img.status, img.json.code]).toEqual([400, 'invalid_image']);
    expect(img.text).not.toContain('very-secret');
  });

  it('a FIFO is refused at once and every other request goes on', async () => {
    const t0 = Date.now();
    const [fifo, ready] = await Promise.all([c.post('/api/v1/documents', { path: 'pipe.dxf' }), c.get('/api/v1/ready')]);
    expect([fifo.status, fifo.json.code]).toEqual([400, 'not_a_file']);
    expect(ready.status).toBe(200);
    const save = await c.post('/api/v1/save', { path: 'pipe.dxf' });
    expect(save.json.code).toBe('not_a_file');
    const img = await c.post('/api/v1/images', { path: 'pipe.dxf', insert: [0, 0] });
    expect(img.json.code).toBe('not_a_file');
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('a save over a file keeps its mode; a killed save\'s temporary file is cleaned on the next save', async () => {
    const target = join(root, 'private.dxf');
    writeFileSync(target, DXF);
    chmodSync(target, 0o600);
    const stale = join(root, '.private.dxf.linework-999999-deadbeef.tmp');
    writeFileSync(stale, 'half a drawing');
    const save = await c.post('/api/v1/save', { path: 'private.dxf' });
    expect(save.status, save.text).toBe(200);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(existsSync(stale)).toBe(false);
    expect(readdirSync(root).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

describe('start-up', () => {
  it('removes the temporary files of dead writers from the roots', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lw-ws-start-'));
    try {
      const stale = join(dir, '.a.dxf.linework-999998-0badf00d.tmp');
      const foreign = join(dir, '.a.dxf.other-tool.tmp');
      writeFileSync(stale, 'x');
      writeFileSync(foreign, 'x');
      const s = await startHttpProcess(['--root', dir], { LINEWORK_ROOT: '' });
      await s.proc.stop();
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(foreign)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a root that is not a folder', async () => {
    const s = await import('./helpers.js').then((h) => h.spawnCli(['--http', '0', '--root', join(root, 'plan.dxf')]));
    const { code } = await s.exited;
    expect(code).toBe(2);
    expect(s.stderr()).toMatch(/workspace root .* is not a folder/);
  });

  it('graphical mode adds the folders of the files it opened', async () => {
    const other = mkdtempSync(join(tmpdir(), 'lw-ws-gui-'));
    try {
      writeFileSync(join(other, 'a.dxf'), DXF);
      const s = await startHttpProcess(['--root', root, join(other, 'a.dxf')], { LINEWORK_ROOT: '' });
      try {
        const c = client(s.port, s.token);
        expect((await c.post('/api/v1/save', { path: join(other, 'b.dxf') })).status).toBe(200);
        expect((await c.post('/api/v1/save', { path: 'c.dxf' })).status).toBe(200);
        expect(existsSync(join(root, 'c.dxf'))).toBe(true);
        const r = await c.post('/api/v1/save', { path: join(outside, 'd.dxf') });
        expect([r.status, r.json.code]).toEqual([403, 'path_outside_root']);
      } finally {
        await s.proc.stop();
      }
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('MCP without a working folder', () => {
  it('resolves relative paths against the workspace root, never /', async () => {
    const m = await startMcpClient({ cwd: '/', args: ['--root', root, '--tools', 'plot'] });
    try {
      const r = (await m.client.callTool({ name: 'plot', arguments: { action: 'plot', path: 'rel-out.pdf' } })) as any;
      expect(r.isError, JSON.stringify(r)).toBeFalsy();
      expect(existsSync(join(root, 'rel-out.pdf'))).toBe(true);
      expect(existsSync('/rel-out.pdf')).toBe(false);
      expect(readFileSync(join(root, 'rel-out.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    } finally {
      await m.close();
    }
  });
});
