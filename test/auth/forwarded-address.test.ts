import { randomBytes } from 'node:crypto';
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import { AuthServiceClient } from '../../lib/gen/auth/v1/auth.js';
import { callUnary } from '../../lib/grpc/client.js';
import { createLogger } from '../../lib/logger.js';
import { startAuthService, type RunningAuthService } from '../../services/auth/server.js';
import { tokenRequest } from '../support/grpc.js';
import { request } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

const wrongPassword = tokenRequest({ grant_type: 'password', username: 'x@example.com', password: 'wrong' });

/** Codes of a direct gRPC IssueToken attempt per forwarded address claimed (from loopback, no internal key). */
async function directAttempts(client: AuthServiceClient, forwardedFor: string[]): Promise<status[]> {
  const codes: status[] = [];
  for (const address of forwardedFor) {
    const metadata = new Metadata();
    metadata.set('x-forwarded-for', address);
    try {
      await callUnary(client.issueToken.bind(client), wrongPassword, metadata, 3000);
      codes.push(status.OK);
    } catch (err) {
      codes.push((err as ServiceError).code);
    }
  }
  return codes;
}

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
      await callUnary(client.issueToken.bind(client), wrongPassword, metadata, 3000);
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

/**
 * With no INTERNAL_API_KEY configured (the `npm start` default) the forwarded address is
 * still believed from the gateway only: the one-process stack generates a shared key, and a
 * caller on this host is counted by its own address like any other.
 */
describe('client address for the token rate limit, with no INTERNAL_API_KEY configured', () => {
  let stack: TestStack;
  let client: AuthServiceClient;
  const rotating = (prefix: string) => Array.from({ length: 6 }, (_, i) => `${prefix}.${i + 1}`);

  beforeAll(async () => {
    stack = await startTestStack({ TOKEN_RATE_LIMIT_PER_ADDRESS: '5', TRUST_PROXY: 'loopback' });
    client = new AuthServiceClient(stack.authGrpcAddress, credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await stack?.stop();
  });

  it('through the gateway, each client address still has its own allowance', async () => {
    const statuses = [];
    for (const address of rotating('203.0.113')) {
      const response = await request(`${stack.authUrl}/tokens`, {
        method: 'POST',
        headers: { 'x-forwarded-for': address },
        body: new URLSearchParams({ grant_type: 'password', username: 'x@example.com', password: 'wrong' }),
      });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400]);
  });

  it('a direct gRPC caller on this host rotating x-forwarded-for is limited by its real address', async () => {
    const codes = await directAttempts(client, rotating('198.51.100'));
    expect(codes.slice(0, 5)).toEqual(Array(5).fill(status.INVALID_ARGUMENT));
    expect(codes[5]).toBe(status.RESOURCE_EXHAUSTED);
  });

  it('an auth service started on its own without a key never believes a forwarded address', async () => {
    // Its own key prefix (under the stack's, so the stack's cleanup removes it): token limits are
    // shared through Redis, and the stack's own service has already used up this host's allowance.
    const config = loadConfig({ ...stack.env, TOKEN_RATE_LIMIT_PER_ADDRESS: '3', ...(stack.env.REDIS_KEY_PREFIX ? { REDIS_KEY_PREFIX: `${stack.env.REDIS_KEY_PREFIX}own:` } : {}) });
    let own: RunningAuthService | undefined;
    let ownClient: AuthServiceClient | undefined;
    try {
      own = await startAuthService(config, createLogger('auth', 'silent'));
      ownClient = new AuthServiceClient(`127.0.0.1:${own.port}`, credentials.createInsecure());
      const codes = await directAttempts(ownClient, rotating('192.0.2').slice(0, 4));
      expect(codes).toEqual([status.INVALID_ARGUMENT, status.INVALID_ARGUMENT, status.INVALID_ARGUMENT, status.RESOURCE_EXHAUSTED]);
    } finally {
      ownClient?.close();
      await own?.shutdown(1000);
    }
  });
});
