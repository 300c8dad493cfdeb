import { status } from '@grpc/grpc-js';
import { RpcError } from '../../../lib/grpc/errors.js';
import { entityTags, tagsMatch } from '../../../lib/entity-tags.js';

/** A stale etag (If-Match): 412 at the gateway. */
function preconditionFailed(what: string): RpcError {
  return new RpcError(status.FAILED_PRECONDITION, `The ${what} has changed since the given ETag (If-Match) was read.`);
}

/** How often a write is re-checked and re-tried when its row changed between the read and the write. */
const WRITE_ATTEMPTS = 5;

function tooMuchContention(what: string): RpcError {
  return new RpcError(status.ABORTED, `The ${what} kept changing while it was being updated; try again.`);
}

/** A move's row changed between the check and the write (only an order expiring from another ticket's move can do that). */
export function changedMeanwhile(what: string): RpcError {
  return new RpcError(status.ABORTED, `The ${what} changed meanwhile; try again.`);
}

/**
 * The If-Match (the request's etag) of a write against the current state: the version the
 * write must still find (undefined: unconditional), or FAILED_PRECONDITION when stale.
 */
export function conditionalVersion(what: string, ifMatch: string, current: () => { etag: string; version: number }): number | undefined {
  const tags = entityTags(ifMatch);
  if (tags.length === 0) return undefined;
  const { etag, version } = current();
  if (!tagsMatch(tags, etag)) throw preconditionFailed(what);
  return version;
}

/** Runs a read-check-write attempt again while the row changed between its read and its write (the attempt answers undefined). */
export async function retryWrite<R>(what: string, attempt: () => Promise<R | undefined>): Promise<R> {
  for (let i = 0; i < WRITE_ATTEMPTS; i++) {
    const result = await attempt();
    if (result !== undefined) return result;
  }
  throw tooMuchContention(what);
}
