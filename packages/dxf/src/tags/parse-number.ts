// Numbers from DXF text. `+s` goes through the runtime's general string-to-double conversion for
// every coordinate of a file; most values are plain decimals with few digits, which are parsed
// here exactly: a mantissa below 10^15 and a power of ten up to 10^15 are both exact doubles, so
// one division rounds correctly and gives the very double `+s` gives. Anything else takes `+s`.

const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/** `+s`, except that an empty string is not a number (NaN, where `+''` is 0). */
export function parseNumber(s: string): number {
  const n = s.length;
  if (n === 0) return NaN;
  let i = 0;
  let neg = false;
  if (s.charCodeAt(0) === 45) {
    neg = true;
    i = 1;
  }
  let m = 0;
  let digits = 0;
  let decimals = 0;
  let dot = false;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      digits++;
      if (dot) decimals++;
    } else if (c === 46 && !dot) dot = true;
    else return +s;
  }
  if (digits === 0 || digits > 15) return +s;
  const v = decimals === 0 ? m : m / POW10[decimals]!;
  return neg ? -v : v;
}

/**
 * `parseNumber` of the ASCII bytes [start, end) when they are a plain decimal (optional '-',
 * digits, one optional '.', at most 15 digits); NaN otherwise, for the caller to parse the text.
 * Reading numbers from the bytes spares the reader a string per coordinate.
 */
export function parseDecimalBytes(b: Uint8Array, start: number, end: number): number {
  let i = start;
  const neg = i < end && b[i] === 45;
  if (neg) i++;
  // integer digits, then fraction digits: two tight loops instead of one with a dot state
  let m = 0;
  const intStart = i;
  for (; i < end; i++) {
    const d = b[i]! - 48;
    if (d < 0 || d > 9) break;
    m = m * 10 + d;
  }
  let digits = i - intStart;
  let decimals = 0;
  if (i < end && b[i] === 46) {
    const fracStart = ++i;
    for (; i < end; i++) {
      const d = b[i]! - 48;
      if (d < 0 || d > 9) break;
      m = m * 10 + d;
    }
    decimals = i - fracStart;
    digits += decimals;
  }
  if (i !== end || digits === 0 || digits > 15) return NaN;
  const v = decimals === 0 ? m : m / POW10[decimals]!;
  return neg ? -v : v;
}

/**
 * Whether `s` is a number as DXF writes them: optional white space (some writers put a tab before
 * a number; ezdxf and AutoCAD read it) and sign, digits with at most one
 * dot (at least one digit), an optional exponent. Not `NaN`, `inf`, hex, blanks or `q.5`, which
 * `+s` may take or ezdxf's float() refuses.
 */
export function isDxfNumber(s: string): boolean {
  const n = s.length;
  let i = 0;
  while (i < n && isSpace(s.charCodeAt(i))) i++;
  let end = n;
  while (end > i && isSpace(s.charCodeAt(end - 1))) end--;
  if (i < end && (s.charCodeAt(i) === 45 || s.charCodeAt(i) === 43)) i++;
  let digits = 0;
  let dot = false;
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
    else if (c === 46 && !dot) dot = true;
    else break;
  }
  if (digits === 0) return false;
  if (i < end && (s.charCodeAt(i) === 101 || s.charCodeAt(i) === 69)) {
    i++;
    if (i < end && (s.charCodeAt(i) === 45 || s.charCodeAt(i) === 43)) i++;
    let exp = 0;
    for (; i < end && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57; i++) exp++;
    if (exp === 0) return false;
  }
  return i === end && Number.isFinite(+s);
}

/** Space, tab, CR, vertical tab, form feed. */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}
