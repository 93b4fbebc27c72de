import { defineConfig } from 'vitest/config';

// This package's own test run (`npm test`), inside the repository or copied out of it.
export default defineConfig({
  test: { include: ['src/**/*.test.ts'] },
});
