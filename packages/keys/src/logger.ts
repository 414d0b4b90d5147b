import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Secrets that must never reach a log line: raw keys, key hashes (and any other 64-hex digest, such
 * as a generated development secret) and JWTs. Redaction covers the places we know of; the scrub
 * on the final line catches what slips through elsewhere (error messages, database error details).
 */
const SECRET_PATTERNS: Array<[RegExp, string]> = [
  [/lwk_[0-9a-fA-F]{8,}/g, 'lwk_[REDACTED]'],
  [/\b[0-9a-fA-F]{64}\b/g, '[REDACTED]'],
  [/eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '[REDACTED]'],
];

export function scrubSecrets(line: string): string {
  let out = line;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'body',
  'req.body',
  'rawKey',
  'keyHash',
  'key',
  'token',
  '*.rawKey',
  '*.keyHash',
  '*.key',
  '*.token',
];

/** Logs are JSON lines on stderr (stdout stays free for command output such as `token`). */
export function createLogger(level: string, destination: DestinationStream = pino.destination({ dest: 2, sync: true })): Logger {
  return pino(
    {
      level,
      base: { service: 'linework-keys' },
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      hooks: { streamWrite: scrubSecrets },
    },
    destination,
  );
}
