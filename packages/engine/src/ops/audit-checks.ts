// The audit's checks beyond table references: what reading repaired, and the record-level checks
// ezdxf's auditor makes (owners of objects and dictionary entries, extrusion vectors,
// transparency, ellipse ratios, LEADER vertices, empty groups, entities that are not graphical,
// DIMENSIONs without their geometry block or with an unknown dimension style, MLINESTYLEs
// without elements), and what a file cut short leaves of its layouts (no OBJECTS, a layout block
// without its LAYOUT, a lost default plot style). Each finding's repair is
// the one ezdxf's auditor applies, so a drawing saved after `audit --fix` passes that auditor
// without fixes.
import { addStandardObjects, getDef, isModelSpaceName, isPaperSpaceName, type DocumentApi, type DxfObject, type DxfRecord, type Entity, type Tag } from '../dxf.js';
import type { Transaction } from '../store/document-store.js';
import { dictEntries, groups, namedDictionary, rootDictionary, setDictEntry } from '../store/objects.js';
import { rebuildDimensionBlock } from '../construct-more/dimension-rebuild.js';

export type ExtraFindingCode =
  | 'read_repair' | 'damaged_input' | 'invalid_owner' | 'dictionary_entry_owner' | 'invalid_extrusion'
  | 'invalid_transparency' | 'invalid_ellipse' | 'invalid_vertex_count' | 'empty_group' | 'not_graphical'
  | 'missing_dimension_block' | 'missing_dimstyle' | 'empty_mlinestyle' | 'missing_layout' | 'missing_objects' | 'missing_default';

export interface ExtraFinding {
  code: ExtraFindingCode;
  handle: string;
  message: string;
  fix: string;
  apply?: (tx: Transaction) => void;
  /** Repaired by reading already: saving writes the repaired drawing (not counted as left after a fix). */
  repairedOnRead?: boolean;
}

const MIN_RATIO = 1e-6;
const DICTIONARY_TYPES = new Set(['DICTIONARY', 'ACDBDICTIONARYWDFLT']);
const TRANSPARENCY_BYBLOCK = 0x01000000;

/** Types that are graphical however they were read; others must carry the AcDbEntity marker. */
const isZero = (v: unknown): boolean => Array.isArray(v) && v.length >= 3 && v.every((x) => typeof x === 'number' && Math.abs(x) < 1e-12);

/** What reading the file repaired (warnings) or could not (errors: records lost). */
export function readFindings(doc: DocumentApi): ExtraFinding[] {
  const out: ExtraFinding[] = [];
  for (const d of doc.diagnostics ?? []) {
    if (d.level === 'info') continue;
    const where = d.line ? ` (line ${d.line})` : '';
    if (d.level === 'error') {
      const fix = d.code === 'invalid-number' ? 'none: the value is lost; saving writes the stand-in read in its place' : 'none: records were lost; the drawing holds what could be read';
      out.push({ code: 'damaged_input', handle: '', message: `the file is damaged${where}: ${d.message}`, fix });
    } else {
      out.push({ code: 'read_repair', handle: '', message: `repaired while reading${where}: ${d.message}`, fix: 'saving writes the repaired drawing', repairedOnRead: true });
    }
  }
  return out;
}

function recordOwnerChecks(doc: DocumentApi, out: ExtraFinding[]): void {
  const root = rootDictionary(doc);
  // Dictionary entries owned by another record than their dictionary: ezdxf re-parents them.
  const reparented = new Set<string>();
  const objects = new Set<DxfRecord>(doc.objects);
  for (const o of doc.objects) {
    if (!DICTIONARY_TYPES.has(o.type)) continue;
    for (const [name, h] of dictEntries(o)) {
      const entry = doc.get(h);
      if (!entry || !objects.has(entry) || entry.owner === o.handle) continue;
      reparented.add(entry.handle);
      out.push({
        code: 'dictionary_entry_owner', handle: entry.handle,
        message: `${entry.type} ${entry.handle} is entry ${name} of dictionary ${o.handle} but names owner ${entry.owner || 'none'}`,
        fix: `set its owner to ${o.handle}`,
        apply: (tx) => { const r = tx.doc.get(entry.handle); if (r) tx.touch(r).owner = o.handle; },
      });
    }
  }
  for (const o of doc.objects) {
    if (!o.owner || o === root || reparented.has(o.handle)) continue;
    if (o.owner !== '0' && doc.get(o.owner)) continue;
    out.push({
      code: 'invalid_owner', handle: o.handle,
      message: `${o.type} ${o.handle} names owner ${o.owner}, which does not exist`,
      fix: `erase the ${o.type}`,
      apply: (tx) => { if (tx.doc.get(o.handle)) tx.removeObject(o.handle); },
    });
  }
}

function entityChecks(doc: DocumentApi, out: ExtraFinding[]): void {
  const r13 = doc.version !== 'AC1009' && doc.version !== 'AC1006' && doc.version !== 'AC1003';
  for (const b of doc.blocks.values()) {
    for (const e of b.entities) {
      for (const x of [e, ...(e.children ?? [])]) {
        if (isZero(x.attrs.extrusion)) {
          out.push({
            code: 'invalid_extrusion', handle: x.handle, message: `${x.type} ${x.handle} has the zero vector as its extrusion`,
            fix: 'reset the extrusion to (0, 0, 1)', apply: (tx) => { tx.touch(e); delete x.attrs.extrusion; },
          });
        }
        const t = x.attrs.transparency;
        if (t !== undefined && !(typeof t === 'number' && Number.isInteger(t) && (t === TRANSPARENCY_BYBLOCK || (t & 0x02000000) !== 0))) {
          out.push({
            code: 'invalid_transparency', handle: x.handle, message: `${x.type} ${x.handle} has transparency ${String(t)}, which is neither ByBlock nor a value`,
            fix: 'remove it (ByLayer)', apply: (tx) => { tx.touch(e); delete x.attrs.transparency; },
          });
        }
      }
      if (e.type === 'ELLIPSE') ellipseCheck(e, out);
      if (e.type === 'LEADER') {
        const n = Array.isArray(e.attrs.vertices) ? e.attrs.vertices.length : 0;
        if (n < 2) {
          out.push({
            code: 'invalid_vertex_count', handle: e.handle, message: `LEADER ${e.handle} has ${n} vertices; a leader needs 2 or more`,
            fix: 'erase the leader', apply: (tx) => { tx.removeEntity(e.handle); },
          });
        }
      }
      if (e.type === 'DIMENSION') {
        const name = String(e.attrs.geometry ?? '');
        if (r13 && (!name || !doc.getBlock(name))) {
          out.push({
            code: 'missing_dimension_block', handle: e.handle,
            message: `DIMENSION ${e.handle} names geometry block ${name || '(none)'}, which does not exist: no program can draw it`,
            fix: 'draw the block again from its definition points (dimension_create\'s generator); erase the dimension when they define none',
            apply: (tx) => { if (!rebuildDimensionBlock(tx, e.handle)) tx.removeEntity(e.handle); },
          });
        }
      }
      if (e.type === 'DIMENSION' || e.type === 'ARC_DIMENSION' || e.type === 'LARGE_RADIAL_DIMENSION') {
        const style = e.attrs.dimstyle;
        if (typeof style === 'string' && style !== '' && !hasEntry(doc, 'DIMSTYLE', style)) {
          out.push({
            code: 'missing_dimstyle', handle: e.handle, message: `${e.type} ${e.handle} names dimension style ${style}, which does not exist`,
            fix: 'use Standard', apply: (tx) => { delete tx.touch(e).attrs.dimstyle; },
          });
        }
      }
      if (notGraphical(e)) {
        out.push({
          code: 'not_graphical', handle: e.handle, message: `${e.type} ${e.handle} in block ${b.name} is not a graphical entity (no AcDbEntity part)`,
          fix: 'erase it', apply: (tx) => { tx.removeEntity(e.handle); },
        });
      }
    }
  }
}

/** Whether table `table` has an entry named `name` (case does not matter, as in AutoCAD). */
function hasEntry(doc: DocumentApi, table: 'DIMSTYLE', name: string): boolean {
  if (doc.getTableEntry(table, name)) return true;
  const lower = name.toLowerCase();
  return (doc.tables.get(table)?.entries ?? []).some((x) => String(x.attrs.name ?? '').toLowerCase() === lower);
}

/**
 * AutoCAD's graphical entity types: R12-style files carry no subclass markers, so a type of this
 * list is graphical without one.
 */
const GRAPHICAL_TYPES = new Set([
  '3DFACE', '3DSOLID', 'ACAD_PROXY_ENTITY', 'ACAD_TABLE', 'ARC', 'ARC_DIMENSION', 'ATTDEF', 'ATTRIB', 'BODY', 'CIRCLE',
  'DGNUNDERLAY', 'DIMENSION', 'DWFUNDERLAY', 'ELLIPSE', 'EXTRUDEDSURFACE', 'HATCH', 'HELIX', 'IMAGE', 'INSERT',
  'LARGE_RADIAL_DIMENSION', 'LEADER', 'LIGHT', 'LINE', 'LOFTEDSURFACE', 'LWPOLYLINE', 'MESH', 'MLINE', 'MPOLYGON',
  'MTEXT', 'MULTILEADER', 'NURBSURFACE', 'OLE2FRAME', 'OLEFRAME', 'PDFUNDERLAY', 'PLANESURFACE', 'POINT', 'POINTCLOUD',
  'POLYLINE', 'RAY', 'REGION', 'REVOLVEDSURFACE', 'SECTION', 'SEQEND', 'SHAPE', 'SOLID', 'SPLINE', 'SUN', 'SURFACE',
  'SWEPTSURFACE', 'TABLE', 'TEXT', 'TOLERANCE', 'TRACE', 'VERTEX', 'VIEWPORT', 'WIPEOUT', 'XLINE',
]);

/**
 * An entity of a type neither the reader declares nor AutoCAD defines as graphical, kept as raw
 * tags without the AcDbEntity part every graphical type has (REPEAT/ENDREP of old files): no
 * program draws it, and ezdxf removes it from its block.
 */
function notGraphical(e: Entity): boolean {
  if (getDef(e.type) || GRAPHICAL_TYPES.has(e.type)) return false;
  if ((e.markers ?? []).includes('AcDbEntity')) return false;
  return !Object.values(e.extra ?? {}).some((tags) => tags.some((t) => t[0] === 100 && t[1] === 'AcDbEntity'));
}

function ellipseCheck(e: Entity, out: ExtraFinding[]): void {
  const axis = e.attrs.major_axis as number[] | undefined;
  const ratio = typeof e.attrs.ratio === 'number' ? e.attrs.ratio : 1;
  if (isZero(axis)) {
    out.push({ code: 'invalid_ellipse', handle: e.handle, message: `ELLIPSE ${e.handle} has a zero major axis`, fix: 'erase the ellipse', apply: (tx) => { tx.removeEntity(e.handle); } });
  } else if (Math.abs(ratio) > 1) {
    out.push({
      code: 'invalid_ellipse', handle: e.handle, message: `ELLIPSE ${e.handle} has ratio ${ratio} > 1 (its minor axis is longer than its major one)`,
      fix: 'swap the axes', apply: (tx) => swapEllipseAxes(tx.touch(e)),
    });
  } else if (Math.abs(ratio) < MIN_RATIO) {
    out.push({
      code: 'invalid_ellipse', handle: e.handle, message: `ELLIPSE ${e.handle} has ratio ${ratio}, below ${MIN_RATIO}`,
      fix: `set the ratio to ${MIN_RATIO}`, apply: (tx) => { tx.touch(e).attrs.ratio = MIN_RATIO; },
    });
  }
}

/** The same ellipse described from its other axis: the minor axis becomes the major one. */
function swapEllipseAxes(e: Entity): void {
  const a = (e.attrs.major_axis as number[]).slice(0, 3) as [number, number, number];
  const ratio = e.attrs.ratio as number;
  const n = (e.attrs.extrusion as number[] | undefined) ?? [0, 0, 1];
  // minor = ratio * (n x a)
  const minor: [number, number, number] = [
    ratio * (n[1]! * a[2] - n[2]! * a[1]),
    ratio * (n[2]! * a[0] - n[0]! * a[2]),
    ratio * (n[0]! * a[1] - n[1]! * a[0]),
  ];
  const lenA = Math.hypot(...a);
  const lenB = Math.hypot(...minor);
  e.attrs.major_axis = minor;
  e.attrs.ratio = lenA / lenB;
  // A point at parameter t on the old ellipse is at t - pi/2 on the new one.
  const shift = (t: unknown, d: number): number => (typeof t === 'number' ? t : d) - Math.PI / 2;
  const s = shift(e.attrs.start_param, 0);
  const en = shift(e.attrs.end_param, 2 * Math.PI);
  const norm = (t: number): number => ((t % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
  const full = Math.abs((typeof e.attrs.end_param === 'number' ? e.attrs.end_param : 2 * Math.PI) - (typeof e.attrs.start_param === 'number' ? e.attrs.start_param : 0)) >= 2 * Math.PI - 1e-12;
  e.attrs.start_param = full ? 0 : norm(s);
  e.attrs.end_param = full ? 2 * Math.PI : norm(en);
}

function groupChecks(doc: DocumentApi, out: ExtraFinding[]): void {
  for (const g of groups(doc)) {
    if (g.handles.some((h) => doc.get(h))) continue;
    out.push({
      code: 'empty_group', handle: g.handle, message: `group ${g.name} holds no entity`, fix: 'remove the group',
      apply: (tx) => {
        const d = namedDictionary(tx.doc, 'ACAD_GROUP');
        if (d) setDictEntry(tx.touch(d), g.name, null);
        if (tx.doc.get(g.handle)) tx.removeObject(g.handle);
      },
    });
  }
}

function mlineStyleChecks(doc: DocumentApi, out: ExtraFinding[]): void {
  for (const o of doc.objects) {
    if (o.type !== 'MLINESTYLE') continue;
    const count = elementCount(o);
    if (count !== 0) continue;
    out.push({
      code: 'empty_mlinestyle', handle: o.handle, message: `MLINESTYLE ${o.handle} (${String(o.attrs.name ?? styleName(o) ?? '')}) defines no line element`,
      fix: 'give it one continuous element on the centre line',
      apply: (tx) => setOneElement(tx.touch(o)),
    });
  }
}

const MLS = 'AcDbMlineStyle';

/** The tags of the AcDbMlineStyle part, wherever the reader kept them (by marker, or raw). */
function mlineTags(o: DxfRecord): { tags: Tag[]; from: number } | null {
  if (o.extra?.[MLS]) return { tags: o.extra[MLS], from: 0 };
  const raw = o.extra?.[''];
  if (!raw) return null;
  const i = raw.findIndex((t) => t[0] === 100 && t[1] === MLS);
  return i < 0 ? null : { tags: raw, from: i + 1 };
}

function styleName(o: DxfRecord): string | undefined {
  const m = mlineTags(o);
  return m?.tags.slice(m.from).find((t) => t[0] === 2)?.[1];
}

function elementCount(o: DxfRecord): number | null {
  if (typeof o.attrs.n_elements === 'number') return o.attrs.n_elements;
  if (Array.isArray(o.attrs.elements)) return o.attrs.elements.length;
  const m = mlineTags(o);
  const t = m?.tags.slice(m.from).find((x) => x[0] === 71);
  return t ? Number(t[1]) : null;
}

function setOneElement(o: DxfObject): void {
  if (Array.isArray(o.attrs.elements)) {
    o.attrs.elements = [{ offset: 0, color: 256, linetype: 'BYLAYER' }];
    if (typeof o.attrs.n_elements === 'number') o.attrs.n_elements = 1;
    return;
  }
  const m = mlineTags(o);
  if (!m) return;
  const i = m.tags.findIndex((x, k) => k >= m.from && x[0] === 71);
  if (i >= 0) m.tags.splice(i, 1, [71, '1'], [49, '0.0'], [62, '256'], [6, 'BYLAYER']);
}

/**
 * Model space and paper-space blocks without their LAYOUT (a file cut short before its OBJECTS):
 * ezdxf's auditor deletes such a paper space, content and all; AutoCAD's RECOVER gives it a tab
 * again, and so does the fix, under the name ACAD_LAYOUT still had for it where it had one.
 */
function layoutChecks(doc: DocumentApi, out: ExtraFinding[]): void {
  // (R13 and R14 have no LAYOUT objects)
  if (doc.version < 'AC1015') return;
  // a paper space's record whose BLOCK was lost (a file cut inside BLOCKS): nothing to show
  for (const rec of doc.tables.get('BLOCK_RECORD')?.entries ?? []) {
    const name = typeof rec.attrs.name === 'string' ? rec.attrs.name : '';
    if (!isPaperSpaceName(name) || doc.getBlock(name)) continue;
    out.push({
      code: 'missing_layout', handle: rec.handle, message: `BLOCK_RECORD ${rec.handle} (${name}) has no block: the layout's content was lost`,
      fix: 'remove the record', apply: (tx) => { tx.removeTableEntry('BLOCK_RECORD', rec); },
    });
  }
  if (!rootDictionary(doc)) {
    const spaces = [...doc.blocks.keys()].filter((n) => isModelSpaceName(n) || isPaperSpaceName(n));
    // (spaces named as R12 names them, $MODEL_SPACE: readers of later versions look for their
    // *Model_Space and make their own objects for it, which is all such a drawing can have)
    if (spaces.some((n) => n.startsWith('$'))) return;
    out.push({
      code: 'missing_objects', handle: '',
      message: `the drawing has no OBJECTS (no root dictionary): its ${spaces.length} layout blocks have no LAYOUT and no tab`,
      fix: 'add the objects of a new drawing and a LAYOUT per layout block',
      apply: (tx) => { tx.structural(() => addStandardObjects(tx.doc)); },
    });
    return;
  }
  const dict = namedDictionary(doc, 'ACAD_LAYOUT');
  if (!dict) return;
  const names = [...dictEntries(dict)];
  const held = new Set<string>();
  const records = doc.tables.get('BLOCK_RECORD')?.entries ?? [];
  for (const o of doc.objects) {
    if (o.type !== 'LAYOUT') continue;
    const brh = String(o.attrs.block_record_handle ?? '');
    if (doc.get(brh)?.type === 'BLOCK_RECORD') {
      held.add(brh);
      continue;
    }
    // its block record renamed (a handle used twice) or lost: the record that still names this
    // LAYOUT is its own again; without one the LAYOUT is a tab of nothing
    const mine = records.find((r) => r.attrs.layout === o.handle && typeof r.attrs.name === 'string' && doc.getBlock(r.attrs.name) && (isModelSpaceName(r.attrs.name) || isPaperSpaceName(r.attrs.name)));
    if (mine) held.add(mine.handle);
    out.push({
      code: 'missing_layout', handle: o.handle,
      message: `LAYOUT ${o.handle} (${String(o.attrs.name ?? '')}) names block record ${brh || 'none'}, which ${doc.get(brh) ? `is a ${doc.get(brh)!.type}` : 'does not exist'}`,
      fix: mine ? `point it at ${mine.handle} (${String(mine.attrs.name)}), which names it` : 'remove the LAYOUT',
      apply: (tx) => {
        const r = tx.doc.get(o.handle);
        if (!r) return;
        if (mine) {
          tx.touch(r).attrs.block_record_handle = mine.handle;
          return;
        }
        const d = namedDictionary(tx.doc, 'ACAD_LAYOUT');
        const entry = d ? [...dictEntries(d)].find(([, h]) => h === o.handle) : undefined;
        if (d && entry) setDictEntry(tx.touch(d), entry[0], null);
        tx.removeObject(o.handle);
      },
    });
  }
  for (const b of doc.blocks.values()) {
    const model = isModelSpaceName(b.name);
    if (!model && !isPaperSpaceName(b.name)) continue;
    const record = doc.getTableEntry('BLOCK_RECORD', b.name);
    if (!record || held.has(record.handle)) continue;
    const lost = names.find(([, h]) => h === record.attrs.layout && !doc.get(h))?.[0];
    out.push({
      code: 'missing_layout', handle: record.handle,
      message: `${b.name} (${b.entities.length} entities) has no LAYOUT: it has no tab`,
      fix: 'create its LAYOUT',
      apply: (tx) => {
        const taken = new Set(tx.doc.objects.filter((o) => o.type === 'LAYOUT').map((o) => String(o.attrs.name ?? '').toUpperCase()));
        let name = model ? 'Model' : (lost ?? 'Layout1');
        for (let n = 1; !model && taken.has(name.toUpperCase()); n++) name = `Layout${n}`;
        tx.structural(() => tx.doc.attachLayout(b.name, name));
      },
    });
  }
}

/**
 * A dictionary with a default (ACAD_PLOTSTYLENAME) whose default object is missing: ezdxf's
 * auditor makes a placeholder for it, as AutoCAD has one ("Normal"), and so does the fix.
 */
function defaultObjectChecks(doc: DocumentApi, out: ExtraFinding[]): void {
  for (const o of doc.objects) {
    if (o.type !== 'ACDBDICTIONARYWDFLT') continue;
    const h = typeof o.attrs.default === 'string' ? o.attrs.default : '';
    if (h && doc.get(h)) continue;
    out.push({
      code: 'missing_default', handle: o.handle,
      message: `dictionary ${o.handle} names default object ${h || 'none'}, which does not exist`,
      fix: 'make a placeholder its default (entry Normal)',
      apply: (tx) => {
        const d = tx.doc.get(o.handle);
        if (!d) return;
        const holder = tx.addObject({ kind: 'object', type: 'ACDBPLACEHOLDER', handle: '', owner: d.handle, attrs: {} });
        const dict = tx.touch(d);
        dict.attrs.default = holder.handle;
        const taken = dictEntries(dict);
        let name = 'Normal';
        for (let n = 1; taken.has(name) && tx.doc.get(taken.get(name)!); n++) name = `Normal${n}`;
        setDictEntry(dict, name, holder.handle);
      },
    });
  }
}

/** Every check of this module, in the order ezdxf's auditor makes them (layouts first: its loader). */
export function extraChecks(doc: DocumentApi): ExtraFinding[] {
  const out = readFindings(doc);
  layoutChecks(doc, out);
  defaultObjectChecks(doc, out);
  recordOwnerChecks(doc, out);
  entityChecks(doc, out);
  groupChecks(doc, out);
  mlineStyleChecks(doc, out);
  return out;
}
