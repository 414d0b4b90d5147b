/**
 * The zod schemas of the HTTP interface. Request schemas validate bodies and queries; response
 * schemas document the answers (OpenAPI) and let tests check them. One source for both.
 */
import { z } from 'zod';
import { EXPIRY_CHOICES } from './keys.js';
import { MAX_RATELIMIT_DURATION_MS, MAX_RATELIMIT_LIMIT, MIN_RATELIMIT_DURATION_MS } from './limits.js';
import { META_MAX_BYTES, metaProblem } from './meta.js';
import { AUDIT_ACTIONS, REFILL_INTERVALS } from './store/types.js';
import { isStorableText, UNSTORABLE_TEXT } from './text.js';
import { FAILURE_CODES } from './errors.js';

const timestamp = z.iso.datetime().meta({ description: 'ISO 8601 timestamp (UTC)' });

/** A string the service stores: refused when it could not come back as sent (see text.ts). */
function storable<S extends z.ZodString>(schema: S) {
  return schema.refine(isStorableText, { error: UNSTORABLE_TEXT });
}

const NAME_RULE = 'No U+0000 and no unpaired surrogate (neither could be stored as sent).';

// ---- the settings of issue 16 (optional everywhere: a client that does not send them sees no change) ----

export const RateLimitInput = z
  .strictObject({
    limit: z.int().min(1).max(MAX_RATELIMIT_LIMIT).meta({ description: 'Valid verifications allowed in each window.' }),
    durationMs: z
      .int()
      .min(MIN_RATELIMIT_DURATION_MS)
      .max(MAX_RATELIMIT_DURATION_MS)
      .meta({ description: 'Window length in milliseconds (1 s to 30 days).' }),
  })
  .meta({
    description:
      'At most `limit` valid verifications per window; windows are fixed, `durationMs` long and aligned to the Unix epoch. ' +
      'Exact across processes sharing the database. Beyond it verify answers `RATE_LIMITED`.',
  });

export const RefillInput = z
  .strictObject({
    interval: z.enum(REFILL_INTERVALS).meta({ description: '`daily`: at 00:00 UTC; `monthly`: on the 1st, 00:00 UTC.' }),
    amount: z.int().min(1).meta({ description: 'What `remaining` is set back to (not added to).' }),
  })
  .meta({ description: 'Sets `remaining` back to `amount` at the start of every interval; needs `remaining`.' });

const Remaining = z.int().min(0).meta({ description: 'Valid verifications left; each one takes one. At 0 verify answers `USAGE_EXCEEDED`.' });

export const MetaInput = z
  .record(z.string(), z.unknown())
  .superRefine((meta, ctx) => {
    const problem = metaProblem(meta);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description:
      `A JSON object stored with the key, returned by every read and valid verification exactly as sent; at most ${META_MAX_BYTES} ` +
      'bytes as JSON; no U+0000 or unpaired surrogate in its strings, no non-finite number.',
  });

export const REFILL_NEEDS_REMAINING = 'Needs remaining: a refill sets a usage limit back, and there is none';

/** The fields create and update share; on update, absent keeps the stored value and null removes it. */
const limitFields = {
  ratelimit: RateLimitInput.nullable().optional(),
  remaining: Remaining.nullable().optional(),
  refill: RefillInput.nullable().optional(),
  meta: MetaInput.nullable().optional(),
};

// ---- requests ----

export const CreateApiKeyBody = z
  .object({
    name: storable(z.string().min(1).max(64)).meta({ description: NAME_RULE }),
    permissions: z.array(z.string()).default([]).meta({
      description: 'Allowed permissions; `*` and `resource:*` expand. Normalised before storing.',
    }),
    expiresIn: z.enum(EXPIRY_CHOICES).default('never'),
    ...limitFields,
  })
  .refine((body) => !body.refill || (body.remaining !== undefined && body.remaining !== null), { path: ['refill'], message: REFILL_NEEDS_REMAINING });
export type CreateApiKeyBody = z.output<typeof CreateApiKeyBody>;

export const UpdateApiKeyBody = z
  .object({
    name: storable(z.string().trim().min(1).max(64)).meta({ description: `Stored trimmed. ${NAME_RULE}` }),
    permissions: z.array(z.string()),
    expiresIn: z.enum(EXPIRY_CHOICES).optional().meta({ description: 'Absent: expiry unchanged.' }),
    // Absent: unchanged; null: removed. A refill left without remaining answers 400.
    ...limitFields,
  });
export type UpdateApiKeyBody = z.output<typeof UpdateApiKeyBody>;

/** The longest overlap of a roll: the old key's last moment is at most this far away. */
export const MAX_ROLL_OVERLAP_SECONDS = 30 * 24 * 60 * 60;

export const RollApiKeyBody = z.strictObject({
  overlapSeconds: z
    .int()
    .min(0)
    .max(MAX_ROLL_OVERLAP_SECONDS)
    .meta({ description: 'How long the old key stays valid (0: it expires now; at most 30 days). Never extends its expiry.' }),
});
export type RollApiKeyBody = z.output<typeof RollApiKeyBody>;

export const VerifyApiKeyBody = z
  .object({
    key: z.string().meta({ description: 'The raw API key.' }),
    permissions: z.array(z.string()).optional().meta({ description: 'Permissions the key must hold (normalised like on create).' }),
  });
export type VerifyApiKeyBody = z.output<typeof VerifyApiKeyBody>;

/**
 * {@link VerifyApiKeyBody} for the bodies verifications almost always send, without the schema
 * machinery on the hot path: what the schema would parse `value` to when it is surely valid, else
 * undefined (the schema then decides, and words the error).
 */
export function quickVerifyBody(value: unknown): VerifyApiKeyBody | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { key, permissions } = value as { key?: unknown; permissions?: unknown };
  if (typeof key !== 'string') return undefined;
  if (permissions === undefined) return { key };
  if (!Array.isArray(permissions)) return undefined;
  for (const p of permissions) if (typeof p !== 'string') return undefined;
  return { key, permissions: permissions as string[] };
}

export const AuditLogQuery = z.object({
  action: z.enum(AUDIT_ACTIONS).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  before: z.uuid().optional().meta({ description: 'Cursor: the id of the last (oldest) record of the previous page; only older records are returned.' }),
});
export type AuditLogQuery = z.output<typeof AuditLogQuery>;

// ---- responses ----

/** Present only on keys that have them, so a key without them is listed exactly as before. */
const settingsOut = {
  ratelimit: z.object({ limit: z.int(), durationMs: z.int() }).strict().optional(),
  remaining: z.int().min(0).optional().meta({ description: 'Usage limit left, refill applied (see refill).' }),
  refill: z
    .object({ interval: z.enum(REFILL_INTERVALS), amount: z.int(), lastRefillAt: timestamp })
    .strict()
    .optional()
    .meta({ description: 'lastRefillAt: when remaining was last set back (or set).' }),
  meta: z.record(z.string(), z.unknown()).optional(),
  rolledFrom: z.string().optional().meta({ description: 'The key this one was rolled from.' }),
  replacedBy: z.string().optional().meta({ description: 'The key that replaced this one by a roll.' }),
};

export const ApiKeyListItem = z
  .object({
    id: z.string(),
    name: z.string(),
    keyPrefix: z.string(),
    permissions: z.array(z.string()),
    lastUsed: timestamp.nullable(),
    expiresAt: timestamp.nullable(),
    isActive: z.boolean(),
    requestCount: z
      .number()
      .int()
      .min(0)
      .describe(
        'Valid verifications of the key. Includes every verification the answering process has answered; ' +
          'those answered by other processes appear within VERIFY_COUNT_FLUSH_MS (at once when it is 0, the PostgreSQL default). ' +
          'Keys with a rate limit or usage limit are counted before every answer, in either mode.',
      ),
    createdAt: timestamp,
    ...settingsOut,
  })
  .strict();

export const ApiKeyRecord = ApiKeyListItem.extend({
  userId: z.string(),
  organizationId: z.string(),
})
  .strict()
  .meta({ description: 'The whole record of a key (its hash stays in the database).' });

export const CreatedApiKey = ApiKeyRecord.extend({
  rawKey: z.string().regex(/^lwk_[0-9a-f]{48}$/).meta({ description: 'Shown once; never retrievable again.' }),
})
  .strict();

/** One problem of an invalid request (details.issues of invalid_request). */
export const ValidationIssue = z
  .object({
    path: z.string().meta({ description: "the field, as a dotted path ('' for the whole body)" }),
    code: z.string().meta({ description: "zod's issue code (invalid_type, too_big, unrecognized_keys, ...)" }),
    message: z.string(),
  })
  .strict();

/** Every failure of the service: a sentence, a symbolic code, and the facts behind it. */
export const ErrorEnvelope = z
  .object({
    success: z.literal(false),
    error: z.string().meta({ description: 'what failed, as a sentence' }),
    code: z.enum(FAILURE_CODES as [string, ...string[]]).meta({ description: 'symbolic failure code, stable for clients to match' }),
    details: z
      .object({
        issues: z.array(ValidationIssue).optional().meta({ description: 'invalid_request: every invalid field' }),
        allowedPermissions: z.array(z.string()).optional().meta({ description: 'invalid_permissions on create: the permissions a key may hold' }),
      })
      .catchall(z.unknown())
      .optional()
      .meta({ description: 'facts about the failure' }),
  })
  .strict();

export const ListApiKeysResponse = z.object({ success: z.literal(true), data: z.array(ApiKeyListItem) }).strict();
export const CreateApiKeyResponse = z.object({ success: z.literal(true), data: CreatedApiKey, message: z.string() }).strict();
export const UpdateApiKeyResponse = z.object({ success: z.literal(true), data: ApiKeyRecord }).strict();
export const GetApiKeyResponse = UpdateApiKeyResponse;
export const RollApiKeyResponse = z
  .object({
    success: z.literal(true),
    data: CreatedApiKey.meta({ description: 'The new key (rolledFrom: the old one), with its raw key, shown once.' }),
    previous: ApiKeyRecord.meta({ description: 'The old key after the roll: replacedBy set, expiresAt at the end of the overlap.' }),
    message: z.string(),
  })
  .strict();
export const MessageResponse = z.object({ success: z.literal(true), message: z.string() }).strict();

export const VERIFY_FAILURE_CODES = ['NOT_FOUND', 'REVOKED', 'EXPIRED', 'INSUFFICIENT_PERMISSIONS', 'USAGE_EXCEEDED', 'RATE_LIMITED'] as const;
export type VerifyFailureCode = (typeof VERIFY_FAILURE_CODES)[number];

const verifyRemaining = z.int().min(0).optional().meta({ description: 'Usage-limited keys: what is left after this request.' });
const verifyRateLimit = z
  .object({
    limit: z.int(),
    remaining: z.int().min(0).meta({ description: 'Valid verifications left in the current window after this request.' }),
    reset: z.int().meta({ description: 'When the current window ends, in milliseconds since the Unix epoch.' }),
  })
  .strict()
  .optional()
  .meta({ description: 'Rate-limited keys: the window after this request.' });

export const VerifyResult = z
  .discriminatedUnion('valid', [
    z
      .object({
        valid: z.literal(true),
        id: z.string(),
        userId: z.string(),
        organizationId: z.string(),
        permissions: z.array(z.string()),
        expiresAt: timestamp.nullable(),
        meta: z.record(z.string(), z.unknown()).optional().meta({ description: "The key's meta, when it has one." }),
        remaining: verifyRemaining,
        ratelimit: verifyRateLimit,
      })
      .strict(),
    z.object({ valid: z.literal(false), code: z.enum(VERIFY_FAILURE_CODES), remaining: verifyRemaining, ratelimit: verifyRateLimit }).strict(),
  ]);
export const VerifyApiKeyResponse = z.object({ success: z.literal(true), data: VerifyResult }).strict();

export const AuditLogEntry = z
  .object({
    id: z.string(),
    category: z.literal('AUTH'),
    action: z.enum(AUDIT_ACTIONS),
    level: z.enum(['INFO', 'WARNING']),
    message: z.string(),
    userId: z.string(),
    organizationId: z.string(),
    meta: z.record(z.string(), z.unknown()),
    createdAt: timestamp,
  })
  .strict();
export const AuditLogsResponse = z.object({ success: z.literal(true), data: z.array(AuditLogEntry) }).strict();

export const HealthResponse = z.object({ success: z.literal(true), data: z.object({ status: z.literal('ok'), database: z.enum(['sqlite', 'postgres']) }).strict() }).strict();
