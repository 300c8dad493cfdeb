import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCompany, bearer, passwordToken, request, signUpAndLogin, type Account } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';

/** API clients: limited to the companies of the request that made them, listed without secrets, revocable. */
describe('API clients', () => {
  let stack: TestStack;
  let account: Account;
  let second: string;

  const grant = (client: { client_id: string; client_secret: string }, companyId?: string) =>
    request(`${stack.authUrl}/tokens`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', ...client, ...(companyId === undefined ? {} : { company_id: companyId }) }),
    });
  const companiesOf = async (token: string) =>
    ((await request(`${stack.authUrl}/companies`, { headers: bearer(token) })).body as Array<{ guid: string }>).map((c) => c.guid).sort();

  beforeAll(async () => {
    ({ stack, account } = await startSuite());
    second = await addCompany(stack, account, 'Second');
  });
  afterAll(() => stack?.stop());

  it('a token of one company makes a client of that company only, whatever it asks for later', async () => {
    // account.accessToken covers only the default company, although the user belongs to two.
    const created = await request(`${stack.authUrl}/clients`, { method: 'POST', headers: bearer(account.accessToken), json: { name: 'narrow' } });
    expect(created.status).toBe(201);
    expect(created.body.company_ids).toEqual([account.companyId]);
    const all = await grant(created.body, '*');
    expect(all.status).toBe(200);
    expect(await companiesOf(all.body.access_token)).toEqual([account.companyId]);
    const byDefault = await grant(created.body);
    expect(await companiesOf(byDefault.body.access_token)).toEqual([account.companyId]);
    const wider = await grant(created.body, second);
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe('invalid_scope');
  });

  it('a token narrowed by the Company header makes a client of that company only', async () => {
    const both = (await passwordToken(stack, account.email, account.password, '*')).access_token;
    const created = await request(`${stack.authUrl}/clients`, { method: 'POST', headers: bearer(both, { company: second }), json: { name: 'second only' } });
    expect(created.body.company_ids).toEqual([second]);
    const wide = await request(`${stack.authUrl}/clients`, { method: 'POST', headers: bearer(both), json: { name: 'both' } });
    expect([...wide.body.company_ids].sort()).toEqual([account.companyId, second].sort());
    expect(await companiesOf((await grant(wide.body, '*')).body.access_token)).toEqual([account.companyId, second].sort());
  });

  it('lists the caller clients without secrets, and revoking one ends its credentials and its sessions at once', async () => {
    const created = await request(`${stack.authUrl}/clients`, { method: 'POST', headers: bearer(account.accessToken), json: { name: 'to revoke' } });
    const token = (await grant(created.body)).body.access_token as string;
    expect((await request(`${stack.authUrl}/users/me`, { headers: bearer(token) })).status).toBe(200);

    const listed = await request(`${stack.authUrl}/clients`, { headers: bearer(account.accessToken) });
    expect(listed.status).toBe(200);
    const entry = listed.body.find((c: { client_id: string }) => c.client_id === created.body.client_id);
    expect(Object.keys(entry)).toEqual(['client_id', 'name', 'company_ids', 'created_at']);
    expect(listed.text).not.toContain(created.body.client_secret);

    const stranger = await signUpAndLogin(stack);
    const foreign = await request(`${stack.authUrl}/clients/${created.body.client_id}`, { method: 'DELETE', headers: bearer(stranger.accessToken) });
    expect(foreign.status).toBe(404);
    expect((await grant(created.body)).status).toBe(200);

    const revoked = await request(`${stack.authUrl}/clients/${created.body.client_id}`, { method: 'DELETE', headers: bearer(account.accessToken) });
    expect(revoked.status).toBe(204);
    expect((await request(`${stack.authUrl}/users/me`, { headers: bearer(token) })).status).toBe(401);
    const again = await grant(created.body);
    expect(again.status).toBe(401);
    expect(again.body.error).toBe('invalid_client');
    const after = await request(`${stack.authUrl}/clients`, { headers: bearer(account.accessToken) });
    expect(after.body.some((c: { client_id: string }) => c.client_id === created.body.client_id)).toBe(false);
    expect((await request(`${stack.authUrl}/clients/${created.body.client_id}`, { method: 'DELETE', headers: bearer(account.accessToken) })).status).toBe(404);
  });
});

describe('token endpoint answers in RFC 6749 form, also to unreadable bodies', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('malformed JSON, other content types and non-object bodies get {error, error_description} with no-store', async () => {
    const cases: Array<[string, RequestInit, number]> = [
      ['/tokens', { headers: { 'content-type': 'application/json' }, body: '{bad' }, 400],
      ['/tokens', { headers: { 'content-type': 'text/plain' }, body: 'grant_type=password' }, 415],
      ['/tokens/revoke', { headers: { 'content-type': 'application/json' }, body: '[1]' }, 400],
      ['/tokens', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'x'.repeat(1024 * 1024) }) }, 413],
    ];
    for (const [path, init, status] of cases) {
      const response = await request(`${stack.authUrl}${path}`, { method: 'POST', ...init });
      expect(response.status, path).toBe(status);
      expect(response.headers.get('content-type'), path).toContain('application/json');
      expect(response.headers.get('cache-control'), path).toBe('no-store');
      expect(response.body, path).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    }
  });

  it('401s name the error only when a token was presented (RFC 6750 3.1); invalid_client asks for Basic', async () => {
    const none = await request(`${stack.authUrl}/users/me`);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="ticketing"');
    const bad = await request(`${stack.authUrl}/users/me`, { headers: bearer('not-a-token') });
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer realm="ticketing", error="invalid_token"/);
    const tickets = await request(`${stack.baseUrl}/ticket`);
    expect(tickets.headers.get('www-authenticate')).toBe('Bearer realm="ticketing"');
    const client = await request(`${stack.authUrl}/tokens`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'nothing' }),
    });
    expect(client.status).toBe(401);
    expect(client.headers.get('www-authenticate')).toBe('Basic realm="ticketing"');
  });
});
