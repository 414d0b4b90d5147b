// `linework audit FILE [--fix OUT.dxf] [--json]`: the engine's `audit` op on the command line (as
// `ezdxf audit`). The drawing is opened in a private engine session, audited, and with --fix repaired
// and saved to OUT; the input is never written.
import { extname, resolve } from 'node:path';
import type { ProtocolResponse } from '@linework/engine';
import { appVersion } from '../version.js';
import type { CommandIo } from './commands.js';

export const AUDIT_USAGE = `usage: linework audit FILE [--fix OUT.dxf] [--json]
  Checks a drawing as the engine's audit op does, after ezdxf's auditor: what reading repaired or
  lost, owners of entities, objects and dictionary entries, layer, linetype, text style and block
  references, DIMENSION geometry blocks, duplicate handles, groups and dictionaries, extrusion
  vectors, transparency, ellipse ratios, LEADER vertices, MLINE styles, non-graphical entities.
  --fix OUT   repair what can be repaired and save the repaired drawing to OUT (DXF)
  --json      the findings as one JSON object on stdout
Exit code: 0 when the drawing has no errors (with --fix: none left after repair), 1 when it has
errors, is damaged (records lost while reading: no fix brings them back) or cannot be read, 2 for
a bad command line.`;

interface AuditResult {
  count: number;
  counts: Record<string, number>;
  fixed: number;
  remaining: number;
  findings: Array<{ code: string; handle: string; message: string; fix: string }>;
}

/** How many findings the text report lists; --json has them all (up to the op's 1000). */
const SHOWN = 20;

function failure(res: ProtocolResponse): Error {
  return new Error(res.error ?? res.code ?? 'failed');
}

export async function auditCommand(args: string[], io: CommandIo): Promise<number> {
  let json = false;
  let fixOut: string | undefined;
  let fix = false;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--json') json = true;
    else if (a === '--fix') {
      fix = true;
      const next = args[i + 1];
      if (next !== undefined && !next.startsWith('-')) fixOut = args[++i];
    } else if (a.startsWith('--fix=')) {
      fix = true;
      fixOut = a.slice('--fix='.length);
    } else if (a === '-h' || a === '--help') {
      io.stdout.write(AUDIT_USAGE + '\n');
      return 0;
    } else if (a.startsWith('-') && a !== '-') {
      io.stderr.write(`linework audit: unknown option ${a}\n${AUDIT_USAGE}\n`);
      return 2;
    } else files.push(a);
  }
  if (files.length !== 1 || (fix && !fixOut)) {
    io.stderr.write(`${fix && !fixOut ? 'linework audit: --fix needs the file to write (OUT.dxf)\n' : ''}${AUDIT_USAGE}\n`);
    return 2;
  }
  const file = files[0]!;
  if (fixOut !== undefined && extname(fixOut).toLowerCase() !== '.dxf') {
    io.stderr.write(`linework audit: cannot write ${fixOut}: the repaired drawing is DXF; name it .dxf\n`);
    return 2;
  }
  try {
    // The engine loads only for this command (its op catalogue and schemas are not small).
    const { createEngine, Workspace } = await import('@linework/engine');
    // The user's own command: any file they can read and write.
    // a value that is not a number is damaged input to list, not a reason to refuse the drawing
    const engine = createEngine({ appVersion: appVersion(), workspace: Workspace.unrestricted(), empty: true, acceptDamagedValues: true });
    const run = async (op: string, fields: Record<string, unknown>): Promise<ProtocolResponse> => {
      const res = await engine.dispatch({ protocol: 1, op, ...fields });
      if (!res.ok) throw failure(res);
      return res;
    };
    await run('document_open', { path: resolve(file) });
    const result = (await run('audit', { fix })).result as AuditResult;
    if (fixOut !== undefined) await run('save', { path: resolve(fixOut) });
    const left = fix ? result.remaining : result.count;
    if (json) {
      io.stdout.write(JSON.stringify({ file, ...result, ...(fixOut !== undefined ? { output: fixOut } : {}) }) + '\n');
    } else {
      const byCode = Object.entries(result.counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
      const lines = [
        result.count === 0
          ? `${file}: no errors`
          : `${file}: ${result.count} error${result.count === 1 ? '' : 's'} (${byCode.map(([c, n]) => `${c} ${n}`).join(', ')})`,
      ];
      // The same finding on many entities without handles (R12) is one line with its count.
      const groups = new Map<string, number>();
      for (const f of result.findings) {
        const line = `  ${f.code}${f.handle ? ` ${f.handle}` : ''}: ${f.message.replace(/\s+/g, ' ')} (fix: ${f.fix})`;
        groups.set(line, (groups.get(line) ?? 0) + 1);
      }
      let shown = 0;
      for (const [line, n] of groups) {
        if (shown === SHOWN) break;
        lines.push(n > 1 ? `${line} x${n}` : line);
        shown++;
      }
      const listed = [...groups.values()].slice(0, shown).reduce((a, b) => a + b, 0);
      if (result.count > listed) lines.push(`  ... and ${result.count - listed} more (--json lists them)`);
      if (fixOut !== undefined) lines.push(`fixed ${result.fixed}, ${result.remaining} left; repaired drawing written to ${fixOut}`);
      io.stdout.write(lines.join('\n') + '\n');
    }
    return left === 0 ? 0 : 1;
  } catch (err) {
    io.stderr.write(`linework audit: ${file}: ${(err as Error).message}\n`);
    return 1;
  }
}
