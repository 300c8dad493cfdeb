/**
 * Webhook endpoints management (PRODUCT.md 10) over REST and gRPC, with the operator's
 * default: private targets refused (422 naming url).
 */
import { credentials, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookServiceClient } from '../../lib/gen/ticketing/v1/webhook.js';
import { callerMetadata, grpcCall, grpcFailure } from '../support/grpc.js';
import { bearer, GUID, request, signUpAndLogin, type Account } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';

let stack: TestStack;
let account: Account;

beforeAll(async () => {
  ({ stack, account } = await startSuite());
});
afterAll(() => stack?.stop());

const ENDPOINT_KEYS = ['guid', 'company_id', 'url', 'events', 'description', 'enabled', 'created_at', 'updated_at'];
const api = (who: Account, method: string, path: string, json?: unknown) => request(`${stack.baseUrl}${path}`, { method, headers: bearer(who.accessToken), json });

describe('webhooks management over REST', () => {
  it('create shows the secret once; read, list, partial update and delete', async () => {
    const created = await api(account, 'POST', '/webhooks', { url: 'https://hooks.example.com/in', events: ['ticket.created', 'ticket.created', 'event.updated'], description: 'CRM' });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body)).toEqual([...ENDPOINT_KEYS.slice(0, 6), 'secret', ...ENDPOINT_KEYS.slice(6)]);
    expect(created.body.guid).toMatch(GUID);
    expect(created.headers.get('location')).toBe(`/webhooks/${created.body.guid}`);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(24);
    expect(created.body).toMatchObject({ company_id: account.companyId, events: ['ticket.created', 'event.updated'], enabled: true, description: 'CRM' });

    const read = await api(account, 'GET', `/webhooks/${created.body.guid}`);
    expect(Object.keys(read.body)).toEqual(ENDPOINT_KEYS);
    expect(read.text).not.toContain(created.body.secret);
    const list = await api(account, 'GET', '/webhooks');
    expect(list.body.map((w: any) => w.guid)).toContain(created.body.guid);
    expect(list.text).not.toContain('whsec_');

    const put = await api(account, 'PUT', `/webhooks/${created.body.guid}`, { enabled: false, events: ['*'] });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ enabled: false, events: ['*'], url: 'https://hooks.example.com/in', description: 'CRM' });

    expect((await api(account, 'DELETE', `/webhooks/${created.body.guid}`)).status).toBe(204);
    expect((await api(account, 'GET', `/webhooks/${created.body.guid}`)).status).toBe(404);
  });

  it.each([
    'http://localhost:9000/x',
    'http://127.0.0.1/x',
    'http://10.0.0.5/x',
    'http://192.168.1.1/x',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/x',
    'http://[::ffff:127.0.0.1]/x',
    'http://[::127.0.0.1]/x',
    'http://[2002:a9fe:a9fe::]/x',
    'http://[fd00:ec2::254]/x',
    'http://0.0.0.0/x',
    'ftp://hooks.example.com/x',
    'not a url',
  ])('a target like %s is 422 naming url', async (url) => {
    const res = await api(account, 'POST', '/webhooks', { url, events: ['*'] });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: any) => e.field)).toEqual(['url']);
  });

  it('events must be known types or ["*"]; url and events are required; PUT refuses a private url too', async () => {
    const bad = await api(account, 'POST', '/webhooks', { url: 'https://hooks.example.com/', events: ['ticket.sold'] });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: any) => e.field)).toEqual(['events']);
    const empty = await api(account, 'POST', '/webhooks', {});
    expect(empty.status).toBe(422);
    expect(empty.body.errors.map((e: any) => e.field).sort()).toEqual(['events', 'url']);
    const created = (await api(account, 'POST', '/webhooks', { url: 'https://hooks.example.com/', events: ['*'] })).body;
    const put = await api(account, 'PUT', `/webhooks/${created.guid}`, { url: 'http://127.0.0.1:8080/' });
    expect(put.status).toBe(422);
    expect(put.body.errors.map((e: any) => e.field)).toEqual(['url']);
  });

  it('PUT is partial: {} is 200 and changes nothing; {"url":null} names url only; one field sent changes that field only', async () => {
    const created = (await api(account, 'POST', '/webhooks', { url: 'https://hooks.example.com/partial', events: ['ticket.created', 'event.updated'], description: 'CRM' })).body;
    const before = (await api(account, 'GET', `/webhooks/${created.guid}`)).body;
    const nothing = await api(account, 'PUT', `/webhooks/${created.guid}`, {});
    expect(nothing.status, nothing.text).toBe(200);
    expect(nothing.body).toEqual(before);
    expect((await api(account, 'GET', `/webhooks/${created.guid}`)).body).toEqual(before);

    const nullUrl = await api(account, 'PUT', `/webhooks/${created.guid}`, { url: null });
    expect(nullUrl.status, nullUrl.text).toBe(422);
    expect(nullUrl.body.errors.map((e: any) => e.field)).toEqual(['url']);

    for (const [field, value] of [
      ['description', 'Billing'],
      ['enabled', false],
      ['events', ['*']],
      ['url', 'https://hooks.example.com/other'],
    ] as const) {
      const current = (await api(account, 'GET', `/webhooks/${created.guid}`)).body;
      const put = await api(account, 'PUT', `/webhooks/${created.guid}`, { [field]: value });
      expect(put.status, put.text).toBe(200);
      expect({ ...put.body, updated_at: current.updated_at }, field).toEqual({ ...current, [field]: value });
    }
  });

  // The plain form: the host without its trailing dot; for an empty userinfo, a non-empty one.
  it.each([
    ['http://localhost./x', 'http://localhost/x'],
    ['http://127.0.0.1./x', 'http://127.0.0.1/x'],
    ['http://LocalHost.:8080/x', 'http://localhost:8080/x'],
    ['http://@hooks.example.com/x', 'http://user@hooks.example.com/x'],
    ['http://:@hooks.example.com/x', 'http://user:pw@hooks.example.com/x'],
    ['https://@hooks.example.com:8443/x', 'https://user@hooks.example.com:8443/x'],
  ])('a target like %s is refused at creation with the same 422 as %s', async (url, plain) => {
    const res = await api(account, 'POST', '/webhooks', { url, events: ['*'] });
    expect(res.status, res.text).toBe(422);
    const plainRes = await api(account, 'POST', '/webhooks', { url: plain, events: ['*'] });
    expect(plainRes.status).toBe(422);
    expect(res.body.errors).toEqual(plainRes.body.errors);
    expect(res.body.errors.map((e: any) => e.field)).toEqual(['url']);
  });

  it('a URL with @ only in its path or query is not a userinfo: accepted', async () => {
    const res = await api(account, 'POST', '/webhooks', { url: 'https://hooks.example.com/in/@team?by=a@b', events: ['*'] });
    expect(res.status, res.text).toBe(201);
  });

  it('another company\'s endpoint is 404 everywhere', async () => {
    const created = (await api(account, 'POST', '/webhooks', { url: 'https://hooks.example.com/', events: ['*'] })).body;
    const stranger = await signUpAndLogin(stack);
    for (const [method, path] of [
      ['GET', `/webhooks/${created.guid}`],
      ['PUT', `/webhooks/${created.guid}`],
      ['DELETE', `/webhooks/${created.guid}`],
      ['POST', `/webhooks/${created.guid}/test`],
      ['GET', `/webhooks/${created.guid}/deliveries`],
    ] as const) {
      expect((await api(stranger, method, path, method === 'PUT' ? { enabled: false } : undefined)).status, `${method} ${path}`).toBe(404);
    }
    expect((await api(stranger, 'GET', '/webhooks')).body).toEqual([]);
  });
});

describe('webhooks management over gRPC', () => {
  it('create, get (no secret), update with a mask, list, delete; NOT_FOUND for others', async () => {
    const client = new WebhookServiceClient(stack.ticketGrpcAddress, credentials.createInsecure());
    try {
      const md = callerMetadata(account.accessToken);
      const created = await grpcCall(client.createWebhook.bind(client), { webhook: { url: 'https://grpc.example.com/h', events: ['reservation.confirmed'], secret: '', guid: '', company_id: '', etag: '' } as never, request_id: '' }, md);
      expect(created.secret).toMatch(/^whsec_/);
      const got = await grpcCall(client.getWebhook.bind(client), { guid: created.guid }, md);
      expect(got.secret).toBe('');
      expect(got.events).toEqual(['reservation.confirmed']);
      const updated = await grpcCall(
        client.updateWebhook.bind(client),
        { guid: created.guid, webhook: { description: 'ops', events: [], guid: '', company_id: '', secret: '', etag: '' } as never, update_mask: ['description'], etag: '' },
        md,
      );
      expect(updated.description).toBe('ops');
      expect(updated.events).toEqual(['reservation.confirmed']);
      const list = await grpcCall(client.listWebhooks.bind(client), { page_size: 0, page_token: '' }, md);
      expect(list.webhooks.map((w) => w.guid)).toContain(created.guid);
      const stranger = await signUpAndLogin(stack);
      const err = await grpcFailure(grpcCall(client.getWebhook.bind(client), { guid: created.guid }, callerMetadata(stranger.accessToken)));
      expect(err.code).toBe(status.NOT_FOUND);
      await grpcCall(client.deleteWebhook.bind(client), { guid: created.guid, etag: '' }, md);
      expect((await grpcFailure(grpcCall(client.getWebhook.bind(client), { guid: created.guid }, md))).code).toBe(status.NOT_FOUND);
    } finally {
      client.close();
    }
  });
});
