// Text encodings of DXF files. Before R2007 (AC1021) a file is written in the code page its header
// names in $DWGCODEPAGE and characters outside it appear as `\U+XXXX`; R2007 and later are UTF-8.
import { DOS_CODEPAGES } from './dos-codepages.js';

/** Turns the bytes of one value (all of them, or the given range) into a string. */
export type ValueDecoder = (bytes: Uint8Array, start: number, end: number) => string;

/** Turns a string into a "byte string" (one char per output byte, < 256) for latin1 output. */
export type ValueEncoder = (s: string) => string;

/** WHATWG encoding labels for the code page names of $DWGCODEPAGE (upper-cased, '-'/'_' removed). */
const WHATWG_BY_CODEPAGE: Record<string, string> = {
  ANSI874: 'windows-874',
  ANSI932: 'shift_jis',
  DOS932: 'shift_jis',
  ANSI936: 'gbk',
  GB2312: 'gbk',
  DOS936: 'gbk',
  ANSI949: 'euc-kr',
  KSC5601: 'euc-kr',
  DOS949: 'euc-kr',
  ANSI950: 'big5',
  BIG5: 'big5',
  DOS950: 'big5',
  ANSI1250: 'windows-1250',
  ANSI1251: 'windows-1251',
  ANSI1253: 'windows-1253',
  ANSI1254: 'windows-1254',
  ANSI1255: 'windows-1255',
  ANSI1256: 'windows-1256',
  ANSI1257: 'windows-1257',
  ANSI1258: 'windows-1258',
  ISO88591: 'iso-8859-1',
  ISO88592: 'iso-8859-2',
  ISO88593: 'iso-8859-3',
  ISO88594: 'iso-8859-4',
  ISO88595: 'iso-8859-5',
  ISO88596: 'iso-8859-6',
  ISO88597: 'iso-8859-7',
  ISO88598: 'iso-8859-8',
  ISO88599: 'windows-1254',
  DOS866: 'ibm866',
  MACROMAN: 'macintosh',
  UTF8: 'utf-8',
  ANSI65001: 'utf-8',
};

const DOS_BY_CODEPAGE: Record<string, string> = {
  ANSI1252: 'cp1252',
  // plain ASCII files are read as cp1252, its superset, so stray high bytes still decode
  ASCII: 'cp1252',
  DOS437: 'cp437', DOS850: 'cp850', DOS852: 'cp852', DOS855: 'cp855', DOS857: 'cp857',
  DOS860: 'cp860', DOS861: 'cp861', DOS863: 'cp863', DOS865: 'cp865',
};

function codepageKey(name: string): string {
  return name.trim().toUpperCase().replace(/[-_ ]/g, '');
}

/** Whether a $DWGCODEPAGE name is one this library decodes (unknown names fall back to cp1252). */
export function isKnownCodepage(name: string): boolean {
  const key = codepageKey(name);
  return key in WHATWG_BY_CODEPAGE || key in DOS_BY_CODEPAGE;
}

/** Whether files of this version are UTF-8 regardless of $DWGCODEPAGE. */
export function isUnicodeVersion(version: string): boolean {
  return version >= 'AC1021';
}

/**
 * The codec of a file that names no code page ($DWGCODEPAGE absent): read as cp1252, as AutoCAD
 * and ezdxf assume, but written back byte for byte. The five bytes cp1252 leaves undefined (0x81,
 * 0x8D, 0x8F, 0x90, 0x9D; read as the C1 controls of the same number) go back as those bytes, so
 * text in another code page (Shift-JIS lead bytes are 0x81-0x9F) comes out as it came in, as
 * ezdxf's surrogate escapes keep it.
 */
export function undeclaredCodec(): Codec {
  let codec = codecCache.get(UNDECLARED);
  if (!codec) {
    const upper = DOS_CODEPAGES.cp1252!;
    codec = { label: 'cp1252', decode: tableDecoder(upper), encode: byteStringEncoder(upper, true) };
    codecCache.set(UNDECLARED, codec);
  }
  return codec;
}

const UNDECLARED = ' undeclared';

/** A decoder of single-byte code pages given by their 128 upper characters. */
function tableDecoder(upper: string): ValueDecoder {
  return (bytes, start, end) => {
    let s = '';
    for (let i = start; i < end; i++) {
      const b = bytes[i]!;
      s += b < 0x80 ? String.fromCharCode(b) : upper[b - 0x80]!;
    }
    return s;
  };
}

export interface Codec {
  /** The WHATWG label or DOS table used. */
  label: string;
  decode: ValueDecoder;
  encode: ValueEncoder;
}

const codecCache = new Map<string, Codec>();

/**
 * The codec for a code page name, or for UTF-8 when `utf8` is set. Unknown names give cp1252
 * (what AutoCAD and ezdxf assume) and `known: false` so the caller can report it.
 */
export function codecFor(codepage: string, utf8: boolean): Codec {
  const key = utf8 ? 'UTF8' : codepageKey(codepage);
  let codec = codecCache.get(key);
  if (codec) return codec;
  const dos = DOS_BY_CODEPAGE[key];
  if (dos) {
    const upper = DOS_CODEPAGES[dos]!;
    codec = { label: dos, decode: tableDecoder(upper), encode: byteStringEncoder(upper) };
  } else {
    const label = WHATWG_BY_CODEPAGE[key];
    if (label === undefined) return codecFor('ANSI_1252', false);
    codec = { label, decode: whatwgDecoder(label), encode: label === 'utf-8' ? utf8ByteString : encoderByDecoding(label) };
  }
  codecCache.set(key, codec);
  return codec;
}

function whatwgDecoder(label: string): ValueDecoder {
  const strict = new TextDecoder(label, { fatal: true });
  const lenient = new TextDecoder(label);
  const fallback = label === 'utf-8' ? new TextDecoder('windows-1252') : lenient;
  return (bytes, start, end) => {
    const view = bytes.subarray(start, end);
    try {
      return strict.decode(view);
    } catch {
      // UTF-8 files with cp1252 text in them exist (writers that ignore the R2007 rule); reading
      // the value as cp1252 keeps every byte instead of turning it into U+FFFD.
      return fallback.decode(view);
    }
  };
}

/** UTF-8 output goes through the same latin1 path as code pages: one char per byte. */
function utf8ByteString(s: string): string {
  return Buffer.from(s, 'utf8').toString('latin1');
}

/**
 * An encoder for a single-byte table: chars of the table become their byte, others `\U+XXXX`.
 * `undefinedBytes`: the C1 controls that stand for undefined bytes become those bytes again.
 */
function byteStringEncoder(upper: string, undefinedBytes = false): ValueEncoder {
  const byChar = new Map<number, number>();
  for (let i = 0; i < upper.length; i++) {
    const c = upper.charCodeAt(i);
    // C1 controls mark undefined bytes: such characters are written as \U+ escapes
    if (c !== 0xfffd && (undefinedBytes || c < 0x80 || c > 0x9f) && !byChar.has(c)) byChar.set(c, 0x80 + i);
  }
  return (s) => {
    let out = '';
    for (const ch of s) {
      const c = ch.codePointAt(0)!;
      if (c < 0x80) out += ch;
      else {
        const b = byChar.get(c);
        out += b !== undefined ? String.fromCharCode(b) : unicodeEscape(c);
      }
    }
    return out;
  };
}

/**
 * Node's TextEncoder only writes UTF-8, so the byte sequence of each character is found by decoding
 * every one- and two-byte sequence once (lazily, on the first non-ASCII character written).
 */
function encoderByDecoding(label: string): ValueEncoder {
  let byChar: Map<number, string> | undefined;
  const build = (): Map<number, string> => {
    const map = new Map<number, string>();
    const dec = new TextDecoder(label, { fatal: true });
    const one = new Uint8Array(1);
    for (let b = 0x80; b < 0x100; b++) {
      one[0] = b;
      try {
        const s = dec.decode(one);
        const c = s.codePointAt(0)!;
        // C1 controls are how WHATWG decodes the bytes a Windows code page leaves undefined:
        // other readers reject those bytes, so such characters are written as \U+ escapes
        const undefinedByte = c >= 0x80 && c <= 0x9f;
        if (s.length === 1 && c !== 0xfffd && !undefinedByte && !map.has(c)) map.set(c, String.fromCharCode(b));
      } catch {
        // not a complete character on its own: a lead byte of a double-byte code page
      }
    }
    if (label === 'shift_jis' || label === 'gbk' || label === 'euc-kr' || label === 'big5') {
      const two = new Uint8Array(2);
      for (let lead = 0x81; lead < 0xff; lead++) {
        for (let trail = 0x40; trail < 0xff; trail++) {
          two[0] = lead;
          two[1] = trail;
          try {
            const s = dec.decode(two);
            if (s.length !== 1) continue;
            const c = s.charCodeAt(0);
            if (c >= 0x80 && c !== 0xfffd && !map.has(c)) map.set(c, String.fromCharCode(lead, trail));
          } catch {
            // undefined pair
          }
        }
      }
    }
    return map;
  };
  return (s) => {
    byChar ??= build();
    let out = '';
    for (const ch of s) {
      const c = ch.codePointAt(0)!;
      if (c < 0x80) out += ch;
      else out += byChar.get(c) ?? unicodeEscape(c);
    }
    return out;
  };
}

function unicodeEscape(c: number): string {
  if (c > 0xffff) {
    // DXF escapes hold four hex digits: a character outside the BMP becomes its surrogate pair
    const hi = Math.floor((c - 0x10000) / 0x400) + 0xd800;
    const lo = ((c - 0x10000) % 0x400) + 0xdc00;
    return unicodeEscape(hi) + unicodeEscape(lo);
  }
  return '\\U+' + c.toString(16).toUpperCase().padStart(4, '0');
}

const UNICODE_ESCAPE = /\\U\+([0-9A-Fa-f]{4})/g;

/** Replaces `\U+XXXX` escapes by their characters. */
export function decodeUnicodeEscapes(s: string): string {
  return s.replace(UNICODE_ESCAPE, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Whether a string has characters that need encoding (anything outside 7-bit ASCII). */
export function hasNonAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return true;
  return false;
}
