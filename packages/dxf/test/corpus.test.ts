// Round trip of the real-world corpus (folder in env LINEWORK_DXF_CORPUS): read, write, read again
// gives the same model; ezdxf audits every written file and compares it with the original.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { readDxfSync, writeDxf } from '../src/index.js';
import { ezdxfCompare, skipWithoutEzdxf, type EzdxfResult, scratchDir } from './helpers.js';
import { normalize } from './normalize.js';

const corpus = process.env.LINEWORK_DXF_CORPUS;
const files = corpus ? readdirSync(corpus).filter((f) => f.toLowerCase().endsWith('.dxf')).sort() : [];

/**
 * What ezdxf itself does differently on the original: it loses entities whose handles repeat (we
 * give them new handles and keep them), so our file has more of them.
 */
const MORE_ENTITIES_THAN_EZDXF = new Set(['ezdxf__duplicate_handles.dxf']);

/** Audit errors ezdxf also reports on the original (content, not structure). */
const INHERITED_AUDIT_ERRORS: Record<string, string> = {
  'inkscape__test_extrude.dxf': 'No line elements defined in MLINESTYLE',
  // no $DWGCODEPAGE and Shift-JIS text: its bytes are kept as they are (the code page stays
  // unknown), so ezdxf, reading cp1252, reports the same decoding errors on both files
  'inkscape__no_block_section.dxf': 'Fixed unicode decoding error',
};

function canonical(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v));
}

describe.skipIf(!corpus)('DXF corpus round trip', () => {
  if (!corpus) return;
  const out = scratchDir('lw-corpus-');
  const outLazy = scratchDir('lw-corpus-lazy-');
  const written: { original: string; written: string }[] = [];

  for (const f of files) {
    it(`${f}: read, write, read again gives the same model`, () => {
      const original = readFileSync(join(corpus, f));
      const doc = readDxfSync(original);
      const bytes = writeDxf(doc);
      writeFileSync(join(out, f), bytes);
      written.push({ original: join(corpus, f), written: join(out, f) });
      const again = readDxfSync(bytes);
      expect(again.diagnostics.filter((d) => d.level !== 'info')).toEqual([]);
      expect(isDeepStrictEqual(canonical(normalize(again)), canonical(normalize(doc)))).toBe(true);
      // read lazily (entities kept as their bytes, copied as they are): the same model again
      const lazy = readDxfSync(original, { lazy: true });
      expect(lazy.diagnostics).toEqual(doc.diagnostics);
      const lazyBytes = writeDxf(lazy);
      writeFileSync(join(outLazy, f), lazyBytes);
      written.push({ original: join(corpus, f), written: join(outLazy, f) });
      const lazyAgain = readDxfSync(lazyBytes);
      expect(lazyAgain.diagnostics.filter((d) => d.level !== 'info')).toEqual([]);
      expect(isDeepStrictEqual(canonical(normalize(lazyAgain)), canonical(normalize(doc)))).toBe(true);
      expect(isDeepStrictEqual(canonical(normalize(lazy)), canonical(normalize(doc)))).toBe(true);
    });
  }

  it.skipIf(skipWithoutEzdxf())('ezdxf audits every written file clean and finds the same drawing', { timeout: 600_000 }, () => {
    // files of the round-trip tests above, plus any they did not write (a failed test still writes)
    const done = new Set(written.map((w) => w.written));
    for (const f of files) {
      if (done.has(join(out, f))) continue;
      writeFileSync(join(out, f), writeDxf(readDxfSync(readFileSync(join(corpus, f)))));
      written.push({ original: join(corpus, f), written: join(out, f) });
    }
    const results = ezdxfCompare(written);
    expect(results).toHaveLength(written.length);
    const failures: string[] = [];
    for (const r of results) {
      const name = r.original.split('/').at(-1)!;
      failures.push(...judge(name, r));
    }
    expect(failures).toEqual([]);
  });
});

function judge(name: string, r: EzdxfResult): string[] {
  const bad: string[] = [];
  if (r.written_error) return [`${name}: ezdxf cannot read our file: ${r.written_error}`];
  const [errors, fixes] = r.written_audit!;
  const inherited = INHERITED_AUDIT_ERRORS[name];
  const realErrors = (r.written_messages ?? []).filter((m) => !inherited || !m.includes(inherited));
  if (errors > 0 && realErrors.length > 0) bad.push(`${name}: ${errors} audit errors: ${realErrors.join('; ')}`);
  const originalFixes = r.original_audit?.[1] ?? Infinity;
  if (fixes > originalFixes) bad.push(`${name}: ${fixes} audit fixes > ${originalFixes} on the original: ${(r.written_fix_messages ?? []).join('; ')}`);
  const problems = MORE_ENTITIES_THAN_EZDXF.has(name) ? [] : r.problems;
  for (const p of problems) bad.push(`${name}: ${p}`);
  return bad;
}
