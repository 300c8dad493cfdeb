import { createHash } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { RpcError } from '../../../lib/grpc/errors.js';
import { IDEMPOTENCY_KEY } from '../../../lib/ids.js';

/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/** A request id (the REST Idempotency-Key) is 1..255 visible ASCII characters; anything else is malformed (400). */
export function checkIdempotencyKey(key: string): void {
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw new RpcError(status.INVALID_ARGUMENT, 'The Idempotency-Key (request_id) must be 1 to 255 visible ASCII characters.');
  }
}

/** Digest of everything that makes two requests "the same request": the method, the caller's companies, the message. */
export function requestHash(parts: Array<string | Uint8Array>): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    hash.update(`${bytes.length}:`).update(bytes);
  }
  return hash.digest('hex');
}

/** The same key with a different request. */
export function keyReused(): RpcError {
  return RpcError.invalidArgument([
    { field: 'request_id', description: 'was already used for a different request; use a new key for a new request' },
  ]);
}
