// Values that are not numbers in numeric groups (`NaN`, `q.5`, blanks): kept, they would be written
// back as they are and no CAD program could load the result (ezdxf refuses the file). The reader
// puts the declared default (else 0) in their place and reports each one as an error: the input is
// damaged, so `linework convert` writes nothing without --recover and `document_open` refuses it.
// Binary data groups (310-319, 1004) that are not pairs of hex digits are read as empty chunks, an
// error as well: ezdxf refuses such a file, and the chunk's bytes are lost.
import { compiledDef, type RecordContext } from '../codec/compiled-def.js';
import type { Diagnostic } from '../document-api.js';
import { ValueKind, valueKind } from '../tags/group-codes.js';
import type { TagRecord } from '../tags/record-sink.js';

/** Index of the first value of `r` that should be a number and is not (or hex data and is not), or -1. */
function firstInvalid(r: TagRecord, from: number): number {
  const codes = r.codes;
  for (let i = from; i < r.n; i++) {
    const k = valueKind(codes[i]!);
    if (k === ValueKind.Str) continue;
    if (k === ValueKind.Binary) {
      if (!isHexData(r.str(i))) return i;
    } else if (!r.isNumber(i)) return i;
  }
  return -1;
}

/** Whether `s` is binary data as DXF writes it: pairs of hex digits (ezdxf refuses anything else). */
function isHexData(s: string): boolean {
  if (s.length % 2 !== 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i) | 0x20;
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** The declared default of group `code` in records of `type` (a point's coordinate too), else 0. */
function defaultFor(type: string, context: RecordContext | null, code: number): number {
  if (!context) return 0;
  let cd;
  try {
    cd = compiledDef(type, context);
  } catch {
    return 0;
  }
  for (const sub of cd.subs) {
    for (const [offset, at] of [[0, 0], [10, 1], [20, 2]] as const) {
      const a = code - offset >= 0 ? sub.attrAt[code - offset] : undefined;
      if (!a || (offset > 0 && a.kind !== 'point2' && a.kind !== 'point3' && a.kind !== 'vec3')) continue;
      const d = a.default;
      if (typeof d === 'number') return offset === 0 ? d : 0;
      if (typeof d === 'boolean') return d ? 1 : 0;
      if (Array.isArray(d) && typeof d[at] === 'number') return d[at] as number;
      return 0;
    }
  }
  return 0;
}

function handleOf(r: TagRecord): string {
  for (let i = 1; i < r.n; i++) if (r.codes[i] === 5 || r.codes[i] === 105) return r.str(i).trim();
  return '';
}

/**
 * Replaces every value of `r` that should be a number and is not by its default, reporting each
 * (an error: what the file said there is lost). `context` says which declarations apply; null
 * for a section's own record (the header's variables), where the default is 0.
 */
export function repairInvalidNumbers(r: TagRecord, context: RecordContext | null, report: (d: Diagnostic) => void): void {
  let i = firstInvalid(r, 1);
  if (i < 0) return;
  const type = r.str(0);
  const handle = context ? handleOf(r) : '';
  do {
    const code = r.codes[i]!;
    const was = r.str(i);
    let what = context ? `${type}${handle ? ` #${handle}` : ''}` : type;
    if (!context) {
      // a header variable: its name is the code-9 tag before it
      for (let j = i - 1; j > 0; j--) if (r.codes[j] === 9) {
        what = `header variable ${r.str(j)}`;
        break;
      }
    }
    // a chunk of binary data that is not hex: its bytes are lost, the chunk left empty
    const binary = valueKind(code) === ValueKind.Binary;
    const fallback = binary ? '' : String(defaultFor(type, context, code));
    r.replace(i, fallback);
    report({
      level: 'error',
      code: 'invalid-number',
      message: `${what}: group code ${code} holds ${JSON.stringify(was.length > 40 ? was.slice(0, 40) + '...' : was)}, which is not ${binary ? 'hex data; read as no data' : `a number; read as ${fallback}`}`,
      // the value's own line: each tag is a code line and a value line
      ...(r.line > 0 ? { line: r.line + 2 * i + 1 } : {}),
    });
    i = firstInvalid(r, i + 1);
  } while (i >= 0);
}
