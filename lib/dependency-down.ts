import { status } from '@grpc/grpc-js';
import * as redis from 'redis';

/**
 * The one place that decides whether an error means "a dependency cannot take the work right
 * now" (connection refused, lost mid-query, pool exhausted, server shutting down, database
 * busy, another service unreachable or too slow) rather than a bug. Services answer those
 * UNAVAILABLE with a retry delay, the gateway 503 + Retry-After; anything else stays an
 * internal error. Only codes and driver flags are read, never SQL: knex prefixes its messages
 * with the query and its bindings.
 */

/** Socket-level failures of any client (node:net errno codes). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** mysql2: the connection is gone (mysql2 also sets `fatal` on each of these). */
const MYSQL_PROTOCOL_CODES = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
]);

/** MySQL/MariaDB server errors that say "not now": full, shutting down, failing over, contended. */
const MYSQL_SERVER_CODES = new Set([
  'ER_CON_COUNT_ERROR', // Too many connections
  'ER_ACCESS_DENIED_ERROR', // the server refuses our credentials at connect (health says NOT_SERVING too)
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_HOST_IS_BLOCKED',
  'ER_SERVER_SHUTDOWN',
  'ER_QUERY_INTERRUPTED', // killed, e.g. by a shutdown
  'ER_CLIENT_INTERACTION_TIMEOUT', // an idle pooled connection the server dropped
  'ER_NET_READ_ERROR',
  'ER_NET_READ_INTERRUPTED',
  'ER_NET_ERROR_ON_WRITE',
  'ER_NET_WRITE_INTERRUPTED',
  'ER_OPTION_PREVENTS_STATEMENT', // --read-only, during a failover
  'ER_READ_ONLY_MODE',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_LOCK_DEADLOCK',
]);

/** Server and client error numbers mysql2 has no name for: MariaDB's connection killed, the C client's "server has gone away" / "lost connection" relayed by proxies. */
const MYSQL_ERRNOS = new Set([1927, 2006, 2013]);

/** SQLite (better-sqlite3) result codes, extended codes included: busy, locked, I/O, disk full, file gone or read-only. */
const SQLITE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY)(_|$)/;

/** node-redis: the connection is closed, offline, reconnecting or timed out. */
const REDIS_ERRORS = [
  redis.ClientClosedError,
  redis.ClientOfflineError,
  redis.ConnectionTimeoutError,
  redis.DisconnectsClientError,
  redis.ReconnectStrategyError,
  redis.SocketClosedUnexpectedlyError,
  redis.SocketTimeoutError,
  redis.TimeoutError,
];

/**
 * grpc-js makes these INTERNAL statuses itself when the transport breaks mid-call (the peer
 * died, or the connection was reset while writing); no server handler sends them.
 */
const GRPC_TRANSPORT_BROKEN = /^Received RST_STREAM with code \d+ (\(Call ended without gRPC status\)|triggered by internal client error)/;

/** Knex/tarn messages that carry no code: the pool is closed, or a pending acquire was cancelled by it. */
const POOL_CLOSED = /^(Unable to acquire a connection|aborted)$/;

interface DriverError {
  code?: unknown;
  details?: unknown;
  errno?: unknown;
  fatal?: unknown;
  sqlState?: unknown;
  name?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/**
 * A short label (for logs) of why the dependency is unavailable, or undefined when the error
 * is not a dependency failure. Looks through `cause` and AggregateError's `errors`.
 */
export function dependencyFailure(err: unknown, depth = 0): string | undefined {
  if (typeof err !== 'object' || err === null || depth > 4) return undefined;
  const e = err as DriverError;
  if (typeof e.code === 'number' && 'metadata' in e) return grpcFailure(e.code, typeof e.details === 'string' ? e.details : '');
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code && (NETWORK_CODES.has(code) || MYSQL_PROTOCOL_CODES.has(code) || MYSQL_SERVER_CODES.has(code) || SQLITE_CODES.test(code))) return code;
  if (typeof e.errno === 'number' && MYSQL_ERRNOS.has(e.errno) && typeof e.sqlState === 'string') return `mysql errno ${e.errno}`;
  // SQLSTATE class 08: connection exception (e.g. 08S01 communication link failure, 08004 rejected).
  if (typeof e.sqlState === 'string' && e.sqlState.startsWith('08')) return `sqlstate ${e.sqlState}`;
  // mysql2 marks every error after which the connection is unusable as fatal, including
  // "Can't add new command when connection is in closed state", which has no code.
  if (e.fatal === true) return code ?? 'mysql connection closed';
  if (e.name === 'KnexTimeoutError') return 'knex timeout';
  const message = typeof e.message === 'string' ? e.message : '';
  if (POOL_CLOSED.test(message)) return 'pool closed';
  // better-sqlite3 after the database was closed (a call that outlived shutdown).
  if (e.name === 'TypeError' && message === 'The database connection is not open') return 'sqlite closed';
  const redis = REDIS_ERRORS.find((type) => err instanceof type);
  if (redis) return `redis ${redis.name}`;
  const inner = [e.cause, ...(Array.isArray(e.errors) ? e.errors : [])];
  for (const cause of inner) {
    const label = dependencyFailure(cause, depth + 1);
    if (label) return label;
  }
  return undefined;
}

/** A gRPC dependency (a grpc-js client's error): unreachable, past its deadline, or the transport broke. */
function grpcFailure(code: number, details: string): string | undefined {
  if (code === status.UNAVAILABLE || code === status.DEADLINE_EXCEEDED) return `grpc ${status[code]}`;
  if (code === status.INTERNAL && GRPC_TRANSPORT_BROKEN.test(details)) return 'grpc transport broken';
  return undefined;
}

export function isDependencyDown(err: unknown): boolean {
  return dependencyFailure(err) !== undefined;
}
