import { defineConfig } from 'vitest/config';
import { BOTH_BACKENDS_FILES } from './test/projects.js';

/**
 * Every test file runs on the embedded default (SQLite + in-process cache); when TEST_MYSQL_URL
 * and TEST_REDIS_URL are set, the files whose subject is stored state, Redis or the process
 * topology run again on MySQL/MariaDB + Redis (test/projects.ts, docs/testing.md "What runs where").
 */
const withMysql = Boolean(process.env.TEST_MYSQL_URL && process.env.TEST_REDIS_URL);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    // Beside the default output, each file's duration, the slowest first (test/support/durations-reporter.ts).
    reporters: ['default', './test/support/durations-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'embedded', include: ['test/**/*.test.ts'], env: { TEST_BACKEND: 'embedded' } } },
      ...(withMysql
        ? [{ extends: true as const, test: { name: 'mysql', include: BOTH_BACKENDS_FILES, env: { TEST_BACKEND: 'mysql' } } }]
        : []),
    ],
  },
});
