/**
 * Failures are typed values: code decides the HTTP status, and `toErrorResponse` is the only place
 * where a failure becomes a status and a `{success:false, error, code, details}` envelope (the
 * drawing server's shape: a sentence, a symbolic code, and the facts behind it).
 */
import type { z } from 'zod';

export type ErrorCode =
  | 'VALIDATION'
  | 'INVALID_PERMISSIONS'
  | 'BAD_REQUEST'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL';

const STATUS: Record<ErrorCode, number> = {
  VALIDATION: 400,
  INVALID_PERMISSIONS: 400,
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** The `code` field of a failure, as clients match on it (snake_case, as the drawing server's). */
const WIRE_CODE: Record<ErrorCode, string> = {
  VALIDATION: 'invalid_request',
  INVALID_PERMISSIONS: 'invalid_permissions',
  BAD_REQUEST: 'bad_request',
  UNAUTHENTICATED: 'unauthorized',
  FORBIDDEN: 'insufficient_role',
  NOT_FOUND: 'not_found',
  CONFLICT: 'conflict',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
  SERVICE_UNAVAILABLE: 'service_unavailable',
  INTERNAL: 'internal_error',
};

/** Every failure code a client can see (the OpenAPI document lists them). */
/** Codes that say more than their kind's: why a token was refused (both 401). */
const FINER_CODES = ['token_lifetime_too_long', 'token_issued_in_future'] as const;

export const FAILURE_CODES = [...new Set([...Object.values(WIRE_CODE), ...FINER_CODES, 'unknown_route', 'header_too_large'])];

/** One problem of an invalid request: the field (dotted path, '' for the whole body) and what is wrong. */
export interface Issue {
  path: string;
  code: string;
  message: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  /** Facts behind the failure (the invalid fields, the allowed permissions ...), or undefined. */
  readonly details: Record<string, unknown> | undefined;

  /** A finer wire code than the kind's own (a 401 that says why: token_lifetime_too_long). */
  private readonly wire: string | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, wire?: (typeof FINER_CODES)[number]) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.details = details;
    this.wire = wire;
  }

  get status(): number {
    return STATUS[this.code];
  }

  get wireCode(): string {
    return this.wire ?? WIRE_CODE[this.code];
  }
}

/** A validation failure worded as a sentence naming the first bad field; every issue in details. */
export function validationError(error: z.ZodError): ApiError {
  return invalidFields(error.issues.map((i) => ({ path: i.path.map(String).join('.'), code: i.code, message: i.message })));
}

export function invalidFields(issues: Issue[]): ApiError {
  const first = issues[0];
  const where = first?.path ? `field \`${first.path}\`` : 'request body';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? 's' : ''})` : '';
  return new ApiError('VALIDATION', `Invalid request: ${where}: ${first?.message ?? 'invalid'}${more}`, { issues });
}

export const MESSAGES = {
  activeKeyNotFound: 'Active API key not found',
  keyNotFound: 'API key not found',
  revokeBeforeRemove: 'API key is still active; revoke it before removing it permanently',
  keyCreated: 'API key created. Save it now: it will not be shown again.',
  keyRevoked: 'API key revoked',
  keyRemoved: 'API key permanently removed',
  keyRolled: 'API key rolled. Save the new key now: it will not be shown again. The old key stays valid until its expiresAt.',
  alreadyRolled: 'API key was already rolled; roll the key that replaced it (replacedBy)',
  expiredRoll: 'API key has expired; renew it (PATCH with expiresIn) before rolling it',
  authRequired: 'Authentication required: send an Authorization: Bearer <token> header',
  malformedAuthorization: 'Malformed Authorization header: expected Bearer <token>',
  invalidToken: 'Invalid token',
  invalidSignature: 'Invalid token signature',
  tokenExpired: 'Token expired',
  tokenIdentity: 'Token lacks a string sub or org claim',
  tokenIdentityText: 'Token sub and org claims must not contain U+0000 (NUL) or an unpaired surrogate',
  tokenWithoutExpiry: 'Token lacks an exp claim: tokens must expire',
  tokenLifetimeTooLong: 'Token lifetime too long',
  tokenFromFuture: 'Token issued in the future',
  identityUnavailable: 'Identity provider unavailable',
  malformedJson: 'Malformed JSON in request body',
  unknownAuditCursor: 'Invalid before: no audit record with this id in your organization',
  internal: 'Internal server error',
} as const;

export function roleTooLowMessage(required: string): string {
  return `Insufficient role: ${required} or higher required`;
}

export function keyLimitMessage(limit: number): string {
  return `Active API key limit reached: at most ${limit} active keys per user per organization; revoke a key first`;
}

export interface FailureBody {
  success: false;
  /** A sentence saying what failed and, where it helps, what to do. */
  error: string;
  code: string;
  details?: Record<string, unknown>;
}

export interface ErrorResponse {
  status: number;
  body: FailureBody;
  headers?: Record<string, string>;
}

/** The envelope of a failure the service words itself (404 route, malformed HTTP). */
export function failureBody(code: string, error: string, details?: Record<string, unknown>): FailureBody {
  return { success: false, error, code, ...(details ? { details } : {}) };
}

/** Framework errors carry a statusCode and a code; the ones a client can cause are named here. */
interface FrameworkError {
  statusCode?: number;
  code?: string;
  message?: string;
}

function frameworkError(err: FrameworkError): ApiError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('BAD_REQUEST', MESSAGES.malformedJson);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', 'Request body too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type: send application/json');
    default:
      break;
  }
  // The JSON parser throws a SyntaxError with statusCode 400 for bodies it cannot parse.
  if ((err as unknown) instanceof SyntaxError && err.statusCode === 400) return new ApiError('BAD_REQUEST', MESSAGES.malformedJson);
  return undefined;
}

/**
 * Maps any thrown value to the response. `internal` is true when the failure is ours (to be logged
 * at error level); client errors are not.
 */
export function toErrorResponse(err: unknown): ErrorResponse & { internal: boolean } {
  const fw = (err ?? {}) as FrameworkError;
  const api = err instanceof ApiError ? err : frameworkError(fw);
  if (!api) {
    // Other client errors raised by the framework keep their status (e.g. 414, 431).
    if (typeof fw.statusCode === 'number' && fw.statusCode >= 400 && fw.statusCode < 500) {
      return { status: fw.statusCode, body: failureBody('bad_request', fw.message || 'Bad request'), internal: false };
    }
    return { status: 500, body: failureBody(WIRE_CODE.INTERNAL, MESSAGES.internal), internal: true };
  }
  const body = failureBody(api.wireCode, api.message, api.details);
  const headers = api.code === 'UNAUTHENTICATED' ? { 'WWW-Authenticate': 'Bearer' } : undefined;
  return { status: api.status, body, internal: false, ...(headers ? { headers } : {}) };
}
