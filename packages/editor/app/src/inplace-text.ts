// Text typed in place on the drawing (AutoCAD's in-place text editor): a box at the insertion point
// in the text's height and rotation, asked as a text value (so Esc cancels it like any prompt, and
// the command line can still answer). TEXT's box is one line, Enter ends it; MTEXT's box keeps
// Enter for new lines and ends with Ctrl+Enter or a click outside it.
import type { App } from './app.js';
import type { Point } from './prompts.js';
import { FONT_FAMILY } from './text.js';

export interface InPlace {
  message: string;
  at: Point;
  /** Drawing units. */
  height: number;
  /** Degrees, counter-clockwise. */
  rotation: number;
  multiline: boolean;
  /** MTEXT's box width in drawing units (0: as wide as the text). */
  width?: number;
  initial?: string;
}

/** Lines already typed by the command, shown where they will be until it ends. */
export function ghostText(app: App, at: Point, height: number, rotation: number, text: string): () => void {
  const g = document.createElement('div');
  g.className = 'inplace-ghost';
  g.textContent = text;
  document.getElementById('viewport')!.append(g);
  const stop = follow(() => place(app, g, at, height, rotation, false));
  return () => {
    stop();
    g.remove();
  };
}

/** Keeps a box on its drawing point while the view pans and zooms (once a frame while it lives). */
function follow(placeIt: () => void): () => void {
  let alive = true;
  const tick = (): void => {
    if (!alive) return;
    placeIt();
    requestAnimationFrame(tick);
  };
  tick();
  return () => {
    alive = false;
  };
}

function place(app: App, e: HTMLElement, at: Point, height: number, rotation: number, top: boolean): void {
  const [sx, sy] = app.view.toScreen(at[0], at[1]);
  const px = Math.max(6, height * app.view.scale);
  e.style.fontFamily = `${FONT_FAMILY}, sans-serif`;
  e.style.fontSize = `${px}px`;
  e.style.lineHeight = top ? '1.667' : '1';
  e.style.left = `${sx}px`;
  // TEXT: the insertion point is the baseline's left end (the box's bottom left); MTEXT: the top left
  e.style.top = top ? `${sy}px` : `${sy - px * 1.15}px`;
  e.style.transformOrigin = top ? '0 0' : '0 100%';
  e.style.transform = `rotate(${-rotation}deg)`;
}

/** Asks for a text typed in place; resolves with it ('' for an empty Enter), rejects with Cancelled on Esc. */
export function typeInPlace(app: App, o: InPlace): Promise<string> {
  const box = o.multiline ? document.createElement('textarea') : document.createElement('input');
  box.className = 'inplace-text';
  box.setAttribute('aria-label', o.message);
  box.spellcheck = false;
  box.value = o.initial ?? '';
  const viewport = document.getElementById('viewport')!;
  const stopFollowing = follow(() => {
    place(app, box, o.at, o.height, o.rotation, o.multiline);
    fit();
  });
  function fit(): void {
    // the box grows with what is typed (at least a few characters wide)
    const px = parseFloat(box.style.fontSize);
    const lines = box.value.split('\n');
    const longest = Math.max(4, ...lines.map((l) => l.length + 1));
    box.style.width = o.multiline && o.width ? `${Math.max(o.width * app.view.scale, px * 2)}px` : `${longest * px * 0.62}px`;
    if (box instanceof HTMLTextAreaElement) box.style.height = `${Math.max(1, lines.length) * px * 1.667 + 4}px`;
  }
  const asked = app.value(o.message, undefined, true);
  viewport.append(box);
  box.focus();
  box.select();
  const finish = (): void => {
    if (app.ask?.kind === 'value' && app.ask.message === o.message) app.ask.resolve(box.value);
  };
  box.addEventListener('input', fit);
  (box as HTMLElement).addEventListener('keydown', (ev) => {
    ev.stopPropagation();
    if (ev.key === 'Escape') {
      app.cancelAsk();
      return;
    }
    if (ev.key !== 'Enter') return;
    if (o.multiline && !(ev.ctrlKey || ev.metaKey)) return;
    ev.preventDefault();
    finish();
  });
  // MTEXT: a click on the drawing outside the box ends it (and picks nothing)
  const outside = (ev: MouseEvent): void => {
    if (ev.target === box || ev.button !== 0) return;
    if ((ev.target as HTMLElement | null)?.id !== 'gl') return;
    ev.stopPropagation();
    ev.preventDefault();
    finish();
  };
  if (o.multiline) window.addEventListener('mousedown', outside, true);
  const done = (): void => {
    stopFollowing();
    window.removeEventListener('mousedown', outside, true);
    box.remove();
    (document.getElementById('gl') as HTMLElement | null)?.focus();
  };
  return asked.finally(done);
}
