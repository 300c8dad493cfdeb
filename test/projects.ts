/**
 * Which test files run where, beyond "every file on every backend" (docs/testing.md, "Running
 * the tests"). Plain data: vitest.config.ts and .ci/node24 read it.
 */

/**
 * Files that never reach a backend of the run: they test functions, documents or processes with
 * stand-ins of their own (a private redis-server, HAProxy, fake gateways), the same whatever
 * TEST_BACKEND is. They run in the embedded project only, which always runs; the mysql project
 * would run them again unchanged.
 */
export const BACKEND_NEUTRAL_FILES = [
  'test/auth/address-group.test.ts',
  'test/auth/public-key-cache.test.ts',
  'test/auth/revocation-peers.test.ts',
  'test/config.test.ts',
  'test/docs.test.ts',
  'test/fields/sign-up-table.test.ts',
  'test/gateway/docs-page.test.ts',
  'test/gateway/generated-types.test.ts',
  'test/gateway/grpc-error-text.test.ts',
  'test/gateway/rate-limits-ipv6.test.ts',
  'test/license.test.ts',
  'test/ops/compose.test.ts',
  'test/ops/dns-refresh.test.ts',
  'test/ops/grpc-dependency.test.ts',
  'test/ops/grpc-replica-shutdown.test.ts',
  'test/ops/kubernetes.test.ts',
  'test/ops/load-balancer.test.ts',
  'test/ops/shutdown.test.ts',
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
