// Asks the key service about an API key: `POST <keys-url>/api-keys/verify` with `{key,
// permissions}` (docs/keys.md). Nothing is cached: every request is one verification, so a key
// revoked, expired or out of budget is refused on its very next request, and usage-limited keys
// are counted once per request. Whatever keeps a clear answer from arriving within the deadline
// (service down, hanging, answering something else) is `unavailable`: never a pass.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** How long a verification may take before the request is refused with 503 (LINEWORK_KEYS_TIMEOUT_MS replaces it). */
export const VERIFY_TIMEOUT_MS = 2_000;

/** Verification answers are small (meta is capped at 4 KiB); a longer one is not a verification answer. */
const MAX_ANSWER_BYTES = 256 * 1024;

/** The refusal codes of the key service's verify answer. */
export type KeyRefusal = 'NOT_FOUND' | 'REVOKED' | 'EXPIRED' | 'INSUFFICIENT_PERMISSIONS' | 'USAGE_EXCEEDED' | 'RATE_LIMITED';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** End of the window, in ms since the Unix epoch. */
  reset: number;
}

export type Verification =
  | { kind: 'valid'; keyId: string; organizationId: string; ratelimit?: RateLimitState; remaining?: number }
  /** `code`: one of KeyRefusal, or another a newer key service gives (still a refusal). */
  | { kind: 'refused'; code: KeyRefusal | (string & {}); ratelimit?: RateLimitState; remaining?: number }
  /** The key service does not offer a permission asked for (its API_KEY_PERMISSIONS): no key can hold it. */
  | { kind: 'unknown_permission'; message: string }
  | { kind: 'unavailable'; reason: string };

export interface KeyVerifierOptions {
  /** The key service's base URL, e.g. http://127.0.0.1:8090. */
  url: string;
  timeoutMs?: number;
}

/** Checks the URL of the key service: http or https, no query or fragment. */
export function parseKeysUrl(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `the key service URL ${JSON.stringify(text)} is not a URL (e.g. http://127.0.0.1:8090)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `the key service URL must be http:// or https:// (got ${url.protocol})`;
  if (url.search || url.hash || url.username || url.password) return 'the key service URL takes no query, fragment or credentials';
  return url;
}

export class KeyVerifier {
  readonly base: URL;
  readonly timeoutMs: number;
  private readonly endpoint: URL;
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;

  constructor(options: KeyVerifierOptions) {
    const url = parseKeysUrl(options.url);
    if (typeof url === 'string') throw new Error(url);
    this.base = url;
    this.endpoint = new URL(`${url.pathname.replace(/\/+$/, '')}/api-keys/verify`, url);
    this.timeoutMs = options.timeoutMs ?? VERIFY_TIMEOUT_MS;
    // Connections are kept: the verification round trip is the price of every keyed request.
    const https = url.protocol === 'https:';
    this.agent = https ? new HttpsAgent({ keepAlive: true, maxSockets: 64 }) : new HttpAgent({ keepAlive: true, maxSockets: 64 });
    this.send = https ? httpsRequest : httpRequest;
  }

  /** Verifies `key` for all of `permissions` within the deadline. Never rejects. */
  async verify(key: string, permissions: readonly string[]): Promise<Verification> {
    const body = JSON.stringify(permissions.length ? { key, permissions } : { key });
    const deadline = Date.now() + this.timeoutMs;
    let answer = await this.post(body, deadline);
    // A kept connection the service closed as it was reused fails before any answer (the request
    // was never read): that one attempt is made again, on a new connection.
    if (answer.kind === 'stale_connection') answer = await this.post(body, deadline);
    if (answer.kind === 'stale_connection') return { kind: 'unavailable', reason: 'the key service closed the connection' };
    if (answer.kind === 'failed') return { kind: 'unavailable', reason: answer.reason };
    return readVerification(answer.status, answer.text);
  }

  close(): void {
    this.agent.destroy();
  }

  private post(body: string, deadline: number): Promise<{ kind: 'answer'; status: number; text: string } | { kind: 'failed'; reason: string } | { kind: 'stale_connection' }> {
    return new Promise((resolve) => {
      let req: ClientRequest;
      let settled = false;
      const finish = (v: Awaited<ReturnType<KeyVerifier['post']>>): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(v);
      };
      const timer = setTimeout(() => {
        finish({ kind: 'failed', reason: `the key service did not answer within ${this.timeoutMs} ms` });
        req.destroy();
      }, Math.max(1, deadline - Date.now()));
      try {
        req = this.send(this.endpoint, {
          method: 'POST',
          agent: this.agent,
          headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Accept: 'application/json' },
        });
      } catch (err) {
        // error codes only: node's messages name the address, which answers to clients must not
        finish({ kind: 'failed', reason: `the key service cannot be reached: ${(err as NodeJS.ErrnoException).code ?? 'the request could not be made'}` });
        return;
      }
      let answered = false;
      req.on('response', (res: IncomingMessage) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_ANSWER_BYTES) {
            finish({ kind: 'failed', reason: 'the key service answered more than a verification' });
            req.destroy();
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => finish({ kind: 'answer', status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (err: NodeJS.ErrnoException) => finish({ kind: 'failed', reason: `the key service's answer broke off${err.code ? ` (${err.code})` : ''}` }));
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (!answered && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) finish({ kind: 'stale_connection' });
        else finish({ kind: 'failed', reason: `the key service cannot be reached: ${err.code ?? 'connection failed'}` });
      });
      req.end(body);
    });
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function rateLimitOf(v: unknown): RateLimitState | undefined {
  if (!isObject(v)) return undefined;
  const { limit, remaining, reset } = v;
  return typeof limit === 'number' && typeof remaining === 'number' && typeof reset === 'number' ? { limit, remaining, reset } : undefined;
}

/** The key service's answer as a Verification; anything not shaped like one is `unavailable`. */
export function readVerification(status: number, text: string): Verification {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'unavailable', reason: `the key service answered ${status} without JSON` };
  }
  if (status === 400 && isObject(json) && json.code === 'invalid_permissions' && typeof json.error === 'string') {
    return { kind: 'unknown_permission', message: json.error };
  }
  if (status !== 200 || !isObject(json) || json.success !== true || !isObject(json.data) || typeof json.data.valid !== 'boolean') {
    return { kind: 'unavailable', reason: `the key service answered ${status} without a verification` };
  }
  const d = json.data;
  const extra = {
    ...(rateLimitOf(d.ratelimit) ? { ratelimit: rateLimitOf(d.ratelimit)! } : {}),
    ...(typeof d.remaining === 'number' ? { remaining: d.remaining } : {}),
  };
  if (d.valid) {
    if (typeof d.organizationId !== 'string' || typeof d.id !== 'string') return { kind: 'unavailable', reason: 'the key service answered valid without an organization' };
    return { kind: 'valid', keyId: d.id, organizationId: d.organizationId, ...extra };
  }
  // A refusal is a refusal even with a code this server does not know (a newer key service).
  return { kind: 'refused', code: typeof d.code === 'string' ? d.code.slice(0, 64) : 'UNKNOWN', ...extra };
}
