import { ErrorEnvelope } from '../schemas.js';
import type { ResponseSpec } from './route.js';

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: flattened validation error, invalid permissions, or malformed JSON',
  401: 'Missing, malformed, badly signed or expired token, or one without exp',
  403: 'Role too low',
  404: 'Not found',
  409: 'Conflict',
  413: 'Request body over 64 KiB',
};

/** Error responses in the shared envelope, with route-specific wording where given. */
export function errorResponses(codes: Record<number, string | undefined>): Record<number, ResponseSpec> {
  const out: Record<number, ResponseSpec> = {};
  for (const [code, description] of Object.entries(codes)) {
    out[Number(code)] = { description: description ?? ERROR_DESCRIPTIONS[Number(code)] ?? 'Error', schema: ErrorEnvelope };
  }
  return out;
}
