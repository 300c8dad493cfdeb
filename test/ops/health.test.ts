import { credentials, makeGenericClientConstructor, type Client, type ServiceError } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/redis-server.js';
import { startTestStack, testBackend, type TestStack } from '../support/stack.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { request } from '../support/http.js';

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

  it('is SERVING with the database, NOT_SERVING without it, SERVING again after, with no restart', async () => {
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
});
