import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Run tests on sources: every package exports "@mage-rl/source" -> ./src/index.ts first.
    conditions: ['@mage-rl/source'],
  },
  ssr: {
    resolve: {
      conditions: ['@mage-rl/source'],
    },
  },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'examples/*/src/**/*.test.ts',
      'examples/*/test/**/*.test.ts',
      'integration/src/**/*.test.ts',
      'scripts/**/*.test.mjs',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
