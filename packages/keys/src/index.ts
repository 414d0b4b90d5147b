/**
 * @linework/keys: the API key service as a library. `buildServer` gives the HTTP application over
 * any `KeyStore`; `openStore` opens SQLite or PostgreSQL with migrations applied.
 */
export { buildServer, allRoutes, API_VERSION, SERVICE_VERSION, type ServerOptions } from './server.js';
export { loadConfig, resolveAuth, signingSecret, readOrCreateDevSecret, ConfigError, type Config, type DatabaseConfig } from './config.js';
export { createAuthenticator, mintToken, requireRole, roleRank, ROLES, type Authenticator, type Identity, type Role, type AuthSettings } from './auth.js';
export { createLogger, scrubSecrets } from './logger.js';
export { KeyService, type VerifyOutcome } from './service.js';
export { VerificationBatcher, type Verifier } from './verifier.js';
export { CountingVerifier } from './counting-verifier.js';
export { DeferredCountVerifier, type DeferredCountOptions } from './deferred-verifier.js';
export { PermissionSet, parseAllowedPermissions, invalidPermissionsMessage, DEFAULT_PERMISSIONS } from './permissions.js';
export { ApiError, toErrorResponse, MESSAGES, type ErrorCode } from './errors.js';
export { generateRawKey, hashKey, keyPrefixOf, expiresAtFor, RAW_KEY_PATTERN, EXPIRY_CHOICES, type ExpiresIn } from './keys.js';
export { buildOpenApiDocument } from './routes/openapi.js';
export * as schemas from './schemas.js';
export * from './store/index.js';
export { migrateToLatest } from './store/migrations.js';
