import { VerifyApiKeyBody, VerifyApiKeyResponse } from '../schemas.js';
import { errorResponses } from './responses.js';
import { defineRoute } from './route.js';

/** Keys are credentials: the key in the body is all the caller presents, no token. */
export const verifyApiKey = defineRoute({
  method: 'POST',
  url: '/api-keys/verify',
  operationId: 'verifyApiKey',
  summary: 'Check a raw key (and optionally permissions); a valid check counts one request',
  tag: 'API keys',
  minRole: null,
  body: VerifyApiKeyBody,
  responses: {
    200: { description: 'valid:true with the key identity, or valid:false with a code', schema: VerifyApiKeyResponse },
    ...errorResponses({ 400: 'Flattened validation error, or `Invalid API key permissions: ...`', 413: undefined }),
  },
  async handler(ctx) {
    const data = await ctx.deps.service.verify(ctx.body.key, ctx.body.permissions);
    return { status: 200, body: { success: true, data } };
  },
});
