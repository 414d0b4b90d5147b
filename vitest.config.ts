import { defineConfig } from 'vitest/config';

// Tests import workspace packages from their TypeScript sources, so a test run never depends on a
// stale build; tests that spawn the real CLIs use the built `dist/` (npm test builds first).
const src = (file: string) => new URL(`./packages/${file}`, import.meta.url).pathname;
const pkg = (name: string) => src(`${name}/src/index.ts`);

export default defineConfig({
  resolve: {
    // Exact names: a bare '@linework/dxf' key would also rewrite '@linework/dxf/cli' to a path
    // below index.ts. The subpath entries are the packages' own `exports`.
    alias: [
      { find: /^@linework\/dxf$/, replacement: pkg('dxf') },
      { find: /^@linework\/dxf\/cli$/, replacement: src('dxf/src/cli-commands.ts') },
      { find: /^@linework\/engine$/, replacement: pkg('engine') },
      { find: /^@linework\/engine\/plot-cli$/, replacement: src('engine/src/plot/cli.ts') },
      { find: /^@linework\/server$/, replacement: pkg('server') },
      { find: /^@linework\/editor$/, replacement: pkg('editor') },
      { find: /^@linework\/keys$/, replacement: pkg('keys') },
    ],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['./scripts/ci-tools-check.ts'],
    reporters: ['default'],
  },
});
