// Modal dialogs of the page: the file dialog of OPEN and SAVEAS (the workspace's folders and
// drawings through the files_list op, recent files), the "save changes?" question of CLOSE, and
// HELP. Each resolves with the user's answer, or null when cancelled (Esc, Cancel).
import type { Api } from './api.js';

export interface FileEntry {
  name: string;
  path: string;
  kind: 'folder' | 'drawing';
  size?: number;
  modified?: string;
}

/** DXF versions a drawing can be saved in (the save op's names). */
export const DXF_VERSIONS = ['R2018', 'R2013', 'R2010', 'R2007', 'R2004', 'R2000', 'R12'] as const;

const RECENT_KEY = 'linework-recent';

export function recentFiles(): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function rememberFile(path: string): void {
  const list = [path, ...recentFiles().filter((p) => p !== path)].slice(0, 10);
  localStorage.setItem(RECENT_KEY, JSON.stringify(list));
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Shows a modal <dialog>; `build` fills it and returns what the buttons resolve with. */
function modal<T>(id: string, title: string, build: (body: HTMLElement, done: (v: T | null) => void) => void): Promise<T | null> {
  document.getElementById(id)?.remove();
  const d = el('dialog', { id, class: 'dialog', 'aria-label': title });
  const body = el('div', { class: 'dialog-body' });
  d.append(el('h2', {}, title), body);
  document.body.append(d);
  return new Promise<T | null>((resolve) => {
    let settled = false;
    const done = (v: T | null): void => {
      if (settled) return;
      settled = true;
      d.close();
      d.remove();
      resolve(v);
    };
    d.addEventListener('cancel', (ev) => {
      ev.preventDefault();
      done(null);
    });
    build(body, done);
    d.showModal();
  });
}

/**
 * The file dialog. `save` adds the name field and the DXF version; without it a drawing is
 * chosen by a click (or a double click on a recent file).
 */
export function fileDialog(api: Api, opts: { title: string; save?: { name: string; version?: string } }): Promise<{ path: string; version?: string } | null> {
  return modal<{ path: string; version?: string }>('file-dialog', opts.title, (body, done) => {
    const where = el('div', { class: 'file-where', 'data-field': 'folder' });
    const list = el('ul', { class: 'file-list', role: 'listbox', 'aria-label': 'Files' });
    const recent = el('ul', { class: 'file-list recent', 'aria-label': 'Recent files' });
    const error = el('p', { class: 'error', role: 'alert' });
    let folder = '';
    const name = el('input', { id: 'file-name', 'aria-label': 'File name', value: opts.save?.name ?? '', autocomplete: 'off', spellcheck: 'false' });
    const version = el('select', { id: 'file-version', 'aria-label': 'DXF version' });
    for (const v of DXF_VERSIONS) {
      const o = el('option', { value: v }, `AutoCAD ${v.replace(/^R/, '')} DXF`);
      if (v === (opts.save?.version ?? 'R2018')) o.selected = true;
      version.append(o);
    }
    const joined = (n: string): string => (folder ? `${folder}/${n}` : n);
    const choose = (path: string): void => {
      if (!opts.save) return done({ path });
      let p = path.trim();
      if (!p) {
        error.textContent = 'Give the drawing a name';
        return;
      }
      if (!/\.dxf$/i.test(p)) p += '.dxf';
      done({ path: p, version: version.value });
    };
    const show = async (f: string): Promise<void> => {
      error.textContent = '';
      try {
        const r = await api.op('files_list', f ? { folder: f } : {});
        const res = r.result as { folder: string; parent: string | null; entries: FileEntry[]; truncated?: boolean };
        folder = res.folder;
        where.textContent = `Workspace/${res.folder}`;
        list.replaceChildren();
        if (res.parent !== null) {
          const up = el('li', { class: 'folder', 'data-path': res.parent, tabindex: '0' }, '.. (up)');
          up.addEventListener('click', () => void show(res.parent!));
          list.append(up);
        }
        for (const e of res.entries) {
          const li = el('li', { class: e.kind, 'data-path': e.path, tabindex: '0', role: 'option' }, e.kind === 'folder' ? `${e.name}/` : e.name);
          if (e.kind === 'drawing' && e.size !== undefined) li.append(el('span', { class: 'muted' }, ` ${formatSize(e.size)}`));
          if (e.kind === 'folder') li.addEventListener('click', () => void show(e.path));
          else if (opts.save) {
            li.addEventListener('click', () => {
              name.value = e.name;
            });
            li.addEventListener('dblclick', () => choose(e.path));
          } else li.addEventListener('click', () => choose(e.path));
          list.append(li);
        }
        if (!res.entries.length) list.append(el('li', { class: 'muted' }, 'No drawings here'));
      } catch (err) {
        error.textContent = String((err as Error)?.message ?? err);
      }
    };
    body.append(where, list);
    const recents = recentFiles();
    if (!opts.save && recents.length) {
      for (const p of recents) {
        const li = el('li', { class: 'drawing', 'data-path': p, tabindex: '0' }, p);
        li.addEventListener('click', () => choose(p));
        recent.append(li);
      }
      body.append(el('h3', {}, 'Recent'), recent);
    }
    if (opts.save) {
      const row = el('div', { class: 'file-row' });
      row.append(el('label', { for: 'file-name' }, 'File name'), name, el('label', { for: 'file-version' }, 'Save as type'), version);
      body.append(row);
      name.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter') {
          ev.preventDefault();
          choose(joined(name.value));
        }
      });
    }
    body.append(error);
    const buttons = el('div', { class: 'dialog-buttons' });
    const cancel = el('button', { type: 'button' }, 'Cancel');
    cancel.addEventListener('click', () => done(null));
    if (opts.save) {
      const ok = el('button', { type: 'button', class: 'primary', id: 'file-ok' }, 'Save');
      ok.addEventListener('click', () => choose(joined(name.value)));
      buttons.append(ok);
    }
    buttons.append(cancel);
    body.append(buttons);
    void show('');
    if (opts.save) queueMicrotask(() => name.focus());
  });
}

/** AutoCAD's question on closing a modified drawing: yes (save), no (discard) or null (cancel). */
export function saveChangesDialog(name: string): Promise<'yes' | 'no' | null> {
  return modal<'yes' | 'no'>('confirm-dialog', 'Linework', (body, done) => {
    body.append(el('p', {}, `Save changes to ${name}?`));
    const buttons = el('div', { class: 'dialog-buttons' });
    const yes = el('button', { type: 'button', class: 'primary' }, 'Yes');
    const no = el('button', { type: 'button' }, 'No');
    const cancel = el('button', { type: 'button' }, 'Cancel');
    yes.addEventListener('click', () => done('yes'));
    no.addEventListener('click', () => done('no'));
    cancel.addEventListener('click', () => done(null));
    buttons.append(yes, no, cancel);
    body.append(buttons);
    queueMicrotask(() => yes.focus());
  });
}

/** HELP: the commands and shortcuts. */
export function helpDialog(commands: [string, string][], keys: [string, string][]): Promise<null> {
  return modal<null>('help-dialog', 'Linework help', (body, done) => {
    const table = (rows: [string, string][], head: string): HTMLTableElement => {
      const t = el('table', { class: 'help' });
      t.append(el('caption', {}, head));
      for (const [a, b] of rows) {
        const tr = el('tr');
        tr.append(el('th', {}, a), el('td', {}, b));
        t.append(tr);
      }
      return t;
    };
    body.append(table(commands, 'Commands'), table(keys, 'Keys and mouse'));
    const close = el('button', { type: 'button', class: 'primary' }, 'Close');
    close.addEventListener('click', () => done(null));
    const buttons = el('div', { class: 'dialog-buttons' });
    buttons.append(close);
    body.append(buttons);
  });
}

function formatSize(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}
