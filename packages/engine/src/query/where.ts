// `where` filters of GET /entities: [{path, op, value}], path a JSON pointer into the full record.
// Filters are compiled once into closures that read the record's attributes directly (no JSON
// serialisation per entity); pointers of one segment take a fast path.
import { OpError } from '../protocol.js';
import type { Entity } from '../dxf.js';
import { publicType } from '../model.js';
import { attrDefs, COMMON_ATTRS, textOf } from './serialize.js';

export const WHERE_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'startsWith', 'exists'] as const;
export type WhereOp = (typeof WHERE_OPS)[number];

export interface WhereFilter {
  path: string;
  op: WhereOp;
  value?: unknown;
}

/** Parses the `where` query parameter (JSON text) or a JSON value; throws invalid_where. */
export function parseWhere(input: unknown): WhereFilter[] {
  let v = input;
  if (typeof input === 'string') {
    try {
      v = JSON.parse(input);
    } catch (err) {
      throw new OpError('invalid_where', `where: not valid JSON (${(err as Error).message}); send a JSON array of {path, op, value}`);
    }
  }
  if (v && typeof v === 'object' && !Array.isArray(v)) v = [v];
  if (!Array.isArray(v)) throw new OpError('invalid_where', 'where: expected a JSON array of {path, op, value} filters');
  return v.map((f, i) => {
    if (!f || typeof f !== 'object' || Array.isArray(f)) throw new OpError('invalid_where', `where[${i}]: expected an object {path, op, value}`);
    const o = f as Record<string, unknown>;
    if (typeof o.path !== 'string' || !(o.path === '' || o.path.startsWith('/'))) {
      throw new OpError('invalid_where', `where[${i}].path: expected a JSON pointer such as "/radius"`);
    }
    const op = (o.op ?? 'eq') as string;
    if (!(WHERE_OPS as readonly string[]).includes(op)) {
      throw new OpError('invalid_where', `where[${i}].op: ${JSON.stringify(o.op)} is not one of ${WHERE_OPS.join(', ')}`);
    }
    if (op === 'in' && !Array.isArray(o.value)) throw new OpError('invalid_where', `where[${i}].value: op in needs an array`);
    if (['gt', 'gte', 'lt', 'lte'].includes(op) && typeof o.value !== 'number' && typeof o.value !== 'string') {
      throw new OpError('invalid_where', `where[${i}].value: op ${op} needs a number or a string`);
    }
    if (op === 'startsWith' && typeof o.value !== 'string') throw new OpError('invalid_where', `where[${i}].value: op startsWith needs a string`);
    if (op !== 'exists' && !('value' in o)) throw new OpError('invalid_where', `where[${i}].value: required for op ${op}`);
    return { path: o.path, op: op as WhereOp, value: o.value };
  });
}

function segments(path: string): string[] {
  if (path === '') return [];
  return path.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

const MISSING = Symbol('missing');

/** Reads the first segment of a pointer from an entity as the full record shows it. */
function topLevel(name: string): (e: Entity) => unknown {
  switch (name) {
    case 'handle': return (e) => e.handle;
    case 'type': return (e) => publicType(e.type);
    case 'dxftype': return (e) => e.type;
    case 'owner': return (e) => e.owner;
    case 'value': return (e) => textOf(e) ?? MISSING;
    case 'position': return (e) => (textOf(e) !== null ? e.attrs.insert ?? MISSING : MISSING);
    case 'xdata': return (e) => {
      if (!e.xdata?.length) return MISSING;
      const o: Record<string, unknown> = {};
      for (const g of e.xdata) o[g.app] = g.tags.map((t) => t[1]);
      return o;
    };
    case 'attributes': return (e) => {
      if (e.type !== 'INSERT') return MISSING;
      const o: Record<string, string> = {};
      for (const c of e.children ?? []) if (c.type === 'ATTRIB') o[String(c.attrs.tag ?? '')] = String(c.attrs.text ?? '');
      return o;
    };
    default: {
      const common = COMMON_ATTRS.has(name);
      const commonDefault = name === 'layer' ? '0' : name === 'color' ? 256 : name === 'linetype' ? 'BYLAYER' : name === 'lineweight' ? -1 : name === 'ltscale' ? 1 : undefined;
      let lastType = '';
      let lastDefault: unknown = MISSING;
      return (e) => {
        const v = e.attrs[name];
        if (v !== undefined) return v;
        if (common && commonDefault !== undefined) return commonDefault;
        if (e.type !== lastType) {
          lastType = e.type;
          const d = attrDefs(e.type).get(name);
          lastDefault = d && d.default !== undefined ? d.default : MISSING;
        }
        return lastDefault;
      };
    }
  }
}

function explicit(name: string): (e: Entity) => boolean {
  const get = topLevel(name);
  if (['handle', 'type', 'dxftype', 'owner'].includes(name)) return () => true;
  return (e) => (e.attrs[name] !== undefined ? true : ['value', 'position', 'xdata', 'attributes'].includes(name) ? get(e) !== MISSING : false);
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    // Points compare on the given components: [1,2] equals [1,2,0].
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (!equal(a[i], b[i])) return false;
    for (let i = n; i < a.length; i++) if (a[i] !== 0) return false;
    for (let i = n; i < b.length; i++) if (b[i] !== 0) return false;
    return true;
  }
  if (typeof a === 'boolean' && typeof b === 'number') return Number(a) === b;
  if (typeof a === 'number' && typeof b === 'boolean') return a === Number(b);
  if (a && b && typeof a === 'object' && typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  return false;
}

function ordered(a: unknown, b: unknown): number | null {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return null;
}

/** One compiled filter. */
export function compileFilter(f: WhereFilter): (e: Entity) => boolean {
  const segs = segments(f.path);
  if (segs.length === 0) return () => f.op !== 'exists' || f.value !== false;
  const head = topLevel(segs[0]!);
  const rest = segs.slice(1);
  const get = rest.length === 0
    ? head
    : (e: Entity) => {
      let v = head(e);
      for (const s of rest) {
        if (v === MISSING || v === null || typeof v !== 'object') return MISSING;
        v = Array.isArray(v) ? (/^\d+$/.test(s) ? v[Number(s)] : MISSING) : (v as Record<string, unknown>)[s];
        if (v === undefined) return MISSING;
      }
      return v;
    };
  const want = f.value;
  const isType = segs.length === 1 && (segs[0] === 'type' || segs[0] === 'dxftype');
  const norm = (x: unknown) => (isType && typeof x === 'string' ? x.toLowerCase() : x);
  switch (f.op) {
    case 'eq': {
      if (isType) { const w = String(want).toLowerCase(); return (e) => publicType(e.type).toLowerCase() === w || e.type.toLowerCase() === w; }
      if (typeof want !== 'object' || want === null) return (e) => { const v = get(e); return v === want || (v !== MISSING && equal(v, want)); };
      return (e) => { const v = get(e); return v !== MISSING && equal(v, want); };
    }
    case 'ne': {
      const eq = compileFilter({ ...f, op: 'eq' });
      return (e) => !eq(e);
    }
    case 'gt': case 'gte': case 'lt': case 'lte': {
      const op = f.op;
      if (typeof want === 'number') {
        if (op === 'gt') return (e) => { const v = get(e); return typeof v === 'number' && v > want; };
        if (op === 'gte') return (e) => { const v = get(e); return typeof v === 'number' && v >= want; };
        if (op === 'lt') return (e) => { const v = get(e); return typeof v === 'number' && v < want; };
        return (e) => { const v = get(e); return typeof v === 'number' && v <= want; };
      }
      return (e) => {
        const c = ordered(get(e), want);
        if (c === null) return false;
        return op === 'gt' ? c > 0 : op === 'gte' ? c >= 0 : op === 'lt' ? c < 0 : c <= 0;
      };
    }
    case 'in': {
      const list = (want as unknown[]).map(norm);
      if (isType) return (e) => list.includes(publicType(e.type).toLowerCase()) || list.includes(e.type.toLowerCase());
      return (e) => { const v = get(e); return v !== MISSING && list.some((w) => equal(v, w)); };
    }
    case 'contains':
      return (e) => {
        const v = get(e);
        if (typeof v === 'string') return typeof want === 'string' && v.includes(want);
        if (Array.isArray(v)) return v.some((x) => equal(x, want));
        if (v && typeof v === 'object' && typeof want === 'string') return want in (v as object);
        return false;
      };
    case 'startsWith':
      return (e) => { const v = get(e); return typeof v === 'string' && v.startsWith(want as string); };
    case 'exists': {
      const yes = want === undefined || want === true || want === 'true' || want === 1;
      const has = rest.length === 0 ? explicit(segs[0]!) : (e: Entity) => get(e) !== MISSING;
      return (e) => has(e) === yes;
    }
  }
}

export function compileWhere(filters: WhereFilter[]): ((e: Entity) => boolean) | null {
  if (!filters.length) return null;
  const fs = filters.map(compileFilter);
  if (fs.length === 1) return fs[0]!;
  return (e) => {
    for (const f of fs) if (!f(e)) return false;
    return true;
  };
}
