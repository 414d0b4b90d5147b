// Command-line text: splitting into commands and tokens, and AutoCAD coordinate input
// (absolute x,y[,z], relative @dx,dy[,dz], polar @dist<angle and dist<angle, @ for the last point).
import { OpError } from '../protocol.js';

export type Vec = [number, number, number];

/** Commands of a command line: one per line or separated by `;`. Quoted text keeps its spaces. */
export function splitCommands(text: string): string[][] {
  const out: string[][] = [];
  for (const line of text.split(/\r?\n|;/)) {
    const toks = tokenize(line);
    if (toks.length) out.push(toks);
  }
  return out;
}

export function tokenize(line: string): string[] {
  const toks: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line))) toks.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!);
  return toks;
}

const NUM = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

export function isNumber(t: string | undefined): boolean {
  return t !== undefined && NUM.test(t);
}

/** True when a token is coordinate input (not a handle or an option word). */
export function looksLikePoint(t: string | undefined): boolean {
  if (t === undefined) return false;
  return t === '@' || t.startsWith('@') || t.includes(',') || /^[-+.\d][^<]*<[-+.\d]/.test(t);
}

/** Parses one coordinate token relative to the last point. */
export function parsePoint(tok: string | undefined, last: Vec | null): Vec {
  if (tok === undefined) throw new OpError('invalid_point', 'a point is missing (x,y  @dx,dy  @dist<angle)');
  const bad = () => new OpError('invalid_point', `${JSON.stringify(tok)} is not a point (x,y  x,y,z  @dx,dy  @dist<angle  dist<angle)`, { token: tok });
  let t = tok.trim();
  let rel = false;
  if (t.startsWith('@')) {
    rel = true;
    t = t.slice(1);
    // Relative to the last point (AutoCAD's LASTPOINT, the origin before any point).
    if (t === '') return last ? [...last] : [0, 0, 0];
  }
  const base: Vec = rel && last ? last : [0, 0, 0];
  if (t.includes('<')) {
    const [d, a] = t.split('<');
    if (!isNumber(d) || !isNumber(a)) throw bad();
    const r = (Number(a) * Math.PI) / 180;
    return [base[0] + Number(d) * Math.cos(r), base[1] + Number(d) * Math.sin(r), base[2]];
  }
  const parts = t.split(',');
  if (parts.length < 2 || parts.length > 3 || !parts.every((p) => isNumber(p.trim()))) throw bad();
  const [x, y, z] = parts.map((p) => Number(p.trim())) as [number, number, number?];
  return [base[0] + x, base[1] + y, base[2] + (z ?? 0)];
}

/** A cursor over a command's tokens. */
export class Tokens {
  i = 0;
  constructor(readonly toks: string[], readonly command: string) {}
  peek(): string | undefined {
    return this.toks[this.i];
  }
  next(): string | undefined {
    return this.toks[this.i++];
  }
  done(): boolean {
    return this.i >= this.toks.length;
  }
  rest(): string {
    const r = this.toks.slice(this.i).join(' ');
    this.i = this.toks.length;
    return r;
  }
  number(what: string): number {
    const t = this.next();
    if (!isNumber(t)) throw new OpError('invalid_command', `${this.command}: expected ${what} (a number), got ${t === undefined ? 'nothing' : JSON.stringify(t)}`);
    return Number(t);
  }
  /** Case-insensitive keyword match on the next token (full word or its AutoCAD abbreviation). */
  keyword(...words: string[]): string | null {
    const t = this.peek()?.toUpperCase();
    if (t === undefined) return null;
    for (const w of words) {
      const full = w.replace(/[a-z]/g, (c) => c.toUpperCase());
      const abbrev = w.replace(/[a-z]/g, '');
      if (t === full || t === abbrev) {
        this.i++;
        return full;
      }
    }
    return null;
  }
}
