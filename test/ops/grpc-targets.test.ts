import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';
import { bearer, request, signUpAndLogin } from '../support/http.js';
import { freePort, waitFor } from '../support/redis-server.js';
import type { TestStack } from '../support/stack.js';
import { spawnPart, startTopology, type RunningProcess, type Topology } from './processes.js';

/**
 * AUTH_GRPC_ADDRESS / TICKET_GRPC_ADDRESS take any gRPC target URI, and the clients spread their
 * calls round-robin over every address it resolves to: two ticket service processes behind one
 * `ipv4:` target both serve a gateway's calls.
 */

const stacks: Topology[] = [];
const spawned: RunningProcess[] = [];
afterAll(async () => {
  await Promise.all(spawned.map((p) => p.kill()));
  for (const stack of stacks) await stack.stop();
}, 120_000);

/** ListEvents calls (GET /event) a ticket service process has answered, from its metrics. */
async function ticketCallsServed(metricsPort: number): Promise<number> {
  const text = (await request(`http://127.0.0.1:${metricsPort}/metrics`)).text;
  return [...text.matchAll(/^grpc_server_handled_total\{[^}]*grpc_method="ListEvents"[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

describe('gRPC targets', () => {
  it('accepts host:port and gRPC target URIs, and nothing else', () => {
    for (const target of ['ticket:50051', 'dns:///ticket:50051', 'dns:ticket:50051', 'ipv4:127.0.0.1:50051,127.0.0.1:50061', 'ipv6:[::1]:50051', 'unix:/run/ticket.sock']) {
      expect(loadConfig({ TICKET_GRPC_ADDRESS: target, AUTH_GRPC_ADDRESS: target }).ticketGrpcAddress, target).toBe(target);
    }
    for (const bad of ['ticket', 'ticket:port', 'http://ticket:50051', 'dns:///ticket 50051']) {
      expect(() => loadConfig({ TICKET_GRPC_ADDRESS: bad }), bad).toThrow(/TICKET_GRPC_ADDRESS: must be host:port or a gRPC target URI/);
    }
  });

  it('a gateway with TICKET_GRPC_ADDRESS=ipv4:<first>,<second> spreads its calls over both ticket services', async () => {
    const stack = await startTopology();
    stacks.push(stack);
    const second = { port: await freePort(), metrics: await freePort() };
    const ticket2 = spawnPart('ticket', { ...stack.env.ticket, TICKET_GRPC_PORT: String(second.port), METRICS_PORT: String(second.metrics) });
    spawned.push(ticket2);
    await ticket2.waitForOutput(/ticket service ready/);

    const gatewayPort = await freePort();
    const gateway2 = spawnPart('gateway', {
      ...stack.env.gateway,
      PORT: String(gatewayPort),
      METRICS_PORT: String(await freePort()),
      TICKET_GRPC_ADDRESS: `ipv4:127.0.0.1:${stack.ports.ticket},127.0.0.1:${second.port}`,
    });
    spawned.push(gateway2);
    const baseUrl = `http://127.0.0.1:${gatewayPort}`;
    await waitFor(async () => (await fetch(`${baseUrl}/healthz`).catch(() => undefined))?.status === 200, 60_000, 250);

    const account = await signUpAndLogin({ authUrl: `${baseUrl}${stack.env.gateway.AUTH_PATH_PREFIX}`, baseUrl } as TestStack);
    const before = [await ticketCallsServed(stack.ports.metrics.ticket), await ticketCallsServed(second.metrics)];
    const CALLS = 20;
    for (let i = 0; i < CALLS; i++) {
      const events = await request(`${baseUrl}/event`, { headers: bearer(account.accessToken) });
      expect(events.status, events.text).toBe(200);
    }
    const served = [(await ticketCallsServed(stack.ports.metrics.ticket)) - before[0]!, (await ticketCallsServed(second.metrics)) - before[1]!];
    expect(served[0]! + served[1]!).toBe(CALLS);
    // Round-robin over two ready backends: each takes about half, never none.
    expect(served[0], `served: ${served.join(' / ')}`).toBeGreaterThanOrEqual(CALLS / 4);
    expect(served[1], `served: ${served.join(' / ')}`).toBeGreaterThanOrEqual(CALLS / 4);
  }, 180_000);
});
