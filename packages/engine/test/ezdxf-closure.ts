// ezdxf's strict audit of copies (ezdxf_closure.py): what the engine's closure tests and the
// editor's clipboard tests ask of every drawing a copy was saved to.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const python = process.env.LINEWORK_PYTHON ?? '/usr/bin/python3';
const script = new URL('./ezdxf_closure.py', import.meta.url).pathname;
export const hasEzdxf = existsSync(python) && spawnSync(python, ['-c', 'import ezdxf'], { encoding: 'utf8' }).status === 0;

export interface Audit {
  file: string;
  ok: boolean;
  fixes: Record<string, number>;
  errors: Record<string, number>;
  messages: string[];
  modelspace: Record<string, number>;
  blocks: string[];
}

/** ezdxf's audit of many files in one Python process. */
export function audits(files: string[]): Audit[] {
  const r = spawnSync(python, [script, ...files], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`ezdxf_closure.py failed: ${r.stderr}`);
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Audit);
}
