// The service's one failure shape, checked the same way in every test: {success:false, error (a
// sentence), code, details?}. Validation failures are compared field by field, in the flattened
// form a test can write down ({formErrors, fieldErrors}), rebuilt from details.issues.
import { expect } from 'vitest';

export interface Flattened {
  formErrors: string[];
  fieldErrors: Record<string, string[]>;
}

/** The code a failure of this status and wording carries. */
function codeFor(status: number, error: string | Flattened): string | RegExp {
  if (typeof error !== 'string') return 'invalid_request';
  const byStatus: Record<number, string | RegExp> = {
    400: error.startsWith('Invalid API key permissions') ? 'invalid_permissions' : /^(bad_request|invalid_request|invalid_permissions)$/,
    401: 'unauthorized',
    403: 'insufficient_role',
    404: error.startsWith('Route not found') ? 'unknown_route' : 'not_found',
    409: 'conflict',
    413: 'payload_too_large',
    415: 'unsupported_media_type',
    431: 'header_too_large',
    503: 'service_unavailable',
  };
  return byStatus[status] ?? /^[a-z_]+$/;
}

/** details.issues as zod's flattened error: issues without a path are form errors. */
export function flatten(issues: Array<{ path: string; message: string }>): Flattened {
  const out: Flattened = { formErrors: [], fieldErrors: {} };
  for (const i of issues) {
    if (!i.path) out.formErrors.push(i.message);
    else (out.fieldErrors[i.path.split('.')[0]!] ??= []).push(i.message);
  }
  return out;
}

/**
 * Checks a failure body: `error` is the given sentence, or for a validation failure (a flattened
 * error given) a sentence naming the first invalid field, with every issue in details.issues.
 */
export function expectFailureBody(body: any, status: number, error: string | Flattened, details?: Record<string, unknown>): void {
  expect(body.success).toBe(false);
  expect(typeof body.error, JSON.stringify(body)).toBe('string');
  const code = codeFor(status, error);
  if (typeof code === 'string') expect(body.code, JSON.stringify(body)).toBe(code);
  else expect(body.code, JSON.stringify(body)).toMatch(code);
  if (typeof error === 'string') {
    expect(body.error).toBe(error);
    if (details) expect(body.details).toEqual(details);
    expect(Object.keys(body).sort()).toEqual(body.details === undefined ? ['code', 'error', 'success'] : ['code', 'details', 'error', 'success']);
    return;
  }
  expect(Object.keys(body).sort()).toEqual(['code', 'details', 'error', 'success']);
  const issues = body.details.issues as Array<{ path: string; code: string; message: string }>;
  expect(flatten(issues)).toEqual(error);
  const first = issues[0]!;
  expect(body.error).toBe(`Invalid request: ${first.path ? `field \`${first.path}\`` : 'request body'}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? 's' : ''})` : ''}`);
}
