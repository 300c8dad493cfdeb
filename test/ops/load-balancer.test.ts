import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemJson } from '../../gateway/problem.js';
import { readCompose } from './compose-file.js';
import { startLoadBalancer, type LoadBalancer } from './load-balancer.js';
import { freePort, waitFor } from '../support/redis-server.js';

/**
 * compose's load balancer (HAProxy, deploy/compose/haproxy.cfg) in front of stand-in gateways:
 * each answers who it is, what it got and the X-Forwarded-For it saw, and its /readyz as the
 * gateway does (200, or 503 while draining). Replicas of one compose service share a port on
 * different addresses, so these listen on 127.0.0.1, 127.0.0.2 and 127.0.0.3, one port.
 */
interface Upstream {
  address: string;
  server: Server;
  draining: boolean;
}

async function upstream(address: string, port: number): Promise<Upstream> {
  const state: Upstream = { address, server: undefined as unknown as Server, draining: false };
  state.server = createServer((req, res) => {
    if (req.url === '/readyz') {
      res.writeHead(state.draining ? 503 : 200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: state.draining ? 'draining' : 'ok' }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': address });
      res.end(JSON.stringify({ name: address, method: req.method, url: req.url, body: Buffer.concat(chunks).toString(), forwardedFor: req.headers['x-forwarded-for'] }));
    });
  });
  await new Promise<void>((resolve) => state.server.listen(port, address, resolve));
  return state;
}

const stop = (u: Upstream) =>
  new Promise<void>((resolve) => {
    u.server.close(() => resolve());
    u.server.closeAllConnections();
  });

describe('the load balancer in front of the gateways (HAProxy, deploy/compose/haproxy.cfg)', () => {
  let port: number;
  let a: Upstream;
  let b: Upstream;
  let c: Upstream | undefined;
  let lb: LoadBalancer;

  beforeAll(async () => {
    port = await freePort();
    [a, b] = await Promise.all([upstream('127.0.0.1', port), upstream('127.0.0.2', port)]);
    lb = await startLoadBalancer(port, ['127.0.0.1', '127.0.0.2']);
    // Both found through DNS and passing their checks.
    await waitFor(async () => new Set(await names(6)).size === 2, 20_000, 200);
  }, 30_000);
  afterAll(async () => {
    await lb?.stop();
    await Promise.all([a, b, c].filter((u): u is Upstream => u !== undefined && u.server.listening).map(stop));
  });

  async function names(n: number, init: RequestInit = {}, path = '/ticket'): Promise<string[]> {
    const seen: string[] = [];
    for (let i = 0; i < n; i++) {
      const response = await fetch(`${lb.baseUrl}${path}`, init);
      expect(response.status, await response.clone().text()).toBe(201);
      seen.push(response.headers.get('x-upstream')!);
    }
    return seen;
  }

  it('is what compose publishes: the haproxy image with this file, the gateways by their service name through Docker\'s DNS, no secret', () => {
    const { services } = readCompose();
    const proxy = services.proxy!;
    expect(proxy.image).toMatch(/^haproxy:2\.\d+$/);
    expect(proxy.volumes).toEqual(['./deploy/compose/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro']);
    const env = proxy.environment as Record<string, string>;
    expect(env).toEqual({ GATEWAYS: 'gateway:8080', DNS_RESOLVER: '127.0.0.11:53' });
    expect((services.gateway as { expose?: string[] }).expose).toEqual(['8080']);
  });

  it('spreads requests round-robin over every gateway, passing method, path, body, status and headers, appending the client to X-Forwarded-For', async () => {
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await fetch(`${lb.baseUrl}/event?limit=${i}`, { method: 'POST', body: `body ${i}`, headers: { 'x-forwarded-for': '203.0.113.9' } });
      expect(response.status).toBe(201);
      const body = (await response.json()) as { name: string; method: string; url: string; body: string; forwardedFor: string };
      expect(body).toMatchObject({ method: 'POST', url: `/event?limit=${i}`, body: `body ${i}` });
      // The client's own address last: the gateway trusts this one hop (TRUST_PROXY=1) for its per-address limits.
      expect(body.forwardedFor).toBe('203.0.113.9, 127.0.0.1');
      expect(response.headers.get('x-upstream')).toBe(body.name);
      seen.push(body.name);
    }
    expect(seen.filter((n) => n === '127.0.0.1').length).toBe(3);
    expect(seen.filter((n) => n === '127.0.0.2').length).toBe(3);
  });

  it('takes a draining gateway (its /readyz 503) out of rotation, and back when it is ready', async () => {
    b.draining = true;
    await waitFor(async () => (await names(4)).every((n) => n === '127.0.0.1'), 10_000, 200);
    expect(new Set(await names(6))).toEqual(new Set(['127.0.0.1']));
    b.draining = false;
    await waitFor(async () => new Set(await names(4)).size === 2, 10_000, 200);
  });

  it('a gateway added under the name (--scale gateway=3) gets requests', async () => {
    c = await upstream('127.0.0.3', port);
    lb.setGateways(['127.0.0.1', '127.0.0.2', '127.0.0.3']);
    await waitFor(async () => (await names(6)).includes('127.0.0.3'), 15_000, 200);
  });

  it('skips a stopped gateway at once, a POST too (a refused connection is retried on another), and answers 503 problem+json with Retry-After when none is left', async () => {
    await stop(c!);
    // Straight after the stop, before any health check noticed: every request still answered.
    const after = await names(12, { method: 'POST', body: '{"n":1}', headers: { 'content-type': 'application/json' } });
    expect(after).not.toContain('127.0.0.3');
    lb.setGateways(['127.0.0.1', '127.0.0.2']);
    await Promise.all([stop(a), stop(b)]);
    // Until HAProxy has noticed, a pooled keep-alive connection may be closed under the client: not yet.
    await waitFor(async () => (await fetch(`${lb.baseUrl}/ticket`).catch(() => undefined))?.status === 503, 10_000, 200);
    const response = await fetch(`${lb.baseUrl}/ticket`);
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    // The gateway's own problem shape, so a client cannot tell which of the two answered.
    expect(await response.json()).toEqual(JSON.parse(problemJson({ status: 503, detail: 'No gateway is available; retry shortly.' })));
    // Its own readiness (compose's health check of it) follows once the checks have failed.
    await waitFor(async () => (await fetch(`${lb.adminUrl}/ready`)).status === 503, 10_000, 200);
  });
});
