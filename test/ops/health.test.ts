import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TicketServiceClient } from '../../lib/gen/ticketing/v1/ticket.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { healthStatus, servedServices } from '../support/grpc-introspection.js';
import { waitFor } from '../support/redis-server.js';
import { startStackBehindDatabaseProxies, type StackBehindProxies } from '../support/database-proxy.js';
import { testBackend, type TestStack } from '../support/stack.js';
import type { TcpProxy } from '../support/tcp-proxy.js';
import { bearer, request, signUpAndLogin } from '../support/http.js';
import { expectUnavailableProblem, INTERNALS } from '../support/unavailable.js';

function getTicketOverGrpc(client: TicketServiceClient, token: string, guid: string): Promise<ServiceError | null> {
  const md = new Metadata();
  md.set('authorization', `Bearer ${token}`);
  return new Promise((resolve) => {
    client.getTicket({ guid }, md, { deadline: Date.now() + 10_000 }, (err) => resolve(err));
  });
}

/**
 * grpc.health.v1 follows the database: the services' databases are reached through a TCP
 * proxy that the test cuts and heals. MySQL only: an embedded SQLite file cannot go away.
 */
describe.runIf(testBackend() === 'mysql')('gRPC health follows the database', () => {
  let proxied: StackBehindProxies;
  let stack: TestStack;
  let authProxy: TcpProxy;
  let ticketProxy: TcpProxy;
  /** The gRPC addresses of the two services. */
  let auth: string;
  let ticket: string;

  beforeAll(async () => {
    proxied = await startStackBehindDatabaseProxies();
    ({ stack, authProxy, ticketProxy } = proxied);
    auth = stack.authGrpcAddress;
    ticket = stack.ticketGrpcAddress;
  });

  afterAll(async () => proxied?.stop());

  /** Each test starts from both databases reachable and both services SERVING again, whatever ran before. */
  const healed = async () => {
    ticketProxy.heal();
    authProxy.heal();
    await waitFor(async () => (await healthStatus(ticket, '')) === 'SERVING' && (await healthStatus(auth, '')) === 'SERVING', 20_000, 250);
    await waitFor(async () => (await request(`${stack.baseUrl}/healthz`)).status === 200, 10_000, 250);
  };

  /** The status of '' and of every service the server at `address` serves. */
  async function everyStatus(address: string): Promise<Record<string, string>> {
    const names = ['', ...(await servedServices(address))];
    return Object.fromEntries(await Promise.all(names.map(async (name) => [name, await healthStatus(address, name)] as const)));
  }
  const all = (names: string[], value: string) => Object.fromEntries(['', ...names].map((name) => [name, value]));

  it('is SERVING with the database, NOT_SERVING without it, SERVING again after, with no restart: every service of each port', async () => {
    await healed();
    const ticketServices = await servedServices(ticket);
    const authServices = await servedServices(auth);
    expect(ticketServices).toEqual(['ticketing.v1.CouponService', 'ticketing.v1.EventService', 'ticketing.v1.OrderService', 'ticketing.v1.ReservationService', 'ticketing.v1.TicketService', 'ticketing.v1.WebhookService']);
    expect(authServices).toEqual(['auth.v1.AuthService']);
    expect(await everyStatus(auth)).toEqual(all(authServices, 'SERVING'));
    expect(await everyStatus(ticket)).toEqual(all(ticketServices, 'SERVING'));
    expect((await request(`${stack.baseUrl}/healthz`)).status).toBe(200);

    ticketProxy.cut();
    await waitFor(async () => (await healthStatus(ticket, '')) === 'NOT_SERVING', 15_000, 250);
    expect(await everyStatus(ticket)).toEqual(all(ticketServices, 'NOT_SERVING'));
    expect(await everyStatus(auth)).toEqual(all(authServices, 'SERVING'));
    expect((await request(`${stack.baseUrl}/healthz`)).status).toBe(503);

    authProxy.cut();
    await waitFor(async () => (await healthStatus(auth, 'auth.v1.AuthService')) === 'NOT_SERVING', 15_000, 250);
    expect(await everyStatus(auth)).toEqual(all(authServices, 'NOT_SERVING'));

    ticketProxy.heal();
    authProxy.heal();
    await waitFor(async () => (await healthStatus(ticket, '')) === 'SERVING' && (await healthStatus(auth, '')) === 'SERVING', 20_000, 250);
    expect(await everyStatus(ticket)).toEqual(all(ticketServices, 'SERVING'));
    expect(await everyStatus(auth)).toEqual(all(authServices, 'SERVING'));
    await waitFor(async () => (await request(`${stack.baseUrl}/healthz`)).status === 200, 10_000, 250);
  }, 90_000);

  it('without the ticket database, ticket calls answer 503 / UNAVAILABLE with Retry-After and no internals, and work again after', async () => {
    await healed();
    const account = await signUpAndLogin(stack);
    const headers = bearer(account.accessToken);
    const event = await request(`${stack.baseUrl}/event`, { method: 'POST', headers, json: { name: 'Cut event' } });
    expect(event.status, event.text).toBe(201);
    const created = await request(`${stack.baseUrl}/event/${event.body.guid}/ticket`, { method: 'POST', headers, json: { name: 'Before the cut', vat_percentage: 21 } });
    expect(created.status, created.text).toBe(201);
    const ticketUrl = `${stack.baseUrl}/ticket/${created.body.guid}`;
    const ticketsUrl = `${stack.baseUrl}/event/${event.body.guid}/ticket`;
    const before = await request(ticketUrl, { headers });
    expect(before.status, before.text).toBe(200);
    const grpcTickets = new TicketServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
    try {
      ticketProxy.cut();
      // straight after the cut (connections in the pool just dropped) and once the service has noticed
      for (const phase of ['at the cut', 'after the cut']) {
        expectUnavailableProblem(await request(ticketUrl, { headers }), `GET /ticket ${phase}`);
        expectUnavailableProblem(
          await request(ticketsUrl, { method: 'POST', headers, json: { name: 'During the cut', vat_percentage: 21 } }),
          `POST /event/:guid/ticket ${phase}`,
        );
        const err = await getTicketOverGrpc(grpcTickets, account.accessToken, created.body.guid);
        expect(err, `GetTicket ${phase}`).not.toBeNull();
        expect(err!.code, `GetTicket ${phase}: ${err!.details}`).toBe(status.UNAVAILABLE);
        expect(err!.details, `GetTicket ${phase}`).not.toMatch(INTERNALS);
        expect(err!.message, `GetTicket ${phase}`).not.toMatch(INTERNALS);
        const trailer = err!.metadata.get('grpc-status-details-bin')[0];
        if (trailer !== undefined) expect(Buffer.from(trailer).toString('latin1'), `GetTicket ${phase} details trailer`).not.toMatch(INTERNALS);
        expect(readErrorDetails(err!).retryAfterSeconds, `GetTicket ${phase}`).toBeGreaterThan(0);
        if (phase === 'at the cut') await waitFor(async () => (await healthStatus(ticket, '')) === 'NOT_SERVING', 15_000, 250);
      }
    } finally {
      ticketProxy.heal();
    }
    try {
      await waitFor(async () => (await request(ticketUrl, { headers })).status === 200, 20_000, 250);
      expect(await request(ticketUrl, { headers }).then((r) => r.body)).toEqual(before.body);
      const after = await request(ticketsUrl, { method: 'POST', headers, json: { name: 'After the cut', vat_percentage: 21 } });
      expect(after.status, after.text).toBe(201);
      const list = await request(ticketsUrl, { headers });
      expect(list.status, list.text).toBe(200);
      expect((list.body as Array<{ name: string }>).map((t) => t.name)).toEqual(['Before the cut', 'After the cut']);
      const err = await getTicketOverGrpc(grpcTickets, account.accessToken, created.body.guid);
      expect(err, err?.details).toBeNull();
    } finally {
      grpcTickets.close();
    }
  }, 90_000);
});
