// Input the user gives when asked: a point (a click, snapped, or typed coordinates), a selection
// (clicks and windows, ended with Enter), or a value typed on the command line. Commands of the
// command line and the engine's pending picks (getpoint, user_select) ask through the same Ask,
// so both look and behave alike; Esc rejects with Cancelled.

export class Cancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

export type Point = [number, number];

/** A keyword typed at a point prompt ("Specify next point or [Arc/Close]:"): rejects the ask with the word. */
export class Keyword extends Error {
  constructor(readonly word: string) {
    super(word);
  }
}

/**
 * The keyword a typed answer names: the whole word, or its capital letters (AutoCAD's shortcut:
 * "CEnter" is CE, "Arc" is A). Keywords come back in capitals.
 */
export function matchKeyword(text: string, keywords: readonly string[]): string | null {
  const t = text.trim().toUpperCase();
  if (!t) return null;
  for (const k of keywords) {
    const short = k.replace(/[^A-Z0-9]/g, '') || k.toUpperCase();
    if (t === k.toUpperCase() || t === short) return k.toUpperCase();
  }
  return null;
}

export type Ask =
  | { kind: 'point'; message: string; base?: Point; optional: boolean; keywords?: readonly string[]; /** an object pick: the pick box, the raw click (no snap, no ortho) */ pickbox?: boolean; /** set by a click made with Shift held (TRIM's shift-select to extend, FILLET's sharp corner) */ shift?: boolean; resolve: (p: Point | null) => void; reject: (e: Error) => void }
  | { kind: 'select'; message: string; count?: number; types?: string[]; picked: string[]; /** picks still asked of the session: Enter waits for them */ inflight?: Promise<unknown>; resolve: (h: string[]) => void; reject: (e: Error) => void }
  | { kind: 'value'; message: string; base?: Point; /** spaces are part of the answer (text contents) */ text?: boolean; resolve: (v: string) => void; reject: (e: Error) => void };

/** Parses typed coordinates: x,y  @dx,dy  @dist<angle  dist (along the cursor's direction from base). */
export function parsePoint(text: string, last: Point | null, cursor: Point | null): Point | null {
  const t = text.trim();
  let m = /^(@)?(-?[\d.]+(?:e[-+]?\d+)?)\s*,\s*(-?[\d.]+(?:e[-+]?\d+)?)(?:\s*,\s*-?[\d.]+)?$/i.exec(t);
  if (m) {
    const x = Number(m[2]), y = Number(m[3]);
    if (!Number.isFinite(x) || !Number.isFinite(y)) return null;
    return m[1] && last ? [last[0] + x, last[1] + y] : m[1] ? [x, y] : [x, y];
  }
  m = /^@?(-?[\d.]+(?:e[-+]?\d+)?)\s*<\s*(-?[\d.]+)$/i.exec(t);
  if (m && last) {
    const d = Number(m[1]), a = (Number(m[2]) * Math.PI) / 180;
    return [last[0] + d * Math.cos(a), last[1] + d * Math.sin(a)];
  }
  m = /^(-?[\d.]+(?:e[-+]?\d+)?)$/.exec(t);
  if (m && last && cursor) {
    // direct distance entry: the typed length along the rubber band
    const d = Number(m[1]);
    const dx = cursor[0] - last[0], dy = cursor[1] - last[1];
    const len = Math.hypot(dx, dy);
    if (!(len > 0)) return null;
    return [last[0] + (dx / len) * d, last[1] + (dy / len) * d];
  }
  return null;
}

export function fmt(p: Point): string {
  const n = (v: number) => String(Math.round(v * 1e9) / 1e9);
  return `${n(p[0])},${n(p[1])}`;
}
