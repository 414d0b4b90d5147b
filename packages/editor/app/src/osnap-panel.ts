// The object snap settings (AutoCAD's Drafting Settings, Object Snap tab; the OSNAP command, or a
// right click on the OSNAP button): each running snap on or off, object snap itself on or off (F3),
// polar tracking's increment. What it shows and changes is the drawing's OSMODE and POLARANG,
// written through the sysvars op at each change, so they are saved with the drawing.
import type { App } from './app.js';
import { OSNAP_BITS, OSNAP_OFF } from './drawing-aids.js';

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** AutoCAD's polar increments (the list of the Drafting Settings dialog). */
const POLAR_ANGLES = [90, 45, 30, 22.5, 18, 15, 10, 5];

export async function osnapSettings(app: App): Promise<void> {
  await app.loadAids();
  document.getElementById('osnap-settings')?.remove();
  const d = el('dialog', { id: 'osnap-settings', class: 'dialog', 'aria-label': 'Object snap settings' });
  d.append(el('h2', {}, 'Drafting settings: object snap'));
  const fail = (err: unknown): void => app.note(String((err as Error)?.message ?? err), true);

  const onRow = el('label', { class: 'osnap-on' });
  const on = el('input', { type: 'checkbox', 'data-mode': 'on' });
  on.checked = !(app.osmode & OSNAP_OFF);
  onRow.append(on, ' Object Snap On (F3)');
  d.append(onRow);

  const grid = el('div', { class: 'osnap-modes' });
  const boxes: HTMLInputElement[] = [];
  for (const [mode, label, bit] of OSNAP_BITS) {
    const row = el('label');
    const cb = el('input', { type: 'checkbox', 'data-mode': mode, 'data-bit': String(bit) });
    cb.checked = (app.osmode & bit) !== 0;
    row.append(cb, ` ${label}`);
    grid.append(row);
    boxes.push(cb);
  }
  d.append(grid);

  const write = (): void => {
    let v = boxes.reduce((acc, cb) => acc | (cb.checked ? Number(cb.dataset.bit) : 0), 0);
    if (!on.checked) v |= OSNAP_OFF;
    void app.setOsmode(v).catch(fail);
  };
  on.addEventListener('change', write);
  for (const cb of boxes) cb.addEventListener('change', write);

  const polarRow = el('label', { class: 'file-row' });
  const polar = el('select', { 'aria-label': 'Polar increment angle', 'data-field': 'polarang' });
  const angles = POLAR_ANGLES.includes(app.polarAngle) ? POLAR_ANGLES : [app.polarAngle, ...POLAR_ANGLES];
  for (const a of angles) {
    const o = el('option', { value: String(a) }, `${a}°`);
    if (a === app.polarAngle) o.selected = true;
    polar.append(o);
  }
  polar.addEventListener('change', () => {
    const v = Number(polar.value);
    app.polarAngle = v;
    void app.api.op('sysvars', { document_id: app.docId, set: { POLARANG: v } }).catch(fail);
  });
  polarRow.append('Polar increment (F10)', polar);
  d.append(polarRow);

  const buttons = el('div', { class: 'dialog-buttons' });
  const all = el('button', { type: 'button' }, 'Select All');
  const none = el('button', { type: 'button' }, 'Clear All');
  const close = el('button', { type: 'button', 'data-action': 'close' }, 'Close');
  all.addEventListener('click', () => {
    for (const cb of boxes) cb.checked = true;
    write();
  });
  none.addEventListener('click', () => {
    for (const cb of boxes) cb.checked = false;
    write();
  });
  buttons.append(all, none, close);
  d.append(buttons);
  document.body.append(d);
  await new Promise<void>((resolve) => {
    const done = (): void => {
      d.close();
      d.remove();
      resolve();
    };
    close.addEventListener('click', done);
    d.addEventListener('cancel', (ev) => {
      ev.preventDefault();
      done();
    });
    d.showModal();
  });
}
