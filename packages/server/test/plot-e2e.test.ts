// Output routes of the REAL server process (`linework --http 0`, built bin): POST /plot (PDF, SVG,
// PNG, one file per page with {page}), POST /wblock (ezdxf audits the written drawing), POST
// /images (201, then the IMAGE is readable), PUT /layouts/{layout}/page-setup feeding the plot,
// POST /preview (passthrough), and the `linework plot` subcommand.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, ROOT, spawnCli, startHttpProcess, type HttpServerProcess } from './helpers.js';

const PY = process.env.LINEWORK_PYTHON || '/usr/bin/python3';
const ezdxf = existsSync(PY) && spawnSync(PY, ['-c', 'import ezdxf'], { stdio: 'ignore' }).status === 0;

let s: HttpServerProcess;
let c: ReturnType<typeof client>;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'linework-plot-e2e-'));
  s = await startHttpProcess();
  c = client(s.port, s.token);
});
afterAll(async () => {
  await s?.proc.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The server runs in the repository root: a path relative to it, pointing into the temp folder. */
const rel = (name: string): string => relative(ROOT, join(dir, name));

function pngSize(buf: Buffer): [number, number] {
  expect(buf.subarray(1, 4).toString('latin1')).toBe('PNG');
  return [buf.readUInt32BE(16), buf.readUInt32BE(20)];
}

function audit(file: string): { errors: number; fixes: number; messages: string[]; entities: number } {
  const script = 'import ezdxf, json, sys\ndoc = ezdxf.readfile(sys.argv[1])\na = doc.audit()\n' +
    'print(json.dumps({"errors": len(a.errors), "fixes": len(a.fixes), "messages": [str(x.message) for x in a.errors + a.fixes], "entities": len(doc.modelspace())}))';
  const r = spawnSync(PY, ['-c', script, file], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

let handles: string[] = [];

describe('drawing to plot', () => {
  it('creates entities, a block and two layouts with page setups', async () => {
    await c.post('/api/v1/documents', {});
    const r = await c.post('/api/v1/entities', {
      create_layers: true,
      entities: [
        { type: 'Line', start: [0, 0], end: [200, 0], layer: 'Walls' },
        { type: 'Line', start: [200, 0], end: [200, 100], layer: 'Walls' },
        { type: 'Circle', center: [100, 50], radius: 30, layer: 'Doors' },
        { type: 'Text', value: 'PLAN', position: [10, 80], height: 8 },
      ],
    });
    expect(r.status, r.text).toBe(201);
    handles = r.json.result.handles;
    expect((await c.post('/api/v1/layouts', { name: 'Sheet A' })).status).toBe(201);
    expect((await c.post('/api/v1/layouts', { name: 'Sheet B' })).status).toBe(201);
    const ps = await c.put('/api/v1/layouts/Sheet%20A/page-setup', { paper: 'A3', orientation: 'landscape', fit: true, center: true });
    expect(ps.status, ps.text).toBe(200);
    expect(ps.json.result).toMatchObject({ layout: 'Sheet A', paper: 'A3', orientation: 'landscape', scale: { fit: true } });
    const bad = await c.put('/api/v1/layouts/Nope/page-setup', { paper: 'A3' });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('unknown_layout');
  });
});

describe('POST /plot', () => {
  it('writes PDF, SVG and PNG (format from the extension or given)', async () => {
    const pdf = await c.post('/api/v1/plot', { path: rel('model.pdf') });
    expect(pdf.status, pdf.text).toBe(200);
    expect(pdf.json).toMatchObject({ ok: true, http_status: 200, result: { format: 'pdf', files: [join(dir, 'model.pdf')], pages: [{ layout: 'Model' }] } });
    expect(pdf.json).not.toHaveProperty('state');
    expect(readFileSync(join(dir, 'model.pdf')).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const svg = await c.post('/api/v1/plot', { path: join(dir, 'model.out'), format: 'svg' });
    expect(svg.status, svg.text).toBe(200);
    expect(readFileSync(join(dir, 'model.out'), 'utf8')).toMatch(/<svg[\s>]/);
    const png = await c.post('/api/v1/plot', { path: join(dir, 'model.png'), width: 800 });
    expect(png.status, png.text).toBe(200);
    expect(pngSize(readFileSync(join(dir, 'model.png')))[0]).toBe(800);
    expect(png.json.result.pages[0].pixels.width).toBe(800);
  });

  it('writes one file per page when the path holds {page}; the page setup sets the paper', async () => {
    const layouts: string[] = (await c.post('/api/v1/layout_list', {})).json.result.layouts;
    expect(layouts).toEqual(expect.arrayContaining(['Model', 'Sheet A', 'Sheet B']));
    const r = await c.post('/api/v1/plot', { path: join(dir, 'set-{page}.pdf'), pages: 'all' });
    expect(r.status, r.text).toBe(200);
    const files = layouts.map((l) => join(dir, `set-${l}.pdf`));
    expect(r.json.result.files).toEqual(files);
    for (const f of files) expect(existsSync(f), f).toBe(true);
    const a3 = r.json.result.pages.find((p: { layout: string }) => p.layout === 'Sheet A');
    expect(a3).toMatchObject({ paper: 'A3', width: 420, height: 297 });
    const pngs = await c.post('/api/v1/plot', { path: rel('sheet-{page}.png'), pages: ['Sheet A', 'Sheet B'], dpi: 50 });
    expect(pngs.status, pngs.text).toBe(200);
    expect(pngs.json.result.files).toEqual([join(dir, 'sheet-Sheet A.png'), join(dir, 'sheet-Sheet B.png')]);
    const [w, h] = pngSize(readFileSync(join(dir, 'sheet-Sheet A.png')));
    expect(Math.abs(w - Math.round((420 / 25.4) * 50))).toBeLessThanOrEqual(1);
    expect(Math.abs(h - Math.round((297 / 25.4) * 50))).toBeLessThanOrEqual(1);
    const svgs = await c.post('/api/v1/plot', { path: join(dir, 'p-{page}.svg'), pages: 'all' });
    expect(svgs.json.result.files).toHaveLength(layouts.length);
  });

  it('answers unknown_layout and invalid_request with 400', async () => {
    const r = await c.post('/api/v1/plot', { path: join(dir, 'no.pdf'), layout: 'Nope' });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ ok: false, code: 'unknown_layout' });
    const many = await c.post('/api/v1/plot', { path: join(dir, 'no.svg'), pages: 'all' });
    expect(many.json.code).toBe('invalid_request');
    expect(existsSync(join(dir, 'no.pdf'))).toBe(false);
  });
});

describe('POST /wblock', () => {
  it('writes a drawing that ezdxf audits with no errors and no fixes', async () => {
    const r = await c.post('/api/v1/wblock', { path: rel('part.dxf'), handles: [handles[0], handles[2]], base: [100, 50] });
    expect(r.status, r.text).toBe(200);
    expect(r.json.result).toMatchObject({ path: join(dir, 'part.dxf'), count: 2 });
    const text = readFileSync(join(dir, 'part.dxf'), 'utf8');
    expect(text).toMatch(/\nWalls\r?\n/);
    expect(text).toMatch(/\nDoors\r?\n/);
    if (ezdxf) {
      const a = audit(join(dir, 'part.dxf'));
      expect(a.messages).toEqual([]);
      expect([a.errors, a.fixes, a.entities]).toEqual([0, 0, 2]);
    }
  });

  it('writes a block definition; unknown handles and blocks answer 404 / 400', async () => {
    const def = await c.post('/api/v1/blocks', { name: 'DOOR', handles: [handles[2]], base: [100, 50], replace: true });
    expect(def.status, def.text).toBe(201);
    const r = await c.post('/api/v1/wblock', { path: join(dir, 'door.dxf'), block: 'DOOR' });
    expect(r.status, r.text).toBe(200);
    expect(r.json.result.count).toBe(1);
    if (ezdxf) expect(audit(join(dir, 'door.dxf'))).toMatchObject({ errors: 0, fixes: 0, entities: 1 });
    const whole = await c.post('/api/v1/wblock', { path: join(dir, 'whole.dxf') });
    expect(whole.status, whole.text).toBe(200);
    if (ezdxf) expect(audit(join(dir, 'whole.dxf'))).toMatchObject({ errors: 0, fixes: 0, entities: whole.json.result.count });
    const absent = await c.post('/api/v1/wblock', { path: join(dir, 'x.dxf'), handles: ['FFFFFF'] });
    expect(absent.status).toBe(404);
    expect(absent.json.code).toBe('entity_absent');
    const nob = await c.post('/api/v1/wblock', { path: join(dir, 'x.dxf'), block: 'NOPE' });
    expect(nob.status).toBe(400);
    expect(nob.json.code).toBe('unknown_block');
    expect(existsSync(join(dir, 'x.dxf'))).toBe(false);
  });
});

describe('POST /images', () => {
  it('answers 201 with the handle; GET /entities/{handle} shows the Image; undo removes it', async () => {
    const file = join(dir, 'logo.png');
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="32"><rect width="64" height="32" fill="#123456"/></svg>';
    writeFileSync(file, new Resvg(svg).render().asPng());
    const r = await c.post('/api/v1/images', { path: rel('logo.png'), insert: [10, 10], width: 40 });
    expect(r.status, r.text).toBe(201);
    expect(r.statusLine).toBe('HTTP/1.1 201 Created');
    const h = r.json.result.handle;
    expect(r.json.result).toMatchObject({ handle: expect.any(String), pixels: [64, 32], size: [40, 20] });
    const got = await c.get(`/api/v1/entities/${h}`);
    expect(got.status).toBe(200);
    expect(got.json.entities[0]).toMatchObject({ handle: h, type: 'Image' });
    // the plot draws it
    const plotted = await c.post('/api/v1/plot', { path: join(dir, 'with-image.svg') });
    expect(readFileSync(join(dir, 'with-image.svg'), 'utf8')).toMatch(/<image [^>]*href="data:image\/png;base64,/);
    expect(plotted.status).toBe(200);
    expect((await c.post('/api/v1/undo', {})).status).toBe(200);
    expect((await c.get(`/api/v1/entities/${h}`)).status).toBe(404);
  });

  it('answers file_not_found and invalid_image with 400', async () => {
    const missing = await c.post('/api/v1/images', { path: join(dir, 'none.png'), insert: [0, 0] });
    expect(missing.status).toBe(400);
    expect(missing.json.code).toBe('file_not_found');
    writeFileSync(join(dir, 'bad.png'), 'text, not pixels');
    const bad = await c.post('/api/v1/images', { path: join(dir, 'bad.png'), insert: [0, 0] });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('invalid_image');
  });
});

describe('POST /preview', () => {
  it('answers a base64 PNG of the asked size', async () => {
    const r = await c.post('/api/v1/preview', { width: 300, height: 200 });
    expect(r.status, r.text).toBe(200);
    expect(r.json.result).toMatchObject({ format: 'png', mime_type: 'image/png', width: 300, height: 200 });
    expect(pngSize(Buffer.from(r.json.result.data, 'base64'))).toEqual([300, 200]);
  });
});

describe('linework plot', () => {
  it('plots a saved drawing from the command line', async () => {
    const dxfFile = join(dir, 'cli.dxf');
    // an image too: the PDF embeds its pixels
    expect((await c.post('/api/v1/images', { path: rel('logo.png'), insert: [10, 10], width: 40 })).status).toBe(201);
    expect((await c.post('/api/v1/save', { path: dxfFile })).status).toBe(200);
    for (const [out, extra] of [['cli.pdf', []], ['cli-all.pdf', ['--all']], ['cli.svg', ['--paper', 'A3']], ['cli-{page}.png', ['--all', '--dpi', '30']]] as const) {
      const p = spawnCli(['plot', dxfFile, join(dir, out), ...extra]);
      const { code } = await p.exited;
      expect(code, p.stderr()).toBe(0);
      expect(p.stdout()).toContain(join(dir, out.replace('{page}', 'Model')));
    }
    const pdf = readFileSync(join(dir, 'cli.pdf')).toString('latin1');
    expect(pdf.startsWith('%PDF-')).toBe(true);
    expect(pdf).toMatch(/\/Subtype \/Image/);
    expect(pdf).toMatch(/\/FontFile2/);
    const pages = readFileSync(join(dir, 'cli-all.pdf')).toString('latin1').match(/\/Type \/Page\b(?!s)/g) ?? [];
    expect(pages).toHaveLength((await c.post('/api/v1/layout_list', {})).json.result.layouts.length);
    expect(readFileSync(join(dir, 'cli.svg'), 'utf8')).toMatch(/width="420mm"/);
    expect(existsSync(join(dir, 'cli-Sheet A.png'))).toBe(true);
    const bad = spawnCli(['plot', join(dir, 'cli.dxf')]);
    expect((await bad.exited).code).toBe(2);
    expect(bad.stderr()).toMatch(/usage: linework plot/);
  });
});
