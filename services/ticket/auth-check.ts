import type { Metadata } from '@grpc/grpc-js';
import { AuthServiceClient } from '../../lib/gen/auth/v1/auth.js';
import { bearerToken, companyValues, missingTokenError } from '../../lib/grpc/caller.js';
import { CLIENT_OPTIONS, callUnary, insecure } from '../../lib/grpc/client.js';
import { fromServiceError, isServiceError } from '../../lib/grpc/errors.js';

export interface AuthenticatedCaller {
  userId: string;
  /** The effective company set; every read and write is confined to it. */
  companyIds: string[];
}

/**
 * Every call is checked by the auth service with the caller's own metadata, so a gRPC
 * caller meets exactly the checks a REST caller meets. Its UNAUTHENTICATED and
 * INVALID_ARGUMENT answers pass through unchanged.
 */
export class AuthCheck {
  private readonly client: AuthServiceClient;

  constructor(address: string, private readonly deadlineMs: number) {
    this.client = new AuthServiceClient(address, insecure(), CLIENT_OPTIONS);
  }

  async caller(metadata: Metadata): Promise<AuthenticatedCaller> {
    const token = bearerToken(metadata);
    if (!token) throw missingTokenError();
    try {
      const result = await callUnary(
        this.client.authenticate.bind(this.client),
        { access_token: token, company: companyValues(metadata) },
        requestIdOnly(metadata),
        this.deadlineMs,
      );
      return { userId: result.user_id, companyIds: result.company_ids };
    } catch (err) {
      if (isServiceError(err)) throw fromServiceError(err);
      throw err;
    }
  }

  close(): void {
    this.client.close();
  }
}

function requestIdOnly(metadata: Metadata): Metadata {
  const forwarded = metadata.clone();
  forwarded.remove('authorization');
  forwarded.remove('company');
  return forwarded;
}
