import { randomBytes } from 'node:crypto';
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthServiceClient } from '../../lib/gen/auth/v1/auth.js';
import { callUnary } from '../../lib/grpc/client.js';
import { request } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

/** The token rate limit per address believes the gateway's forwarded address, and only the gateway's. */
describe('client address for the token rate limit, with INTERNAL_API_KEY', () => {
  let stack: TestStack;
  let client: AuthServiceClient;
  const key = randomBytes(32).toString('hex');

  beforeAll(async () => {
    stack = await startTestStack({ INTERNAL_API_KEY: key, TOKEN_RATE_LIMIT_PER_ADDRESS: '5', TRUST_PROXY: 'loopback' });
    client = new AuthServiceClient(stack.authGrpcAddress, credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await stack?.stop();
  });

  const grpcAttempt = async (forwardedFor: string, presentedKey?: string) => {
    const metadata = new Metadata();
    metadata.set('x-forwarded-for', forwardedFor);
    if (presentedKey) metadata.set('x-internal-key', presentedKey);
    try {
      await callUnary(client.issueToken.bind(client), { grant_type: 'password', username: 'x@example.com', password: 'wrong', company_id: '', refresh_token: '', client_id: '', client_secret: '' }, metadata, 3000);
      return status.OK;
    } catch (err) {
      return (err as ServiceError).code;
    }
  };

  it('through the gateway, each client address has its own allowance', async () => {
    const statuses = [];
    for (let i = 0; i < 8; i++) {
      const response = await request(`${stack.authUrl}/tokens`, {
        method: 'POST',
        headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
        body: new URLSearchParams({ grant_type: 'password', username: 'x@example.com', password: 'wrong' }),
      });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 400, 400]);
  });

  it('a direct gRPC caller without the key (or with a wrong one) is counted by its own address, whatever it claims', async () => {
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push(await grpcAttempt(`198.51.100.${i + 1}`, i % 2 ? 'not-the-key' : undefined));
    expect(codes.slice(0, 5).every((c) => c === status.INVALID_ARGUMENT)).toBe(true);
    expect(codes[5]).toBe(status.RESOURCE_EXHAUSTED);
  });

  it('a caller with the key is believed', async () => {
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push(await grpcAttempt(`192.0.2.${i + 1}`, key));
    expect(codes.every((c) => c === status.INVALID_ARGUMENT)).toBe(true);
  });
});
