import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger.js';
import { listServices } from '../support/grpc-introspection.js';
import { bearer, request, type Account } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';

describe('logs, metrics and reflection', () => {
  let stack: TestStack;
  let account: Account;
  const lines: string[] = [];

  beforeAll(async () => {
    const logger = createLogger('test', 'debug', { write: (line: string) => void lines.push(line) });
    ({ stack, account } = await startSuite({ env: { LOG_LEVEL: 'debug' }, stackOptions: { logger } }));
  });
  afterAll(() => stack?.stop());

  const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  it('carries X-Request-Id through gRPC to the services and logs it there', async () => {
    const response = await request(`${stack.authUrl}/users/me`, { headers: bearer(account.accessToken, { 'x-request-id': 'trace-me-42' }) });
    expect(response.headers.get('x-request-id')).toBe('trace-me-42');
    const withId = logged().filter((entry) => entry.requestId === 'trace-me-42');
    expect(withId.some((entry) => entry.service === 'gateway' && entry.route === '/auth/users/me')).toBe(true);
    expect(withId.some((entry) => entry.service === 'auth' && entry.method === 'GetCurrentUser')).toBe(true);
  });

  it('never logs passwords or tokens', async () => {
    await request(`${stack.authUrl}/tokens`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', username: account.email, password: account.password }) });
    const all = lines.join('\n');
    expect(all).not.toContain(account.password);
    expect(all).not.toContain(account.accessToken);
    expect(all).not.toContain(account.refreshToken);
    expect(all).not.toContain(stack.env.AUTH_SIGNING_KEY!);
    expect(all).not.toContain(stack.env.AUTH_RATE_LIMIT_SECRET!);
  });

  it('serves Prometheus metrics on the metrics port: HTTP by route and status, RPCs by method and code, pools and cache', async () => {
    // its own calls to count: one answered (200 / OK), one refused (401 / UNAUTHENTICATED)
    await request(`${stack.authUrl}/users/me`, { headers: bearer(account.accessToken) });
    await request(`${stack.authUrl}/users/me`, { headers: bearer('bad-token') });
    expect(new URL(stack.metricsUrl).port).not.toBe(new URL(stack.baseUrl).port);
    const response = await request(stack.metricsUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = response.text;
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/auth\/users\/me",status="200"\} \d+/);
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/auth\/users\/me",status="401"\} \d+/);
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="[^"]+",method="GET",route="\/auth\/users\/me",status="200"\}/);
    expect(text).toMatch(/grpc_server_handled_total\{grpc_service="auth",grpc_method="GetCurrentUser",grpc_code="OK"\} \d+/);
    expect(text).toMatch(/grpc_server_handled_total\{grpc_service="auth",grpc_method="GetCurrentUser",grpc_code="UNAUTHENTICATED"\} \d+/);
    expect(text).toMatch(/db_pool_connections\{database="auth",state="used"\} \d+/);
    expect(text).toMatch(/session_cache_up\{cache="(memory|redis)"\} 1/);
    expect(text).toMatch(/session_cache_lookups_total\{result="(hit|miss)"\} \d+/);
    expect(text).not.toMatch(/route="\/auth\/users\/[0-9a-f]{8}-/);
  });

  it('does not serve metrics on the public port: /metrics answers 404 like any unknown route', async () => {
    for (const path of ['/metrics', '/metrics/', '/METRICS', '/metrics?format=text']) {
      const response = await request(`${stack.baseUrl}${path}`);
      const unknown = await request(`${stack.baseUrl}/no-such-route${path.slice('/metrics'.length)}`);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toMatch(/^application\/problem\+json/);
      expect(response.body, path).toEqual({ ...unknown.body, detail: expect.stringMatching(/^No route for GET \/metrics/i) });
      expect(response.text, path).not.toMatch(/http_requests_total|process_cpu/);
    }
    const head = await fetch(`${stack.baseUrl}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(404);
    // The metrics port serves /metrics and nothing else.
    const metricsOrigin = new URL(stack.metricsUrl).origin;
    expect((await request(`${metricsOrigin}/healthz`)).status).toBe(404);
    expect((await request(stack.metricsUrl, { method: 'POST' })).status).toBe(404);
  });

  it('answers gRPC server reflection on both services', async () => {
    expect(await listServices(stack.authGrpcAddress)).toEqual(expect.arrayContaining(['auth.v1.AuthService', 'grpc.health.v1.Health']));
    expect(await listServices(stack.ticketGrpcAddress)).toEqual(
      expect.arrayContaining(['ticketing.v1.EventService', 'ticketing.v1.TicketService', 'grpc.health.v1.Health']),
    );
  });
});
