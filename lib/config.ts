import { z } from 'zod';
import { DEFAULT_CURRENCY, isCurrency } from './money.js';
import { registerSecret } from './log-scrub.js';
import { KeyFormatError, parsePrivateKey, parsePublicKeys } from './tokens/keys.js';

/**
 * Every setting of every process, read from the environment and validated once at start.
 * Each process uses the part it needs; docs/configuration.md and .env.example list them for operators.
 */
/**
 * A whole number from `min` to `max`, refused in our words whatever is wrong with it (text,
 * a fraction, out of range), never the validation library's ("expected number, received NaN").
 */
function wholeNumber(min: number, max?: number) {
  const rule = max === undefined ? `must be a whole number of at least ${min}` : `must be a whole number from ${min} to ${max}`;
  return z.coerce.number({ error: rule }).refine((n) => Number.isInteger(n) && n >= min && n <= (max ?? Number.MAX_SAFE_INTEGER), { error: rule });
}
const port = wholeNumber(0, 65535);
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, { error: `must be one of ${values.join(', ')}` });
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false (or 1/0, yes/no)' })
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
const secret = z.preprocess(emptyAsUnset, z.string().min(32, 'must be at least 32 characters').optional());
/** A key setting checked by its parser (whose message never repeats the key). */
const keyText = (parse: (text: string) => unknown) =>
  z.preprocess(
    emptyAsUnset,
    z
      .string()
      .superRefine((text, ctx) => {
        try {
          parse(text);
        } catch (err) {
          if (!(err instanceof KeyFormatError)) throw err;
          ctx.addIssue({ code: 'custom', message: err.message });
        }
      })
      .optional(),
  );
// A rate limit: requests per window, or `off` (or 0) for none.
const rateLimit = (fallback: number) =>
  z.preprocess(
    emptyAsUnset,
    z
      .union([z.literal('off'), z.coerce.number().int().min(0)], { message: 'must be a whole number of requests (0 or off = no limit)' })
      .default(fallback)
      .transform((v) => (v === 'off' || v === 0 ? undefined : v)),
  );

const schema = z.object({
  NODE_ENV: oneOf(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BIND_HOST: z.string().min(1).default('0.0.0.0'),
  PORT: port.default(8080),
  AUTH_PATH_PREFIX: z.string().regex(/^\/[A-Za-z0-9/_-]*[A-Za-z0-9_-]$/, 'must start with / and not end with /').default('/auth'),
  AUTH_GRPC_PORT: port.default(50052),
  TICKET_GRPC_PORT: port.default(50051),
  AUTH_GRPC_ADDRESS: z.preprocess(emptyAsUnset, grpcTarget.optional()),
  TICKET_GRPC_ADDRESS: z.preprocess(emptyAsUnset, grpcTarget.optional()),
  GRPC_DEADLINE_MS: wholeNumber(1, 120_000).default(5000),
  // Prometheus GET /metrics of each process, on its own port (never the public one); `off` = none.
  METRICS_PORT: z.preprocess(emptyAsUnset, z.union([z.literal('off'), port], { message: 'must be a port (0 = any free port) or off' }).default(9464)),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  AUTH_DATABASE_URL: z.preprocess(emptyAsUnset, databaseUrl),
  TICKET_DATABASE_URL: z.preprocess(emptyAsUnset, databaseUrl),
  // The webhook worker's own user on the ticket schema, with only the outbox tables' rights it
  // uses (services/webhooks/delivery-store.ts WORKER_TABLE_RIGHTS); unset: TICKET_DATABASE_URL.
  WEBHOOK_DATABASE_URL: z.preprocess(emptyAsUnset, databaseUrl),
  // The migration run's alone (compose's migrate, the Kubernetes Job): an administrator that creates
  // each service's schema and its own user from the URLs above (services/database-users.ts).
  DATABASE_ADMIN_URL: z.preprocess(emptyAsUnset, databaseUrl),
  REDIS_URL: z.preprocess(emptyAsUnset, z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional()),
  REDIS_KEY_PREFIX: z.string().default('ticketing:'),
  REDIS_COMMAND_TIMEOUT_MS: wholeNumber(1, 10_000).default(250),
  // The auth service's alone (docs/auth.md, "Signing keys and rotation"): the EC P-256 private key
  // that signs access tokens (ES256), and the public keys whose tokens are still accepted.
  AUTH_SIGNING_KEY: keyText(parsePrivateKey),
  AUTH_ACCEPTED_KEYS: keyText(parsePublicKeys),
  // The auth service's alone: keys the token endpoint's rate-limit counters (no e-mail or address readable in Redis).
  AUTH_RATE_LIMIT_SECRET: secret,
  // Before signing keys: the HS256 secret. Read only by the auth service, as AUTH_RATE_LIMIT_SECRET when that is unset.
  AUTH_JWT_SECRET: secret,
  // Shared by the gateway and the auth service: proves a gRPC call comes from the gateway, so
  // that the client address it forwards (for rate limiting) is believed.
  INTERNAL_API_KEY: secret,
  AUTH_JWT_ISSUER: z.string().min(1).default('ticketing-auth'),
  AUTH_JWT_AUDIENCE: z.string().min(1).default('ticketing-api'),
  ACCESS_TOKEN_TTL_SECONDS: wholeNumber(1, 86_400).default(3600),
  REFRESH_TOKEN_TTL_SECONDS: wholeNumber(1).default(30 * 86_400),
  SESSION_CACHE_TTL_SECONDS: wholeNumber(1, 3600).default(60),
  // How often each auth replica reads the revocations table (the push to the services follows at once).
  REVOCATION_POLL_INTERVAL_MS: wholeNumber(5, 1000).default(25),
  // The ticket service keeps Authenticate answers while the revocation push is live; false asks on every call.
  EDGE_AUTH: bool.default(true),
  SIGNUP_ENABLED: bool.default(true),
  DEFAULT_WHITELABEL_NAME: z.string().min(1).max(255).default('Default'),
  TOKEN_RATE_LIMIT_PER_ACCOUNT: wholeNumber(1).default(10),
  TOKEN_RATE_LIMIT_PER_ACCOUNT_TOTAL: wholeNumber(1).default(30),
  TOKEN_RATE_LIMIT_PER_ADDRESS: wholeNumber(1).default(60),
  TOKEN_RATE_LIMIT_WINDOW_SECONDS: wholeNumber(1).default(60),
  // The whole public REST API, at the gateway (docs/rate-limits.md); undefined = that limit is off.
  RATE_LIMIT_PER_TOKEN: rateLimit(1200),
  RATE_LIMIT_PER_ADDRESS: rateLimit(2400),
  RATE_LIMIT_WINDOW_SECONDS: z.preprocess(emptyAsUnset, wholeNumber(1, 86_400).default(60)),
  // The per-address limits (API and token endpoint) count an IPv6 client by this prefix (one client holds a /64), IPv4 by its address.
  RATE_LIMIT_IPV6_PREFIX_LENGTH: z.preprocess(emptyAsUnset, wholeNumber(1, 128).default(64)),
  BODY_LIMIT_BYTES: wholeNumber(1).default(1024 * 1024),
  // After SIGTERM, how long work in flight may take before connections are cut.
  SHUTDOWN_GRACE_MS: wholeNumber(1, 300_000).default(10_000),
  TRUST_PROXY: z.string().default('false'),
  // How often expired reservations are persisted by the sweeper; reads and moves expire what is due anyway.
  STOCK_SWEEP_INTERVAL_MS: wholeNumber(1, 86_400_000).default(10_000),
  // While the gateway's event loop runs this many ms late, a new reservation or order is refused at once (docs/scaling.md "Shedding load"); 0: never.
  SHED_NEW_SALES_LAG_MS: wholeNumber(0, 60_000).default(200),
  // Moves of one ticket that may wait in one ticket service (docs/stock-moves.md "Past the cliff"); past it a new reservation is refused at once.
  STOCK_MOVE_QUEUE_MAX: wholeNumber(1, 1_000_000).default(2000),
  // The currency of an event created without one (docs/orders.md "Money"): ISO 4217 with 0 or 2 minor digits.
  DEFAULT_CURRENCY: z
    .string()
    .refine(isCurrency, { error: 'must be an ISO 4217 code of a currency with 0 or 2 minor digits, such as EUR, USD, GBP or JPY' })
    .default(DEFAULT_CURRENCY),
  // Webhooks (docs/webhooks.md): delays between attempts, after the first (a comma list of 500ms, 5s, 2m, 1h, ...).
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\s*\d+(ms|s|m|h)\s*(,\s*\d+(ms|s|m|h)\s*)*$/, 'must be a comma list of delays such as 5s,30s,2m,1h')
    .default('5s,30s,2m,10m,30m,1h,3h,6h,12h,24h')
    .transform(parseDelays),
  // Receivers on loopback, private, link-local or metadata addresses (a network of your own, tests).
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool.default(false),
  // How often a delivery worker looks for new events and due retries.
  WEBHOOK_POLL_INTERVAL_MS: wholeNumber(1, 60_000).default(250),
  // How long one attempt may take: the DNS lookup, the connection and the answer together.
  WEBHOOK_TIMEOUT_MS: wholeNumber(1, 60_000).default(10_000),
  // Sends in flight at once to one endpoint, per worker (docs/webhooks.md "Throughput and order"); 1: one at a time, in order.
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: wholeNumber(1, 256).default(32),
  // Sends in flight at once to one host:port, per worker, beyond each endpoint's first (docs/webhooks.md "Isolation").
  WEBHOOK_CONCURRENCY_PER_HOST: wholeNumber(1, 4096).default(64),
  // Whether `npm start` (services/stack.ts) runs a delivery worker itself; compose runs its own `webhooks` service.
  WEBHOOK_WORKER_IN_STACK: bool.default(true),
});

/** "5s,2m" -> [5000, 120000]. */
function parseDelays(text: string): number[] {
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  return text.split(',').map((part) => {
    const [, amount, suffix] = /^(\d+)(ms|s|m|h)$/.exec(part.trim())!;
    return Number(amount) * unit[suffix as keyof typeof unit];
  });
}

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

/** A URL with whatever stands between `//` and its last `@` hidden. */
function withoutCredentials(url: string): string {
  const start = url.indexOf('//');
  const at = url.lastIndexOf('@');
  return start >= 0 && at > start ? `${url.slice(0, start)}//***${url.slice(at)}` : url;
}

/** A bad value as it may be shown in an error: secrets never, URLs without their credentials. */
function shown(name: string, value: string | undefined): string {
  if (value === undefined) return 'nothing';
  // A limit or a lifetime of tokens is not a secret (TOKEN_RATE_LIMIT_PER_ACCOUNT, RATE_LIMIT_PER_TOKEN).
  if (/SECRET|PASSWORD|TOKEN|KEYS?$/.test(name) && !/RATE_LIMIT|_TTL_/.test(name)) return `a value of ${value.length} characters`;
  if (/_URL$/.test(name)) return JSON.stringify(withoutCredentials(value));
  return JSON.stringify(value);
}

function problemsOf(error: z.ZodError, env: NodeJS.ProcessEnv): string[] {
  return error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message} (got ${shown(String(issue.path[0]), env[String(issue.path[0])])})`);
}

/** The processes of the image; each is asked only for the settings it uses. */
export type ProcessName = 'auth' | 'ticket' | 'gateway' | 'webhooks' | 'migrate' | 'healthcheck' | 'stack' | 'cli';

type SecretName = 'AUTH_SIGNING_KEY' | 'AUTH_RATE_LIMIT_SECRET' | 'AUTH_JWT_SECRET';
/**
 * What a process must be given in production, where nothing is generated: each entry is a
 * setting, or a list of settings any one of which will do (the first is the one to set). Only
 * the auth service (and `npm start`, which runs it) signs tokens or counts token requests; the
 * admin CLI asks for the signing key when a command needs the auth service.
 */
const AUTH_SECRETS: SecretName[][] = [['AUTH_SIGNING_KEY'], ['AUTH_RATE_LIMIT_SECRET', 'AUTH_JWT_SECRET']];
const REQUIRED_IN_PRODUCTION: Record<ProcessName, SecretName[][]> = {
  auth: AUTH_SECRETS,
  stack: AUTH_SECRETS,
  ticket: [],
  gateway: [],
  webhooks: [],
  migrate: [],
  healthcheck: [],
  cli: [],
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env, processName?: ProcessName): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(problemsOf(parsed.error, env));
  }
  const values = parsed.data;
  if (values.NODE_ENV === 'production' && processName) {
    const missing = REQUIRED_IN_PRODUCTION[processName].filter((names) => names.every((name) => !values[name]));
    if (missing.length > 0) {
      throw new ConfigError(missing.map((names) => `${names[0]}: required by the ${processName} process when NODE_ENV=production (nothing is generated in production)`));
    }
  }
  for (const name of ['AUTH_SIGNING_KEY', 'AUTH_RATE_LIMIT_SECRET', 'AUTH_JWT_SECRET', 'INTERNAL_API_KEY'] as const) registerSecret(values[name]);
  return {
    ...values,
    authGrpcAddress: values.AUTH_GRPC_ADDRESS ?? `127.0.0.1:${values.AUTH_GRPC_PORT}`,
    ticketGrpcAddress: values.TICKET_GRPC_ADDRESS ?? `127.0.0.1:${values.TICKET_GRPC_PORT}`,
  };
}
