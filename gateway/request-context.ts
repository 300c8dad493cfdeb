import type { Metadata } from '@grpc/grpc-js';
import type { Request } from 'express';
import { callerMetadata, callUnary, INTERNAL_KEY_METADATA, type UnaryMethod } from '../lib/grpc/client.js';

/** Every Company header value as received (repeated headers stay separate values). */
export function companyHeaderValues(req: Request): string[] {
  const values: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === 'company') values.push(req.rawHeaders[i + 1]!);
  }
  return values;
}

/** The caller's identity and request id, forwarded as gRPC metadata. */
export function metadataFor(req: Request, internalKey?: string): Metadata {
  const metadata = callerMetadata(req.get('authorization'), companyHeaderValues(req), req.res?.locals.requestId as string | undefined);
  if (req.ip) metadata.set('x-forwarded-for', req.ip);
  if (internalKey) metadata.set(INTERNAL_KEY_METADATA, internalKey);
  return metadata;
}

export type Caller = <Req, Res>(method: UnaryMethod<Req, Res>, request: Req, req: Request) => Promise<Res>;

/** Binds the deadline (and the internal key) once: every gateway-to-service call goes through here. */
export function caller(deadlineMs: number, internalKey?: string): Caller {
  return (method, request, req) => callUnary(method, request, metadataFor(req, internalKey), deadlineMs);
}
