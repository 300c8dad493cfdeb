import {
  status,
  type handleServerStreamingCall,
  type handleUnaryCall,
  type ServerUnaryCall,
  type ServerWritableStream,
} from '@grpc/grpc-js';
import type { Logger } from '../logger.js';
import { fromServiceError, isServiceError, RpcError, toStatusObject } from './errors.js';

/** Turns any thrown error into a gRPC status; internal details are logged, never sent. */
export function toRpcError(err: unknown, logger: Logger, method: string): RpcError {
  if (err instanceof RpcError) return err;
  if (isServiceError(err)) return fromServiceError(err);
  if (isDependencyDown(err)) {
    logger.warn({ method, err: describe(err) }, 'dependency unavailable');
    return RpcError.unavailable('A storage dependency is unavailable; try again shortly.', 2);
  }
  logger.error({ method, err }, 'unexpected error');
  return new RpcError(status.INTERNAL, 'Internal error.');
}

export function unary<Req, Res>(
  logger: Logger,
  method: string,
  handler: (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>,
): handleUnaryCall<Req, Res> {
  return (call, callback) => {
    handler(call.request, call).then(
      (response) => callback(null, response),
      (err: unknown) => callback(toStatusObject(toRpcError(err, logger, method))),
    );
  };
}

export function serverStream<Req, Res>(
  logger: Logger,
  method: string,
  handler: (request: Req, call: ServerWritableStream<Req, Res>) => Promise<void>,
): handleServerStreamingCall<Req, Res> {
  return (call) => {
    handler(call.request, call).then(
      () => call.end(),
      (err: unknown) => call.destroy(Object.assign(new Error(), toStatusObject(toRpcError(err, logger, method)))),
    );
  };
}

const DOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  'SQLITE_BUSY',
]);

export function isDependencyDown(err: unknown): boolean {
  const e = err as { code?: string; name?: string; message?: string };
  if (e?.code && DOWN_CODES.has(e.code)) return true;
  return e?.name === 'KnexTimeoutError' || /Knex: Timeout acquiring a connection/.test(e?.message ?? '');
}

function describe(err: unknown): string {
  const e = err as { code?: string; name?: string };
  return e?.code ?? e?.name ?? 'error';
}
