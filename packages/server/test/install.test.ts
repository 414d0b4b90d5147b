// What a user meets before the first command: npm in the checkout warns about nothing, better-sqlite3
// still builds from its npm sources, and the declared Node.js engines hold for every package installed.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
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
