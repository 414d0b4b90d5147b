// AUDIT after ezdxf's auditor: coded findings on what reading repaired, owners, table references,
// handles, groups, dictionaries and record-level validity (audit-checks.ts); `fix: true` repairs
// them as one undo step.
import { z } from 'zod';
import type { DocumentApi, DxfRecord, Entity } from '../dxf.js';
import type { Transaction } from '../store/document-store.js';
import { findEntry, tableEntries } from '../model.js';
import { dictEntries, groupHandles, groups, setDictEntry, setGroupHandles } from '../store/objects.js';
import { defineOp } from './types.js';
import { extraChecks, type ExtraFindingCode } from './audit-checks.js';

export interface Finding {
  code: 'bad_owner' | 'missing_layer' | 'missing_linetype' | 'missing_style' | 'missing_block' | 'duplicate_handle' | 'broken_group' | 'broken_dictionary' | ExtraFindingCode;
  handle: string;
  message: string;
  fix: string;
  /** Repairs the finding inside a transaction. */
  apply?: (tx: Transaction) => void;
  /** Repaired by reading already: saving writes the repaired drawing. */
  repairedOnRead?: boolean;
}

const SPECIAL_LT = new Set(['bylayer', 'byblock', 'continuous']);

export function audit(doc: DocumentApi): Finding[] {
  const out: Finding[] = [];
  const seen = new Map<string, DxfRecord>();
  const checkHandle = (r: DxfRecord) => {
    if (!r.handle) return;
    const prev = seen.get(r.handle);
    if (prev && prev !== r) {
      out.push({
        code: 'duplicate_handle', handle: r.handle, message: `${r.type} and ${prev.type} share handle ${r.handle}`, fix: `give the ${r.type} a new handle`,
        apply: (tx) => {
          const e = r as Entity;
          if (e.kind === 'entity') {
            const b = tx.doc.blockOf(r.handle);
            const idx = b ? b.entities.indexOf(e) : -1;
            if (b && idx >= 0) {
              b.entities.splice(idx, 1);
              const copy = { ...e, handle: '' } as Entity;
              tx.addEntity(copy, b.name);
            }
          }
        },
      });
    } else seen.set(r.handle, r);
  };
  for (const t of doc.tables.values()) { checkHandle(t.head); for (const e of t.entries) checkHandle(e); }
  // a TABLE belongs to no one, its entries to their TABLE (R12 has no owners); an owner left out
  // (LibreCAD writes none) is what readers assume, not a fault: one naming another record is
  if (doc.version > 'AC1009') {
    for (const t of doc.tables.values()) {
      const head = t.head;
      if (!head.handle) continue;
      if (head.owner !== '0' && head.owner !== '') {
        out.push({ code: 'bad_owner', handle: head.handle, message: `TABLE ${t.name} (${head.handle}) names owner ${head.owner}, not 0`, fix: 'set owner to 0', apply: (tx) => { tx.touch(head).owner = '0'; } });
      }
      for (const e of t.entries) {
        if (e.owner === head.handle || e.owner === '' || e.owner === '0') continue;
        out.push({ code: 'bad_owner', handle: e.handle, message: `${e.type} ${e.handle} of table ${t.name} names owner ${e.owner}, not ${head.handle}`, fix: `set owner to ${head.handle}`, apply: (tx) => { tx.touch(e).owner = head.handle; } });
      }
    }
  }
  const layers = new Set(tableEntries(doc, 'LAYER').map((l) => String(l.attrs.name ?? '').toLowerCase()));
  const ltypes = new Set(tableEntries(doc, 'LTYPE').map((l) => String(l.attrs.name ?? '').toLowerCase()));
  const styles = new Set(tableEntries(doc, 'STYLE').map((l) => String(l.attrs.name ?? '').toLowerCase()));
  for (const b of doc.blocks.values()) {
    checkHandle(b.block);
    checkHandle(b.endblk);
    // the block's BLOCK_RECORD owns it and what it holds (its BLOCK's own owner may be what is wrong)
    const owner = doc.getTableEntry('BLOCK_RECORD', b.name)?.handle || b.block.owner || '';
    for (const end of [b.block, b.endblk]) {
      if (owner && end.owner && end.owner !== '0' && end.owner !== owner && end.handle) {
        out.push({ code: 'bad_owner', handle: end.handle, message: `${end.type} ${end.handle} of block ${b.name} names owner ${end.owner}, not ${owner}`, fix: `set owner to ${owner}`, apply: (tx) => { tx.touch(end).owner = owner; } });
      }
    }
    for (const e of b.entities) {
      checkHandle(e);
      for (const c of e.children ?? []) checkHandle(c);
      if (owner && e.owner && e.owner !== owner) {
        out.push({ code: 'bad_owner', handle: e.handle, message: `${e.type} ${e.handle} in block ${b.name} names owner ${e.owner}, not ${owner}`, fix: `set owner to ${owner}`, apply: (tx) => { tx.touch(e).owner = owner; } });
      }
      const layer = String(e.attrs.layer ?? '0');
      if (!layers.has(layer.toLowerCase())) {
        layers.add(layer.toLowerCase());
        out.push({
          code: 'missing_layer', handle: e.handle, message: `layer ${layer} used by ${e.type} ${e.handle} is not in the LAYER table`, fix: `create layer ${layer}`,
          apply: (tx) => { if (!findEntry(tx.doc, 'LAYER', layer)) tx.addTableEntry('LAYER', layer, { color: 7, linetype: 'Continuous' }); },
        });
      }
      const lt = e.attrs.linetype;
      if (typeof lt === 'string' && !SPECIAL_LT.has(lt.toLowerCase()) && !ltypes.has(lt.toLowerCase())) {
        out.push({ code: 'missing_linetype', handle: e.handle, message: `linetype ${lt} of ${e.type} ${e.handle} is not in the LTYPE table`, fix: 'set linetype to BYLAYER', apply: (tx) => { tx.touch(e).attrs.linetype = 'BYLAYER'; } });
      }
      if (['TEXT', 'MTEXT', 'ATTDEF'].includes(e.type) || e.children?.some((c) => c.type === 'ATTRIB')) {
        for (const x of [e, ...(e.children ?? [])]) {
          const st = x.attrs.style;
          if (typeof st === 'string' && !styles.has(st.toLowerCase())) {
            out.push({ code: 'missing_style', handle: x.handle, message: `text style ${st} of ${x.type} ${x.handle} is not in the STYLE table`, fix: 'set style to Standard', apply: (tx) => {
              // Standard exists in every drawing AutoCAD writes; one read without it gets it back.
              if (!findEntry(tx.doc, 'STYLE', 'Standard')) tx.addTableEntry('STYLE', 'Standard', { font: 'txt' });
              tx.touch(e);
              x.attrs.style = 'Standard';
            } });
          }
        }
      }
      if (e.type === 'INSERT') {
        const name = String(e.attrs.name ?? '');
        if (!doc.getBlock(name)) {
          out.push({ code: 'missing_block', handle: e.handle, message: `INSERT ${e.handle} references undefined block ${name}`, fix: 'erase the insert', apply: (tx) => { tx.removeEntity(e.handle); } });
        }
      }
    }
  }
  for (const o of doc.objects) checkHandle(o);
  for (const g of groups(doc)) {
    const missing = g.handles.filter((h) => !doc.get(h));
    if (missing.length) {
      out.push({
        code: 'broken_group', handle: g.handle, message: `group ${g.name} references missing entities ${missing.join(', ')}`, fix: 'remove them from the group',
        apply: (tx) => { const r = tx.doc.get(g.handle); if (r) setGroupHandles(tx.touch(r), groupHandles(r).filter((h) => tx.doc.get(h))); },
      });
    }
  }
  const objects = new Set<DxfRecord>(doc.objects);
  for (const o of doc.objects) {
    if (o.type !== 'DICTIONARY' && o.type !== 'ACDBDICTIONARYWDFLT') continue;
    for (const [name, h] of dictEntries(o)) {
      const rec = doc.get(h);
      // (an entry naming a table entry or an entity: a handle mixed up in a damaged file)
      if (!rec || !objects.has(rec)) {
        const what = rec ? `${rec.type} ${h}, which is no object` : `missing object ${h}`;
        out.push({ code: 'broken_dictionary', handle: o.handle, message: `dictionary ${o.handle} entry ${name} points to ${what}`, fix: 'remove the entry', apply: (tx) => { setDictEntry(tx.touch(o), name, null); } });
      }
    }
  }
  out.push(...extraChecks(doc));
  return out;
}

/** Findings that a repair leaves: read repairs are written away by saving. */
function left(findings: Finding[]): number {
  return findings.filter((f) => !f.repairedOnRead).length;
}

export const auditOp = defineOp({
  name: 'audit',
  summary: 'Checks the drawing as ezdxf\'s auditor does (read_repair, damaged_input, bad_owner, invalid_owner, dictionary_entry_owner, missing_layer, missing_linetype, missing_style, missing_block, missing_dimension_block, missing_dimstyle, duplicate_handle, broken_group, empty_group, broken_dictionary, invalid_extrusion, invalid_transparency, invalid_ellipse, invalid_vertex_count, not_graphical, empty_mlinestyle, missing_objects, missing_layout, missing_default); fix repairs as one undo step.',
  input: z.object({ fix: z.boolean().optional() }),
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  needsDocument: true,
  output: z.object({ count: z.number().int(), counts: z.record(z.string(), z.number().int()), fixed: z.number().int(), findings: z.array(z.looseObject({ code: z.string(), handle: z.string().nullable().optional(), message: z.string() })), remaining: z.number().int() }),
  mcpGroup: 'documents',
  http: [],
  handler: (ctx, input) => {
    const tx = ctx.tx!;
    const findings = audit(tx.doc);
    let fixed = 0;
    if (input.fix) {
      for (const f of findings) {
        if (f.apply) { f.apply(tx); fixed++; } else if (f.repairedOnRead) fixed++;
      }
    }
    const counts: Record<string, number> = {};
    for (const f of findings) counts[f.code] = (counts[f.code] ?? 0) + 1;
    return {
      count: findings.length,
      counts,
      fixed,
      findings: findings.slice(0, 1000).map(({ code, handle, message, fix }) => ({ code, handle, message, fix })),
      remaining: input.fix ? left(audit(tx.doc)) : findings.length,
    };
  },
});
