import { MESSAGES } from '../errors.js';
import {
  ApiKeyListItem,
  ApiKeyRecord as ApiKeyRecordSchema,
  CreateApiKeyBody,
  CreateApiKeyResponse,
  GetApiKeyResponse,
  ListApiKeysResponse,
  MessageResponse,
  RollApiKeyBody,
  RollApiKeyResponse,
  UpdateApiKeyBody,
  UpdateApiKeyResponse,
} from '../schemas.js';
import type { ApiKeyRecord } from '../store/types.js';
import { errorResponses } from './responses.js';
import { caller, defineRoute, type RouteSpec } from './route.js';

/**
 * The settings of issue 16, each only when the key has it: a key without them is answered exactly
 * as before they existed. `remaining` and `refill` are as of the read (the service applies a refill
 * that is due).
 */
function settingsOf(r: ApiKeyRecord) {
  return {
    ...(r.ratelimit !== null ? { ratelimit: { limit: r.ratelimit.limit, durationMs: r.ratelimit.durationMs } } : {}),
    ...(r.remaining !== null ? { remaining: r.remaining } : {}),
    ...(r.refill !== null ? { refill: { interval: r.refill.interval, amount: r.refill.amount, lastRefillAt: r.refilledAt ?? r.createdAt } } : {}),
    ...(r.meta !== null ? { meta: r.meta } : {}),
    ...(r.rolledFrom !== null ? { rolledFrom: r.rolledFrom } : {}),
    ...(r.replacedBy !== null ? { replacedBy: r.replacedBy } : {}),
  };
}

/** The nine fields the list shows (and the settings the key has); the hash and the owner stay out of it. */
export function listItem(r: ApiKeyRecord): typeof ApiKeyListItem._zod.output {
  return {
    id: r.id,
    name: r.name,
    keyPrefix: r.keyPrefix,
    permissions: r.permissions,
    lastUsed: r.lastUsed,
    expiresAt: r.expiresAt,
    isActive: r.isActive,
    requestCount: r.requestCount,
    createdAt: r.createdAt,
    ...settingsOf(r),
  };
}

/**
 * The whole record (create, update, get and roll answers): the nine fields plus the owner. The
 * key's hash stays in the database: it is what a verification looks keys up by, and no client
 * needs it (Unkey never returns it either).
 */
export function fullRecord(r: ApiKeyRecord): typeof ApiKeyRecordSchema._zod.output {
  return {
    id: r.id,
    userId: r.userId,
    organizationId: r.organizationId,
    name: r.name,
    keyPrefix: r.keyPrefix,
    permissions: r.permissions,
    lastUsed: r.lastUsed,
    expiresAt: r.expiresAt,
    isActive: r.isActive,
    requestCount: r.requestCount,
    createdAt: r.createdAt,
    ...settingsOf(r),
  };
}

const TAG = 'API keys';

export const listApiKeys = defineRoute({
  method: 'GET',
  url: '/api-keys',
  operationId: 'listApiKeys',
  summary: "The caller's keys in the caller's organization, newest first (revoked ones included)",
  tag: TAG,
  minRole: 'DEVELOPER',
  responses: { 200: { description: 'Keys', schema: ListApiKeysResponse }, ...errorResponses({ 401: undefined, 403: undefined }) },
  async handler(ctx) {
    const keys = await ctx.deps.service.list(caller(ctx));
    return { status: 200, body: { success: true, data: keys.map(listItem) } };
  },
});

export const getApiKey = defineRoute({
  method: 'GET',
  url: '/api-keys/:id',
  operationId: 'getApiKey',
  summary: "One of the caller's keys (revoked or not): the whole stored record",
  tag: TAG,
  minRole: 'DEVELOPER',
  responses: {
    200: { description: 'The key', schema: GetApiKeyResponse },
    ...errorResponses({ 401: undefined, 403: undefined, 404: MESSAGES.keyNotFound }),
  },
  async handler(ctx) {
    const record = await ctx.deps.service.get(caller(ctx), ctx.params.id!);
    return { status: 200, body: { success: true, data: fullRecord(record) } };
  },
});

export const createApiKey = defineRoute({
  method: 'POST',
  url: '/api-keys',
  operationId: 'createApiKey',
  summary: 'Create a key; the raw key is returned once, in rawKey',
  tag: TAG,
  minRole: 'DEVELOPER',
  body: CreateApiKeyBody,
  responses: {
    201: { description: 'Created', schema: CreateApiKeyResponse },
    ...errorResponses({
      400: 'invalid_request: details.issues names every invalid field (a refill without remaining included); or invalid_permissions (`Invalid API key permissions: ...`, details.allowedPermissions)',
      401: undefined,
      403: undefined,
      409: 'Active key limit (100 per user per organization) reached',
      413: undefined,
    }),
  },
  async handler(ctx) {
    const { record, rawKey } = await ctx.deps.service.create(caller(ctx), ctx.body);
    return { status: 201, body: { success: true, data: { ...fullRecord(record), rawKey }, message: MESSAGES.keyCreated } };
  },
});

export const updateApiKey = defineRoute({
  method: 'PATCH',
  url: '/api-keys/:id',
  operationId: 'updateApiKey',
  summary: 'Replace name and permissions of an active key, and optionally its expiry, rate limit, usage limit, refill and meta (absent: unchanged; null: removed)',
  tag: TAG,
  minRole: 'DEVELOPER',
  body: UpdateApiKeyBody,
  responses: {
    200: { description: 'Updated record', schema: UpdateApiKeyResponse },
    ...errorResponses({
      400: 'invalid_request: details.issues names every invalid field (a refill left without remaining included); or invalid_permissions (`Invalid API key permissions: ...`)',
      401: undefined,
      403: undefined,
      404: MESSAGES.activeKeyNotFound,
      413: undefined,
    }),
  },
  async handler(ctx) {
    const record = await ctx.deps.service.update(caller(ctx), ctx.params.id!, ctx.body);
    return { status: 200, body: { success: true, data: fullRecord(record) } };
  },
});

export const rollApiKey = defineRoute({
  method: 'POST',
  url: '/api-keys/:id/roll',
  operationId: 'rollApiKey',
  summary:
    'Replace an active key by a new one with a new secret (same name, permissions, expiry, meta and limits); ' +
    'the old key stays valid for overlapSeconds, then answers EXPIRED',
  tag: TAG,
  minRole: 'DEVELOPER',
  body: RollApiKeyBody,
  responses: {
    201: { description: 'Rolled: the new key with its raw key (shown once), and the old key as it now stands', schema: RollApiKeyResponse },
    ...errorResponses({
      400: 'invalid_request: details.issues names every invalid field',
      401: undefined,
      403: undefined,
      404: MESSAGES.activeKeyNotFound,
      409: `${MESSAGES.alreadyRolled}; or ${MESSAGES.expiredRoll}; or the active key limit (100 per user per organization) is reached`,
      413: undefined,
    }),
  },
  async handler(ctx) {
    const { record, rawKey, previous } = await ctx.deps.service.roll(caller(ctx), ctx.params.id!, ctx.body.overlapSeconds);
    return {
      status: 201,
      body: { success: true, data: { ...fullRecord(record), rawKey }, previous: fullRecord(previous), message: MESSAGES.keyRolled },
    };
  },
});

export const revokeApiKey = defineRoute({
  method: 'DELETE',
  url: '/api-keys/:id',
  operationId: 'revokeApiKey',
  summary: 'Revoke a key (idempotent); the record stays',
  tag: TAG,
  minRole: 'DEVELOPER',
  responses: {
    200: { description: 'Revoked', schema: MessageResponse },
    ...errorResponses({ 401: undefined, 403: undefined, 404: MESSAGES.keyNotFound }),
  },
  async handler(ctx) {
    await ctx.deps.service.revoke(caller(ctx), ctx.params.id!);
    return { status: 200, body: { success: true, message: MESSAGES.keyRevoked } };
  },
});

export const removeApiKey = defineRoute({
  method: 'DELETE',
  url: '/api-keys/:id/permanent',
  operationId: 'removeApiKey',
  summary: 'Delete a revoked key record',
  tag: TAG,
  minRole: 'DEVELOPER',
  responses: {
    200: { description: 'Removed', schema: MessageResponse },
    ...errorResponses({ 401: undefined, 403: undefined, 404: MESSAGES.keyNotFound, 409: MESSAGES.revokeBeforeRemove }),
  },
  async handler(ctx) {
    await ctx.deps.service.remove(caller(ctx), ctx.params.id!);
    return { status: 200, body: { success: true, message: MESSAGES.keyRemoved } };
  },
});

export const apiKeyRoutes: RouteSpec<any, any>[] = [listApiKeys, getApiKey, createApiKey, updateApiKey, rollApiKey, revokeApiKey, removeApiKey];
