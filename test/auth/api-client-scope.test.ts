import { credentials, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthServiceClient } from '../../lib/gen/auth/v1/auth.js';
import { callerMetadata, grpcCall, grpcFailure } from '../support/grpc.js';
import { bearer, passwordToken, request, signUpAndLogin, type Account } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

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
