import { Metadata, type ServiceError } from '@grpc/grpc-js';
import type { IssueTokenRequest } from '../../lib/gen/auth/v1/auth.js';
import { callUnary, type UnaryMethod } from '../../lib/grpc/client.js';

/** An IssueToken request: the fields given, every other one empty. */
export function tokenRequest(fields: Partial<IssueTokenRequest>): IssueTokenRequest {
  return { grant_type: '', username: '', password: '', company_id: '', refresh_token: '', client_id: '', client_secret: '', ...fields };
}

/** Caller metadata as a direct gRPC user sends it: `authorization: Bearer <token>` and each `company` value. */
export function callerMetadata(token: string | null, companies: string[] = []): Metadata {
  const metadata = new Metadata();
  if (token !== null) metadata.set('authorization', `Bearer ${token}`);
  for (const company of companies) metadata.add('company', company);
  return metadata;
}

/** One unary call with a deadline (10 s unless given; a negative one has already passed). */
export function grpcCall<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, metadata: Metadata, deadlineMs = 10_000): Promise<Res> {
  return callUnary(method, request, metadata, deadlineMs);
}

/** The error a call must end with (fails the test when it succeeds). */
export async function grpcFailure(promise: Promise<unknown>, label = 'the gRPC call'): Promise<ServiceError> {
  try {
    await promise;
  } catch (err) {
    return err as ServiceError;
  }
  throw new Error(`expected ${label} to fail`);
}
