/**
 * Errors that tell a newcomer what to do (issue 20 item 3): a malformed id says it is not a
 * GUID, an expired token says it expired and how to refresh it, a garbage token says it is not
 * ours, a private webhook target names the setting that allows it, a 409 insufficient_stock
 * says how many are left, a port in use names its variable, and a bad number in the
 * configuration is described in our words.
 */
import { credentials, status } from '@grpc/grpc-js';
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway } from '../../gateway/server.js';
import { loadConfig } from '../../lib/config.js';
import { ReservationServiceClient } from '../../lib/gen/ticketing/v1/reservation.js';
import { TicketServiceClient } from '../../lib/gen/ticketing/v1/ticket.js';
import { readErrorDetails } from '../../lib/grpc/errors.js';
import { serveGrpc } from '../../lib/grpc/serve.js';
import { createLogger } from '../../lib/logger.js';
import { startMetrics } from '../../lib/metrics-server.js';
import { listenFailure } from '../../lib/process/port-in-use.js';
import { callerMetadata, grpcCall, grpcFailure } from '../support/grpc.js';
import { bearer, request, type Account, type JsonResponse } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';
import { withLowS } from '../../lib/tokens/canonical.js';

let stack: TestStack;
let account: Account;
let eventGuid: string;

beforeAll(async () => {
  ({ stack, account, eventGuid } = await startSuite({ event: { name: 'Newcomer event' } }));
});
afterAll(() => stack?.stop());

const call = (path: string, init: { method?: string; json?: unknown; token?: string } = {}) =>
  request(`${stack.baseUrl}${path}`, { method: init.method ?? 'GET', headers: bearer(init.token ?? account.accessToken), ...(init.json === undefined ? {} : { json: init.json }) });

function expectDetail(res: JsonResponse, statusCode: number, detail: RegExp): void {
  expect(res.status, res.text).toBe(statusCode);
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/problem\+json/);
  expect(res.body.detail, res.text).toMatch(detail);
}

async function newTicket(stock: number): Promise<string> {
  const res = await call(`/event/${eventGuid}/ticket`, { method: 'POST', json: { name: 'Few left', vat_percentage: 21, available_stock: stock } });
  expect(res.status, res.text).toBe(201);
  return res.body.guid as string;
}

describe('a malformed id', () => {
  it('is 404 whose detail says it is not a GUID, on every route that takes one; a missing GUID reads as before', async () => {
    const ticket = await newTicket(5);
    const cases: Array<[string, string, unknown?]> = [
      ['GET', '/ticket/null'],
      ['PUT', '/ticket/null', { name: 'x' }],
      ['DELETE', '/ticket/undefined'],
      ['GET', '/event/abc'],
      ['GET', '/event/abc/ticket'],
      ['POST', '/event/null/ticket', { name: 'x', vat_percentage: 21 }],
      ['GET', '/reservation/abc'],
      ['POST', '/reservation/abc/confirm'],
      ['GET', '/ticket/abc/reservations'],
      ['POST', '/ticket/abc/reservations', { amount: 1 }],
      ['POST', '/event/abc/scans', { barcode: 'ABCD-1234' }],
      ['GET', '/webhooks/abc'],
    ];
    for (const [method, path, json] of cases) {
      const res = await call(path, { method, json });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(404);
      expect(res.body.detail, `${method} ${path}`).toMatch(/^(Ticket|Event|Reservation|Webhook) not found: "(null|undefined|abc)" is not a GUID/);
    }
    // The auth API's API clients too (another process, the same rule in lib/grpc/errors.ts).
    expectDetail(await request(`${stack.authUrl}/clients/abc`, { method: 'DELETE', headers: bearer(account.accessToken) }), 404, /^API client not found: "abc" is not a GUID/);
    expectDetail(await request(`${stack.authUrl}/clients/00000000-0000-4000-8000-000000000000`, { method: 'DELETE', headers: bearer(account.accessToken) }), 404, /^API client not found\.$/);
    // A long one is cut in the message.
    const long = await call(`/ticket/${'x'.repeat(500)}`);
    expect(long.body.detail).toMatch(/^Ticket not found: "x{40}\.\.\." is not a GUID/);
    // A well-formed GUID that names nothing (or another company's) says only that.
    expectDetail(await call('/ticket/00000000-0000-4000-8000-000000000000'), 404, /^Ticket not found\.$/);
    expectDetail(await call(`/event/${eventGuid}/scans`, { method: 'POST', json: { barcode: 'NO-SUCH-CODE' } }), 404, /^Barcode not found\.$/);
    expect((await call(`/ticket/${ticket}`)).status).toBe(200);
  });

  it('says so over gRPC too (NOT_FOUND), with the ResourceInfo as before', async () => {
    const client = new TicketServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
    try {
      const err = await grpcFailure(grpcCall(client.getTicket.bind(client), { guid: 'null' }, callerMetadata(account.accessToken)));
      expect(err.code).toBe(status.NOT_FOUND);
      expect(err.details).toMatch(/"null" is not a GUID/);
      expect(readErrorDetails(err).resource).toEqual({ type: 'ticketing.v1.Ticket', name: 'null' });
    } finally {
      client.close();
    }
  });
});

describe('a refused access token', () => {
  const claims = () => jwt.decode(account.accessToken) as { sid: string; sub: string };
  /** Signed as the auth service signs (ES256 under its kid), with `key`: its own signing key or another one. */
  const ownKey = () => createPrivateKey({ key: Buffer.from(stack.env.AUTH_SIGNING_KEY!, 'base64'), format: 'der', type: 'pkcs8' });
  const anotherKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const signed = (payload: object, key: KeyObject, options: jwt.SignOptions = {}) =>
    withLowS(jwt.sign(payload, key, { algorithm: 'ES256', keyid: jwt.decode(account.accessToken, { complete: true })!.header.kid, issuer: 'ticketing-auth', audience: 'ticketing-api', subject: claims().sub, ...options }));

  it('an expired one says it expired and to use grant_type=refresh_token, in WWW-Authenticate (RFC 6750) and the problem', async () => {
    const exp = Math.floor(Date.now() / 1000) - 120;
    const expired = signed({ sid: claims().sid, exp }, ownKey());
    const when = new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    for (const url of [`${stack.baseUrl}/event`, `${stack.authUrl}/users/me`]) {
      const res = await request(url, { headers: bearer(expired) });
      expectDetail(res, 401, new RegExp(`^The access token expired at ${when}; get a new one with grant_type=refresh_token .*POST /auth/tokens`));
      const header = res.headers.get('www-authenticate') ?? '';
      expect(header).toMatch(/^Bearer realm="ticketing", error="invalid_token", error_description="The access token expired at [^"]*grant_type=refresh_token[^"]*"$/);
    }
  });

  it('a garbage or foreign one says it is not a token of this server', async () => {
    const foreign = signed({ sid: claims().sid }, anotherKey, { expiresIn: 60 });
    // Expired and signed by someone else: not ours first.
    const foreignExpired = signed({ sid: claims().sid, exp: Math.floor(Date.now() / 1000) - 120 }, anotherKey);
    const otherAudience = signed({ sid: claims().sid }, ownKey(), { expiresIn: 60, audience: 'someone-else' });
    for (const token of ['abc', 'a.b.c', foreign, foreignExpired, otherAudience, `${account.accessToken.slice(0, -4)}AAAA`]) {
      const res = await call('/event', { token });
      expectDetail(res, 401, /^The access token is not a token of this server .*POST \/auth\/tokens/);
      expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token", error_description="The access token is not a token of this server/);
    }
    expect((await call('/event')).status).toBe(200);
  });
});

describe('a private webhook target', () => {
  it('is refused with a message naming WEBHOOK_ALLOW_PRIVATE_TARGETS', async () => {
    for (const url of ['http://127.0.0.1/hook', 'http://10.0.0.1/hook', 'http://localhost/hook', 'http://169.254.169.254/latest']) {
      const res = await call('/webhooks', { method: 'POST', json: { url, events: ['*'] } });
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors, url).toEqual([{ field: 'url', message: expect.stringMatching(/public host.*WEBHOOK_ALLOW_PRIVATE_TARGETS=true/) }]);
    }
  });
});

describe('409 insufficient_stock', () => {
  it('carries how many are left: `remaining` (a number) and in the detail; 0 when sold out', async () => {
    const ticket = await newTicket(5);
    expect((await call(`/ticket/${ticket}/reservations`, { method: 'POST', json: { amount: 3 } })).status).toBe(201);
    const short = await call(`/ticket/${ticket}/reservations`, { method: 'POST', json: { amount: 3 } });
    expectDetail(short, 409, /\(2 left\)\.$/);
    expect(short.body).toMatchObject({ code: 'insufficient_stock', remaining: 2 });
    expect((await call(`/ticket/${ticket}/reservations`, { method: 'POST', json: { amount: 2 } })).status).toBe(201);
    const soldOut = await call(`/ticket/${ticket}/reservations`, { method: 'POST', json: { amount: 1 } });
    expect(soldOut.body).toMatchObject({ status: 409, code: 'insufficient_stock', remaining: 0 });
  });

  it('over gRPC: ErrorInfo reason insufficient_stock with metadata remaining', async () => {
    const ticket = await newTicket(4);
    const client = new ReservationServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
    try {
      const md = () => callerMetadata(account.accessToken);
      await grpcCall(client.reserveTicket.bind(client), { ticket_id: ticket, amount: 3, request_id: '' }, md());
      const err = await grpcFailure(grpcCall(client.reserveTicket.bind(client), { ticket_id: ticket, amount: 2, request_id: '' }, md()));
      expect(readErrorDetails(err)).toMatchObject({ reason: 'insufficient_stock', reasonMetadata: { remaining: '1' } });
    } finally {
      client.close();
    }
  });
});

describe('a port in use', () => {
  let taken: net.Server;
  let port: number;
  beforeAll(async () => {
    taken = net.createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => taken.once('listening', resolve));
    port = (taken.address() as net.AddressInfo).port;
  });
  afterAll(() => taken?.close());
  const logger = createLogger('test', 'silent');

  it('names its variable: METRICS_PORT, PORT, the gRPC ports', async () => {
    await expect(startMetrics({ METRICS_HOST: '127.0.0.1', METRICS_PORT: port }, logger)).rejects.toThrow(
      new RegExp(`^port ${port} on 127.0.0.1 is already in use \\(METRICS_PORT=${port}\\): stop the other process or set METRICS_PORT to a free port, 0 for any free port, or off$`),
    );
    const config = loadConfig({ BIND_HOST: '127.0.0.1', PORT: String(port), RATE_LIMIT_PER_ADDRESS: 'off', RATE_LIMIT_PER_TOKEN: 'off' });
    await expect(startGateway(config, logger)).rejects.toThrow(new RegExp(`\\(PORT=${port}\\): stop the other process or set PORT to a free port$`));
    const grpc = serveGrpc({ host: '127.0.0.1', port, portSetting: 'AUTH_GRPC_PORT', services: [], logger, isReady: async () => true });
    await expect(grpc).rejects.toThrow(new RegExp(`\\(AUTH_GRPC_PORT=${port}\\): stop the other process or set AUTH_GRPC_PORT to a free port$`));
  });

  it('9464 also says it is a common exporter\'s default; any other failure is left as it is', () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:9464'), { code: 'EADDRINUSE' });
    expect((listenFailure(inUse, 'METRICS_PORT', '127.0.0.1', 9464) as Error).message).toMatch(/\(METRICS_PORT=9464, 9464 is also the default port of Prometheus exporters/);
    const denied = Object.assign(new Error('listen EACCES: permission denied 0.0.0.0:80'), { code: 'EACCES' });
    expect(listenFailure(denied, 'PORT', '0.0.0.0', 80)).toBe(denied);
  });
});

describe('a bad number in the configuration', () => {
  it('is described in our words, never the validation library\'s', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: 'eighty' }, /PORT: must be a whole number from 0 to 65535 \(got "eighty"\)/],
      [{ PORT: '80.5' }, /PORT: must be a whole number from 0 to 65535 \(got "80.5"\)/],
      [{ TICKET_GRPC_PORT: '70000' }, /TICKET_GRPC_PORT: must be a whole number from 0 to 65535 \(got "70000"\)/],
      [{ GRPC_DEADLINE_MS: '0' }, /GRPC_DEADLINE_MS: must be a whole number from 1 to 120000/],
      [{ BODY_LIMIT_BYTES: '1MB' }, /BODY_LIMIT_BYTES: must be a whole number of at least 1 \(got "1MB"\)/],
      [{ REVOCATION_POLL_INTERVAL_MS: '2' }, /REVOCATION_POLL_INTERVAL_MS: must be a whole number from 5 to 1000/],
      [{ EDGE_AUTH: 'maybe' }, /EDGE_AUTH: must be true or false/],
      [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent/],
    ];
    for (const [env, expected] of cases) {
      let message = '';
      try {
        loadConfig(env);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, JSON.stringify(env)).toMatch(expected);
      expect(message).not.toMatch(/Invalid input|Invalid option|expected (number|int)|received|NaN|Too (big|small)/i);
    }
  });
});
