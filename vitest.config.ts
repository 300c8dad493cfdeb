import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Suites start their own stacks on ephemeral ports and their own databases; two at a time fits 2 cores.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
