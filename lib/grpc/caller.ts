import type { Metadata } from '@grpc/grpc-js';
import { metadataStrings } from './client.js';

/** The bearer token from `authorization` metadata ("Bearer <token>"), or '' when absent or of another scheme. */
export function bearerToken(metadata: Metadata): string {
  const value = metadataStrings(metadata, 'authorization')[0] ?? '';
  const match = /^Bearer +(\S+)\s*$/i.exec(value);
  return match ? match[1]! : '';
}

export function companyValues(metadata: Metadata): string[] {
  return metadataStrings(metadata, 'company');
}
