import { status } from '@grpc/grpc-js';
import { RpcError } from '../../lib/grpc/errors.js';

/** A stale etag (If-Match): 412 at the gateway. */
export function preconditionFailed(what: string): RpcError {
  return new RpcError(status.FAILED_PRECONDITION, `The ${what} has changed since the given ETag (If-Match) was read.`);
}

/** How often a write is re-checked and re-tried when its row changed between the read and the write. */
export const WRITE_ATTEMPTS = 5;

export function tooMuchContention(what: string): RpcError {
  return new RpcError(status.ABORTED, `The ${what} kept changing while it was being updated; try again.`);
}
