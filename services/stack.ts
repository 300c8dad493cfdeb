import { randomBytes } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import type { Config } from '../lib/config.js';
import { loadConfigOrExit } from '../lib/process/entrypoint.js';
import { isMain } from '../lib/process/is-main.js';
import { shutdownOnSignals } from '../lib/process/shutdown.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { startMetrics } from '../lib/metrics-server.js';
import { startGateway } from '../gateway/server.js';
import { startAuthService, type RunningAuthService } from './auth/server.js';
import { startTicketService, type RunningTicketService } from './ticket/server.js';
import { openWorkerDatabase, startWebhookWorker } from './webhooks/worker.js';

export interface RunningStack {
  config: Config;
  gatewayPort: number;
  authPort: number;
  ticketPort: number;
  /** Prometheus GET /metrics of all three parts; undefined with METRICS_PORT=off. */
  metricsPort?: number;
  /** The parts themselves, for tests that look inside (e.g. whether checks are local now). */
  auth: RunningAuthService;
  ticket: RunningTicketService;
  shutdown(graceMs?: number): Promise<void>;
}

/**
 * The whole stack in one process: the auth service, the ticket service and the gateway,
 * each behind its own real gRPC/HTTP server on loopback, so they talk exactly as separate
 * processes would. Ports may be 0 (ephemeral): later parts are pointed at the ports
 * the earlier ones actually got.
 *
 * `options.clock`: where the ticket service reads "now" for expiry and the stock moves' times
 * (lib/clock.ts), the system clock by default. Only in-process callers can pass another (the test
 * stack's TestClock): no environment variable, config key or endpoint moves it, and `npm start`
 * (main below) never passes one.
 */
export async function startStack(
  configured: Config,
  logger: Logger = createLogger('stack', configured.LOG_LEVEL),
  options: { clock?: Clock } = {},
): Promise<RunningStack> {
  // The parts share an internal key even when none is configured: the auth service then believes
  // the client address the gateway forwards from the gateway alone, never from any local caller.
  const config: Config = { ...configured, INTERNAL_API_KEY: configured.INTERNAL_API_KEY ?? randomBytes(32).toString('hex') };
  const auth = await startAuthService(config, logger.child({ service: 'auth' }));
  const withAuth: Config = { ...config, authGrpcAddress: config.AUTH_GRPC_ADDRESS ?? `127.0.0.1:${auth.port}` };
  const ticket = await startTicketService(withAuth, logger.child({ service: 'ticket' }), { clock: options.clock });
  // The webhook delivery worker (its own process in compose), with its own database pool on MySQL (openWorkerDatabase).
  const webhookDb = config.WEBHOOK_WORKER_IN_STACK ? openWorkerDatabase(config, logger.child({ service: 'webhooks' }), ticket.db) : undefined;
  const webhooks = webhookDb && startWebhookWorker(webhookDb, config, logger.child({ service: 'webhooks' }));
  const withBoth: Config = { ...withAuth, ticketGrpcAddress: config.TICKET_GRPC_ADDRESS ?? `127.0.0.1:${ticket.port}` };
  const gateway = await startGateway(withBoth, logger.child({ service: 'gateway' }));
  const metrics = await startMetrics(config, logger);
  return {
    config: withBoth,
    gatewayPort: gateway.port,
    authPort: auth.port,
    ticketPort: ticket.port,
    metricsPort: metrics?.port,
    auth,
    ticket,
    async shutdown(graceMs = 10_000) {
      await Promise.all([gateway.shutdown(graceMs), metrics?.close()]);
      await webhooks?.stop();
      if (webhookDb && webhookDb !== ticket.db) await webhookDb.destroy();
      await ticket.shutdown(graceMs);
      await auth.shutdown(graceMs);
    },
  };
}

async function main(): Promise<void> {
  const config = loadConfigOrExit('stack');
  const logger = createLogger('stack', config.LOG_LEVEL);
  const stack = await startStack(config, logger);
  const host = config.BIND_HOST === '0.0.0.0' ? 'localhost' : config.BIND_HOST;
  const baseUrl = `http://${host}:${stack.gatewayPort}`;
  console.log(
    [
      '',
      `  Docs            ${baseUrl}/docs  (OpenAPI: ${baseUrl}/openapi.json)`,
      `  Ticketing API   ${baseUrl}`,
      `  Auth API        ${baseUrl}${config.AUTH_PATH_PREFIX}  (tokens: ${baseUrl}${config.AUTH_PATH_PREFIX}/tokens)`,
      `  Health          ${baseUrl}/healthz`,
      `  gRPC            ticketing.v1 on ${host}:${stack.ticketPort}, auth.v1 on ${host}:${stack.authPort}`,
      `  Metrics         ${stack.metricsPort === undefined ? 'off' : `http://${config.METRICS_HOST === '0.0.0.0' ? 'localhost' : config.METRICS_HOST}:${stack.metricsPort}/metrics`}`,
      `  Storage         ${config.AUTH_DATABASE_URL || config.TICKET_DATABASE_URL ? 'MySQL' : `SQLite files in ${config.DATA_DIR}`}; session cache: ${config.REDIS_URL ? 'Redis' : 'in-process'}`,
      '',
    ].join('\n'),
  );
  shutdownOnSignals((graceMs) => stack.shutdown(graceMs), { logger, graceMs: config.SHUTDOWN_GRACE_MS });
}

if (isMain(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error('failed to start:', err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
