// `--host ADDR` through the real CLI: the drawing server listens beyond loopback only in the hosted
// mode (with --keys-url, the real key service here); an unkeyed server is refused, exit 2, and
// stays on loopback as the spec says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLoopback, parseArgs } from '../src/cli.js';
import { spawnCli, type Spawned } from './helpers.js';
import { startKeysService, type KeysService } from './keys-service.js';

const SESSION_TOKEN = 'host-test-session-token-0123456789';
let dir: string;
let root: string;
let keys: KeysService;
let key: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lw-host-'));
  root = join(dir, 'drawings');
  mkdirSync(root);
  keys = await startKeysService(dir);
  key = (await keys.createKey(keys.token('alice', 'acme'), { name: 'all', permissions: ['*'] })).rawKey;
}, 60_000);

afterAll(async () => {
  await keys?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** An IPv4 address of this machine that is not loopback, if it has one. */
function outsideAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

/** The local addresses the kernel has listening TCP sockets on for `port` (from /proc/net/tcp). */
function listeningOn(port: number): string[] {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[1]?.endsWith(`:${hex}`) && f[3] === '0A')
    .map((f) => f[1]!.split(':')[0]!.match(/../g)!.reverse().map((b) => parseInt(b, 16)).join('.'));
}

/** One JSON-lines request over TCP to `host`. */
function tcpLine(host: string, port: number, line: object): Promise<any> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, host);
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('error', reject);
    sock.on('connect', () => sock.write(JSON.stringify(line) + '\n'));
    sock.on('data', (d: string) => {
      buf += d;
      const i = buf.indexOf('\n');
      if (i >= 0) {
        sock.destroy();
        resolve(JSON.parse(buf.slice(0, i)));
      }
    });
  });
}

describe('--host', () => {
  it('is refused without --keys-url (exit 2): an unkeyed server stays on loopback', async () => {
    for (const args of [['--http', '0', '--host', '0.0.0.0'], ['--tcp', '0', '--host', '0.0.0.0'], ['--http', '0', '--host=::']]) {
      const p = spawnCli(args, { SERVICE_API_TOKEN: SESSION_TOKEN });
      const { code } = await p.exited;
      expect(code, args.join(' ')).toBe(2);
      expect(p.stderr()).toMatch(/--host (0\.0\.0\.0|::) goes with --keys-url: a server without API keys listens on loopback only/);
      expect(p.stderr()).not.toMatch(/^http:\/\//m);
    }
    // LINEWORK_KEYS_URL alone does not open it either: the address and the keys go together on the command line
    const env = spawnCli(['--http', '0', '--host', '0.0.0.0'], { SERVICE_API_TOKEN: SESSION_TOKEN, LINEWORK_KEYS_URL: keys.url });
    expect((await env.exited).code).toBe(2);
  }, 60_000);

  it('parses: an IP address, with a transport; loopback needs no keys', () => {
    expect(parseArgs(['--http', '0', '--host', '0.0.0.0', '--keys-url', 'http://k'])).toMatchObject({ kind: 'serve', host: '0.0.0.0', keysUrl: 'http://k' });
    expect(parseArgs(['--http', '0', '--host', '127.0.0.1'])).toMatchObject({ kind: 'serve', host: '127.0.0.1' });
    expect(parseArgs(['--http', '0', '--host', 'example.org', '--keys-url', 'http://k'])).toMatchObject({ kind: 'error', message: expect.stringMatching(/^--host needs an IP address/) });
    expect(parseArgs(['--http', '0', '--host'])).toMatchObject({ kind: 'error' });
    expect(parseArgs(['--stdio', '--host', '0.0.0.0', '--keys-url', 'http://k'])).toMatchObject({ kind: 'error' });
    expect(parseArgs(['--mcp', '--host', '127.0.0.1'])).toMatchObject({ kind: 'error', message: expect.stringMatching(/--host goes with --http or --tcp/) });
    expect([isLoopback('127.0.0.1'), isLoopback('127.1.2.3'), isLoopback('::1'), isLoopback('0.0.0.0'), isLoopback('::'), isLoopback('10.0.0.1')]).toEqual([true, true, true, false, false, false]);
  });

  it('with --keys-url listens for HTTP and TCP on every address, API keys accepted there', async () => {
    let lw: Spawned | undefined;
    try {
      lw = spawnCli(['--http', '0', '--tcp', '0', '--host', '0.0.0.0', '--keys-url', keys.url, '--root', root], { SERVICE_API_TOKEN: SESSION_TOKEN, LINEWORK_ROOT: '' });
      const http = Number((await lw.waitStderr(/^http:\/\/0\.0\.0\.0:(\d+)\/api\/v1$/m, 40_000))[1]);
      const tcp = Number((await lw.waitStderr(/^tcp:\/\/0\.0\.0\.0:(\d+)$/m, 40_000))[1]);
      await lw.waitStderr(/^api keys: /m, 40_000);
      // the kernel's own view: both sockets are bound to the wildcard address, not to 127.0.0.1
      expect(listeningOn(http)).toEqual(['0.0.0.0']);
      expect(listeningOn(tcp)).toEqual(['0.0.0.0']);
      const outside = outsideAddress();
      for (const host of ['127.0.0.1', ...(outside ? [outside] : [])]) {
        const made = await fetch(`http://${host}:${http}/api/v1/entities`, {
          method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ entities: [{ type: 'Circle', center: [0, 0], radius: 1 }] }),
        });
        expect(made.status, host).toBe(201);
        const listed = await tcpLine(host, tcp, { op: 'entities_list', token: key });
        expect(listed.ok, JSON.stringify(listed)).toBe(true);
        expect(listed.result.count, host).toBeGreaterThanOrEqual(1);
        // without a credential: refused, as on loopback
        expect((await fetch(`http://${host}:${http}/api/v1/entities`)).status, host).toBe(401);
      }
    } finally {
      await lw?.stop();
    }
  }, 90_000);

  it('--host 127.0.0.1 needs no keys (it is loopback)', async () => {
    const lw = spawnCli(['--http', '0', '--host', '127.0.0.1'], { SERVICE_API_TOKEN: SESSION_TOKEN });
    try {
      const port = Number((await lw.waitStderr(/^http:\/\/127\.0\.0\.1:(\d+)\/api\/v1$/m, 40_000))[1]);
      expect(listeningOn(port)).toEqual(['127.0.0.1']);
    } finally {
      await lw.stop();
    }
  }, 60_000);
});
