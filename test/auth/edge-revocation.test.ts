import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import jwt from 'jsonwebtoken';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import { AuthServiceClient } from '../../lib/gen/auth/v1/auth.js';
import { TicketServiceClient } from '../../lib/gen/ticketing/v1/ticket.js';
import { newGuid } from '../../lib/ids.js';
import { createLogger } from '../../lib/logger.js';
import { edgeAuthChecks } from '../../lib/metrics.js';
import { startAuthService, type RunningAuthService } from '../../services/auth/server.js';
import { startTicketService, type RunningTicketService } from '../../services/ticket/server.js';
import { callerMetadata, grpcCall } from '../support/grpc.js';
import { passwordToken, request, type Account } from '../support/http.js';
import { PrivateRedis, waitFor } from '../support/redis-server.js';
import type { TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';

/**
 * The ticket service checks callers without a round trip while the revocation push is live
 * (docs/auth.md, "Checks at the edge"). Topology: the stack (auth A, ticket A -> auth A, the
 * gateway) plus a second auth replica B and a second ticket replica B -> auth B, on the same
 * databases and a private Redis (so that it can be flushed). A revocation on either auth
 * replica must be refused by both ticket replicas within 100 ms (issues 10 and 11), measured
 * from the revoke answer.
 */
const BOUND_MS = 100;

describe('revocations at the edge', () => {
  let redis: PrivateRedis;
  let stack: TestStack;
  let account: Account;
  let authB: RunningAuthService;
  let ticketB: RunningTicketService;
  const clients: Array<{ close(): void }> = [];
  let ticketClients: Record<'A' | 'B', TicketServiceClient>;
  let authClients: Record<'A' | 'B', AuthServiceClient>;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    ({ stack, account } = await startSuite({ env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'edgetest:' } }));
    const config = loadConfig({ ...stack.env, AUTH_GRPC_PORT: '0', TICKET_GRPC_PORT: '0' });
    const logger = createLogger('edge-test', stack.env.LOG_LEVEL ?? 'silent');
    authB = await startAuthService(config, logger.child({ service: 'auth' }));
    ticketB = await startTicketService({ ...config, authGrpcAddress: `127.0.0.1:${authB.port}` }, logger.child({ service: 'ticket' }));
    ticketClients = {
      A: new TicketServiceClient(stack.ticketGrpcAddress, credentials.createInsecure()),
      B: new TicketServiceClient(`127.0.0.1:${ticketB.port}`, credentials.createInsecure()),
    };
    authClients = {
      A: new AuthServiceClient(stack.authGrpcAddress, credentials.createInsecure()),
      B: new AuthServiceClient(`127.0.0.1:${authB.port}`, credentials.createInsecure()),
    };
    clients.push(...Object.values(ticketClients), ...Object.values(authClients));
    await waitForLocalChecks();
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await ticketB?.shutdown(1000);
    await authB?.shutdown(1000);
    await stack?.stop();
    await redis?.stop();
  });

  const tickets = () => [stack.running.ticket, ticketB];
  const waitForLocalChecks = () => waitFor(() => tickets().every((t) => t.auth.revocations?.isLive === true), 10_000, 20);

  /** GetTicket of a ticket that does not exist: NOT_FOUND once the caller is accepted, UNAUTHENTICATED when refused. */
  const getTicket = (replica: 'A' | 'B', token: string): Promise<status> => {
    const client = ticketClients[replica];
    return grpcCall(client.getTicket.bind(client), { guid: newGuid() }, callerMetadata(token)).then(
      () => status.OK,
      (err: ServiceError) => err.code,
    );
  };

  const freshToken = async () => (await passwordToken(stack, account.email, account.password)).access_token;

  /** A token both ticket replicas have accepted, so that the next checks with it are local. */
  const keptToken = async () => {
    const token = await freshToken();
    for (const replica of ['A', 'B'] as const) expect(await getTicket(replica, token)).toBe(status.NOT_FOUND);
    return token;
  };

  const localChecks = async () => (await edgeAuthChecks.get()).values.find((v) => v.labels.path === 'local')?.value ?? 0;

  /**
   * How long after `since` each ticket replica started refusing `token`: the moment its
   * revocation watch received the session (every check consults it synchronously from then on;
   * the time a call itself takes on a loaded machine is not part of it), checked by a call that
   * is refused. Returns the later of the two replicas.
   */
  const refusedWithin = async (token: string, since: number, replicas: Array<'A' | 'B'> = ['A', 'B']): Promise<number> => {
    const sessionId = (jwt.decode(token) as { sid: string }).sid;
    const watches = { A: stack.running.ticket, B: ticketB };
    const refusedAt = await Promise.all(
      replicas.map(async (replica) => {
        const watch = watches[replica].auth.revocations!;
        await waitFor(() => watch.revokedSince(sessionId) !== undefined, 5000, 1);
        expect(await getTicket(replica, token)).toBe(status.UNAUTHENTICATED);
        return watch.revokedSince(sessionId)!;
      }),
    );
    return Math.max(...refusedAt) - since;
  };

  it('checks a kept token locally: no Authenticate round trip', async () => {
    const token = await keptToken();
    const before = await localChecks();
    for (let i = 0; i < 5; i++) expect(await getTicket('A', token)).toBe(status.NOT_FOUND);
    for (let i = 0; i < 5; i++) expect(await getTicket('B', token)).toBe(status.NOT_FOUND);
    expect((await localChecks()) - before).toBe(10);
  });

  it('a revocation through REST is refused by every ticket replica within 100 ms', async () => {
    const token = await keptToken();
    const revoke = await request(`${stack.authUrl}/tokens/revoke`, { method: 'POST', json: { token } });
    const revokedAt = Date.now();
    expect(revoke.status).toBe(200);
    expect(await refusedWithin(token, revokedAt)).toBeLessThanOrEqual(BOUND_MS);
  });

  it('a revocation on the other auth replica (gRPC RevokeToken) is refused by every ticket replica within 100 ms', async () => {
    const token = await keptToken();
    await grpcCall(authClients.B.revokeToken.bind(authClients.B), { token, token_type_hint: '' }, callerMetadata(null));
    const revokedAt = Date.now();
    expect(await refusedWithin(token, revokedAt)).toBeLessThanOrEqual(BOUND_MS);
  });

  it('a refresh token replayed (theft) ends the session on every ticket replica within 100 ms', async () => {
    const login = await passwordToken(stack, account.email, account.password);
    for (const replica of ['A', 'B'] as const) expect(await getTicket(replica, login.access_token)).toBe(status.NOT_FOUND);
    const refresh = (refresh_token: string) => request(`${stack.authUrl}/tokens`, { method: 'POST', json: { grant_type: 'refresh_token', refresh_token } });
    expect((await refresh(login.refresh_token)).status).toBe(200);
    const replay = await refresh(login.refresh_token);
    const revokedAt = Date.now();
    expect(replay.status).toBe(400);
    expect(await refusedWithin(login.access_token, revokedAt)).toBeLessThanOrEqual(BOUND_MS);
  });

  it('after Redis lost its data (FLUSHALL) a revocation is still refused within 100 ms, and stays refused', async () => {
    const token = await keptToken();
    const flush = async () => {
      const client = createClient({ url: redis.url });
      await client.connect();
      await client.flushAll();
      await client.close();
    };
    await flush();
    const revoke = await request(`${stack.authUrl}/tokens/revoke`, { method: 'POST', json: { token } });
    const revokedAt = Date.now();
    expect(revoke.status).toBe(200);
    expect(await refusedWithin(token, revokedAt)).toBeLessThanOrEqual(BOUND_MS);
    await flush();
    for (const replica of ['A', 'B'] as const) expect(await getTicket(replica, token)).toBe(status.UNAUTHENTICATED);
  });

  it('with Redis down (no doorbell between the auth replicas) a revocation on the other auth replica is refused within 100 ms, by the polls', async () => {
    const token = await keptToken();
    await redis.stop();
    try {
      await grpcCall(authClients.B.revokeToken.bind(authClients.B), { token, token_type_hint: '' }, callerMetadata(null));
      const revokedAt = Date.now();
      expect(await refusedWithin(token, revokedAt)).toBeLessThanOrEqual(BOUND_MS);
    } finally {
      await redis.resume();
    }
    for (const replica of ['A', 'B'] as const) expect(await getTicket(replica, token)).toBe(status.UNAUTHENTICATED);
  });

  it('with the push cut, the ticket service asks the auth service: a revocation is refused at once; the push comes back by itself', async () => {
    const token = await keptToken();
    const survivor = await keptToken();
    authB.revocations.stop(); // ends ticket B's stream and refuses new ones
    try {
      await waitFor(() => ticketB.auth.revocations?.isLive === false, 5000, 10);
      const before = await localChecks();
      expect(await getTicket('B', survivor)).toBe(status.NOT_FOUND); // asked, and still accepted
      expect(await localChecks()).toBe(before);
      await grpcCall(authClients.B.revokeToken.bind(authClients.B), { token, token_type_hint: '' }, callerMetadata(null));
      const revokedAt = Date.now();
      // Ticket A still has its push, from auth A, which reads what auth B wrote.
      const refusedByA = refusedWithin(token, revokedAt, ['A']);
      expect(await getTicket('B', token)).toBe(status.UNAUTHENTICATED);
      expect(await refusedByA).toBeLessThanOrEqual(BOUND_MS);
    } finally {
      await authB.revocations.start();
    }
    await waitForLocalChecks();
    expect(await getTicket('B', token)).toBe(status.UNAUTHENTICATED);
    expect(await getTicket('B', survivor)).toBe(status.NOT_FOUND);
  });

  it('a token altered in any way is checked by the auth service and refused, even while the genuine one is kept', async () => {
    const token = await keptToken();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = jwt.decode(token) as Record<string, unknown>;
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const altered = [
      `${encode({ alg: 'none', typ: 'JWT' })}.${payload}.`,
      `${encode({ alg: 'none', typ: 'JWT' })}.${payload}.${signature}`,
      `${header}.${encode({ ...claims, sid: newGuid() })}.${signature}`,
      `${header}.${encode({ ...claims, exp: (claims.exp as number) + 3600 })}.${signature}`,
      `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`,
      jwt.sign({ ...claims }, 'not-the-key-but-long-enough-to-be-a-key-32', { algorithm: 'HS256' }),
    ];
    for (const bad of altered) {
      for (const replica of ['A', 'B'] as const) expect(await getTicket(replica, bad)).toBe(status.UNAUTHENTICATED);
    }
    for (const replica of ['A', 'B'] as const) expect(await getTicket(replica, token)).toBe(status.NOT_FOUND);
  });
});
