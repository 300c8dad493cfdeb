import path from 'node:path';
import { systemClock, type Clock } from '../../lib/clock.js';
import type { Config } from '../../lib/config.js';
import { createDatabase, migrationSource, type Knex } from '../../lib/db.js';
import { CouponServiceService } from '../../lib/gen/ticketing/v1/coupon.js';
import { EventServiceService } from '../../lib/gen/ticketing/v1/event.js';
import { OrderServiceService } from '../../lib/gen/ticketing/v1/order.js';
import { ReservationServiceService } from '../../lib/gen/ticketing/v1/reservation.js';
import { TicketServiceService } from '../../lib/gen/ticketing/v1/ticket.js';
import { WebhookServiceService } from '../../lib/gen/ticketing/v1/webhook.js';
import { serveGrpc } from '../../lib/grpc/serve.js';
import type { Logger } from '../../lib/logger.js';
import { observePool } from '../../lib/metrics.js';
import { AuthCheck } from './access/auth-check.js';
import { startExpirySweeper } from './stock/expiry-sweeper.js';
import { couponRpcHandlers, eventRpcHandlers, orderRpcHandlers, reservationRpcHandlers, ticketRpcHandlers, ticketServices, webhookRpcHandlers } from './rpc.js';
import { ticketMigrations } from './store/migrations/migrations.js';
import { ReservationStore } from './store/reservation-store.js';
import type { StockEngine } from './stock/stock-engine.js';
import { migrateAndReport } from '../../lib/migrate-latest.js';

export interface RunningTicketService {
  port: number;
  db: Knex;
  /** How callers are checked (its revocation watch tells whether checks are local now). */
  auth: AuthCheck;
  /** The stock engine (its test seam: beforeCommit). */
  engine: StockEngine;
  shutdown(graceMs?: number): Promise<void>;
}

export function openTicketDatabase(config: Config, logger?: Pick<Logger, 'debug' | 'warn'>, poolMax?: number): Knex {
  return createDatabase({
    logger,
    poolMax,
    url: config.TICKET_DATABASE_URL,
    sqliteFile: path.join(config.DATA_DIR, 'ticket.sqlite'),
    migrations: { migrationSource: migrationSource(ticketMigrations), tableName: 'knex_migrations' },
  });
}

/** `clock`: where expiry and the stock moves read "now" (lib/clock.ts); only in-process code (the test stack) passes another than the system clock. */
export async function startTicketService(config: Config, logger: Logger, options: { clock?: Clock } = {}): Promise<RunningTicketService> {
  const clock = options.clock ?? systemClock;
  const db = openTicketDatabase(config, logger);
  await migrateAndReport(db, 'ticket', logger);
  observePool('ticket', db);
  const auth = new AuthCheck(config.authGrpcAddress, {
    deadlineMs: Math.min(config.GRPC_DEADLINE_MS, 3000),
    local: config.EDGE_AUTH,
    keepSeconds: config.SESSION_CACHE_TTL_SECONDS,
    tokens: { issuer: config.AUTH_JWT_ISSUER, audience: config.AUTH_JWT_AUDIENCE },
    logger,
  });

  const services = ticketServices(db, {
    allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    moveQueueMax: config.STOCK_MOVE_QUEUE_MAX,
    defaultCurrency: config.DEFAULT_CURRENCY,
    clock,
  });
  const server = await serveGrpc({
    host: config.BIND_HOST,
    port: config.TICKET_GRPC_PORT,
    portSetting: 'TICKET_GRPC_PORT',
    services: [
      { definition: TicketServiceService, implementation: ticketRpcHandlers(services, auth, logger) },
      { definition: EventServiceService, implementation: eventRpcHandlers(services, auth, logger) },
      { definition: ReservationServiceService, implementation: reservationRpcHandlers(services, auth, logger) },
      { definition: OrderServiceService, implementation: orderRpcHandlers(services, auth, logger) },
      { definition: WebhookServiceService, implementation: webhookRpcHandlers(services, auth, logger) },
      { definition: CouponServiceService, implementation: couponRpcHandlers(services, auth, logger) },
    ],
    logger,
    isReady: () => db.raw('select 1').then(() => true),
  });
  const sweeper = startExpirySweeper(new ReservationStore(db), services.engine, config.STOCK_SWEEP_INTERVAL_MS, logger, clock);

  return {
    port: server.port,
    db,
    auth,
    engine: services.engine,
    async shutdown(graceMs) {
      sweeper.stop();
      await server.shutdown(graceMs);
      auth.close();
      await db.destroy();
    },
  };
}
