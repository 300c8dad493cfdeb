import type { Metadata } from '@grpc/grpc-js';
import { metadataStrings } from './client.js';
import { RpcError } from './errors.js';

const BEARER = /^Bearer +(\S+)\s*$/i;

/** The token of an Authorization value "Bearer <token>", or '' when absent or of another scheme. */
export function bearerTokenOf(authorization: string | undefined): string {
  const match = BEARER.exec(authorization ?? '');
  return match ? match[1]! : '';
}

/** The bearer token from `authorization` metadata, or '' when absent or of another scheme. */
export function bearerToken(metadata: Metadata): string {
  return bearerTokenOf(metadataStrings(metadata, 'authorization')[0]);
}

/** The answer to a call that carries no bearer token at all (RFC 6750 3.1: no error code). */
export function missingTokenError(): RpcError {
  return RpcError.unauthenticated('An access token is required (Authorization: Bearer <token>).', 'missing_token');
}

export function companyValues(metadata: Metadata): string[] {
  return metadataStrings(metadata, 'company');
}

/** The answer to a token whose session was revoked or has ended (the auth service's and every local check's). */
export function sessionEndedError(): RpcError {
  return RpcError.unauthenticated('The access token has been revoked or its session has ended.', 'invalid_token');
}
