// The command line. A command typed whole ("CIRCLE 0,0 5") goes as it is to the session's command
// interpreter (POST /commands), the one scripts use. A command typed alone prompts for what it
// needs, as AutoCAD does ("Specify first point:"), from clicks (snapped) or typed coordinates,
// then sends the same text; MOVE, COPY, ROTATE and ERASE act on the selection (or ask for one)
// through entities_transform / entities_delete. Each command is one undo step.
import { ApiError } from './api.js';
import type { App } from './app.js';
import { Cancelled, Keyword, fmt, matchKeyword, parsePoint, type Point } from './prompts.js';
import { closeDrawing, newDrawing, openDrawing, quickSave, saveAs } from './file-commands.js';
import { helpDialog } from './dialogs.js';
import { copyClip, pasteClip } from './clipboard.js';
import { MODIFY_ALIASES, MODIFY_COMMANDS, MODIFY_HELP } from './modify-commands.js';
import { osnapSettings } from './osnap-panel.js';
import { arcCommand, ellipseCommand, mtextCommand, plineCommand, polygonCommand, rectangCommand, splineCommand, textCommand } from './draw-commands.js';

const ALIASES: Record<string, string> = {
  L: 'LINE', C: 'CIRCLE', PL: 'PLINE', E: 'ERASE', M: 'MOVE', CO: 'COPY', CP: 'COPY', RO: 'ROTATE', Z: 'ZOOM', U: 'UNDO', PO: 'POINT',
  SAVE: 'QSAVE', '?': 'HELP', CLOSEALL: 'CLOSE', OS: 'OSNAP', DS: 'OSNAP', DSETTINGS: 'OSNAP',
  A: 'ARC', REC: 'RECTANG', RECTANGLE: 'RECTANG', POL: 'POLYGON', EL: 'ELLIPSE', SPL: 'SPLINE', DT: 'TEXT', DTEXT: 'TEXT', T: 'MTEXT', MT: 'MTEXT',
};

/** Commands the page runs itself, with or without arguments (the session's interpreter has no files). */
const PAGE_COMMANDS = new Set(['NEW', 'OPEN', 'QSAVE', 'SAVEAS', 'CLOSE', 'HELP', 'COPYCLIP', 'CUTCLIP', 'PASTECLIP', 'OSNAP']);

/** HELP's list: every command the command line knows, and what it does. */
export const COMMAND_HELP: [string, string][] = [
  ['LINE (L)', 'lines from point to point; Enter ends, C closes'],
  ['PLINE (PL)', 'a polyline; A switches to arcs (tangent), L back to lines, C closes, U undoes a point'],
  ['ARC (A)', 'three points, or start, CE(nter), end'],
  ['RECTANG (REC)', 'two corners'],
  ['POLYGON (POL)', 'sides, centre, Inscribed / Circumscribed, radius'],
  ['ELLIPSE (EL)', 'axis ends (or C(enter) and one end), distance to the other axis'],
  ['SPLINE (SPL)', 'fit points; Enter ends, C closes'],
  ['TEXT (DT)', 'start point, height, rotation, then lines typed in place (Enter: next line, empty line: end); double click a text to edit it in place'],
  ['MTEXT (T, MT)', 'two corners (its width), then the text typed in place (Enter: new paragraph; Ctrl+Enter or a click outside: end)'],
  ['CIRCLE (C)', 'centre and radius'],
  ...MODIFY_HELP,
  ['POINT (PO)', 'a point'],
  ['MOVE (M) / COPY (CO) / ROTATE (RO)', 'the selection (or objects picked) by base and second point'],
  ['ERASE (E)', 'the selection (or objects picked)'],
  ['ZOOM (Z)', 'Extents or a window'],
  ['NEW / OPEN', 'a new drawing / a drawing of the workspace (file dialog, recent files)'],
  ['SAVE, QSAVE / SAVEAS', 'to the drawing\'s file / under a name and DXF version (R12 ... R2018)'],
  ['CLOSE', 'the drawing; asks to save changes'],
  ['UNDO / REDO', 'steps of the session\'s history'],
  ['COPYCLIP / CUTCLIP / PASTECLIP', 'the clipboard (Ctrl+C / Ctrl+X / Ctrl+V): paste asks for the insertion point, also into another drawing'],
  ['OSNAP (OS, DS)', 'object snap settings: each running snap on or off, polar increment (the drawing\'s OSMODE, POLARANG)'],
  ['HELP (?)', 'this list'],
];

export const KEY_HELP: [string, string][] = [
  ['Ctrl+S / Ctrl+Shift+S', 'save / save as'],
  ['Ctrl+O', 'open'],
  ['Ctrl+C / Ctrl+X / Ctrl+V', 'copy / cut / paste'],
  ['right click', 'Enter during a command; else the menu (repeat, recent, clipboard, modify)'],
  ['Ctrl+Z / Ctrl+Y', 'undo / redo'],
  ['Enter, Space, right click', 'end a step, repeat the last command'],
  ['Esc', 'cancel; then clear the selection'],
  ['Delete', 'erase the selection'],
  ['F1', 'help'],
  ['F3 / F7 / F8', 'object snap / grid / ortho'],
  ['F10 / F11 / F12', 'polar tracking / object snap tracking / dynamic input'],
  ['Tab (dynamic input)', 'from the distance field to the angle field (X to Y for a first point)'],
  ['wheel, middle drag, Space + drag', 'zoom about the cursor, pan'],
  ['click, drag', 'select; left to right: window, right to left: crossing'],
];

/** Commands that prompt step by step when typed without their arguments. */
const INTERACTIVE = new Set(['LINE', 'PLINE', 'CIRCLE', 'POINT', 'MOVE', 'COPY', 'ROTATE', 'ERASE', 'ZOOM', 'ARC', 'RECTANG', 'POLYGON', 'ELLIPSE', 'SPLINE', 'TEXT', 'MTEXT']);

export interface CommandLine {
  focus: (initial: string, enter?: boolean) => void;
  command: (text: string) => void;
  recent: string[];
  lastCommand: () => string;
}

export function bindCommandLine(app: App): CommandLine {
  const form = document.getElementById('cmdline') as HTMLFormElement;
  const input = document.getElementById('cmd') as HTMLInputElement;
  const past: string[] = [];
  let pastAt = 0;
  let last = '';
  /** The latest commands, newest first (the right-click menu's "Recent"). */
  const recent: string[] = [];

  const fail = (err: unknown): void => {
    if (err instanceof Cancelled) app.message('*Cancel*');
    else app.message(err instanceof ApiError ? `${err.code}: ${err.message}` : String((err as Error)?.message ?? err), true);
  };

  const send = async (cmd: string): Promise<void> => {
    const r = await app.api.send('POST', '/commands', { cmd, document_id: app.docId });
    const done = (r.result?.commands ?? []) as { command: string }[];
    app.message(done.map((d) => d.command).join(', ') || cmd);
  };

  const pointOrValue = async (message: string, base?: Point): Promise<Point> => {
    const p = await app.point(message, base);
    if (!p) throw new Cancelled();
    return p;
  };

  const selection = async (): Promise<string[]> => {
    if (app.selection.length) return [...app.selection];
    const hs = await app.select('Select objects:');
    if (!hs.length) throw new Cancelled();
    return hs;
  };

  const run = async (name: string, args: string[] = []): Promise<void> => {
    const modify = MODIFY_COMMANDS[name];
    if (modify) return modify(app);
    switch (name) {
      case 'NEW':
        return newDrawing(app);
      case 'OPEN':
        return openDrawing(app, args.join(' ') || undefined);
      case 'QSAVE':
        await quickSave(app);
        return;
      case 'SAVEAS': {
        // SAVEAS [path [version]]: a last word like R12 is the version
        const version = args.length > 1 && /^(R\d+|AC\d{4})$/i.test(args[args.length - 1]!) ? args.pop()!.toUpperCase() : undefined;
        await saveAs(app, args.join(' ') || undefined, version);
        return;
      }
      case 'CLOSE':
        return closeDrawing(app);
      case 'COPYCLIP':
      case 'CUTCLIP':
        return copyClip(app, name === 'CUTCLIP');
      case 'PASTECLIP':
        await pasteClip(app);
        return;
      case 'HELP':
        await helpDialog(COMMAND_HELP, KEY_HELP);
        return;
      case 'OSNAP':
        return osnapSettings(app);
      case 'PLINE':
        return plineCommand(app);
      case 'ARC':
        return arcCommand(app);
      case 'RECTANG':
        return rectangCommand(app);
      case 'POLYGON':
        return polygonCommand(app);
      case 'ELLIPSE':
        return ellipseCommand(app);
      case 'SPLINE':
        return splineCommand(app);
      case 'TEXT':
        return textCommand(app);
      case 'MTEXT':
        return mtextCommand(app);
      case 'LINE': {
        const pts: Point[] = [await pointOrValue('Specify first point:')];
        for (;;) {
          const p = await app.point(`Specify next point${pts.length > 1 ? ' or [Close]' : ''}:`, pts[pts.length - 1], true);
          if (!p) break;
          pts.push(p);
        }
        if (pts.length < 2) return;
        await send(`${name} ${pts.map(fmt).join(' ')}`);
        return;
      }
      case 'POINT':
        await send(`POINT ${fmt(await pointOrValue('Specify a point:'))}`);
        return;
      case 'CIRCLE': {
        const c = await pointOrValue('Specify center point:');
        const r = await radius(c);
        await send(`CIRCLE ${fmt(c)} ${r}`);
        return;
      }
      case 'ERASE': {
        const hs = await selection();
        await app.api.op('entities_delete', { document_id: app.docId, handles: hs });
        app.message(`ERASE: ${hs.length} object${hs.length === 1 ? '' : 's'}`);
        return;
      }
      case 'MOVE':
      case 'COPY': {
        const hs = await selection();
        const base = await pointOrValue('Specify base point:');
        const to = await pointOrValue('Specify second point:', base);
        await app.api.op('entities_transform', { document_id: app.docId, handles: hs, action: name === 'MOVE' ? 'move' : 'copy', vector: [to[0] - base[0], to[1] - base[1]] });
        app.message(`${name}: ${hs.length} object${hs.length === 1 ? '' : 's'}`);
        return;
      }
      case 'ROTATE': {
        const hs = await selection();
        const base = await pointOrValue('Specify base point:');
        const v = await app.value('Specify rotation angle (or pick a point):', base);
        const p = parsePoint(v, base, null);
        const angle = /^-?[\d.]+$/.test(v.trim()) ? Number(v) : p ? (Math.atan2(p[1] - base[1], p[0] - base[0]) * 180) / Math.PI : NaN;
        if (!Number.isFinite(angle)) throw new Error('ROTATE: give an angle in degrees or pick a point');
        await app.api.op('entities_transform', { document_id: app.docId, handles: hs, action: 'rotate', base, angle });
        app.message(`ROTATE: ${hs.length} object${hs.length === 1 ? '' : 's'}`);
        return;
      }
      case 'ZOOM': {
        const v = (await app.value('Specify corner of window or [Extents/Window]:')).trim().toUpperCase();
        if (v === 'E' || v === 'EXTENTS' || v === 'A' || v === 'ALL' || v === '') {
          await send('ZOOM E');
          return;
        }
        const a = parsePoint(v === 'W' || v === 'WINDOW' ? fmt(await pointOrValue('Specify first corner:')) : v, app.lastPoint, null);
        if (!a) throw new Error('ZOOM: a point, E or W');
        const b = await pointOrValue('Specify opposite corner:', a);
        await send(`ZOOM W ${fmt(a)} ${fmt(b)}`);
        return;
      }
    }
  };

  const radius = async (c: Point): Promise<number> => {
    const v = await app.value('Specify radius (or pick a point):', c);
    if (/^[\d.]+(e[-+]?\d+)?$/i.test(v.trim())) return Number(v);
    const p = parsePoint(v, c, null);
    if (!p) throw new Error('CIRCLE: a radius or a point');
    return Math.hypot(p[0] - c[0], p[1] - c[1]);
  };

  const start = (text: string): void => {
    const words = text.trim().split(/\s+/);
    const name = (ALIASES[words[0]!.toUpperCase()] ?? MODIFY_ALIASES[words[0]!.toUpperCase()] ?? words[0]!.toUpperCase());
    recent.splice(0, recent.length, ...[name, ...recent.filter((r) => r !== name)].slice(0, 6));
    app.message(`Command: ${text.trim()}`);
    app.busy = true;
    const job = PAGE_COMMANDS.has(name) ? run(name, words.slice(1)) : words.length === 1 && (INTERACTIVE.has(name) || name in MODIFY_COMMANDS) ? run(name) : send(text.trim());
    void job.catch(fail).finally(() => {
      app.busy = false;
      app.nextPrompt();
    });
  };

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = input.value;
    input.value = '';
    const a = app.ask;
    if (a) {
      // an answer to what is being asked
      if (a.kind === 'point') {
        if (!text.trim()) {
          if (a.optional) a.resolve(null);
          return;
        }
        const kw = a.keywords ? matchKeyword(text, a.keywords) : null;
        if (kw) {
          a.reject(new Keyword(kw));
          return;
        }
        const cursor = app.overlay.cursor ? app.view.toWorld(app.overlay.cursor[0], app.overlay.cursor[1]) : null;
        const p = parsePoint(text, a.base ?? app.lastPoint, app.aim ?? cursor);
        if (!p) {
          app.message(`${text}: not a point (x,y  @dx,dy  @dist<angle  or a distance)`, true);
          return;
        }
        app.lastPoint = p;
        a.resolve(p);
      } else if (a.kind === 'select') {
        if (!text.trim()) app.endSelect(a);
        else app.message('Select objects: pick them on the drawing, then press Enter', true);
      } else a.resolve(text);
      return;
    }
    if (!text.trim()) {
      if (last) start(last);
      return;
    }
    past.push(text);
    pastAt = past.length;
    last = text.trim().split(/\s+/).length === 1 ? text : last;
    start(text);
  });

  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'ArrowUp' && past.length) {
      pastAt = Math.max(0, pastAt - 1);
      input.value = past[pastAt] ?? '';
      ev.preventDefault();
    } else if (ev.key === 'ArrowDown' && past.length) {
      pastAt = Math.min(past.length, pastAt + 1);
      input.value = past[pastAt] ?? '';
      ev.preventDefault();
    } else if (ev.key === 'Escape') {
      input.value = '';
      input.blur();
    } else if (ev.key === ' ' && (app.ask ? !(app.ask.kind === 'value' && app.ask.text) : !input.value.trim())) {
      // Space is Enter (AutoCAD): it answers a prompt, or repeats the last command on an empty
      // line; a command typed whole with its arguments ("CIRCLE 0,0 5") keeps its spaces
      ev.preventDefault();
      form.requestSubmit();
    }
  });

  return {
    recent,
    lastCommand: () => last.trim(),
    /** Starts a command as if typed (keys and menus), unless one is under way. */
    command: (text: string) => {
      if (app.busy || app.ask) {
        app.message(`${text}: finish or cancel (Esc) the command under way first`, true);
        return;
      }
      last = text;
      start(text);
    },
    focus: (initial: string, enter = false) => {
      input.focus();
      input.value += initial;
      if (enter) form.requestSubmit();
    },
  };
}
