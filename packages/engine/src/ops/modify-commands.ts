// The command line's construct/modify commands, as AutoCAD scripts type them: objects picked by
// point (the point also says which piece or side, as a click does), options by keyword.
//   OFFSET distance|Through  objpt sidept ...        TRIM [cuTting edges] [handles] pt ...
//   EXTEND [Boundary edges] [handles] pt ...         FILLET [Radius r] [Polyline pt | pt1 pt2]
//   CHAMFER [Distance d1 d2] [Polyline pt | pt1 pt2]  BREAK pt [First pt1] pt2|@
//   JOIN pt|handle ...
import { OpError } from '../protocol.js';
import type { Entity } from '../dxf.js';
import type { DocStore, Transaction } from '../store/document-store.js';
import { headerNumber } from '../model.js';
import { Tokens, isNumber, looksLikePoint, parsePoint, type Vec } from '../commands/parse.js';
import { pickAt } from '../query/picks.js';
import { writeSysvar } from './sysvars.js';
import type { OpContext } from './types.js';
import type { EditResult } from './edit-result.js';
import { offsetWith } from './modify-offset.js';
import { extend, trim } from './modify-trim.js';
import { corner } from './modify-corner.js';
import { breakAt, join } from './modify-break-join.js';
import type { P } from '../construct/vec2.js';

export interface ModifyCmdState {
  ctx: OpContext;
  store: DocStore;
  last: Vec | null;
}

export const MODIFY_ALIASES: Record<string, string> = { O: 'OFFSET', TR: 'TRIM', EX: 'EXTEND', F: 'FILLET', CHA: 'CHAMFER', BR: 'BREAK', J: 'JOIN' };
export const MODIFY_COMMANDS = ['OFFSET', 'TRIM', 'EXTEND', 'FILLET', 'CHAMFER', 'BREAK', 'JOIN'];

type Result = { command: string; handles: string[] } & EditResult;

function point(state: ModifyCmdState, t: Tokens, what: string): P {
  const tok = t.next();
  if (tok === undefined) throw new OpError('invalid_command', `${t.command}: ${what} is missing`);
  const p = parsePoint(tok, state.last);
  state.last = p;
  return [p[0], p[1]];
}

/** The visible entity under a picked point (AutoCAD's pickbox: a small share of the view). */
function picked(state: ModifyCmdState, p: P, cmd: string): Entity {
  const s = state.store;
  const x = s.index.extents();
  const size = s.view ? Math.max(s.view.width, s.view.height) : x ? Math.hypot(x.max[0] - x.min[0], x.max[1] - x.min[1]) : 1;
  const e = pickAt(s, p, Math.max(size / 200, 1e-9));
  if (!e) throw new OpError('point_off_entity', `${cmd}: no object at ${p[0]},${p[1]}`, { point: p });
  return e;
}

/** Handles (hex words) up to the first point or keyword. */
function handles(t: Tokens): string[] {
  const out: string[] = [];
  while (!t.done() && !looksLikePoint(t.peek()) && /^[0-9A-F]+$/i.test(t.peek()!)) out.push(t.next()!.toUpperCase());
  return out;
}

function merge(cmd: string, list: EditResult[]): Result {
  const created = new Set<string>(), modified = new Set<string>(), erased = new Set<string>();
  for (const r of list) {
    for (const h of r.created) created.add(h);
    for (const h of r.modified) if (!created.has(h)) modified.add(h);
    for (const h of r.erased) {
      if (created.delete(h)) continue;
      modified.delete(h);
      erased.add(h);
    }
  }
  return { command: cmd, created: [...created], modified: [...modified], erased: [...erased], handles: [...created, ...modified] };
}

/** Runs one of MODIFY_COMMANDS inside the command's transaction. */
export function runModifyCommand(state: ModifyCmdState, tx: Transaction, cmd: string, t: Tokens): Result {
  const store = state.store;
  const out: EditResult[] = [];
  switch (cmd) {
    case 'OFFSET': {
      let distance: number | null = null;
      if (t.keyword('Through') === null) {
        if (!isNumber(t.peek())) throw new OpError('invalid_command', 'OFFSET: specify offset distance or [Through]');
        distance = t.number('the offset distance');
        if (!(distance > 0)) throw new OpError('invalid_command', 'OFFSET: the distance must be greater than 0');
      }
      while (!t.done() && t.keyword('eXit', 'Exit') === null) {
        const e = picked(state, point(state, t, 'the object to offset'), cmd);
        const q = point(state, t, distance === null ? 'the through point' : 'the point on the side to offset');
        out.push(offsetWith(tx, e.handle, distance === null ? { through: q } : { distance, side: q }));
      }
      if (!out.length) throw new OpError('invalid_command', 'OFFSET: select an object to offset (a point on it) and a side point');
      return merge(cmd, out);
    }
    case 'TRIM':
    case 'EXTEND': {
      let edges: string[] | undefined;
      if (t.keyword(cmd === 'TRIM' ? 'cuTting' : 'Boundary') !== null || /^[0-9A-F]+$/i.test(t.peek() ?? '')) {
        const hs = handles(t);
        if (hs.length) edges = hs;
      }
      while (!t.done()) {
        const q = point(state, t, `the object to ${cmd.toLowerCase()}`);
        const e = picked(state, q, cmd);
        out.push(cmd === 'TRIM' ? trim(tx, store, e.handle, q, edges) : extend(tx, store, e.handle, q, edges));
      }
      if (!out.length) throw new OpError('invalid_command', `${cmd}: select an object (a point on the part to ${cmd === 'TRIM' ? 'remove' : 'extend'})`);
      return merge(cmd, out);
    }
    case 'FILLET':
    case 'CHAMFER': {
      const how = () => (cmd === 'FILLET'
        ? { kind: 'fillet' as const, r: headerNumber(tx.doc, '$FILLETRAD', 0) }
        : { kind: 'chamfer' as const, d1: headerNumber(tx.doc, '$CHAMFERA', 0), d2: headerNumber(tx.doc, '$CHAMFERB', 0) });
      while (!t.done()) {
        if (cmd === 'FILLET' && t.keyword('Radius') !== null) {
          writeSysvar(tx, 'FILLETRAD', t.number('the fillet radius'));
          continue;
        }
        if (cmd === 'CHAMFER' && t.keyword('Distance') !== null) {
          const d1 = t.number('the first chamfer distance');
          const d2 = isNumber(t.peek()) ? t.number('the second chamfer distance') : d1;
          writeSysvar(tx, 'CHAMFERA', d1);
          writeSysvar(tx, 'CHAMFERB', d2);
          continue;
        }
        if (t.keyword('Polyline') !== null) {
          const e = picked(state, point(state, t, 'the 2D polyline'), cmd);
          out.push(corner(tx, [e.handle], undefined, true, how()));
          continue;
        }
        const p1 = point(state, t, 'the first object');
        const p2 = point(state, t, 'the second object');
        const a = picked(state, p1, cmd), b = picked(state, p2, cmd);
        out.push(corner(tx, [a.handle, b.handle], [p1, p2], false, how()));
      }
      return merge(cmd, out);
    }
    case 'BREAK': {
      const p = point(state, t, 'the object to break');
      const e = picked(state, p, cmd);
      let first = p;
      if (t.keyword('First') !== null) first = point(state, t, 'the first break point');
      if (t.peek() === '@' || t.done()) {
        if (t.peek() === '@') t.next();
        out.push(breakAt(tx, e.handle, [first]));
      } else {
        const second = point(state, t, 'the second break point');
        out.push(breakAt(tx, e.handle, [first, second]));
      }
      return merge(cmd, out);
    }
    case 'JOIN': {
      const hs: string[] = [];
      while (!t.done()) {
        if (looksLikePoint(t.peek())) hs.push(picked(state, point(state, t, 'an object'), cmd).handle);
        else hs.push(...handles(t));
        if (!t.done() && !looksLikePoint(t.peek()) && !/^[0-9A-F]+$/i.test(t.peek()!)) break;
      }
      out.push(join(tx, [...new Set(hs)]));
      return merge(cmd, out);
    }
  }
  throw new OpError('invalid_command', `unknown command ${cmd}`);
}
