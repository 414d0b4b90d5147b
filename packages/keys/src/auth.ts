import { webcrypto } from 'node:crypto';
import { SignJWT, createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { ApiError, MESSAGES, roleTooLowMessage } from './errors.js';
import { isRole, roleRank, type Role } from './roles.js';
import { isStorableText } from './text.js';

export { ROLES, roleRank, type Role } from './roles.js';

export interface Identity {
  userId: string;
  organizationId: string;
  /** null when the token carries no role this service knows; such a caller passes no role check. */
  role: Role | null;
}

export interface AuthSettings {
  /** HS256 shared secret. */
  secret?: Uint8Array;
  /** JWKS endpoint for RS256/ES256 tokens. */
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
  /** Longest a token may live: `exp` at most this many seconds after `iat` (or now). Default 24 h. */
  maxLifetimeSeconds?: number;
}

/** AUTH_MAX_TOKEN_LIFETIME's default: a day. */
export const DEFAULT_MAX_TOKEN_LIFETIME_S = 24 * 3600;
/** How far in the future `iat` may lie (clock skew between the issuer and this service). */
export const MAX_IAT_AHEAD_S = 60;

export type Authenticator = (authorization: string | undefined) => Promise<Identity>;

/** Tolerated clock difference between the token issuer and this service. */
const CLOCK_TOLERANCE_S = 5;
const ASYMMETRIC_ALGORITHMS = ['RS256', 'ES256'];
const BEARER = /^Bearer +([^\s]+) *$/i;

export function requireRole(identity: Identity, minimum: Role): void {
  if (roleRank(identity.role) < roleRank(minimum)) {
    throw new ApiError('FORBIDDEN', roleTooLowMessage(minimum));
  }
}

export async function createAuthenticator(settings: AuthSettings): Promise<Authenticator> {
  if (!settings.secret && !settings.jwksUrl) throw new Error('authentication needs a JWT secret or a JWKS URL');
  // Importing the HMAC key once keeps per-request verification to the signature check itself.
  const hmacKey = settings.secret
    ? await webcrypto.subtle.importKey('raw', settings.secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])
    : undefined;
  const jwks = settings.jwksUrl ? createRemoteJWKSet(new URL(settings.jwksUrl)) : undefined;
  const algorithms = [...(hmacKey ? ['HS256'] : []), ...(jwks ? ASYMMETRIC_ALGORITHMS : [])];
  const getKey: JWTVerifyGetKey = async (header, token) => {
    if (header.alg === 'HS256' && hmacKey) return hmacKey;
    if (jwks) return jwks(header, token);
    throw new errors.JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');
  };
  const maxLifetime = settings.maxLifetimeSeconds ?? DEFAULT_MAX_TOKEN_LIFETIME_S;
  const options = {
    algorithms,
    // A token without exp would be good forever: a leaked one could never be contained.
    requiredClaims: ['exp'],
    clockTolerance: CLOCK_TOLERANCE_S,
    ...(settings.issuer ? { issuer: settings.issuer } : {}),
    ...(settings.audience ? { audience: settings.audience } : {}),
  };

  return async (authorization) => {
    if (authorization === undefined || authorization === '') throw new ApiError('UNAUTHENTICATED', MESSAGES.authRequired);
    const match = BEARER.exec(authorization);
    if (!match) throw new ApiError('UNAUTHENTICATED', MESSAGES.malformedAuthorization);
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(match[1]!, getKey, options));
    } catch (err) {
      throw tokenFailure(err, jwks !== undefined);
    }
    checkLifetime(payload, maxLifetime);
    const { sub, org, role } = payload;
    if (typeof sub !== 'string' || sub === '' || typeof org !== 'string' || org === '') {
      throw new ApiError('UNAUTHENTICATED', MESSAGES.tokenIdentity);
    }
    // The claims are the owner of every key the caller touches, stored and compared as text.
    if (!isStorableText(sub) || !isStorableText(org)) throw new ApiError('UNAUTHENTICATED', MESSAGES.tokenIdentityText);
    return { userId: sub, organizationId: org, role: isRole(role) ? role : null };
  };
}

/**
 * "Tokens must expire" holds only with a bound: an `exp` a century (or 1e308 s) away is a token
 * that never expires, and an `iat` in the future would stretch any bound. So `iat` may be at most
 * 60 s ahead of this service's clock, and `exp` at most the maximum lifetime after `iat` (after
 * now when the token has no `iat`).
 */
function checkLifetime(payload: Record<string, unknown>, maxLifetime: number): void {
  const now = Date.now() / 1000;
  const { iat, exp } = payload;
  if (typeof iat === 'number' && iat > now + MAX_IAT_AHEAD_S) {
    throw new ApiError('UNAUTHENTICATED', `${MESSAGES.tokenFromFuture}: iat is ${Math.round(iat - now)} s ahead of this service's clock (at most ${MAX_IAT_AHEAD_S} s)`, undefined, 'token_issued_in_future');
  }
  const start = typeof iat === 'number' ? Math.min(iat, now + MAX_IAT_AHEAD_S) : now;
  // jose checked that exp is a number; NaN cannot come out of JSON, a huge one can.
  if (typeof exp !== 'number' || !(exp - start <= maxLifetime)) {
    const life = typeof exp === 'number' && Number.isFinite(exp - start) && exp - start < 1e15 ? `${Math.round(exp - start)} s` : 'without bound';
    throw new ApiError(
      'UNAUTHENTICATED',
      `${MESSAGES.tokenLifetimeTooLong}: exp is ${life} after ${typeof iat === 'number' ? 'iat' : 'now'}; at most ${maxLifetime} s (AUTH_MAX_TOKEN_LIFETIME)`,
      undefined,
      'token_lifetime_too_long',
    );
  }
}

function tokenFailure(err: unknown, usesJwks: boolean): unknown {
  if (err instanceof errors.JWTExpired) return new ApiError('UNAUTHENTICATED', MESSAGES.tokenExpired);
  if (err instanceof errors.JWSSignatureVerificationFailed || err instanceof errors.JWKSNoMatchingKey) {
    return new ApiError('UNAUTHENTICATED', MESSAGES.invalidSignature);
  }
  if (err instanceof errors.JWTClaimValidationFailed && err.claim === 'exp' && err.reason === 'missing') {
    return new ApiError('UNAUTHENTICATED', MESSAGES.tokenWithoutExpiry);
  }
  if (err instanceof errors.JWTClaimValidationFailed) {
    return new ApiError('UNAUTHENTICATED', `${MESSAGES.invalidToken}: ${err.message}`);
  }
  // The key set could not be fetched or read: the token may be fine, so the failure is ours.
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) {
    return new ApiError('SERVICE_UNAVAILABLE', MESSAGES.identityUnavailable);
  }
  if (err instanceof errors.JOSEError) return new ApiError('UNAUTHENTICATED', MESSAGES.invalidToken);
  // Anything else thrown while resolving a remote key is a network failure reaching the JWKS.
  if (usesJwks) return new ApiError('SERVICE_UNAVAILABLE', MESSAGES.identityUnavailable);
  return err;
}

export interface MintOptions {
  secret: Uint8Array;
  sub: string;
  org: string;
  role: Role;
  /** A jose time span such as `1h`, `30m`, `7d`. */
  expiresIn: string;
  issuer?: string;
  audience?: string;
}

/** Signs an HS256 token the service accepts; used by `linework-keys token` and by tests. */
export async function mintToken(opts: MintOptions): Promise<string> {
  let jwt = new SignJWT({ org: opts.org, role: opts.role })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(opts.sub)
    .setIssuedAt()
    .setExpirationTime(opts.expiresIn);
  if (opts.issuer) jwt = jwt.setIssuer(opts.issuer);
  if (opts.audience) jwt = jwt.setAudience(opts.audience);
  return jwt.sign(opts.secret);
}
