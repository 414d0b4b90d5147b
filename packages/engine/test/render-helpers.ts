// Shared helpers of the renderer and plot tests: drawings built with newDocument + addEntity, a
// tiny PNG decoder (node:zlib) for pixel checks, PDF page boxes, the ezdxf audit and the corpus.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import * as dxfPkg from '@linework/dxf';
import type { DocumentApi, Entity } from '../src/dxf.js';

/** Makes sure the typed entity declarations are registered (the reader imports them itself once wired). */
export async function ensureEntityDefs(): Promise<void> {
  const pkg = dxfPkg as unknown as { getDef?: (t: string) => unknown };
  if (pkg.getDef && !pkg.getDef('LINE')) {
    // stopgap while @linework/dxf's index does not import its entity declarations yet
    await import('../../dxf/src/entities/index.js' as string);
  }
}

export async function newDoc(version?: string): Promise<DocumentApi> {
  await ensureEntityDefs();
  const fn = (dxfPkg as unknown as { newDocument: (v?: string) => DocumentApi }).newDocument;
  return fn(version);
}

export async function readDoc(path: string): Promise<DocumentApi> {
  await ensureEntityDefs();
  const fn = (dxfPkg as unknown as { readDxf: (p: string) => Promise<DocumentApi> }).readDxf;
  return fn(path);
}

export function ent(type: string, attrs: Record<string, unknown>, children?: Entity[]): Entity {
  const e: Entity = { kind: 'entity', type, handle: '', owner: '', attrs: { layer: '0', ...attrs } };
  if (children) e.children = children;
  return e;
}

export function add(doc: DocumentApi, type: string, attrs: Record<string, unknown>, block?: string): Entity {
  return doc.addEntity(ent(type, attrs), block);
}

export interface DecodedPng {
  width: number;
  height: number;
  /** RGBA, 4 bytes per pixel. */
  data: Uint8Array;
  at(x: number, y: number): [number, number, number, number];
}

/** Decodes an 8-bit RGB/RGBA (non-interlaced) PNG. */
export function decodePng(buf: Buffer): DecodedPng {
  let pos = 8;
  let width = 0;
  let height = 0;
  let colorType = 6;
  const idat: Buffer[] = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    const body = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      colorType = body[9]!;
      if (body[8] !== 8 || body[12] !== 0) throw new Error('only 8-bit non-interlaced PNG');
    } else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
    pos += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : colorType === 2 ? 3 : colorType === 4 ? 2 : 1;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = new Uint8Array(width * height * 4);
  const prev = new Uint8Array(stride);
  const cur = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? cur[i - bpp]! : 0;
      const b = prev[i]!;
      const c = i >= bpp ? prev[i - bpp]! : 0;
      let v = line[i]!;
      if (f === 1) v += a;
      else if (f === 2) v += b;
      else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      cur[i] = v & 255;
    }
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      if (bpp >= 3) {
        out[o] = cur[x * bpp]!;
        out[o + 1] = cur[x * bpp + 1]!;
        out[o + 2] = cur[x * bpp + 2]!;
        out[o + 3] = bpp === 4 ? cur[x * bpp + 3]! : 255;
      } else {
        out[o] = out[o + 1] = out[o + 2] = cur[x * bpp]!;
        out[o + 3] = bpp === 2 ? cur[x * bpp + 1]! : 255;
      }
    }
    prev.set(cur);
  }
  return {
    width, height, data: out,
    at(x: number, y: number) {
      const o = (Math.round(y) * width + Math.round(x)) * 4;
      return [out[o]!, out[o + 1]!, out[o + 2]!, out[o + 3]!];
    },
  };
}

/** Bounding box of non-white pixels (threshold on the darkest channel), or null. */
export function inkBox(img: DecodedPng, threshold = 200): { minX: number; minY: number; maxX: number; maxY: number } | null {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const o = (y * img.width + x) * 4;
      if (Math.min(img.data[o]!, img.data[o + 1]!, img.data[o + 2]!) < threshold) {
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y < minY) minY = y;
        if (y > maxY) maxY = y;
      }
    }
  }
  return minX <= maxX ? { minX, minY, maxX, maxY } : null;
}

/** Fraction of inked pixels per cell of an n x n grid over the given box. */
export function inkGrid(img: DecodedPng, box: { minX: number; minY: number; maxX: number; maxY: number }, n: number, threshold = 200): number[] {
  const cells = new Array<number>(n * n).fill(0);
  const counts = new Array<number>(n * n).fill(0);
  const w = box.maxX - box.minX + 1;
  const h = box.maxY - box.minY + 1;
  for (let y = box.minY; y <= box.maxY; y++) {
    for (let x = box.minX; x <= box.maxX; x++) {
      const cx = Math.min(n - 1, Math.floor(((x - box.minX) / w) * n));
      const cy = Math.min(n - 1, Math.floor(((y - box.minY) / h) * n));
      const o = (y * img.width + x) * 4;
      counts[cy * n + cx]!++;
      if (Math.min(img.data[o]!, img.data[o + 1]!, img.data[o + 2]!) < threshold) cells[cy * n + cx]!++;
    }
  }
  return cells.map((c, i) => c / Math.max(1, counts[i]!));
}

/** MediaBox of every page of a PDF ([w, h] in points), by scanning the file. */
export function pdfPageBoxes(pdf: Buffer): [number, number][] {
  const s = pdf.toString('latin1');
  const out: [number, number][] = [];
  const re = /\/Type \/Page\b[^s][\s\S]*?\/MediaBox \[([^\]]+)\]/g;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    const v = m[1]!.trim().split(/\s+/).map(Number);
    out.push([v[2]! - v[0]!, v[3]! - v[1]!]);
  }
  return out;
}

export const PYTHON = '/usr/bin/python3';

export function hasEzdxf(): boolean {
  return existsSync(PYTHON) && spawnSync(PYTHON, ['-c', 'import ezdxf'], { encoding: 'utf8' }).status === 0;
}

/** ezdxf's audit of a file: errors and fixes, plus entity counts by type in model space. */
export function ezdxfAudit(path: string): { errors: string[]; fixes: number; types: Record<string, number>; layers: string[]; blocks: string[]; ltypes: string[]; styles: string[]; appids: string[] } {
  const script = `
import json, sys, ezdxf
doc = ezdxf.readfile(sys.argv[1])
a = doc.audit()
types = {}
for e in doc.modelspace():
    types[e.dxftype()] = types.get(e.dxftype(), 0) + 1
print(json.dumps({
  "errors": [str(x.message) for x in a.errors], "fixes": len(a.fixes), "types": types,
  "layers": sorted(l.dxf.name for l in doc.layers),
  "blocks": sorted(b.name for b in doc.blocks if not b.name.lower().startswith(('*model_space', '*paper_space'))),
  "ltypes": sorted(l.dxf.name for l in doc.linetypes), "styles": sorted(s.dxf.name for s in doc.styles),
  "appids": sorted(a.dxf.name for a in doc.appids),
}))
`;
  const out = execFileSync(PYTHON, ['-c', script, path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return JSON.parse(out.trim().split('\n').pop()!);
}

export function hasCommand(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;
}

/** The DXF corpus folder from LINEWORK_DXF_CORPUS, or null when unset / missing. */
export function corpusDir(): string | null {
  const d = process.env.LINEWORK_DXF_CORPUS;
  return d && existsSync(d) ? d : null;
}

export function corpusFiles(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.toLowerCase().endsWith('.dxf')).sort().map((f) => join(dir, f));
}
