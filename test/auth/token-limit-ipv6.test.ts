import { randomBytes } from 'node:crypto';
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthServiceClient } from '../../lib/gen/auth/v1/auth.js';
import { callUnary } from '../../lib/grpc/client.js';
import { tokenRequest } from '../support/grpc.js';
import { startTestStack, type TestStack } from '../support/stack.js';

/**
 * The token endpoint's per-address limits count an IPv6 client by its prefix, as the gateway's
 * limit does (docs/rate-limits.md): rotating addresses within one /64 is one client. The
 * forwarded address is believed from a caller with the internal key, as from the gateway.
 */
describe('token requests per address, IPv6 by prefix', () => {
  let stack: TestStack;
  let client: AuthServiceClient;
  const key = randomBytes(32).toString('hex');

  beforeAll(async () => {
    stack = await startTestStack({ INTERNAL_API_KEY: key, TOKEN_RATE_LIMIT_PER_ADDRESS: '3', TOKEN_RATE_LIMIT_PER_ACCOUNT: '1000' });
    client = new AuthServiceClient(stack.authGrpcAddress, credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await stack?.stop();
  });

  const attempt = async (forwardedFor: string) => {
    const metadata = new Metadata();
    metadata.set('x-forwarded-for', forwardedFor);
    metadata.set('x-internal-key', key);
    try {
      await callUnary(client.issueToken.bind(client), tokenRequest({ grant_type: 'password', username: 'x@example.com', password: 'wrong' }), metadata, 5000);
      return status.OK;
    } catch (err) {
      return (err as ServiceError).code;
    }
  };

  it('addresses of one /64 share the allowance; another /64 has its own', async () => {
    const codes = [];
    for (const address of ['2001:db8:dd:1::1', '2001:db8:dd:1::2', '2001:db8:dd:1:ffff::3', '2001:db8:dd:1::4']) codes.push(await attempt(address));
    expect(codes).toEqual([status.INVALID_ARGUMENT, status.INVALID_ARGUMENT, status.INVALID_ARGUMENT, status.RESOURCE_EXHAUSTED]);
    expect(await attempt('2001:db8:dd:2::1')).toBe(status.INVALID_ARGUMENT);
  });
});
