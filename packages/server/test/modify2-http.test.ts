// The construct/modify ops (2) over HTTP: POST /api/v1/<op> answers the edit result, failures
// their typed code with status 400 (404 for an unknown handle).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startHttpProcess, type HttpServerProcess } from './helpers.js';

let s: HttpServerProcess;
beforeAll(async () => {
  s = await startHttpProcess();
});
afterAll(async () => {
  await s?.proc.stop();
});

const post = (op: string, body: Record<string, unknown>) => request(s.port, 'POST', `/api/v1/${op}`, { token: s.token, body });

describe('construct and modify ops over HTTP', () => {
  it('hatch, dimension_create, mirror, explode and their errors', async () => {
    expect((await post('document_new', {})).status).toBe(200);
    const c = await post('entities_create', { entities: [
      { type: 'LWPolyline', points: [[0, 0], [10, 0], [10, 10], [0, 10]], closed: true },
      { type: 'Circle', center: [5, 5], radius: 2 },
    ] });
    expect(c.status).toBe(200);
    const [pl, circle] = c.json.result.handles;
    const h = await post('hatch', { point: [1, 1], pattern: 'ANSI31' });
    expect(h.status).toBe(200);
    expect(h.json.result).toEqual({ created: [expect.any(String)], modified: [], erased: [] });
    const d = await post('dimension_create', { type: 'linear', points: [[0, 0], [10, 0]], position: [5, -5] });
    expect(d.json.result.created).toHaveLength(1);
    const m = await post('mirror', { handles: [circle], axis: [[20, 0], [20, 10]] });
    expect(m.json.result.created).toHaveLength(1);
    const x = await post('explode', { handles: [pl] });
    expect(x.json.result).toMatchObject({ erased: [pl], modified: [] });
    expect(x.json.result.created).toHaveLength(4);
    const gap = await post('hatch', { point: [50, 50] });
    expect([gap.status, gap.json.code]).toEqual([400, 'no_boundary']);
    const bad = await post('scale', { handles: [circle], base: [0, 0], factor: -1 });
    expect([bad.status, bad.json.code]).toEqual([400, 'invalid_transform']);
    const gone = await post('explode', { handles: ['FFFFFF'] });
    expect([gone.status, gone.json.code]).toEqual([404, 'entity_absent']);
  });
});
