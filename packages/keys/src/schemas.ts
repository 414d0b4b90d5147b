/**
 * The zod schemas of the HTTP interface. Request schemas validate bodies and queries; response
 * schemas document the answers (OpenAPI) and let tests check them. One source for both.
 */
import { z } from 'zod';
import { EXPIRY_CHOICES } from './keys.js';
import { AUDIT_ACTIONS } from './store/types.js';
import { isStorableText, UNSTORABLE_TEXT } from './text.js';

const timestamp = z.iso.datetime().meta({ description: 'ISO 8601 timestamp (UTC)' });

/** A string the service stores: refused when it could not come back as sent (see text.ts). */
function storable<S extends z.ZodString>(schema: S) {
  return schema.refine(isStorableText, { error: UNSTORABLE_TEXT });
}

const NAME_RULE = 'No U+0000 and no unpaired surrogate (neither could be stored as sent).';

// ---- requests ----

export const CreateApiKeyBody = z
  .object({
    name: storable(z.string().min(1).max(64)).meta({ description: NAME_RULE }),
    permissions: z.array(z.string()).default([]).meta({
      description: 'Allowed permissions; `*` and `resource:*` expand. Normalised before storing.',
    }),
    expiresIn: z.enum(EXPIRY_CHOICES).default('never'),
  });
export type CreateApiKeyBody = z.output<typeof CreateApiKeyBody>;

export const UpdateApiKeyBody = z
  .object({
    name: storable(z.string().trim().min(1).max(64)).meta({ description: `Stored trimmed. ${NAME_RULE}` }),
    permissions: z.array(z.string()),
    expiresIn: z.enum(EXPIRY_CHOICES).optional().meta({ description: 'Absent: expiry unchanged.' }),
  });
export type UpdateApiKeyBody = z.output<typeof UpdateApiKeyBody>;

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
          'those answered by other processes appear within VERIFY_COUNT_FLUSH_MS (at once when it is 0, the PostgreSQL default).',
      ),
    createdAt: timestamp,
  })
  .strict();

export const ApiKeyRecord = ApiKeyListItem.extend({
  userId: z.string(),
  organizationId: z.string(),
  keyHash: z.string().regex(/^[0-9a-f]{64}$/),
})
  .strict()
  .meta({ description: 'The whole stored record of a key.' });

export const CreatedApiKey = ApiKeyRecord.extend({
  rawKey: z.string().regex(/^lwk_[0-9a-f]{48}$/).meta({ description: 'Shown once; never retrievable again.' }),
})
  .strict();

export const FlattenedValidationError = z
  .object({
    formErrors: z.array(z.string()),
    fieldErrors: z.record(z.string(), z.array(z.string())),
  })
  .strict();

export const ErrorEnvelope = z
  .object({
    success: z.literal(false),
    error: z.union([z.string(), FlattenedValidationError]),
    allowedPermissions: z.array(z.string()).optional(),
  })
  .strict();

export const ListApiKeysResponse = z.object({ success: z.literal(true), data: z.array(ApiKeyListItem) }).strict();
export const CreateApiKeyResponse = z.object({ success: z.literal(true), data: CreatedApiKey, message: z.string() }).strict();
export const UpdateApiKeyResponse = z.object({ success: z.literal(true), data: ApiKeyRecord }).strict();
export const MessageResponse = z.object({ success: z.literal(true), message: z.string() }).strict();

export const VERIFY_FAILURE_CODES = ['NOT_FOUND', 'REVOKED', 'EXPIRED', 'INSUFFICIENT_PERMISSIONS'] as const;
export type VerifyFailureCode = (typeof VERIFY_FAILURE_CODES)[number];

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
      })
      .strict(),
    z.object({ valid: z.literal(false), code: z.enum(VERIFY_FAILURE_CODES) }).strict(),
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
