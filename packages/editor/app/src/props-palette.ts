// The properties palette in a drafter's words (AutoCAD's PROPERTIES): General (colour as ByLayer,
// ByBlock, an index 1-255 or a true colour from a swatch picker; layer; linetype and lineweight from
// the drawing's tables; linetype scale) and Geometry by name (Start X, Center X, Radius, Diameter,
// Circumference, Area, Length, Angle ...), read-only where AutoCAD shows them so. Several objects
// show the values they share and *VARIES* where they differ. An edit goes to every selected object
// in one set_properties call (one undo step): values that depend on each object's own geometry
// (Start X of lines whose Start Y differ) travel in its `each`.
import type { App } from './app.js';
import { ApiError } from './api.js';
import { ACI_RGB, nearestAci } from '../../../dxf/src/convert/colors.js';

type Rec = Record<string, any>;
type Props = Record<string, unknown>;

interface Field {
  label: string;
  key: string;
  get: (e: Rec) => number | string | undefined;
  /** The properties an entered value sets on one entity; absent: read-only. */
  set?: (v: number | string, e: Rec) => Props | null;
  text?: boolean;
}

export const VARIES = '*VARIES*';

/** Lineweights as AutoCAD lists them (hundredths of a mm), with ByLayer, ByBlock and Default. */
const LINEWEIGHTS = [0, 5, 9, 13, 15, 18, 20, 25, 30, 35, 40, 50, 53, 60, 70, 80, 90, 100, 106, 120, 140, 158, 200, 211];
const COLOR_NAMES: Record<number, string> = { 1: 'Red', 2: 'Yellow', 3: 'Green', 4: 'Cyan', 5: 'Blue', 6: 'Magenta', 7: 'White' };

const P3 = (e: Rec, k: string): number[] => (Array.isArray(e[k]) ? (e[k] as number[]) : [0, 0, 0]);
const setAxis = (k: string, i: number) => (v: number | string, e: Rec): Props => {
  const p = [...P3(e, k)];
  while (p.length < 3) p.push(0);
  p[i] = Number(v);
  return { [k]: p };
};
const xyz = (label: string, k: string, key: string): Field[] => ['X', 'Y', 'Z'].map((a, i) => ({ label: `${label} ${a}`, key: `${key}_${a.toLowerCase()}`, get: (e: Rec) => P3(e, k)[i] ?? 0, set: setAxis(k, i) }));
const deg = (r: number): number => (r * 180) / Math.PI;
const norm360 = (a: number): number => ((a % 360) + 360) % 360;
const positive = (v: number | string): number | null => (Number(v) > 0 ? Number(v) : null);

function polyLength(pts: number[][], closed: boolean): number {
  let n = 0;
  for (let i = 1; i < pts.length + (closed ? 1 : 0); i++) {
    const a = pts[i - 1]!, b = pts[i % pts.length]!;
    const d = Math.hypot(b[0]! - a[0]!, b[1]! - a[1]!);
    const bulge = a[4] ?? 0;
    // an arc segment: its length from the chord and the bulge's included angle
    if (bulge) {
      const theta = 4 * Math.atan(Math.abs(bulge));
      n += (d / 2 / Math.sin(theta / 2)) * theta;
    } else n += d;
  }
  return n;
}

function polyArea(pts: number[][]): number {
  let s = 0;
  for (let i = 0; i < pts.length; i++) {
    const a = pts[i]!, b = pts[(i + 1) % pts.length]!;
    s += a[0]! * b[1]! - b[0]! * a[1]!;
  }
  return Math.abs(s) / 2;
}

/** The Geometry (and Text) fields of a type, in AutoCAD's order and names. */
function fieldsOf(type: string): Field[] {
  switch (type) {
    case 'Line':
      return [
        ...xyz('Start', 'start', 'start'), ...xyz('End', 'end', 'end'),
        { label: 'Delta X', key: 'delta_x', get: (e) => P3(e, 'end')[0]! - P3(e, 'start')[0]! },
        { label: 'Delta Y', key: 'delta_y', get: (e) => P3(e, 'end')[1]! - P3(e, 'start')[1]! },
        { label: 'Length', key: 'length', get: (e) => Math.hypot(P3(e, 'end')[0]! - P3(e, 'start')[0]!, P3(e, 'end')[1]! - P3(e, 'start')[1]!) },
        { label: 'Angle', key: 'angle', get: (e) => norm360(deg(Math.atan2(P3(e, 'end')[1]! - P3(e, 'start')[1]!, P3(e, 'end')[0]! - P3(e, 'start')[0]!))) },
      ];
    case 'Circle':
      return [
        ...xyz('Center', 'center', 'center'),
        { label: 'Radius', key: 'radius', get: (e) => e.radius, set: (v) => (positive(v) ? { radius: Number(v) } : null) },
        { label: 'Diameter', key: 'diameter', get: (e) => 2 * e.radius, set: (v) => (positive(v) ? { radius: Number(v) / 2 } : null) },
        { label: 'Circumference', key: 'circumference', get: (e) => 2 * Math.PI * e.radius, set: (v) => (positive(v) ? { radius: Number(v) / (2 * Math.PI) } : null) },
        { label: 'Area', key: 'area', get: (e) => Math.PI * e.radius ** 2, set: (v) => (positive(v) ? { radius: Math.sqrt(Number(v) / Math.PI) } : null) },
      ];
    case 'Arc': {
      const total = (e: Rec): number => norm360(e.end_angle - e.start_angle) || 360;
      return [
        ...xyz('Center', 'center', 'center'),
        { label: 'Radius', key: 'radius', get: (e) => e.radius, set: (v) => (positive(v) ? { radius: Number(v) } : null) },
        { label: 'Start angle', key: 'start_angle', get: (e) => e.start_angle, set: (v) => ({ start_angle: Number(v) }) },
        { label: 'End angle', key: 'end_angle', get: (e) => e.end_angle, set: (v) => ({ end_angle: Number(v) }) },
        { label: 'Total angle', key: 'total_angle', get: total },
        { label: 'Arc length', key: 'arc_length', get: (e) => (e.radius * total(e) * Math.PI) / 180 },
        { label: 'Area', key: 'area', get: (e) => { const t = (total(e) * Math.PI) / 180; return (e.radius ** 2 * (t - Math.sin(t))) / 2; } },
      ];
    }
    case 'LWPolyline':
      return [
        { label: 'Vertices', key: 'vertices', get: (e) => (e.points as unknown[]).length },
        { label: 'Elevation', key: 'elevation', get: (e) => e.elevation ?? 0, set: (v) => ({ elevation: Number(v) }) },
        { label: 'Global width', key: 'const_width', get: (e) => e.const_width ?? 0, set: (v) => (Number(v) >= 0 ? { const_width: Number(v) } : null) },
        { label: 'Closed', key: 'closed', text: true, get: (e) => ((e.flags ?? 0) & 1 ? 'Yes' : 'No'), set: (v, e) => (/^(yes|no)$/i.test(String(v)) ? { flags: /^yes$/i.test(String(v)) ? (e.flags ?? 0) | 1 : (e.flags ?? 0) & ~1 } : null) },
        { label: 'Length', key: 'length', get: (e) => polyLength(e.points, ((e.flags ?? 0) & 1) === 1) },
        { label: 'Area', key: 'area', get: (e) => polyArea(e.points) },
      ];
    case 'Text':
      return [
        { label: 'Contents', key: 'contents', text: true, get: (e) => e.text, set: (v) => ({ text: String(v) }) },
        { label: 'Style', key: 'style', text: true, get: (e) => e.style, set: (v) => ({ style: String(v) }) },
        { label: 'Height', key: 'height', get: (e) => e.height, set: (v) => (positive(v) ? { height: Number(v) } : null) },
        { label: 'Rotation', key: 'rotation', get: (e) => e.rotation ?? 0, set: (v) => ({ rotation: Number(v) }) },
        { label: 'Width factor', key: 'width', get: (e) => e.width ?? 1, set: (v) => (positive(v) ? { width: Number(v) } : null) },
        { label: 'Obliquing', key: 'oblique', get: (e) => e.oblique ?? 0, set: (v) => ({ oblique: Number(v) }) },
        ...xyz('Position', 'insert', 'position'),
      ];
    case 'MText':
      return [
        { label: 'Contents', key: 'contents', text: true, get: (e) => e.text, set: (v) => ({ text: String(v) }) },
        { label: 'Style', key: 'style', text: true, get: (e) => e.style, set: (v) => ({ style: String(v) }) },
        { label: 'Text height', key: 'height', get: (e) => e.char_height, set: (v) => (positive(v) ? { char_height: Number(v) } : null) },
        { label: 'Rotation', key: 'rotation', get: (e) => e.rotation ?? 0, set: (v) => ({ rotation: Number(v) }) },
        { label: 'Defined width', key: 'width', get: (e) => e.width ?? 0, set: (v) => (Number(v) >= 0 ? { width: Number(v) } : null) },
        ...xyz('Position', 'insert', 'position'),
      ];
    case 'Point':
      return xyz('Position', 'location', 'position');
    case 'Insert':
      return [
        { label: 'Name', key: 'name', text: true, get: (e) => e.name },
        ...xyz('Position', 'insert', 'position'),
        { label: 'Scale X', key: 'xscale', get: (e) => e.xscale ?? 1, set: (v) => ({ xscale: Number(v) }) },
        { label: 'Scale Y', key: 'yscale', get: (e) => e.yscale ?? 1, set: (v) => ({ yscale: Number(v) }) },
        { label: 'Rotation', key: 'rotation', get: (e) => e.rotation ?? 0, set: (v) => ({ rotation: Number(v) }) },
      ];
    case 'Ellipse':
      return [
        ...xyz('Center', 'center', 'center'),
        { label: 'Major radius', key: 'major_radius', get: (e) => Math.hypot(...P3(e, 'major_axis').slice(0, 2)) },
        { label: 'Minor radius', key: 'minor_radius', get: (e) => Math.hypot(...P3(e, 'major_axis').slice(0, 2)) * (e.ratio ?? 1) },
        { label: 'Radius ratio', key: 'ratio', get: (e) => e.ratio, set: (v) => (Number(v) > 0 && Number(v) <= 1 ? { ratio: Number(v) } : null) },
      ];
    default:
      return [];
  }
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

const fmt = (v: number | string | undefined): string => (typeof v === 'number' ? String(Math.round(v * 1e6) / 1e6) : v ?? '');

/** The value every record shares, or VARIES. */
function common(recs: Rec[], get: (e: Rec) => unknown): string {
  const vals = recs.map((e) => fmt(get(e) as number | string | undefined));
  return vals.every((v) => v === vals[0]) ? vals[0]! : VARIES;
}

export function colorLabel(color: number | undefined, trueColor?: number | null): string {
  if (trueColor !== undefined && trueColor !== null) return `${(trueColor >> 16) & 255},${(trueColor >> 8) & 255},${trueColor & 255}`;
  if (color === undefined || color === 256) return 'ByLayer';
  if (color === 0) return 'ByBlock';
  return COLOR_NAMES[color] ?? `Color ${color}`;
}

const hex = (rgb: number): string => `#${rgb.toString(16).padStart(6, '0')}`;

/** AutoCAD's Select Color: the 255 index swatches, ByLayer / ByBlock, and a true colour. */
export function colorPicker(current: string): Promise<{ color: number; true_color?: number } | null> {
  document.getElementById('color-picker')?.remove();
  const d = el('dialog', { id: 'color-picker', class: 'dialog', 'aria-label': 'Select Color' });
  d.append(el('h2', {}, 'Select Color'));
  const grid = el('div', { class: 'swatches' });
  const chosen = el('div', { class: 'swatch-chosen' }, `Color: ${current}`);
  return new Promise((resolve) => {
    const done = (v: { color: number; true_color?: number } | null): void => {
      d.close();
      d.remove();
      resolve(v);
    };
    for (let i = 1; i <= 255; i++) {
      const b = el('button', { type: 'button', class: 'swatch', 'data-aci': String(i), title: `Index color ${i}`, 'aria-label': `Index color ${i}` });
      b.style.background = hex(ACI_RGB[i] ?? 0);
      b.addEventListener('click', () => done({ color: i }));
      grid.append(b);
    }
    const row = el('div', { class: 'dialog-buttons' });
    const byLayer = el('button', { type: 'button', 'data-aci': '256' }, 'ByLayer');
    const byBlock = el('button', { type: 'button', 'data-aci': '0' }, 'ByBlock');
    byLayer.addEventListener('click', () => done({ color: 256 }));
    byBlock.addEventListener('click', () => done({ color: 0 }));
    const tc = el('input', { type: 'color', 'aria-label': 'True color', value: '#ffffff' });
    const useTc = el('button', { type: 'button', 'data-action': 'true-color' }, 'True color');
    useTc.addEventListener('click', () => {
      const rgb = parseInt(tc.value.slice(1), 16);
      done({ color: nearestAci(rgb), true_color: rgb });
    });
    const cancel = el('button', { type: 'button' }, 'Cancel');
    cancel.addEventListener('click', () => done(null));
    row.append(byLayer, byBlock, tc, useTc, cancel);
    d.append(chosen, grid, row);
    d.addEventListener('cancel', (ev) => {
      ev.preventDefault();
      done(null);
    });
    document.body.append(d);
    d.showModal();
  });
}

export function bindPropertiesPalette(app: App): void {
  const fail = (err: unknown): void => app.message(err instanceof ApiError ? `${err.code}: ${err.message}` : String((err as Error)?.message ?? err), true);
  let shown = '';
  const render = async (): Promise<void> => {
    const body = document.getElementById('prop-body')!;
    const sel = app.selection;
    const key = `${app.docId}:${app.version}:${app.docVersion}:${sel.join(',')}`;
    if (key === shown) return;
    shown = key;
    if (!sel.length) {
      body.replaceChildren(el('p', { class: 'muted' }, 'No selection'));
      return;
    }
    const [listR, layersR, ltR] = await Promise.all([
      app.api.op('entities_list', { document_id: app.docId, handles: sel.slice(0, 2000), detail: 'full', limit: 2000 }).catch(() => null),
      app.api.op('layers', { document_id: app.docId }).catch(() => null),
      app.api.op('records', { document_id: app.docId, collection: 'linetypes' }).catch(() => null),
    ]);
    if (shown !== key) return;
    const recs = (listR?.result?.entities ?? []) as Rec[];
    if (!recs.length) return;
    const handles = recs.map((e) => e.handle as string);
    const layerNames = ((layersR?.result?.layers ?? []) as { name: string }[]).map((l) => l.name);
    const ltNames = ((ltR?.result?.records ?? []) as { attrs: { name: string } }[]).map((r) => r.attrs.name).filter((n) => !/^by(layer|block)$/i.test(n));
    const set = (props: Props, each?: Record<string, Props>): void => {
      void app.api.op('set_properties', { document_id: app.docId, handles, ...props, ...(each ? { each } : {}) }).catch((e) => {
        fail(e);
        shown = '';
        void render();
      });
    };

    const table = el('table', { class: 'props' });
    const section = (title: string): void => {
      const tr = el('tr', { class: 'props-section' });
      tr.append(el('th', { colspan: '2' }, title));
      table.append(tr);
    };
    const row = (label: string, input: HTMLElement): void => {
      const tr = el('tr');
      tr.append(el('th', {}, label));
      const td = el('td');
      td.append(input);
      tr.append(td);
      table.append(tr);
    };
    const select = (field: string, label: string, options: [string, string][], value: string, onChange: (v: string) => void): HTMLSelectElement => {
      const s = el('select', { 'aria-label': label, 'data-field': field });
      if (value === VARIES) s.append(el('option', { value: '' }, VARIES));
      for (const [v, text] of options) {
        const o = el('option', { value: v }, text);
        if (v === value) o.selected = true;
        s.append(o);
      }
      s.addEventListener('change', () => s.value && onChange(s.value));
      return s;
    };

    const types = [...new Set(recs.map((e) => e.type as string))];
    section('General');
    row('Selected', el('span', { 'data-field': 'count' }, recs.length === 1 ? `${types[0]} ${handles[0]}` : `${recs.length} objects${types.length === 1 ? ` (${types[0]})` : ''}`));

    // colour: ByLayer, ByBlock, the seven named, the current one when other, and "Select Color..."
    const colorNow = common(recs, (e) => colorLabel(e.color, e.true_color));
    const colorOptions: [string, string][] = [['256', 'ByLayer'], ['0', 'ByBlock'], ...[1, 2, 3, 4, 5, 6, 7].map((i) => [String(i), COLOR_NAMES[i]!] as [string, string])];
    const colorValue = colorNow === VARIES ? VARIES : colorOptions.find(([, t]) => t === colorNow)?.[0] ?? 'current';
    if (colorValue === 'current') colorOptions.push(['current', colorNow]);
    colorOptions.push(['pick', 'Select Color…']);
    const colorSel = select('color', 'Color', colorOptions, colorValue, (v) => {
      if (v === 'current') return;
      if (v !== 'pick') {
        set({ color: Number(v) });
        return;
      }
      void colorPicker(colorNow).then((c) => {
        if (c) set(c.true_color !== undefined ? { properties: { color: c.color, true_color: c.true_color } } : { color: c.color });
        else {
          shown = '';
          void render();
        }
      });
    });
    const swatch = el('span', { class: 'prop-swatch', 'aria-hidden': 'true' });
    const first = recs[0]!;
    if (colorNow !== VARIES) swatch.style.background = first.true_color != null ? hex(first.true_color) : first.color > 0 && first.color < 256 ? hex(ACI_RGB[first.color] ?? 0) : 'transparent';
    const colorCell = el('span', { class: 'prop-color' });
    colorCell.append(swatch, colorSel);
    row('Color', colorCell);

    row('Layer', select('layer', 'Layer', layerNames.map((n) => [n, n]), common(recs, (e) => e.layer ?? '0'), (v) => set({ layer: v })));
    const ltNow = common(recs, (e) => String(e.linetype ?? 'BYLAYER').toUpperCase() === 'BYLAYER' ? 'ByLayer' : String(e.linetype).toUpperCase() === 'BYBLOCK' ? 'ByBlock' : e.linetype);
    row('Linetype', select('linetype', 'Linetype', [['ByLayer', 'ByLayer'], ['ByBlock', 'ByBlock'], ...ltNames.map((n) => [n, n] as [string, string])], ltNow, (v) => set({ linetype: v })));
    const ltscale = el('input', { type: 'number', step: 'any', 'aria-label': 'Linetype scale', 'data-field': 'ltscale' });
    const ltsNow = common(recs, (e) => e.ltscale ?? 1);
    if (ltsNow === VARIES) ltscale.placeholder = VARIES;
    else ltscale.value = ltsNow;
    ltscale.addEventListener('change', () => Number(ltscale.value) > 0 && set({ ltscale: Number(ltscale.value) }));
    row('Linetype scale', ltscale);
    const lwOptions: [string, string][] = [['-1', 'ByLayer'], ['-2', 'ByBlock'], ['-3', 'Default'], ...LINEWEIGHTS.map((w) => [String(w), `${(w / 100).toFixed(2)} mm`] as [string, string])];
    row('Lineweight', select('lineweight', 'Lineweight', lwOptions, common(recs, (e) => e.lineweight ?? -1), (v) => set({ lineweight: Number(v) })));

    // geometry: the fields of the one type selected (AutoCAD shows only General for mixed types)
    const fields = types.length === 1 ? fieldsOf(types[0]!) : [];
    if (fields.length) section(types[0] === 'Text' || types[0] === 'MText' ? 'Text and geometry' : 'Geometry');
    for (const f of fields) {
      const now = common(recs, f.get);
      const input = el('input', { 'aria-label': f.label, 'data-field': f.key, ...(f.text ? {} : { inputmode: 'decimal' }) });
      if (now === VARIES) input.placeholder = VARIES;
      else input.value = now;
      if (!f.set) {
        input.readOnly = true;
        input.classList.add('readonly');
      } else {
        const setter = f.set;
        input.addEventListener('change', () => {
          const raw = input.value.trim();
          if (!raw) return;
          const v: number | string = f.text ? input.value : Number(raw);
          if (!f.text && !Number.isFinite(v as number)) {
            fail(new Error(`${f.label}: a number`));
            return;
          }
          const per = recs.map((e) => setter(v, e));
          if (per.some((p) => p === null)) {
            fail(new Error(`${f.label}: ${raw} is not a valid value`));
            return;
          }
          // the same properties for all travel once; each object's own in `each`
          const same = per.every((p) => JSON.stringify(p) === JSON.stringify(per[0]));
          if (same) set({ properties: per[0]! });
          else set({}, Object.fromEntries(recs.map((e, i) => [e.handle as string, per[i]!])));
        });
      }
      row(f.label, input);
    }
    body.replaceChildren(table);
  };
  app.on.selection.push(() => void render());
}
