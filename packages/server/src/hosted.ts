// The hosted drawing API: requests made with an API key of the key service (`Authorization:
// Bearer lwk_...` over HTTP, `"token": "lwk_..."` over TCP) instead of the session token. The key
// is verified for the permissions the op declares (every request, no cache), and the request runs
// in the session of the key's organization (org-sessions.ts). Failures are typed denials; each
// transport words them in its own framing, and status.ts gives their HTTP statuses.
import { createHash } from 'node:crypto';
import type { Permission } from '@linework/engine';
import { KeyVerifier, type RateLimitState, type Verification } from './key-verifier.js';
import type { Logger } from './logger.js';
import type { OrgHosts } from './org-workers.js';

/** The prefix of the key service's raw keys (DECISIONS.md: `lwk_` + 48 hex). */
export const API_KEY_PREFIX = 'lwk_';

/**
 * Ops whose answer depends only on the session's identity and active document, never on a
 * request's fields: the front gives an organization the answer its worker gave last, without the
 * hop, while no other request has reached that session since (org-workers.ts).
 */
export const REUSABLE_ANSWERS: ReadonlySet<string> = new Set(['ready', 'capabilities']);

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

/** Keys whose organization the front remembers for sharing out connections. */
const KEY_ORGS_KEPT = 10_000;

/** What the front keeps of a key: a digest, never the key. */
function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('base64');
}

export class HostedAccess {
  /** Digest of a key verified before -> its organization. */
  private readonly keyOrgs = new Map<string, string>();

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
    if (v.kind === 'valid') {
      this.remember(key, v.organizationId);
      return { ok: true, orgId: v.organizationId, ...(v.ratelimit ? { ratelimit: v.ratelimit } : {}) };
    }
    return { ok: false, denial: this.denial(v, needs, what) };
  }

  /**
   * The organization a key was verified for before, or undefined: names the bucket of connections
   * a request holds while it is read (connection-gate.ts). Only a bucket: every request is still
   * verified, and a key revoked since then is refused as ever.
   */
  orgOfKey(key: string): string | undefined {
    return this.keyOrgs.get(keyDigest(key));
  }

  private remember(key: string, orgId: string): void {
    const d = keyDigest(key);
    if (this.keyOrgs.get(d) === orgId) return;
    // bounded: past the bound the oldest keys are forgotten (they count as anonymous until verified again)
    if (this.keyOrgs.size >= KEY_ORGS_KEPT) this.keyOrgs.delete(this.keyOrgs.keys().next().value!);
    this.keyOrgs.set(d, orgId);
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
