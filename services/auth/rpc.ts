import type { ServerUnaryCall } from '@grpc/grpc-js';
import type { AuthServiceServer } from '../../lib/gen/auth/v1/auth.js';
import { bearerToken, companyValues } from '../../lib/grpc/caller.js';
import { timingSafeEqual } from 'node:crypto';
import { INTERNAL_KEY_METADATA, metadataStrings } from '../../lib/grpc/client.js';
import { serverStream, unary } from '../../lib/grpc/server.js';
import type { Logger } from '../../lib/logger.js';
import type { PublicJwk } from '../../lib/tokens/keys.js';
import type { AuthService } from './auth-service.js';
import type { RevocationFeed } from './revocation-feed.js';
import type { AuthStore } from './store/auth-store.js';
import { watchRevocations } from './watch-revocations.js';

/** gRPC face of the auth service: reads metadata, calls the service, nothing else. */
export function authRpcHandlers(
  service: AuthService,
  logger: Logger,
  internalKey: string | undefined,
  revocations: { feed: RevocationFeed; store: AuthStore },
  publishedKeys: PublicJwk[],
): AuthServiceServer {
  const clientAddress = clientAddressOf(internalKey);
  const caller = (call: ServerUnaryCall<unknown, unknown>) => service.authenticate(bearerToken(call.metadata), companyValues(call.metadata));
  return {
    signUp: unary(logger, 'SignUp', (req) => service.signUp(req)),
    issueToken: unary(logger, 'IssueToken', (req, call) => service.issueToken(req, clientAddress(call))),
    revokeToken: unary(logger, 'RevokeToken', async (req) => {
      await service.revokeToken(req.token);
      return {};
    }),
    authenticate: unary(logger, 'Authenticate', async (req) => {
      const result = await service.authenticate(req.access_token, req.company);
      return { user_id: result.userId, session_id: result.sessionId, company_ids: result.companyIds, expires_at: result.expiresAt };
    }),
    getCurrentUser: unary(logger, 'GetCurrentUser', async (_req, call) => service.currentUser(await caller(call))),
    listCompanies: unary(logger, 'ListCompanies', async (_req, call) => ({ companies: await service.listCompanies(await caller(call)) })),
    createCompany: unary(logger, 'CreateCompany', async (req, call) => service.createCompany(await caller(call), req.name)),
    createApiClient: unary(logger, 'CreateApiClient', async (req, call) => service.createApiClient(await caller(call), req.name)),
    listApiClients: unary(logger, 'ListApiClients', async (_req, call) => ({ clients: await service.listApiClients(await caller(call)) })),
    deleteApiClient: unary(logger, 'DeleteApiClient', async (req, call) => {
      await service.deleteApiClient(await caller(call), req.client_id);
      return {};
    }),
    getSigningKeys: unary(logger, 'GetSigningKeys', async () => ({ keys: publishedKeys })),
    watchRevocations: serverStream(logger, 'WatchRevocations', (req, call) => watchRevocations(revocations.feed, revocations.store, req, call)),
  };
}

/**
 * The end user's address, for rate limiting. The address the gateway forwards is believed
 * only from a caller that proves to be the gateway (INTERNAL_API_KEY, which `npm start`
 * generates when none is configured); anyone else, on this host or not, is counted by its
 * peer address, whatever it claims.
 */
function clientAddressOf(internalKey: string | undefined): (call: ServerUnaryCall<unknown, unknown>) => string {
  const expected = internalKey ? Buffer.from(internalKey) : undefined;
  return (call) => {
    const peer = call.getPeer().replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
    const forwarded = metadataStrings(call.metadata, 'x-forwarded-for')[0]?.split(',')[0]?.trim();
    if (!forwarded || !expected) return peer;
    const presented = Buffer.from(metadataStrings(call.metadata, INTERNAL_KEY_METADATA)[0] ?? '');
    return presented.length === expected.length && timingSafeEqual(presented, expected) ? forwarded : peer;
  };
}
