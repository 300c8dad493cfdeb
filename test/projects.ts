/**
 * Which test files run where (docs/testing.md, "What runs where"). Plain data: vitest.config.ts
 * and .ci/node24 read it. Every test file is in exactly one of the three lists below, which
 * test/projects.test.ts holds: a new file fails it until it is placed, so none skips MySQL unseen.
 * All three run in the embedded project; only BOTH_BACKENDS_FILES run again in the mysql one.
 */

/**
 * Files whose subject is stored state or a shared service: SQL (queries, transactions, locks,
 * migrations, what a column keeps), Redis (limits, caches, the revocation feed), or the process
 * topology (replicas, restarts, workers as their own processes, dependencies going down). They
 * run on the embedded backend and again on MySQL + Redis: what differs between the two is what
 * they test.
 */
export const BOTH_BACKENDS_FILES = [
  'test/auth/api-client-scope.test.ts',
  'test/auth/api-clients.test.ts',
  'test/auth/company-header.test.ts',
  'test/auth/edge-revocation.test.ts',
  'test/auth/session-cache-forgery.test.ts',
  'test/auth/session-cache.test.ts',
  'test/auth/signing-keys.test.ts',
  'test/auth/signup-and-me.test.ts',
  'test/auth/token-limit-ipv6.test.ts',
  'test/auth/token-request-checks.test.ts',
  'test/auth/token-spelling.test.ts',
  'test/auth/tokens.test.ts',
  'test/auth/zero-companies.test.ts',
  'test/coupons/catalogue.test.ts',
  'test/coupons/use.test.ts',
  'test/fields/field-table.test.ts',
  'test/fields/row-messages.test.ts',
  'test/fuzz/rest-api.test.ts',
  'test/fuzz/stock-and-webhooks.test.ts',
  'test/gateway/rate-limits-shared.test.ts',
  'test/gateway/rate-limits.test.ts',
  'test/gateway/readme-walk.test.ts',
  'test/ops/cli.test.ts',
  'test/ops/database-cuts.test.ts',
  'test/ops/database-users.test.ts',
  'test/ops/dependency-down.test.ts',
  'test/ops/grpc-health.test.ts',
  'test/ops/grpc-targets.test.ts',
  'test/ops/health.test.ts',
  'test/ops/npm-start.test.ts',
  'test/ops/replicas.test.ts',
  'test/ops/rolling-upgrade.test.ts',
  'test/ops/topology.test.ts',
  'test/ops/webhook-database-user.test.ts',
  'test/orders/all-or-nothing.test.ts',
  'test/orders/big-pages.test.ts',
  'test/orders/cancel-races.test.ts',
  'test/orders/cancellation.test.ts',
  'test/orders/concurrency.test.ts',
  'test/orders/holders.test.ts',
  'test/orders/money.test.ts',
  'test/orders/moves.test.ts',
  'test/orders/rest.test.ts',
  'test/orders/scan.test.ts',
  'test/orders/webhooks.test.ts',
  'test/stock/barcode-bytes.test.ts',
  'test/stock/batched-moves.test.ts',
  'test/stock/expiry-restart.test.ts',
  'test/stock/grpc-moves.test.ts',
  'test/stock/legacy-reservation.test.ts',
  'test/stock/limits.test.ts',
  'test/stock/one-engine.test.ts',
  'test/stock/queue-tenancy.test.ts',
  'test/stock/rest-moves.test.ts',
  'test/stock/rest-rush.test.ts',
  'test/stock/retry-moves.test.ts',
  'test/stock/rush-cliff.test.ts',
  'test/store/migrations.test.ts',
  'test/store/updated-at.test.ts',
  'test/tickets/big-lists.test.ts',
  'test/tickets/concurrency.test.ts',
  'test/tickets/conditional-reads.test.ts',
  'test/tickets/creation.test.ts',
  'test/tickets/dates.test.ts',
  'test/tickets/deprecated-list.test.ts',
  'test/tickets/etag-idempotency.test.ts',
  'test/tickets/events-and-deletion.test.ts',
  'test/tickets/grpc.test.ts',
  'test/tickets/lists.test.ts',
  'test/tickets/reads.test.ts',
  'test/tickets/tenancy.test.ts',
  'test/tickets/update.test.ts',
  'test/tickets/validation.test.ts',
  'test/webhooks/claim.test.ts',
  'test/webhooks/crash.test.ts',
  'test/webhooks/delivery.test.ts',
  'test/webhooks/event-time.test.ts',
  'test/webhooks/failure-log.test.ts',
  'test/webhooks/isolation.test.ts',
  'test/webhooks/lease-renewal.test.ts',
  'test/webhooks/management.test.ts',
  'test/webhooks/rush.test.ts',
  'test/webhooks/safety.test.ts',
  'test/webhooks/service-crash.test.ts',
  'test/webhooks/throughput.test.ts',
];

/**
 * Files that start a stack, but whose subject is the surface in front of the store: parsing a
 * request, headers, validation that answers before anything is read or written, error texts,
 * the documents (OpenAPI, the gRPC contract and reflection), logs and metrics of a request. The
 * same on either backend, they run once, in the embedded project.
 */
export const SURFACE_FILES = [
  'test/auth/edge-shared-ask.test.ts',
  'test/auth/forwarded-address.test.ts',
  'test/auth/grpc-contract.test.ts',
  'test/auth/token-tampering.test.ts',
  'test/fields/grpc-contract.test.ts',
  'test/fuzz/hostile-text.test.ts',
  'test/gateway/api-index.test.ts',
  'test/gateway/availability.test.ts',
  'test/gateway/body-limit.test.ts',
  'test/gateway/hostile-headers.test.ts',
  'test/gateway/json-as-form.test.ts',
  'test/gateway/load-shedding.test.ts',
  'test/gateway/log-redaction.test.ts',
  'test/gateway/newcomer-errors.test.ts',
  'test/gateway/observability.test.ts',
  'test/gateway/openapi-contract.test.ts',
  'test/gateway/openapi.test.ts',
  'test/gateway/readable-logs.test.ts',
  'test/gateway/shedding-own-work.test.ts',
  'test/gateway/violation-cap.test.ts',
  'test/ops/grpc-reflection.test.ts',
  'test/orders/default-currency.test.ts',
  'test/orders/list-limits.test.ts',
  'test/stock/openapi-stock.test.ts',
  'test/tickets/errors.test.ts',
  'test/webhooks/url-form.test.ts',
];

/**
 * Files that never reach a backend of the run: they test functions, documents or processes with
 * stand-ins of their own (a private redis-server, HAProxy, fake gateways), the same whatever
 * TEST_BACKEND is. They run in the embedded project only.
 */
export const BACKEND_NEUTRAL_FILES = [
  'test/auth/address-group.test.ts',
  'test/auth/public-key-cache.test.ts',
  'test/auth/revocation-peers.test.ts',
  'test/config.test.ts',
  'test/docs-stand-alone.test.ts',
  'test/docs.test.ts',
  'test/fields/linear-patterns.test.ts',
  'test/fields/sign-up-table.test.ts',
  'test/gateway/docs-page.test.ts',
  'test/gateway/generated-types.test.ts',
  'test/gateway/grpc-error-text.test.ts',
  'test/gateway/rate-limits-ipv6.test.ts',
  'test/license.test.ts',
  'test/money/computation.test.ts',
  'test/ops/compose.test.ts',
  'test/ops/dns-refresh.test.ts',
  'test/ops/grpc-dependency.test.ts',
  'test/ops/grpc-replica-shutdown.test.ts',
  'test/ops/kubernetes.test.ts',
  'test/ops/load-balancer.test.ts',
  'test/ops/shutdown.test.ts',
  'test/projects.test.ts',
  'test/stock/engine.test.ts',
  'test/stock/fields.test.ts',
  'test/structure/import-cycles.test.ts',
  'test/time.test.ts',
  'test/webhooks/endpoint-lanes.test.ts',
  'test/webhooks/sender.test.ts',
  'test/webhooks/targets.test.ts',
];

/**
 * What can behave differently on another Node.js major, run again on Node.js 24 by .ci/node24
 * (the rest is plain JavaScript over the same dependencies, run on the machine's Node):
 */
export const NODE_VERSION_FILES = [
  // better-sqlite3, a native addon built for each Node ABI: the embedded store and its migrations,
  'test/store/migrations.test.ts',
  'test/store/updated-at.test.ts',
  // the stock engine's transactions on it (a rush, batched moves, expiry across a restart),
  'test/stock/grpc-moves.test.ts',
  'test/stock/batched-moves.test.ts',
  'test/stock/expiry-restart.test.ts',
  'test/stock/one-engine.test.ts',
  // node:crypto over the OpenSSL each Node build carries: signing keys, tokens, JWKS,
  'test/auth/signing-keys.test.ts',
  // node:http, node:net and node:dns under the webhook sender and its target checks,
  'test/webhooks/sender.test.ts',
  'test/webhooks/targets.test.ts',
  // the whole stack through its real entrypoint (npm start: the tsx loader, signals, child processes),
  'test/ops/npm-start.test.ts',
  // and the admin CLI, as a user runs it.
  'test/ops/cli.test.ts',
];
