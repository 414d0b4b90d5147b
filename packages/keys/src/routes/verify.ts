import { quickVerifyBody, VerifyApiKeyBody, VerifyApiKeyResponse } from '../schemas.js';
import type { VerifyOutcome } from '../verifier.js';
import { errorResponses } from './responses.js';
import { defineRoute } from './route.js';

/**
 * The serialised answer of each outcome. Verifications of one key counted in the same batch share
 * one outcome object, so under load one serialisation serves the whole batch.
 */
const answers = new WeakMap<VerifyOutcome, string>();

function answerOf(outcome: VerifyOutcome): string {
  let json = answers.get(outcome);
  if (json === undefined) {
    json = JSON.stringify({ success: true, data: outcome });
    answers.set(outcome, json);
  }
  return json;
}

/** Keys are credentials: the key in the body is all the caller presents, no token. */
export const verifyApiKey = defineRoute({
  method: 'POST',
  url: '/api-keys/verify',
  operationId: 'verifyApiKey',
  summary: 'Check a raw key (and optionally permissions); a valid check counts one request',
  tag: 'API keys',
  minRole: null,
  body: VerifyApiKeyBody,
  quickBody: quickVerifyBody,
  hot: true,
  responses: {
    200: { description: 'valid:true with the key identity, or valid:false with a code', schema: VerifyApiKeyResponse },
    ...errorResponses({ 400: 'invalid_request (details.issues), or invalid_permissions (`Invalid API key permissions: ...`)', 413: undefined }),
  },
  async handler(ctx) {
    const outcome = await ctx.deps.service.verify(ctx.body.key, ctx.body.permissions);
    return { status: 200, json: answerOf(outcome) };
  },
});
