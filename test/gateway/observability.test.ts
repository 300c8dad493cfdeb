import path from 'node:path';
import { createRequire } from 'node:module';
import { credentials, loadPackageDefinition, type GrpcObject, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger.js';
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
    expect(all).not.toContain(stack.env.AUTH_JWT_SECRET!);
  });

  it('serves Prometheus metrics: HTTP by route and status, RPCs by method and code, pools and cache', async () => {
    // its own calls to count: one answered (200 / OK), one refused (401 / UNAUTHENTICATED)
    await request(`${stack.authUrl}/users/me`, { headers: bearer(account.accessToken) });
    await request(`${stack.authUrl}/users/me`, { headers: bearer('bad-token') });
    const response = await request(`${stack.baseUrl}/metrics`);
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

  it('answers gRPC server reflection on both services', async () => {
    const require = createRequire(import.meta.url);
    const protoFile = path.join(path.dirname(require.resolve('@grpc/reflection')), '..', 'proto', 'grpc', 'reflection', 'v1', 'reflection.proto');
    const loaded = loadPackageDefinition(loadSync(protoFile, { keepCase: true })) as GrpcObject;
    const Reflection = ((loaded.grpc as GrpcObject).reflection as GrpcObject).v1 as GrpcObject;
    const listServices = (address: string) =>
      new Promise<string[]>((resolve, reject) => {
        const client = new (Reflection.ServerReflection as ServiceClientConstructor)(address, credentials.createInsecure());
        const call = (client as unknown as { ServerReflectionInfo: (o: object) => NodeJS.EventEmitter & { write(m: object): void; end(): void } })
          .ServerReflectionInfo({ deadline: Date.now() + 5000 });
        call.on('data', (message: { list_services_response?: { service: Array<{ name: string }> } }) => {
          resolve((message.list_services_response?.service ?? []).map((s) => s.name).sort());
          call.end();
          client.close();
        });
        call.on('error', reject);
        call.write({ list_services: '' });
      });
    expect(await listServices(stack.authGrpcAddress)).toEqual(expect.arrayContaining(['auth.v1.AuthService', 'grpc.health.v1.Health']));
    expect(await listServices(stack.ticketGrpcAddress)).toEqual(
      expect.arrayContaining(['ticketing.v1.EventService', 'ticketing.v1.TicketService', 'grpc.health.v1.Health']),
    );
  });
});
