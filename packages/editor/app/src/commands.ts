// The command line. A command typed whole ("CIRCLE 0,0 5") goes as it is to the session's command
// interpreter (POST /commands), the one scripts use. A command typed alone prompts for what it
// needs, as AutoCAD does ("Specify first point:"), from clicks (snapped) or typed coordinates,
// then sends the same text; MOVE, COPY, ROTATE and ERASE act on the selection (or ask for one)
// through entities_transform / entities_delete. Each command is one undo step.
import { ApiError } from './api.js';
import type { App } from './app.js';
import { Cancelled, fmt, parsePoint, type Point } from './prompts.js';

const ALIASES: Record<string, string> = {
  L: 'LINE', C: 'CIRCLE', PL: 'PLINE', E: 'ERASE', M: 'MOVE', CO: 'COPY', CP: 'COPY', RO: 'ROTATE', Z: 'ZOOM', U: 'UNDO', PO: 'POINT',
};

/** Commands that prompt step by step when typed without their arguments. */
const INTERACTIVE = new Set(['LINE', 'PLINE', 'CIRCLE', 'POINT', 'MOVE', 'COPY', 'ROTATE', 'ERASE', 'ZOOM']);

export function bindCommandLine(app: App): { focus: (initial: string) => void } {
  const form = document.getElementById('cmdline') as HTMLFormElement;
  const input = document.getElementById('cmd') as HTMLInputElement;
  const past: string[] = [];
  let pastAt = 0;
  let last = '';

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

  const run = async (name: string): Promise<void> => {
    switch (name) {
      case 'LINE':
      case 'PLINE': {
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
    const name = (ALIASES[words[0]!.toUpperCase()] ?? words[0]!.toUpperCase());
    app.message(`Command: ${text.trim()}`);
    app.busy = true;
    const job = words.length === 1 && INTERACTIVE.has(name) ? run(name) : send(text.trim());
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
        const cursor = app.overlay.cursor ? app.view.toWorld(app.overlay.cursor[0], app.overlay.cursor[1]) : null;
        const p = parsePoint(text, a.base ?? app.lastPoint, cursor);
        if (!p) {
          app.message(`${text}: not a point (x,y  @dx,dy  @dist<angle  or a distance)`, true);
          return;
        }
        app.lastPoint = p;
        a.resolve(p);
      } else if (a.kind === 'select') {
        if (!text.trim()) a.resolve(a.picked);
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
    }
  });

  return {
    focus: (initial: string) => {
      input.focus();
      input.value += initial;
    },
  };
}
