// Mouse and keyboard on the drawing, with AutoCAD's conventions: wheel zoom about the cursor,
// middle drag (or space + drag) pans, a click adds the entity under the pick box to the selection
// (shift removes), a drag or two clicks make a window (left to right) or crossing (right to left),
// Esc ends what is under way or clears the selection, Delete erases, Ctrl+Z / Ctrl+Y undo and
// redo through the session, F3 / F7 / F8 toggle object snap, grid and ortho.
import { PICK_PX, type App } from './app.js';
import { ApiError } from './api.js';
import type { Point } from './prompts.js';
import type { SnapKind } from './overlay.js';
import type { CommandLine } from './commands.js';
import { showMenu, type MenuItem } from './menu.js';
import { clipboard } from './clipboard.js';
import { gripEdit, gripPreview, type Grip } from './grips.js';
import { GRIP_PX } from './overlay.js';
import { Cancelled } from './prompts.js';
import { editText } from './draw-commands.js';
import { constrain, osnapModes } from './drawing-aids.js';
import type { DynamicInput } from './dynamic-input.js';

const DRAG_PX = 4;

export type ToggleName = 'grid' | 'ortho' | 'osnap' | 'polar' | 'otrack' | 'dyn' | 'lwt';

export function bindInput(app: App, canvas: HTMLCanvasElement, cmd: CommandLine, toggle: (name: ToggleName) => void, dyn: DynamicInput): void {
  const view = app.view;
  const focusCommandLine = cmd.focus;
  const command = cmd.command;
  let down: { x: number; y: number; button: number; shift: boolean } | null = null;
  let panning: { x: number; y: number } | null = null;
  let implied: { x: number; y: number; shift: boolean } | null = null;
  let space = false;
  let snapSerial = 0;
  let snapBusy = false;
  let snapWanted: [number, number] | null = null;

  const local = (ev: MouseEvent): [number, number] => {
    const r = canvas.getBoundingClientRect();
    return [ev.clientX - r.left, ev.clientY - r.top];
  };
  const aperture = (): number => PICK_PX / view.scale;
  /** Objects are being picked (hover shows what a click would take). */
  const picking = (): boolean => !app.ask || app.ask.kind === 'select' || (app.ask.kind === 'point' && !!app.ask.pickbox);
  const fail = (err: unknown): void => app.message(err instanceof ApiError ? `${err.code}: ${err.message}` : String((err as Error)?.message ?? err), true);

  /** Ortho, polar tracking or object-snap tracking: what the cursor stands for without a snap. */
  const tracked = (p: Point, base: Point | undefined) => constrain(p, base, {
    ortho: app.toggles.ortho, polar: app.toggles.polar, otrack: app.toggles.otrack, polarAngle: app.polarAngle, acquired: app.acquired,
  }, view.scale);
  const orthoed = (p: Point, base: Point | undefined): Point => tracked(p, base)?.at ?? p;

  const snapAt = async (w: Point, base?: Point): Promise<{ at: Point; kind: SnapKind; handle?: string } | null> => {
    const modes = app.toggles.osnap ? osnapModes(app.osmode) : [];
    if (!modes.length || app.docId === null) return null;
    const acquired = app.acquired.map((a) => a.handle).filter((h): h is string => !!h);
    const r = await app.api.op('snap', { document_id: app.docId, point: w, aperture: aperture(), base, layout: app.layout, modes, ...(acquired.length ? { acquired } : {}) }).catch(() => null);
    const s = r?.result?.snap as { point: number[]; kind: SnapKind; handle?: string } | null | undefined;
    return s ? { at: [s.point[0]!, s.point[1]!], kind: s.kind, ...(s.handle ? { handle: s.handle } : {}) } : null;
  };

  /** A snap shown under the cursor is acquired for tracking (AutoCAD keeps the latest seven). */
  const acquire = (s: { at: Point; kind: SnapKind; handle?: string }): void => {
    if (!app.toggles.otrack && !osnapModes(app.osmode).includes('extension')) return;
    if (s.kind === 'extension' || s.kind === 'nearest') return;
    if (app.acquired.some((a) => a.at[0] === s.at[0] && a.at[1] === s.at[1])) return;
    app.acquired.push({ at: s.at, kind: s.kind, ...(s.handle ? { handle: s.handle } : {}) });
    if (app.acquired.length > 7) app.acquired.shift();
  };

  /** Keeps one snap query in flight, for the latest cursor position. */
  const trackSnap = (w: Point): void => {
    snapWanted = w;
    if (snapBusy) return;
    snapBusy = true;
    const serial = ++snapSerial;
    const at = snapWanted;
    snapWanted = null;
    const ask = app.ask;
    void snapAt(at, ask?.kind === 'point' ? ask.base : undefined).then((s) => {
      snapBusy = false;
      if (serial === snapSerial && app.ask?.kind === 'point') {
        app.overlay.snap = s;
        if (s) acquire(s);
        if (app.overlay.cursor) bandsFor(app.overlay.cursor[0], app.overlay.cursor[1]);
        app.overlayOnly();
      }
      if (snapWanted) trackSnap(snapWanted);
    });
  };

  // ---- hover pre-highlight: one pick query in flight, for the latest cursor or window ----
  type HoverQuery = { at: Point } | { window: [number, number, number, number] };
  let hoverBusy = false;
  let hoverWanted: HoverQuery | null = null;
  const trackHover = (q: HoverQuery): void => {
    hoverWanted = q;
    if (hoverBusy || app.docId === null) return;
    hoverBusy = true;
    const ask = hoverWanted;
    hoverWanted = null;
    const fields = 'at' in ask
      ? { point: ask.at, aperture: aperture() }
      : (() => {
        const a = view.toWorld(ask.window[0], ask.window[1]), b = view.toWorld(ask.window[2], ask.window[3]);
        return { window: [a[0], a[1], b[0], b[1]], crossing: ask.window[2] < ask.window[0] };
      })();
    const t0 = performance.now();
    void app.api.op('pick', { document_id: app.docId, layout: app.layout, ...fields }).then((r) => {
      app.stats.hoverMs = performance.now() - t0;
      // the cursor may have left meanwhile
      if (app.overlay.cursor && picking()) app.setHover((r.result?.handles ?? []) as string[]);
    }, () => undefined).finally(() => {
      hoverBusy = false;
      if (hoverWanted) trackHover(hoverWanted);
    });
  };

  // ---- grips ----
  let gripPress: { x: number; y: number } | null = null;
  const gripAt = (sx: number, sy: number): Grip | null => {
    let best: Grip | null = null, bestD = GRIP_PX + 2;
    for (const g of app.grips) {
      const [gx, gy] = view.toScreen(g.at[0], g.at[1]);
      const d = Math.max(Math.abs(gx - sx), Math.abs(gy - sy));
      if (d <= bestD) {
        best = g;
        bestD = d;
      }
    }
    return best;
  };
  /** Drags a grip: the stretch point is asked like any point (snaps, ortho, typed coordinates). */
  const dragGrip = async (g: Grip): Promise<void> => {
    const rec = app.gripRecs.get(g.handle);
    if (!rec || app.docId === null) return;
    app.busy = true;
    app.setHover([]);
    app.overlay.hotGrip = g.at;
    app.preview = (to) => gripPreview(rec, g, to, (x, y) => view.toScreen(x, y));
    try {
      const to = await app.point('** STRETCH ** Specify stretch point:', g.at);
      if (!to) return;
      const edit = gripEdit(rec, g, to);
      if (!edit) {
        app.note('That would make the entity degenerate', true);
        return;
      }
      await app.api.op(edit.op, { document_id: app.docId, ...edit.fields });
    } catch (err) {
      if (!(err instanceof Cancelled)) fail(err);
    } finally {
      app.preview = null;
      app.overlay.hotGrip = null;
      app.busy = false;
      app.overlayOnly();
      app.nextPrompt();
    }
  };

  const bandsFor = (sx: number, sy: number): void => {
    const a = app.ask;
    app.overlay.bands = [];
    app.overlay.track = null;
    app.aim = null;
    if (a?.kind === 'point') {
      // the point a click would give: the snap, else the tracked point, else the cursor
      const w = view.toWorld(sx, sy);
      const t = app.overlay.snap ? null : tracked(w, a.base);
      app.aim = app.overlay.snap?.at ?? t?.at ?? w;
      const scr = (p: Point): [number, number] => view.toScreen(p[0], p[1]);
      const lines = (t?.lines ?? []).filter(() => !app.toggles.ortho).map(([p, q]) => [...scr(p), ...scr(q)] as [number, number, number, number]);
      const acquired = app.toggles.otrack ? app.acquired.map((x) => scr(x.at)) : [];
      if (lines.length || acquired.length || t) app.overlay.track = { lines, acquired, label: t?.label ?? null };
    }
    dyn.update();
    if (app.preview && (a?.kind === 'point' || a?.kind === 'value')) {
      const t0 = performance.now();
      const to = app.overlay.snap ? app.overlay.snap.at : orthoed(view.toWorld(sx, sy), a.base);
      app.overlay.bands.push(...app.preview(to));
      app.stats.previewMs = performance.now() - t0;
    }
    if (a && (a.kind === 'point' || a.kind === 'value') && a.base) {
      const [bx, by] = view.toScreen(a.base[0], a.base[1]);
      const [tx, ty] = app.aim ? view.toScreen(app.aim[0], app.aim[1]) : [sx, sy];
      app.overlay.bands.push([bx, by, tx, ty]);
    }
  };

  /** A click's point still being snapped: Enter pressed meanwhile waits for it (it came first). */
  let pointInFlight: Promise<void> | null = null;
  const pickPoint = (sx: number, sy: number, shift = false): Promise<void> => {
    const p = snapAndAnswer(sx, sy, shift);
    pointInFlight = p;
    void p.finally(() => {
      if (pointInFlight === p) pointInFlight = null;
    });
    return p;
  };
  const snapAndAnswer = async (sx: number, sy: number, shift: boolean): Promise<void> => {
    const a = app.ask;
    if (!a || a.kind !== 'point') return;
    const w = view.toWorld(sx, sy);
    const snapped = a.pickbox ? null : await snapAt(w, a.base);
    if (app.ask !== a) return;
    const p = snapped ? snapped.at : a.pickbox ? w : orthoed(w, a.base);
    app.lastPoint = p;
    if (shift) a.shift = true;
    a.resolve(p);
  };

  /** A click on the drawing outside any tool: the entity under the pick box, added or removed. */
  const clickSelect = async (sx: number, sy: number, remove: boolean): Promise<boolean> => {
    const w = view.toWorld(sx, sy);
    const a = app.ask;
    if (a?.kind === 'select') {
      const asked = app.api.op('pick', { document_id: app.docId, point: w, aperture: aperture(), layout: app.layout }).catch(() => null);
      a.inflight = Promise.all([a.inflight, asked]);
      const r = await asked;
      const hs = (r?.result?.handles ?? []) as string[];
      if (!hs.length || app.ask !== a) return false;
      app.addPicked(a, hs, (r?.result?.types ?? []) as string[], remove);
      return true;
    }
    const r = await app.api.op('select', { document_id: app.docId, pick: [w[0], w[1]], aperture: aperture(), mode: remove ? 'remove' : 'add', layout: app.layout });
    return ((r.result?.picked ?? []) as string[]).length > 0;
  };

  const windowSelect = async (from: [number, number], to: [number, number], remove: boolean): Promise<void> => {
    const a = view.toWorld(from[0], from[1]);
    const b = view.toWorld(to[0], to[1]);
    const crossing = to[0] < from[0];
    const box = [a[0], a[1], b[0], b[1]];
    const ask = app.ask;
    if (ask?.kind === 'select') {
      // the pick set of a command step is the page's own: the session's selection stays
      const asked = app.api.op('pick', { document_id: app.docId, window: box, crossing, layout: app.layout }).catch(fail);
      ask.inflight = Promise.all([ask.inflight, asked]);
      const r = await asked;
      if (app.ask !== ask) return;
      app.addPicked(ask, (r?.result?.handles ?? []) as string[], (r?.result?.types ?? []) as string[], remove);
      return;
    }
    await app.api.op('select', { document_id: app.docId, window: box, crossing, mode: remove ? 'remove' : 'add', layout: app.layout }).catch(fail);
  };

  canvas.addEventListener('contextmenu', (ev) => ev.preventDefault());

  // a double click on a text edits it in place of the command line
  canvas.addEventListener('dblclick', (ev) => {
    if (app.ask || app.busy || app.docId === null) return;
    const [x, y] = local(ev);
    void app.api.op('pick', { document_id: app.docId, point: view.toWorld(x, y), aperture: aperture(), layout: app.layout }).then(async (r) => {
      const i = ((r.result?.types ?? []) as string[]).findIndex((t) => t === 'Text' || t === 'MText');
      if (i < 0 || app.ask || app.busy) return;
      app.busy = true;
      try {
        await editText(app, (r.result.handles as string[])[i]!);
      } catch (err) {
        if (!(err instanceof Cancelled)) fail(err);
      } finally {
        app.busy = false;
        app.nextPrompt();
      }
    }, fail);
  });

  const contextMenu = (x: number, y: number): void => {
    const last = cmd.lastCommand();
    const sel = app.selection.length > 0;
    const on = (text: string, enabled = true): MenuItem => ({ label: text, ...(enabled ? { run: () => command(text.toUpperCase()) } : {}) });
    const items: MenuItem[] = [
      { label: last ? `Repeat ${last.toUpperCase()}` : 'Repeat', ...(last ? { run: () => command(last) } : {}) },
      ...cmd.recent.slice(0, 5).map((r) => ({ label: `Recent: ${r}`, run: () => command(r) })),
      { label: '' },
      { label: 'Cut', ...(sel ? { run: () => command('CUTCLIP') } : {}) },
      { label: 'Copy', ...(sel ? { run: () => command('COPYCLIP') } : {}) },
      { label: 'Paste', ...(clipboard() ? { run: () => command('PASTECLIP') } : {}) },
      { label: '' },
      on('Erase', sel), on('Move', sel), { label: 'Copy with base point', ...(sel ? { run: () => command('COPY') } : {}) }, on('Rotate', sel), on('Scale', sel),
      { label: 'Properties', run: () => document.getElementById('properties')?.scrollIntoView() },
      { label: 'Deselect all', ...(sel ? { run: () => void app.api.op('select', { document_id: app.docId, mode: 'clear' }).catch(fail) } : {}) },
    ];
    showMenu(items, x, y, 'Drawing');
  };

  canvas.addEventListener('mousedown', (ev) => {
    canvas.focus();
    const [x, y] = local(ev);
    if (ev.button === 1 || (ev.button === 0 && space)) {
      if (space) spacePanned = true;
      panning = { x, y };
      ev.preventDefault();
      return;
    }
    if (ev.button === 2) {
      // right click: Enter during a command (ends a selection or an optional point), as in
      // AutoCAD; with none under way, the shortcut menu
      const a = app.ask;
      if (a?.kind === 'select') app.endSelect(a);
      else if (a?.kind === 'point' && a.optional) a.resolve(null);
      else if (a?.kind === 'value') focusCommandLine('', true);
      else if (!a && !app.busy) contextMenu(ev.clientX, ev.clientY);
      return;
    }
    if (ev.button === 0) {
      const g = !app.ask && !app.busy && !ev.shiftKey ? gripAt(x, y) : null;
      if (g) {
        gripPress = { x, y };
        void dragGrip(g);
        return;
      }
      down = { x, y, button: 0, shift: ev.shiftKey };
    }
  });

  window.addEventListener('mouseup', (ev) => {
    const [x, y] = local(ev);
    if (panning) {
      panning = null;
      return;
    }
    if (gripPress) {
      // a grip dragged and dropped answers at once; a grip clicked waits for the next click
      const moved = Math.hypot(x - gripPress.x, y - gripPress.y) > DRAG_PX;
      gripPress = null;
      if (moved && app.ask?.kind === 'point') void pickPoint(x, y);
      return;
    }
    const d = down;
    down = null;
    if (!d) return;
    const moved = Math.hypot(x - d.x, y - d.y) > DRAG_PX;
    const a = app.ask;
    if (a?.kind === 'point') {
      void pickPoint(x, y, d.shift || ev.shiftKey);
      return;
    }
    if (a?.kind === 'value') {
      // a picked point answers a value as its coordinates
      const w = view.toWorld(x, y);
      a.resolve(`${w[0]},${w[1]}`);
      return;
    }
    if (moved) {
      app.overlay.window = null;
      void windowSelect([d.x, d.y], [x, y], d.shift);
      return;
    }
    if (implied) {
      const from = implied;
      implied = null;
      app.overlay.window = null;
      void windowSelect([from.x, from.y], [x, y], from.shift);
      return;
    }
    void clickSelect(x, y, d.shift).then((hit) => {
      if (!hit) {
        // nothing under the pick box: the first corner of a window
        implied = { x, y, shift: d.shift };
      }
    }, fail);
  });

  canvas.addEventListener('mousemove', (ev) => {
    const [x, y] = local(ev);
    app.overlay.cursor = [x, y];
    const w = view.toWorld(x, y);
    const coords = document.getElementById('coords');
    if (coords) coords.textContent = `${w[0].toFixed(4)}, ${w[1].toFixed(4)}`;
    if (panning) {
      view.panBy(x - panning.x, y - panning.y);
      panning = { x, y };
      return;
    }
    const from = down && Math.hypot(x - down.x, y - down.y) > DRAG_PX && !app.ask?.kind.startsWith('p') ? down : implied;
    app.overlay.window = from ? { from: [from.x, from.y], to: [x, y] } : null;
    if (app.ask?.kind === 'point' && !app.ask.pickbox) trackSnap(w);
    bandsFor(x, y);
    app.overlayOnly();
    // what a click or the window would take, highlighted before the click
    if (picking()) trackHover(from ? { window: [from.x, from.y, x, y] } : { at: w });
    else app.setHover([]);
  });

  canvas.addEventListener('mouseleave', () => {
    app.overlay.cursor = null;
    app.setHover([]);
    hoverWanted = null;
    app.overlayOnly();
  });

  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const [x, y] = local(ev);
    const steps = ev.deltaMode === 1 ? ev.deltaY / 3 : ev.deltaY / 100;
    view.zoomAt(x, y, Math.pow(1.25, -steps));
  }, { passive: false });

  // Space is Enter (AutoCAD), unless it was held to pan with a drag
  let spacePanned = false;
  const enter = (): void => {
    if (pointInFlight) {
      void pointInFlight.then(enter, enter);
      return;
    }
    const a = app.ask;
    if (!a && app.busy) {
      // between two prompts of a running command (its op in flight): the Enter is typed ahead and
      // answers the prompt that comes next, as AutoCAD buffers keys; dropped if the command ends
      const since = performance.now();
      const later = (): void => {
        if (app.ask) enter();
        else if (app.busy && performance.now() - since < 5000) setTimeout(later, 20);
      };
      setTimeout(later, 20);
      return;
    }
    if (a?.kind === 'select') app.endSelect(a);
    else if (a?.kind === 'point' && a.optional) a.resolve(null);
    // an empty answer: the default a value prompt shows in <>
    else if (!a || a.kind === 'value') focusCommandLine('', true);
  };
  window.addEventListener('keyup', (ev) => {
    if (ev.key !== ' ' || !space) return;
    space = false;
    if (!spacePanned) enter();
  });

  window.addEventListener('keydown', (ev) => {
    // a dialog has the keyboard to itself (its Esc, Enter and typing)
    if (document.querySelector('dialog[open]')) return;
    const inInput = ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement;
    const fkeys: Record<string, ToggleName> = { F3: 'osnap', F7: 'grid', F8: 'ortho', F10: 'polar', F11: 'otrack', F12: 'dyn' };
    if (fkeys[ev.key]) {
      ev.preventDefault();
      toggle(fkeys[ev.key]!);
      if (app.overlay.cursor) bandsFor(app.overlay.cursor[0], app.overlay.cursor[1]);
      app.overlayOnly();
      return;
    }
    // file keys are caught wherever the focus is (the browser would offer "Save page as")
    if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && (ev.key === 's' || ev.key === 'S' || ev.key === 'o' || ev.key === 'O')) {
      ev.preventDefault();
      const k = ev.key.toLowerCase();
      command(k === 's' ? (ev.shiftKey ? 'SAVEAS' : 'QSAVE') : 'OPEN');
      return;
    }
    if (!inInput && (ev.ctrlKey || ev.metaKey) && !ev.altKey && ['c', 'x', 'v'].includes(ev.key.toLowerCase())) {
      ev.preventDefault();
      const k = ev.key.toLowerCase();
      command(k === 'c' ? 'COPYCLIP' : k === 'x' ? 'CUTCLIP' : 'PASTECLIP');
      return;
    }
    if (ev.key === 'F1') {
      ev.preventDefault();
      command('HELP');
      return;
    }
    if (ev.key === 'Escape') {
      implied = null;
      app.overlay.window = null;
      if (app.ask || app.activePrompt || app.busy) app.cancelAsk();
      else if (app.docId !== null) void app.api.op('select', { document_id: app.docId, mode: 'clear' }).catch(fail);
      app.overlayOnly();
      return;
    }
    if (inInput) return;
    if ((ev.ctrlKey || ev.metaKey) && (ev.key === 'z' || ev.key === 'Z')) {
      ev.preventDefault();
      void app.api.send('POST', '/undo', app.docId !== null ? { document_id: app.docId } : {}).catch(fail);
      return;
    }
    if ((ev.ctrlKey || ev.metaKey) && (ev.key === 'y' || ev.key === 'Y')) {
      ev.preventDefault();
      void app.api.send('POST', '/redo', app.docId !== null ? { document_id: app.docId } : {}).catch(fail);
      return;
    }
    if (ev.key === 'Delete' && !app.ask && app.selection.length) {
      void app.api.op('entities_delete', { document_id: app.docId, handles: app.selection }).catch(fail);
      return;
    }
    if (ev.key === 'Enter') {
      // the key's own press would reach the command line enter() may focus, answering twice
      ev.preventDefault();
      enter();
      return;
    }
    if (ev.key === ' ') {
      ev.preventDefault();
      if (!ev.repeat) {
        space = true;
        spacePanned = false;
      }
      return;
    }
    if (ev.key.length === 1 && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
      // typing goes to the box at the cursor (dynamic input) while a point or a value is asked,
      // else to the command line, as in AutoCAD
      ev.preventDefault();
      if (!dyn.type(ev.key)) focusCommandLine(ev.key);
    }
  });
}
