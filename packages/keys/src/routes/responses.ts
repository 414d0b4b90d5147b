import { ErrorEnvelope } from '../schemas.js';
import type { ResponseSpec } from './route.js';

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: invalid_request (details.issues names every invalid field), invalid_permissions, or bad_request (malformed JSON)',
  401: 'unauthorized: missing, malformed, badly signed or expired token, or one without exp',
  403: 'insufficient_role: role too low',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large: request body over 64 KiB',
};

/** Error responses in the shared envelope, with route-specific wording where given. */
export function errorResponses(codes: Record<number, string | undefined>): Record<number, ResponseSpec> {
  const out: Record<number, ResponseSpec> = {};
  for (const [code, description] of Object.entries(codes)) {
    out[Number(code)] = { description: description ?? ERROR_DESCRIPTIONS[Number(code)] ?? 'Error', schema: ErrorEnvelope };
  }
  return out;
}
