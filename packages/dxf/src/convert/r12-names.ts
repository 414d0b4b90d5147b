// Names as R12 holds them. AutoCAD up to release 14 limits symbol names (layers, linetypes, text
// and dimension styles, UCS, views, viewports, APPIDs, blocks) to 31 characters of A-Z, 0-9, '$',
// '_' and '-' (a leading '*' marks special names), upper case; AutoCAD's own R12 DXF reader
// refuses others ("invalid symbol table name"), later readers mostly accept them. A SAVEAS R12
// therefore renames what does not fit: every other character '_', cut at 31 characters, a number
// appended where that would make two names one (names compare without case, as in every DXF).
// Case is kept: R12 stored names in upper case, but every reader matches them without case, and
// a drafter's "Walls" staying "Walls" is worth more than the look of 1992.
// Every reference follows the name (entities, layers' linetypes, dimension styles' arrow blocks,
// header variables, xdata), and the report lists each rename.
import type { Block, Diagnostic, TableEntry, TableName } from '../document-api.js';
import type { DxfDocument } from '../document.js';
import type { Entity, Tag, XDataGroup } from '../types.js';

const MAX = 31;
// Characters beyond ASCII are letters of the drawing's code page (R12 in Japanese AutoCAD had
// Japanese layer names): kept, as AutoCAD's localized releases did.
const VALID = /^\*?[A-Za-z0-9$_\-\u0080-\uFFFF]+$/;

type Space = 'LAYER' | 'LTYPE' | 'STYLE' | 'DIMSTYLE' | 'UCS' | 'VIEW' | 'VPORT' | 'APPID' | 'BLOCK';
const TABLES: (Space & TableName)[] = ['LAYER', 'LTYPE', 'STYLE', 'DIMSTYLE', 'UCS', 'VIEW', 'VPORT', 'APPID'];
const LABEL: Record<Space, string> = {
  LAYER: 'layer', LTYPE: 'linetype', STYLE: 'text style', DIMSTYLE: 'dimension style', UCS: 'UCS',
  VIEW: 'view', VPORT: 'viewport', APPID: 'APPID', BLOCK: 'block',
};

/** True when `name` can stand in an R12 drawing as it is. */
export function isR12Name(name: string): boolean {
  return name.length <= MAX && VALID.test(name);
}

function sanitized(name: string): string {
  const star = name.startsWith('*') ? '*' : '';
  const body = name.slice(star.length).replace(/[^A-Za-z0-9$_\-\u0080-\uFFFF]/g, '_');
  return (star + (body || '_')).slice(0, MAX);
}

/** One namespace's renames: source name (upper-cased key) -> R12 name; names that fit map to themselves. */
class Names {
  private readonly map = new Map<string, string>();
  private readonly used = new Set<string>();
  readonly renames: [string, string][] = [];

  /** Names that fit are reserved first, so a renamed one never takes a name the drawing has. */
  reserve(names: Iterable<string>): void {
    for (const n of names) if (isR12Name(n)) this.used.add(n.toUpperCase());
  }

  add(name: string): void {
    const key = name.toUpperCase();
    if (!name || this.map.has(key)) return;
    if (isR12Name(name)) {
      this.map.set(key, name);
      return;
    }
    const base = sanitized(name);
    let out = base;
    for (let i = 1; this.used.has(out.toUpperCase()); i++) out = base.slice(0, MAX - String(i).length) + String(i);
    this.used.add(out.toUpperCase());
    this.map.set(key, out);
    this.renames.push([name, out]);
  }

  /** The R12 name of a reference; a name the namespace does not define is fitted on its own. */
  of(name: string): string {
    if (!name) return name;
    const hit = this.map.get(name.toUpperCase());
    if (hit !== undefined) return hit;
    this.add(name);
    return this.map.get(name.toUpperCase())!;
  }
}

const HEADER_REFS: [string, Space][] = [
  ['$CLAYER', 'LAYER'], ['$CELTYPE', 'LTYPE'], ['$TEXTSTYLE', 'STYLE'], ['$DIMSTYLE', 'DIMSTYLE'],
  ['$DIMBLK', 'BLOCK'], ['$DIMBLK1', 'BLOCK'], ['$DIMBLK2', 'BLOCK'], ['$UCSNAME', 'UCS'], ['$PUCSNAME', 'UCS'],
];

function needsWork(out: DxfDocument): boolean {
  for (const t of TABLES) for (const e of out.tables.get(t)?.entries ?? []) if (e.attrs.name && !isR12Name(String(e.attrs.name))) return true;
  for (const n of out.blocks.keys()) if (!isR12Name(n)) return true;
  return false;
}

/**
 * Renames what R12 cannot hold in the converted drawing `out` (whose records may be shared with
 * the source drawing: a record that changes is replaced by a copy, the source is never touched).
 */
export function fitR12Names(out: DxfDocument): Diagnostic[] {
  if (!needsWork(out)) return [];
  const spaces = new Map<Space, Names>();
  for (const s of [...TABLES, 'BLOCK' as const]) spaces.set(s, new Names());
  const ns = (s: Space): Names => spaces.get(s)!;
  for (const t of TABLES) {
    const names = (out.tables.get(t)?.entries ?? []).map((e) => String(e.attrs.name ?? ''));
    ns(t).reserve(names);
    for (const n of names) ns(t).add(n);
  }
  ns('BLOCK').reserve(out.blocks.keys());
  for (const n of out.blocks.keys()) ns('BLOCK').add(n);

  const xdata = (groups: XDataGroup[] | undefined): XDataGroup[] | undefined => {
    if (!groups) return groups;
    let changed = false;
    const next = groups.map((g) => {
      const app = ns('APPID').of(g.app);
      let tags = g.tags;
      if (tags.some((t) => t[0] === 1003 && ns('LAYER').of(t[1]) !== t[1])) {
        tags = tags.map((t): Tag => (t[0] === 1003 ? [1003, ns('LAYER').of(t[1])] : t));
      }
      if (app === g.app && tags === g.tags) return g;
      changed = true;
      return { app, tags };
    });
    return changed ? next : groups;
  };

  const entity = (e: Entity): Entity => {
    const patch: Record<string, unknown> = {};
    const ref = (attr: string, space: Space): void => {
      const v = e.attrs[attr];
      if (typeof v !== 'string' || !v) return;
      const r = ns(space).of(v);
      if (r !== v) patch[attr] = r;
    };
    ref('layer', 'LAYER');
    if (typeof e.attrs.linetype === 'string' && !/^by(layer|block)$/i.test(e.attrs.linetype)) ref('linetype', 'LTYPE');
    if (e.type === 'TEXT' || e.type === 'ATTDEF' || e.type === 'ATTRIB') ref('style', 'STYLE');
    if (e.type === 'DIMENSION' || e.type === 'LEADER') ref('dimstyle', 'DIMSTYLE');
    if (e.type === 'INSERT' || e.type === 'BLOCK') ref('name', 'BLOCK');
    if (e.type === 'BLOCK') ref('name2', 'BLOCK');
    if (e.type === 'DIMENSION') ref('geometry', 'BLOCK');
    const xd = xdata(e.xdata);
    const children = e.children?.map(entity);
    const seqend = e.seqend && entity(e.seqend);
    const childrenChanged = children !== undefined && children.some((c, i) => c !== e.children![i]);
    if (!Object.keys(patch).length && xd === e.xdata && !childrenChanged && seqend === e.seqend) return e;
    const copy: Entity = { ...e, attrs: { ...e.attrs, ...patch } };
    if (xd) copy.xdata = xd;
    if (children) copy.children = children;
    if (seqend) copy.seqend = seqend;
    return copy;
  };

  for (const t of TABLES) {
    const table = out.tables.get(t);
    if (!table) continue;
    table.entries = table.entries.map((e): TableEntry => {
      const patch: Record<string, unknown> = {};
      const name = String(e.attrs.name ?? '');
      if (name && ns(t).of(name) !== name) patch.name = ns(t).of(name);
      if (t === 'LAYER' && typeof e.attrs.linetype === 'string' && ns('LTYPE').of(e.attrs.linetype) !== e.attrs.linetype) {
        patch.linetype = ns('LTYPE').of(e.attrs.linetype);
      }
      let extra = e.extra;
      // R12's DIMSTYLE names its arrow blocks: DIMBLK 5, DIMBLK1 6, DIMBLK2 7
      if (t === 'DIMSTYLE' && extra) {
        const next: Record<string, Tag[]> = {};
        let changed = false;
        for (const [k, tags] of Object.entries(extra)) {
          next[k] = tags.map((tag): Tag => {
            if ((tag[0] === 5 || tag[0] === 6 || tag[0] === 7) && tag[1] && ns('BLOCK').of(tag[1]) !== tag[1]) {
              changed = true;
              return [tag[0], ns('BLOCK').of(tag[1])];
            }
            return tag;
          });
        }
        if (changed) extra = next;
      }
      const xd = xdata(e.xdata);
      if (!Object.keys(patch).length && extra === e.extra && xd === e.xdata) return e;
      const copy: TableEntry = { ...e, attrs: { ...e.attrs, ...patch } };
      if (extra) copy.extra = extra;
      if (xd) copy.xdata = xd;
      return copy;
    });
  }

  const blocks = [...out.blocks.values()];
  out.blocks.clear();
  for (const b of blocks) {
    const name = ns('BLOCK').of(b.name);
    const next: Block = { ...b, name, block: entity(b.block), endblk: entity(b.endblk), entities: b.entities.map(entity) };
    out.blocks.set(name, next);
  }

  for (const [variable, space] of HEADER_REFS) {
    const tags = out.header.get(variable);
    if (!tags?.length || !tags[0]![1]) continue;
    const r = ns(space).of(tags[0]![1]);
    if (r !== tags[0]![1]) out.setHeaderTags(variable, [[tags[0]![0], r], ...tags.slice(1)]);
  }

  const diagnostics: Diagnostic[] = [];
  for (const [space, names] of spaces) {
    if (names.renames.length) {
      const shown = names.renames.slice(0, 20).map(([a, b]) => `"${a}" -> ${b}`).join(', ');
      const more = names.renames.length > 20 ? ` and ${names.renames.length - 20} more` : '';
      diagnostics.push({
        level: 'warning',
        code: 'r12-name',
        message: `${names.renames.length} ${LABEL[space]} name(s) renamed for R12 (31 characters, letters, digits, $ _ -): ${shown}${more}`,
      });
    }
  }
  return diagnostics;
}
