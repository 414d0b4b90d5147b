// Dynamic input (AutoCAD's DYNMODE, F12): the prompt and its input fields in a box next to the
// cursor. A point asked from a base shows the distance and angle of the cursor (or of the snapped
// or tracked point); typing a number gives the length along that direction, Tab moves to the angle
// field (the typed angle then fixes the direction), "x,y" is absolute and "@dx,dy" relative. A first
// point shows X and Y fields. A value (a radius, a height) is one field. Enter (or Space) answers.
import type { App } from './app.js';
import { dynamicPoint } from './drawing-aids.js';
import { Keyword, matchKeyword, parsePoint, type Point } from './prompts.js';

export interface DynamicInput {
  /** Redraws the box at the cursor with the live values. */
  update: () => void;
  /** A key typed on the drawing: true when the box took it. */
  type: (key: string) => boolean;
}

const num = (v: number): string => String(Math.round(v * 10000) / 10000);

export function bindDynamicInput(app: App, viewport: HTMLElement): DynamicInput {
  const box = document.createElement('div');
  box.id = 'dyn';
  box.hidden = true;
  const label = document.createElement('span');
  label.className = 'dyn-prompt';
  const fields = [0, 1].map((i) => {
    const f = document.createElement('input');
    f.className = 'dyn-field';
    f.dataset.field = String(i);
    f.autocomplete = 'off';
    f.spellcheck = false;
    return f;
  });
  const sep = document.createElement('span');
  sep.className = 'dyn-sep';
  box.append(label, fields[0]!, sep, fields[1]!);
  viewport.append(box);
  let typing = false;

  const clear = (): void => {
    typing = false;
    for (const f of fields) f.value = '';
  };

  const update = (): void => {
    const a = app.ask;
    // without a cursor on the drawing (keys only) the box waits at the middle of the view
    const cursor = app.overlay.cursor ?? [viewport.clientWidth / 2, viewport.clientHeight / 2];
    const on = app.toggles.dyn && !!a && (!!app.overlay.cursor || typing) && !(a.kind === 'value' && a.text);
    box.hidden = !on;
    if (!on || !a) {
      if (typing && !a) clear();
      return;
    }
    label.textContent = a.message;
    const w = app.aim ?? app.view.toWorld(cursor[0], cursor[1]);
    const two = a.kind === 'point';
    const showFields = a.kind !== 'select';
    fields[0]!.hidden = !showFields;
    fields[1]!.hidden = !two;
    sep.hidden = !two;
    if (a.kind === 'point' && a.base) {
      const dx = w[0] - a.base[0], dy = w[1] - a.base[1];
      let ang = (Math.atan2(dy, dx) * 180) / Math.PI;
      if (ang < 0) ang += 360;
      fields[0]!.placeholder = num(Math.hypot(dx, dy));
      fields[1]!.placeholder = `${num(ang)}°`;
      sep.textContent = '<';
      fields[0]!.setAttribute('aria-label', 'Distance');
      fields[1]!.setAttribute('aria-label', 'Angle');
    } else if (a.kind === 'point') {
      fields[0]!.placeholder = num(w[0]);
      fields[1]!.placeholder = num(w[1]);
      sep.textContent = ',';
      fields[0]!.setAttribute('aria-label', 'X');
      fields[1]!.setAttribute('aria-label', 'Y');
    } else {
      fields[0]!.placeholder = '';
      fields[0]!.setAttribute('aria-label', 'Value');
    }
    // next to the cursor, kept inside the view
    const vw = viewport.clientWidth, vh = viewport.clientHeight;
    const bw = box.offsetWidth || 200, bh = box.offsetHeight || 24;
    box.style.left = `${Math.max(0, Math.min(cursor[0] + 18, vw - bw - 2))}px`;
    box.style.top = `${Math.max(0, Math.min(cursor[1] + 18, vh - bh - 2))}px`;
  };

  const submit = (): void => {
    const a = app.ask;
    if (!a) return;
    const first = fields[0]!.value, second = fields[1]!.value;
    if (a.kind === 'value') {
      clear();
      a.resolve(first);
      return;
    }
    if (a.kind !== 'point') return;
    if (!first.trim() && !second.trim()) {
      clear();
      if (a.optional) a.resolve(null);
      return;
    }
    const kw = a.keywords ? matchKeyword(first, a.keywords) : null;
    if (kw) {
      clear();
      a.reject(new Keyword(kw));
      return;
    }
    const cursor = app.overlay.cursor ? app.view.toWorld(app.overlay.cursor[0], app.overlay.cursor[1]) : null;
    const p: Point | null = dynamicPoint(first, second, a.base ?? app.lastPoint ?? undefined, app.aim ?? cursor, parsePoint);
    if (!p) {
      app.note(`${first}${second ? ` < ${second}` : ''}: not a point (a distance, distance Tab angle, x,y or @dx,dy)`, true);
      return;
    }
    clear();
    app.message(`${a.message} ${first}${second ? `<${second}` : ''}`);
    app.lastPoint = p;
    a.resolve(p);
  };

  for (const [i, f] of fields.entries()) {
    f.addEventListener('keydown', (ev) => {
      if (ev.key === 'Tab') {
        // Tab: the other field (the angle locks the direction)
        ev.preventDefault();
        const other = fields[1 - i]!;
        if (!other.hidden) other.focus();
      } else if (ev.key === 'Enter' || (ev.key === ' ' && !(app.ask?.kind === 'value' && app.ask.text))) {
        ev.preventDefault();
        submit();
        (document.getElementById('gl') as HTMLElement | null)?.focus();
      } else if (ev.key === 'Escape') {
        clear();
        (document.getElementById('gl') as HTMLElement | null)?.focus();
      }
    });
  }

  app.on.ask.push(() => {
    const a = app.ask;
    if (!a) clear();
    // a command typed on the command line then asks for points: what is typed next goes to the
    // box at the cursor, as in AutoCAD (the command line keeps what the user has begun typing)
    const cmd = document.getElementById('cmd') as HTMLInputElement | null;
    if (a && app.toggles.dyn && (a.kind === 'point' || (a.kind === 'value' && !a.text)) && cmd && document.activeElement === cmd && !cmd.value) {
      (document.getElementById('gl') as HTMLElement | null)?.focus();
    }
    update();
  });

  return {
    update,
    type: (key: string): boolean => {
      const a = app.ask;
      if (!app.toggles.dyn || !a || (a.kind !== 'point' && a.kind !== 'value') || (a.kind === 'value' && a.text)) return false;
      typing = true;
      update();
      const f = fields[0]!;
      f.focus();
      f.value += key;
      return true;
    },
  };
}
