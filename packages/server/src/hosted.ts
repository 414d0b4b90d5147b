// The hosted drawing API: requests made with an API key of the key service (`Authorization:
// Bearer lwk_...` over HTTP, `"token": "lwk_..."` over TCP) instead of the session token. The key
// is verified for the permissions the op declares (every request, no cache), and the request runs
// in the session of the key's organization (org-sessions.ts). Failures are typed denials; each
// transport words them in its own framing, and status.ts gives their HTTP statuses.
import type { Permission } from '@linework/engine';
import { KeyVerifier, type RateLimitState, type Verification } from './key-verifier.js';
import type { Logger } from './logger.js';
import type { OrgHosts } from './org-workers.js';

/** The prefix of the key service's raw keys (DECISIONS.md: `lwk_` + 48 hex). */
export const API_KEY_PREFIX = 'lwk_';

/** Why a keyed request is not run: `code` is the failure code of the envelope. */
export interface AccessDenial {
  code: 'unauthorized' | 'insufficient_permissions' | 'usage_exceeded' | 'rate_limited' | 'keys_unavailable';
  message: string;
  details?: Record<string, unknown>;
  ratelimit?: RateLimitState;
}

export type KeyAdmission =
  | { ok: true; orgId: string; ratelimit?: RateLimitState }
  | { ok: false; denial: AccessDenial };

/** True for a credential shaped like an API key (the key service decides whether it is one). */
export function looksLikeApiKey(credential: unknown): credential is string {
  return typeof credential === 'string' && credential.startsWith(API_KEY_PREFIX) && credential.length <= 256;
}

export class HostedAccess {
  constructor(
    readonly verifier: KeyVerifier,
    readonly orgs: OrgHosts,
    private readonly log?: Logger,
  ) {}

  /**
   * Verifies `key` for every permission in `needs` (none: any valid key, e.g. GET /openapi).
   * `what` names the request in messages (`POST /entities (entities_create)`).
   */
  async check(key: string, needs: readonly Permission[], what: string): Promise<KeyAdmission> {
    const v = await this.verifier.verify(key, needs);
    if (v.kind === 'valid') return { ok: true, orgId: v.organizationId, ...(v.ratelimit ? { ratelimit: v.ratelimit } : {}) };
    return { ok: false, denial: this.denial(v, needs, what) };
  }

  private denial(v: Exclude<Verification, { kind: 'valid' }>, needs: readonly Permission[], what: string): AccessDenial {
    const required = { required: [...needs] };
    if (v.kind === 'unavailable') {
      // Where the key service lives is the operator's to know: the log says, the client does not.
      this.log?.warn({ keys: this.verifier.base.origin, reason: v.reason }, 'the key service cannot verify keys');
      return {
        code: 'keys_unavailable',
        message: `API keys cannot be verified right now (${v.reason}); nothing was run, try again later`,
      };
    }
    if (v.kind === 'unknown_permission') {
      return { code: 'insufficient_permissions', message: `${what} needs ${needs.join(' and ')}, which the key service does not offer (${v.message})`, details: required };
    }
    const limits = { ...(v.ratelimit ? { ratelimit: v.ratelimit } : {}), ...(v.remaining !== undefined ? { remaining: v.remaining } : {}) };
    switch (v.code) {
      case 'INSUFFICIENT_PERMISSIONS':
        return { code: 'insufficient_permissions', message: `this API key lacks ${needs.join(' and ')}, which ${what} needs`, details: required };
      case 'RATE_LIMITED': {
        const wait = v.ratelimit ? ` for ${retryAfterSeconds(v.ratelimit)} s` : '';
        return {
          code: 'rate_limited',
          message: `this API key is over its rate limit${v.ratelimit ? ` of ${v.ratelimit.limit} requests per window` : ''}; wait${wait} and try again`,
          details: limits, ...(v.ratelimit ? { ratelimit: v.ratelimit } : {}),
        };
      }
      case 'USAGE_EXCEEDED':
        return { code: 'usage_exceeded', message: 'this API key has used up its usage limit (remaining 0); a refill or a new limit on the key restores it', details: limits };
      case 'REVOKED':
        return { code: 'unauthorized', message: 'this API key was revoked', details: { key: 'revoked' } };
      case 'EXPIRED':
        return { code: 'unauthorized', message: 'this API key has expired', details: { key: 'expired' } };
      case 'NOT_FOUND':
        return { code: 'unauthorized', message: 'unknown API key: the key service has no such key', details: { key: 'unknown' } };
      default:
        return { code: 'unauthorized', message: `the key service refused this API key (${v.code})`, details: { key: v.code } };
    }
  }

  async close(): Promise<void> {
    await this.orgs.close();
    this.verifier.close();
  }
}

/** Whole seconds until the rate-limit window ends (at least 1). */
export function retryAfterSeconds(rl: RateLimitState, now = Date.now()): number {
  return Math.max(1, Math.ceil((rl.reset - now) / 1000));
}

/** The rate-limit headers of an answer to a keyed request (IETF draft names), and Retry-After when refused. */
export function rateLimitHeaders(rl: RateLimitState | undefined, refused: boolean): Record<string, string> {
  if (!rl) return {};
  const reset = String(retryAfterSeconds(rl));
  return {
    'RateLimit-Limit': String(rl.limit),
    'RateLimit-Remaining': String(rl.remaining),
    'RateLimit-Reset': reset,
    ...(refused ? { 'Retry-After': reset } : {}),
  };
}
