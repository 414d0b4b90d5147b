// Work budgets over the real hosted server (issue 21): the real key service and the real
// `linework --http 0 --keys-url ...`, two organizations. Each hostile probe answers within 2 s
// (a budget error, or the work done without the offending entity), the server's RSS stays under
// 1 GB, and the other organization keeps being served. Fixtures are generated here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, spawnCli, type Spawned } from './helpers.js';
import { startKeysService, type KeysService } from './keys-service.js';

const SESSION_TOKEN = 'budget-session-token-0123456789';
const GB = 1024 ** 3;
let dir: string;
let root: string;
let keys: KeysService;
let lw: Spawned;
let port: number;
const k = { acmeAll: '', acmeRead: '', betaAll: '' };

function tags(pairs: [number, string | number][]): string {
  return pairs.map(([c, v]) => `${c}\n${v}\n`).join('');
}

/** A minimal DXF file in an organization's folder: BLOCKS and ENTITIES (the reader repairs the rest). */
function dxfFile(org: string, name: string, blocks: string, entities: string): string {
  mkdirSync(join(root, org), { recursive: true });
  writeFileSync(join(root, org, name), tags([[0, 'SECTION'], [2, 'BLOCKS']]) + blocks + tags([[0, 'ENDSEC'], [0, 'SECTION'], [2, 'ENTITIES']]) + entities + tags([[0, 'ENDSEC'], [0, 'EOF']]));
  return name;
}

const LINE = tags([[0, 'LINE'], [8, '0'], [10, 0], [20, 0], [30, 0], [11, 1], [21, 1], [31, 0]]);
const BLOCK_B = tags([[0, 'BLOCK'], [8, '0'], [2, 'B'], [70, 0], [10, 0], [20, 0], [30, 0], [3, 'B']]) + LINE + tags([[0, 'ENDBLK'], [8, '0']]);
const MINSERT = tags([[0, 'INSERT'], [8, '0'], [2, 'B'], [10, 0], [20, 0], [30, 0], [70, 1_000_000], [71, 1_000_000], [44, 2], [45, 2]]);

function nestedMText(depth: number): string {
  const text = '{\\H2;'.repeat(depth) + 'x' + '}'.repeat(depth);
  const pairs: [number, string | number][] = [[0, 'MTEXT'], [8, '0'], [10, 0], [20, 0], [30, 0], [40, 2.5]];
  for (let i = 0; i < text.length; i += 250) pairs.push([i + 250 < text.length ? 3 : 1, text.slice(i, i + 250)]);
  return tags(pairs);
}

function bigSpline(degree: number, n: number): string {
  const pairs: [number, string | number][] = [[0, 'SPLINE'], [8, '0'], [100, 'AcDbEntity'], [100, 'AcDbSpline'], [70, 8], [71, degree], [72, n + degree + 1], [73, n], [74, 0]];
  for (let i = 0; i < n + degree + 1; i++) pairs.push([40, Math.min(Math.max(i - degree, 0), n - degree)]);
  for (let i = 0; i < n; i++) pairs.push([10, i], [20, Math.sin(i)], [30, 0]);
  return tags(pairs);
}

/** The server process's resident set, from /proc. */
function rss(proc: Spawned): number {
  const status = readFileSync(`/proc/${proc.child.pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) * 1024;
}

async function startLinework(env: Record<string, string> = {}): Promise<{ proc: Spawned; port: number }> {
  const proc = spawnCli(['--http', '0', '--root', root, '--keys-url', keys.url], { SERVICE_API_TOKEN: SESSION_TOKEN, LINEWORK_ROOT: '', ...env });
  const p = Number((await proc.waitStderr(/^http:\/\/127\.0\.0\.1:(\d+)\/api\/v1$/m))[1]);
  await proc.waitStderr(/^api keys: /m);
  return { proc, port: p };
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const r = await fn();
  return [r, performance.now() - t];
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lw-budgets-e2e-'));
  root = join(dir, 'drawings');
  mkdirSync(root);
  keys = await startKeysService(dir);
  const acme = keys.token('alice', 'acme');
  const beta = keys.token('bob', 'beta');
  k.acmeAll = (await keys.createKey(acme, { name: 'all', permissions: ['*'] })).rawKey;
  k.acmeRead = (await keys.createKey(acme, { name: 'read', permissions: ['drawings:read'] })).rawKey;
  k.betaAll = (await keys.createKey(beta, { name: 'all', permissions: ['*'] })).rawKey;
  const s = await startLinework();
  lw = s.proc;
  port = s.port;
});

afterAll(async () => {
  await lw?.stop();
  await keys?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const as = (key: string) => client(port, key);

describe('work budgets over HTTP with API keys', () => {
  it('POST /plot of a 5000 x 5000 mm PNG at 2400 dpi: 400 budget_exceeded at once, nothing allocated', async () => {
    const acme = as(k.acmeAll);
    expect((await acme.post('/api/v1/entities', { entities: [{ type: 'Line', start: [0, 0], end: [10, 10] }] })).status).toBe(201);
    const [r, ms] = await timed(() => acme.post('/api/v1/plot', { path: 'huge.png', paper: '5000x5000', dpi: 2400 }));
    expect(ms).toBeLessThan(2000);
    expect(r.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(r.json).toMatchObject({ ok: false, code: 'budget_exceeded', details: { budget: 'plot_pixels', limit: 100_000_000 }, http_status: 400 });
    expect(r.json.error).toContain('100000000');
    expect(rss(lw)).toBeLessThan(GB);
    // the other organization is served as before
    expect((await as(k.betaAll).get('/api/v1/ready')).status).toBe(200);
    // within the budget a PNG is made (and the rasteriser, loaded on the first one, is ready for the timings below)
    const small = await acme.post('/api/v1/plot', { path: 'small.png', width: 200 });
    expect(small.status, small.text).toBe(200);
    expect(small.json.result.pages[0].pixels.width).toBe(200);
  });

  it('a DXF with a 1e6 x 1e6 MINSERT opens and plots within 2 s; set_properties to such an array is refused', async () => {
    const acme = as(k.acmeAll);
    const name = dxfFile('acme', 'minsert.dxf', BLOCK_B, MINSERT);
    const [opened, openMs] = await timed(() => acme.post('/api/v1/documents', { path: name }));
    expect(openMs).toBeLessThan(2000);
    expect(opened.status, opened.text).toBe(201);
    const [plotted, plotMs] = await timed(() => acme.post('/api/v1/plot', { path: 'minsert.png' }));
    expect(plotMs).toBeLessThan(2000);
    expect(plotted.status, plotted.text).toBe(200);
    expect(plotted.json.result.skipped).toEqual({ 'INSERT(over the expanded_entities budget)': 1 });
    const list = await acme.get('/api/v1/entities?type=INSERT');
    const handle = list.json.entities[0].handle as string;
    // a plain insert made through the API, then turned into a huge array: refused, unchanged
    const made = await acme.post('/api/v1/entities', { create_layers: true, entities: [{ type: 'Insert', name: 'B', position: [0, 0] }] });
    expect(made.status, made.text).toBe(201);
    const version = made.json.version;
    const [r, ms] = await timed(() => acme.post('/api/v1/set_properties', { handles: made.json.result.handles, properties: { row_count: 1_000_000, column_count: 1_000_000 } }));
    expect(ms).toBeLessThan(2000);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'budget_exceeded', details: { budget: 'expanded_entities', limit: 1_000_000, requested: 1e12 } });
    expect((await acme.get('/api/v1/state')).json.version ?? version).toBe(version);
    expect(handle).toBeTruthy();
    expect(rss(lw)).toBeLessThan(GB);
  });

  it('nested blocks through the API (six levels of ten inserts, then ten of the top): POST /entities answers within 2 s', async () => {
    const acme = as(k.acmeAll);
    expect((await acme.post('/api/v1/documents', {})).status).toBe(201);
    const lines = await acme.post('/api/v1/entities', { entities: Array.from({ length: 10 }, (_, i) => ({ type: 'Line', start: [i, 0], end: [i, 1] })) });
    expect((await acme.post('/api/v1/blocks', { name: 'L1', handles: lines.json.result.handles })).status).toBe(201);
    for (let level = 2; level <= 6; level++) {
      const ins = await acme.post('/api/v1/entities', { entities: Array.from({ length: 10 }, (_, i) => ({ type: 'Insert', name: `L${level - 1}`, position: [i * 20 ** (level - 1), 0] })) });
      expect(ins.status, ins.text).toBe(201);
      expect((await acme.post('/api/v1/blocks', { name: `L${level}`, handles: ins.json.result.handles })).status).toBe(201);
    }
    const beta = as(k.betaAll);
    const [[r, ready], ms] = await timed(() => Promise.all([
      acme.post('/api/v1/entities', { entities: Array.from({ length: 10 }, (_, i) => ({ type: 'Insert', name: 'L6', position: [0, i * 100] })) }),
      beta.get('/api/v1/ready'),
    ]));
    expect(ms).toBeLessThan(2000);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'budget_exceeded', details: { budget: 'expanded_entities', requested: 1_111_110 } });
    expect(ready.status).toBe(200);
    // the display list of what is there is bounded too
    const [dl, dlMs] = await timed(() => acme.post('/api/v1/display_list', {}));
    expect(dl.status, dl.text).toBe(200);
    expect(dlMs).toBeLessThan(2000);
    expect(rss(lw)).toBeLessThan(GB);
  });

  it('hostile MTEXT and SPLINE files open and plot quickly, the offending entity left out and named', async () => {
    const acme = as(k.acmeAll);
    dxfFile('acme', 'mtext.dxf', '', nestedMText(20_000));
    expect((await acme.post('/api/v1/documents', { path: 'mtext.dxf' })).status).toBe(201);
    const [m, mMs] = await timed(() => acme.post('/api/v1/plot', { path: 'mtext.png' }));
    expect(mMs).toBeLessThan(1000);
    expect(m.json.result.skipped).toEqual({ 'MTEXT(over the mtext_depth budget)': 1 });
    dxfFile('acme', 'spline.dxf', '', bigSpline(11, 200_000));
    expect((await acme.post('/api/v1/documents', { path: 'spline.dxf' })).status).toBe(201);
    const [s, sMs] = await timed(() => acme.post('/api/v1/plot', { path: 'spline.png' }));
    expect(sMs).toBeLessThan(1000);
    expect(s.json.result.skipped).toEqual({ 'SPLINE(over the spline_points budget)': 1 });
  });

  it('a read-only key\'s 50 opens stop at the budget: 409 session_full; the other organization and the local session are apart', async () => {
    dxfFile('acme', 'small.dxf', '', LINE);
    const read = as(k.acmeRead);
    const statuses: number[] = [];
    let refusal: { code?: string; details?: { budget: string; limit: number }; error?: string } | null = null;
    for (let i = 0; i < 50; i++) {
      const r = await read.post('/api/v1/documents', { path: 'small.dxf' });
      statuses.push(r.status);
      if (r.status !== 201) refusal = r.json;
    }
    expect(statuses[0]).toBe(201);
    expect(statuses.filter((st) => st === 201).length).toBeLessThan(32);
    expect(statuses.at(-1)).toBe(409);
    expect(refusal).toMatchObject({ code: 'session_full', details: { budget: 'session_documents', limit: 32 } });
    expect(refusal!.error).toContain('32');
    // another organization's session has its own budget
    dxfFile('beta', 'small.dxf', '', LINE);
    expect((await as(k.betaAll).post('/api/v1/documents', { path: 'small.dxf' })).status).toBe(201);
    // and so has the session token's
    const local = client(port, SESSION_TOKEN);
    const localStatuses: number[] = [];
    for (let i = 0; i < 50; i++) localStatuses.push((await local.post('/api/v1/documents', { path: 'acme/small.dxf' })).status);
    expect(localStatuses[0]).toBe(201);
    expect(localStatuses.at(-1)).toBe(409);
    expect(rss(lw)).toBeLessThan(GB);
  });
});

describe('the deadline per request', () => {
  it('a request past LINEWORK_REQUEST_TIMEOUT_MS answers 503 deadline_exceeded and leaves the document as it was', async () => {
    // 1 ms: 100k lines take far longer on any machine, so the refusal does not hang on timing;
    // the reads that follow check nothing per entity on an empty drawing.
    const s = await startLinework({ LINEWORK_REQUEST_TIMEOUT_MS: '1' });
    try {
      // An organization of its own: the others' sessions come back with the drawings of the tests before.
      const gammaKey = (await keys.createKey(keys.token('carol', 'gamma'), { name: 'all', permissions: ['*'] })).rawKey;
      const gamma = client(s.port, gammaKey);
      const entities = Array.from({ length: 100_000 }, (_, i) => ({ type: 'Line', start: [i, 0], end: [i, 1] }));
      const r = await gamma.post('/api/v1/entities', { entities });
      expect(r.statusLine).toBe('HTTP/1.1 503 Service Unavailable');
      expect(r.json).toMatchObject({ ok: false, code: 'deadline_exceeded', details: { budget: 'request_ms', limit: 1 }, http_status: 503 });
      const after = await gamma.get('/api/v1/entities');
      expect(after.json.count, after.text.slice(0, 300)).toBe(0);
      const state = await gamma.get('/api/v1/state');
      expect(state.json.version, state.text.slice(0, 300)).toBe(0);
      // the session token's session has the same deadline
      const local = client(s.port, SESSION_TOKEN);
      const localRes = await local.post('/api/v1/entities', { entities });
      expect(localRes.json?.code, localRes.statusLine + ' ' + localRes.text.slice(0, 300)).toBe('deadline_exceeded');
      expect((await local.get('/api/v1/entities')).json.count).toBe(0);
    } finally {
      await s.proc.stop();
    }
  });
});
