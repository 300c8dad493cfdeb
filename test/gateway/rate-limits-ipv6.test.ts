import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../gateway/app.js';
import { createBackendClients } from '../../gateway/clients.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { request } from '../support/http.js';

/**
 * The per-address API limit counts an IPv6 client by its prefix (docs/rate-limits.md): one
 * client holds a whole /64, so counting each address alone gave it 2^64 allowances. The gateway
 * alone answers `/` without a backend; TRUST_PROXY=loopback lets each request name its address.
 */
function gatewayWith(env: Record<string, string>) {
  const clients = createBackendClients('127.0.0.1:1', '127.0.0.1:1');
  const app = createApp(loadConfig({ RATE_LIMIT_PER_ADDRESS: '3', RATE_LIMIT_PER_TOKEN: 'off', TRUST_PROXY: 'loopback', ...env }), clients, createLogger('test', 'silent'));
  const server = http.createServer(app).listen(0, '127.0.0.1');
  return {
    ready: new Promise((resolve) => server.once('listening', resolve)),
    status: async (address: string) => (await request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { headers: { 'x-forwarded-for': address } })).status,
    close() {
      server.close();
      clients.close();
    },
  };
}

describe('the per-address limit by IPv6 prefix (default /64)', () => {
  const gateway = gatewayWith({});
  beforeAll(() => gateway.ready);
  afterAll(() => gateway.close());

  it('addresses of one /64, in any spelling, share one allowance; the next /64 and IPv4 have their own', async () => {
    const sameClient = ['2001:db8:aa:1::1', '2001:db8:aa:1:ffff:ffff:ffff:ffff', '2001:0DB8:00AA:0001::9'];
    expect(await Promise.all(sameClient.map((a) => gateway.status(a)))).toEqual([200, 200, 200]);
    expect(await gateway.status('2001:db8:aa:1:1234::5')).toBe(429);
    expect(await gateway.status('2001:db8:aa:2::1')).toBe(200);
    // IPv4 (and IPv4 written as IPv6) is counted by the address itself.
    for (let i = 0; i < 3; i++) expect(await gateway.status('198.51.100.7')).toBe(200);
    expect(await gateway.status('::ffff:198.51.100.7')).toBe(429);
    expect(await gateway.status('198.51.100.8')).toBe(200);
  });
});

describe('RATE_LIMIT_IPV6_PREFIX_LENGTH', () => {
  const wide = gatewayWith({ RATE_LIMIT_IPV6_PREFIX_LENGTH: '48' });
  const exact = gatewayWith({ RATE_LIMIT_IPV6_PREFIX_LENGTH: '128' });
  beforeAll(() => Promise.all([wide.ready, exact.ready]));
  afterAll(() => {
    wide.close();
    exact.close();
  });

  it('48: every /64 of a /48 shares one allowance', async () => {
    for (const a of ['2001:db8:bb:1::1', '2001:db8:bb:2::1', '2001:db8:bb:ffff::1']) expect(await wide.status(a)).toBe(200);
    expect(await wide.status('2001:db8:bb:3::1')).toBe(429);
    expect(await wide.status('2001:db8:bc:1::1')).toBe(200);
  });

  it('128: each address alone', async () => {
    for (let i = 0; i < 3; i++) expect(await exact.status('2001:db8:cc:1::1')).toBe(200);
    expect(await exact.status('2001:db8:cc:1::1')).toBe(429);
    expect(await exact.status('2001:db8:cc:1::2')).toBe(200);
  });

  it('is a whole number from 1 to 128', () => {
    for (const bad of ['0', '129', 'sixty-four', '64.5']) expect(() => loadConfig({ RATE_LIMIT_IPV6_PREFIX_LENGTH: bad })).toThrow(/RATE_LIMIT_IPV6_PREFIX_LENGTH/);
    expect(loadConfig({}).RATE_LIMIT_IPV6_PREFIX_LENGTH).toBe(64);
  });
});
