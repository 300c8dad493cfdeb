/**
 * Calls that arrive together with a token the ticket service does not keep yet (the first
 * second of an on-sale rush: thousands of calls with one shop's token) ask the auth service
 * once between them, not once each (docs/auth.md, "Checks at the edge"); each call is still
 * answered on its own, and a revoked token is refused to all of them.
 */
import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TicketServiceClient } from '../../lib/gen/ticketing/v1/ticket.js';
import { newGuid } from '../../lib/ids.js';
import { rpcHandled } from '../../lib/metrics.js';
import { callerMetadata, grpcCall } from '../support/grpc.js';
import { passwordToken, request, type Account } from '../support/http.js';
import { waitFor } from '../support/redis-server.js';
import type { TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';

const CALLS = 50;

describe('calls with a new token at the same time', () => {
  let stack: TestStack;
  let account: Account;
  let client: TicketServiceClient;

  beforeAll(async () => {
    ({ stack, account } = await startSuite());
    client = new TicketServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
    await waitFor(() => stack.running.ticket.auth.revocations?.isLive === true, 10_000, 20);
  });
  afterAll(async () => {
    client?.close();
    await stack?.stop();
  });

  /** Authenticate calls the auth service has answered so far (this file's stack is the only one in this process). */
  const authenticateCalls = async () =>
    (await rpcHandled.get()).values.filter((v) => v.labels.grpc_method === 'Authenticate').reduce((sum, v) => sum + v.value, 0);

  /** GetTicket of a ticket that does not exist: NOT_FOUND once the caller is accepted, UNAUTHENTICATED when refused. */
  const getTicket = (token: string): Promise<status> =>
    grpcCall(client.getTicket.bind(client), { guid: newGuid() }, callerMetadata(token)).then(
      () => status.OK,
      (err: ServiceError) => err.code,
    );

  const freshToken = async () => (await passwordToken(stack, account.email, account.password)).access_token;

  it(`${CALLS} calls of one new token ask Authenticate once and are each accepted`, async () => {
    const token = await freshToken();
    const before = await authenticateCalls();
    const answers = await Promise.all(Array.from({ length: CALLS }, () => getTicket(token)));
    expect(answers).toEqual(Array(CALLS).fill(status.NOT_FOUND));
    expect((await authenticateCalls()) - before).toBe(1);
    // Kept now: more calls ask nothing.
    expect(await getTicket(token)).toBe(status.NOT_FOUND);
    expect((await authenticateCalls()) - before).toBe(1);
  });

  it(`${CALLS} calls of one revoked token that was never kept are each refused`, async () => {
    const token = await freshToken();
    const revoked = await request(`${stack.authUrl}/tokens/revoke`, { method: 'POST', json: { token } });
    expect(revoked.status, revoked.text).toBe(200);
    const answers = await Promise.all(Array.from({ length: CALLS }, () => getTicket(token)));
    expect(answers).toEqual(Array(CALLS).fill(status.UNAUTHENTICATED));
  });
});
