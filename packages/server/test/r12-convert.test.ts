// `linework convert --version R12` as AutoCAD's SAVEAS R12: what R12 has no entity type for but
// can draw becomes an anonymous block of its geometry; the paper space kept is the one with
// content; header variables, attributes and lineweights R12 cannot hold are named; dimensions
// keep their text. Checked through the independent readers: ezdxf loads and audits the output
// (0 errors, 0 fixes) and LibreCAD draws it with the ink of the original (within 5 %).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from './helpers.js';

const PY = process.env.LINEWORK_PYTHON || '/usr/bin/python3';
const FIXTURE_SCRIPT = join(import.meta.dirname, 'r12_fixture.py');
const hasEzdxf = existsSync(PY) && spawnSync(PY, ['-c', 'import ezdxf'], { encoding: 'utf8' }).status === 0;
const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const canInk = has('librecad') && has('pdftoppm');
const corpus = process.env.LINEWORK_DXF_CORPUS && existsSync(process.env.LINEWORK_DXF_CORPUS) ? process.env.LINEWORK_DXF_CORPUS : null;

const dir = mkdtempSync(join(tmpdir(), 'lw-r12-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function convert(input: string, output: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'convert', input, output, '--version', 'R12'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** ezdxf's reading of an R12 output: audit, what each space holds, dimension texts and their blocks' texts. */
function ezdxfView(path: string): { errors: string[]; fixes: string[]; version: string; model: Record<string, number>; paper: Record<string, number>; blocks: Record<string, { flags: number; types: string[] }>; dims: { text: string; shown: string }[] } {
  const script = `
import json, sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
a = doc.audit()
def count(space):
    out = {}
    for e in space:
        out[e.dxftype()] = out.get(e.dxftype(), 0) + 1
    return out
blocks = {b.name: {"flags": b.block.dxf.flags, "types": [e.dxftype() for e in b]} for b in doc.blocks if b.name.upper().startswith("*U")}
dims = []
for d in doc.modelspace().query("DIMENSION"):
    blk = doc.blocks.get(d.dxf.geometry)
    shown = " ".join(e.dxf.text if e.dxftype() == "TEXT" else e.plain_text() for e in blk if e.dxftype() in ("TEXT", "MTEXT"))
    dims.append({"text": d.dxf.get("text", ""), "shown": shown})
print(json.dumps({"errors": [str(x.message) for x in a.errors], "fixes": [str(x.message) for x in a.fixes], "version": doc.dxfversion,
  "model": count(doc.modelspace()), "paper": count(doc.layout()), "blocks": blocks, "dims": dims}))
`;
  return JSON.parse(execFileSync(PY, ['-c', script, path], { encoding: 'utf8' }).trim().split('\n').pop()!);
}

/** Pixels of ink (grey below 230) in LibreCAD's drawing of a file, rasterised 400 px wide. */
function librecadInk(path: string): number {
  const local = join(dir, `ink-${Math.random().toString(36).slice(2)}.dxf`);
  copyFileSync(path, local);
  const r = spawnSync('librecad', ['dxf2pdf', '-a', local], { env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' }, timeout: 120_000, cwd: dir });
  const pdf = local.replace(/\.dxf$/, '.pdf');
  if (r.status !== 0 || !existsSync(pdf)) throw new Error(`LibreCAD did not draw ${path}`);
  const base = local.replace(/\.dxf$/, '');
  execFileSync('pdftoppm', ['-gray', '-r', '50', '-scale-to', '400', '-singlefile', pdf, base]);
  const pgm = readFileSync(`${base}.pgm`);
  // P5 header: magic, width, height, maxval, each followed by whitespace
  let at = 0;
  for (let fields = 0; fields < 4; fields++) {
    while (/\s/.test(String.fromCharCode(pgm[at]!))) at++;
    while (!/\s/.test(String.fromCharCode(pgm[at]!))) at++;
  }
  at++;
  let ink = 0;
  for (let i = at; i < pgm.length; i++) if (pgm[i]! < 230) ink++;
  return ink;
}

describe.skipIf(!hasEzdxf)('convert --version R12 (AutoCAD SAVEAS R12)', () => {
  const src = join(dir, 'r12_features.dxf');
  const out = join(dir, 'r12_features_r12.dxf');
  let stderr = '';
  beforeAll(async () => {
    execFileSync(PY, [FIXTURE_SCRIPT, src]);
    const r = await convert(src, out);
    stderr = r.stderr;
    expect(r.code, stderr).toBe(0);
  }, 120_000);

  it('draws what R12 has no type for: anonymous blocks (flags 1) of HATCH, WIPEOUT, MLINE, MULTILEADER, IMAGE; RAY/XLINE as LINEs; MESH as polyface', () => {
    for (const t of ['HATCH', 'WIPEOUT', 'MLINE', 'MULTILEADER']) expect(stderr).toMatch(new RegExp(`converted: \\d+ x ${t} -> INSERT of a block with its geometry`));
    expect(stderr).toMatch(/converted: 3 x HATCH -> /);
    expect(stderr).toMatch(/converted: 1 x IMAGE -> INSERT of a block with its frame/);
    expect(stderr).toMatch(/converted: 1 x RAY -> LINE within the extents/);
    expect(stderr).toMatch(/converted: 1 x XLINE -> LINE within the extents/);
    expect(stderr).toMatch(/converted: 1 x MESH -> polyface POLYLINE/);
    expect(stderr).not.toMatch(/dropped: \d+ (HATCH|WIPEOUT|MLINE|MULTILEADER|RAY|XLINE|MESH|IMAGE)\b/);
    const v = ezdxfView(out);
    expect(v.version).toBe('AC1009');
    expect(v.errors).toEqual([]);
    expect(v.fixes).toEqual([]);
    const anon = Object.values(v.blocks);
    expect(anon.length).toBe(7);
    for (const b of anon) expect(b.flags & 1).toBe(1);
    const all = anon.flatMap((b) => b.types);
    // pattern lines and fills (solid, gradient, wipeout mask), the MULTILEADER's text
    expect(all.filter((t) => t === 'LINE').length).toBeGreaterThan(20);
    expect(all.filter((t) => t === 'SOLID').length).toBeGreaterThanOrEqual(8 + 2 + 2);
    expect(all).toContain('TEXT');
    expect(v.model.INSERT).toBe(7);
    expect(v.model.LINE).toBe(2 + 2);
    expect(v.model.POLYLINE).toBe(1);
  });

  it('keeps the paper space with content (the active layout is empty) and says so', () => {
    expect(stderr).toMatch(/paper space of layout "Sheet" kept: the active layout is empty/);
    expect(stderr).toMatch(/dropped: 1 paper-space layout "Layout1"/);
    const v = ezdxfView(out);
    expect(v.paper).toEqual({ POLYLINE: 1, TEXT: 1, VIEWPORT: 1 });
  });

  it('names the header variables and attributes R12 cannot hold, and the lineweights, as AutoCAD drops them', () => {
    const header = /warning: (\d+) header variables R12 has no place for, left out: (.*)/.exec(stderr);
    expect(header).not.toBeNull();
    const names = header![2]!.split(', ');
    expect(names.length).toBe(Number(header![1]));
    for (const n of ['$DIMDEC', '$CELWEIGHT', '$LWDISPLAY', '$INSUNITS']) expect(names).toContain(n);
    expect(stderr).toMatch(/warning: 2 lineweights \(layers and entities\) left out: R12 has no lineweight/);
    expect(stderr).toMatch(/attributes R12 cannot hold, left out: .*LAYER lineweight \(370\) x1.*LINE lineweight \(370\) x1/);
    expect(stderr).toMatch(/DIMSTYLE DIMDEC \(271\) x2, /);
    expect(stderr).toMatch(/DIMSTYLE DIMLUNIT \(277\) x2, /);
  });

  it('dimensions show the text of the original (DIMDEC 2) as their override', () => {
    const v = ezdxfView(out);
    expect(v.dims.length).toBe(1);
    expect(v.dims[0]!.text).toMatch(/^33[.,]33$/);
    expect(v.dims[0]!.text).toBe(v.dims[0]!.shown);
  });

  it.skipIf(!canInk)('LibreCAD draws the R12 drawing with the ink of the original (within 5 %)', () => {
    const a = librecadInk(src);
    const b = librecadInk(out);
    expect(a).toBeGreaterThan(1000);
    expect(Math.abs(b - a) / a, `ink ${a} -> ${b}`).toBeLessThan(0.05);
  }, 240_000);
});

describe.skipIf(!hasEzdxf || !canInk || !corpus)('convert --version R12 on the corpus hatch files', () => {
  it('ezdxf__hatches_1.dxf: same ink in LibreCAD within 5 %, ezdxf audit clean', async () => {
    const src = join(corpus!, 'ezdxf__hatches_1.dxf');
    const out = join(dir, 'hatches_1_r12.dxf');
    const r = await convert(src, out);
    expect(r.code, r.stderr).toBe(0);
    const v = ezdxfView(out);
    expect(v.errors).toEqual([]);
    expect(v.fixes).toEqual([]);
    const a = librecadInk(src);
    const b = librecadInk(out);
    expect(Math.abs(b - a) / a, `ink ${a} -> ${b}`).toBeLessThan(0.05);
  }, 240_000);
});
