// What a user meets before the first command: npm in the checkout warns about nothing, better-sqlite3
// still builds from its npm sources, the declared Node.js engines hold for every package installed,
// the global install puts both commands on PATH, and the README's MCP configurations work as
// written from another folder.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT } from './helpers.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

describe('install', () => {
  it('npm commands in the checkout print no warning (no unknown project config)', () => {
    const r = spawnSync(npm, ['pkg', 'get', 'name'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('"linework"');
    expect(r.stderr).not.toMatch(/warn/i);
  });

  it('better-sqlite3 compiles from its npm sources: prebuild-install is told not to download', () => {
    const sqliteDir = join(ROOT, 'node_modules', 'better-sqlite3');
    const req = createRequire(join(sqliteDir, 'package.json'));
    const rcPath = req.resolve('prebuild-install/rc');
    // prebuild-install runs in the package's folder and reads its rc file from the folders above.
    const r = spawnSync(process.execPath, ['-e', `const rc = require(${JSON.stringify(rcPath)})(require('./package.json')); process.stdout.write(JSON.stringify(rc.buildFromSource))`], {
      cwd: sqliteDir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('true');
  });

  it('every installed package supports every Node.js version the project declares', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; optional?: boolean; engines?: { node?: string } | string[] }>;
    };
    const declared = pkg.engines.node;
    expect(semver.validRange(declared)).not.toBeNull();
    const narrower: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      // Optional packages (platform binaries) are skipped by npm where they do not fit.
      if (!path || entry.optional || Array.isArray(entry.engines)) continue;
      const range = entry.engines?.node;
      if (!range) continue;
      if (!semver.subset(declared, range)) narrower.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${range}`);
    }
    expect(narrower, `declared node ${declared}`).toEqual([]);
  });
});

describe('the global install and the README', () => {
  let prefix: string;
  let elsewhere: string;
  let drawings: string;
  let install: ReturnType<typeof spawnSync>;
  /** A PATH like a user's: the scratch prefix's bin, node, the system. */
  let path: string;

  beforeAll(() => {
    prefix = mkdtempSync(join(tmpdir(), 'linework-prefix-'));
    elsewhere = mkdtempSync(join(tmpdir(), 'linework-elsewhere-'));
    drawings = mkdtempSync(join(tmpdir(), 'linework-drawings-'));
    copyFileSync(join(ROOT, 'packages', 'dxf', 'fixtures', 'r2018.dxf'), join(drawings, 'plan.dxf'));
    // Exactly the README's command, into a scratch prefix instead of the machine's global one.
    install = spawnSync(npm, ['install', '-g', '--ignore-scripts', '.', '--prefix', prefix, '--no-audit', '--no-fund'], { cwd: ROOT, encoding: 'utf8' });
    path = [join(prefix, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter);
  }, 120_000);
  afterAll(() => {
    // The prefix holds a link to the checkout: removing it removes the link, not the checkout.
    for (const d of [prefix, elsewhere, drawings]) rmSync(d, { recursive: true, force: true });
  });

  it('`npm install -g --ignore-scripts .` puts linework and linework-keys on PATH, quietly', () => {
    expect(install.status, String(install.stderr)).toBe(0);
    expect(String(install.stderr)).not.toMatch(/warn/i);
    for (const bin of ['linework', 'linework-keys']) {
      const r = spawnSync(bin, ['--version'], { cwd: elsewhere, encoding: 'utf8', env: { PATH: path } });
      expect(r.status, `${bin}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
    }
  });

  it("every MCP configuration in the README starts the server from another folder and lists its tools", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => b.includes('mcpServers'));
    expect(blocks.length).toBe(2);
    for (const block of blocks) {
      // The README's placeholders, as a user fills them in.
      const filled = block.replaceAll('/path/to/linework', ROOT.replace(/[\\/]$/, '')).replaceAll('/home/me/drawings', drawings);
      const server = (JSON.parse(filled) as { mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }> }).mcpServers.linework!;
      const transport = new StdioClientTransport({ command: server.command, args: server.args, env: { PATH: path, ...server.env }, cwd: elsewhere, stderr: 'pipe' });
      const client = new Client({ name: 'readme-config', version: '1.0.0' });
      try {
        await client.connect(transport);
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name), block).toEqual(expect.arrayContaining(['documents', 'entities', 'query', 'modify']));
        // Relative paths start at --root, not at the folder the client started the server in.
        const opened = (await client.callTool({ name: 'documents', arguments: { action: 'document_open', path: 'plan.dxf' } })) as { isError?: boolean; structuredContent?: Record<string, unknown> };
        expect(opened.isError, JSON.stringify(opened)).toBeFalsy();
        expect(opened.structuredContent).toMatchObject({ name: 'plan.dxf' });
      } finally {
        await client.close();
      }
    }
  }, 60_000);
});
