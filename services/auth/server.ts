import path from 'node:path';
import type { Config } from '../../lib/config.js';
import { createDatabase, migrationSource, type Knex } from '../../lib/db.js';
import { AuthServiceService } from '../../lib/gen/auth/v1/auth.js';
import { serveGrpc, type RunningServer } from '../../lib/grpc/serve.js';
import type { Logger } from '../../lib/logger.js';
import { observeCache, observePool } from '../../lib/metrics.js';
import { RateLimitStore } from '../../lib/rate-limit/redis-store.js';
import { configuredOrKept, randomSecret } from '../../lib/secrets.js';
import { generatePrivateKey } from '../../lib/tokens/keys.js';
import { AuthService } from './auth-service.js';
import { RevocationFeed } from './revocation-feed.js';
import { RevocationPeers } from './revocation-peers.js';
import { AccessTokens } from './domain/access-tokens.js';
import { SigningKeys } from './domain/signing-keys.js';
import { TokenRateLimits } from './domain/rate-limiter.js';
import { authRpcHandlers } from './rpc.js';
import { MemorySessionCache, RedisSessionCache, SessionEntrySeal, type SessionCache } from './session-cache.js';
import { AuthStore } from './store/auth-store.js';
import { authMigrations } from './store/migrations.js';
import { migrateAndReport } from '../../lib/migrate-latest.js';

export interface RunningAuthService {
  port: number;
  service: AuthService;
  /** This replica's reader of the shared revocations table. */
  revocations: RevocationFeed;
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
  /** Not started here: the gRPC server starts it, the admin CLI needs none. */
  revocations: RevocationFeed;
  keys: SigningKeys;
}

/**
 * The auth service's rules on an open (migrated) database, as the gRPC server and the admin
 * CLI use them: the same store, session cache (Redis when configured) and signing key.
 */
export async function createAuthService(config: Config, db: Knex, logger: Logger, options: { cache?: SessionCache; /** Where token rate limits are counted; without one, in this process. */ rateLimitStore?: RateLimitStore } = {}): Promise<AuthComponents> {
  const store = new AuthStore(db);
  const whitelabelId = await store.ensureWhitelabel(config.DEFAULT_WHITELABEL_NAME);
  const rateLimitSecret = rateLimitSecretOf(config, logger);
  const cache: SessionCache =
    options.cache ??
    (config.REDIS_URL
      ? new RedisSessionCache(config.REDIS_URL, config.REDIS_KEY_PREFIX, config.SESSION_CACHE_TTL_SECONDS, config.REDIS_COMMAND_TIMEOUT_MS, logger, new SessionEntrySeal(rateLimitSecret))
      : new MemorySessionCache(config.SESSION_CACHE_TTL_SECONDS));
  observePool('auth', db);
  observeCache(config.REDIS_URL ? 'redis' : 'memory', () => cache.isHealthy());
  const keys = signingKeysOf(config, logger);
  const tokens = new AccessTokens(
    keys,
    config.AUTH_JWT_ISSUER,
    config.AUTH_JWT_AUDIENCE,
    config.ACCESS_TOKEN_TTL_SECONDS,
  );
  const limits = new TokenRateLimits(
    { perAccount: config.TOKEN_RATE_LIMIT_PER_ACCOUNT, perAccountTotal: config.TOKEN_RATE_LIMIT_PER_ACCOUNT_TOTAL, perAddress: config.TOKEN_RATE_LIMIT_PER_ADDRESS, windowSeconds: config.TOKEN_RATE_LIMIT_WINDOW_SECONDS, ipv6PrefixLength: config.RATE_LIMIT_IPV6_PREFIX_LENGTH },
    store,
    rateLimitSecret,
    options.rateLimitStore,
  );
  const revocations = new RevocationFeed(store, config.REVOCATION_POLL_INTERVAL_MS, (config.ACCESS_TOKEN_TTL_SECONDS + 60) * 1000, logger);
  const service = new AuthService(store, cache, tokens, limits, {
    signupEnabled: config.SIGNUP_ENABLED,
    whitelabelId,
    refreshTokenTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
    tokenPath: `${config.AUTH_PATH_PREFIX}/tokens`,
  }, revocations);
  return { service, store, cache, revocations, keys };
}

/** AUTH_SIGNING_KEY (with AUTH_ACCEPTED_KEYS), or outside production a key pair generated once into DATA_DIR. */
function signingKeysOf(config: Config, logger: Logger): SigningKeys {
  const signingKey = configuredOrKept(config.AUTH_SIGNING_KEY, { name: 'AUTH_SIGNING_KEY', file: 'dev-signing-key', generate: generatePrivateKey }, config, logger);
  return new SigningKeys(signingKey, config.AUTH_ACCEPTED_KEYS);
}

/**
 * The token rate limiter's own secret. An install from before signing keys has only
 * AUTH_JWT_SECRET: its value stands in, so the counters and the remembered sign-in addresses
 * (kept by digest) carry over.
 */
function rateLimitSecretOf(config: Config, logger: Logger): string {
  const file = { name: 'AUTH_RATE_LIMIT_SECRET', file: 'dev-rate-limit-secret', generate: randomSecret };
  return configuredOrKept(config.AUTH_RATE_LIMIT_SECRET ?? config.AUTH_JWT_SECRET, file, config, logger);
}

export async function startAuthService(config: Config, logger: Logger): Promise<RunningAuthService> {
  const db = openAuthDatabase(config, logger);
  await migrateAndReport(db, 'auth', logger);
  // Shared by every auth replica on the same Redis; the admin CLI (no token requests) counts nothing there.
  const rateLimitStore = config.REDIS_URL ? new RateLimitStore(config.REDIS_URL, config.REDIS_KEY_PREFIX, config.REDIS_COMMAND_TIMEOUT_MS, logger) : undefined;
  const { service, store, cache, revocations, keys } = await createAuthService(config, db, logger, { rateLimitStore }).catch(async (err: unknown) => {
    await rateLimitStore?.close();
    throw err;
  });
  await revocations.start();
  const peers = config.REDIS_URL ? new RevocationPeers(config.REDIS_URL, config.REDIS_KEY_PREFIX, () => revocations.poke(), config.REDIS_COMMAND_TIMEOUT_MS, logger) : undefined;
  if (peers) revocations.announceWith(() => peers.announce());
  if (!config.INTERNAL_API_KEY) {
    logger.warn(
      'INTERNAL_API_KEY is not set: the client address a gateway forwards is not believed, so every token request through a gateway counts against the gateway\'s own address (TOKEN_RATE_LIMIT_PER_ADDRESS). Set the same INTERNAL_API_KEY on the gateway and the auth service.',
    );
  }

  const release = async () => {
    revocations.stop();
    await cache.close();
    await rateLimitStore?.close();
    await peers?.close();
  };
  // Redis is a cache: the service is ready whenever its database answers.
  const server: RunningServer = await serveGrpc({
    host: config.BIND_HOST,
    port: config.AUTH_GRPC_PORT,
    portSetting: 'AUTH_GRPC_PORT',
    services: [{ definition: AuthServiceService, implementation: authRpcHandlers(service, logger, config.INTERNAL_API_KEY, { feed: revocations, store }, keys.published) }],
    logger,
    isReady: () => store.ping().then(() => true),
  }).catch(async (err: unknown) => {
    await release();
    await db.destroy();
    throw err;
  });

  return {
    port: server.port,
    service,
    revocations,
    store,
    db,
    async shutdown(graceMs) {
      revocations.stop();
      await server.shutdown(graceMs);
      await release();
      await db.destroy();
    },
  };
}
