// What kind of value a group code carries, by the code ranges of the DXF reference (Autodesk's
// "Group Code Value Types"; ezdxf's lldxf/types.py has the same table). Binary DXF stores values
// by this kind; the ASCII writer uses it to format numbers. Codes not listed are strings: 0-9,
// 100-109, 300-369 (320-369 handles), 390-399, 410-419, 430-439, 470-481, 999, 1000-1009.

export const ValueKind = { Str: 0, Double: 1, Int16: 2, Int32: 3, Int64: 4, Bool: 5, Binary: 6 } as const;
export type ValueKind = (typeof ValueKind)[keyof typeof ValueKind];

const MAX_CODE = 1071;
const KINDS = new Uint8Array(MAX_CODE + 1);

function mark(from: number, to: number, kind: ValueKind): void {
  for (let c = from; c <= to; c++) KINDS[c] = kind;
}
mark(10, 59, ValueKind.Double);
mark(60, 79, ValueKind.Int16);
mark(90, 99, ValueKind.Int32);
mark(110, 149, ValueKind.Double);
mark(160, 169, ValueKind.Int64);
mark(170, 179, ValueKind.Int16);
mark(210, 239, ValueKind.Double);
mark(270, 289, ValueKind.Int16);
mark(290, 299, ValueKind.Bool);
mark(310, 319, ValueKind.Binary);
mark(370, 389, ValueKind.Int16);
mark(400, 409, ValueKind.Int16);
mark(420, 429, ValueKind.Int32);
// 430-439 are strings (colour-book names)
mark(440, 459, ValueKind.Int32);
mark(460, 469, ValueKind.Double);
mark(1004, 1004, ValueKind.Binary);
mark(1010, 1059, ValueKind.Double);
mark(1060, 1070, ValueKind.Int16);
mark(1071, 1071, ValueKind.Int32);

/** Codes the DXF reference defines; binary DXF with another code has lost its way (a damaged byte). */
const VALID = new Uint8Array(MAX_CODE + 1);
for (const [from, to] of [
  [0, 79], [90, 102], [105, 105], [110, 149], [160, 179], [210, 239], [270, 481], [999, 1071],
] as const) VALID.fill(1, from, to + 1);

/** Whether the DXF reference defines group code `code`. */
export function isValidCode(code: number): boolean {
  return code >= 0 && code <= MAX_CODE && VALID[code] === 1;
}

export function valueKind(code: number): ValueKind {
  return code >= 0 && code <= MAX_CODE ? (KINDS[code] as ValueKind) : ValueKind.Str;
}

export function isFloatCode(code: number): boolean {
  return code >= 0 && code <= MAX_CODE && KINDS[code] === ValueKind.Double;
}
