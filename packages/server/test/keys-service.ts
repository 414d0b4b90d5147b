// The real key service for the hosted tests: `linework-keys serve --port 0` on a temporary SQLite
// file, tokens minted with its own CLI, keys made and revoked through its HTTP API.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const KEYS_BIN = fileURLToPath(new URL('../../keys/bin/linework-keys.js', import.meta.url));
export const KEYS_SECRET = 'hosted-e2e-secret-0123456789abcdef0123456789';

export interface KeysService {
  url: string;
  child: ChildProcess;
  /** Mints a token with `linework-keys token` (signed with the service's secret). */
  token(sub: string, org: string, role?: string): string;
  /** Creates a key (POST /api-keys) and returns its raw key and id. */
  createKey(token: string, body: Record<string, unknown>): Promise<{ rawKey: string; id: string }>;
  revoke(token: string, id: string): Promise<void>;
  /** Rolls a key (POST /api-keys/{id}/roll); the old one expires when the overlap ends. */
  roll(token: string, id: string, overlapSeconds: number): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const env = (dir: string): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, AUTH_JWT_SECRET: KEYS_SECRET, LOG_LEVEL: 'warn', KEYS_DB_PATH: join(dir, 'keys.db') });

export async function startKeysService(dir: string): Promise<KeysService> {
  const child = spawn(process.execPath, [KEYS_BIN, 'serve', '--port', '0'], { cwd: dir, env: env(dir), stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`the key service did not start: ${err}`)), 20_000);
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /^(http:\/\/127\.0\.0\.1:\d+)$/m.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`the key service exited (${code}): ${err}`)));
  });
  const api = async (method: string, path: string, token: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    url,
    child,
    token(sub, org, role = 'DEVELOPER') {
      const r = spawnSync(process.execPath, [KEYS_BIN, 'token', '--sub', sub, '--org', org, '--role', role], { cwd: dir, env: env(dir), encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`linework-keys token failed: ${r.stderr}`);
      return r.stdout.trim();
    },
    async createKey(token, body) {
      const created = await api('POST', '/api-keys', token, body);
      return { rawKey: created.data.rawKey as string, id: created.data.id as string };
    },
    async revoke(token, id) {
      await api('DELETE', `/api-keys/${id}`, token);
    },
    async roll(token, id, overlapSeconds) {
      await api('POST', `/api-keys/${id}/roll`, token, { overlapSeconds });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
