// The construct/modify ops over HTTP: POST /api/v1/<op> (the passthrough) and the command line
// (POST /api/v1/commands), against the real engine in process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '@linework/engine';
import { TokenCheck } from '../src/auth.js';
import { startHttpServer, type RunningHttpServer } from '../src/http-server.js';
import { client } from './helpers.js';

const TOKEN = 'feed'.repeat(16);
let srv: RunningHttpServer;
let c: ReturnType<typeof client>;

beforeAll(async () => {
  srv = await startHttpServer({ api: createEngine({ appVersion: 'test' }), auth: new TokenCheck({ value: TOKEN, source: 'env' }), port: 0 });
  c = client(srv.port, TOKEN);
});
afterAll(async () => {
  await srv.close();
});

describe('modify ops over HTTP', () => {
  it('POST /api/v1/fillet rounds a corner; POST /api/v1/commands trims by point', async () => {
    const made = await c.post('/api/v1/entities', { entities: [
      { type: 'Line', start: [0, 0], end: [12, 0] },
      { type: 'Line', start: [10, -3], end: [10, 10] },
      { type: 'Circle', center: [30, 0], radius: 5 },
      { type: 'Line', start: [33, -10], end: [33, 10] },
    ] });
    expect(made.status).toBe(201);
    const h = made.json.result.handles as string[];
    const f = await c.post('/api/v1/fillet', { handles: [h[0], h[1]], radius: 2, points: [[2, 0], [10, 8]] });
    expect(f.status).toBe(200);
    expect(f.json.ok).toBe(true);
    expect(f.json.result.modified.sort()).toEqual([h[0], h[1]].sort());
    expect(f.json.result.created).toHaveLength(1);
    const arc = await c.get(`/api/v1/entities/${f.json.result.created[0]}`);
    expect(arc.json.entities[0]).toMatchObject({ type: 'Arc', center: [8, 2, 0], radius: 2 });
    const bad = await c.post('/api/v1/fillet', { handles: [h[0], h[1]], radius: 500 });
    expect(bad.json).toMatchObject({ ok: false, code: 'radius_too_large' });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    const t = await c.post('/api/v1/commands', { cmd: 'TR 35,0' });
    expect(t.json.ok).toBe(true);
    const done = t.json.result.commands[0];
    expect(done).toMatchObject({ command: 'TRIM', erased: [h[2]] });
    const trimmed = await c.get(`/api/v1/entities/${done.created[0]}`);
    const a = trimmed.json.entities[0];
    expect(a.type).toBe('Arc');
    const deg = (Math.acos(3 / 5) * 180) / Math.PI;
    expect(a.start_angle).toBeCloseTo(deg, 9);
    expect(a.end_angle).toBeCloseTo(360 - deg, 9);
  });
});
