import { credentials, status } from '@grpc/grpc-js';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthServiceClient } from '../../lib/gen/auth/v1/auth.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { callerMetadata, grpcCall, grpcFailure } from '../support/grpc.js';
import { bearer, passwordToken, request, signUpAndLogin, type Account } from '../support/http.js';
import { startTestStack, testBackend, type TestStack } from '../support/stack.js';

/**
 * Managing API clients is confined to the request's effective company set (PRODUCT.md 4):
 * a client that acts for a company outside it is answered exactly as if it did not exist.
 */
describe('API-client management inside the effective company set', () => {
  let stack: TestStack;
  let grpc: AuthServiceClient;
  let account: Account;
  let first: string;
  let second: string;
  let both: string;

  const createClient = async (name: string, company?: string) => {
    const created = await request(`${stack.authUrl}/clients`, { method: 'POST', headers: bearer(both, company ? { company } : {}), json: { name } });
    expect(created.status).toBe(201);
    return created.body as { client_id: string; client_secret: string; company_ids: string[] };
  };
  const grant = (client: { client_id: string; client_secret: string }) =>
    request(`${stack.authUrl}/tokens`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', ...client }) });
  const listed = async (headers: Record<string, string>) => {
    const response = await request(`${stack.authUrl}/clients`, { headers });
    expect(response.status).toBe(200);
    return (response.body as Array<{ client_id: string }>).map((c) => c.client_id);
  };

  beforeAll(async () => {
    stack = await startTestStack();
    grpc = new AuthServiceClient(stack.authGrpcAddress, credentials.createInsecure());
    account = await signUpAndLogin(stack);
    first = account.companyId;
    second = (await request(`${stack.authUrl}/companies`, { method: 'POST', headers: bearer(account.accessToken), json: { name: 'Second' } })).body.guid;
    both = (await passwordToken(stack, account.email, account.password, '*')).access_token;
  });
  afterAll(async () => {
    grpc?.close();
    await stack?.stop();
  });

  it('REST: a request narrowed to one company neither lists nor deletes a client that acts for another', async () => {
    const ofFirst = await createClient('first', first);
    const ofSecond = await createClient('second', second);
    const ofBoth = await createClient('both');

    // Narrowed by the Company header, and by the token itself (account.accessToken covers the first company only).
    for (const headers of [bearer(both, { company: first }), bearer(account.accessToken)]) {
      const ids = await listed(headers);
      expect(ids).toContain(ofFirst.client_id);
      expect(ids).not.toContain(ofSecond.client_id);
      expect(ids).not.toContain(ofBoth.client_id);
      for (const foreign of [ofSecond, ofBoth]) {
        const deleted = await request(`${stack.authUrl}/clients/${foreign.client_id}`, { method: 'DELETE', headers });
        expect(deleted.status).toBe(404);
        expect(deleted.body).toEqual((await request(`${stack.authUrl}/clients/00000000-0000-4000-8000-000000000000`, { method: 'DELETE', headers })).body);
        expect((await grant(foreign)).status).toBe(200);
      }
    }
    expect(await listed(bearer(both))).toEqual(expect.arrayContaining([ofFirst.client_id, ofSecond.client_id, ofBoth.client_id]));
    expect((await request(`${stack.authUrl}/clients/not-a-guid`, { method: 'DELETE', headers: bearer(both) })).status).toBe(404);

    expect((await request(`${stack.authUrl}/clients/${ofSecond.client_id}`, { method: 'DELETE', headers: bearer(both, { company: second }) })).status).toBe(204);
    expect((await request(`${stack.authUrl}/clients/${ofBoth.client_id}`, { method: 'DELETE', headers: bearer(both) })).status).toBe(204);
    expect((await grant(ofSecond)).status).toBe(401);
    expect((await grant(ofBoth)).status).toBe(401);
  });

  it('gRPC: ListApiClients and DeleteApiClient are confined the same way (NOT_FOUND outside)', async () => {
    const ofFirst = await createClient('grpc first', first);
    const ofSecond = await createClient('grpc second', second);
    const narrowed = callerMetadata(both, [first]);

    const { clients } = await grpcCall(grpc.listApiClients.bind(grpc), {}, narrowed);
    expect(clients.map((c) => c.client_id)).toContain(ofFirst.client_id);
    expect(clients.map((c) => c.client_id)).not.toContain(ofSecond.client_id);
    expect(clients.every((c) => c.company_ids.every((guid) => guid === first))).toBe(true);

    const refused = await grpcFailure(grpcCall(grpc.deleteApiClient.bind(grpc), { client_id: ofSecond.client_id }, narrowed));
    expect(refused.code).toBe(status.NOT_FOUND);
    expect((await grant(ofSecond)).status).toBe(200);

    await grpcCall(grpc.deleteApiClient.bind(grpc), { client_id: ofSecond.client_id }, callerMetadata(both, [second]));
    expect((await grant(ofSecond)).status).toBe(401);
  });
});

/**
 * API clients are managed by people: an API client's own token can neither create, list nor
 * delete API clients, so no client ever holds credentials that outlive it.
 */
describe('only a user session manages API clients', () => {
  let stack: TestStack;
  let grpc: AuthServiceClient;
  let account: Account;
  let parent: { client_id: string; client_secret: string };
  let clientToken: string;

  const clientIds = async () =>
    ((await request(`${stack.authUrl}/clients`, { headers: bearer(account.accessToken) })).body as Array<{ client_id: string }>).map((c) => c.client_id).sort();

  beforeAll(async () => {
    stack = await startTestStack();
    grpc = new AuthServiceClient(stack.authGrpcAddress, credentials.createInsecure());
    account = await signUpAndLogin(stack);
    parent = (await request(`${stack.authUrl}/clients`, { method: 'POST', headers: bearer(account.accessToken), json: { name: 'parent' } })).body;
    clientToken = (
      await request(`${stack.authUrl}/tokens`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', ...parent }) })
    ).body.access_token;
  });
  afterAll(async () => {
    grpc?.close();
    await stack?.stop();
  });

  it('REST: a client_credentials token gets 403 on POST, GET and DELETE /clients and creates nothing', async () => {
    const before = await clientIds();
    const attempts = [
      request(`${stack.authUrl}/clients`, { method: 'POST', headers: bearer(clientToken), json: { name: 'child' } }),
      request(`${stack.authUrl}/clients`, { headers: bearer(clientToken) }),
      request(`${stack.authUrl}/clients/${parent.client_id}`, { method: 'DELETE', headers: bearer(clientToken) }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(403);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.body.detail).toMatch(/user's own token/);
      // RFC 6750 3.1: the token is valid but of a kind this needs more than.
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="ticketing", error="insufficient_scope", error_description="[^"]+"$/);
    }
    expect(await clientIds()).toEqual(before);
    // The token itself still works for everything else.
    expect((await request(`${stack.authUrl}/users/me`, { headers: bearer(clientToken) })).status).toBe(200);
  });

  it('gRPC: CreateApiClient, ListApiClients and DeleteApiClient answer PERMISSION_DENIED (reason user_session_required)', async () => {
    const metadata = () => callerMetadata(clientToken);
    const failures = [
      await grpcFailure(grpcCall(grpc.createApiClient.bind(grpc), { name: 'child' }, metadata())),
      await grpcFailure(grpcCall(grpc.listApiClients.bind(grpc), {}, metadata())),
      await grpcFailure(grpcCall(grpc.deleteApiClient.bind(grpc), { client_id: parent.client_id }, metadata())),
    ];
    for (const err of failures) {
      expect(err.code).toBe(status.PERMISSION_DENIED);
      expect(readErrorDetails(err).reason).toBe('user_session_required');
    }
  });

  it('a session from the refresh_token grant is the user own: it manages clients', async () => {
    const refreshed = await request(`${stack.authUrl}/tokens`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: account.refreshToken }) });
    const token = refreshed.body.access_token as string;
    account.refreshToken = refreshed.body.refresh_token;
    const created = await grpcCall(grpc.createApiClient.bind(grpc), { name: 'by refresh' }, callerMetadata(token));
    expect(created.company_ids).toEqual([account.companyId]);
    expect((await request(`${stack.authUrl}/clients/${created.client_id}`, { method: 'DELETE', headers: bearer(token) })).status).toBe(204);
  });

  it.runIf(testBackend() === 'mysql')('a session cached by an earlier version (no clientId) is read from the database, neither trusted nor refused', async () => {
    const redis = createClient({ url: stack.env.REDIS_URL });
    await redis.connect();
    const cacheAsEarlierVersion = async (token: string) => {
      const sessionId = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;
      const entry = { userId: account.user.guid, companyIds: [account.companyId], expiresAt: Date.now() + 60_000, revoked: false };
      await redis.set(`${stack.env.REDIS_KEY_PREFIX}session:${sessionId}`, JSON.stringify(entry), { EX: 60 });
    };
    try {
      await cacheAsEarlierVersion(clientToken);
      expect((await request(`${stack.authUrl}/clients`, { method: 'POST', headers: bearer(clientToken), json: { name: 'child' } })).status).toBe(403);
      await cacheAsEarlierVersion(account.accessToken);
      expect((await request(`${stack.authUrl}/clients`, { headers: bearer(account.accessToken) })).status).toBe(200);
    } finally {
      await redis.close();
    }
  });
});
