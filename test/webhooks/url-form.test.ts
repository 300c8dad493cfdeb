/**
 * Issue 32, item 15: a webhook URL that the `pattern` of /openapi.json refuses is refused by
 * the server too (422 naming url, on create and update), and one it takes is not refused for
 * its form (the installation's default: private targets refused). With private targets allowed,
 * address literals are taken too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, request, type Account } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';

let stack: TestStack;
let account: Account;
let urlPattern: RegExp;

beforeAll(async () => {
  ({ stack, account } = await startSuite());
  const document = (await request(`${stack.baseUrl}/openapi.json`)).body;
  urlPattern = new RegExp(document.components.requestBodies.WebhookCreate.content['application/json'].schema.properties.url.pattern);
});
afterAll(() => stack?.stop());

const api = (method: string, path: string, json?: unknown) => request(`${stack.baseUrl}${path}`, { method, headers: bearer(account.accessToken), json });

describe('webhook URLs: the document and the server refuse the same', () => {
  it.each([
    'https://dev*',
    'https://dev*.example.com/',
    'https://hooks.example.com/a b',
    'https://hooks.example.com/%41',
    'https://hooks.example.com/[x]',
    ' https://hooks.example.com/',
    'https://hooks.example.com:65536/',
    'https://-hooks.example.com/',
    'https://hooks.example.123/',
    'https://xn--hooks.example.com/',
    'https://hooks_x.example.com/',
    'https://256.1.1.1/',
    'https://[::g]/',
    'https://hooks.example.com/é',
    'http://8.8.8.8/',
    'https://[2606:4700:4700::1111]/hooks',
  ])('%s: refused by both', async (url) => {
    expect(urlPattern.test(url)).toBe(false);
    const created = await api('POST', '/webhooks', { url, events: ['*'] });
    expect(created.status, created.text).toBe(422);
    expect(created.body.errors.map((e: any) => e.field)).toEqual(['url']);
  });

  it.each([
    'https://hooks.example.com/in?x=1#y',
    'HTTP://Hooks.Example.com:8443/a/b',
    'https://hooks.example.com./',
  ])('%s: taken by both', async (url) => {
    expect(urlPattern.test(url)).toBe(true);
    const created = await api('POST', '/webhooks', { url, events: ['*'] });
    expect(created.status, created.text).toBe(201);
  });

  it('an update is held to the same form', async () => {
    const created = await api('POST', '/webhooks', { url: 'https://hooks.example.com/', events: ['*'] });
    expect(created.status).toBe(201);
    const put = await api('PUT', `/webhooks/${created.body.guid}`, { url: 'https://dev*' });
    expect(put.status, put.text).toBe(422);
    expect(put.body.errors.map((e: any) => e.field)).toEqual(['url']);
  });
});

describe('with private targets allowed, address literals too', () => {
  let own: Awaited<ReturnType<typeof startSuite>>;
  beforeAll(async () => {
    own = await startSuite({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  });
  afterAll(() => own?.stack.stop());

  it.each(['http://127.0.0.1:9/', 'http://127.0.0.1./', 'http://[::1]:8080/x', 'http://[::ffff:8.8.8.8]/', 'https://hooks.example.com/'])('%s is taken', async (url) => {
    const created = await request(`${own.stack.baseUrl}/webhooks`, { method: 'POST', headers: bearer(own.token), json: { url, events: ['*'] } });
    expect(created.status, created.text).toBe(201);
  });

  it.each(['https://dev*', 'http://256.1.1.1/', 'http://[::g]/', 'http://0x7f.1/'])('%s is still refused for its form', async (url) => {
    const created = await request(`${own.stack.baseUrl}/webhooks`, { method: 'POST', headers: bearer(own.token), json: { url, events: ['*'] } });
    expect(created.status, created.text).toBe(422);
  });
});
