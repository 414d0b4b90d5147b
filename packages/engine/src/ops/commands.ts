// The command line: everyday AutoCAD commands with coordinate input. Each command is one undo step.
import { z } from 'zod';
import { OpError } from '../protocol.js';
import type { DocumentApi, Entity } from '../dxf.js';
import type { DocStore, Transaction } from '../store/document-store.js';
import { buildEntity, type CreateItem } from '../entities/create.js';
import { blockOfEntity, entitiesOrThrow, findEntry, tableEntries } from '../model.js';
import { Tokens, isNumber, looksLikePoint, parsePoint, splitCommands, type Vec } from '../commands/parse.js';
import { copyOf, createContext, eraseEntities, focusView, transformInPlace } from './entities.js';
import { PURGE_KINDS, purge, renameBlock, type PurgeKind } from './blocks.js';
import { changeLayer } from './layers.js';
import { undoRedo } from './documents.js';
import { writeSysvar } from './sysvars.js';
import { defineOp, type OpContext } from './types.js';
import { MORE_ALIASES, MORE_COMMANDS } from '../construct-more/commands.js';
import { MODIFY_ALIASES, MODIFY_COMMANDS, runModifyCommand } from './modify-commands.js';
import { handlesOut } from './output-parts.js';
import { blockFromDrawing, drawingForInsert, isDrawingFile } from './insert-drawing.js';

interface CmdState {
  ctx: OpContext;
  store: DocStore;
  last: Vec | null;
  /** INSERT of a drawing file: the file, read before the command's transaction. */
  drawing?: DocumentApi;
}

interface CmdResult {
  command: string;
  handles?: string[];
  [k: string]: unknown;
}

const ALIASES: Record<string, string> = {
  L: 'LINE', C: 'CIRCLE', A: 'ARC', PL: 'PLINE', DT: 'TEXT', DTEXT: 'TEXT', '-TEXT': 'TEXT', E: 'ERASE', DEL: 'ERASE',
  M: 'MOVE', CO: 'COPY', CP: 'COPY', RO: 'ROTATE', SC: 'SCALE', MI: 'MIRROR', LA: 'LAYER', '-LAYER': 'LAYER',
  I: 'INSERT', '-INSERT': 'INSERT', U: 'UNDO', PU: 'PURGE', '-PURGE': 'PURGE', REN: 'RENAME', '-RENAME': 'RENAME',
  PO: 'POINT', Z: 'ZOOM', ...MODIFY_ALIASES,
  ...MORE_ALIASES,
};

export const COMMANDS = [
  'LINE', 'CIRCLE', 'ARC', 'PLINE', 'TEXT', 'POINT', 'ERASE', 'MOVE', 'COPY', 'ROTATE', 'LAYER', 'INSERT', 'UNDO', 'REDO', 'PURGE', 'RENAME', 'ZOOM',
  ...MODIFY_COMMANDS, ...Object.keys(MORE_COMMANDS),
];

export const command = defineOp({
  name: 'command',
  summary: `Runs command-line text (${COMMANDS.join(', ')}; one command per line or separated by ;), each command one undo step.`,
  input: z.object({ cmd: z.string().min(1).describe('e.g. "LINE 0,0 @10,0 @10<90 C"') }),
  mutates: true,
  effect: 'change',
  // The command line reaches layers (LAYER), blocks (INSERT, RENAME, PURGE) and the drawing.
  permissions: ['drawings:write', 'blocks:write', 'layers:write'],
  tx: 'none',
  needsDocument: true,
  output: z.object({ commands: z.array(z.looseObject({ command: z.string(), handles: handlesOut.optional() })), handles: handlesOut.describe('handles created or changed by the commands'), count: z.number().int() }),
  mcpGroup: 'entities',
  example: { cmd: 'LINE 0,0 100,0 100,50\nCIRCLE 50,25 10' },
  http: [{ method: 'POST', path: '/commands', status: 200, wrapper: false }],
  errors: ['invalid_command', 'invalid_point', 'point_off_entity', 'nothing_selected', 'entity_absent', 'unknown_block', 'block_referenced', 'block_protected', 'budget_exceeded', 'file_not_found', 'invalid_dxf', 'path_outside_root'],
  handler: async (ctx, input) => {
    const store = ctx.store!;
    const state: CmdState = { ctx, store, last: store.lastPoint };
    const done: CmdResult[] = [];
    const cmds = splitCommands(input.cmd);
    if (!cmds.length) throw new OpError('invalid_command', 'empty command line');
    for (const toks of cmds) {
      const name = toks[0]!.toUpperCase();
      const canonical = ALIASES[name] ?? name;
      if (!COMMANDS.includes(canonical)) {
        throw new OpError('invalid_command', `unknown command ${toks[0]} (known: ${COMMANDS.join(', ')})`, { completed: done });
      }
      const t = new Tokens(toks.slice(1), canonical);
      try {
        if (canonical === 'UNDO' || canonical === 'REDO') {
          const n = t.done() ? 1 : t.number('the number of steps');
          done.push({ command: canonical, ...undoRedo(ctx, canonical === 'UNDO' ? 'undo' : 'redo', n) });
          continue;
        }
        if (canonical === 'ZOOM') {
          done.push(zoom(state, t));
          continue;
        }
        const file = canonical === 'INSERT' ? t.peek() : undefined;
        state.drawing = file && isDrawingFile(file) ? await drawingForInsert(ctx.engine.workspace, store.doc, file) : undefined;
        const r = await ctx.engine.withTransaction(store, `command:${canonical}`, ctx.requestId, (tx) => run(state, tx, canonical, t));
        if (!t.done()) throw new OpError('invalid_command', `${canonical}: unexpected ${JSON.stringify(t.peek())}`);
        done.push(r);
      } catch (err) {
        if (err instanceof OpError) throw new OpError(err.code, `${toks.join(' ')}: ${err.message}`, { command: canonical, completed: done, ...(err.details as object ?? {}) });
        throw err;
      }
    }
    store.lastPoint = state.last;
    const handles = done.flatMap((d) => d.handles ?? []);
    return { commands: done, handles, count: done.length };
  },
});

/** ZOOM Extents | ZOOM Window p1 p2 | ZOOM Center p height: the view every screen follows (no undo step). */
function zoom(state: CmdState, t: Tokens): CmdResult {
  const opt = t.done() ? 'EXTENTS' : t.keyword('Extents', 'All', 'Window', 'Center');
  const s = state.store;
  let box: number[] | null;
  switch (opt) {
    case 'EXTENTS':
    case 'ALL': {
      const x = s.index.extents();
      box = x ? [x.min[0]!, x.min[1]!, x.max[0]!, x.max[1]!] : null;
      break;
    }
    case 'WINDOW': {
      const a = pt(state, t.next());
      const b = pt(state, t.next());
      box = [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1])];
      break;
    }
    case 'CENTER': {
      const c = pt(state, t.next());
      const h = t.number('the height of the view');
      const aspect = s.view ? s.view.width / s.view.height : 4 / 3;
      box = [c[0] - (h * aspect) / 2, c[1] - h / 2, c[0] + (h * aspect) / 2, c[1] + h / 2];
      return { command: 'ZOOM', view: focusView(state.ctx, s, box, 0) };
    }
    default:
      throw new OpError('invalid_command', `ZOOM: unknown option ${JSON.stringify(t.peek())} (Extents, All, Window, Center)`);
  }
  return { command: 'ZOOM', view: focusView(state.ctx, s, box, opt === 'WINDOW' ? 0 : 0.05) };
}

function add(state: CmdState, tx: Transaction, item: Record<string, unknown>): string {
  const cctx = createContext(tx, false);
  const e = buildEntity(cctx, item as CreateItem);
  return tx.addEntity(e).handle;
}

function pt(state: CmdState, tok: string | undefined): Vec {
  const p = parsePoint(tok, state.last);
  state.last = p;
  return p;
}

/** Selection: handles, L(ast), ALL, P(revious); ends at the first point or option token. */
function selection(state: CmdState, t: Tokens, stopWords: string[] = []): Entity[] {
  const doc = state.store.doc;
  const hs: string[] = [];
  while (!t.done()) {
    const tok = t.peek()!;
    const u = tok.toUpperCase();
    if (looksLikePoint(tok) || stopWords.includes(u)) break;
    t.next();
    if (u === 'L' || u === 'LAST') { if (state.store.lastCreated && doc.get(state.store.lastCreated)) hs.push(state.store.lastCreated); }
    else if (u === 'ALL') hs.push(...doc.modelSpace().entities.map((e) => e.handle));
    else if (u === 'P' || u === 'PREVIOUS') hs.push(...state.store.previousSelection);
    else if (/^[0-9A-F]+$/i.test(tok)) hs.push(tok.toUpperCase());
    else throw new OpError('invalid_command', `${t.command}: ${JSON.stringify(tok)} is neither a handle nor L, ALL or P`);
  }
  if (!hs.length) throw new OpError('nothing_selected', `${t.command}: nothing selected (give handles, L, ALL or P)`);
  const list = entitiesOrThrow(doc, [...new Set(hs)]);
  state.store.previousSelection = list.map((e) => e.handle);
  return list;
}

function run(state: CmdState, tx: Transaction, cmd: string, t: Tokens): CmdResult {
  if (MODIFY_COMMANDS.includes(cmd)) return runModifyCommand(state, tx, cmd, t);
  const more = MORE_COMMANDS[cmd];
  if (more) return { ...more(state, tx, t) };
  switch (cmd) {
    case 'LINE': {
      const pts: Vec[] = [pt(state, t.next())];
      const handles: string[] = [];
      while (!t.done()) {
        if (t.keyword('Close')) {
          if (pts.length < 3) throw new OpError('invalid_command', 'LINE: Close needs at least two segments');
          handles.push(add(state, tx, { type: 'Line', start: pts[pts.length - 1], end: pts[0] }));
          state.last = pts[0]!;
          break;
        }
        if (t.keyword('Undo')) {
          if (pts.length < 2) throw new OpError('invalid_command', 'LINE: nothing to undo');
          pts.pop();
          tx.removeEntity(handles.pop()!);
          state.last = pts[pts.length - 1]!;
          continue;
        }
        const p = pt(state, t.next());
        handles.push(add(state, tx, { type: 'Line', start: pts[pts.length - 1], end: p }));
        pts.push(p);
      }
      if (!handles.length) throw new OpError('invalid_command', 'LINE: needs a second point');
      return { command: cmd, handles };
    }
    case 'CIRCLE': {
      if (t.keyword('3P')) {
        const a = pt(state, t.next()), b = pt(state, t.next()), c = pt(state, t.next());
        const cc = circumcenter(a, b, c);
        return { command: cmd, handles: [add(state, tx, { type: 'Circle', center: cc, radius: dist(cc, a) })] };
      }
      if (t.keyword('2P')) {
        const a = pt(state, t.next()), b = pt(state, t.next());
        return { command: cmd, handles: [add(state, tx, { type: 'Circle', center: mid(a, b), radius: dist(a, b) / 2 })] };
      }
      const c = pt(state, t.next());
      let r: number;
      if (t.keyword('Diameter')) r = t.number('the diameter') / 2;
      else if (looksLikePoint(t.peek())) r = dist(c, parsePoint(t.next(), c));
      else r = t.number('the radius');
      if (!(r > 0)) throw new OpError('invalid_command', 'CIRCLE: the radius must be greater than 0');
      return { command: cmd, handles: [add(state, tx, { type: 'Circle', center: c, radius: r })] };
    }
    case 'ARC': {
      if (t.keyword('Center')) {
        const c = pt(state, t.next()), s = parsePoint(t.next(), c), e = parsePoint(t.next(), c);
        state.last = e;
        const r = dist(c, s);
        if (!(r > 0)) throw new OpError('invalid_command', 'ARC: the start point is the center');
        return { command: cmd, handles: [add(state, tx, { type: 'Arc', center: c, radius: r, start_angle: deg(c, s), end_angle: deg(c, e) })] };
      }
      const a = pt(state, t.next()), b = pt(state, t.next()), c = pt(state, t.next());
      const cc = circumcenter(a, b, c);
      const ccw = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) > 0;
      const [s, e] = ccw ? [a, c] : [c, a];
      return { command: cmd, handles: [add(state, tx, { type: 'Arc', center: cc, radius: dist(cc, a), start_angle: deg(cc, s), end_angle: deg(cc, e) })] };
    }
    case 'PLINE': {
      const pts: Vec[] = [pt(state, t.next())];
      let closed = false;
      while (!t.done()) {
        if (t.keyword('Close')) { closed = true; break; }
        pts.push(pt(state, t.next()));
      }
      if (pts.length < 2) throw new OpError('invalid_command', 'PLINE: needs at least two points');
      return { command: cmd, handles: [add(state, tx, { type: 'LWPolyline', points: pts.map((p) => [p[0], p[1]]), closed })] };
    }
    case 'POINT':
      return { command: cmd, handles: [add(state, tx, { type: 'Point', location: pt(state, t.next()) })] };
    case 'TEXT': {
      let style: string | undefined;
      if (t.keyword('Style')) style = t.next();
      const p = pt(state, t.next());
      const height = isNumber(t.peek()) ? t.number('the height') : undefined;
      const rotation = isNumber(t.peek()) ? t.number('the rotation angle') : undefined;
      const value = t.rest();
      if (!value) throw new OpError('invalid_command', 'TEXT: the text is missing (TEXT x,y height rotation text)');
      return { command: cmd, handles: [add(state, tx, { type: 'Text', position: p, value, height, rotation, style })] };
    }
    case 'ERASE': {
      const list = selection(state, t);
      return { command: cmd, erased: eraseEntities(tx, state.store, list.map((e) => e.handle)), handles: [] };
    }
    case 'MOVE':
    case 'COPY': {
      const list = selection(state, t);
      const base = pt(state, t.next());
      const targets: Vec[] = [];
      while (!t.done()) targets.push(parsePoint(t.next(), base));
      const vectors = targets.length ? targets.map((p) => [p[0] - base[0], p[1] - base[1]]) : [[base[0], base[1]]];
      if (cmd === 'MOVE' && vectors.length > 1) throw new OpError('invalid_command', 'MOVE: one displacement only');
      const handles: string[] = [];
      for (const v of vectors) {
        for (const e of list) {
          if (cmd === 'MOVE') handles.push(transformInPlace(tx, e, { kind: 'move', vector: v }).handle);
          else {
            const c = tx.addEntity(copyOf(e), blockOfEntity(tx.doc, e)!.name);
            handles.push(transformInPlace(tx, c, { kind: 'move', vector: v }).handle);
          }
        }
      }
      return { command: cmd, handles };
    }
    case 'ROTATE': {
      const list = selection(state, t);
      const base = pt(state, t.next());
      const angle = t.number('the rotation angle');
      return { command: cmd, handles: list.map((e) => transformInPlace(tx, e, { kind: 'rotate', base, angle }).handle) };
    }
    case 'LAYER':
      return layerCommand(state, tx, t);
    case 'INSERT': {
      let name = t.next();
      if (!name) throw new OpError('invalid_command', 'INSERT: the block name is missing');
      const drawing = isDrawingFile(name) ? blockFromDrawing(tx, name, state.drawing) : undefined;
      if (drawing) name = drawing.block;
      const p = pt(state, t.next());
      const xs = isNumber(t.peek()) ? t.number('the X scale') : 1;
      const ys = isNumber(t.peek()) ? t.number('the Y scale') : xs;
      const rot = isNumber(t.peek()) ? t.number('the rotation angle') : 0;
      return { command: cmd, handles: [add(state, tx, { type: 'Insert', name, position: p, xscale: xs, yscale: ys, zscale: xs, rotation: rot })], ...(drawing ?? {}) };
    }
    case 'PURGE': {
      const kind = t.keyword('Blocks', 'LAyers', 'LTypes', 'STyles', 'ALL');
      const map: Record<string, readonly PurgeKind[]> = { BLOCKS: ['blocks'], LAYERS: ['layers'], LTYPES: ['linetypes'], STYLES: ['styles'], ALL: PURGE_KINDS };
      const kinds = kind ? map[kind]! : PURGE_KINDS;
      let names: string[] | undefined;
      if (!t.done() && !['Y', 'N', 'YES', 'NO'].includes(t.peek()!.toUpperCase())) names = t.next()!.split(',');
      t.keyword('Yes', 'No');
      const purged = purge(tx, state.store, kinds, names);
      return { command: cmd, purged, handles: [] };
    }
    case 'RENAME': {
      const kind = t.keyword('Block', 'LAyer') ?? 'BLOCK';
      const from = t.next(), to = t.next();
      if (!from || !to) throw new OpError('invalid_command', 'RENAME: give the old and the new name');
      if (kind === 'BLOCK') return { command: cmd, ...renameBlock(tx, state.store, from, to), handles: [] };
      return { command: cmd, ...renameLayer(tx, from, to), handles: [] };
    }
  }
  throw new OpError('invalid_command', `unknown command ${cmd}`);
}

function layerNames(tx: Transaction, spec: string | undefined, cmd: string): string[] {
  if (!spec) throw new OpError('invalid_command', `${cmd}: layer name(s) missing`);
  if (spec === '*') return tableEntries(tx.doc, 'LAYER').map((l) => String(l.attrs.name));
  return spec.split(',').map((s) => s.trim()).filter(Boolean);
}

function layerEntry(tx: Transaction, name: string) {
  const e = findEntry(tx.doc, 'LAYER', name);
  if (!e) throw new OpError('unknown_layer', `LAYER: layer ${name} does not exist`, { layer: name });
  return tx.touch(e);
}

function layerCommand(state: CmdState, tx: Transaction, t: Tokens): CmdResult {
  const changed: string[] = [];
  while (!t.done()) {
    const opt = t.keyword('New', 'Make', 'Set', 'Color', 'Ltype', 'LWeight', 'OFF', 'ON', 'Freeze', 'Thaw', 'LOck', 'Unlock');
    if (!opt) throw new OpError('invalid_command', `LAYER: unknown option ${JSON.stringify(t.peek())} (New, Make, Set, Color, Ltype, LWeight, OFF, ON, Freeze, Thaw, LOck, Unlock)`);
    switch (opt) {
      case 'NEW':
      case 'MAKE': {
        for (const n of layerNames(tx, t.next(), 'LAYER New')) {
          if (/[<>/\\":;?*|=`]/.test(n)) throw new OpError('invalid_command', `LAYER: ${n} is not a valid layer name`);
          if (!findEntry(tx.doc, 'LAYER', n)) { tx.addTableEntry('LAYER', n, { color: 7, linetype: 'Continuous' }); changed.push(n); }
          if (opt === 'MAKE') writeSysvar(tx, 'CLAYER', n);
        }
        break;
      }
      case 'SET': {
        const n = t.next();
        if (!n) throw new OpError('invalid_command', 'LAYER Set: layer name missing');
        const e = findEntry(tx.doc, 'LAYER', n);
        if (!e) throw new OpError('unknown_layer', `LAYER: layer ${n} does not exist`, { layer: n });
        if (Number(e.attrs.flags ?? 0) & 1) throw new OpError('invalid_command', `LAYER: cannot make frozen layer ${n} current`);
        writeSysvar(tx, 'CLAYER', String(e.attrs.name));
        break;
      }
      case 'COLOR': {
        const c = t.number('the colour number (1-255)');
        if (!Number.isInteger(c) || c < 1 || c > 255) throw new OpError('invalid_command', 'LAYER Color: expected 1-255');
        for (const n of layerNames(tx, t.next(), 'LAYER Color')) {
          changeLayer(tx, n, { color: c });
          changed.push(n);
        }
        break;
      }
      case 'LTYPE': {
        const lt = t.next();
        const e = lt ? findEntry(tx.doc, 'LTYPE', lt) : undefined;
        if (!e) throw new OpError('unknown_linetype', `LAYER Ltype: linetype ${lt ?? ''} does not exist`);
        for (const n of layerNames(tx, t.next(), 'LAYER Ltype')) { layerEntry(tx, n).attrs.linetype = String(e.attrs.name); changed.push(n); }
        break;
      }
      case 'LWEIGHT': {
        const w = Math.round(t.number('the lineweight (mm)') * 100);
        for (const n of layerNames(tx, t.next(), 'LAYER LWeight')) { layerEntry(tx, n).attrs.lineweight = w; changed.push(n); }
        break;
      }
      case 'OFF':
      case 'ON':
      case 'FREEZE':
      case 'THAW':
      case 'LOCK':
      case 'UNLOCK': {
        const change = { OFF: { on: false }, ON: { on: true }, FREEZE: { frozen: true }, THAW: { frozen: false }, LOCK: { locked: true }, UNLOCK: { locked: false } }[opt];
        for (const n of layerNames(tx, t.next(), `LAYER ${opt}`)) {
          changeLayer(tx, n, change);
          changed.push(n);
        }
        break;
      }
    }
  }
  return { command: 'LAYER', layers: [...new Set(changed)], handles: [] };
}

function renameLayer(tx: Transaction, from: string, to: string) {
  const e = findEntry(tx.doc, 'LAYER', from);
  if (!e) throw new OpError('unknown_layer', `RENAME: layer ${from} does not exist`, { layer: from });
  const old = String(e.attrs.name);
  if (old === '0' || old.toLowerCase() === 'defpoints') throw new OpError('invalid_command', `RENAME: layer ${old} cannot be renamed`);
  if (findEntry(tx.doc, 'LAYER', to)) throw new OpError('invalid_command', `RENAME: layer ${to} exists`);
  tx.touch(e).attrs.name = to;
  let n = 0;
  for (const b of tx.doc.blocks.values()) for (const x of b.entities) {
    if (String(x.attrs.layer ?? '0').toLowerCase() === old.toLowerCase()) { tx.touch(x).attrs.layer = to; n++; }
  }
  if (String(tx.doc.getHeader('$CLAYER') ?? '').toLowerCase() === old.toLowerCase()) tx.setHeader('$CLAYER', to);
  return { name: old, new_name: to, entities: n };
}

function dist(a: Vec, b: Vec): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1]);
}
function mid(a: Vec, b: Vec): Vec {
  return [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2];
}
function deg(c: Vec, p: Vec): number {
  const a = (Math.atan2(p[1] - c[1], p[0] - c[0]) * 180) / Math.PI;
  return a < 0 ? a + 360 : a;
}
function circumcenter(a: Vec, b: Vec, c: Vec): Vec {
  const d = 2 * (a[0] * (b[1] - c[1]) + b[0] * (c[1] - a[1]) + c[0] * (a[1] - b[1]));
  if (Math.abs(d) < 1e-12) throw new OpError('invalid_point', 'the three points are on one line');
  const a2 = a[0] ** 2 + a[1] ** 2, b2 = b[0] ** 2 + b[1] ** 2, c2 = c[0] ** 2 + c[1] ** 2;
  return [(a2 * (b[1] - c[1]) + b2 * (c[1] - a[1]) + c2 * (a[1] - b[1])) / d, (a2 * (c[0] - b[0]) + b2 * (a[0] - c[0]) + c2 * (b[0] - a[0])) / d, 0];
}

export const COMMAND_OPS = [command];
