import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Knex } from './db.js';

/**
 * One Prometheus registry per process, served on METRICS_PORT (lib/metrics-server.ts); in the
 * one-process stack it shows every part.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests handled by the gateway, by route and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request latency in the gateway, by route and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const rpcHandled = new Counter({
  name: 'grpc_server_handled_total',
  help: 'RPCs completed by a service, by method and gRPC status code.',
  labelNames: ['grpc_service', 'grpc_method', 'grpc_code'] as const,
  registers: [registry],
});

export const rpcDuration = new Histogram({
  name: 'grpc_server_handling_seconds',
  help: 'RPC latency in a service, by method.',
  labelNames: ['grpc_service', 'grpc_method'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const sessionCacheLookups = new Counter({
  name: 'session_cache_lookups_total',
  help: 'Session cache lookups by result: hit, or miss (not cached, or the cache unavailable).',
  labelNames: ['result'] as const,
  registers: [registry],
});

export const edgeAuthChecks = new Counter({
  name: 'edge_auth_checks_total',
  help: 'Caller checks in the ticket service by path: local (a kept Authenticate answer, no round trip) or asked (Authenticate called).',
  labelNames: ['path'] as const,
  registers: [registry],
});

export const revocationStreamUp = new Gauge({
  name: 'revocation_stream_up',
  help: '1 while the ticket service receives the revocation push and is caught up (checks may then be local).',
  registers: [registry],
});

export const webhookAttempts = new Counter({
  name: 'webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome: delivered (a 2xx answer) or failed (any other answer, no answer in time, or no connection).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const webhookDeliveriesGivenUp = new Counter({
  name: 'webhook_deliveries_given_up_total',
  help: 'Webhook deliveries marked failed after the last attempt of WEBHOOK_RETRY_SCHEDULE.',
  registers: [registry],
});

const pools = new Map<string, Knex>();

new Gauge({
  name: 'db_pool_connections',
  help: 'Database pool connections by database and state (used, free, pending acquires).',
  labelNames: ['database', 'state'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [database, db] of pools) {
      const pool = (db.client as { pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number } }).pool;
      if (!pool) continue;
      this.set({ database, state: 'used' }, pool.numUsed());
      this.set({ database, state: 'free' }, pool.numFree());
      this.set({ database, state: 'pending' }, pool.numPendingAcquires());
    }
  },
});

export function observePool(database: string, db: Knex): () => void {
  pools.set(database, db);
  return () => pools.delete(database);
}

const caches = new Map<string, () => boolean>();

new Gauge({
  name: 'session_cache_up',
  help: '1 while the session cache answers (always 1 for the in-process cache).',
  labelNames: ['cache'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [cache, isUp] of caches) this.set({ cache }, isUp() ? 1 : 0);
  },
});

export function observeCache(cache: string, isUp: () => boolean): void {
  caches.set(cache, isUp);
}

export const moveBatchSize = new Histogram({
  name: 'ticket_move_batch_size',
  help: 'Stock moves of one ticket applied in one transaction (services/ticket/stock/ticket-batcher.ts).',
  buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
  registers: [registry],
});
