import path from 'node:path';
import type { Config } from '../../lib/config.js';
import { createDatabase, migrationSource, type Knex } from '../../lib/db.js';
import { AuthServiceService } from '../../lib/gen/auth/v1/auth.js';
import { serveGrpc, type RunningServer } from '../../lib/grpc/serve.js';
import type { Logger } from '../../lib/logger.js';
import { observeCache, observePool } from '../../lib/metrics.js';
import { signingSecret } from '../../lib/secrets.js';
import { AuthService } from './auth-service.js';
import { AccessTokens } from './domain/access-tokens.js';
import { RateLimiter } from './domain/rate-limiter.js';
import { authRpcHandlers } from './rpc.js';
import { MemorySessionCache, RedisSessionCache, type SessionCache } from './session-cache.js';
import { AuthStore } from './store/auth-store.js';
import { authMigrations } from './store/migrations.js';

export interface RunningAuthService {
  port: number;
  service: AuthService;
  store: AuthStore;
  db: Knex;
  shutdown(graceMs?: number): Promise<void>;
}

export function openAuthDatabase(config: Config, logger?: Pick<Logger, 'debug' | 'warn'>): Knex {
  return createDatabase({
    logger,
    url: config.AUTH_DATABASE_URL,
    sqliteFile: path.join(config.DATA_DIR, 'auth.sqlite'),
    migrations: { migrationSource: migrationSource(authMigrations), tableName: 'knex_migrations' },
  });
}

export interface AuthComponents {
  service: AuthService;
  store: AuthStore;
  cache: SessionCache;
}

/**
 * The auth service's rules on an open (migrated) database, as the gRPC server and the admin
 * CLI use them: the same store, session cache (Redis when configured) and signing key.
 */
export async function createAuthService(config: Config, db: Knex, logger: Logger, options: { cache?: SessionCache } = {}): Promise<AuthComponents> {
  const store = new AuthStore(db);
  const whitelabelId = await store.ensureWhitelabel(config.DEFAULT_WHITELABEL_NAME);
  const cache: SessionCache =
    options.cache ??
    (config.REDIS_URL
      ? new RedisSessionCache(config.REDIS_URL, config.REDIS_KEY_PREFIX, config.SESSION_CACHE_TTL_SECONDS, config.REDIS_COMMAND_TIMEOUT_MS, logger)
      : new MemorySessionCache(config.SESSION_CACHE_TTL_SECONDS));
  observePool('auth', db);
  observeCache(config.REDIS_URL ? 'redis' : 'memory', () => cache.isHealthy());
  const tokens = new AccessTokens(
    signingSecret(config.AUTH_JWT_SECRET, config.DATA_DIR),
    config.AUTH_JWT_ISSUER,
    config.AUTH_JWT_AUDIENCE,
    config.ACCESS_TOKEN_TTL_SECONDS,
  );
  const service = new AuthService(store, cache, tokens, new RateLimiter(config.TOKEN_RATE_LIMIT_WINDOW_SECONDS * 1000), {
    signupEnabled: config.SIGNUP_ENABLED,
    whitelabelId,
    refreshTokenTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
    rateLimitPerAccount: config.TOKEN_RATE_LIMIT_PER_ACCOUNT,
    rateLimitPerAddress: config.TOKEN_RATE_LIMIT_PER_ADDRESS,
  });
  return { service, store, cache };
}

export async function startAuthService(config: Config, logger: Logger): Promise<RunningAuthService> {
  const db = openAuthDatabase(config, logger);
  await db.migrate.latest();
  const { service, store, cache } = await createAuthService(config, db, logger);
  if (!config.INTERNAL_API_KEY) {
    logger.warn(
      'INTERNAL_API_KEY is not set: the client address a gateway forwards is not believed, so every token request through a gateway counts against the gateway\'s own address (TOKEN_RATE_LIMIT_PER_ADDRESS). Set the same INTERNAL_API_KEY on the gateway and the auth service.',
    );
  }

  // Redis is a cache: the service is ready whenever its database answers.
  const server: RunningServer = await serveGrpc({
    host: config.BIND_HOST,
    port: config.AUTH_GRPC_PORT,
    services: [{ definition: AuthServiceService, implementation: authRpcHandlers(service, logger, config.INTERNAL_API_KEY) }],
    logger,
    isReady: () => store.ping().then(() => true),
  });

  return {
    port: server.port,
    service,
    store,
    db,
    async shutdown(graceMs) {
      await server.shutdown(graceMs);
      await cache.close();
      await db.destroy();
    },
  };
}
