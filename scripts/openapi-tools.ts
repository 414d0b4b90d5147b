// The OpenAPI documents of both services, checked the way OpenAPI tooling reads them: validated
// against the OpenAPI schemas by @readme/openapi-parser (3.0 and 3.1) and linted with Redocly's
// `recommended` rules (@redocly/openapi-core). Used by the tests; also a command:
//   npx tsx scripts/openapi-tools.ts http://127.0.0.1:8080/api/v1/openapi.json [token]
//   npx tsx scripts/openapi-tools.ts http://127.0.0.1:8090/openapi.json
import { validate } from '@readme/openapi-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';

/**
 * Redocly's `recommended` set, with one rule off: `operation-4xx-response` asks every operation to
 * document a client error, and the key service's `GET /health` and `GET /openapi.json` take no
 * input and have none to answer (health's failure is a 503).
 */
const RULES = { 'operation-4xx-response': 'off' } as const;

/** Everything the validator and the linter find, one line each; empty when the document passes. */
export async function openApiProblems(doc: unknown): Promise<string[]> {
  const out: string[] = [];
  // The parser resolves and may change the object it is given: it gets a copy.
  const result = await validate(structuredClone(doc) as Parameters<typeof validate>[0]);
  if (!result.valid) for (const e of result.errors) out.push(`invalid: ${e.message}`);
  for (const w of result.warnings ?? []) out.push(`validator warning: ${w.message}`);
  const config = await createConfig({ extends: ['recommended'], rules: RULES });
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: '/openapi.json', config });
  for (const p of problems) out.push(`${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '#'}`);
  return out;
}

if (process.argv[1] && /openapi-tools\.[tj]s$/.test(process.argv[1])) {
  const [url, token] = process.argv.slice(2);
  if (!url) {
    process.stderr.write('usage: npx tsx scripts/openapi-tools.ts URL [bearer token]\n');
    process.exit(2);
  }
  const res = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const problems = await openApiProblems(await res.json());
  for (const p of problems) process.stdout.write(p + '\n');
  process.stdout.write(problems.length ? `${problems.length} problems\n` : 'valid OpenAPI; no lint problems (Redocly recommended)\n');
  process.exit(problems.length ? 1 : 0);
}
