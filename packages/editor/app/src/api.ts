// The page's only way to the session: the public /api/v1 routes and ops (as any script calls
// them), the display list as binary frames, and the event stream. Every call carries the token.

export interface Envelope<T = any> {
  ok: boolean;
  code?: string;
  error?: string;
  result?: T;
  document_id?: number;
  version?: number;
  [k: string]: unknown;
}

export class ApiError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

export class Api {
  constructor(private readonly token: string) {}

  private headers(json = false): HeadersInit {
    const h: Record<string, string> = { Authorization: `Bearer ${this.token}` };
    if (json) h['Content-Type'] = 'application/json';
    return h;
  }

  /** Any op by name (POST /api/v1/{op}); resolves with the envelope, throws ApiError on failure. */
  async op<T = any>(name: string, fields: Record<string, unknown> = {}): Promise<Envelope<T>> {
    const r = await fetch(`/api/v1/${name}`, { method: 'POST', headers: this.headers(true), body: JSON.stringify(fields) });
    const env = (await r.json()) as Envelope<T>;
    if (!env.ok) throw new ApiError(env.code ?? 'error', env.error ?? `${name} failed`);
    return env;
  }

  /** A resource route (GET /api/v1/state ...). */
  async get<T = any>(path: string): Promise<Envelope<T> & Record<string, any>> {
    const r = await fetch(`/api/v1${path}`, { headers: this.headers() });
    const env = (await r.json()) as Envelope<T>;
    if (!env.ok) throw new ApiError(env.code ?? 'error', env.error ?? `GET ${path} failed`);
    return env as Envelope<T> & Record<string, any>;
  }

  async send<T = any>(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<Envelope<T>> {
    const r = await fetch(`/api/v1${path}`, { method, headers: this.headers(body !== undefined), body: body === undefined ? undefined : JSON.stringify(body) });
    const env = (await r.json()) as Envelope<T>;
    if (!env.ok) throw new ApiError(env.code ?? 'error', env.error ?? `${method} ${path} failed`);
    return env;
  }

  /** The display list of a layout (or some entities of it) as one binary frame. */
  async displayList(params: Record<string, string | number | undefined>): Promise<ArrayBuffer> {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
    const r = await fetch(`/gui/display-list?${q}`, { headers: this.headers() });
    if (!r.ok) {
      const j = (await r.json().catch(() => ({}))) as { code?: string; error?: string };
      throw new ApiError(j.code ?? 'error', j.error ?? `display list failed (${r.status})`);
    }
    return r.arrayBuffer();
  }

  /**
   * The whole display list of a layout as the server streams it: frames, each after its byte
   * length (u32 little-endian), the part around the view first. `onPart` gets each frame in its
   * own buffer as soon as it is in (and is awaited, so a slow consumer slows the reading).
   */
  async displayStream(params: Record<string, string | number | undefined>, onPart: (buf: ArrayBuffer) => void | Promise<void>): Promise<void> {
    const q = new URLSearchParams({ stream: '1' });
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
    const r = await fetch(`/gui/display-list?${q}`, { headers: this.headers() });
    if (!r.ok || !r.body) {
      const j = (await r.json().catch(() => ({}))) as { code?: string; error?: string };
      throw new ApiError(j.code ?? 'error', j.error ?? `display list failed (${r.status})`);
    }
    const reader = r.body.getReader();
    const held: Uint8Array[] = [];
    let have = 0;
    /** Takes n bytes off the front of what is held (one copy, into a buffer of their own). */
    const take = (n: number): Uint8Array => {
      const out = new Uint8Array(n);
      let at = 0;
      while (at < n) {
        const c = held[0]!;
        const k = Math.min(c.length, n - at);
        out.set(c.subarray(0, k), at);
        at += k;
        if (k === c.length) held.shift();
        else held[0] = c.subarray(k);
      }
      have -= n;
      return out;
    };
    let want = -1;
    for (;;) {
      const { value, done } = await reader.read();
      if (value) {
        held.push(value);
        have += value.length;
      }
      for (;;) {
        if (want < 0 && have >= 4) want = new DataView(take(4).buffer).getUint32(0, true);
        if (want < 0 || have < want) break;
        const frame = take(want);
        want = -1;
        await onPart(frame.buffer as ArrayBuffer);
      }
      if (done) break;
    }
    if (want >= 0 || have) throw new ApiError('error', 'the display list stream ended inside a frame');
  }

  /**
   * The engine's events and pick prompts as they happen (server-sent events read through fetch,
   * so the token travels in a header, never in a URL). Reconnects until `stop` is called.
   */
  events(on: (event: string, data: any) => void, onState: (connected: boolean) => void): () => void {
    let stopped = false;
    let ctl: AbortController | null = null;
    const run = async (): Promise<void> => {
      while (!stopped) {
        ctl = new AbortController();
        try {
          const r = await fetch('/gui/events', { headers: this.headers(), signal: ctl.signal });
          if (!r.ok || !r.body) throw new Error(`events: ${r.status}`);
          onState(true);
          const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
          let buf = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buf += value;
            let i: number;
            while ((i = buf.indexOf('\n\n')) !== -1) {
              const block = buf.slice(0, i);
              buf = buf.slice(i + 2);
              let event = 'message';
              let data = '';
              for (const line of block.split('\n')) {
                if (line.startsWith('event: ')) event = line.slice(7);
                else if (line.startsWith('data: ')) data += line.slice(6);
              }
              if (data) on(event, JSON.parse(data));
            }
          }
        } catch {
          // reconnect below
        }
        onState(false);
        if (!stopped) await new Promise((r) => setTimeout(r, 500));
      }
    };
    void run();
    return () => {
      stopped = true;
      ctl?.abort();
    };
  }
}
