import type { Metadata } from '@grpc/grpc-js';
import type { Request } from 'express';
import { isIP } from 'node:net';
import { callerMetadata, callUnary, INTERNAL_KEY_METADATA, isMetadataText, type UnaryMethod } from '../lib/grpc/client.js';
import { registerSecret } from '../lib/logger.js';
import type { Problem } from './problem.js';

/**
 * The most header bytes (Authorization plus every Company value) forwarded to a service.
 * Far above any real token and company list, and well inside what an HTTP/2 peer accepts,
 * so an oversized request is answered here in our words instead of being reset in transit.
 */
export const MAX_FORWARDED_HEADER_BYTES = 8 * 1024;

/** Every Company header value as received (repeated headers stay separate values). */
export function companyHeaderValues(req: Request): string[] {
  const values: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === 'company') values.push(req.rawHeaders[i + 1]!);
  }
  return values;
}

/** A request whose headers cannot become gRPC metadata: the client's error, answered with `problem`. */
export class UnforwardableRequest extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
    this.name = 'UnforwardableRequest';
  }
}

const NOT_TEXT = 'may hold only visible ASCII characters and spaces';

/**
 * Why the caller's headers cannot be forwarded as metadata, or undefined when they can.
 * Every header the gateway forwards is checked here, so no client byte can make the
 * metadata constructor throw (a 500) further on.
 */
export function forwardingProblem(req: Request): Problem | undefined {
  const authorization = req.get('authorization') ?? '';
  const companies = companyHeaderValues(req);
  if (!isMetadataText(authorization)) {
    return { status: 401, authError: 'invalid_token', detail: `The Authorization header ${NOT_TEXT}.` };
  }
  if (!companies.every(isMetadataText)) return { status: 400, detail: `The Company header ${NOT_TEXT}.` };
  const bytes = authorization.length + companies.reduce((sum, value) => sum + value.length + 1, 0);
  if (bytes > MAX_FORWARDED_HEADER_BYTES) {
    return { status: 431, detail: `The Authorization and Company headers together may be at most ${MAX_FORWARDED_HEADER_BYTES} bytes.` };
  }
  return undefined;
}

/** The caller's identity and request id, forwarded as gRPC metadata. Throws UnforwardableRequest. */
export function metadataFor(req: Request, internalKey?: string): Metadata {
  const problem = forwardingProblem(req);
  if (problem) throw new UnforwardableRequest(problem);
  // The request id was checked (or made) on the way in; only a real address is passed on.
  const metadata = callerMetadata(req.get('authorization'), companyHeaderValues(req), req.res?.locals.requestId as string | undefined);
  if (req.ip && isIP(req.ip)) metadata.set('x-forwarded-for', req.ip);
  if (internalKey) metadata.set(INTERNAL_KEY_METADATA, internalKey);
  return metadata;
}

export type Caller = (<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, req: Request) => Promise<Res>) & {
  /** The metadata of a call this caller does not make itself (a stream), internal key included. */
  metadata(req: Request): Metadata;
};

/** Binds the deadline (and the internal key) once: every gateway-to-service call goes through here. */
export function caller(deadlineMs: number, internalKey?: string): Caller {
  registerSecret(internalKey);
  const metadata = (req: Request) => metadataFor(req, internalKey);
  const call = <Req, Res>(method: UnaryMethod<Req, Res>, request: Req, req: Request) => callUnary(method, request, metadata(req), deadlineMs);
  return Object.assign(call, { metadata });
}
