import { createPrivateKey, createPublicKey } from 'node:crypto';
import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import { AuthServiceClient, type SigningKey } from '../../lib/gen/auth/v1/auth.js';
import { TicketServiceClient } from '../../lib/gen/ticketing/v1/ticket.js';
import { newGuid } from '../../lib/ids.js';
import { createLogger } from '../../lib/logger.js';
import { generatePrivateKey } from '../../lib/tokens/keys.js';
import { startAuthService, type RunningAuthService } from '../../services/auth/server.js';
import { startTicketService, type RunningTicketService } from '../../services/ticket/server.js';
import { callerMetadata, grpcCall, tokenRequest } from '../support/grpc.js';
import { request, type Account } from '../support/http.js';
import { waitFor } from '../support/redis-server.js';
import type { TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';

/**
 * Signing keys and their rotation (docs/auth.md, "Signing keys and rotation"). The stack signs
 * with key A. Auth replicas started beside it on the same database play the rotation's steps:
 * "rotated" signs with B and still accepts A (AUTH_ACCEPTED_KEYS), "retired" has B alone. A
 * ticket service behind "retired" checks tokens locally with the keys it fetched from it.
 */
describe('signing keys', () => {
  let stack: TestStack;
  let account: Account;
  const started: Array<RunningAuthService | RunningTicketService> = [];
  const clients: Array<{ close(): void }> = [];
  const keyB = generatePrivateKey();

  beforeAll(async () => {
    ({ stack, account } = await startSuite());
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    for (const part of started.reverse()) await part.shutdown(1000);
    await stack?.stop();
  });

  const publicPem = (base64Der: string) =>
    createPublicKey(createPrivateKey({ key: Buffer.from(base64Der, 'base64'), format: 'der', type: 'pkcs8' })).export({ type: 'spki', format: 'pem' }).toString();
  const kidOf = (token: string) => jwt.decode(token, { complete: true })!.header.kid;
  const logger = () => createLogger('keys-test', stack.env.LOG_LEVEL ?? 'silent');

  async function authReplica(keys: Record<string, string>): Promise<AuthServiceClient> {
    const auth = await startAuthService(loadConfig({ ...stack.env, AUTH_GRPC_PORT: '0', ...keys }, 'auth'), logger());
    started.push(auth);
    const client = new AuthServiceClient(`127.0.0.1:${auth.port}`, credentials.createInsecure());
    clients.push(client);
    return client;
  }

  const published = async (client: AuthServiceClient): Promise<SigningKey[]> => (await grpcCall(client.getSigningKeys.bind(client), {}, callerMetadata(null))).keys;
  const authenticate = (client: AuthServiceClient, token: string): Promise<status> =>
    grpcCall(client.authenticate.bind(client), { access_token: token, company: [] }, callerMetadata(null)).then(
      () => status.OK,
      (err: ServiceError) => err.code,
    );
  const issue = async (client: AuthServiceClient) =>
    (await grpcCall(client.issueToken.bind(client), tokenRequest({ grant_type: 'password', username: account.email, password: account.password }), callerMetadata(null))).access_token;

  it('signs ES256 with a kid and publishes its public key, over gRPC and as a JWK Set at {auth_url}/.well-known/jwks.json', async () => {
    const header = jwt.decode(account.accessToken, { complete: true })!.header;
    expect(header.alg).toBe('ES256');
    const response = await request(`${stack.authUrl}/.well-known/jwks.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/jwk-set+json');
    expect(response.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const keys = (JSON.parse(response.text) as { keys: SigningKey[] }).keys;
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kid: header.kid, kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(JSON.stringify(keys)).not.toMatch(/"d"/);
    // Anyone can verify a token with the published key alone.
    const key = createPublicKey({ key: { kty: keys[0]!.kty, crv: keys[0]!.crv, x: keys[0]!.x, y: keys[0]!.y }, format: 'jwk' });
    expect(() => jwt.verify(account.accessToken, key, { algorithms: ['ES256'] })).not.toThrow();
    const client = new AuthServiceClient(stack.authGrpcAddress, credentials.createInsecure());
    clients.push(client);
    expect(await published(client)).toEqual(keys);
  });

  it('rotation: the new key signs, tokens of the previous key stay valid until they expire, a retired key stops working', async () => {
    const tokenA = account.accessToken;
    const kidA = kidOf(tokenA);
    const rotated = await authReplica({ AUTH_SIGNING_KEY: keyB, AUTH_ACCEPTED_KEYS: publicPem(stack.env.AUTH_SIGNING_KEY!) });
    const tokenB = await issue(rotated);
    const kidB = kidOf(tokenB);
    expect(kidB).not.toBe(kidA);
    expect((await published(rotated)).map((k) => k.kid).sort()).toEqual([kidA, kidB].sort());
    expect(await authenticate(rotated, tokenA), 'the previous key still verifies').toBe(status.OK);
    expect(await authenticate(rotated, tokenB)).toBe(status.OK);

    const retired = await authReplica({ AUTH_SIGNING_KEY: keyB, AUTH_ACCEPTED_KEYS: '' });
    expect((await published(retired)).map((k) => k.kid)).toEqual([kidB]);
    expect(await authenticate(retired, tokenA), 'the retired key verifies nothing').toBe(status.UNAUTHENTICATED);
    expect(await authenticate(retired, tokenB)).toBe(status.OK);
  });

  it('a ticket service verifies kept tokens with the keys its auth service publishes: a retired key is refused there too', async () => {
    const retiredAuth = await startAuthService(loadConfig({ ...stack.env, AUTH_GRPC_PORT: '0', AUTH_SIGNING_KEY: keyB }, 'auth'), logger());
    started.push(retiredAuth);
    const config = loadConfig({ ...stack.env, TICKET_GRPC_PORT: '0', EDGE_AUTH: 'true' }, 'ticket');
    const ticket = await startTicketService({ ...config, authGrpcAddress: `127.0.0.1:${retiredAuth.port}` }, logger());
    started.push(ticket);
    await waitFor(() => ticket.auth.revocations?.isLive === true, 10_000, 20);
    const client = new TicketServiceClient(`127.0.0.1:${ticket.port}`, credentials.createInsecure());
    clients.push(client);
    const getTicket = (token: string): Promise<status> =>
      grpcCall(client.getTicket.bind(client), { guid: newGuid() }, callerMetadata(token)).then(
        () => status.OK,
        (err: ServiceError) => err.code,
      );
    const rotatedClient = new AuthServiceClient(`127.0.0.1:${retiredAuth.port}`, credentials.createInsecure());
    clients.push(rotatedClient);
    const tokenB = await issue(rotatedClient);
    expect(await getTicket(tokenB), 'accepted: the ticket does not exist').toBe(status.NOT_FOUND);
    expect(ticket.auth.publicKeys?.current(kidOf(tokenB)!), 'fetched for the new kid').toBeDefined();
    expect(await getTicket(account.accessToken), 'signed by the retired key A').toBe(status.UNAUTHENTICATED);
    expect(ticket.auth.publicKeys?.current(kidOf(account.accessToken)!)).toBeUndefined();
  });
});
