import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../gateway/app.js';
import { createBackendClients } from '../../gateway/clients.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { startGateway, type RunningGateway } from '../../gateway/server.js';
import { request, signUpAndLogin } from '../support/http.js';
import { freePort } from '../support/redis-server.js';
import { startTestStack, type TestStack } from '../support/stack.js';

describe('a backend service that is down', () => {
  let gateway: RunningGateway;
  let baseUrl: string;

  beforeAll(async () => {
    const config = loadConfig({
      PORT: '0',
      BIND_HOST: '127.0.0.1',
      AUTH_GRPC_ADDRESS: `127.0.0.1:${await freePort()}`,
      TICKET_GRPC_ADDRESS: `127.0.0.1:${await freePort()}`,
      GRPC_DEADLINE_MS: '3000',
    });
    gateway = await startGateway(config, createLogger('test', 'silent'));
    baseUrl = `http://127.0.0.1:${gateway.port}`;
  });
  afterAll(async () => gateway?.shutdown(1000));

  it('gives 503 with Retry-After quickly, as problem+json', async () => {
    const started = Date.now();
    const response = await request(`${baseUrl}/auth/users/me`, { headers: { authorization: 'Bearer x' } });
    expect(response.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.status).toBe(503);
  });

  it('the signing keys (JWK Set) answer 503 with Retry-After, never an empty set', async () => {
    const response = await request(`${baseUrl}/auth/.well-known/jwks.json`);
    expect(response.status).toBe(503);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.headers.get('cache-control') ?? '').not.toMatch(/max-age/);
  });

  it('token endpoint answers 503 in RFC 6749 form', async () => {
    const response = await request(`${baseUrl}/auth/tokens`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', username: 'a@b.cd', password: 'x' }) });
    expect(response.status).toBe(503);
    expect(response.body.error).toBe('temporarily_unavailable');
    expect(response.headers.get('retry-after')).toBeTruthy();
  });

  it('/healthz is 503 while the services are not ready', async () => {
    const response = await request(`${baseUrl}/healthz`);
    expect(response.status).toBe(503);
    expect(response.body.services).toMatchObject({ auth: 'NOT_SERVING', ticket: 'NOT_SERVING' });
  });

  it('/readyz follows the gateway alone: 200 while the services are down (the gateway answers 503 itself), /livez 200', async () => {
    const ready = await request(`${baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(ready.body).toEqual({ status: 'ok' });
    const live = await request(`${baseUrl}/livez`);
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
  });
});

describe('a gateway that has begun to shut down', () => {
  it('answers /readyz 503 draining (out of rotation), /livez still 200', async () => {
    const clients = createBackendClients('127.0.0.1:1', '127.0.0.1:1');
    const app = createApp(loadConfig({}), clients, createLogger('test', 'silent'), { isDraining: () => true });
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const ready = await request(`${base}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'draining' });
      expect((await request(`${base}/livez`)).status).toBe(200);
    } finally {
      server.close();
      clients.close();
    }
  });
});

describe('the running stack', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('/healthz is 200 once the gateway and both services are ready', async () => {
    const response = await request(`${stack.baseUrl}/healthz`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok', services: { gateway: 'ok', auth: 'SERVING', ticket: 'SERVING' } });
  });

  it('/readyz is 200 and /livez is 200 once the gateway and both services are ready', async () => {
    const ready = await request(`${stack.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok' });
    const live = await request(`${stack.baseUrl}/livez`);
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
  });

  it('echoes X-Request-Id, or makes one', async () => {
    const given = await request(`${stack.baseUrl}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await request(`${stack.baseUrl}/healthz`);
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('unknown routes are 404 problems', async () => {
    const response = await request(`${stack.baseUrl}/nope`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
  });

  it('bodies: malformed JSON 400, over 1 MiB 413, other content types 415', async () => {
    const url = `${stack.authUrl}/users`;
    const bad = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    const big = await request(url, { method: 'POST', json: { name: 'x'.repeat(1024 * 1024 + 10) } });
    expect(big.status).toBe(413);
    const text = await request(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(text.status).toBe(415);
    const array = await request(url, { method: 'POST', json: [1, 2] });
    expect(array.status).toBe(400);
  });

  it('never sends internal details in an error', async () => {
    const account = await signUpAndLogin(stack);
    const response = await request(`${stack.authUrl}/companies`, { method: 'POST', headers: { authorization: `Bearer ${account.accessToken}` }, json: { name: 'x'.repeat(300) } });
    expect(response.status).toBe(422);
    expect(response.text).not.toMatch(/stack|at \w+ \(|select |insert |knex|sqlite|mysql/i);
  });
});
