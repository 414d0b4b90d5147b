// Limits and settings of the transports. The numbers are the spec's (drawing-automation.md, Limits);
// only the idle time can be shortened through the environment, for tests.

export const LIMITS = {
  /** Request line and each header line, in bytes (without the line break). Longer: 431. */
  maxLineBytes: 8192,
  /** All header lines together (with their line breaks, without the request line). Larger: 431. */
  maxHeaderBlockBytes: 65536,
  /** Declared Content-Length above this: the body is discarded and treated as empty. */
  maxBodyBytes: 16 * 1024 * 1024,
  /** Simultaneous HTTP connections; further ones are dropped without a response. */
  maxConnections: 8,
  /** Idle time of a connection (reading or writing), in milliseconds. */
  idleMs: 15_000,
  /** The request line and headers must have arrived this long after their first byte (a silent connection is the idle limit's). */
  headDeadlineMs: 5_000,
  /** The body must have arrived this long after the head (16 MiB needs 0.6 MB/s). */
  bodyDeadlineMs: 30_000,
  /** One JSON line on the TCP and stdio transports. */
  maxJsonLineBytes: 16 * 1024 * 1024,
} as const;

export interface TransportConfig {
  /** Idle limit per connection in ms (HTTP and TCP). */
  idleMs: number;
  /** HTTP: time for the request head, and then for the body, in ms. */
  headDeadlineMs: number;
  bodyDeadlineMs: number;
  /** A key verification's deadline, and the idle time of an organization's session, in ms (hosted.ts). */
  keysTimeoutMs?: number;
  orgIdleMs?: number;
  /** Organizations' workers (org-workers.ts): off (one process), heap limit, checkpoint delay. */
  orgWorkers: boolean;
  orgHeapMb?: number;
  orgCheckpointMs?: number;
  orgNice?: number;
  orgLongMs?: number;
  /** Hosted mode's connections (connection-gate.ts): in all, and per organization (or other bucket). */
  hostedConnections: number;
  bucketConnections: number;
}

/** Hosted mode: the front's connections in all (LINEWORK_HTTP_CONNECTIONS). */
export const HOSTED_CONNECTIONS = 64;

/**
 * Reads the tunable settings. `LINEWORK_IDLE_MS`, `LINEWORK_HEAD_DEADLINE_MS` and
 * `LINEWORK_BODY_DEADLINE_MS` (positive integers) replace the 15 s idle limit and the 5 s / 30 s
 * deadlines; they exist so tests need not wait, and are not meant for production use.
 * `LINEWORK_KEYS_TIMEOUT_MS` and `LINEWORK_ORG_IDLE_MS` replace the 2 s key verification deadline
 * and the 10 min idle time of an organization's session. `LINEWORK_ORG_WORKERS=0` runs the
 * organizations' sessions in the server's own process (no isolation: for measuring and debugging);
 * `LINEWORK_ORG_HEAP_MB` and `LINEWORK_ORG_CHECKPOINT_MS` replace a worker's heap limit (2048 MB)
 * and the delay of its session's save after a change (2 s); `LINEWORK_ORG_NICE` (0 to 19) the
 * workers' scheduling priority (10); `LINEWORK_ORG_LONG_MS` the time after which a request moves
 * its worker to the background class (250 ms). In hosted mode, `LINEWORK_ORG_CONNECTIONS` replaces the
 * connections each organization (and the session token, and anonymous clients, each as one) may
 * hold at once (the spec's 8), and `LINEWORK_HTTP_CONNECTIONS` the front's connections in all (64).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): TransportConfig {
  return {
    idleMs: positiveInt(env.LINEWORK_IDLE_MS) ?? LIMITS.idleMs,
    headDeadlineMs: positiveInt(env.LINEWORK_HEAD_DEADLINE_MS) ?? LIMITS.headDeadlineMs,
    bodyDeadlineMs: positiveInt(env.LINEWORK_BODY_DEADLINE_MS) ?? LIMITS.bodyDeadlineMs,
    keysTimeoutMs: positiveInt(env.LINEWORK_KEYS_TIMEOUT_MS),
    orgIdleMs: positiveInt(env.LINEWORK_ORG_IDLE_MS),
    orgWorkers: env.LINEWORK_ORG_WORKERS?.trim() !== '0',
    orgHeapMb: positiveInt(env.LINEWORK_ORG_HEAP_MB),
    orgCheckpointMs: positiveInt(env.LINEWORK_ORG_CHECKPOINT_MS),
    orgNice: niceValue(env.LINEWORK_ORG_NICE),
    orgLongMs: positiveInt(env.LINEWORK_ORG_LONG_MS),
    hostedConnections: positiveInt(env.LINEWORK_HTTP_CONNECTIONS) ?? HOSTED_CONNECTIONS,
    bucketConnections: positiveInt(env.LINEWORK_ORG_CONNECTIONS) ?? LIMITS.maxConnections,
  };
}

function niceValue(v: string | undefined): number | undefined {
  if (v === undefined || !/^\s*\d+\s*$/.test(v)) return undefined;
  const n = Number(v);
  return n <= 19 ? n : undefined;
}

function positiveInt(v: string | undefined): number | undefined {
  if (v === undefined || !/^\s*\d+\s*$/.test(v)) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}
