// Picks never hang: a pick whose client went away (HTTP connection closed, TCP connection or stdio
// input ended, MCP call cancelled or transport closed) is cancelled at once and leaves the screen;
// a session with no editor page connected answers waiting picks `gui_closed`.
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createEngine, type Engine, type GuiBridge, type ProtocolResponse } from '@linework/engine';
import { startEditorHost } from '@linework/editor';
import { TokenCheck } from '../src/auth.js';
import { startHttpServer } from '../src/http-server.js';
import { startTcpServer } from '../src/tcp.js';
import { serveStdio } from '../src/stdio.js';
import { createMcpServer } from '../src/mcp.js';

const TOKEN = 'pick-clients-token-0123456789';

/** An engine in graphical mode whose screen is a list of shown and dismissed prompts. */
function guiEngine(): { engine: Engine; shown: string[]; dismissed: string[] } {
  const shown: string[] = [];
  const dismissed: string[] = [];
  const gui: GuiBridge = { prompt: (p) => shown.push(p.request_id), dismiss: (id) => dismissed.push(id) };
  return { engine: createEngine({ gui }), shown, dismissed };
}

async function until(what: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

describe('a pick whose client went away is cancelled at once', () => {
  it('HTTP: the connection closing ends the pick; the next client is answered', async () => {
    const { engine, shown, dismissed } = guiEngine();
    const srv = await startHttpServer({ api: engine, auth: new TokenCheck({ value: TOKEN, source: 'env' }), port: 0 });
    closers.push(() => srv.close());
    const body = JSON.stringify({ message: 'pick' });
    const req = httpRequest({ host: '127.0.0.1', port: srv.port, method: 'POST', path: '/api/v1/getpoint', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
    req.on('error', () => undefined);
    req.end(body);
    await until(() => shown.length === 1);
    expect(engine.pendingIds()).toEqual([shown[0]]);
    req.destroy();
    await until(() => dismissed.length === 1);
    expect(dismissed).toEqual([shown[0]]);
    expect(engine.pendingIds()).toEqual([]);
    const rec = await engine.dispatch({ protocol: 1, op: 'operation', id: shown[0] });
    expect(rec.result).toMatchObject({ status: 'cancelled', code: 'cancelled' });
    expect(String((rec.result as { error: string }).error)).toMatch(/client went away/);

    // the next client's pick is the only one waiting, and one answer ends it
    const next = fetch(`http://127.0.0.1:${srv.port}/api/v1/getpoint`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: '{}' });
    await until(() => shown.length === 2);
    expect(engine.pendingIds()).toEqual([shown[1]]);
    expect(engine.answer(shown[1]!, { point: [1, 2, 0] })).toBe(true);
    expect(await (await next).json()).toMatchObject({ ok: true, result: { point: [1, 2, 0] } });
  });

  it('HTTP: a pick asked with wait false outlives its connection', async () => {
    const { engine } = guiEngine();
    const srv = await startHttpServer({ api: engine, auth: new TokenCheck({ value: TOKEN, source: 'env' }), port: 0 });
    closers.push(() => srv.close());
    const r = await fetch(`http://127.0.0.1:${srv.port}/api/v1/getpoint`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: '{"wait":false}' });
    expect(await r.json()).toMatchObject({ ok: true, status: 'pending' });
    await new Promise((res) => setTimeout(res, 50));
    expect(engine.pendingIds()).toHaveLength(1);
  });

  it('TCP: the connection closing ends its picks, not those of others', async () => {
    const { engine, shown, dismissed } = guiEngine();
    const srv = await startTcpServer({ api: engine, auth: new TokenCheck({ value: TOKEN, source: 'env' }), port: 0 });
    closers.push(() => srv.close());
    const a = connect(srv.port, '127.0.0.1');
    const b = connect(srv.port, '127.0.0.1');
    a.on('error', () => undefined);
    const bLines: string[] = [];
    b.on('data', (d) => bLines.push(...d.toString().split('\n').filter(Boolean)));
    a.write(JSON.stringify({ protocol: 1, op: 'getpoint', request_id: 'tcp-a', token: TOKEN }) + '\n');
    b.write(JSON.stringify({ protocol: 1, op: 'getpoint', request_id: 'tcp-b', token: TOKEN }) + '\n');
    await until(() => shown.length === 2);
    a.destroy();
    await until(() => dismissed.includes('tcp-a'));
    expect(engine.pendingIds()).toEqual(['tcp-b']);
    engine.answer('tcp-b', { point: [3, 4, 0] });
    await until(() => bLines.length === 1);
    expect(JSON.parse(bLines[0]!)).toMatchObject({ ok: true, request_id: 'tcp-b', result: { point: [3, 4, 0] } });
    b.destroy();
  });

  it('stdio: the input ending ends the picks its requests wait for', async () => {
    const { engine, shown, dismissed } = guiEngine();
    const input = new PassThrough();
    const output = new PassThrough();
    const out: string[] = [];
    output.on('data', (d: Buffer) => out.push(...d.toString().split('\n').filter(Boolean)));
    const served = serveStdio({ api: engine, input, output });
    input.write(JSON.stringify({ protocol: 1, op: 'user_select', request_id: 'io-1' }) + '\n');
    await until(() => shown.length === 1);
    input.end();
    await served;
    expect(dismissed).toEqual(['io-1']);
    expect(JSON.parse(out[0]!)).toMatchObject({ ok: false, code: 'cancelled', request_id: 'io-1' });
  });

  it('MCP: a cancelled call and a closed transport end their picks', async () => {
    const { engine, shown, dismissed } = guiEngine();
    // The picks are actions of the session tool, listed with --tools session (or all).
    const server = createMcpServer(engine, ['session']);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(clientSide);
    const aborter = new AbortController();
    const call = client.callTool({ name: 'session', arguments: { action: 'getpoint', message: 'a' } }, undefined, { signal: aborter.signal }).catch((e: unknown) => e);
    await until(() => shown.length === 1);
    aborter.abort();
    await call;
    await until(() => dismissed.length === 1);
    expect(engine.pendingIds()).toEqual([]);

    void client.callTool({ name: 'session', arguments: { action: 'user_select' } }).catch(() => undefined);
    await until(() => shown.length === 2);
    await client.close();
    await until(() => dismissed.length === 2);
    expect(engine.pendingIds()).toEqual([]);
  });
});

describe('no editor open', () => {
  const hostFor = async (engine: Engine, noEditorMs: number) => {
    const host = await startEditorHost({
      engine, port: 0, token: TOKEN, noEditorMs,
      authorized: (h) => h === `Bearer ${TOKEN}`,
      api: () => Promise.resolve({ status: 404, headers: {}, chunks: [] }),
    });
    closers.push(() => host.close());
    return host;
  };
  const openEvents = (port: number): Promise<{ close: () => void }> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/gui/events', headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
        res.once('data', () => resolve({ close: () => req.destroy() }));
      });
      req.on('error', () => undefined);
      req.once('error', reject);
      req.end();
    });

  it('waiting picks are answered gui_closed when no page was connected for the limit', async () => {
    const relay = { target: null as GuiBridge | null };
    const engine = createEngine({ gui: { prompt: (p) => relay.target?.prompt(p), dismiss: (id) => relay.target?.dismiss(id) } });
    const host = await hostFor(engine, 150);
    relay.target = host.bridge;
    const t0 = Date.now();
    const res: ProtocolResponse = await engine.dispatch({ protocol: 1, op: 'getpoint', request_id: 'lonely' });
    expect(res).toMatchObject({ ok: false, code: 'gui_closed', request_id: 'lonely' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('a connected page keeps picks waiting; closing it cancels nothing at once', async () => {
    const relay = { target: null as GuiBridge | null };
    const engine = createEngine({ gui: { prompt: (p) => relay.target?.prompt(p), dismiss: (id) => relay.target?.dismiss(id) } });
    const host = await hostFor(engine, 300);
    relay.target = host.bridge;
    const page = await openEvents(host.port);
    let answered: ProtocolResponse | null = null;
    void engine.dispatch({ protocol: 1, op: 'getpoint', request_id: 'watched' }).then((r) => (answered = r));
    await new Promise((r) => setTimeout(r, 450));
    expect(answered).toBeNull();
    page.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(answered).toBeNull();
    // another page connecting in time answers it
    const other = await openEvents(host.port);
    await new Promise((r) => setTimeout(r, 400));
    expect(answered).toBeNull();
    expect(engine.answer('watched', { point: [0, 0, 0] })).toBe(true);
    await until(() => answered !== null);
    expect(answered).toMatchObject({ ok: true });
    other.close();
  });
});
