/**
 * Issue 32, item 15, the token endpoint:
 * - the password and refresh_token grants check client credentials that are sent (RFC 6749
 *   3.2.1): wrong ones are 401 invalid_client, and nothing is issued or used up;
 * - a JSON body's `company_id` (or any parameter) of another type than a string, or a form
 *   parameter sent twice, is 400 invalid_request, never a token for the default company.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, passwordToken, request, type Account } from '../support/http.js';
import type { TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';

let stack: TestStack;
let account: Account;
let client: { client_id: string; client_secret: string };

beforeAll(async () => {
  ({ stack, account } = await startSuite());
  const created = await request(`${stack.authUrl}/clients`, { method: 'POST', headers: bearer(account.accessToken), json: { name: 'shop' } });
  expect(created.status).toBe(201);
  client = created.body;
});
afterAll(() => stack?.stop());

const basic = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });
const tokens = (body: Record<string, unknown> | URLSearchParams, headers: Record<string, string> = {}) =>
  request(`${stack.authUrl}/tokens`, body instanceof URLSearchParams ? { method: 'POST', headers, body } : { method: 'POST', headers, json: body });

describe('client credentials sent with the password and refresh_token grants', () => {
  const password = () => ({ grant_type: 'password', username: account.email, password: account.password });

  it.each([
    ['a wrong secret in Basic', () => ({ headers: basic(client.client_id, 'wrong'), body: {} })],
    ['an unknown client in Basic', () => ({ headers: basic('no-such-client', 'secret'), body: {} })],
    ['a wrong secret in the body', () => ({ headers: {}, body: { client_id: client.client_id, client_secret: 'wrong' } })],
    ['a client id without its secret', () => ({ headers: {}, body: { client_id: client.client_id } })],
  ] as const)('password grant with %s: 401 invalid_client', async (_, sent) => {
    const { headers, body } = sent();
    const res = await tokens({ ...password(), ...body }, headers);
    expect(res.status, res.text).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    expect(res.body.access_token).toBeUndefined();
  });

  it('password grant with the right client credentials, or none: a token', async () => {
    const withClient = await tokens(password(), basic(client.client_id, client.client_secret));
    expect(withClient.status, withClient.text).toBe(200);
    const inBody = await tokens({ ...password(), client_id: client.client_id, client_secret: client.client_secret });
    expect(inBody.status, inBody.text).toBe(200);
    expect((await tokens(password())).status).toBe(200);
  });

  it('refresh_token grant with wrong client credentials: 401 invalid_client, and the refresh token is still good', async () => {
    const { refresh_token } = await passwordToken(stack, account.email, account.password);
    const wrong = await tokens({ grant_type: 'refresh_token', refresh_token }, basic(client.client_id, 'wrong'));
    expect(wrong.status, wrong.text).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const right = await tokens({ grant_type: 'refresh_token', refresh_token }, basic(client.client_id, client.client_secret));
    expect(right.status, right.text).toBe(200);
  });
});

describe('token endpoint parameters of the wrong type', () => {
  it.each([[[]], [false], [{}], [[account?.companyId]], [null]])('company_id %j: 400 invalid_request', async (companyId) => {
    const res = await tokens({ grant_type: 'password', username: account.email, password: account.password, company_id: companyId });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.error_description).toContain('company_id');
  });

  it('a form parameter sent twice: 400 invalid_request', async () => {
    const form = new URLSearchParams([['grant_type', 'password'], ['username', account.email], ['password', account.password], ['company_id', account.companyId], ['company_id', '*']]);
    const res = await tokens(form);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('other parameters too: a grant_type or a refresh token that is no string', async () => {
    expect((await tokens({ grant_type: ['password'], username: account.email, password: account.password })).body.error).toBe('invalid_request');
    expect((await tokens({ grant_type: 'refresh_token', refresh_token: { a: 1 } })).status).toBe(400);
    expect((await request(`${stack.authUrl}/tokens/revoke`, { method: 'POST', json: { token: ['x'] } })).body.error).toBe('invalid_request');
  });

  it('a string company_id still works', async () => {
    const res = await tokens({ grant_type: 'password', username: account.email, password: account.password, company_id: account.companyId });
    expect(res.status, res.text).toBe(200);
  });
});
