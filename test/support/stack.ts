import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TestClock } from '../../lib/clock.js';
import { loadConfig } from '../../lib/config.js';
import { generatePrivateKey } from '../../lib/tokens/keys.js';
import { createLogger, type Logger } from '../../lib/logger.js';
import { startStack, type RunningStack } from '../../services/stack.js';
import { createTestDatabases, deleteRedisKeys, replaceDatabase, withMysql } from './resources.js';

export type Backend = 'embedded' | 'mysql';

export interface TestStack {
  backend: Backend;
  baseUrl: string;
  authUrl: string;
  authGrpcAddress: string;
  ticketGrpcAddress: string;
  /** Prometheus GET /metrics of the stack (its own port, not the gateway's). */
  metricsUrl: string;
  env: Record<string, string>;
  running: RunningStack;
  /**
   * Where the stack's ticket service reads "now" for expiry and the stock moves' times: a test
   * moves it past an expires_at with `clock.advance(ms)` or `clock.advanceTo(expires_at)` instead
   * of sleeping (docs/testing.md "The test clock"). Only forward; real time keeps running under it.
   */
  clock: TestClock;
  stop(): Promise<void>;
}

/** Which backend this test run uses: the vitest project sets TEST_BACKEND. */
export function testBackend(): Backend {
  return process.env.TEST_BACKEND === 'mysql' ? 'mysql' : 'embedded';
}

/**
 * Starts the real stack (auth, ticket, gateway; real gRPC on loopback) on ephemeral ports,
 * on its own SQLite files, or its own MySQL databases and Redis key prefix. stop() removes
 * everything it made.
 */
export async function startTestStack(
  overrides: Record<string, string> = {},
  options: { logger?: Logger; /** Rewrites the MySQL URLs the services get (e.g. through a proxy); cleanup still uses the real ones. */ mapDatabaseUrl?: (url: string) => string } = {},
): Promise<TestStack> {
  const backend = testBackend();
  const id = `t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ticketing-test-'));
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    BIND_HOST: '127.0.0.1',
    PORT: '0',
    AUTH_GRPC_PORT: '0',
    TICKET_GRPC_PORT: '0',
    METRICS_PORT: '0',
    DATA_DIR: dataDir,
    AUTH_SIGNING_KEY: generatePrivateKey(),
    AUTH_RATE_LIMIT_SECRET: randomBytes(32).toString('hex'),
    TOKEN_RATE_LIMIT_PER_ACCOUNT: '100000',
    TOKEN_RATE_LIMIT_PER_ACCOUNT_TOTAL: '100000',
    TOKEN_RATE_LIMIT_PER_ADDRESS: '100000',
    // The heavy suites (fuzz, stock rushes, bench) send thousands of requests with one token from
    // one address; test/gateway/rate-limits.test.ts checks the real defaults ('' restores them).
    RATE_LIMIT_PER_TOKEN: '100000',
    RATE_LIMIT_PER_ADDRESS: '100000',
    // A test's event loop runs late for reasons of its own (the suites beside it on the same
    // cores), which is no overload of the gateway; test/gateway/load-shedding.test.ts turns it on.
    SHED_NEW_SALES_LAG_MS: '0',
  };
  const cleanups: Array<() => Promise<void>> = [async () => rmSync(dataDir, { recursive: true, force: true })];
  if (backend === 'mysql') {
    const mysqlUrl = required('TEST_MYSQL_URL');
    const databases = await createTestDatabases(mysqlUrl, id);
    const map = options.mapDatabaseUrl ?? ((url: string) => url);
    env.AUTH_DATABASE_URL = map(databases.authUrl);
    env.TICKET_DATABASE_URL = map(databases.ticketUrl);
    env.REDIS_URL = required('TEST_REDIS_URL');
    env.REDIS_KEY_PREFIX = `test:${id}:`;
    cleanups.push(() => databases.drop());
    cleanups.push(() => deleteRedisKeys(env.REDIS_URL!, env.REDIS_KEY_PREFIX!));
  }
  Object.assign(env, overrides);
  const config = loadConfig(env);
  const clock = new TestClock();
  let running: RunningStack;
  try {
    running = await startStack(config, options.logger ?? createLogger('test-stack', env.LOG_LEVEL), { clock });
  } catch (err) {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    throw err;
  }
  const baseUrl = `http://127.0.0.1:${running.gatewayPort}`;
  return {
    backend,
    baseUrl,
    authUrl: `${baseUrl}${config.AUTH_PATH_PREFIX}`,
    authGrpcAddress: `127.0.0.1:${running.authPort}`,
    ticketGrpcAddress: `127.0.0.1:${running.ticketPort}`,
    metricsUrl: `http://127.0.0.1:${running.metricsPort}/metrics`,
    env,
    running,
    clock,
    async stop() {
      await running.shutdown(2000);
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    },
  };
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set for the mysql test backend`);
  return value;
}

export { replaceDatabase, withMysql };
