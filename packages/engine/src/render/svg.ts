// SVG back end: one <g> per layer (id + data-layer), polylines merged into <path>s per run of equal
// style, fills as even-odd <path>s, text as <text> in DejaVu Sans, images as data-URI <image>s,
// viewport and image clips as <clipPath>s. Coordinates are display units inside one transformed group.
import { readFileSync } from 'node:fs';
import { rgbHex } from './colors.js';
import type { Prim, TextPrim } from './display-list.js';
import { FONT_FAMILY } from './font.js';
import type { Page } from './page.js';
import { paperScale } from './page.js';

export interface SvgOptions {
  /** Thinnest stroke, in mm of paper (raster output raises it to about one pixel). */
  minLineweight?: number;
  /** Scale lineweights (1 = as plotted). */
  lineweightScale?: number;
  /** Explicit width/height attributes (e.g. "800" px); default the paper size in mm. */
  pixelWidth?: number;
  pixelHeight?: number;
  /** Image bytes by path, shared between pages (filled on demand). */
  imageCache?: Map<string, string>;
}

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;'))
    // characters XML 1.0 forbids
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '');
}

function formatter(decimals: number): (v: number) => string {
  const f = Math.pow(10, decimals);
  return (v: number) => {
    const r = Math.round(v * f) / f;
    return r === 0 ? '0' : String(r);
  };
}

function decimalsFor(scale: number): number {
  // ~1 micrometre on paper
  const d = Math.ceil(-Math.log10(0.001 / scale));
  return Math.max(0, Math.min(10, Number.isFinite(d) ? d : 4));
}

export function layerId(name: string, used: Set<string>): string {
  let base = 'layer-' + name.replace(/[^A-Za-z0-9_-]/g, '_');
  if (used.has(base)) {
    let i = 2;
    while (used.has(`${base}-${i}`)) i++;
    base = `${base}-${i}`;
  }
  used.add(base);
  return base;
}

function strokeKey(p: Prim & { kind: 'polyline' }, lwDisplay: number): string {
  return `${p.color}|${lwDisplay}|${p.dash ? p.dash.join(',') + '@' + p.dashOffset : ''}|${p.width}`;
}

/** The text's glyph-space matrix (x right, y down, em units not applied) in display coordinates. */
export function textMatrix(t: TextPrim): [number, number, number, number, number, number] {
  const ex = Math.cos(t.rotation);
  const ey = Math.sin(t.rotation);
  const nx = -ey;
  const ny = ex;
  const tn = Math.tan((Math.max(-85, Math.min(85, t.oblique)) * Math.PI) / 180);
  let a = t.widthFactor * ex;
  let b = t.widthFactor * ey;
  let c = -(nx + tn * ex);
  let d = -(ny + tn * ey);
  if (t.mirrorX) {
    a = -a;
    b = -b;
  }
  if (t.mirrorY) {
    c = -c;
    d = -d;
  }
  return [a, b, c, d, t.x, t.y];
}

export function imageDataUri(path: string, mime: string, cache?: Map<string, string>): string | null {
  const hit = cache?.get(path);
  if (hit) return hit;
  try {
    const uri = `data:${mime};base64,${readFileSync(path).toString('base64')}`;
    cache?.set(path, uri);
    return uri;
  } catch {
    return null;
  }
}

/** Renders one page as an SVG document. */
export function pageToSvg(page: Page, opts: SvgOptions = {}): string {
  const list = page.list;
  const scale = paperScale(page);
  const fmt = formatter(decimalsFor(scale));
  const pfmt = formatter(4);
  const minLw = opts.minLineweight ?? 0.1;
  const lwScale = opts.lineweightScale ?? 1;
  const lwDisplay = (lw: number): number => Math.max(lw * lwScale, minLw) / scale;
  const W = page.width;
  const H = page.height;
  const [a, b, c, d, e, f] = page.toPaper;
  const out: string[] = [];
  const wAttr = opts.pixelWidth ? String(opts.pixelWidth) : `${pfmt(W)}mm`;
  const hAttr = opts.pixelHeight ? String(opts.pixelHeight) : `${pfmt(H)}mm`;
  out.push(
    `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${wAttr}" height="${hAttr}" viewBox="0 0 ${pfmt(W)} ${pfmt(H)}" data-layout="${escapeXml(page.name)}">\n`,
  );
  out.push(`<rect x="0" y="0" width="${pfmt(W)}" height="${pfmt(H)}" fill="${rgbHex(list.background)}"/>\n`);
  // definitions: clips and gradients
  const defs: string[] = [];
  list.clips.forEach((cl, i) => {
    const dAttr = cl.rings.map((r) => ringPath(r, fmt, true)).join('');
    defs.push(`<clipPath id="clip${i}" clipPathUnits="userSpaceOnUse"${cl.parent >= 0 ? ` clip-path="url(#clip${cl.parent})"` : ''}><path d="${dAttr}" clip-rule="evenodd"/></clipPath>`);
  });
  // group primitives by layer, first-appearance order
  const byLayer = new Map<string, Prim[]>();
  for (const l of list.layers) byLayer.set(l, []);
  for (const p of list.prims) {
    let arr = byLayer.get(p.layer);
    if (!arr) {
      arr = [];
      byLayer.set(p.layer, arr);
    }
    arr.push(p);
  }
  let gradCount = 0;
  const body: string[] = [];
  const used = new Set<string>();
  for (const [layer, prims] of byLayer) {
    if (!prims.length) continue;
    body.push(`<g id="${escapeXml(layerId(layer, used))}" data-layer="${escapeXml(layer)}">\n`);
    let openClip = -1;
    let i = 0;
    while (i < prims.length) {
      const p = prims[i]!;
      if (p.clip !== openClip) {
        if (openClip >= 0) body.push('</g>\n');
        if (p.clip >= 0) body.push(`<g clip-path="url(#clip${p.clip})">\n`);
        openClip = p.clip;
      }
      if (p.kind === 'polyline') {
        // merge the run of polylines with the same style and clip
        const lwD = p.width > 0 ? p.width : lwDisplay(p.lw);
        const key = strokeKey(p, lwD);
        let dAttr = '';
        let j = i;
        while (j < prims.length) {
          const q = prims[j]!;
          if (q.kind !== 'polyline' || q.clip !== p.clip) break;
          const qw = q.width > 0 ? q.width : lwDisplay(q.lw);
          if (j > i && strokeKey(q, qw) !== key) break;
          dAttr += polyPath(q.pts, q.closed, q.breaks, fmt);
          j++;
        }
        let attrs = `stroke="${rgbHex(p.color)}" stroke-width="${fmt(lwD) === '0' ? String(lwD) : fmt(lwD)}"`;
        if (p.width > 0) attrs += ' stroke-linecap="butt"';
        if (p.dash) {
          attrs += ` stroke-dasharray="${p.dash.map((x) => (x === 0 ? fmt(lwD / 100) || '0' : fmt(x))).join(' ')}"`;
          if (p.dashOffset) attrs += ` stroke-dashoffset="${fmt(p.dashOffset)}"`;
        }
        body.push(`<path d="${dAttr}" ${attrs}/>\n`);
        i = j;
        continue;
      }
      if (p.kind === 'path') {
        const dAttr = p.rings.map((r) => ringPath(r, fmt, true)).join('');
        let fill = rgbHex(p.color);
        if (p.gradient) {
          const id = `grad${gradCount++}`;
          let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
          for (const r of p.rings) {
            for (let k = 0; k < r.length; k += 2) {
              minX = Math.min(minX, r[k]!);
              maxX = Math.max(maxX, r[k]!);
              minY = Math.min(minY, r[k + 1]!);
              maxY = Math.max(maxY, r[k + 1]!);
            }
          }
          const cx = (minX + maxX) / 2;
          const cy = (minY + maxY) / 2;
          const dx = Math.cos(p.gradient.angle);
          const dy = Math.sin(p.gradient.angle);
          const half = (Math.abs(dx) * (maxX - minX) + Math.abs(dy) * (maxY - minY)) / 2;
          defs.push(
            `<linearGradient id="${id}" gradientUnits="userSpaceOnUse" x1="${fmt(cx - dx * half)}" y1="${fmt(cy - dy * half)}" x2="${fmt(cx + dx * half)}" y2="${fmt(cy + dy * half)}"><stop offset="0" stop-color="${rgbHex(p.color)}"/><stop offset="1" stop-color="${rgbHex(p.gradient.color2)}"/></linearGradient>`,
          );
          fill = `url(#${id})`;
        }
        body.push(`<path d="${dAttr}" fill="${fill}" fill-rule="evenodd" stroke="none"${p.mask ? ' data-wipeout="1"' : ''}/>\n`);
        i++;
        continue;
      }
      if (p.kind === 'text') {
        const [ta, tb, tc, td, te, tf] = textMatrix(p);
        const anchor = p.align === 'left' ? '' : p.align === 'center' ? ' text-anchor="middle"' : ' text-anchor="end"';
        const deco = [p.underline ? 'underline' : '', p.overline ? 'overline' : '', p.strike ? 'line-through' : ''].filter(Boolean).join(' ');
        const mf = formatter(6);
        body.push(
          `<text transform="matrix(${mf(ta)} ${mf(tb)} ${mf(tc)} ${mf(td)} ${fmt(te)} ${fmt(tf)})" font-size="${String(+p.em.toPrecision(6))}" fill="${rgbHex(p.color)}"${anchor}${deco ? ` text-decoration="${deco}"` : ''} xml:space="preserve">${escapeXml(p.text)}</text>\n`,
        );
        i++;
        continue;
      }
      // image
      const uri = p.data ? `data:${p.mime};base64,${p.data.toString('base64')}` : p.path ? imageDataUri(p.path, p.mime, opts.imageCache) : null;
      if (uri) {
        const [ia, ib, ic, id, ie, iF] = p.matrix;
        const mf = formatter(9);
        body.push(
          `<image x="0" y="0" width="${p.pxWidth}" height="${p.pxHeight}" preserveAspectRatio="none" transform="matrix(${mf(ia)} ${mf(ib)} ${mf(ic)} ${mf(id)} ${fmt(ie)} ${fmt(iF)})" href="${uri}"/>\n`,
        );
      }
      i++;
    }
    if (openClip >= 0) body.push('</g>\n');
    body.push('</g>\n');
  }
  if (defs.length) out.push(`<defs>${defs.join('\n')}</defs>\n`);
  // display (y up) -> paper mm (y up) -> SVG (y down)
  const mf = formatter(12);
  out.push(
    `<g transform="matrix(${mf(a)} ${mf(-b)} ${mf(c)} ${mf(-d)} ${mf(e)} ${mf(H - f)})" fill="none" stroke-linecap="round" stroke-linejoin="round" font-family="${FONT_FAMILY}">\n`,
  );
  for (const s of body) out.push(s);
  out.push('</g>\n</svg>\n');
  return out.join('');
}

function polyPath(pts: readonly number[], closed: boolean, breaks: readonly number[] | undefined, fmt: (v: number) => string): string {
  let s = '';
  let nextBreak = 0;
  const bks = breaks ?? [];
  const n = pts.length / 2;
  for (let i = 0; i < n; i++) {
    const x = fmt(pts[i * 2]!);
    const y = fmt(pts[i * 2 + 1]!);
    if (i === 0 || (nextBreak < bks.length && bks[nextBreak] === i)) {
      if (i !== 0) nextBreak++;
      s += `M${x} ${y}`;
      if (i === 0 && bks[0] === 0) nextBreak++;
    } else s += ` ${x} ${y}`;
  }
  if (n === 1) s += ` ${fmt(pts[0]!)} ${fmt(pts[1]!)}`;
  if (closed) s += 'Z';
  return s;
}

function ringPath(r: readonly number[], fmt: (v: number) => string, close: boolean): string {
  let s = '';
  for (let i = 0; i < r.length; i += 2) s += (i === 0 ? 'M' : ' ') + fmt(r[i]!) + ' ' + fmt(r[i + 1]!);
  return close ? s + 'Z' : s;
}
