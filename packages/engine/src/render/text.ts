// Text content: TEXT special codes (%%c %%d %%p %%u %%o %%nnn, \U+XXXX) and the MTEXT inline
// format (\P \~ \f \H \C \c \L \O \K \W \Q \T \A \S \p \X \N, braces, caret escapes), laid out in
// lines with word wrap, paragraph alignment and the nine attachment points.
import type { Rgb } from './colors.js';
import { aciToRgb } from './colors.js';
import { fontMetrics } from './font.js';

export interface TextFlags {
  underline: boolean;
  overline: boolean;
  strike: boolean;
}

/** Decodes \U+XXXX escapes. */
function unicodeEscapes(s: string): string {
  if (s.indexOf('\\') < 0) return s;
  return s
    .replace(/\\U\+([0-9A-Fa-f]{4,5})/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/\\M\+[0-9A-Fa-f]{5}/g, '?');
}

/** TEXT/ATTRIB value: special codes resolved; %%u/%%o/%%k toggles returned as flags (first state wins). */
export function decodeText(s: string): { text: string; flags: TextFlags } {
  const flags: TextFlags = { underline: false, overline: false, strike: false };
  s = unicodeEscapes(s);
  if (s.indexOf('%%') < 0) return { text: s, flags };
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '%' && s[i + 1] === '%' && i + 2 < s.length) {
      const c = s[i + 2]!;
      const lc = c.toLowerCase();
      if (lc === 'c') out += '\u00d8';
      else if (lc === 'd') out += '\u00b0';
      else if (lc === 'p') out += '\u00b1';
      else if (lc === 'u') flags.underline = true;
      else if (lc === 'o') flags.overline = true;
      else if (lc === 'k') flags.strike = true;
      else if (c === '%') out += '%';
      else if (c >= '0' && c <= '9') {
        const m = /^\d{1,3}/.exec(s.slice(i + 2))!;
        out += String.fromCharCode(parseInt(m[0], 10));
        i += m[0].length - 1;
      } else {
        out += '%%' + c;
      }
      i += 2;
      continue;
    }
    out += ch;
  }
  return { text: out, flags };
}

export interface MRun {
  text: string;
  /** Cap height in MTEXT units. */
  height: number;
  color: Rgb | null;
  font: string;
  widthFactor: number;
  oblique: number;
  tracking: number;
  underline: boolean;
  overline: boolean;
  strike: boolean;
  /** Stacked fraction: upper and lower parts and the stacking kind ('/', '#', '^'). */
  stack?: { up: string; down: string; kind: string };
}

export interface MParagraph {
  align: 'left' | 'center' | 'right' | null;
  runs: MRun[];
}

interface MState {
  height: number;
  color: Rgb | null;
  font: string;
  widthFactor: number;
  oblique: number;
  tracking: number;
  underline: boolean;
  overline: boolean;
  strike: boolean;
}

/** Parses MTEXT content into paragraphs of formatted runs. */
export function parseMText(raw: string, baseHeight: number, baseFont: string, background: Rgb = 0xffffff): MParagraph[] {
  const paras: MParagraph[] = [];
  let para: MParagraph = { align: null, runs: [] };
  let st: MState = { height: baseHeight, color: null, font: baseFont, widthFactor: 1, oblique: 0, tracking: 1, underline: false, overline: false, strike: false };
  const stack: MState[] = [];
  let buf = '';
  const flush = (): void => {
    if (buf.length) para.runs.push({ text: buf, ...st });
    buf = '';
  };
  const newPara = (): void => {
    flush();
    paras.push(para);
    para = { align: para.align, runs: [] };
  };
  const s = raw;
  const n = s.length;
  const readArg = (i: number): [string, number] => {
    const end = s.indexOf(';', i);
    if (end < 0) return [s.slice(i), n];
    return [s.slice(i, end), end + 1];
  };
  let i = 0;
  while (i < n) {
    const ch = s[i]!;
    if (ch === '\\' && i + 1 < n) {
      const c = s[i + 1]!;
      i += 2;
      switch (c) {
        case 'P':
        case 'X':
        case 'N':
          newPara();
          break;
        case '~':
          buf += '\u00a0';
          break;
        case '\\':
        case '{':
        case '}':
          buf += c;
          break;
        case 'f':
        case 'F': {
          const [arg, j] = readArg(i);
          i = j;
          flush();
          st = { ...st, font: arg.split('|')[0] || st.font };
          break;
        }
        case 'H':
        case 'h': {
          const [arg, j] = readArg(i);
          i = j;
          flush();
          const rel = /x$/i.test(arg);
          const v = parseFloat(arg);
          if (Number.isFinite(v) && v > 0) st = { ...st, height: rel ? st.height * v : v };
          break;
        }
        case 'C': {
          const [arg, j] = readArg(i);
          i = j;
          flush();
          const v = parseInt(arg, 10);
          st = { ...st, color: v === 0 || v === 256 || !Number.isFinite(v) ? null : aciToRgb(v, background) };
          break;
        }
        case 'c': {
          const [arg, j] = readArg(i);
          i = j;
          flush();
          const v = parseInt(arg, 10);
          // stored as a COLORREF-like value: 0x00BBGGRR
          if (Number.isFinite(v)) st = { ...st, color: ((v & 0xff) << 16) | (v & 0xff00) | ((v >> 16) & 0xff) };
          break;
        }
        case 'L':
          flush();
          st = { ...st, underline: true };
          break;
        case 'l':
          flush();
          st = { ...st, underline: false };
          break;
        case 'O':
          flush();
          st = { ...st, overline: true };
          break;
        case 'o':
          flush();
          st = { ...st, overline: false };
          break;
        case 'K':
          flush();
          st = { ...st, strike: true };
          break;
        case 'k':
          flush();
          st = { ...st, strike: false };
          break;
        case 'W': {
          const [arg, j] = readArg(i);
          i = j;
          flush();
          const v = parseFloat(arg);
          if (v > 0) st = { ...st, widthFactor: v };
          break;
        }
        case 'Q': {
          const [arg, j] = readArg(i);
          i = j;
          flush();
          const v = parseFloat(arg);
          if (Number.isFinite(v)) st = { ...st, oblique: v };
          break;
        }
        case 'T': {
          const [arg, j] = readArg(i);
          i = j;
          flush();
          const v = parseFloat(arg);
          if (v > 0) st = { ...st, tracking: v };
          break;
        }
        case 'A': {
          const [, j] = readArg(i);
          i = j;
          break;
        }
        case 'p': {
          const [arg, j] = readArg(i);
          i = j;
          const q = /q([lcrjd])/.exec(arg);
          if (q) para.align = q[1] === 'c' ? 'center' : q[1] === 'r' ? 'right' : 'left';
          break;
        }
        case 'S': {
          // stacked text up to an unescaped ';'
          let j = i;
          let body = '';
          while (j < n && s[j] !== ';') {
            if (s[j] === '\\' && j + 1 < n) {
              body += s[j + 1];
              j += 2;
              continue;
            }
            body += s[j];
            j++;
          }
          i = j + 1;
          flush();
          const m = /^(.*?)([/#^])(.*)$/s.exec(body);
          if (m) para.runs.push({ text: '', ...st, stack: { up: decodeText(m[1]!).text, down: decodeText(m[3]!).text, kind: m[2]! } });
          else buf += body;
          break;
        }
        case 'U': {
          const m = /^\+([0-9A-Fa-f]{4,5})/.exec(s.slice(i));
          if (m) {
            buf += String.fromCodePoint(parseInt(m[1]!, 16));
            i += m[0].length;
          } else buf += 'U';
          break;
        }
        case 'M': {
          const m = /^\+[0-9A-Fa-f]{5}/.exec(s.slice(i));
          if (m) {
            buf += '?';
            i += m[0].length;
          }
          break;
        }
        default:
          // unknown code: skip a following argument when it looks like one
          break;
      }
      continue;
    }
    if (ch === '{') {
      flush();
      stack.push(st);
      i++;
      continue;
    }
    if (ch === '}') {
      flush();
      st = stack.pop() ?? st;
      i++;
      continue;
    }
    if (ch === '^' && i + 1 < n) {
      const c = s[i + 1]!;
      if (c === 'J') {
        newPara();
        i += 2;
        continue;
      }
      if (c === 'I') {
        buf += '    ';
        i += 2;
        continue;
      }
      if (c === 'M') {
        i += 2;
        continue;
      }
    }
    if (ch === '%' && s[i + 1] === '%' && i + 2 < n) {
      const lc = s[i + 2]!.toLowerCase();
      if (lc === 'c' || lc === 'd' || lc === 'p' || lc === '%') {
        buf += lc === 'c' ? '\u00d8' : lc === 'd' ? '\u00b0' : lc === 'p' ? '\u00b1' : '%';
        i += 3;
        continue;
      }
    }
    if (ch === '\n') {
      newPara();
      i++;
      continue;
    }
    buf += ch;
    i++;
  }
  flush();
  paras.push(para);
  return paras;
}

/** A piece of laid-out MTEXT in MTEXT coordinates (x right, y up, origin at the insert point). */
export interface MPiece {
  text: string;
  x: number;
  y: number;
  height: number;
  color: Rgb | null;
  font: string;
  widthFactor: number;
  oblique: number;
  width: number;
  underline: boolean;
  overline: boolean;
  strike: boolean;
  /** A stacking bar from (x, y) to (x + width, y). */
  bar?: boolean;
}

/** Width of a run in MTEXT units. */
function runWidth(text: string, height: number, wf: number, tracking: number): number {
  const fm = fontMetrics();
  return (fm.measure(text) * height * wf * tracking) / fm.capRatio;
}

interface LineItem {
  run: MRun;
  text: string;
  width: number;
}

/**
 * Lays out MTEXT paragraphs: word wrap at `width` (0 = no wrap), line pitch 5/3 of the tallest
 * cap height times the spacing factor, aligned by `attachment` (1..9: top/middle/bottom x left/centre/right).
 */
export function layoutMText(paras: MParagraph[], baseHeight: number, width: number, attachment: number, spacing: number): MPiece[] {
  const lines: { items: LineItem[]; align: 'left' | 'center' | 'right'; height: number; width: number }[] = [];
  const col = ((attachment - 1) % 3 + 3) % 3; // 0 left, 1 centre, 2 right
  const defAlign = col === 0 ? 'left' : col === 1 ? 'center' : 'right';
  for (const p of paras) {
    let cur: LineItem[] = [];
    let curW = 0;
    const pushLine = (): void => {
      // trim trailing spaces
      const last = cur[cur.length - 1];
      if (last && / +$/.test(last.text) && !last.run.stack) {
        const t = last.text.replace(/ +$/, '');
        curW -= last.width - runWidth(t, last.run.height, last.run.widthFactor, last.run.tracking);
        last.width = runWidth(t, last.run.height, last.run.widthFactor, last.run.tracking);
        last.text = t;
      }
      let h = 0;
      for (const it of cur) h = Math.max(h, it.run.height);
      lines.push({ items: cur, align: p.align ?? defAlign, height: h || baseHeight, width: curW });
      cur = [];
      curW = 0;
    };
    for (const run of p.runs) {
      if (run.stack) {
        const sh = run.height * 0.7;
        const w = Math.max(runWidth(run.stack.up, sh, run.widthFactor, 1), runWidth(run.stack.down, sh, run.widthFactor, 1)) + run.height * 0.2;
        if (width > 0 && curW + w > width * 1.0001 && cur.length) pushLine();
        cur.push({ run, text: '', width: w });
        curW += w;
        continue;
      }
      if (!(width > 0)) {
        const w = runWidth(run.text, run.height, run.widthFactor, run.tracking);
        cur.push({ run, text: run.text, width: w });
        curW += w;
        continue;
      }
      // word wrap: split into words keeping their trailing spaces
      const words = run.text.match(/[^ ]+ *| +/g) ?? [];
      let acc = '';
      let accW = 0;
      for (const word of words) {
        const ww = runWidth(word, run.height, run.widthFactor, run.tracking);
        const trimmedW = runWidth(word.replace(/ +$/, ''), run.height, run.widthFactor, run.tracking);
        if (curW + accW + trimmedW > width * 1.0001 && (cur.length || acc.length)) {
          if (acc.length) cur.push({ run, text: acc, width: accW });
          curW += accW;
          pushLine();
          acc = '';
          accW = 0;
          if (/^ +$/.test(word)) continue;
        }
        acc += word;
        accW += ww;
      }
      if (acc.length) {
        cur.push({ run, text: acc, width: accW });
        curW += accW;
      }
    }
    pushLine();
  }
  // vertical placement: baseline of the first line one cap height below the top
  const pitchOf = (h: number): number => (h * 5 * spacing) / 3;
  const baselines: number[] = [];
  let y = 0;
  for (let li = 0; li < lines.length; li++) {
    const l = lines[li]!;
    if (li === 0) y = -l.height;
    else y -= pitchOf(Math.max(l.height, lines[li - 1]!.height));
    baselines.push(y);
  }
  const bottom = baselines.length ? baselines[baselines.length - 1]! : 0;
  const row = Math.floor((attachment - 1) / 3); // 0 top, 1 middle, 2 bottom
  const dy = row === 0 ? 0 : row === 1 ? -bottom / 2 : -bottom;
  const boxW = width > 0 ? width : Math.max(0, ...lines.map((l) => l.width));
  const colX = col === 0 ? 0 : col === 1 ? -boxW / 2 : -boxW;
  const out: MPiece[] = [];
  for (let li = 0; li < lines.length; li++) {
    const l = lines[li]!;
    const by = baselines[li]! + dy;
    let x = colX + (l.align === 'left' ? 0 : l.align === 'center' ? (boxW - l.width) / 2 : boxW - l.width);
    for (const it of l.items) {
      const r = it.run;
      if (r.stack) {
        const sh = r.height * 0.7;
        const upW = runWidth(r.stack.up, sh, r.widthFactor, 1);
        const dnW = runWidth(r.stack.down, sh, r.widthFactor, 1);
        const inner = it.width - r.height * 0.2;
        const x0 = x + r.height * 0.1;
        const base = { color: r.color, font: r.font, widthFactor: r.widthFactor, oblique: r.oblique, underline: false, overline: false, strike: false };
        if (r.stack.kind === '#') {
          const t = `${r.stack.up}/${r.stack.down}`;
          out.push({ ...base, text: t, x: x0, y: by, height: sh, width: runWidth(t, sh, r.widthFactor, 1) });
        } else {
          out.push({ ...base, text: r.stack.up, x: x0 + (inner - upW) / 2, y: by + r.height * 0.55, height: sh, width: upW });
          out.push({ ...base, text: r.stack.down, x: x0 + (inner - dnW) / 2, y: by - r.height * 0.45, height: sh, width: dnW });
          if (r.stack.kind === '/') out.push({ ...base, text: '', x: x0, y: by + r.height * 0.4, height: sh, width: inner, bar: true });
        }
        x += it.width;
        continue;
      }
      if (it.text.length) {
        out.push({
          text: it.text, x, y: by, height: r.height, color: r.color, font: r.font, widthFactor: r.widthFactor * r.tracking, oblique: r.oblique,
          width: it.width, underline: r.underline, overline: r.overline, strike: r.strike,
        });
      }
      x += it.width;
    }
  }
  return out;
}

/** Plain text of MTEXT content (for search and summaries). */
export function mtextPlain(raw: string): string {
  return parseMText(raw, 1, '')
    .map((p) => p.runs.map((r) => (r.stack ? `${r.stack.up}/${r.stack.down}` : r.text)).join(''))
    .join('\n');
}
