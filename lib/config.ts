import { z } from 'zod';
import { registerSecret } from './log-scrub.js';

/**
 * Every setting of every process, read from the environment and validated once at start.
 * Each process uses the part it needs; the README and .env.example list them for operators.
 */
const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().min(1);
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const databaseUrl = z
  .string()
  .regex(/^mysql2?:\/\/[^/]+\/[A-Za-z0-9_$-]+(\?.*)?$/, 'must look like mysql://user:pass@host:port/database')
  .optional();
// host:port, or any gRPC target URI (dns:///ticket:50051, ipv4:10.0.0.1:50051,10.0.0.2:50051,
// ipv6:[::1]:50051, unix:/path): the clients balance round-robin over every address it resolves to.
const grpcTarget = z
  .string()
  .regex(/^([^\s:/]+:\d{1,5}|(dns|ipv4|ipv6|unix|unix-abstract):\S+)$/, 'must be host:port or a gRPC target URI (dns:///host:port, ipv4:addr:port,addr:port)');
const emptyAsUnset = (v: unknown) => (v === '' ? undefined : v);

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BIND_HOST: z.string().min(1).default('0.0.0.0'),
  PORT: port.default(8080),
  AUTH_PATH_PREFIX: z.string().regex(/^\/[A-Za-z0-9/_-]*[A-Za-z0-9_-]$/, 'must start with / and not end with /').default('/auth'),
  AUTH_GRPC_PORT: port.default(50052),
  TICKET_GRPC_PORT: port.default(50051),
  AUTH_GRPC_ADDRESS: z.preprocess(emptyAsUnset, grpcTarget.optional()),
  TICKET_GRPC_ADDRESS: z.preprocess(emptyAsUnset, grpcTarget.optional()),
  GRPC_DEADLINE_MS: positiveInt.max(120_000).default(5000),
  // Prometheus GET /metrics of each process, on its own port (never the public one); `off` = none.
  METRICS_PORT: z.preprocess(emptyAsUnset, z.union([z.literal('off'), port], { message: 'must be a port (0 = any free port) or off' }).default(9464)),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  AUTH_DATABASE_URL: z.preprocess(emptyAsUnset, databaseUrl),
  TICKET_DATABASE_URL: z.preprocess(emptyAsUnset, databaseUrl),
  REDIS_URL: z.preprocess(emptyAsUnset, z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional()),
  REDIS_KEY_PREFIX: z.string().default('ticketing:'),
  REDIS_COMMAND_TIMEOUT_MS: positiveInt.max(10_000).default(250),
  AUTH_JWT_SECRET: z.preprocess(emptyAsUnset, z.string().min(32, 'must be at least 32 characters').optional()),
  // Shared by the gateway and the auth service: proves a gRPC call comes from the gateway, so
  // that the client address it forwards (for rate limiting) is believed.
  INTERNAL_API_KEY: z.preprocess(emptyAsUnset, z.string().min(32, 'must be at least 32 characters').optional()),
  AUTH_JWT_ISSUER: z.string().min(1).default('ticketing-auth'),
  AUTH_JWT_AUDIENCE: z.string().min(1).default('ticketing-api'),
  ACCESS_TOKEN_TTL_SECONDS: positiveInt.max(86_400).default(3600),
  REFRESH_TOKEN_TTL_SECONDS: positiveInt.default(30 * 86_400),
  SESSION_CACHE_TTL_SECONDS: positiveInt.max(3600).default(60),
  SIGNUP_ENABLED: bool.default(true),
  DEFAULT_WHITELABEL_NAME: z.string().min(1).max(255).default('Default'),
  TOKEN_RATE_LIMIT_PER_ACCOUNT: positiveInt.default(10),
  TOKEN_RATE_LIMIT_PER_ADDRESS: positiveInt.default(60),
  TOKEN_RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(60),
  BODY_LIMIT_BYTES: positiveInt.default(1024 * 1024),
  // After SIGTERM, how long work in flight may take before connections are cut.
  SHUTDOWN_GRACE_MS: positiveInt.max(300_000).default(10_000),
  TRUST_PROXY: z.string().default('false'),
  // How often expired reservations are persisted by the sweeper; reads and moves expire what is due anyway.
  STOCK_SWEEP_INTERVAL_MS: positiveInt.max(86_400_000).default(10_000),
});

export type Config = z.infer<typeof schema> & {
  authGrpcAddress: string;
  ticketGrpcAddress: string;
};

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** A bad value as it may be shown in an error: secrets never, URLs without their credentials. */
function shown(name: string, value: string | undefined): string {
  if (value === undefined) return 'nothing';
  if (/SECRET|PASSWORD|TOKEN|KEY$/.test(name)) return `a value of ${value.length} characters`;
  if (/_URL$/.test(name)) return JSON.stringify(value.replace(/\/\/.*@/, '//***@'));
  return JSON.stringify(value);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message} (got ${shown(String(issue.path[0]), env[String(issue.path[0])])})`));
  }
  const values = parsed.data;
  if (values.NODE_ENV === 'production' && !values.AUTH_JWT_SECRET) {
    throw new ConfigError(['AUTH_JWT_SECRET: required when NODE_ENV=production (no development key is generated in production)']);
  }
  registerSecret(values.AUTH_JWT_SECRET);
  registerSecret(values.INTERNAL_API_KEY);
  return {
    ...values,
    authGrpcAddress: values.AUTH_GRPC_ADDRESS ?? `127.0.0.1:${values.AUTH_GRPC_PORT}`,
    ticketGrpcAddress: values.TICKET_GRPC_ADDRESS ?? `127.0.0.1:${values.TICKET_GRPC_PORT}`,
  };
}
