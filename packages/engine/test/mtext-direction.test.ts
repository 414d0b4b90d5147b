// Where an MTEXT turned by its text direction or mirrored by its extrusion lands, on screen (the
// `display_list` the editor draws) and in the plot (PNG pixels), against the reference geometry:
// AutoCAD's placement as ezdxf's drawing add-on and LibreCAD draw it (the corpus file
// ezdxf__mtext_complex_inline_codes.dxf). With the top-left attachment the text hangs from its
// insert along the text's own -y: text direction (-1, 0, 0) turns it upside down, so it runs left
// of the insert and stands above it; extrusion (0, 0, -1) without a direction keeps the WCS x axis
// and mirrors y, so it runs right and stands above.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dxf } from '../src/dxf.js';
import { Workspace } from '../src/index.js';
import { engine, ok } from './helpers.js';
import { add, decodePng, newDoc } from './render-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'lw-mtext-dir-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const INSERT = [100, 50] as const;
const H = 2.5;
const WIDTH = 40;

interface Case {
  name: string;
  attrs: Record<string, unknown>;
  /** Which side of the insert the text must lie on: x sign, y sign. */
  side: [number, number];
}

const CASES: Case[] = [
  { name: 'text direction (-1, 0, 0): upside down, left of and above the insert', attrs: { text_direction: [-1, 0, 0] }, side: [-1, 1] },
  { name: 'extrusion (0, 0, -1), no direction: mirrored, right of and above the insert', attrs: { extrusion: [0, 0, -1] }, side: [1, 1] },
  { name: 'no direction, no extrusion: as written, right of and below the insert', attrs: {}, side: [1, -1] },
];

/** A drawing: the MTEXT in red at INSERT, and black cross lines through INSERT (plot landmarks). */
async function drawing(c: Case, file: string): Promise<void> {
  const doc = await newDoc('AC1027');
  const [x, y] = INSERT;
  add(doc, 'LINE', { color: 7, start: [x - 80, y, 0], end: [x + 80, y, 0] });
  add(doc, 'LINE', { color: 7, start: [x, y - 80, 0], end: [x, y + 80, 0] });
  add(doc, 'MTEXT', { color: 1, insert: [x, y, 0], char_height: H, width: WIDTH, attachment_point: 1, text: 'First line of text\\PSecond line of text\\PThird', ...c.attrs });
  await dxf.saveDxf(doc, file);
}

/** Corners of every text record of the display list, in drawing units. */
function textCorners(list: any): [number, number][] {
  const out: [number, number][] = [];
  const [ox, oy] = list.origin as [number, number];
  for (const t of list.texts as any[]) {
    const cos = Math.cos(t.rotation), sin = Math.sin(t.rotation);
    const mx = t.mirror_x ? -1 : 1, my = t.mirror_y ? -1 : 1;
    const along: [number, number] = [cos * mx * t.width, sin * mx * t.width];
    const up: [number, number] = [-sin * my * t.height, cos * my * t.height];
    const x = t.x + ox, y = t.y + oy;
    out.push([x, y], [x + along[0], y + along[1]], [x + up[0], y + up[1]], [x + along[0] + up[0], y + along[1] + up[1]]);
  }
  return out;
}

/** The plot's red ink against the cross of lines: signs of (ink - cross) in drawing axes (y up). */
function plotSide(png: Buffer): [number, number] {
  const img = decodePng(png);
  const rows = new Array<number>(img.height).fill(0), cols = new Array<number>(img.width).fill(0);
  let rx = 0, ry = 0, n = 0;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const [r, g, b] = img.at(x, y);
      if (r < 220 && Math.max(r, g, b) - Math.min(r, g, b) < 40) {
        // grey to black: the lines (antialiased)
        rows[y]!++;
        cols[x]!++;
      } else if (r > 150 && g < 100 && b < 100) {
        rx += x;
        ry += y;
        n++;
      }
    }
  }
  expect(n, 'the text shows in the plot').toBeGreaterThan(20);
  const lineRow = rows.indexOf(Math.max(...rows));
  const lineCol = cols.indexOf(Math.max(...cols));
  return [Math.sign(rx / n - lineCol), Math.sign(lineRow - ry / n)];
}

/** ezdxf's box of the MTEXT (the reference), when LINEWORK_PYTHON has ezdxf. */
function ezdxfBox(file: string): [number, number, number, number] | null {
  const py = process.env.LINEWORK_PYTHON;
  if (!py) return null;
  const script = 'import sys, ezdxf\nfrom ezdxf import bbox\nd = ezdxf.readfile(sys.argv[1])\nb = bbox.extents(d.modelspace().query("MTEXT"), fast=True)\nprint(b.extmin.x, b.extmin.y, b.extmax.x, b.extmax.y)';
  const out = execFileSync(py, ['-c', script, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return out.trim().split(/\s+/).map(Number) as [number, number, number, number];
}

describe('MTEXT direction and extrusion: screen, plot and reference agree', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const file = join(dir, `${CASES.indexOf(c)}.dxf`);
      await drawing(c, file);
      const e = engine({ workspace: new Workspace([dir]) });
      await ok(e, 'document_open', { path: file });
      const [sx, sy] = c.side;
      const [x0, y0] = INSERT;
      const eps = 1e-6;

      // the editor's display list: every glyph box on the expected side of the insert, the first
      // baseline one text height from it, the text as wide as its lines (not more than the column)
      const list = await ok(e, 'display_list', {});
      const corners = textCorners(list);
      expect(corners.length).toBeGreaterThanOrEqual(12);
      for (const [x, y] of corners) {
        expect(sx * (x - x0)).toBeGreaterThan(-eps);
        expect(sy * (y - y0)).toBeGreaterThan(-eps);
      }
      const xs = corners.map((p) => Math.abs(p[0] - x0));
      expect(Math.max(...xs)).toBeGreaterThan(WIDTH / 4);
      expect(Math.max(...xs)).toBeLessThanOrEqual(WIDTH + eps);
      const first = (list.texts as any[])[0];
      expect(Math.abs(first.y + list.origin[1] - y0)).toBeCloseTo(H, 6);

      // the plot: the red text on the same side of the black cross
      await ok(e, 'plot', { path: join(dir, `${CASES.indexOf(c)}.png`), width: 600, height: 600, fit: true });
      expect(plotSide(readFileSync(join(dir, `${CASES.indexOf(c)}.png`)))).toEqual(c.side);

      // the reference: ezdxf's box of the same MTEXT lies on that side too
      const ref = ezdxfBox(file);
      if (ref) {
        const cx = (ref[0] + ref[2]) / 2, cy = (ref[1] + ref[3]) / 2;
        expect([Math.sign(cx - x0), Math.sign(cy - y0)]).toEqual(c.side);
        const ours = [Math.min(...corners.map((p) => p[0])), Math.min(...corners.map((p) => p[1])), Math.max(...corners.map((p) => p[0])), Math.max(...corners.map((p) => p[1]))];
        // the insert edge is shared exactly; the far edges differ by the fonts' widths only
        expect(sx > 0 ? ours[0] : ours[2]).toBeCloseTo(sx > 0 ? ref[0] : ref[2], 3);
        expect(sy > 0 ? ours[1] : ours[3]).toBeCloseTo(sy > 0 ? ref[1] : ref[3], 0);
      }
    });
  }
});
