// The graphical mode's own loopback port: the editor page (bundled at build time, no CDN), the
// same /api/v1 routes as the automation port (the page calls them like any client), the display
// list as binary frames, and a push stream of the engine's events and pick prompts. Everything but
// the static page needs the session token, which the page takes from its URL fragment (never
// sent in a URL, never logged). Loopback only, Host checked (no DNS rebinding), a strict CSP.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { planDisplayParts, type Engine, type EngineEvent, type GuiBridge, type PendingPrompt, type ProtocolResponse } from '@linework/engine';
import { packFrame } from './frame.js';

/** What the editor needs of the automation server: its request handler and token check. */
export interface EditorHostOptions {
  engine: Engine;
  /** Runs an /api/v1 request as the automation port would (auth, routing, envelope). */
  api: (req: { method: string; target: string; headers: Record<string, string>; body: Buffer; signal?: AbortSignal }) => Promise<{ status: number; headers: Record<string, string>; chunks: Buffer[] }>;
  /** True when the Authorization header carries the session token. */
  authorized: (authorization: string | undefined) => boolean;
  token: string;
  /** 0: any free port. */
  port: number;
  /** Folder of the built page (default: this package's dist/app). */
  appDir?: string;
  log?: { warn(o: object, msg: string): void; debug?(o: object, msg: string): void };
  /**
   * How long the session may have no editor page connected while picks wait before they are
   * answered `gui_closed` (default 30 s). A closed tab cancels nothing at once: another tab, or
   * the same one reloaded, can still answer.
   */
  noEditorMs?: number;
}

export interface EditorHost {
  readonly port: number;
  /** `http://127.0.0.1:<port>/#token=<token>` */
  readonly url: string;
  /** The engine's picks go to the page through this bridge. */
  readonly bridge: GuiBridge;
  close(): Promise<void>;
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.ttf': 'font/ttf', '.woff2': 'font/woff2', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json',
};

/** Nothing loads from anywhere but this port; no inline script; no framing by other pages. */
export const CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob: data:", "font-src 'self'",
  "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY', 'Cross-Origin-Opener-Policy': 'same-origin',
};

/** A forwarding bridge: the engine is made before the host that shows its prompts. */
export class PromptRelay implements GuiBridge {
  target: GuiBridge | null = null;
  prompt(p: PendingPrompt): void {
    this.target?.prompt(p);
  }
  dismiss(requestId: string): void {
    this.target?.dismiss(requestId);
  }
}

const MAX_BODY = 16 * 1024 * 1024;

export async function startEditorHost(o: EditorHostOptions): Promise<EditorHost> {
  const appDir = o.appDir ?? fileURLToPath(new URL('../../dist/app/', import.meta.url));
  const streams = new Set<ServerResponse>();
  let port = 0;

  const push = (event: string, data: unknown): void => {
    const line = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const s of streams) s.write(line);
  };
  // While no page is connected and picks wait, a clock runs; when it ends with still no page,
  // the picks are answered gui_closed, so no client waits for a screen nobody looks at.
  const noEditorMs = o.noEditorMs ?? 30_000;
  let alone: NodeJS.Timeout | null = null;
  const watchAlone = (): void => {
    if (streams.size > 0) {
      if (alone) clearTimeout(alone);
      alone = null;
      return;
    }
    if (alone || o.engine.pendingIds().length === 0) return;
    alone = setTimeout(() => {
      alone = null;
      if (streams.size > 0) return;
      for (const id of o.engine.pendingIds()) {
        o.engine.cancelPending(id, `no editor was open for ${Math.round(noEditorMs / 1000)} s to answer it`, 'gui_closed');
      }
    }, noEditorMs);
    alone.unref();
  };
  const bridge: GuiBridge = {
    prompt: (p) => {
      push('prompt', p);
      watchAlone();
    },
    dismiss: (id) => push('dismiss', { request_id: id }),
  };
  const unsubscribe = o.engine.subscribe((e: EngineEvent) => push('engine', e));

  const hostOk = (h: string | undefined): boolean => h === `127.0.0.1:${port}` || h === `localhost:${port}`;

  const send = (res: ServerResponse, status: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  };

  const readBody = (req: IncomingMessage): Promise<Buffer | null> =>
    new Promise((resolve) => {
      const parts: Buffer[] = [];
      let n = 0;
      req.on('data', (c: Buffer) => {
        n += c.length;
        if (n > MAX_BODY) {
          resolve(null);
          req.destroy();
          return;
        }
        parts.push(c);
      });
      req.on('end', () => resolve(Buffer.concat(parts)));
      req.on('error', () => resolve(null));
    });

  const serveStatic = async (path: string, res: ServerResponse): Promise<void> => {
    const rel = path === '/' ? 'index.html' : decodeURIComponent(path.slice(1));
    const file = normalize(join(appDir, rel));
    if (!file.startsWith(normalize(appDir + sep)) && file !== normalize(join(appDir, 'index.html'))) return send(res, 404, { ok: false, code: 'unknown_route' });
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch {
      return send(res, 404, { ok: false, code: 'unknown_route', error: rel === 'index.html' ? 'the editor page is not built (npm run build)' : `no file ${rel}` });
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS, 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream', 'Content-Length': bytes.length,
      // hashed asset names never change; the page itself is always fetched anew
      'Cache-Control': rel.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-store',
    });
    res.end(bytes);
  };

  const events = (req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
    res.write(`event: hello\ndata: ${JSON.stringify({ session_id: o.engine.sessionId, seq: o.engine.lastEventSeq, prompts: o.engine.prompts() })}\n\n`);
    streams.add(res);
    watchAlone();
    const beat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    req.on('close', () => {
      clearInterval(beat);
      streams.delete(res);
      watchAlone();
    });
  };

  const displayList = async (url: URL, res: ServerResponse): Promise<void> => {
    const q = url.searchParams;
    const fields: Record<string, unknown> = { protocol: 1, op: 'display_list' };
    if (q.get('document_id')) fields.document_id = Number(q.get('document_id'));
    if (q.get('layout')) fields.layout = q.get('layout');
    if (q.get('handles')) fields.handles = q.get('handles')!.split(',').filter(Boolean);
    for (const k of ['background', 'tolerance']) if (q.get(k)) fields[k] = Number(q.get(k));
    for (const k of ['origin', 'bounds']) if (q.get(k)) fields[k] = q.get(k)!.split(',').map(Number);
    if (q.get('stream') === '1' && !fields.handles && !fields.bounds) return displayStream(fields, q, res);
    const r: ProtocolResponse = await o.engine.dispatch(fields as never);
    if (!r.ok) return send(res, r.code === 'unknown_document' || r.code === 'document_closed' ? 404 : 400, { ok: false, code: r.code, error: r.error });
    const chunks = packFrame(r.result as Record<string, unknown>);
    const bytes = chunks.reduce((n, c) => n + c.length, 0);
    res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'application/octet-stream', 'Cache-Control': 'no-store', 'Content-Length': bytes });
    for (const c of chunks) if (!res.write(c)) await new Promise<void>((resolve) => res.once('drain', resolve));
    res.end();
  };

  /**
   * The whole display list as a stream of frames, each after its byte length (u32 little-endian):
   * a large model space in parts, the part around the view first (`view=x1,y1,x2,y2`, default the
   * extents), so the page draws before the rest is built; anything else in one part.
   */
  const displayStream = async (fields: Record<string, unknown>, q: URLSearchParams, res: ServerResponse): Promise<void> => {
    const docId = fields.document_id as number | undefined;
    const store = docId === undefined ? o.engine.active : o.engine.documents.get(docId);
    const view = q.get('view')?.split(',').map(Number);
    const plan = store ? planDisplayParts(store, { layout: fields.layout as string | undefined, view: view?.length === 4 && view.every(Number.isFinite) ? view as [number, number, number, number] : undefined }) : null;
    const parts: (string[] | null)[] = plan ? plan.parts : [null];
    let gone = false;
    res.once('close', () => {
      gone = !res.writableFinished;
    });
    for (let i = 0; i < parts.length && !gone; i++) {
      const ask = { ...fields };
      if (plan) Object.assign(ask, { handles: parts[i], origin: plan.origin });
      const r: ProtocolResponse = await o.engine.dispatch(ask as never);
      if (!r.ok) {
        if (i === 0) return send(res, r.code === 'unknown_document' || r.code === 'document_closed' ? 404 : 400, { ok: false, code: r.code, error: r.error });
        res.destroy();
        return;
      }
      const result = r.result as Record<string, unknown>;
      // the later parts keep the first one's chord tolerance, and every part says where it stands
      if (plan && i === 0) fields.tolerance = result.tolerance;
      Object.assign(result, { part: i, parts: parts.length }, plan ? { extents: plan.extents } : {});
      if (i === 0) res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'application/octet-stream', 'Cache-Control': 'no-store' });
      const chunks = packFrame(result);
      const len = Buffer.alloc(4);
      len.writeUInt32LE(chunks.reduce((n, c) => n + c.length, 0));
      const all = [len, ...chunks];
      // the part's last bytes are waited for until the socket has them: written but queued, they
      // would wait for the event loop, which the next part holds for a while (and the page would
      // draw this part only after that one is built)
      for (let k = 0; k < all.length; k++) await sent(res, all[k]!, k === all.length - 1);
    }
    res.end();
  };

  /** Writes a chunk; resolves at once, after a drain, or (`flushed`) once the socket has it; a page gone away ends the wait too. */
  const sent = (res: ServerResponse, c: Buffer, flushed: boolean): Promise<void> => new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('close', done);
      res.off('drain', done);
      resolve();
    };
    res.once('close', done);
    if (flushed) res.write(c, () => done());
    else if (res.write(c)) done();
    else res.once('drain', done);
  });

  const server: Server = createServer({ keepAliveTimeout: 10_000, requestTimeout: 30_000, headersTimeout: 5_000 }, (req, res) => {
    void (async () => {
      if (!hostOk(req.headers.host)) return send(res, 400, { ok: false, code: 'bad_host', error: 'the editor answers only to 127.0.0.1 and localhost' });
      const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
      const path = url.pathname;
      if (path.startsWith('/api/v1')) {
        const body = req.method === 'GET' || req.method === 'DELETE' ? Buffer.alloc(0) : await readBody(req);
        if (body === null) return send(res, 400, { ok: false, code: 'body_too_large', error: 'request bodies are limited to 16 MiB' });
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        // the page going away (a reload, a closed tab) before its answer counts as its client gone
        const gone = new AbortController();
        res.once('close', () => {
          if (!res.writableFinished) gone.abort();
        });
        const out = await o.api({ method: req.method ?? 'GET', target: req.url ?? '/', headers, body, signal: gone.signal });
        res.writeHead(out.status, { ...out.headers, ...SECURITY_HEADERS });
        for (const c of out.chunks) if (!res.write(c)) await new Promise<void>((resolve) => res.once('drain', resolve));
        res.end();
        return;
      }
      if (path.startsWith('/gui/')) {
        if (!o.authorized(req.headers.authorization)) {
          return send(res, 401, { ok: false, code: 'unauthorized', error: 'send "Authorization: Bearer <token>" (the token of the editor URL\'s #token=...)' });
        }
        if (req.method !== 'GET') return send(res, 405, { ok: false, code: 'method_not_allowed' });
        if (path === '/gui/events') return events(req, res);
        if (path === '/gui/display-list') return displayList(url, res);
        return send(res, 404, { ok: false, code: 'unknown_route' });
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { ok: false, code: 'method_not_allowed' });
      return serveStatic(path, res);
    })().catch((err: unknown) => {
      o.log?.warn({ err }, 'editor request failed');
      if (!res.headersSent) send(res, 400, { ok: false, code: 'internal_error', error: String((err as Error)?.message ?? err) });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address();
  port = typeof addr === 'object' && addr ? addr.port : o.port;
  return {
    port,
    url: `http://127.0.0.1:${port}/#token=${o.token}`,
    bridge,
    close: () =>
      new Promise<void>((resolve) => {
        unsubscribe();
        if (alone) clearTimeout(alone);
        for (const s of streams) s.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
