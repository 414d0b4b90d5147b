// Records as JSON for the API: entity detail levels (summary, geometry, full), raw records, xdata.
import { dxf, type AttrDef, type DxfRecord, type Entity, type Tag } from '../dxf.js';
import { publicType } from '../model.js';

/** The attributes every entity shares (AcDbEntity); the rest are the type's own. */
export const COMMON_ATTRS = new Set([
  'paperspace', 'layout_tab_name', 'layer', 'linetype', 'material_handle', 'color', 'lineweight', 'ltscale',
  'invisible', 'true_color', 'color_name', 'transparency', 'plotstyle_handle', 'shadow_mode',
]);

const COMMON_DEFAULTS: Record<string, unknown> = { layer: '0', linetype: 'BYLAYER', color: 256, lineweight: -1, ltscale: 1, invisible: 0, paperspace: 0 };

const defsCache = new Map<string, Map<string, AttrDef>>();

/** Declared attributes of a type by name (empty when the dxf package does not declare it). */
export function attrDefs(type: string): Map<string, AttrDef> {
  let m = defsCache.get(type);
  if (!m) {
    m = new Map();
    try {
      for (const d of dxf.declaredAttrs(type)) m.set(d.name, d);
    } catch {
      // undeclared type
    }
    if (m.size) defsCache.set(type, m);
  }
  return m;
}

/** An attribute's value, or its declared default when the record lacks it. */
export function attrValue(e: DxfRecord, name: string): unknown {
  const v = e.attrs[name];
  if (v !== undefined) return v;
  const d = attrDefs(e.type).get(name);
  if (d && d.default !== undefined) return d.default;
  return COMMON_DEFAULTS[name];
}

export type Detail = 'summary' | 'geometry' | 'full';

/** Text content of text-like entities (null for others). */
export function textOf(e: Entity): string | null {
  if (e.type === 'TEXT' || e.type === 'ATTRIB' || e.type === 'ATTDEF' || e.type === 'MTEXT') {
    const t = e.attrs.text;
    return typeof t === 'string' ? t : t === undefined ? '' : String(t);
  }
  return null;
}

/** MText content without formatting codes. */
export function plainText(s: string): string {
  return s
    .replace(/\\P/g, '\n')
    .replace(/\\[ACFHQTWfpc][^;]*;/g, '')
    .replace(/\\[LlOoKkNX]/g, '')
    .replace(/\\S([^;]*);/g, (_m, x: string) => x.replace(/[#^]/, '/'))
    .replace(/[{}]/g, '')
    .replace(/\\\\/g, '\\');
}

function pad3(v: unknown, d: AttrDef | undefined): unknown {
  if (d && (d.kind === 'point3' || d.kind === 'vec3') && Array.isArray(v) && v.length === 2) return [v[0], v[1], 0];
  return v;
}

/** The xdata of a record as {app: [values]}. */
export function xdataValues(r: DxfRecord): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const g of r.xdata ?? []) out[g.app] = xdataItems(g.tags).map((i) => i.value);
  return out;
}

/** Xdata tags as {code, value} items (points as [x,y,z] with codes 1010-1013). */
export function xdataItems(tags: Tag[]): { code: number; value: unknown }[] {
  const out: { code: number; value: unknown }[] = [];
  for (let i = 0; i < tags.length; i++) {
    const [code, raw] = tags[i]!;
    if (code >= 1010 && code <= 1013) {
      const p = [Number(raw)];
      if (tags[i + 1]?.[0] === code + 10) { p.push(Number(tags[i + 1]![1])); i++; }
      if (tags[i + 1]?.[0] === code + 20) { p.push(Number(tags[i + 1]![1])); i++; }
      out.push({ code, value: p });
    } else if ((code >= 1040 && code <= 1042) || (code >= 1060 && code <= 1071)) {
      out.push({ code, value: Number(raw) });
    } else {
      out.push({ code, value: raw });
    }
  }
  return out;
}

export interface JsonOptions {
  fields?: string[] | null;
  bounds?: { min: number[]; max: number[] } | null;
}

/** An entity as the API shows it. */
export function entityJson(e: Entity, detail: Detail, opts: JsonOptions = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {
    handle: e.handle,
    type: publicType(e.type),
    dxftype: e.type,
    layer: e.attrs.layer ?? '0',
  };
  if (detail !== 'summary') {
    const defs = attrDefs(e.type);
    if (detail === 'full') {
      for (const [name, d] of defs) if (d.default !== undefined && e.attrs[name] === undefined) out[name] = pad3(d.default, d);
      for (const k of Object.keys(COMMON_DEFAULTS)) if (out[k] === undefined && e.attrs[k] === undefined) out[k] = COMMON_DEFAULTS[k];
    }
    for (const k in e.attrs) {
      if (detail === 'geometry' && COMMON_ATTRS.has(k)) continue;
      const v = e.attrs[k];
      if (v !== undefined) out[k] = pad3(v, defs.get(k));
    }
    out.layer = e.attrs.layer ?? '0';
    const text = textOf(e);
    if (text !== null) {
      out.value = text;
      if (e.type === 'MTEXT') out.plain_text = plainText(text);
      if (e.attrs.insert !== undefined) out.position = pad3(e.attrs.insert, { name: 'insert', code: 10, kind: 'point3' });
    }
    if (e.children?.length) {
      if (e.type === 'INSERT') {
        const attribs: Record<string, string> = {};
        for (const c of e.children) if (c.type === 'ATTRIB') attribs[String(c.attrs.tag ?? '')] = String(c.attrs.text ?? '');
        out.attributes = attribs;
        if (detail === 'full') out.attribs = e.children.map((c) => entityJson(c, 'full'));
      } else if (e.type === 'POLYLINE') {
        out.vertices = e.children.filter((c) => c.type === 'VERTEX').map((c) => {
          const p = c.attrs.location as number[] | undefined;
          return p ? [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0] : [0, 0, 0];
        });
        if (detail === 'full') out.vertex_records = e.children.map((c) => entityJson(c, 'full'));
      }
    }
    if (opts.bounds !== undefined) out.bounds = opts.bounds ? boundsJson(opts.bounds) : null;
    if (detail === 'full') {
      out.owner = e.owner;
      if (e.xdata?.length) out.xdata = xdataValues(e);
      if (e.extra && Object.keys(e.extra).length) out.extra_tags = e.extra;
    }
  }
  if (opts.fields && opts.fields.length) {
    const keep: Record<string, unknown> = { handle: out.handle, type: out.type };
    for (const f of opts.fields) {
      if (f in out) keep[f] = out[f];
      else if (e.attrs[f] !== undefined) keep[f] = e.attrs[f];
      else if (f === 'bounds' && opts.bounds !== undefined) keep.bounds = opts.bounds ? boundsJson(opts.bounds) : null;
      else if (f === 'xdata') keep.xdata = xdataValues(e);
      else {
        const d = attrValue(e, f);
        if (d !== undefined) keep[f] = d;
      }
    }
    return keep;
  }
  return out;
}

export function boundsJson(b: { min: number[]; max: number[] }): { min: number[]; max: number[] } {
  return { min: [b.min[0] ?? 0, b.min[1] ?? 0, b.min[2] ?? 0], max: [b.max[0] ?? 0, b.max[1] ?? 0, b.max[2] ?? 0] };
}

/** Any record (table entry, object, entity) in raw form: handle, type, owner, attrs, xdata. */
export function recordJson(r: DxfRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { handle: r.handle, type: r.type, owner: r.owner, attrs: r.attrs };
  if (r.xdata?.length) out.xdata = xdataValues(r);
  if (r.extra && Object.keys(r.extra).length) out.extra = r.extra;
  if (r.appData?.length) out.app_data = r.appData;
  return out;
}
