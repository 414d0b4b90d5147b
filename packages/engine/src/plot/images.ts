// embed_image: an IMAGE entity with its IMAGEDEF (in the ACAD_IMAGE_DICT dictionary), the
// IMAGEDEF_REACTOR that links them, the RASTERVARIABLES object (ACAD_IMAGE_VARS) and the CLASS
// entries AutoCAD needs for them, laid out as AutoCAD writes them (ezdxf's add_image_def /
// add_image build the same structure). Pixel size read from the PNG/JPEG header.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { imageSize } from 'image-size';
import type { DocumentApi, DxfObject, DxfRecord, Entity, Tag } from '../dxf.js';
import { OpError } from '../protocol.js';

export interface EmbedImageOptions {
  /** Image file (PNG or JPEG); stored in the IMAGEDEF as given (resolved to an absolute path). */
  path: string;
  /** Lower-left corner in WCS. */
  insert: [number, number] | [number, number, number];
  /** Size in drawing units; give one and the other follows the pixel aspect; none = 1 unit per pixel. */
  width?: number;
  height?: number;
  /** Degrees counter-clockwise. */
  rotation?: number;
  /** Layer (default the current layer $CLAYER or '0'). */
  layer?: string;
  /** Block / layout block to add to (default model space). */
  block?: string;
}

/**
 * Where the records go. A plain document (wblock's new drawing) is changed directly; the op passes
 * its transaction so the image, its objects and the dictionary entries are one undo step.
 */
export interface ImageSink {
  doc: DocumentApi;
  addEntity(e: Entity, block?: string): Entity;
  addObject(o: DxfObject): DxfObject;
  /** Called before a record that existed is changed in place. */
  touch<R extends DxfRecord>(rec: R): R;
  /** Runs a change outside records (the CLASSES section) with its exact reverse. */
  custom(label: string, redo: () => void, undo: () => void): void;
}

function directSink(doc: DocumentApi): ImageSink {
  return {
    doc,
    addEntity: (e, block) => doc.addEntity(e, block),
    addObject: (o) => doc.addObject(o),
    touch: (rec) => rec,
    custom: (_label, redo) => redo(),
  };
}

interface DictEntry {
  name: string;
  handle: string;
  code: 350 | 360;
}

function entries(rec: DxfObject): DictEntry[] {
  const e = rec.attrs.entries;
  if (Array.isArray(e)) return e as DictEntry[];
  const list: DictEntry[] = [];
  rec.attrs.entries = list;
  return list;
}

const CLASSES: Record<string, [cpp: string, app: string, flags: number, proxy: number, entity: number]> = {
  IMAGEDEF: ['AcDbRasterImageDef', 'ISM', 0, 0, 0],
  RASTERVARIABLES: ['AcDbRasterVariables', 'ISM', 0, 0, 0],
  IMAGEDEF_REACTOR: ['AcDbRasterImageDefReactor', 'ISM', 1, 0, 0],
  IMAGE: ['AcDbRasterImage', 'ISM', 2175, 0, 1],
};

/** Adds the CLASS entries a drawing needs for the given record types (R2000+). */
export function ensureClasses(doc: DocumentApi, types: string[]): void {
  const have = new Set(doc.classes.map((c) => (c.tags.find((t) => t[0] === 1)?.[1] ?? '').toUpperCase()));
  for (const t of types) {
    const def = CLASSES[t];
    if (!def || have.has(t)) continue;
    const tags: Tag[] = [[1, t], [2, def[0]], [3, def[1]], [90, String(def[2])]];
    if (doc.version >= 'AC1018') tags.push([91, '0']);
    tags.push([280, String(def[3])], [281, String(def[4])]);
    doc.classes.push({ tags });
    have.add(t);
  }
}

function rootDictionary(doc: DocumentApi): DxfObject {
  const root = doc.objects[0];
  if (!root || root.type !== 'DICTIONARY') throw new OpError('invalid_request', 'the drawing has no root dictionary (OBJECTS section)');
  return root;
}

function namedObject(doc: DocumentApi, dict: DxfObject, name: string): DxfObject | undefined {
  const e = entries(dict).find((x) => x.name.toUpperCase() === name.toUpperCase());
  const rec = e ? doc.get(e.handle) : undefined;
  return rec as DxfObject | undefined;
}

/** Embeds (links) a raster image: returns the IMAGE's handle. */
export function embedImage(target: DocumentApi | ImageSink, opts: EmbedImageOptions): { handle: string; image_def: string; pixels: [number, number]; size: [number, number] } {
  const sink: ImageSink = 'addEntity' in target && 'custom' in target ? target : directSink(target as DocumentApi);
  const doc = sink.doc;
  if (typeof opts.path !== 'string' || !opts.path) throw new OpError('invalid_request', 'path is required');
  if (doc.version < 'AC1015') throw new OpError('invalid_request', `IMAGE needs a DXF R2000 or later drawing (this one is ${doc.version})`);
  const ins = opts.insert;
  if (!Array.isArray(ins) || ins.length < 2 || !ins.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    throw new OpError('invalid_point', 'insert must be [x, y] with finite numbers');
  }
  const file = resolvePath(opts.path);
  if (!existsSync(file)) throw new OpError('file_not_found', `cannot read image ${opts.path}: no such file (${file})`, { path: opts.path });
  let pxW: number, pxH: number, type: string | undefined;
  try {
    if (!statSync(file).isFile()) throw new Error('not a file');
    const info = imageSize(readFileSync(file));
    pxW = info.width ?? 0;
    pxH = info.height ?? 0;
    type = info.type;
  } catch (err) {
    throw new OpError('invalid_image', `cannot read image ${opts.path}: ${(err as Error).message}`, { path: opts.path });
  }
  if (type !== 'png' && type !== 'jpg') throw new OpError('invalid_image', `only PNG and JPEG images are supported (got ${type ?? 'unknown'})`, { path: opts.path });
  if (!(pxW > 0 && pxH > 0)) throw new OpError('invalid_image', `image ${opts.path} has no pixel size`, { path: opts.path });
  let w = opts.width;
  let h = opts.height;
  for (const [k, v] of [['width', w], ['height', h]] as const) {
    if (v !== undefined && !(typeof v === 'number' && v > 0 && Number.isFinite(v))) throw new OpError('invalid_request', `${k} must be a positive number`);
  }
  if (w === undefined && h === undefined) {
    w = pxW;
    h = pxH;
  } else if (w === undefined) w = (h! * pxW) / pxH;
  else if (h === undefined) h = (w * pxH) / pxW;
  const rot = ((opts.rotation ?? 0) * Math.PI) / 180;
  if (!Number.isFinite(rot)) throw new OpError('invalid_request', 'rotation must be a number (degrees)');

  // every check before the first change, so a failure leaves the drawing as it was
  const layer = opts.layer ?? (typeof doc.getHeader('$CLAYER') === 'string' ? (doc.getHeader('$CLAYER') as string) : '0');
  if (!doc.getTableEntry('LAYER', layer)) throw new OpError('unknown_layer', `no layer named ${JSON.stringify(layer)}`, { layer });
  if (opts.block !== undefined && !doc.getBlock(opts.block)) throw new OpError('unknown_block', `no block named ${JSON.stringify(opts.block)}`, { block: opts.block });
  const dict = imageDictionary(sink);
  // one IMAGEDEF per file: reuse it when the drawing already links the same file
  let def = entries(dict)
    .map((e) => doc.get(e.handle))
    .find((r) => r && r.type === 'IMAGEDEF' && r.attrs.filename === file) as DxfObject | undefined;
  if (def) sink.touch(def);
  else {
    def = sink.addObject({
      kind: 'object', type: 'IMAGEDEF', handle: '', owner: dict.handle,
      attrs: { class_version: 0, filename: file, image_size: [pxW, pxH], pixel_size: [1 / pxW, 1 / pxH], loaded: 1, resolution_units: 0 },
      appData: [{ name: 'ACAD_REACTORS', tags: [[330, dict.handle]] }],
    });
    let key = file.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '') || 'image';
    const taken = new Set(entries(dict).map((e) => e.name.toUpperCase()));
    if (taken.has(key.toUpperCase())) {
      let i = 2;
      while (taken.has(`${key}_${i}`.toUpperCase())) i++;
      key = `${key}_${i}`;
    }
    entries(dict).push({ name: key, handle: def.handle, code: 350 });
  }
  const ux = Math.cos(rot) * (w / pxW);
  const uy = Math.sin(rot) * (w / pxW);
  const vx = -Math.sin(rot) * (h! / pxH);
  const vy = Math.cos(rot) * (h! / pxH);
  const image = sink.addEntity({
    kind: 'entity', type: 'IMAGE', handle: '', owner: '',
    attrs: {
      layer,
      class_version: 0,
      insert: [ins[0], ins[1], ins[2] ?? 0],
      u_pixel: [ux, uy, 0],
      v_pixel: [vx, vy, 0],
      image_size: [pxW, pxH],
      image_def_handle: def.handle,
      flags: 7,
      clipping: 0,
      brightness: 50,
      contrast: 50,
      fade: 0,
      clipping_boundary_type: 1,
      boundary_path: [[-0.5, -0.5], [pxW - 0.5, pxH - 0.5]],
    },
  }, opts.block);
  linkImageToDef(sink, image, def);
  return { handle: image.handle, image_def: def.handle, pixels: [pxW, pxH], size: [w, h!] };
}

/**
 * ACAD_IMAGE_DICT of the drawing (touched, as the caller adds to it), created with the raster
 * variables (ACAD_IMAGE_VARS) and the CLASS entries images need when the drawing has none.
 */
export function imageDictionary(sink: ImageSink): DxfObject {
  const doc = sink.doc;
  const root = sink.touch(rootDictionary(doc));
  // raster variables (ACAD_IMAGE_VARS), once per drawing
  if (!namedObject(doc, root, 'ACAD_IMAGE_VARS')) {
    const vars = sink.addObject({
      kind: 'object', type: 'RASTERVARIABLES', handle: '', owner: root.handle, attrs: {},
      markers: ['AcDbRasterVariables'],
      extra: { AcDbRasterVariables: [[90, '0'], [70, '0'], [71, '1'], [72, String(unitsCode(doc))]] },
      appData: [{ name: 'ACAD_REACTORS', tags: [[330, root.handle]] }],
    });
    entries(root).push({ name: 'ACAD_IMAGE_VARS', handle: vars.handle, code: 350 });
  }
  let dict = namedObject(doc, root, 'ACAD_IMAGE_DICT');
  if (!dict || dict.type !== 'DICTIONARY') {
    dict = sink.addObject({ kind: 'object', type: 'DICTIONARY', handle: '', owner: root.handle, attrs: { hard_owned: 1, cloning: 1, entries: [] }, markers: ['AcDbDictionary'] });
    entries(root).push({ name: 'ACAD_IMAGE_DICT', handle: dict.handle, code: 350 });
  } else sink.touch(dict);
  const before = doc.classes.length;
  ensureClasses(doc, ['IMAGE', 'IMAGEDEF', 'IMAGEDEF_REACTOR', 'RASTERVARIABLES']);
  const added = doc.classes.splice(before);
  if (added.length) {
    const drop = (): void => {
      for (const c of added) {
        const i = doc.classes.indexOf(c);
        if (i >= 0) doc.classes.splice(i, 1);
      }
    };
    sink.custom('image classes', () => doc.classes.push(...added), drop);
  }
  return dict;
}

/** The IMAGEDEF_REACTOR of an IMAGE (owned by it), listed among the IMAGEDEF's reactors. */
export function linkImageToDef(sink: ImageSink, image: Entity, def: DxfObject): void {
  const reactor = sink.addObject({
    kind: 'object', type: 'IMAGEDEF_REACTOR', handle: '', owner: image.handle, attrs: {},
    markers: ['AcDbRasterImageDefReactor'],
    extra: { AcDbRasterImageDefReactor: [[90, '2'], [330, image.handle]] },
  });
  image.attrs.image_def_reactor_handle = reactor.handle;
  sink.touch(def);
  const reactors = def.appData?.find((g) => g.name === 'ACAD_REACTORS');
  if (reactors) reactors.tags.push([330, reactor.handle]);
  else (def.appData ??= []).push({ name: 'ACAD_REACTORS', tags: [[330, def.owner], [330, reactor.handle]] });
}

/** RASTERVARIABLES units code from $INSUNITS (0 none, 1 mm, 2 cm, 3 m, 4 km, 5 in, 6 ft, 7 yd, 8 mi). */
function unitsCode(doc: DocumentApi): number {
  const u = doc.getHeader('$INSUNITS');
  const map: Record<number, number> = { 1: 5, 2: 6, 3: 8, 4: 1, 5: 2, 6: 3, 7: 4, 10: 7 };
  return typeof u === 'number' ? (map[u] ?? 0) : 0;
}
