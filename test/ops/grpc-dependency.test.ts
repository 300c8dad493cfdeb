/**
 * A gRPC dependency that breaks mid-call (the auth service seen from the ticket service, a
 * service seen from the gateway) is unavailable, not an internal error: grpc-js reports a
 * stream that ends without a status as INTERNAL "Received RST_STREAM ...", and that must
 * become UNAVAILABLE with a retry delay / 503 + Retry-After. The peer here is a bare HTTP/2
 * server that takes each call and then breaks it, as a process dying mid-call does.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { credentials, Metadata, Server, ServerCredentials, status, type sendUnaryData, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../gateway/server.js';
import { loadConfig } from '../../lib/config.js';
import { isDependencyDown } from '../../lib/dependency-down.js';
import { AuthServiceClient, AuthServiceService } from '../../lib/gen/auth/v1/auth.js';
import { TicketServiceClient } from '../../lib/gen/ticketing/v1/ticket.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { createLogger } from '../../lib/logger.js';
import { startTicketService, type RunningTicketService } from '../../services/ticket/server.js';
import { request } from '../support/http.js';
import { INTERNALS } from '../support/unavailable.js';

/** An HTTP/2 peer that accepts every gRPC call and ends its stream without a status. */
async function brokenPeer(): Promise<{ address: string; close(): Promise<void> }> {
  const server = http2.createServer();
  server.on('stream', (stream) => stream.close(http2.constants.NGHTTP2_NO_ERROR));
  server.on('session', (session) => session.on('error', () => undefined));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    address: `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
      }),
  };
}

function failure<T>(run: (callback: (err: ServiceError | null, value: T) => void) => void): Promise<ServiceError> {
  return new Promise((resolve, reject) => run((err) => (err ? resolve(err) : reject(new Error('expected the call to fail')))));
}

const bearer = (token: string) => {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
};

let peer: Awaited<ReturnType<typeof brokenPeer>>;
beforeAll(async () => {
  peer = await brokenPeer();
});
afterAll(async () => peer?.close());

describe('the classifier over grpc-js client errors', () => {
  it('a call whose stream ends without a status is a dependency failure', async () => {
    const client = new AuthServiceClient(peer.address, credentials.createInsecure());
    try {
      const err = await failure((cb) => client.getCurrentUser({}, new Metadata(), { deadline: Date.now() + 5000 }, cb));
      expect(err.code).toBe(status.INTERNAL);
      expect(err.details).toMatch(/^Received RST_STREAM/);
      expect(isDependencyDown(err)).toBe(true);
    } finally {
      client.close();
    }
  });

  it('an INTERNAL or NOT_FOUND a server handler answers is not', async () => {
    const server = new Server();
    const answer = { code: status.INTERNAL, details: 'Internal error.' };
    server.addService(AuthServiceService, { getCurrentUser: (_call: unknown, callback: sendUnaryData<unknown>) => callback(answer) });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
    );
    const client = new AuthServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
    try {
      const internal = await failure((cb) => client.getCurrentUser({}, new Metadata(), { deadline: Date.now() + 5000 }, cb));
      expect(internal).toMatchObject({ code: status.INTERNAL, details: 'Internal error.' });
      expect(isDependencyDown(internal)).toBe(false);
      Object.assign(answer, { code: status.NOT_FOUND, details: 'User not found.' });
      expect(isDependencyDown(await failure((cb) => client.getCurrentUser({}, new Metadata(), { deadline: Date.now() + 5000 }, cb)))).toBe(false);
    } finally {
      client.close();
      server.forceShutdown();
    }
  });
});

describe('the ticket service when its auth service breaks mid-call', () => {
  let dataDir: string;
  let ticket: RunningTicketService;
  let client: TicketServiceClient;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'grpc-dependency-'));
    const config = loadConfig({ BIND_HOST: '127.0.0.1', TICKET_GRPC_PORT: '0', DATA_DIR: dataDir, AUTH_GRPC_ADDRESS: peer.address });
    ticket = await startTicketService(config, createLogger('test', 'silent'));
    client = new TicketServiceClient(`127.0.0.1:${ticket.port}`, credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await ticket?.shutdown(1000);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers UNAVAILABLE with a retry delay and no internals, never INTERNAL', async () => {
    const err = await failure((cb) => client.getTicket({ guid: randomBytes(16).toString('hex') }, bearer('any'), { deadline: Date.now() + 5000 }, cb));
    expect(err.code, err.details).toBe(status.UNAVAILABLE);
    expect(readErrorDetails(err).retryAfterSeconds).toBeGreaterThan(0);
    expect(err.details).not.toMatch(INTERNALS);
    expect(err.details).not.toMatch(/RST_STREAM/);
  });
});

describe('the gateway when a service breaks mid-call', () => {
  let gateway: RunningGateway;
  let baseUrl: string;

  beforeAll(async () => {
    const config = loadConfig({ PORT: '0', BIND_HOST: '127.0.0.1', AUTH_GRPC_ADDRESS: peer.address, TICKET_GRPC_ADDRESS: peer.address });
    gateway = await startGateway(config, createLogger('test', 'silent'));
    baseUrl = `http://127.0.0.1:${gateway.port}`;
  });
  afterAll(async () => gateway?.shutdown(1000));

  it('answers 503 + Retry-After as a problem, on ticket and auth routes', async () => {
    for (const url of [`${baseUrl}/event`, `${baseUrl}/auth/users/me`]) {
      const response = await request(url, { headers: { authorization: 'Bearer any' } });
      expect(response.status, `${url}: ${response.text}`).toBe(503);
      expect(response.headers.get('retry-after'), url).toMatch(/^[1-9]\d*$/);
      expect(response.headers.get('content-type'), url).toMatch(/^application\/problem\+json/);
      expect(response.text, url).not.toMatch(INTERNALS);
    }
  });
});
