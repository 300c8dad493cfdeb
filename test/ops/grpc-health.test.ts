/**
 * grpc.health.v1 knows every service a port serves: each one reflection lists answers Check
 * (SERVING while the service is ready, NOT_SERVING when it is not), never NOT_FOUND. The
 * transition with a real database cut is in health.test.ts (MySQL); here it is driven through
 * the readiness check of lib/grpc/serve.ts, on both backends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventServiceService } from '../../lib/gen/ticketing/v1/event.js';
import { TicketServiceService } from '../../lib/gen/ticketing/v1/ticket.js';
import { serveGrpc, serviceNameOf, type RunningServer } from '../../lib/grpc/serve.js';
import { createLogger } from '../../lib/logger.js';
import { healthStatus, servedServices } from '../support/grpc-introspection.js';
import { waitFor } from '../support/redis-server.js';
import { startTestStack, type TestStack } from '../support/stack.js';

const NOT_FOUND = 'error 5';

describe('gRPC health of the running stack', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('every service of each port has its health entry, SERVING; other names are NOT_FOUND', async () => {
    const ports = { auth: stack.authGrpcAddress, ticket: stack.ticketGrpcAddress };
    const served = { auth: await servedServices(ports.auth), ticket: await servedServices(ports.ticket) };
    expect(served.ticket).toEqual(['ticketing.v1.CouponService', 'ticketing.v1.EventService', 'ticketing.v1.OrderService', 'ticketing.v1.ReservationService', 'ticketing.v1.TicketService', 'ticketing.v1.WebhookService']);
    expect(served.auth).toEqual(['auth.v1.AuthService']);
    for (const part of ['auth', 'ticket'] as const) {
      const other = part === 'auth' ? served.ticket : served.auth;
      for (const name of ['', ...served[part]]) expect(await healthStatus(ports[part], name), `${part} port: "${name}"`).toBe('SERVING');
      for (const name of [...other, 'ticketing.v1.NoSuchService']) expect(await healthStatus(ports[part], name), `${part} port: ${name}`).toBe(NOT_FOUND);
    }
  });
});

describe('serveGrpc health follows readiness for every service it serves', () => {
  let server: RunningServer;
  let ready = true;
  const services = [TicketServiceService, EventServiceService];
  const address = () => `127.0.0.1:${server.port}`;
  const statuses = () => Promise.all(['', ...services.map(serviceNameOf)].map((name) => healthStatus(address(), name)));

  beforeAll(async () => {
    server = await serveGrpc({
      host: '127.0.0.1',
      port: 0,
      portSetting: 'TICKET_GRPC_PORT',
      services: services.map((definition) => ({ definition, implementation: {} })),
      logger: createLogger('test', 'silent'),
      isReady: async () => ready,
      checkEveryMs: 50,
    });
  });
  afterAll(async () => server?.shutdown(1000));

  it('names each service after its methods', () => {
    expect(services.map(serviceNameOf)).toEqual(['ticketing.v1.TicketService', 'ticketing.v1.EventService']);
  });

  it('moves all of them to NOT_SERVING and back together', async () => {
    expect(await statuses()).toEqual(['SERVING', 'SERVING', 'SERVING']);
    ready = false;
    await waitFor(async () => (await healthStatus(address(), '')) === 'NOT_SERVING', 10_000);
    expect(await statuses()).toEqual(['NOT_SERVING', 'NOT_SERVING', 'NOT_SERVING']);
    ready = true;
    await waitFor(async () => (await healthStatus(address(), '')) === 'SERVING', 10_000);
    expect(await statuses()).toEqual(['SERVING', 'SERVING', 'SERVING']);
    // and by hand, as on shutdown
    server.setServing(false);
    expect(await statuses()).toEqual(['NOT_SERVING', 'NOT_SERVING', 'NOT_SERVING']);
    // held down while the readiness check keeps saying ready
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await statuses()).toEqual(['NOT_SERVING', 'NOT_SERVING', 'NOT_SERVING']);
    server.setServing(true);
    await waitFor(async () => (await healthStatus(address(), '')) === 'SERVING', 10_000);
  });
});
