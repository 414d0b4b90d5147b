/**
 * The `linework-keys` command: defaults (./data/keys.db, generated development secret), the
 * `token` and `migrate` commands, configuration by environment, JWKS identity, signals.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Client } from './helpers/http.js';
import { runCli, startService, TEST_SECRET, type ServiceProcess } from './helpers/service.js';
import { token } from './helpers/tokens.js';
import { expectFailureBody } from './helpers/failures.js';

const dirs: string[] = [];
const running: ServiceProcess[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'linework-keys-cli-'));
  dirs.push(dir);
  return dir;
}
async function serve(options: Parameters<typeof startService>[0]): Promise<ServiceProcess> {
  const service = await startService(options);
  running.push(service);
  return service;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('linework-keys serve on embedded defaults', () => {
  it('creates ./data/keys.db and a 0600 development secret, and accepts tokens from `linework-keys token`', async () => {
    const cwd = tempDir();
    const service = await serve({ cwd, env: {} });
    expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(existsSync(join(cwd, 'data', 'keys.db'))).toBe(true);
    const secretFile = join(cwd, 'data', 'jwt-secret');
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(secretFile, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(service.stderr()).toMatch(/WARNING: neither AUTH_JWT_SECRET nor AUTH_JWKS_URL is set/);
    expect(service.stderr()).toContain('linework-keys token --sub <user> --org <org> --role DEVELOPER');

    const minted = await runCli(['token', '--sub', 'local-user', '--org', 'local-org', '--role', 'DEVELOPER', '--expires', '10m'], { cwd });
    expect(minted.code).toBe(0);
    const jwt = minted.stdout.trim();
    expect(jwt.split('.')).toHaveLength(3);
    const api = new Client(service.url);
    const created = await api.post('/api-keys', { name: 'local' }, jwt);
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ userId: 'local-user', organizationId: 'local-org' });
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());
    expect(payload.exp - payload.iat).toBe(600);
    expect(payload).toMatchObject({ sub: 'local-user', org: 'local-org', role: 'DEVELOPER' });
    // A token signed with anything else is refused.
    expect((await api.get('/api-keys', await token({ secret: TEST_SECRET }))).status).toBe(401);

    // The secret survives a restart: the same token still works.
    expect((await service.stop('SIGINT')).code).toBe(0);
    const again = await serve({ cwd, env: {} });
    expect((await new Client(again.url).get('/api-keys', jwt)).body.data).toHaveLength(1);
  });

  it('uses KEYS_DB_PATH, and --db over it', async () => {
    const cwd = tempDir();
    const fromEnv = await serve({ cwd, env: { KEYS_DB_PATH: 'custom/env.db', AUTH_JWT_SECRET: TEST_SECRET } });
    expect(existsSync(join(cwd, 'custom', 'env.db'))).toBe(true);
    await fromEnv.stop();
    const fromFlag = await serve({ cwd, args: ['--db', 'flag/flag.db'], env: { KEYS_DB_PATH: 'custom/other.db', AUTH_JWT_SECRET: TEST_SECRET } });
    expect(existsSync(join(cwd, 'flag', 'flag.db'))).toBe(true);
    expect(existsSync(join(cwd, 'custom', 'other.db'))).toBe(false);
    // No secret was generated: AUTH_JWT_SECRET is configured.
    expect(existsSync(join(cwd, 'flag', 'jwt-secret'))).toBe(false);
    expect(fromFlag.stderr()).not.toMatch(/WARNING/);
  });

  it('binds to --host', async () => {
    const cwd = tempDir();
    const service = await serve({ cwd, args: ['--host', '0.0.0.0'], env: { AUTH_JWT_SECRET: TEST_SECRET } });
    expect(service.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    const port = new URL(service.url).port;
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  });

  it('finishes a request in flight on SIGTERM, refuses new connections, and exits 0', async () => {
    const cwd = tempDir();
    const service = await serve({ cwd, env: { AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'info' } });
    const { hostname, port } = new URL(service.url);
    const jwt = await token();
    const body = JSON.stringify({ name: 'in flight' });
    // A request whose body is still arriving when the signal comes.
    const socket = connect(Number(port), hostname);
    let response = '';
    socket.on('data', (d: Buffer) => (response += d.toString()));
    const ended = new Promise((r) => socket.on('end', r));
    socket.write(
      `POST /api-keys HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${jwt}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((r) => setTimeout(r, 150));
    const started = Date.now();
    service.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 150));
    // The server no longer accepts connections, but the open request is still served.
    await expect(fetch(`${service.url}/health`)).rejects.toThrow();
    socket.write(body.slice(5));
    await ended;
    expect(response).toMatch(/^HTTP\/1\.1 201 /);
    expect(response.toLowerCase()).toContain('connection: close');
    expect(response.toLowerCase()).toContain('api-version: 1');
    const exit = await service.stop();
    expect(exit.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(service.stderr()).toContain('shutting down');
  });
});

describe('configuration', () => {
  it('API_KEY_PERMISSIONS replaces the allowed list', async () => {
    const service = await serve({ cwd: tempDir(), env: { AUTH_JWT_SECRET: TEST_SECRET, API_KEY_PERMISSIONS: 'reports:read, Reports:Write,users:read' } });
    const api = new Client(service.url);
    const jwt = await token();
    const refused = await api.post('/api-keys', { name: 'x', permissions: ['drawings:read'] }, jwt);
    expect(refused.status).toBe(400);
    expectFailureBody(refused.body, 400, 'Invalid API key permissions: drawings:read', { allowedPermissions: ['reports:read', 'reports:write', 'users:read'] });
    const ok = await api.post('/api-keys', { name: 'x', permissions: ['reports:*'] }, jwt);
    expect(ok.body.data.permissions).toEqual(['reports:read', 'reports:write']);
  });

  it('refuses to start on bad configuration, with a message', async () => {
    const cwd = tempDir();
    const cases: Array<[Record<string, string>, string[], RegExp]> = [
      [{ API_KEY_PERMISSIONS: 'admin' }, [], /API_KEY_PERMISSIONS: "admin" is not of the form resource:action/],
      [{ DATABASE_URL: 'mysql://x' }, [], /DATABASE_URL must be a postgres/],
      [{ LOG_LEVEL: 'loud' }, [], /LOG_LEVEL must be one of/],
      [{ NODE_ENV: 'production' }, [], /set AUTH_JWT_SECRET or AUTH_JWKS_URL/],
      [{ AUTH_JWT_SECRET: TEST_SECRET }, ['--port', '70000'], /invalid port/],
      [{ AUTH_JWT_SECRET: TEST_SECRET, VERIFY_COUNT_FLUSH_MS: '-1' }, [], /VERIFY_COUNT_FLUSH_MS must be an integer from 0 to 60000/],
      [{ AUTH_JWT_SECRET: TEST_SECRET, VERIFY_COUNT_FLUSH_MS: '2.5' }, [], /VERIFY_COUNT_FLUSH_MS must be an integer/],
      [{ AUTH_JWT_SECRET: TEST_SECRET, VERIFY_COUNT_FLUSH_MS: '60001' }, [], /VERIFY_COUNT_FLUSH_MS must be an integer/],
    ];
    const results = await Promise.all(cases.map(([env, args]) => runCli(['serve', '--port', '0', ...args], { cwd, env })));
    results.forEach((r, i) => {
      expect(r.code, JSON.stringify(cases[i]![0])).toBe(1);
      expect(r.stderr).toMatch(cases[i]![2]);
    });
    const [usage, unknown] = await Promise.all([runCli(['serve', '--bogus'], { cwd }), runCli(['launch'], { cwd })]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage:');
    expect(unknown.code).toBe(2);
  });

  it('token: uses AUTH_JWT_SECRET, validates its flags, and refuses under JWKS', async () => {
    const cwd = tempDir();
    const service = await serve({ cwd, env: { AUTH_JWT_SECRET: TEST_SECRET } });
    const minted = await runCli(['token', '--sub', 'u', '--org', 'o', '--role', 'admin'], { cwd, env: { AUTH_JWT_SECRET: TEST_SECRET } });
    expect(minted.code).toBe(0);
    expect((await new Client(service.url).get('/audit-logs', minted.stdout.trim())).status).toBe(200);
    expect(existsSync(join(cwd, 'data', 'jwt-secret'))).toBe(false);
    expect((await runCli(['token', '--sub', 'u'], { cwd, env: { AUTH_JWT_SECRET: TEST_SECRET } })).code).toBe(2);
    expect((await runCli(['token', '--sub', 'u', '--org', 'o', '--role', 'ROOT'], { cwd, env: { AUTH_JWT_SECRET: TEST_SECRET } })).code).toBe(2);
    expect((await runCli(['token', '--sub', 'u', '--org', 'o', '--expires', 'soon'], { cwd, env: { AUTH_JWT_SECRET: TEST_SECRET } })).code).toBe(2);
    const jwks = await runCli(['token', '--sub', 'u', '--org', 'o'], { cwd, env: { AUTH_JWKS_URL: 'http://127.0.0.1:9/jwks' } });
    expect(jwks.code).toBe(1);
    expect(jwks.stderr).toMatch(/AUTH_JWKS_URL/);
  });

  it('token: every token it mints carries exp (1h by default), and a zero span is refused', async () => {
    const env = { AUTH_JWT_SECRET: TEST_SECRET };
    const payloadOf = (jwt: string) => JSON.parse(Buffer.from(jwt.trim().split('.')[1]!, 'base64url').toString());
    const plain = await runCli(['token', '--sub', 'u', '--org', 'o'], { env });
    expect(plain.code).toBe(0);
    const payload = payloadOf(plain.stdout);
    expect(payload.exp - payload.iat).toBe(3600);
    for (const span of ['0s', '0m', '00h']) {
      const zero = await runCli(['token', '--sub', 'u', '--org', 'o', '--expires', span], { env });
      expect(zero.code, span).toBe(2);
      expect(zero.stderr).toContain('--expires must be longer than zero');
    }
  });

  it('migrate applies the schema and exits', async () => {
    const cwd = tempDir();
    const r = await runCli(['migrate', '--db', 'm/keys.db'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('schema up to date');
    expect(existsSync(join(cwd, 'm', 'keys.db'))).toBe(true);
    expect((await runCli(['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect((await runCli(['--help'])).stdout).toContain('linework-keys serve');
  });
});

describe('identity through a JWKS (RS256)', () => {
  let jwksServer: Server;
  let jwksUrl: string;
  let privateKey: CryptoKey;
  let jwksHits = 0;

  it('accepts tokens from the key set, checks issuer and audience, refuses HS256', async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    jwksServer = createServer((_req, res) => {
      jwksHits++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => jwksServer.listen(0, '127.0.0.1', r));
    jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
    try {
      const service = await serve({
        cwd: tempDir(),
        env: { AUTH_JWKS_URL: jwksUrl, AUTH_JWT_ISSUER: 'https://id.example', AUTH_JWT_AUDIENCE: 'linework-keys' },
      });
      expect(service.stderr()).not.toMatch(/WARNING/);
      const api = new Client(service.url);
      const sign = (iss: string, aud: string, key: CryptoKey = privateKey) =>
        new SignJWT({ org: 'org-jwks', role: 'ADMIN' })
          .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
          .setSubject('jwks-user')
          .setIssuer(iss)
          .setAudience(aud)
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(key);
      const good = await api.post('/api-keys', { name: 'via jwks' }, await sign('https://id.example', 'linework-keys'));
      expect(good.status).toBe(201);
      expect(good.body.data).toMatchObject({ userId: 'jwks-user', organizationId: 'org-jwks' });
      const wrongIss = await api.get('/api-keys', await sign('https://evil.example', 'linework-keys'));
      expect(wrongIss.status).toBe(401);
      expect(wrongIss.body.error).toMatch(/^Invalid token: .*iss/);
      const wrongAud = await api.get('/api-keys', await sign('https://id.example', 'other'));
      expect(wrongAud.status).toBe(401);
      const otherKey = (await generateKeyPair('RS256')).privateKey;
      expect((await api.get('/api-keys', await sign('https://id.example', 'linework-keys', otherKey))).body.error).toBe('Invalid token signature');
      // No shared secret is configured, so HS256 tokens are not accepted at all.
      expectFailureBody((await api.get('/api-keys', await token())).body, 401, 'Invalid token');
      expect(jwksHits).toBeGreaterThan(0);
    } finally {
      await new Promise((r) => jwksServer.close(r));
    }
  });

  it('answers 503 when the key set cannot be fetched', async () => {
    const service = await serve({ cwd: tempDir(), env: { AUTH_JWKS_URL: 'http://127.0.0.1:9/jwks.json' } });
    const pair = await generateKeyPair('ES256');
    const jwt = await new SignJWT({ org: 'o', role: 'OWNER' }).setProtectedHeader({ alg: 'ES256', kid: 'x' }).setSubject('u').setExpirationTime('5m').sign(pair.privateKey);
    const res = await new Client(service.url).get('/api-keys', jwt);
    expect(res.status).toBe(503);
    expectFailureBody(res.body, 503, 'Identity provider unavailable');
  });
});
