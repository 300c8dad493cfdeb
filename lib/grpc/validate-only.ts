import type { Metadata } from '@grpc/grpc-js';
import type { UnaryMethod } from './client.js';

/**
 * `x-validate-only: 1` asks a Create/Update method to run every check and write nothing.
 * The gateway uses it when a body already has type errors, so that one 422 can list the
 * value errors the service finds in the rest of the body too.
 */
const KEY = 'x-validate-only';

export function isValidateOnly(metadata: Metadata): boolean {
  return metadata.get(KEY)[0] === '1';
}

/** The same unary method, with the validate-only marker added to the metadata it is called with. */
export function validateOnly<Req, Res>(method: UnaryMethod<Req, Res>): UnaryMethod<Req, Res> {
  return (request, metadata, options, callback) => {
    metadata.set(KEY, '1');
    return method(request, metadata, options, callback);
  };
}
