import {
  status,
  type handleServerStreamingCall,
  type handleUnaryCall,
  type ServerUnaryCall,
  type ServerWritableStream,
} from '@grpc/grpc-js';
import type { Metadata } from '@grpc/grpc-js';
import { dependencyFailure } from '../dependency-down.js';
import type { Logger } from '../logger.js';
import { rpcDuration, rpcHandled } from '../metrics.js';
import { metadataStrings } from './client.js';
import { fromServiceError, isServiceError, RpcError, toStatusObject } from './errors.js';

/** Turns any thrown error into a gRPC status; internal details are logged, never sent. */
export function toRpcError(err: unknown, logger: Logger, method: string): RpcError {
  if (err instanceof RpcError) return err;
  if (isServiceError(err)) return fromServiceError(err);
  const failure = dependencyFailure(err);
  if (failure) {
    logger.warn({ method, dependency: failure }, 'dependency unavailable');
    return RpcError.unavailable('A storage dependency is unavailable; try again shortly.', 2);
  }
  logger.error({ method, err }, 'unexpected error');
  return new RpcError(status.INTERNAL, 'Internal error.');
}

/** The service label of a handler's metrics, read once when the handler is made. */
function serviceOf(logger: Logger): string {
  return (logger.bindings().service as string | undefined) ?? 'unknown';
}

/** Counts and times one call, and logs it with the request id that came in the metadata. */
function observe(logger: Logger, service: string, method: string, metadata: Metadata) {
  const stopTimer = rpcDuration.startTimer({ grpc_service: service, grpc_method: method });
  const requestId = metadataStrings(metadata, 'x-request-id')[0];
  const callLogger = requestId ? logger.child({ requestId }) : logger;
  return {
    logger: callLogger,
    done(code: status) {
      const seconds = stopTimer();
      rpcHandled.inc({ grpc_service: service, grpc_method: method, grpc_code: status[code] ?? String(code) });
      callLogger.debug({ method, code: status[code], ms: Math.round(seconds * 1000) }, 'rpc');
    },
  };
}

export function unary<Req, Res>(
  logger: Logger,
  method: string,
  handler: (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>,
): handleUnaryCall<Req, Res> {
  const service = serviceOf(logger);
  return (call, callback) => {
    const observed = observe(logger, service, method, call.metadata);
    handler(call.request, call).then(
      (response) => {
        observed.done(status.OK);
        callback(null, response);
      },
      (err: unknown) => {
        const rpcError = toRpcError(err, observed.logger, method);
        observed.done(rpcError.code);
        callback(toStatusObject(rpcError));
      },
    );
  };
}

export function serverStream<Req, Res>(
  logger: Logger,
  method: string,
  handler: (request: Req, call: ServerWritableStream<Req, Res>) => Promise<void>,
): handleServerStreamingCall<Req, Res> {
  const service = serviceOf(logger);
  return (call) => {
    const observed = observe(logger, service, method, call.metadata);
    handler(call.request, call).then(
      () => {
        observed.done(status.OK);
        call.end();
      },
      (err: unknown) => {
        const rpcError = toRpcError(err, observed.logger, method);
        observed.done(rpcError.code);
        // grpc-js turns an 'error' event into the call's final status (destroy() would drop it).
        call.emit('error', Object.assign(new Error(rpcError.message), toStatusObject(rpcError)));
      },
    );
  };
}
