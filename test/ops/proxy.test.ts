import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProxyConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { parseUpstreams, startProxy, type Resolve, type RunningProxy } from '../../services/proxy/round-robin-proxy.js';

/** An upstream that answers who it is, what it got and the X-Forwarded-For it saw. */
async function upstream(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': name });
      res.end(JSON.stringify({ name, method: req.method, url: req.url, body: Buffer.concat(chunks).toString(), forwardedFor: req.headers['x-forwarded-for'] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** The HTTP round-robin proxy in front of the gateway replicas of docker compose (services/proxy). */
describe('round-robin proxy', () => {
  let a: Awaited<ReturnType<typeof upstream>>;
  let b: Awaited<ReturnType<typeof upstream>>;
  let proxy: RunningProxy;
  let base: string;

  beforeAll(async () => {
    [a, b] = await Promise.all([upstream('a'), upstream('b')]);
    const config = loadProxyConfig({ NODE_ENV: 'production', PORT: '0', BIND_HOST: '127.0.0.1', PROXY_UPSTREAM: `127.0.0.1:${a.port},localhost:${b.port}` });
    proxy = await startProxy({ upstreams: parseUpstreams(config.PROXY_UPSTREAM), host: config.BIND_HOST, port: config.PORT, logger: createLogger('test', 'silent') });
    base = `http://127.0.0.1:${proxy.port}`;
  });
  afterAll(async () => {
    await proxy?.shutdown(1000);
    a?.server.close();
    b?.server.close();
  });

  it('needs PROXY_UPSTREAM and no secret, even in production', () => {
    expect(() => loadProxyConfig({ NODE_ENV: 'production' })).toThrow(/PROXY_UPSTREAM: required/);
    expect(() => loadProxyConfig({ PROXY_UPSTREAM: 'gateway' })).toThrow(/PROXY_UPSTREAM: must be host:port/);
    expect(loadProxyConfig({ NODE_ENV: 'production', PROXY_UPSTREAM: 'gateway:8080' }).PROXY_UPSTREAM).toBe('gateway:8080');
  });

  it('spreads requests round-robin over every upstream address, passing method, path, body, status and headers through', async () => {
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await fetch(`${base}/event?limit=${i}`, { method: 'POST', body: `body ${i}`, headers: { 'x-forwarded-for': '203.0.113.9' } });
      expect(response.status).toBe(201);
      const body = (await response.json()) as { name: string; method: string; url: string; body: string; forwardedFor: string };
      expect(body).toMatchObject({ method: 'POST', url: `/event?limit=${i}`, body: `body ${i}` });
      // The client's own address is appended: the gateway trusts this one hop (TRUST_PROXY=1).
      expect(body.forwardedFor).toBe('203.0.113.9, 127.0.0.1');
      expect(response.headers.get('x-upstream')).toBe(body.name);
      seen.push(body.name);
    }
    expect(seen.filter((n) => n === 'a').length).toBe(3);
    expect(seen.filter((n) => n === 'b').length).toBe(3);
  });

  it('skips an upstream that is gone (a request it refused goes to the next), and answers 503 problem+json with Retry-After when none is left', async () => {
    await new Promise<void>((resolve) => b.server.close(() => resolve()));
    b.server.closeAllConnections();
    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${base}/ticket`);
      expect(response.status).toBe(201);
      expect(response.headers.get('x-upstream')).toBe('a');
    }
    // A POST too: the connection was refused, nothing was sent, so it goes to the next one.
    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${base}/event`, { method: 'POST', body: `{"n":${i}}`, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({ name: 'a', method: 'POST', body: `{"n":${i}}` });
    }
    await new Promise<void>((resolve) => a.server.close(() => resolve()));
    a.server.closeAllConnections();
    const response = await fetch(`${base}/ticket`);
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await response.json()) as { status: number }).status).toBe(503);
    const post = await fetch(`${base}/event`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(503);
    // Back again on the same port: served again.
    a.server = createServer((_req, res) => res.end('back'));
    await new Promise<void>((resolve) => a.server.listen(a.port, '127.0.0.1', resolve));
    let text = '';
    for (let i = 0; i < 20 && text !== 'back'; i++) {
      text = await fetch(`${base}/ticket`).then((r) => r.text());
      if (text !== 'back') await new Promise((r) => setTimeout(r, 200));
    }
    expect(text).toBe('back');
  });

  it('keeps the last good addresses when a lookup fails, and concurrent requests share one lookup', async () => {
    const [c, d] = await Promise.all([upstream('c'), upstream('d')]);
    let lookups = 0;
    let failing = false;
    let gate: Promise<void> | undefined;
    const resolve: Resolve = async (host) => {
      lookups++;
      await gate;
      if (failing) throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${host}`), { code: 'EAI_AGAIN' });
      return ['127.0.0.1'];
    };
    const names = createLogger('test', 'silent');
    const flaky = await startProxy({ upstreams: parseUpstreams(`gw-c:${c.port},gw-d:${d.port}`), host: '127.0.0.1', port: 0, logger: names, resolve });
    try {
      const url = `http://127.0.0.1:${flaky.port}/ticket`;
      expect(lookups).toBe(2); // one per upstream name at start
      // DNS fails from now on: every request still reaches a gateway, spread over both.
      failing = true;
      await new Promise((r) => setTimeout(r, 1100));
      const seen = new Set<string>();
      for (let i = 0; i < 6; i++) {
        const response = await fetch(url);
        expect(response.status).toBe(201);
        seen.add(response.headers.get('x-upstream')!);
        await new Promise((r) => setTimeout(r, 250));
      }
      expect([...seen].sort()).toEqual(['c', 'd']);
      expect(lookups).toBeGreaterThan(2); // it did look again, and failed
      // Twenty requests arriving while the list is due for a refresh start one lookup per name, not twenty.
      failing = false;
      await new Promise((r) => setTimeout(r, 1100));
      let release!: () => void;
      gate = new Promise<void>((r) => (release = r));
      const before = lookups;
      const answers = Promise.all(Array.from({ length: 20 }, () => fetch(url).then((r) => r.status)));
      await new Promise((r) => setTimeout(r, 100));
      const started = lookups - before;
      release();
      gate = undefined;
      expect(await answers).toEqual(Array.from({ length: 20 }, () => 201));
      expect(started).toBe(2);
    } finally {
      await flaky.shutdown(1000);
      c.server.close();
      d.server.close();
    }
  });
});
