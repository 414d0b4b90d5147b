// The panels around the drawing: drawing and layout tabs, the layers panel (its toggles are the
// layer_set op), the properties palette (its edits are set_properties), the status bar toggles and
// the command history. Each panel redraws from the session when the app says something changed.
import type { App } from './app.js';
import { ApiError } from './api.js';
import { showMenu } from './menu.js';
import { bindPropertiesPalette } from './props-palette.js';

const $ = (id: string): HTMLElement => document.getElementById(id)!;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

export function bindPanels(app: App): void {
  const fail = (err: unknown): void => app.message(err instanceof ApiError ? `${err.code}: ${err.message}` : String((err as Error)?.message ?? err), true);

  // ---- tabs ----
  const renderTabs = (): void => {
    const docs = $('doc-tabs');
    docs.replaceChildren();
    for (const d of app.documents) {
      const b = el('button', { role: 'tab', 'aria-selected': String(d.document_id === app.docId), 'data-document': String(d.document_id) }, `${d.name}${d.modified ? ' *' : ''}`);
      b.title = (d as { path?: string | null }).path ?? d.name;
      b.addEventListener('click', () => showDoc(d.document_id));
      docs.append(b);
    }
    const lay = $('layout-tabs');
    lay.replaceChildren();
    for (const name of app.layouts) {
      const b = el('button', { role: 'tab', 'aria-selected': String(name === app.layout), 'data-layout': name }, name);
      b.addEventListener('click', () => void app.showLayout(name).catch(fail));
      lay.append(b);
    }
    // the current tab scrolled into the strip
    for (const strip of [docs, lay]) strip.querySelector<HTMLElement>('[aria-selected=true]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  };
  const showDoc = (id: number): void => void app.api.op('activate', { document_id: id }).then(() => app.showDocument(id)).catch(fail);
  app.on.docs.push(renderTabs);
  $('doc-new').addEventListener('click', () => void app.api.op('document_new', {}).catch(fail));
  // every drawing and layout in a menu, however many the strip has to scroll through
  const below = (b: HTMLElement): [number, number] => {
    const r = b.getBoundingClientRect();
    return [r.right - 200, r.bottom];
  };
  $('doc-more').addEventListener('click', (ev) => {
    const [x, y] = below(ev.currentTarget as HTMLElement);
    showMenu(app.documents.map((d) => ({ label: `${d.name}${d.modified ? ' *' : ''}`, checked: d.document_id === app.docId, run: () => showDoc(d.document_id) })), x, y, 'Drawings');
  });
  $('layout-more').addEventListener('click', (ev) => {
    const r = (ev.currentTarget as HTMLElement).getBoundingClientRect();
    const menu = showMenu(app.layouts.map((n) => ({ label: n, checked: n === app.layout, run: () => void app.showLayout(n).catch(fail) })), r.right - 200, r.top, 'Layouts');
    // above the button: the layout bar sits at the bottom
    menu.style.top = `${Math.max(0, r.top - menu.getBoundingClientRect().height)}px`;
  });

  // ---- panels: collapsed by their arrow, resized by the splitters at the drawing's edges ----
  const main = document.querySelector('main')!;
  for (const b of document.querySelectorAll<HTMLButtonElement>('button.collapse')) {
    b.addEventListener('click', () => {
      const which = b.dataset.panel!;
      const off = main.classList.toggle(`no-${which}`);
      main.style.setProperty(which === 'layers' ? '--left' : '--right', off ? '24px' : `${widths[which as 'layers' | 'properties']}px`);
      b.textContent = (which === 'layers') === off ? '▶' : '◀';
      b.setAttribute('aria-expanded', String(!off));
      app.view.invalidate();
    });
  }
  const widths = { layers: 220, properties: 260 };
  for (const sp of document.querySelectorAll<HTMLElement>('.splitter')) {
    sp.addEventListener('mousedown', (ev) => {
      ev.preventDefault();
      ev.stopPropagation();
      const which = sp.dataset.panel as 'layers' | 'properties';
      const x0 = ev.clientX, w0 = widths[which];
      const move = (e: MouseEvent): void => {
        const d = which === 'layers' ? e.clientX - x0 : x0 - e.clientX;
        // the drawing keeps at least a third of the window
        widths[which] = Math.max(120, Math.min(w0 + d, window.innerWidth / 3));
        main.classList.remove(`no-${which}`);
        main.style.setProperty(which === 'layers' ? '--left' : '--right', `${widths[which]}px`);
        app.view.invalidate();
      };
      const up = (): void => {
        window.removeEventListener('mousemove', move);
        window.removeEventListener('mouseup', up, true);
      };
      window.addEventListener('mousemove', move);
      window.addEventListener('mouseup', up, true);
    });
  }

  // ---- layers ----
  const renderLayers = async (): Promise<void> => {
    if (app.docId === null) return;
    const r = await app.api.op('layers', { document_id: app.docId }).catch(() => null);
    const rows = $('layer-rows');
    rows.replaceChildren();
    for (const l of (r?.result?.layers ?? []) as { name: string; on: boolean; frozen: boolean; locked: boolean; color: number; current: boolean }[]) {
      const tr = el('tr', { 'data-layer': l.name });
      if (l.current) tr.classList.add('current');
      tr.append(el('td', {}, l.name));
      const toggle = (field: 'on' | 'frozen' | 'locked', label: string): HTMLTableCellElement => {
        const td = el('td');
        const cb = el('input', { type: 'checkbox', 'aria-label': `${label} ${l.name}`, 'data-field': field });
        cb.checked = l[field];
        cb.addEventListener('change', () => void app.api.op('layer_set', { document_id: app.docId, name: l.name, [field]: cb.checked }).catch((e) => {
          cb.checked = !cb.checked;
          fail(e);
        }));
        td.append(cb);
        return td;
      };
      tr.append(toggle('on', 'On'), toggle('frozen', 'Frozen'), toggle('locked', 'Locked'));
      const td = el('td');
      const col = el('input', { type: 'number', min: '1', max: '255', value: String(l.color), 'aria-label': `Colour ${l.name}`, 'data-field': 'color' });
      col.addEventListener('change', () => void app.api.op('layer_set', { document_id: app.docId, name: l.name, color: Number(col.value) }).catch(fail));
      td.append(col);
      tr.append(td);
      rows.append(tr);
    }
  };
  app.on.layers.push(() => void renderLayers());

  // ---- properties: the palette's own module ----
  bindPropertiesPalette(app);

  // ---- prompt and history ----
  const history = $('history');
  app.on.message.push((m, err) => {
    const line = el('div', err ? { class: 'error' } : {}, m);
    history.append(line);
    while (history.childElementCount > 200) history.firstElementChild?.remove();
    history.scrollTop = history.scrollHeight;
  });
  const prompt = $('prompt');
  app.on.ask.push(() => {
    const a = app.ask;
    const waiting = app.prompts.length;
    prompt.hidden = !a;
    if (a) {
      const count = a.kind === 'select' && a.picked.length ? ` (${a.picked.length} picked)` : '';
      prompt.textContent = `${a.message}${count}${waiting > 1 ? ` — ${waiting - 1} more waiting` : ''}`;
      prompt.dataset.kind = a.kind;
    }
    const label = document.querySelector('label[for="cmd"]');
    if (label) label.textContent = a ? `${a.message}` : 'Command:';
  });
}
