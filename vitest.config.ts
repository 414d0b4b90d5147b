import { defineConfig } from 'vitest/config';

// Tests import workspace packages from their TypeScript sources, so a test run never depends on a
// stale build; tests that spawn the real CLIs use the built `dist/` (npm test builds first).
const pkg = (name: string) => new URL(`./packages/${name}/src/index.ts`, import.meta.url).pathname;

export default defineConfig({
  resolve: {
    alias: {
      '@linework/dxf': pkg('dxf'),
      '@linework/engine': pkg('engine'),
      '@linework/server': pkg('server'),
      '@linework/editor': pkg('editor'),
      '@linework/keys': pkg('keys'),
    },
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
