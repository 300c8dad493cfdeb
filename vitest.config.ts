import { defineConfig } from 'vitest/config';
import { BACKEND_NEUTRAL_FILES } from './test/projects.js';

/**
 * Every suite runs on the embedded default (SQLite + in-process cache) and, when
 * TEST_MYSQL_URL and TEST_REDIS_URL are set, again on MySQL/MariaDB + Redis, except the files
 * that never reach the backend (test/projects.ts): those run once, in the embedded project.
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
        ? [{ extends: true, test: { name: 'mysql', include: ['test/**/*.test.ts'], exclude: BACKEND_NEUTRAL_FILES, env: { TEST_BACKEND: 'mysql' } } }]
        : []),
    ],
  },
});
