// The shared table of cases through all four transports (real processes): same answers everywhere.
import { describe, expect, it } from 'vitest';
import { SHARED_CASES, normalise } from './shared-cases.js';
import { runHttp, runMcp, runStdio, runTcp, type Answer } from './transports.js';

const reqs = SHARED_CASES.map((c) => ({ op: c.op, fields: c.fields }));

describe('shared cases through every transport', () => {
  const answers: Record<string, Answer[]> = {};

  it.each([
    ['http', runHttp],
    ['stdio', runStdio],
    ['tcp', runTcp],
    ['mcp', runMcp],
  ] as const)('%s answers every case as expected', async (name, run) => {
    const got = await run(reqs);
    expect(got).toHaveLength(SHARED_CASES.length);
    SHARED_CASES.forEach((c, i) => {
      const res = got[i]!.res;
      const label = `${name}: ${c.name}`;
      expect(res.ok, `${label}: ${JSON.stringify(res).slice(0, 300)}`).toBe(c.expect.ok);
      if (c.expect.ok) {
        if (c.expect.result) expect(res.result, label).toMatchObject(c.expect.result);
      } else {
        expect(res.code, label).toBe(c.expect.code);
      }
      if (name === 'http') {
        expect(got[i]!.http, label).toBe(c.http);
        expect(res.http_status, label).toBe(c.http);
      }
    });
    answers[name] = got;
  });

  it('gives the same normalised answers on all four', () => {
    const names = Object.keys(answers);
    expect(names.sort()).toEqual(['http', 'mcp', 'stdio', 'tcp']);
    const norm = (a: Answer[]) => a.map((x) => normalise(x.res));
    for (const n of names) expect(norm(answers[n]!), n).toEqual(norm(answers.stdio!));
  });
});
