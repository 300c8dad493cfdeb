/**
 * A database connection lost mid-query is the dependency being unavailable, never a bug:
 * with requests in flight, the services' MySQL connections are cut again and again (a TCP
 * proxy drops every connection and refuses new ones, then lets them through again). Every
 * answer is a success or 503 + Retry-After (REST) / UNAVAILABLE with RetryInfo (gRPC), never
 * a 500 / INTERNAL, and everything works again afterwards with no restart. MySQL only: an
 * embedded SQLite file has no connection to lose.
 */
import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthServiceClient } from '../../lib/gen/auth/v1/auth.js';
import { EventServiceClient, ListEventsRequest } from '../../lib/gen/ticketing/v1/event.js';
import { CreateTicketRequest, Ticket, TicketServiceClient } from '../../lib/gen/ticketing/v1/ticket.js';
import { callUnary, type UnaryMethod } from '../../lib/grpc/client.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { startStackBehindDatabaseProxies, type StackBehindProxies } from '../support/database-proxy.js';
import { bearer, request, signUpAndLogin, type Account } from '../support/http.js';
import { waitFor } from '../support/redis-server.js';
import { testBackend, type TestStack } from '../support/stack.js';
import type { TcpProxy } from '../support/tcp-proxy.js';
import { INTERNALS } from '../support/unavailable.js';
import { SteadyLoad, type Outcome } from './load.js';

const CUTS = 8;

interface GrpcOutcome {
  name: string;
  code: status;
  details: string;
  retryAfterSeconds?: number;
}

describe.runIf(testBackend() === 'mysql')('database connections cut under load', () => {
  let proxied: StackBehindProxies;
  let stack: TestStack;
  let account: Account;
  let eventGuid: string;
  let ticketGuid: string;
  let client: { client_id: string; client_secret: string };

  beforeAll(async () => {
    proxied = await startStackBehindDatabaseProxies();
    stack = proxied.stack;
    account = await signUpAndLogin(stack);
    const headers = bearer(account.accessToken);
    const event = await request(`${stack.baseUrl}/event`, { method: 'POST', headers, json: { name: 'Cut under load' } });
    expect(event.status, event.text).toBe(201);
    eventGuid = event.body.guid;
    const ticket = await request(`${stack.baseUrl}/event/${eventGuid}/ticket`, { method: 'POST', headers, json: { name: 'Standing', vat_percentage: 21 } });
    expect(ticket.status, ticket.text).toBe(201);
    ticketGuid = ticket.body.guid;
    const created = await request(`${stack.authUrl}/clients`, { method: 'POST', headers, json: { name: 'under load' } });
    expect(created.status, created.text).toBe(201);
    client = created.body;
  });

  afterAll(async () => proxied?.stop());

  /** Reads and writes of both services, through the gateway. */
  function restTargets() {
    const headers = { ...bearer(account.accessToken), 'content-type': 'application/json' };
    return [
      { name: 'GET /ticket/:guid', url: `${stack.baseUrl}/ticket/${ticketGuid}`, headers },
      { name: 'GET /event/:guid/ticket', url: `${stack.baseUrl}/event/${eventGuid}/ticket?limit=5`, headers },
      { name: 'POST /event/:guid/ticket', url: `${stack.baseUrl}/event/${eventGuid}/ticket`, method: 'POST', headers, body: JSON.stringify({ name: 'Load', vat_percentage: 9 }) },
      { name: 'PUT /event/:guid', url: `${stack.baseUrl}/event/${eventGuid}`, method: 'PUT', headers, body: JSON.stringify({ name: 'Cut under load' }) },
      { name: 'GET /auth/users/me', url: `${stack.authUrl}/users/me`, headers },
      { name: 'GET /auth/companies', url: `${stack.authUrl}/companies`, headers },
      {
        name: 'POST /auth/tokens client_credentials',
        url: `${stack.authUrl}/tokens`,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', ...client }).toString(),
      },
    ];
  }

  /** Direct gRPC callers of both services, one call after the other per worker until stop(). */
  function grpcLoad(workers: number) {
    const tickets = new TicketServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
    const events = new EventServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
    const auth = new AuthServiceClient(stack.authGrpcAddress, credentials.createInsecure());
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${account.accessToken}`);
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['TicketService/GetTicket', () => callUnary(tickets.getTicket.bind(tickets) as UnaryMethod<object, unknown>, { guid: ticketGuid }, metadata, 10_000)],
      [
        'TicketService/CreateTicket',
        () =>
          callUnary(
            tickets.createTicket.bind(tickets) as UnaryMethod<object, unknown>,
            CreateTicketRequest.fromPartial({ event_id: eventGuid, ticket: Ticket.fromPartial({ name: 'gRPC load', vat_percentage: '9' }) }),
            metadata,
            10_000,
          ),
      ],
      ['EventService/ListEvents', () => callUnary(events.listEvents.bind(events) as UnaryMethod<object, unknown>, ListEventsRequest.fromPartial({ page_size: 5 }), metadata, 10_000)],
      ['AuthService/GetCurrentUser', () => callUnary(auth.getCurrentUser.bind(auth) as UnaryMethod<object, unknown>, {}, metadata, 10_000)],
      ['AuthService/ListCompanies', () => callUnary(auth.listCompanies.bind(auth) as UnaryMethod<object, unknown>, {}, metadata, 10_000)],
      [
        'TicketService/StreamTickets',
        () =>
          new Promise((resolve, reject) => {
            const stream = tickets.streamTickets({ event_id: eventGuid }, metadata, { deadline: Date.now() + 10_000 });
            let count = 0;
            stream.on('data', () => count++);
            stream.on('error', reject);
            stream.on('end', () => resolve(count));
          }),
      ],
    ];
    const outcomes: GrpcOutcome[] = [];
    let stopping = false;
    const running = Array.from({ length: workers }, async (_, i) => {
      for (let n = i; !stopping; n++) {
        const [name, call] = calls[n % calls.length]!;
        try {
          await call();
          outcomes.push({ name, code: status.OK, details: '' });
        } catch (err) {
          const e = err as ServiceError;
          outcomes.push({ name, code: e.code, details: e.details, retryAfterSeconds: readErrorDetails(e).retryAfterSeconds });
        }
      }
    });
    return {
      outcomes,
      calls,
      async stop() {
        stopping = true;
        await Promise.all(running);
        for (const client of [tickets, events, auth]) client.close();
      },
    };
  }

  /** Cuts the ticket database, the auth database, then both, in turn; heals each time. */
  async function cutRepeatedly(times: number): Promise<void> {
    const rounds: TcpProxy[][] = [[proxied.ticketProxy], [proxied.authProxy], [proxied.ticketProxy, proxied.authProxy]];
    for (let i = 0; i < times; i++) {
      const cut = rounds[i % rounds.length]!;
      for (const proxy of cut) proxy.cut();
      await sleep(400);
      for (const proxy of cut) proxy.heal();
      await sleep(900);
    }
  }

  it('REST and gRPC callers get a success or 503 / UNAVAILABLE with a retry delay, never a 500, and everything works again after', async () => {
    const load = new SteadyLoad(restTargets(), 6);
    const grpc = grpcLoad(3);
    load.start();
    await waitFor(() => load.outcomes.length >= 30 && grpc.outcomes.length >= 10, 60_000);
    try {
      await cutRepeatedly(CUTS);
    } finally {
      proxied.ticketProxy.heal();
      proxied.authProxy.heal();
      await Promise.all([load.stop(), grpc.stop()]);
      load.close();
    }

    const rest = load.outcomes;
    const summary = tally(rest.map((o) => `${o.name} ${o.status ?? o.error}`));
    expect(rest.filter((o) => o.status === 503).length, `some requests met a cut: ${summary}`).toBeGreaterThan(0);
    // soft: a failure here still reports the gRPC callers below
    expect.soft(rest.filter(notSuccessOrUnavailable), summary).toEqual([]);
    for (const o of rest.filter((r) => r.status === 503)) {
      expect(o.retryAfter, `${o.name}: Retry-After`).toMatch(/^[1-9]\d*$/);
      expect(o.body, o.name).not.toMatch(INTERNALS);
    }

    const grpcSummary = tally(grpc.outcomes.map((o) => `${o.name} ${status[o.code]}`));
    expect(grpc.outcomes.filter((o) => o.code === status.UNAVAILABLE).length, `some calls met a cut: ${grpcSummary}`).toBeGreaterThan(0);
    expect(
      grpc.outcomes.filter((o) => o.code !== status.OK && o.code !== status.UNAVAILABLE).map((o) => `${o.name} ${status[o.code]}: ${o.details}`),
      grpcSummary,
    ).toEqual([]);
    for (const o of grpc.outcomes.filter((g) => g.code === status.UNAVAILABLE)) {
      expect(o.retryAfterSeconds, `${o.name}: RetryInfo`).toBeGreaterThan(0);
      expect(o.details, o.name).not.toMatch(INTERNALS);
    }

    // It recovers with no restart: every request and call succeeds again.
    for (const target of restTargets()) {
      const init = { method: target.method ?? 'GET', headers: target.headers, body: target.body };
      await waitFor(async () => (await request(target.url, init)).status < 300, 20_000, 250);
    }
    const again = grpcLoad(0);
    for (const [name, call] of again.calls) await expect(call(), name).resolves.toBeDefined();
    await again.stop();
  }, 180_000);
});

function notSuccessOrUnavailable(o: Outcome): boolean {
  return o.status === undefined || (o.status >= 300 && o.status !== 503);
}

function tally(labels: string[]): string {
  const counts = new Map<string, number>();
  for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
  return [...counts].map(([label, n]) => `${label} x${n}`).join(', ');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
