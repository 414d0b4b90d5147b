// The editor page: takes the session token from the URL fragment (never sent, never logged) and
// removes it from the address bar, loads the font, then shows the live session.
import './style.css';
import { App } from './app.js';
import { bindCommandLine } from './commands.js';
import { bindInput, type ToggleName } from './input.js';
import { bindDynamicInput } from './dynamic-input.js';
import { OSNAP_OFF } from './drawing-aids.js';
import { osnapSettings } from './osnap-panel.js';
import { bindPanels } from './panels.js';
import { loadFont } from './text.js';

const TOKEN_KEY = 'linework-token';

function takeToken(): string | null {
  const m = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  if (m) {
    const t = decodeURIComponent(m[1]!);
    sessionStorage.setItem(TOKEN_KEY, t);
    history.replaceState(null, '', location.pathname + location.search);
    return t;
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

async function main(): Promise<void> {
  const token = takeToken();
  if (!token) {
    const box = document.getElementById('login')!;
    box.hidden = false;
    document.getElementById('login-form')!.addEventListener('submit', (ev) => {
      ev.preventDefault();
      sessionStorage.setItem(TOKEN_KEY, (document.getElementById('login-token') as HTMLInputElement).value.trim());
      location.reload();
    });
    return;
  }
  // the font loads while the session is asked for the drawing; text waits for it
  const app = new App(token, document.getElementById('gl') as HTMLCanvasElement, document.getElementById('overlay') as HTMLCanvasElement, loadFont());
  bindPanels(app);
  const cmd = bindCommandLine(app);
  const setToggle = (name: ToggleName): void => {
    app.toggles[name] = !app.toggles[name];
    // F3 is OSMODE's off bit: the drawing keeps it
    if (name === 'osnap') void app.setOsmode(app.toggles.osnap ? app.osmode & ~OSNAP_OFF : app.osmode | OSNAP_OFF).catch(() => undefined);
    document.getElementById(`t-${name}`)!.classList.toggle('on', app.toggles[name]);
    if (app.view.lineweights !== app.toggles.lwt) app.view.dropCache();
    app.view.lineweights = app.toggles.lwt;
    app.message(`<${name.toUpperCase()} ${app.toggles[name] ? 'on' : 'off'}>`);
    app.view.invalidate();
  };
  for (const name of ['grid', 'ortho', 'osnap', 'polar', 'otrack', 'dyn', 'lwt'] as const) document.getElementById(`t-${name}`)!.addEventListener('click', () => setToggle(name));
  // the drawing's OSMODE read (another drawing shown, another client changed it): the button follows
  app.on.aids.push(() => document.getElementById('t-osnap')!.classList.toggle('on', app.toggles.osnap));
  document.getElementById('t-osnap')!.addEventListener('contextmenu', (ev) => {
    ev.preventDefault();
    void osnapSettings(app);
  });
  document.getElementById('t-bg')!.addEventListener('click', () => {
    document.body.classList.toggle('light', app.toggles.dark);
    void app.setBackground(!app.toggles.dark);
  });
  const canvas = document.getElementById('gl') as HTMLCanvasElement;
  canvas.tabIndex = 0;
  bindInput(app, canvas, cmd, setToggle, bindDynamicInput(app, document.getElementById('viewport')!));
  // for tests and benchmarks: the state a script may wait on
  (window as unknown as { linework: unknown }).linework = {
    app,
    get ready() { return app.view.scene !== null; },
    get frames() { return app.view.stats.frames; },
    get version() { return app.version; },
    get selection() { return [...app.selection]; },
    get prompt() { return app.ask?.message ?? null; },
    get grips() { return app.grips.map((g) => ({ handle: g.handle, at: g.at, role: g.role })); },
    get hover() { return [...app.hover]; },
    get stats() { return { ...app.stats }; },
    /** The document whose display list a frame has drawn, or null. */
    get drawn() { return app.shown && app.view.stats.frames > app.shown.frame ? app.shown.document_id : null; },
    /** The whole display list is in (a large drawing's first frame shows the parts around the view). */
    get complete() { return app.complete; },
    toScreen: (x: number, y: number) => app.view.toScreen(x, y),
    /** Draws one frame now and waits for the GPU: its time in ms. */
    frameSync: () => {
      const t0 = performance.now();
      app.view.render();
      // readPixels waits for the frame (Chromium's finish() does not)
      app.view.gl.readPixels(0, 0, 1, 1, app.view.gl.RGBA, app.view.gl.UNSIGNED_BYTE, new Uint8Array(4));
      return performance.now() - t0;
    },
  };
  try {
    await app.start();
  } catch (err) {
    app.message(String((err as Error)?.message ?? err), true);
  }
}

void main();
