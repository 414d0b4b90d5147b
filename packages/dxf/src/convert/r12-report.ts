// What saving as R12 keeps and says beyond the entities: which paper-space layout stays (R12 has
// one), the dimension texts baked into the DIMENSIONs (R12's DIMSTYLE has no DIMDEC, DIMZIN for
// decimals, DIMLUNIT ..., so an R12 reader that regenerates a dimension would write its
// measurement with other decimals), and the report of every header variable and attribute the
// R12 file cannot hold, lineweights first (R12 has none; AutoCAD's SAVEAS R12 drops them too).
import type { Block, Diagnostic } from '../document-api.js';
import type { DxfDocument } from '../document.js';
import { isActivePaperSpaceName, isModelSpaceName } from '../document.js';
import { getDef } from '../defs/registry.js';
import { ENTITY_COMMON } from '../entities/common.js';
import type { AttrDef, DxfRecord, Entity } from '../types.js';
import { mtextParagraphs, type Conversions } from './r12.js';

/** Whether a paper space draws anything: entities other than its overall viewport (id 1). */
function hasContent(b: Block): boolean {
  return b.entities.some((e) => !(e.type === 'VIEWPORT' && e.attrs.id === 1));
}

/**
 * The paper space R12 keeps: the active layout's, unless it is empty and another has content
 * (then the first such in tab order, as its frame, title and viewports are the drawing's sheet).
 * `names`: each paper-space block's layout name.
 */
export function keptPaperSpace(doc: DxfDocument): { kept: { name: string; block: Block } | undefined; names: Map<Block, string> } {
  const layouts = doc.layouts().filter((l) => !isModelSpaceName(l.block.name));
  const names = new Map(layouts.map((l) => [l.block, l.name] as const));
  const active = layouts.find((l) => isActivePaperSpaceName(l.block.name));
  const kept = active && hasContent(active.block) ? active : (layouts.find((l) => hasContent(l.block)) ?? active);
  return { kept, names };
}

/** The plain text a block shows (its TEXTs and MTEXTs, in order), for a dimension's override. */
function blockText(b: Block | undefined): string {
  if (!b) return '';
  const parts: string[] = [];
  for (const e of b.entities) {
    if (e.type === 'MTEXT') parts.push(mtextParagraphs(String(e.attrs.text ?? '')).filter((l) => l.trim()).join(' '));
    else if (e.type === 'TEXT') parts.push(String(e.attrs.text ?? ''));
  }
  return parts.filter(Boolean).join(' ');
}

/**
 * Each DIMENSION shows the text its block holds, as its override (AutoCAD's R12 does the same):
 * the R12 DIMSTYLE cannot say how the measurement was formatted.
 */
export function bakeDimensionTexts(out: DxfDocument, conversions: Conversions): void {
  for (const b of out.blocks.values()) {
    b.entities = b.entities.map((e) => {
      if (e.type !== 'DIMENSION') return e;
      const own = typeof e.attrs.text === 'string' ? e.attrs.text : '';
      if (own !== '' && !own.includes('<>')) return e;
      const shown = blockText(out.getBlock(String(e.attrs.geometry ?? '')));
      if (!shown) return e;
      conversions['dimension text -> text override (R12 DIMSTYLE has no DIMDEC)'] = (conversions['dimension text -> text override (R12 DIMSTYLE has no DIMDEC)'] ?? 0) + 1;
      return { ...e, attrs: { ...e.attrs, text: shown } } as Entity;
    });
  }
}

/** Group codes an R12 file has (the writer leaves out the others). */
function r12Code(code: number): boolean {
  return code < 100 || (code >= 140 && code < 180) || (code >= 210 && code < 240) || code === 999 || code >= 1000;
}

/** The declared attributes R12 cannot hold, by type (those of subclasses R12 lacks included). */
const lostAttrs = new Map<string, AttrDef[]>();

function lostOf(rec: DxfRecord): AttrDef[] {
  const kind = (rec as { kind?: string }).kind ?? '';
  const key = `${kind}:${rec.type}`;
  let list = lostAttrs.get(key);
  if (!list) {
    list = [];
    const def = getDef(rec.type);
    const subs = [...(kind === 'entity' ? [ENTITY_COMMON] : []), ...(def?.subclasses ?? [])];
    for (const s of subs) {
      const newer = s.minVersion !== undefined && s.minVersion > 'AC1009';
      for (const a of s.attrs) if (newer || (a.minVersion !== undefined && a.minVersion > 'AC1009') || !r12Code(a.code)) list.push(a);
    }
    lostAttrs.set(key, list);
  }
  return list;
}

/** DIMSTYLE variables by group code, of those R12's DIMSTYLE has no code for (kept as tags). */
const DIMSTYLE_NEWER: Record<number, string> = {
  271: 'DIMDEC', 272: 'DIMTDEC', 273: 'DIMALTU', 274: 'DIMALTTD', 275: 'DIMAUNIT', 276: 'DIMFRAC', 277: 'DIMLUNIT',
  278: 'DIMDSEP', 279: 'DIMTMOVE', 280: 'DIMJUST', 281: 'DIMSD1', 282: 'DIMSD2', 283: 'DIMTOLJ', 284: 'DIMTZIN',
  285: 'DIMALTZ', 286: 'DIMALTTZ', 287: 'DIMFIT', 288: 'DIMUPT', 289: 'DIMATFIT', 290: 'DIMFXLON', 292: 'DIMTXTDIRECTION',
  294: 'DIMTXTDIRECTION', 340: 'DIMTXSTY', 341: 'DIMLDRBLK', 342: 'DIMBLK', 343: 'DIMBLK1', 344: 'DIMBLK2', 345: 'DIMLTYPE',
  346: 'DIMLTEX1', 347: 'DIMLTEX2', 371: 'DIMLWD', 372: 'DIMLWE',
};

/** Structure codes every record has and no report needs (markers, owners, handles, app data). */
const STRUCTURE = new Set([5, 100, 102, 105, 330, 360]);

function same(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));
}

/** The report of what the R12 drawing cannot hold: header variables, attributes, lineweights. */
export function r12Report(out: DxfDocument, headerLeft: string[]): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  if (headerLeft.length) {
    diagnostics.push({
      level: 'warning',
      code: 'header-dropped',
      message: `${headerLeft.length} header variable${headerLeft.length === 1 ? '' : 's'} R12 has no place for, left out: ${headerLeft.join(', ')}`,
    });
  }
  const lost = new Map<string, number>();
  let lineweights = 0;
  for (const rec of out.records()) {
    for (const a of lostOf(rec)) {
      const v = rec.attrs[a.name];
      if (v === undefined || (a.default !== undefined && same(v, a.default))) continue;
      if (a.name === 'lineweight') lineweights++;
      const k = `${rec.type} ${a.name} (${a.code})`;
      lost.set(k, (lost.get(k) ?? 0) + 1);
    }
  }
  // tags kept as read (DIMSTYLE variables, undeclared records' codes) that R12 has no code for
  for (const rec of out.records()) {
    if (!rec.extra) continue;
    for (const tags of Object.values(rec.extra)) {
      for (const [code, value] of tags) {
        if (r12Code(code) || STRUCTURE.has(code)) continue;
        const name = rec.type === 'DIMSTYLE' ? DIMSTYLE_NEWER[code] : undefined;
        // -2: the dimension lines' lineweight is the dimension's (BYBLOCK), no lineweight of their own
        if ((name === 'DIMLWD' || name === 'DIMLWE') && value.trim() !== '-2') lineweights++;
        const k = `${rec.type} ${name ?? 'group code'} (${code})`;
        lost.set(k, (lost.get(k) ?? 0) + 1);
      }
    }
  }
  if (lineweights) {
    diagnostics.push({
      level: 'warning',
      code: 'lineweights-dropped',
      message: `${lineweights} lineweight${lineweights === 1 ? '' : 's'} (layers and entities) left out: R12 has no lineweight, and AutoCAD's SAVEAS R12 drops them likewise (plot R12 lineweights by colour)`,
    });
  }
  if (lost.size) {
    const list = [...lost].sort((x, y) => x[0].localeCompare(y[0])).map(([k, n]) => `${k} x${n}`);
    diagnostics.push({ level: 'warning', code: 'attributes-dropped', message: `attributes R12 cannot hold, left out: ${list.join(', ')}` });
  }
  return diagnostics;
}
