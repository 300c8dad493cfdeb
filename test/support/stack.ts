import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { createClient } from 'redis';
import { loadConfig } from '../../lib/config.js';
import { createLogger, type Logger } from '../../lib/logger.js';
import { startStack, type RunningStack } from '../../services/stack.js';

export type Backend = 'embedded' | 'mysql';

export interface TestStack {
  backend: Backend;
  baseUrl: string;
  authUrl: string;
  authGrpcAddress: string;
  ticketGrpcAddress: string;
  env: Record<string, string>;
  running: RunningStack;
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
    DATA_DIR: dataDir,
    AUTH_JWT_SECRET: randomBytes(32).toString('hex'),
    TOKEN_RATE_LIMIT_PER_ACCOUNT: '100000',
    TOKEN_RATE_LIMIT_PER_ADDRESS: '100000',
  };
  const cleanups: Array<() => Promise<void>> = [async () => rmSync(dataDir, { recursive: true, force: true })];
  if (backend === 'mysql') {
    const mysqlUrl = required('TEST_MYSQL_URL');
    const authDb = `${id}_auth`;
    const ticketDb = `${id}_ticket`;
    await withMysql(mysqlUrl, async (db) => {
      await db.raw(`CREATE DATABASE \`${authDb}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      await db.raw(`CREATE DATABASE \`${ticketDb}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    });
    const map = options.mapDatabaseUrl ?? ((url: string) => url);
    env.AUTH_DATABASE_URL = map(replaceDatabase(mysqlUrl, authDb));
    env.TICKET_DATABASE_URL = map(replaceDatabase(mysqlUrl, ticketDb));
    env.REDIS_URL = required('TEST_REDIS_URL');
    env.REDIS_KEY_PREFIX = `test:${id}:`;
    cleanups.push(async () => {
      await withMysql(mysqlUrl, async (db) => {
        await db.raw(`DROP DATABASE IF EXISTS \`${authDb}\``);
        await db.raw(`DROP DATABASE IF EXISTS \`${ticketDb}\``);
      });
    });
    cleanups.push(() => deleteRedisKeys(env.REDIS_URL!, env.REDIS_KEY_PREFIX!));
  }
  Object.assign(env, overrides);
  const config = loadConfig(env);
  let running: RunningStack;
  try {
    running = await startStack(config, options.logger ?? createLogger('test-stack', env.LOG_LEVEL));
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
    env,
    running,
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

export function replaceDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function withMysql<T>(url: string, fn: (db: ReturnType<typeof knexFactory>) => Promise<T>): Promise<T> {
  const parsed = new URL(url);
  const db = knexFactory({
    client: 'mysql2',
    connection: {
      host: parsed.hostname,
      port: Number(parsed.port || 3306),
      user: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
      database: parsed.pathname.slice(1) || undefined,
    },
    pool: { min: 0, max: 1 },
  });
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      if (keys.length) await client.del(keys);
    }
  } finally {
    await client.close();
  }
}
