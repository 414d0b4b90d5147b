// wblock: entities (or a block's content, or all of model space) written to a new DXF drawing with
// exactly what they need: layers, linetypes, text styles, dimension styles, blocks (recursively,
// with the dimension-style arrow blocks), APPIDs of their xdata, image definitions. Handles that
// would point nowhere in the new drawing (reactors, extension dictionaries, associativity,
// materials, plot styles) are dropped or pointed at the new drawing's own defaults.
import { resolve as resolvePath } from 'node:path';
import type { Block, DocumentApi, DxfRecord, Entity, TableEntry, TableName, Tag } from '../dxf.js';
import { dxf } from '../dxf.js';
import { OpError } from '../protocol.js';
import { embedImage } from './images.js';
import { writeAtomic } from './plot.js';

export interface WblockOptions {
  path: string;
  /** Entities to write (any space); default: the block's content, else all of model space. */
  handles?: string[];
  /** A block whose content becomes the new drawing. */
  block?: string;
  /** Base point of the new drawing ($INSBASE); default the block's base point or the origin. */
  base?: [number, number] | [number, number, number];
}

const DIM_HANDLE_CODES: Record<number, TableName | 'BLOCK'> = {
  340: 'STYLE', 341: 'BLOCK', 342: 'BLOCK', 343: 'BLOCK', 344: 'BLOCK', 345: 'LTYPE', 346: 'LTYPE', 347: 'LTYPE',
};
const BUILTIN_LTYPES = new Set(['BYLAYER', 'BYBLOCK', 'CONTINUOUS']);
/** Header variables copied from the source (units, scales, text, point display). */
const HEADER_COPY = [
  '$MEASUREMENT', '$INSUNITS', '$LUNITS', '$LUPREC', '$AUNITS', '$AUPREC', '$ANGBASE', '$ANGDIR', '$LTSCALE', '$PSLTSCALE',
  '$CELTSCALE', '$TEXTSIZE', '$PDMODE', '$PDSIZE', '$MIRRTEXT', '$DIMSCALE', '$LWDISPLAY', '$FILLMODE', '$QTEXTMODE', '$DWGCODEPAGE',
];

interface Deps {
  layers: Set<string>;
  ltypes: Set<string>;
  styles: Set<string>;
  dimstyles: Set<string>;
  blocks: Set<string>;
  appids: Set<string>;
  images: Set<Entity>;
}

function up(s: unknown): string {
  return String(s ?? '').toUpperCase();
}

function entryByHandle(doc: DocumentApi, h: string): DxfRecord | undefined {
  return h && h !== '0' ? doc.get(h) : undefined;
}

function blockNameOfRecord(doc: DocumentApi, h: string): string | undefined {
  const rec = entryByHandle(doc, h);
  if (rec?.type === 'BLOCK_RECORD') return String(rec.attrs.name ?? '');
  return undefined;
}

function tagsOf(rec: DxfRecord): Tag[] {
  const out: Tag[] = [];
  for (const k of Object.keys(rec.extra ?? {})) for (const t of rec.extra![k]!) out.push(t);
  return out;
}

function collect(doc: DocumentApi, entities: Entity[], deps: Deps): void {
  const seenBlocks = new Set<string>();
  const work: Entity[] = [...entities];
  const addLinetype = (name: unknown): void => {
    const n = up(name);
    if (n && !BUILTIN_LTYPES.has(n)) deps.ltypes.add(n);
  };
  const addLayer = (name: unknown): void => {
    const n = String(name ?? '0') || '0';
    if (deps.layers.has(up(n))) return;
    deps.layers.add(up(n));
    const entry = doc.getTableEntry('LAYER', n);
    if (entry) addLinetype(entry.attrs.linetype);
  };
  const addBlock = (name: string): void => {
    const b = doc.getBlock(name);
    if (!b || seenBlocks.has(up(b.name))) return;
    seenBlocks.add(up(b.name));
    deps.blocks.add(b.name);
    addLayer(b.block.attrs.layer);
    for (const e of b.entities) work.push(e);
  };
  const addDimstyle = (name: unknown): void => {
    const n = String(name ?? '');
    if (!n || deps.dimstyles.has(up(n))) return;
    const ds = doc.getTableEntry('DIMSTYLE', n);
    if (!ds) return;
    deps.dimstyles.add(up(n));
    for (const x of ds.xdata ?? []) deps.appids.add(up(x.app));
    for (const [code, value] of tagsOf(ds)) {
      const kind = DIM_HANDLE_CODES[code];
      if (!kind) continue;
      const rec = entryByHandle(doc, value);
      if (!rec) continue;
      if (kind === 'BLOCK') {
        const bn = blockNameOfRecord(doc, value);
        if (bn) addBlock(bn);
      } else if (kind === 'STYLE') deps.styles.add(up(rec.attrs.name));
      else addLinetype(rec.attrs.name);
    }
  };
  while (work.length) {
    const e = work.pop()!;
    addLayer(e.attrs.layer);
    addLinetype(e.attrs.linetype);
    for (const x of e.xdata ?? []) deps.appids.add(up(x.app));
    const style = e.attrs.style;
    if (typeof style === 'string' && style) deps.styles.add(up(style));
    switch (e.type) {
      case 'INSERT':
        addBlock(String(e.attrs.name ?? ''));
        break;
      case 'DIMENSION':
      case 'ARC_DIMENSION':
      case 'LARGE_RADIAL_DIMENSION':
        if (typeof e.attrs.geometry === 'string') addBlock(e.attrs.geometry);
        addDimstyle(e.attrs.dimstyle ?? 'Standard');
        break;
      case 'LEADER':
        addDimstyle(e.attrs.dimstyle ?? 'Standard');
        break;
      case 'IMAGE':
        deps.images.add(e);
        break;
      default:
        break;
    }
    for (const c of e.children ?? []) work.push(c);
  }
  // linetypes that draw text need their styles
  for (const lt of deps.ltypes) {
    const entry = doc.getTableEntry('LTYPE', lt);
    if (!entry) continue;
    for (const [code, value] of tagsOf(entry)) {
      if (code === 340) {
        const rec = entryByHandle(doc, value);
        if (rec?.type === 'STYLE') deps.styles.add(up(rec.attrs.name));
      }
    }
  }
  deps.layers.add('0');
}

/** A copy of an entity ready to be added to another drawing. */
function cloneEntity(e: Entity): Entity {
  const c = structuredClone(e);
  const clean = (r: Entity): void => {
    r.handle = '';
    r.owner = '';
    delete r.attrs.material_handle;
    delete r.attrs.plotstyle_handle;
    if (r.appData) {
      r.appData = r.appData.filter((g) => g.name !== 'ACAD_REACTORS' && g.name !== 'ACAD_XDICTIONARY');
      if (!r.appData.length) delete r.appData;
    }
    if (r.type === 'HATCH' || r.type === 'MPOLYGON') {
      // associativity points at the source's boundary entities
      r.attrs.associative = 0;
      const paths = r.attrs.paths;
      if (Array.isArray(paths)) for (const p of paths as { source_handles?: string[] }[]) if (p.source_handles) p.source_handles = [];
      delete r.attrs.raw_tags;
    }
    if (r.type === 'VIEWPORT') {
      for (const k of Object.keys(r.attrs)) if (k.endsWith('_handle') || k.startsWith('ref_vp_object')) delete r.attrs[k];
      delete r.attrs.frozen_layer_handles;
    }
    if (r.type === 'LEADER') r.attrs.annotation_handle = '0';
    for (const ch of r.children ?? []) clean(ch);
    if (r.seqend) clean(r.seqend);
  };
  clean(c);
  return c;
}

function copyEntry(src: DocumentApi, dst: DocumentApi, table: TableName, name: string, fixHandles: (rec: DxfRecord) => void): TableEntry | undefined {
  const s = src.getTableEntry(table, name);
  if (!s) return undefined;
  let d = dst.getTableEntry(table, name);
  const attrs: Record<string, unknown> = structuredClone(s.attrs) as Record<string, unknown>;
  if (d) {
    const keep = { plotstyle_handle: d.attrs.plotstyle_handle, material_handle: d.attrs.material_handle };
    d.attrs = { ...attrs };
    if (table === 'LAYER') {
      if (keep.plotstyle_handle !== undefined) d.attrs.plotstyle_handle = keep.plotstyle_handle;
      else delete d.attrs.plotstyle_handle;
      if (keep.material_handle !== undefined) d.attrs.material_handle = keep.material_handle;
      else delete d.attrs.material_handle;
    }
  } else {
    const layer0 = table === 'LAYER' ? dst.getTableEntry('LAYER', '0') : undefined;
    delete attrs.plotstyle_handle;
    delete attrs.material_handle;
    if (layer0?.attrs.plotstyle_handle !== undefined) attrs.plotstyle_handle = layer0.attrs.plotstyle_handle;
    if (layer0?.attrs.material_handle !== undefined) attrs.material_handle = layer0.attrs.material_handle;
    d = dst.addTableEntry(table, String(s.attrs.name ?? name), attrs);
  }
  if (s.extra) d.extra = structuredClone(s.extra);
  if (s.markers) d.markers = [...s.markers];
  if (s.xdata) d.xdata = structuredClone(s.xdata);
  delete d.appData;
  fixHandles(d);
  return d;
}

/** Writes entities or a block's content to a new DXF drawing. */
export async function wblock(doc: DocumentApi, opts: WblockOptions): Promise<{ path: string; count: number }> {
  if (typeof opts.path !== 'string' || !opts.path.trim()) throw new OpError('invalid_request', 'path is required');
  let source: Entity[];
  let base: number[] = [0, 0, 0];
  if (opts.handles && opts.handles.length) {
    source = [];
    const missing: string[] = [];
    for (const h of opts.handles) {
      const rec = doc.get(String(h).toUpperCase());
      if (!rec || (rec as Entity).kind !== 'entity' || !doc.blockOf(rec.handle)) missing.push(h);
      else source.push(rec as Entity);
    }
    if (missing.length) throw new OpError('entity_absent', `no entity with handle ${missing.join(', ')}`, { handles: missing });
  } else if (opts.block !== undefined) {
    const want = opts.block.toUpperCase();
    const b: Block | undefined = doc.getBlock(opts.block) ?? [...doc.blocks.values()].find((x) => x.name.toUpperCase() === want);
    if (!b) throw new OpError('unknown_block', `no block named ${JSON.stringify(opts.block)}`, { block: opts.block });
    source = b.entities;
    const bp = b.block.attrs.base_point;
    if (Array.isArray(bp)) base = [bp[0] ?? 0, bp[1] ?? 0, bp[2] ?? 0];
  } else source = doc.modelSpace().entities;
  if (opts.base) {
    if (!Array.isArray(opts.base) || opts.base.length < 2 || !opts.base.every((v) => typeof v === 'number' && Number.isFinite(v))) {
      throw new OpError('invalid_point', 'base must be [x, y] or [x, y, z]');
    }
    base = [opts.base[0], opts.base[1], opts.base[2] ?? 0];
  }
  const deps: Deps = { layers: new Set(), ltypes: new Set(), styles: new Set(), dimstyles: new Set(), blocks: new Set(), appids: new Set(), images: new Set() };
  collect(doc, source, deps);
  const version = doc.version < 'AC1009' ? 'AC1009' : doc.version;
  const out = await dxf.newDocument(version);

  // handle references inside table entries (dimension styles, complex linetypes) -> new handles
  const pending: DxfRecord[] = [];
  const fixLater = (rec: DxfRecord): void => {
    pending.push(rec);
  };
  for (const app of deps.appids) if (!out.getTableEntry('APPID', app)) {
    const s = doc.getTableEntry('APPID', app);
    out.addTableEntry('APPID', String(s?.attrs.name ?? app), { flags: 0 });
  }
  for (const lt of deps.ltypes) copyEntry(doc, out, 'LTYPE', lt, fixLater);
  for (const l of deps.layers) {
    if (!copyEntry(doc, out, 'LAYER', l, fixLater) && !out.getTableEntry('LAYER', l)) out.addTableEntry('LAYER', l, { color: 7, linetype: 'Continuous' });
  }
  for (const s of deps.styles) copyEntry(doc, out, 'STYLE', s, fixLater);
  for (const d of deps.dimstyles) copyEntry(doc, out, 'DIMSTYLE', d, fixLater);

  // blocks: definitions first (contents added after all exist, so nesting order does not matter)
  const created: [Block, Block][] = [];
  for (const name of deps.blocks) {
    const b = doc.getBlock(name)!;
    const bp = b.block.attrs.base_point;
    const battrs = structuredClone(b.block.attrs) as Record<string, unknown>;
    delete battrs.base_point;
    delete battrs.name;
    const nb = out.getBlock(b.name) ?? out.addBlock(b.name, Array.isArray(bp) ? [bp[0] ?? 0, bp[1] ?? 0, bp[2] ?? 0] : [0, 0, 0], battrs);
    created.push([b, nb]);
  }
  let count = 0;
  const addAll = (list: Entity[], blockName?: string): void => {
    for (const e of list) {
      if (e.type === 'IMAGE') continue; // re-linked below
      out.addEntity(cloneEntity(e), blockName);
      if (blockName === undefined) count++;
    }
  };
  for (const [b, nb] of created) addAll(b.entities, nb.name);
  addAll(source);
  // images: a fresh IMAGEDEF / reactor / dictionary entry in the new drawing
  for (const img of deps.images) {
    const defRec = doc.get(String(img.attrs.image_def_handle ?? ''));
    const file = typeof defRec?.attrs.filename === 'string' ? defRec.attrs.filename : '';
    const inSource = source.includes(img);
    const holder = inSource ? undefined : created.find(([b]) => b.entities.includes(img))?.[1].name;
    const ins = (img.attrs.insert as number[] | undefined) ?? [0, 0, 0];
    const u = (img.attrs.u_pixel as number[] | undefined) ?? [1, 0, 0];
    const v = (img.attrs.v_pixel as number[] | undefined) ?? [0, 1, 0];
    const size = (img.attrs.image_size as number[] | undefined) ?? [1, 1];
    try {
      const r = embedImage(out, {
        path: file, insert: [ins[0] ?? 0, ins[1] ?? 0, ins[2] ?? 0], width: Math.hypot(u[0]!, u[1]!) * size[0]!, height: Math.hypot(v[0]!, v[1]!) * size[1]!,
        rotation: (Math.atan2(u[1]!, u[0]!) * 180) / Math.PI, layer: String(img.attrs.layer ?? '0'), block: holder,
      });
      const added = out.get(r.handle)!;
      for (const k of ['color', 'true_color', 'linetype', 'lineweight', 'brightness', 'contrast', 'fade', 'clipping', 'boundary_path', 'clipping_boundary_type', 'u_pixel', 'v_pixel']) {
        if (img.attrs[k] !== undefined) added.attrs[k] = structuredClone(img.attrs[k]);
      }
      if (inSource) count++;
    } catch {
      // the image file cannot be read: keep the entity out rather than write a dangling link
    }
  }
  // remap handles in copied table entries
  for (const rec of pending) {
    for (const k of Object.keys(rec.extra ?? {})) {
      const tags = rec.extra![k]!;
      for (let i = tags.length - 1; i >= 0; i--) {
        const [code, value] = tags[i]!;
        const kind = rec.type === 'DIMSTYLE' ? DIM_HANDLE_CODES[code] : rec.type === 'LTYPE' && code === 340 ? 'STYLE' : undefined;
        if (!kind) continue;
        const srcRec = entryByHandle(doc, value);
        let target: DxfRecord | undefined;
        if (srcRec && kind === 'BLOCK') target = out.getTableEntry('BLOCK_RECORD', String(srcRec.attrs.name ?? ''));
        else if (srcRec) target = out.getTableEntry(kind as TableName, String(srcRec.attrs.name ?? ''));
        if (target) tags[i] = [code, target.handle];
        else tags.splice(i, 1);
      }
    }
  }
  // header: units and scales of the source, base point, current layer/style that exist here
  for (const name of HEADER_COPY) {
    const v = doc.getHeader(name);
    if (v !== undefined && out.getHeader(name) !== undefined) out.setHeader(name, v);
    else if (v !== undefined && name !== '$DWGCODEPAGE') out.setHeader(name, v);
  }
  out.setHeader('$INSBASE', [base[0] ?? 0, base[1] ?? 0, base[2] ?? 0]);
  const target = resolvePath(opts.path);
  const data = await dxf.writeDxf(out);
  writeAtomic(target, typeof data === 'string' ? data : Buffer.from(data));
  return { path: target, count };
}
