// System variables (backed by the header) and layouts with their page setup.
import { z } from 'zod';
import { OpError } from '../protocol.js';
import type { DocumentApi, DxfRecord, TableName } from '../dxf.js';
import { findEntry, hdrName } from '../model.js';
import { readPageSetup, setPageSetup, type PageSetupInput } from '../plot/page-setup.js';
import type { Transaction } from '../store/document-store.js';
import { defineOp, q } from './types.js';

type VarKind = 'int' | 'float' | 'str' | 'point2' | 'point3';
interface VarDef {
  kind: VarKind;
  min?: number;
  max?: number;
  /** Value must name an entry of this table (case-insensitive); `also` lists other accepted words. */
  table?: TableName;
  also?: string[];
  readOnly?: boolean;
  /** Allowed integer values (lineweights, PDMODE). */
  oneOf?: number[];
  /** Default shown when the header lacks the variable. */
  def?: string | number | number[];
  /** Stricter than > min: value must be positive. */
  positive?: boolean;
  /**
   * Kept by the session, not in the drawing's header: AutoCAD keeps it in the registry or does not
   * save it (no DXF header variable); setting it is no change of the drawing (no undo step).
   */
  session?: boolean;
}

const LINEWEIGHTS = [-3, -2, -1, 0, 5, 9, 13, 15, 18, 20, 25, 30, 35, 40, 50, 53, 60, 70, 80, 90, 100, 106, 120, 140, 158, 200, 211];
const PDMODES = [0, 1, 2, 3, 4].flatMap((b) => [b, b + 32, b + 64, b + 96]);

/** The system variables with typed values; other header variables are readable as they are. */
export const SYSVARS: Record<string, VarDef> = {
  CLAYER: { kind: 'str', table: 'LAYER', def: '0' },
  CELTYPE: { kind: 'str', table: 'LTYPE', also: ['BYLAYER', 'BYBLOCK'], def: 'ByLayer' },
  TEXTSTYLE: { kind: 'str', table: 'STYLE', def: 'Standard' },
  DIMSTYLE: { kind: 'str', table: 'DIMSTYLE', def: 'Standard' },
  CECOLOR: { kind: 'int', min: 0, max: 256, def: 256 },
  CELWEIGHT: { kind: 'int', oneOf: LINEWEIGHTS, def: -1 },
  CELTSCALE: { kind: 'float', positive: true, def: 1 },
  LTSCALE: { kind: 'float', positive: true, def: 1 },
  PSLTSCALE: { kind: 'int', min: 0, max: 1, def: 1 },
  INSUNITS: { kind: 'int', min: 0, max: 24, def: 0 },
  MEASUREMENT: { kind: 'int', min: 0, max: 1, def: 0 },
  LUNITS: { kind: 'int', min: 1, max: 5, def: 2 },
  LUPREC: { kind: 'int', min: 0, max: 8, def: 4 },
  AUNITS: { kind: 'int', min: 0, max: 4, def: 0 },
  AUPREC: { kind: 'int', min: 0, max: 8, def: 0 },
  ANGBASE: { kind: 'float', def: 0 },
  ANGDIR: { kind: 'int', min: 0, max: 1, def: 0 },
  PDMODE: { kind: 'int', oneOf: PDMODES, def: 0 },
  PDSIZE: { kind: 'float', def: 0 },
  TEXTSIZE: { kind: 'float', positive: true, def: 2.5 },
  ORTHOMODE: { kind: 'int', min: 0, max: 1, def: 0 },
  // running object snaps, AutoCAD's bits (END 1, MID 2, CEN 4, NOD 8, QUA 16, INT 32, INS 64, PER 128,
  // TAN 256, NEA 512, EXT 4096; 16384 = snaps off, F3). The default is the editor's: every mode but
  // tangent and extension. OSNAP is accepted for it (the command's name).
  OSMODE: { kind: 'int', min: 0, max: 32767, def: 767 },
  // polar tracking's increment angle in degrees; AutoCAD keeps it out of the drawing (registry), here
  // it is a header variable so that the editor and scripts share it, saved with the drawing
  POLARANG: { kind: 'float', positive: true, max: 180, def: 90 },
  // the modify commands' remembered values: FILLETRAD and CHAMFERA-D are DXF header variables
  // (saved with the drawing, as AutoCAD does); CHAMFERC is the chamfer length and CHAMFERD its
  // angle in degrees (CHAMMODE 1)
  FILLETRAD: { kind: 'float', min: 0, def: 0 },
  CHAMFERA: { kind: 'float', min: 0, def: 0 },
  CHAMFERB: { kind: 'float', min: 0, def: 0 },
  CHAMFERC: { kind: 'float', min: 0, def: 0 },
  CHAMFERD: { kind: 'float', min: 0, max: 180, def: 0 },
  // AutoCAD keeps these out of the drawing: OFFSETDIST, CHAMMODE and HPNAME/HPSCALE/HPANG are not
  // saved, TRIMMODE, EDGEMODE and PROJMODE live in the registry; here the session keeps them.
  // OFFSETDIST -1 is Through. HPNAME starts as SOLID, the editor's HATCH default (AutoCAD: ANSI31)
  OFFSETDIST: { kind: 'float', min: -1, def: -1, session: true },
  TRIMMODE: { kind: 'int', min: 0, max: 1, def: 1, session: true },
  CHAMMODE: { kind: 'int', min: 0, max: 1, def: 0, session: true },
  EDGEMODE: { kind: 'int', min: 0, max: 1, def: 0, session: true },
  PROJMODE: { kind: 'int', min: 0, max: 2, def: 1, session: true },
  HPNAME: { kind: 'str', def: 'SOLID', session: true },
  HPSCALE: { kind: 'float', positive: true, def: 1, session: true },
  HPANG: { kind: 'float', def: 0, session: true },
  PLINEWID: { kind: 'float', min: 0, def: 0 },
  DIMSCALE: { kind: 'float', min: 0, def: 1 },
  DIMTXT: { kind: 'float', positive: true, def: 2.5 },
  DIMASZ: { kind: 'float', min: 0, def: 2.5 },
  MIRRTEXT: { kind: 'int', min: 0, max: 1, def: 0 },
  FILLMODE: { kind: 'int', min: 0, max: 1, def: 1 },
  ATTMODE: { kind: 'int', min: 0, max: 2, def: 1 },
  TILEMODE: { kind: 'int', min: 0, max: 1, def: 1 },
  SPLINESEGS: { kind: 'int', min: -32768, max: 32767, def: 8 },
  LIMMIN: { kind: 'point2', def: [0, 0] },
  LIMMAX: { kind: 'point2', def: [420, 297] },
  INSBASE: { kind: 'point3', def: [0, 0, 0] },
  EXTMIN: { kind: 'point3' },
  EXTMAX: { kind: 'point3' },
  ACADVER: { kind: 'str', readOnly: true },
  HANDSEED: { kind: 'str', readOnly: true },
  DWGCODEPAGE: { kind: 'str', readOnly: true },
  FINGERPRINTGUID: { kind: 'str', readOnly: true },
  VERSIONGUID: { kind: 'str', readOnly: true },
};

/** Other names for a variable: the OSNAP command's name for OSMODE. */
const SYSVAR_ALIASES: Record<string, string> = { OSNAP: 'OSMODE' };

function key(name: string): string {
  const k = hdrName(name).slice(1);
  return SYSVAR_ALIASES[k] ?? k;
}

export function readSysvar(doc: DocumentApi, name: string, session?: Map<string, unknown>): unknown {
  const k = key(name);
  if (SYSVARS[k]?.session && session) return session.get(k) ?? SYSVARS[k]!.def ?? null;
  const v = doc.getHeader(`$${k}`);
  if (v !== undefined) return v;
  const def = SYSVARS[k];
  if (def) return def.def ?? null;
  throw new OpError('unknown_sysvar', `unknown system variable ${name}`, { name });
}

/** Checks and converts a value for a variable; throws invalid_sysvar / unknown_sysvar. */
export function checkSysvar(doc: DocumentApi | null, name: string, value: unknown): string | number | number[] {
  const k = key(name);
  const def = SYSVARS[k];
  if (!def) throw new OpError('unknown_sysvar', `unknown system variable ${name} (settable: ${Object.keys(SYSVARS).filter((n) => !SYSVARS[n]!.readOnly).join(', ')})`, { name });
  const bad = (why: string) => new OpError('invalid_sysvar', `${k}: ${why}`, { name: k, value });
  if (def.readOnly) throw bad('is read-only');
  if (typeof value === 'boolean' && def.kind === 'int') value = value ? 1 : 0;
  switch (def.kind) {
    case 'int':
    case 'float': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) throw bad(`expected a number, got ${JSON.stringify(value)}`);
      if (def.kind === 'int' && !Number.isInteger(n)) throw bad(`expected an integer, got ${n}`);
      if (def.positive && !(n > 0)) throw bad(`must be greater than 0, got ${n}`);
      if (def.min !== undefined && n < def.min) throw bad(`must be at least ${def.min}, got ${n}`);
      if (k === 'OFFSETDIST' && n < 0 && n !== -1) throw bad(`must be -1 (Through) or 0 or more, got ${n}`);
      if (def.max !== undefined && n > def.max) throw bad(`must be at most ${def.max}, got ${n}`);
      if (def.oneOf && !def.oneOf.includes(n)) throw bad(`must be one of ${def.oneOf.join(', ')}, got ${n}`);
      return n;
    }
    case 'str': {
      if (typeof value !== 'string' || !value.trim()) throw bad(`expected a non-empty string, got ${JSON.stringify(value)}`);
      const v = value.trim();
      if (def.table) {
        if (def.also?.includes(v.toUpperCase())) return v.toUpperCase() === 'BYLAYER' ? 'ByLayer' : v.toUpperCase() === 'BYBLOCK' ? 'ByBlock' : v;
        const e = doc ? findEntry(doc, def.table, v) : undefined;
        if (!e) throw bad(`no ${def.table} table entry named ${v}`);
        return String(e.attrs.name ?? v);
      }
      return v;
    }
    case 'point2':
    case 'point3': {
      const n = def.kind === 'point2' ? 2 : 3;
      if (!Array.isArray(value) || (value.length !== n && !(n === 3 && value.length === 2)) || !value.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw bad(`expected ${n} numbers [x, y${n === 3 ? ', z' : ''}], got ${JSON.stringify(value)}`);
      }
      return n === 3 && value.length === 2 ? [...(value as number[]), 0] : (value as number[]);
    }
  }
}

/**
 * The session's variables as a saved session brought them back (an untrusted file): each known
 * session variable with a valid value is taken, anything else left out.
 */
export function restoreSessionVars(session: Map<string, unknown>, saved: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(saved)) {
    if (!SYSVARS[k]?.session) continue;
    try {
      session.set(k, checkSysvar(null, k, v));
    } catch {
      // a value this version refuses: the default stands
    }
  }
}

export function writeSysvar(tx: Transaction, name: string, value: unknown, session?: Map<string, unknown>): void {
  const v = checkSysvar(tx.doc, name, value);
  const k = key(name);
  if (SYSVARS[k]?.session && session) session.set(k, v);
  else tx.setHeader(`$${k}`, v);
}

const namesField = z.union([z.string(), z.array(z.string())]).optional();
function names(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : q.list(v);
}

export const sysvars = defineOp({
  name: 'sysvars',
  summary: 'Reads (`get`: names) and sets (`set`: name -> value) system variables; `result.values` maps names to values (those AutoCAD keeps out of the drawing, such as OFFSETDIST, TRIMMODE, HPNAME, are the session\'s: no undo step).',
  input: z.object({
    get: namesField.describe('names to read (array or comma-separated)'),
    names: namesField.describe('same as get'),
    set: z.record(z.string(), z.unknown()).optional().describe('name -> new value, type-checked'),
  }),
  mutates: true,
  effect: 'change',
  // One op both reads and sets, and a key's permission is per op: reading needs drawings:write too.
  permissions: ['drawings:write'],
  needsDocument: true,
  output: z.object({ values: z.record(z.string(), z.unknown()), changed: z.array(z.string()) }),
  mcpGroup: 'data',
  example: { set: { LTSCALE: 10 } },
  http: [
    { method: 'GET', path: '/sysvars', status: 200, wrapper: false, fromHttp: ({ query }) => ({ get: q.list(query.names) }) },
    { method: 'POST', path: '/sysvars', status: 200, wrapper: false },
  ],
  errors: ['unknown_sysvar', 'invalid_sysvar'],
  handler: (ctx, input) => {
    const tx = ctx.tx!;
    const doc = tx.doc;
    const values: Record<string, unknown> = {};
    const changed: string[] = [];
    for (const [n, v] of Object.entries(input.set ?? {})) {
      writeSysvar(tx, n, v, ctx.engine.sessionVars as Map<string, unknown>);
      changed.push(key(n));
    }
    for (const n of [...names(input.get), ...names(input.names), ...Object.keys(input.set ?? {})]) {
      const v = readSysvar(doc, n, ctx.engine.sessionVars as Map<string, unknown>);
      values[key(n)] = v;
      // asked by another name (OSNAP): answered under that name too
      values[hdrName(n).slice(1)] = v;
    }
    return { values, changed };
  },
});

// ---- layouts ----------------------------------------------------------------------------------
// Page setups live in the LAYOUT object's AcDbPlotSettings part; reading and writing them is the
// plot module's (plot/page-setup.ts), so plotting and this op share one representation.

export function layoutObject(doc: DocumentApi, name: string): { name: string; rec: DxfRecord | undefined; blockName: string } {
  const l = doc.layouts().find((x) => x.name.toLowerCase() === name.toLowerCase());
  if (!l) throw new OpError('unknown_layout', `no layout named ${name} (layouts: ${doc.layouts().map((x) => x.name).join(', ')})`, { layout: name });
  return { name: l.name, rec: l.handle ? doc.get(l.handle) : undefined, blockName: l.block.name };
}

export const layoutCreate = defineOp({
  name: 'layout_create',
  summary: 'Creates a paper-space layout; `result.layouts` lists every layout name.',
  input: z.object({ name: z.string().min(1).max(255).describe('layout name (no < > / \\ " : ; ? * | , = `)') }),
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  needsDocument: true,
  output: z.object({ layout: z.string(), layouts: z.array(z.string()) }),
  mcpGroup: 'plot',
  example: { name: 'Sheet A1' },
  http: [{ method: 'POST', path: '/layouts', status: 201, wrapper: false }],
  errors: ['layout_exists'],
  handler: (ctx, input) => {
    const tx = ctx.tx!;
    const name = input.name.trim();
    if (/[<>/\\":;?*|,=`]/.test(name) || !name) throw new OpError('invalid_request', `name: ${JSON.stringify(input.name)} is not a valid layout name`);
    if (tx.doc.layouts().some((l) => l.name.toLowerCase() === name.toLowerCase())) throw new OpError('layout_exists', `a layout named ${name} exists`, { layout: name });
    tx.structural(() => tx.doc.addLayout(name));
    return { layout: name, layouts: tx.doc.layouts().map((l) => l.name) };
  },
});

export const layoutsList = defineOp({
  name: 'layout_list',
  summary: 'The layouts (Model first) with their page setups.',
  input: z.object({}),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ count: z.number().int(), layouts: z.array(z.string()), details: z.array(z.looseObject({ name: z.string(), handle: z.string().optional(), block: z.string(), entities: z.number().int(), page_setup: z.looseObject({ paper: z.string(), orientation: z.string(), width: z.number(), height: z.number() }) })) }),
  mcpGroup: 'query',
  http: [],
  handler: (ctx) => {
    const doc = ctx.store!.doc;
    const list = doc.layouts().map((l) => ({ name: l.name, handle: l.handle, block: l.block.name, entities: l.block.entities.length, page_setup: readPageSetup(doc, l.name) }));
    return { count: list.length, layouts: list.map((l) => l.name), details: list };
  },
});

export const pageSetup = defineOp({
  name: 'page_setup',
  summary: 'Sets a layout\'s page setup (paper, orientation, fit, center, scale, margins, plot_area, window), stored in its LAYOUT object.',
  input: z.object({
    layout: z.string().min(1),
    paper: z.string().optional().describe('A0-A5, ANSI A-E, Letter, Tabloid, or WIDTHxHEIGHT (mm)'),
    orientation: z.enum(['portrait', 'landscape']).optional(),
    fit: z.boolean().optional().describe('scale the plot to fit the paper'),
    center: z.boolean().optional().describe('center the plot on the paper'),
    scale: z.union([z.number().positive(), z.string()]).optional().describe('paper units per drawing unit (0.01) or "1:100"; sets fit false'),
    margins: z.union([
      z.number().min(0),
      z.object({ left: z.number().min(0).optional(), bottom: z.number().min(0).optional(), right: z.number().min(0).optional(), top: z.number().min(0).optional() }),
    ]).optional().describe('millimetres: one number for every side, or per side'),
    plot_area: z.enum(['layout', 'extents', 'display', 'window', 'limits', 'view']).optional(),
    window: z.tuple([z.number(), z.number(), z.number(), z.number()]).optional(),
  }),
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  needsDocument: true,
  output: z.looseObject({ layout: z.string(), paper: z.string(), orientation: z.string(), width: z.number(), height: z.number(), margins: z.object({ left: z.number(), bottom: z.number(), right: z.number(), top: z.number() }), plot_area: z.string() }),
  mcpGroup: 'plot',
  http: [{
    method: 'PUT', path: '/layouts/{layout}/page-setup', status: 200, wrapper: false,
    fromHttp: ({ params, body }) => ({ ...q.body(body), layout: params.layout }),
  }],
  errors: ['unknown_layout'],
  handler: (ctx, input) => {
    const tx = ctx.tx!;
    const lo = layoutObject(tx.doc, input.layout);
    if (!lo.rec) throw new OpError('unknown_layout', `layout ${lo.name} has no LAYOUT object (DXF R12 drawings keep no page setups)`);
    tx.touch(lo.rec);
    const { layout: _l, ...fields } = input;
    return setPageSetup(tx.doc, lo.name, fields as PageSetupInput);
  },
});

export const SYSVAR_OPS = [sysvars, layoutCreate, layoutsList, pageSetup];
