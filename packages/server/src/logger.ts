// Logs go to stderr only (stdout belongs to the stdio and MCP transports). Never log the token.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(env: NodeJS.ProcessEnv = process.env): Logger {
  return pino(
    {
      name: 'linework',
      level: env.LINEWORK_LOG_LEVEL ?? 'info',
      redact: { paths: ['token', '*.token', 'authorization', '*.authorization', 'headers.authorization'], censor: '[redacted]' },
    },
    pino.destination({ fd: 2, sync: true }),
  );
}

/** A logger that drops everything (library use, tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
