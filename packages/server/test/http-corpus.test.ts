// Every drawing of the real-world corpus (env LINEWORK_DXF_CORPUS) opens through
// `POST /documents {path}` on the real server and saves back through `POST /save`; ezdxf then
// audits each saved file against its original: it must read it, find no more audit errors or
// fixes than on the original, and see the same entities, layers, blocks, xdata and geometry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, startHttpProcess, type HttpServerProcess } from './helpers.js';
import { ezdxfCompare, hasEzdxf } from '../../dxf/test/helpers.js';

const corpus = process.env.LINEWORK_DXF_CORPUS;
const files = corpus ? readdirSync(corpus).filter((f) => f.toLowerCase().endsWith('.dxf')).sort() : [];

/** ezdxf drops entities whose handles repeat; we renumber and keep them, so counts differ. */
const EZDXF_DROPS_DUPLICATES = new Set(['ezdxf__duplicate_handles.dxf']);

describe.skipIf(!corpus)('the corpus through the HTTP server', () => {
  let s: HttpServerProcess;
  let c: ReturnType<typeof client>;
  let out: string;
  const saved: { original: string; written: string }[] = [];

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'lw-http-corpus-'));
    // the workspace: the corpus (read) and this test's folder (written)
    s = await startHttpProcess(['--root', out, '--root', corpus!]);
    c = client(s.port, s.token);
  });
  afterAll(async () => {
    await s?.proc.stop();
    rmSync(out, { recursive: true, force: true });
  });

  it('opens every file with POST /documents {path} and saves it back with POST /save', { timeout: 300_000 }, async () => {
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const opened = await c.post('/api/v1/documents', { path: join(corpus!, f) });
      expect(opened.status, `${f}: ${opened.text}`).toBe(201);
      const id = opened.json.document_id;
      expect(Number.isInteger(id), f).toBe(true);
      const target = join(out, f);
      const save = await c.post('/api/v1/save', { path: target, document_id: id });
      expect(save.status, `${f}: ${save.text}`).toBe(200);
      expect(statSync(target).size, f).toBeGreaterThan(0);
      // Saved, so it closes without discard; closing keeps the session from holding 77 drawings.
      const closed = await c.del(`/api/v1/documents/${id}`);
      expect(closed.status, `${f}: ${closed.text}`).toBe(200);
      saved.push({ original: join(corpus!, f), written: target });
    }
  });

  it.skipIf(!hasEzdxf())('ezdxf audits every saved file as clean as its original', { timeout: 600_000 }, () => {
    expect(saved).toHaveLength(files.length);
    const bad: string[] = [];
    for (const r of ezdxfCompare(saved)) {
      const name = r.original.split('/').at(-1)!;
      if (r.written_error) {
        bad.push(`${name}: ezdxf cannot read the saved file: ${r.written_error}`);
        continue;
      }
      const [errors, fixes] = r.written_audit!;
      const [origErrors, origFixes] = r.original_audit ?? [Infinity, Infinity];
      if (errors > origErrors) bad.push(`${name}: ${errors} audit errors (original ${origErrors}): ${(r.written_messages ?? []).join('; ')}`);
      if (fixes > origFixes) bad.push(`${name}: ${fixes} audit fixes (original ${origFixes}): ${(r.written_fix_messages ?? []).join('; ')}`);
      if (!EZDXF_DROPS_DUPLICATES.has(name)) bad.push(...r.problems.map((p) => `${name}: ${p}`));
    }
    expect(bad).toEqual([]);
  });
});
