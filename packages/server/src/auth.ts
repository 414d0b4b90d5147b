// The session token: chosen by the launcher (SERVICE_API_TOKEN) or generated, and its constant-time check.
import { randomBytes, timingSafeEqual } from 'node:crypto';

export type TokenSource = 'env' | 'generated';

export interface SessionToken {
  readonly value: string;
  readonly source: TokenSource;
}

/** SERVICE_API_TOKEN when it is set to a non-blank value (trimmed); else 32 random bytes as 64 lowercase hex. */
export function resolveToken(env: NodeJS.ProcessEnv = process.env): SessionToken {
  const chosen = env.SERVICE_API_TOKEN?.trim();
  if (chosen) return { value: chosen, source: 'env' };
  return { value: randomBytes(32).toString('hex'), source: 'generated' };
}

const KEYS_TOO = '; an API key of the key service (lwk_...) is accepted in its place';

export class TokenCheck {
  private readonly expected: Buffer;

  constructor(readonly token: SessionToken) {
    this.expected = Buffer.from(token.value, 'utf8');
  }

  /**
   * True when `presented` equals the session token in full length, compared with
   * `timingSafeEqual` (time independent of where the bytes differ; only the length is not secret).
   */
  matches(presented: unknown): boolean {
    if (typeof presented !== 'string') return false;
    const given = Buffer.from(presented, 'utf8');
    if (given.length !== this.expected.length) {
      timingSafeEqual(this.expected, this.expected);
      return false;
    }
    return timingSafeEqual(given, this.expected);
  }

  /** Checks an Authorization header value: it must start with exactly `Bearer ` followed by the token. */
  matchesBearer(header: string | undefined): boolean {
    if (header === undefined || !header.startsWith('Bearer ')) return false;
    return this.matches(header.slice(7));
  }

  private sourceText(): string {
    return this.token.source === 'env'
      ? 'the session token is the value of the SERVICE_API_TOKEN environment variable the server was started with'
      : 'the session token was generated at startup and printed on the server\'s stderr (set SERVICE_API_TOKEN to choose one)';
  }

  /** The 401 message of the HTTP transport: names the header and where the token comes from. */
  httpMessage(header: string | undefined, keys = false): string {
    const what = header === undefined ? 'missing Authorization header' : header.startsWith('Bearer ') ? 'wrong token in the Authorization header' : 'malformed Authorization header (it must start with "Bearer ")';
    return `${what}: send "Authorization: Bearer <token>"; ${this.sourceText()}${keys ? KEYS_TOO : ''}`;
  }

  /** The `unauthorized` message of the TCP transport (token sent as the `token` field). */
  tcpMessage(token: unknown, keys = false): string {
    const what = token === undefined ? 'missing `token` field' : 'wrong `token` field';
    return `${what}: every request carries "token": "<token>" (the token of the HTTP Authorization header); ${this.sourceText()}${keys ? KEYS_TOO : ''}`;
  }
}
