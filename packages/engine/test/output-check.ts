// Checks a success answer's `result` against the op's declared output schema (test helper): the
// schema types the OpenAPI answers, so an answer that drifts from it must fail a test.
import type { OpDef, ProtocolResponse } from '../src/index.js';

/** The problems of `res` against its op's output schema, or null when it conforms (or failed). */
export function outputProblems(catalogue: Iterable<OpDef>, op: string, res: ProtocolResponse): string | null {
  if (!res.ok) return null;
  const def = [...catalogue].find((o) => o.name === op);
  if (!def) return null;
  if (!def.output) return `op ${op} declares no output schema`;
  const parsed = def.output.safeParse(res.result);
  if (parsed.success) return null;
  return `${op} answered outside its output schema: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(result)'}: ${i.message}`).join('; ')}`;
}
