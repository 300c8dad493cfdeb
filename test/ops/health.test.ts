import { credentials, makeGenericClientConstructor, Metadata, status, type Client, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TicketServiceClient } from '../../lib/gen/ticketing/v1/ticket.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { waitFor } from '../support/redis-server.js';
import { startTestStack, testBackend, type TestStack } from '../support/stack.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { bearer, request, signUpAndLogin, type JsonResponse } from '../support/http.js';

const HealthClient = makeGenericClientConstructor(healthService, 'grpc.health.v1.Health');

function healthStatus(client: Client, service: string): Promise<string> {
  return new Promise((resolve) => {
    (client as unknown as { check: (r: object, o: object, cb: (e: ServiceError | null, r: { status: string }) => void) => void }).check(
      { service },
      { deadline: Date.now() + 3000 },
      (err, response) => resolve(err ? `error ${err.code}` : String(response.status)),
    );
  });
}

/** What an answer must never show: SQL, driver and library names, error codes, stack frames, file paths, addresses. */
const INTERNALS =
  /\b(SELECT|INSERT|UPDATE|DELETE|FROM|WHERE)\b|`|knex|mysql|mariadb|sqlite|ECONN|ETIMEDOUT|EHOSTUNREACH|PROTOCOL_|\bER_[A-Z_]+|errno|sqlState|\bat \S+ \(|\.(ts|js|mjs|cjs)\b|node_modules|[/\\](work|home|tmp|usr|srv|app)[/\\]|localhost|\b\d{1,3}(\.\d{1,3}){3}\b|stack|Timeout acquiring/i;

function expectUnavailableProblem(res: JsonResponse, label: string): void {
  expect(res.status, `${label}: ${res.text.slice(0, 500)}`).toBe(503);
  expect(res.headers.get('retry-after'), label).toMatch(/^[1-9]\d*$/);
  expect(res.headers.get('content-type') ?? '', label).toMatch(/^application\/problem\+json/);
  expect(res.body, label).toMatchObject({ status: 503 });
  expect(typeof res.body.title, label).toBe('string');
  expect(typeof res.body.detail, label).toBe('string');
  expect(res.text, label).not.toMatch(INTERNALS);
}

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
  let stack: TestStack;
  let authProxy: TcpProxy;
  let ticketProxy: TcpProxy;
  let auth: Client;
  let ticket: Client;

  beforeAll(async () => {
    const mysqlPort = Number(new URL(process.env.TEST_MYSQL_URL!).port || 3306);
    authProxy = await TcpProxy.start(mysqlPort);
    ticketProxy = await TcpProxy.start(mysqlPort);
    const throughProxy = (url: string) => {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String((parsed.pathname.endsWith('_auth') ? authProxy : ticketProxy).port);
      return parsed.toString();
    };
    stack = await startTestStack({}, { mapDatabaseUrl: throughProxy });
    auth = new HealthClient(stack.authGrpcAddress, credentials.createInsecure());
    ticket = new HealthClient(stack.ticketGrpcAddress, credentials.createInsecure());
  });

  afterAll(async () => {
    auth?.close();
    ticket?.close();
    await stack?.stop();
    await authProxy?.close();
    await ticketProxy?.close();
  });

  /** Each test starts from both databases reachable and both services SERVING again, whatever ran before. */
  const healed = async () => {
    ticketProxy.heal();
    authProxy.heal();
    await waitFor(async () => (await healthStatus(ticket, '')) === 'SERVING' && (await healthStatus(auth, '')) === 'SERVING', 20_000, 250);
    await waitFor(async () => (await request(`${stack.baseUrl}/healthz`)).status === 200, 10_000, 250);
  };

  it('is SERVING with the database, NOT_SERVING without it, SERVING again after, with no restart', async () => {
    await healed();
    expect(await healthStatus(auth, '')).toBe('SERVING');
    expect(await healthStatus(ticket, 'ticketing.v1.TicketService')).toBe('SERVING');
    expect((await request(`${stack.baseUrl}/healthz`)).status).toBe(200);

    ticketProxy.cut();
    await waitFor(async () => (await healthStatus(ticket, '')) === 'NOT_SERVING', 15_000, 250);
    expect(await healthStatus(ticket, 'ticketing.v1.TicketService')).toBe('NOT_SERVING');
    expect(await healthStatus(auth, '')).toBe('SERVING');
    expect((await request(`${stack.baseUrl}/healthz`)).status).toBe(503);

    authProxy.cut();
    await waitFor(async () => (await healthStatus(auth, 'auth.v1.AuthService')) === 'NOT_SERVING', 15_000, 250);

    ticketProxy.heal();
    authProxy.heal();
    await waitFor(async () => (await healthStatus(ticket, '')) === 'SERVING' && (await healthStatus(auth, '')) === 'SERVING', 20_000, 250);
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
