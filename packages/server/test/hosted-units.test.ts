// The pieces of the hosted API in process: organization folder names, the key service's answers
// as verifications, the verifier's deadline and failures, the status of each denial, and the
// organization sessions' start, idle release and restore, the frames between the front and a
// worker, and the sharing of connections between organizations.
import { pathScrubber } from '../src/path-scrub.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PERMISSIONS } from '@linework/keys';
import { DRAWING_PERMISSIONS } from '@linework/engine';
import { ensureOrgFolder, orgFolderName } from '../src/org-folder.js';
import { KeyVerifier, parseKeysUrl, readVerification } from '../src/key-verifier.js';
import { OrgSessions } from '../src/org-sessions.js';
import { rateLimitHeaders } from '../src/hosted.js';
import { REASONS, statusForCode } from '../src/status.js';
import { silentLogger } from '../src/logger.js';
import { sleep } from './helpers.js';
import type { Socket } from 'node:net';
import { ConnectionGate } from '../src/connection-gate.js';
import type { OrgWorker } from '../src/org-link.js';
import { LONG_REQUEST_MS, OrgWorkers } from '../src/org-workers.js';
import { SCHED_OTHER, backgroundClass, mayRaiseTo, setNiceAll, threadScheduling } from '../src/cpu-class.js';
import { spawn } from 'node:child_process';
import { FRAME, FrameReader, encodeFrame, frameData, frameMeta, type Frame } from '../src/org-frames.js';

describe('organization folders', () => {
  it('keeps plain lower-case ids, escapes everything else one-to-one', () => {
    expect(orgFolderName('acme')).toBe('acme');
    expect(orgFolderName('org-42')).toBe('org-42');
    expect(orgFolderName('Acme')).toBe('_41cme');
    expect(orgFolderName('a_b')).toBe('a_5fb');
    expect(orgFolderName('')).toBe('_');
    expect(orgFolderName('é')).toBe('_c3_a9');
  });

  it('never names anything but one folder below the root', () => {
    for (const id of ['.', '..', '../x', '/etc', 'a/b', 'a\\b', '~', 'con', '.autosave', '\u0000']) {
      const name = orgFolderName(id);
      expect(name, id).not.toMatch(/[/\\.]/);
      expect(['', '.', '..']).not.toContain(name);
    }
  });

  it('gives different ids different folders, also when case is ignored and ids are long', () => {
    const long = 'x'.repeat(300);
    const ids = ['acme', 'ACME', 'Acme', '_41cme', '_5f41cme', 'a_b', 'a-b', '', '_', long, `${long}y`, `${long}Y`, 'é', 'e\u0301'];
    const names = ids.map(orgFolderName);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(ids.length);
    for (const n of names) expect(n.length).toBeLessThanOrEqual(128);
  });

  describe('on disk', () => {
    let root: string;
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'lw-orgs-'));
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('creates the folder once, and refuses a symlink planted in its place', async () => {
      const dir = await ensureOrgFolder(root, 'acme');
      expect(dir).toBe(join(root, 'acme'));
      expect(await ensureOrgFolder(root, 'acme')).toBe(dir);
      const elsewhere = mkdtempSync(join(tmpdir(), 'lw-elsewhere-'));
      try {
        symlinkSync(elsewhere, join(root, 'evil'));
        await expect(ensureOrgFolder(root, 'evil')).rejects.toThrow(/not a plain folder/);
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    });
  });
});

describe('the key service\'s verify answers', () => {
  const ok = (data: unknown): string => JSON.stringify({ success: true, data });

  it('reads valid and refused answers with their limits', () => {
    expect(readVerification(200, ok({ valid: true, id: 'k1', userId: 'u', organizationId: 'acme', permissions: [], expiresAt: null, ratelimit: { limit: 5, remaining: 4, reset: 1000 } })))
      .toEqual({ kind: 'valid', keyId: 'k1', organizationId: 'acme', ratelimit: { limit: 5, remaining: 4, reset: 1000 } });
    expect(readVerification(200, ok({ valid: false, code: 'REVOKED' }))).toEqual({ kind: 'refused', code: 'REVOKED' });
    expect(readVerification(200, ok({ valid: false, code: 'USAGE_EXCEEDED', remaining: 0 }))).toEqual({ kind: 'refused', code: 'USAGE_EXCEEDED', remaining: 0 });
    // a code this server does not know is still a refusal
    expect(readVerification(200, ok({ valid: false, code: 'SOMETHING_NEW' }))).toEqual({ kind: 'refused', code: 'SOMETHING_NEW' });
  });

  it('takes nothing else for an answer: never an open door', () => {
    for (const [status, text] of [
      [500, '{"success":false,"error":"boom"}'],
      [200, 'not json'],
      [200, '{"success":true}'],
      [200, ok({ valid: true, id: 'k1' })],
      [200, ok({ valid: 'yes', organizationId: 'acme' })],
      [404, '{"success":false,"error":"Route not found"}'],
      [502, '<html>bad gateway</html>'],
    ] as const) {
      expect(readVerification(status, text).kind, text).toBe('unavailable');
    }
  });

  it('a permission the key service does not offer is its own answer', () => {
    expect(readVerification(400, '{"success":false,"error":"Invalid API key permissions: plots:create","code":"invalid_permissions"}').kind).toBe('unknown_permission');
  });

  it('checks the URL', () => {
    expect(parseKeysUrl('http://127.0.0.1:8090')).toBeInstanceOf(URL);
    expect(parseKeysUrl('https://keys.example.com/base/')).toBeInstanceOf(URL);
    expect(parseKeysUrl('127.0.0.1:8090')).toMatch(/http/);
    expect(parseKeysUrl('ftp://x')).toMatch(/http/);
    expect(parseKeysUrl('http://u:p@x/')).toMatch(/credentials/);
  });
});

describe('KeyVerifier against a stand-in key service', () => {
  let server: Server;
  let url: string;
  let handler: (body: string, res: import('node:http').ServerResponse) => void;
  const seen: { path: string; body: string }[] = [];

  beforeEach(async () => {
    seen.length = 0;
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ path: req.url ?? '', body });
        handler(body, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends the key and the permissions to /api-keys/verify (below the URL\'s path)', async () => {
    handler = (_b, res) => res.end(JSON.stringify({ success: true, data: { valid: true, id: 'k', userId: 'u', organizationId: 'o', permissions: [], expiresAt: null } }));
    const v = new KeyVerifier({ url: `${url}/keys/` });
    expect(await v.verify('lwk_x', ['drawings:read'])).toMatchObject({ kind: 'valid', organizationId: 'o' });
    expect(await v.verify('lwk_x', [])).toMatchObject({ kind: 'valid' });
    v.close();
    expect(seen).toEqual([
      { path: '/keys/api-keys/verify', body: '{"key":"lwk_x","permissions":["drawings:read"]}' },
      { path: '/keys/api-keys/verify', body: '{"key":"lwk_x"}' },
    ]);
  });

  it('a key service that hangs is unavailable once the deadline passes', async () => {
    handler = () => undefined; // never answers
    const v = new KeyVerifier({ url, timeoutMs: 300 });
    const t0 = Date.now();
    const r = await v.verify('lwk_x', []);
    const ms = Date.now() - t0;
    v.close();
    expect(r).toMatchObject({ kind: 'unavailable' });
    expect((r as { reason: string }).reason).toMatch(/300 ms/);
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(2000);
  });

  it('a key service that is gone or answers an error is unavailable', async () => {
    handler = (_b, res) => {
      res.statusCode = 500;
      res.end('{"success":false,"error":"Internal error"}');
    };
    const v = new KeyVerifier({ url });
    expect((await v.verify('lwk_x', [])).kind).toBe('unavailable');
    v.close();
    const gone = new KeyVerifier({ url: 'http://127.0.0.1:1' });
    expect(await gone.verify('lwk_x', [])).toMatchObject({ kind: 'unavailable', reason: expect.stringMatching(/ECONNREFUSED/) });
    gone.close();
  });
});

describe('denials', () => {
  it('map to statuses in the one table', () => {
    expect(statusForCode('insufficient_permissions')).toBe(403);
    expect(statusForCode('rate_limited')).toBe(429);
    expect(statusForCode('usage_exceeded')).toBe(429);
    expect(statusForCode('keys_unavailable')).toBe(503);
    expect(statusForCode('session_unavailable')).toBe(503);
    expect(statusForCode('unauthorized')).toBe(401);
    expect(REASONS[429]).toBe('Too Many Requests');
  });

  it('carry the rate-limit window as headers, Retry-After when refused', () => {
    const rl = { limit: 10, remaining: 0, reset: Date.now() + 2500 };
    expect(rateLimitHeaders(rl, true)).toEqual({ 'RateLimit-Limit': '10', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '3', 'Retry-After': '3' });
    expect(rateLimitHeaders(rl, false)).not.toHaveProperty('Retry-After');
    expect(rateLimitHeaders(undefined, true)).toEqual({});
  });

  it('the permissions the ops declare are the key service\'s defaults', () => {
    expect([...DRAWING_PERMISSIONS]).toEqual([...DEFAULT_PERMISSIONS]);
  });
});

describe('OrgSessions', () => {
  let root: string;
  let orgs: OrgSessions | null = null;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'lw-orgsessions-'));
  });
  afterEach(async () => {
    await orgs?.close();
    orgs = null;
    rmSync(root, { recursive: true, force: true });
  });

  it('one session per organization, each in its own folder; concurrent first requests share one', async () => {
    orgs = new OrgSessions({ root, appVersion: 't', log: silentLogger() });
    const [a1, a2, b] = await Promise.all([orgs.acquire('acme'), orgs.acquire('acme'), orgs.acquire('Beta')]);
    expect(a1.api).toBe(a2.api);
    expect(b.api).not.toBe(a1.api);
    const create = await a1.api.dispatch({ protocol: 1, op: 'entities_create', entities: [{ type: 'Point', location: [1, 2] }] });
    expect(create.ok).toBe(true);
    const listB = await b.api.dispatch({ protocol: 1, op: 'entities_list' });
    expect((listB.result as { count: number }).count).toBe(0);
    const save = await b.api.dispatch({ protocol: 1, op: 'save', path: 'x.dxf' });
    expect(save.ok).toBe(true);
    expect(readdirSync(join(root, '_42eta'))).toContain('x.dxf');
    expect((await b.api.dispatch({ protocol: 1, op: 'save', path: '../acme/y.dxf' })).code).toBe('path_outside_root');
    for (const l of [a1, a2, b]) l.release();
  });

  it('saves and releases an idle session, never one in use, and restores it on the next request', async () => {
    orgs = new OrgSessions({ root, appVersion: 't', idleMs: 150, log: silentLogger() });
    const first = await orgs.acquire('acme');
    await first.api.dispatch({ protocol: 1, op: 'entities_create', entities: [{ type: 'Point', location: [1, 2] }] });
    const sessionId = first.api.sessionId;
    await new Promise((r) => setTimeout(r, 400));
    expect(orgs.liveOrgs).toEqual(['acme']); // held: not released
    first.release();
    for (let i = 0; i < 40 && orgs.liveOrgs.length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(orgs.liveOrgs).toEqual([]);
    expect(readdirSync(join(root, 'acme', '.autosave')).sort()).toEqual(['1.dxf', 'session.json']);
    const again = await orgs.acquire('acme');
    expect(again.api.sessionId).not.toBe(sessionId);
    const list = await again.api.dispatch({ protocol: 1, op: 'entities_list', document_id: 1 });
    expect(list).toMatchObject({ ok: true, document_id: 1, result: { count: 1 } });
    again.release();
  });

  it('a folder that cannot be made is session_unavailable', async () => {
    mkdirSync(join(root, 'sub'));
    orgs = new OrgSessions({ root: join(root, 'sub'), appVersion: 't', log: silentLogger() });
    rmSync(join(root, 'sub'), { recursive: true });
    await expect(orgs.acquire('acme')).rejects.toMatchObject({ code: 'session_unavailable' });
  });
});

describe('pathScrubber', () => {
  it('shows paths relative to the organization\'s folder, never the root, in every string of an answer', () => {
    const s = pathScrubber('/srv/lw/acme', '/srv/lw', ['/data/link']);
    const answer = {
      ok: true, path: '/srv/lw/acme/a1.dxf', folder: '/srv/lw/acme',
      error: 'cannot open /srv/lw/acme-two/x.dxf: outside /srv/lw/acme',
      list: [{ p: '/srv/lw/beta/plan.dxf' }, { p: '/data/link/acme/b.dxf' }, 'plain'], n: 3, bytes: new Uint8Array([1]),
    };
    expect(s.scrub(answer)).toEqual({
      ok: true, path: 'a1.dxf', folder: '.',
      error: 'cannot open ../acme-two/x.dxf: outside .',
      list: [{ p: '../beta/plan.dxf' }, { p: '../acme/b.dxf' }, 'plain'], n: 3, bytes: new Uint8Array([1]),
    });
    // nothing to rewrite: the very same objects come back
    const clean = { ok: true, list: [{ a: 'x' }] };
    expect(s.scrub(clean)).toBe(clean);
  });
});

describe('the frames between the front and a worker', () => {
  it('come out whole and in order however the stream is cut, data kept as it was sent', () => {
    const body = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
    const stream = Buffer.concat([
      ...encodeFrame(FRAME.http, 7, { method: 'POST', target: '/api/v1/entities?x=ü' }, [body]),
      ...encodeFrame(FRAME.stop, 0),
      ...encodeFrame(FRAME.httpReply, 4_000_000_000, { status: 201, headers: { A: 'b' } }, [Buffer.from('{"ok":'), Buffer.from('true}')]),
    ]);
    for (const cut of [1, 5, 13, 14, 1000, stream.length]) {
      const reader = new FrameReader();
      const frames: Frame[] = [];
      for (let i = 0; i < stream.length; i += cut) frames.push(...reader.push(stream.subarray(i, i + cut)));
      expect(frames.map((f) => [f.kind, f.id])).toEqual([[FRAME.http, 7], [FRAME.stop, 0], [FRAME.httpReply, 4_000_000_000]]);
      expect(frameMeta(frames[0]!)).toEqual({ method: 'POST', target: '/api/v1/entities?x=ü' });
      expect(frameData(frames[0]!).equals(body)).toBe(true);
      expect(frames[1]!.dataBytes).toBe(0);
      expect(frameMeta(frames[2]!)).toEqual({ status: 201, headers: { A: 'b' } });
      expect(frameData(frames[2]!).toString()).toBe('{"ok":true}');
    }
  });

  it('refuses a frame whose meta is longer than the frame', () => {
    const bad = Buffer.alloc(13);
    bad.writeUInt32BE(9, 0);
    bad.writeUInt32BE(50, 9);
    expect(() => new FrameReader().push(bad)).toThrow(/meta/);
  });
});

describe('ConnectionGate', () => {
  const sock = (): Socket => {
    const s = { destroyed: false, destroy: () => (s.destroyed = true) };
    return s as unknown as Socket;
  };

  it('the spec\'s rule alone: the ninth is dropped until one finishes', () => {
    const gate = new ConnectionGate({ total: 8, perBucket: 8, evictHeads: false });
    const t = Array.from({ length: 8 }, () => gate.accept(sock())!);
    expect(t.every(Boolean)).toBe(true);
    expect(gate.accept(sock())).toBeNull();
    gate.release(t[0]!);
    gate.release(t[0]!); // twice: counted once
    expect(gate.accept(sock())).not.toBeNull();
    expect(gate.accept(sock())).toBeNull();
  });

  it('shares per bucket: one bucket full leaves the others their places', () => {
    const gate = new ConnectionGate({ total: 20, perBucket: 3, evictHeads: true });
    const a = Array.from({ length: 4 }, () => gate.accept(sock())!);
    expect(a.slice(0, 3).every((t) => gate.admit(t, 'org:a'))).toBe(true);
    expect(gate.admit(a[3]!, 'org:a')).toBe(false);
    gate.release(a[3]!);
    expect(gate.held('org:a')).toBe(3);
    const b = gate.accept(sock())!;
    expect(gate.admit(b, 'org:b')).toBe(true);
    gate.release(a[0]!);
    expect(gate.held('org:a')).toBe(2);
    const again = gate.accept(sock())!;
    expect(gate.admit(again, 'org:a')).toBe(true);
  });

  it('in the anonymous bucket a new request takes the place of the oldest one still sending its body', () => {
    const gate = new ConnectionGate({ total: 20, perBucket: 2, evictHeads: true, openBucket: 'anonymous' });
    const s = [sock(), sock(), sock(), sock(), sock()];
    const t = s.map((x) => gate.accept(x)!);
    expect(gate.admit(t[0]!, 'anonymous')).toBe(true);
    expect(gate.admit(t[1]!, 'anonymous')).toBe(true);
    gate.requestRead(t[0]!); // whole: never evicted
    expect(gate.admit(t[2]!, 'anonymous')).toBe(true);
    expect(s.map((x) => x.destroyed)).toEqual([false, true, false, false, false]);
    gate.requestRead(t[2]!);
    // both whole now: the next one is dropped; an organization's bucket never evicts
    expect(gate.admit(t[3]!, 'anonymous')).toBe(false);
    expect(gate.held('anonymous')).toBe(2);
  });

  it('a full gate closes the oldest connection still sending its head, never one that sent it', () => {
    const gate = new ConnectionGate({ total: 3, perBucket: 3, evictHeads: true });
    const s = [sock(), sock(), sock()];
    const t = s.map((x) => gate.accept(x)!);
    gate.admit(t[0]!, 'org:a');
    const fourth = gate.accept(sock());
    expect(fourth).not.toBeNull();
    expect(s.map((x) => x.destroyed)).toEqual([false, true, false]);
    gate.admit(t[2]!, 'anonymous');
    gate.admit(fourth!, 'anonymous');
    expect(gate.accept(sock())).toBeNull();
    expect(gate.size).toBe(3);
  });
});

describe('OrgWorkers: answers the front gives again without the hop', () => {
  /** A stand-in worker whose answers count the requests it ran; `gate` holds an answer back. */
  function fakeWorker() {
    let ran = 0;
    let hold: Promise<void> | null = null;
    const worker: OrgWorker = {
      orgId: 'acme',
      where: 'test',
      http: async (req) => {
        const n = ++ran;
        if (hold) await hold;
        const body = Buffer.from(JSON.stringify({ n, target: req.target }));
        return { status: 200, encoded: { chunks: [body], bytes: body.length } };
      },
      line: async () => [],
      stop: async () => undefined,
      exited: new Promise(() => undefined),
    };
    return { worker, ran: () => ran, holdWith: (p: Promise<void> | null) => (hold = p) };
  }
  const text = (r: { encoded?: { chunks: Buffer[] } }) => JSON.parse(Buffer.concat(r.encoded!.chunks).toString()) as { n: number };
  const req = (target: string, method = 'GET') => ({ method, target, body: new Uint8Array() });

  it('gives the last answer again until another request reaches the session', async () => {
    const f = fakeWorker();
    const orgs = new OrgWorkers({ root: '/nowhere', appVersion: 't', log: silentLogger(), idleMs: 60_000, startWorker: async () => f.worker });
    try {
      expect(text(await orgs.http('acme', req('/api/v1/ready'), { reusable: true })).n).toBe(1);
      // the wire empties the chunk array it writes: the kept answer must not be emptied with it
      const again = await orgs.http('acme', req('/api/v1/ready'), { reusable: true });
      again.encoded!.chunks.length = 0;
      expect(text(await orgs.http('acme', req('/api/v1/ready'), { reusable: true })).n).toBe(1);
      expect(f.ran()).toBe(1);
      await orgs.http('acme', req('/api/v1/documents', 'POST'));
      expect(text(await orgs.http('acme', req('/api/v1/ready'), { reusable: true })).n).toBe(3);
      // an answer that comes back after another request was sent is not kept
      let release!: () => void;
      f.holdWith(new Promise<void>((r) => (release = r)));
      const slow = orgs.http('acme', req('/api/v1/capabilities'), { reusable: true });
      f.holdWith(null);
      const change = orgs.http('acme', req('/api/v1/entities', 'POST'));
      release();
      await Promise.all([slow, change]);
      expect(text(await orgs.http('acme', req('/api/v1/capabilities'), { reusable: true })).n).toBe(6);
      // a few targets at most are kept
      for (let i = 0; i < 20; i++) await orgs.http('acme', req(`/api/v1/ready?x=${i}`), { reusable: true });
      const before = f.ran();
      for (let i = 0; i < 20; i++) await orgs.http('acme', req(`/api/v1/ready?x=${i}`), { reusable: true });
      expect(f.ran() - before).toBeGreaterThanOrEqual(12);
    } finally {
      await orgs.close();
    }
  });
});

describe('OrgWorkers: a long request yields the CPU', () => {
  it('lowers the worker\'s priority once a request runs past LONG_REQUEST_MS, and gives it back when it ends', async () => {
    const calls: boolean[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const body = Buffer.from('{}');
    const worker: OrgWorker = {
      orgId: 'acme', where: 'test',
      http: async (req) => {
        if (req.target.includes('plot')) await held;
        return { status: 200, encoded: { chunks: [body], bytes: body.length } };
      },
      line: async () => [], stop: async () => undefined, exited: new Promise(() => undefined),
      yieldCpu: (long) => void calls.push(long),
    };
    const orgs = new OrgWorkers({ root: '/nowhere', appVersion: 't', log: silentLogger(), idleMs: 60_000, startWorker: async () => worker });
    try {
      await orgs.http('acme', { method: 'GET', target: '/api/v1/state', body: new Uint8Array() });
      const plot = orgs.http('acme', { method: 'POST', target: '/api/v1/plot', body: new Uint8Array() });
      await sleep(LONG_REQUEST_MS + 300);
      expect(calls).toEqual([true]);
      // short requests beside it change nothing
      await orgs.http('acme', { method: 'GET', target: '/api/v1/state', body: new Uint8Array() });
      expect(calls).toEqual([true]);
      release();
      await plot;
      expect(calls).toEqual([true, false]);
    } finally {
      await orgs.close();
    }
  });
});

describe('OrgWorkers: time counts from when the worker starts a request', () => {
  it('a request queued behind a long one does not count its wait: the worker is given back when the long one ends', async () => {
    const calls: boolean[] = [];
    const holds = new Map<string, () => void>();
    const held = (name: string) => new Promise<void>((r) => holds.set(name, r));
    const plotHeld = held('plot');
    const nextHeld = held('next');
    const body = Buffer.from('{}');
    // as a real worker: one request at a time, in the order sent
    let last: Promise<unknown> = Promise.resolve();
    const worker: OrgWorker = {
      orgId: 'acme', where: 'test',
      http: (req) => {
        const run = last.then(async () => {
          await (req.target.includes('plot') ? plotHeld : nextHeld);
          return { status: 200, encoded: { chunks: [body], bytes: body.length } };
        });
        last = run;
        return run;
      },
      line: async () => [], stop: async () => undefined, exited: new Promise(() => undefined),
      yieldCpu: (long) => void calls.push(long),
    };
    const orgs = new OrgWorkers({ root: '/nowhere', appVersion: 't', log: silentLogger(), idleMs: 60_000, longMs: 400, startWorker: async () => worker });
    try {
      const plot = orgs.http('acme', { method: 'POST', target: '/api/v1/plot', body: new Uint8Array() });
      const next = orgs.http('acme', { method: 'GET', target: '/api/v1/state', body: new Uint8Array() });
      await sleep(700);
      expect(calls).toEqual([true]);
      holds.get('plot')!();
      await plot;
      // the request behind it has waited past the budget but only starts now: not long
      expect(calls).toEqual([true, false]);
      holds.get('next')!();
      await next;
      expect(calls).toEqual([true, false]);
    } finally {
      await orgs.close();
    }
  });
});

describe('cpu-class: the background class and the way back', () => {
  const status = (capEff: string) => `Name:\tnode\nCapInh:\t0000000000000000\nCapEff:\t${capEff}\n`;
  const limits = (soft: string) => `Limit                     Soft Limit           Hard Limit           Units     \nMax nice priority         ${soft}                    ${soft}                    \n`;

  it('may give a priority back with CAP_SYS_NICE, or with an RLIMIT_NICE that covers the nice value', () => {
    // root's full set, and CAP_SYS_NICE (bit 23) alone
    expect(mayRaiseTo(10, status('000001ffffffffff'), limits('0'))).toBe(true);
    expect(mayRaiseTo(10, status((1n << 23n).toString(16).padStart(16, '0')), limits('0'))).toBe(true);
    // Docker's default set has no CAP_SYS_NICE (bit 23 clear), nor has an ordinary user
    expect(mayRaiseTo(10, status('00000000a80425fb'), limits('0'))).toBe(false);
    expect(mayRaiseTo(10, status('0000000000000000'), limits('0'))).toBe(false);
    // RLIMIT_NICE n: nice values down to 20 - n
    expect(mayRaiseTo(10, status('0000000000000000'), limits('10'))).toBe(true);
    expect(mayRaiseTo(10, status('0000000000000000'), limits('9'))).toBe(false);
    expect(mayRaiseTo(0, status('0000000000000000'), limits('20'))).toBe(true);
    expect(mayRaiseTo(0, status('0000000000000000'), limits('unlimited'))).toBe(true);
    expect(mayRaiseTo(10, '', '')).toBe(false);
  });

  it.runIf(process.platform === 'linux')('sets the nice value of every thread of a process, not only the first', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      // a node process has its V8 and libuv threads from the start
      while (threadScheduling(child.pid!).length < 2) await sleep(20);
      expect(setNiceAll(child.pid!, 17)).toBe(true);
      const threads = threadScheduling(child.pid!);
      expect(threads.map((t) => t.nice)).toEqual(threads.map(() => 17));
      expect(threads.every((t) => t.policy === SCHED_OTHER)).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('without chrt there is no background class, and the reason says so', async () => {
    const b = await backgroundClass(10, '/nonexistent/chrt');
    expect(b.kind).toBe('none');
    if (b.kind === 'none' && mayRaiseTo(10)) expect(b.reason).toContain('/nonexistent/chrt');
  });

  it('a process that is gone has no threads, and setting them is no refusal', () => {
    expect(threadScheduling(2 ** 22 + 7)).toEqual([]);
    expect(setNiceAll(2 ** 22 + 7, 19)).toBe(true);
  });
});
