import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, passwordToken, request, signUpAndLogin, type Account } from '../support/http.js';
import { startTestStack, testBackend, type TestStack } from '../support/stack.js';
import { startSuite } from '../support/suite.js';

const tokenRequest = (stack: TestStack, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  request(`${stack.authUrl}/tokens`, { method: 'POST', body: new URLSearchParams(fields), headers });

const me = (stack: TestStack, token: string) => request(`${stack.authUrl}/users/me`, { headers: bearer(token) });

describe('token endpoint', () => {
  let stack: TestStack;
  let account: Account;
  beforeAll(async () => {
    ({ stack, account } = await startSuite());
  });
  afterAll(() => stack?.stop());

  it('password grant: OAuth2 response with the default company and no-store', async () => {
    const response = await tokenRequest(stack, { grant_type: 'password', username: account.email, password: account.password });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, refresh_token_expires_in: expect.any(Number) });
    expect(response.body.access_token.split('.')).toHaveLength(3);
    expect(response.body.refresh_token).toEqual(expect.any(String));
    expect(response.body.info.companies).toEqual([{ guid: account.companyId, name: 'Test Company' }]);
  });

  it('password grant accepts a JSON body and a case-insensitive e-mail', async () => {
    const response = await request(`${stack.authUrl}/tokens`, {
      method: 'POST',
      json: { grant_type: 'password', username: account.email.toUpperCase(), password: account.password },
    });
    expect(response.status).toBe(200);
  });

  it('a wrong password and an unknown user get the same answer', async () => {
    const wrong = await tokenRequest(stack, { grant_type: 'password', username: account.email, password: 'not the password' });
    const unknown = await tokenRequest(stack, { grant_type: 'password', username: 'nobody@example.com', password: 'not the password' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
    expect(unknown.status).toBe(wrong.status);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers.get('cache-control')).toBe('no-store');
  });

  it('answers RFC 6749 errors for missing and unsupported parameters', async () => {
    const noGrant = await tokenRequest(stack, { username: account.email });
    expect(noGrant.status).toBe(400);
    expect(noGrant.body.error).toBe('invalid_request');
    const unsupported = await tokenRequest(stack, { grant_type: 'authorization_code', code: 'x' });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error).toBe('unsupported_grant_type');
    const missingPassword = await tokenRequest(stack, { grant_type: 'password', username: account.email });
    expect(missingPassword.body.error).toBe('invalid_request');
  });

  it('company_id names one, several or all (*) of the user companies; others are invalid_scope', async () => {
    const second = await request(`${stack.authUrl}/companies`, { method: 'POST', headers: bearer(account.accessToken), json: { name: 'Second' } });
    const secondId = second.body.guid as string;
    const one = await passwordToken(stack, account.email, account.password, secondId);
    expect(one.info.companies.map((c: { guid: string }) => c.guid)).toEqual([secondId]);
    const list = await passwordToken(stack, account.email, account.password, `${account.companyId}, ${secondId}`);
    expect(list.info.companies.map((c: { guid: string }) => c.guid).sort()).toEqual([account.companyId, secondId].sort());
    const all = await passwordToken(stack, account.email, account.password, '*');
    expect(all.info.companies).toHaveLength(2);
    const foreign = await signUpAndLogin(stack);
    const refused = await tokenRequest(stack, { grant_type: 'password', username: account.email, password: account.password, company_id: foreign.companyId });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_scope');
  });

  it('refresh_token grant rotates: the new refresh token works once, the old one is refused', async () => {
    const first = await passwordToken(stack, account.email, account.password);
    const refreshed = await tokenRequest(stack, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);
    expect((await me(stack, refreshed.body.access_token)).status).toBe(200);

    const again = await tokenRequest(stack, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token });
    expect(again.status).toBe(200);
  });

  it('replaying a used refresh token is refused and ends the session', async () => {
    const first = await passwordToken(stack, account.email, account.password);
    const refreshed = await tokenRequest(stack, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(refreshed.status).toBe(200);
    const replay = await tokenRequest(stack, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await me(stack, refreshed.body.access_token)).status).toBe(401);
    const afterReplay = await tokenRequest(stack, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token });
    expect(afterReplay.status).toBe(400);
  });

  it('an unknown refresh token is invalid_grant', async () => {
    const response = await tokenRequest(stack, { grant_type: 'refresh_token', refresh_token: 'made-up' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_grant');
  });

  it('client_credentials: an API client gets a token (body or Basic auth) without refresh token', async () => {
    const created = await request(`${stack.authUrl}/clients`, { method: 'POST', headers: bearer(account.accessToken), json: { name: 'shop' } });
    expect(created.status).toBe(201);
    const { client_id, client_secret } = created.body;
    const viaBody = await tokenRequest(stack, { grant_type: 'client_credentials', client_id, client_secret });
    expect(viaBody.status).toBe(200);
    expect(viaBody.body.refresh_token).toBeUndefined();
    expect((await me(stack, viaBody.body.access_token)).body.guid).toBe(account.user.guid);

    const basic = `Basic ${Buffer.from(`${client_id}:${client_secret}`).toString('base64')}`;
    const viaBasic = await tokenRequest(stack, { grant_type: 'client_credentials' }, { authorization: basic });
    expect(viaBasic.status).toBe(200);

    const wrong = await tokenRequest(stack, { grant_type: 'client_credentials', client_id, client_secret: 'wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const wrongBasic = await tokenRequest(stack, { grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from(`${client_id}:nope`).toString('base64')}` });
    expect(wrongBasic.status).toBe(401);
    expect(wrongBasic.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('revoking an access token refuses it at once', async () => {
    const token = await passwordToken(stack, account.email, account.password);
    expect((await me(stack, token.access_token)).status).toBe(200);
    const revoke = await request(`${stack.authUrl}/tokens/revoke`, { method: 'POST', body: new URLSearchParams({ token: token.access_token }) });
    expect(revoke.status).toBe(200);
    const after = await me(stack, token.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const refresh = await tokenRequest(stack, { grant_type: 'refresh_token', refresh_token: token.refresh_token });
    expect(refresh.status).toBe(400);
  });

  it('revoking a refresh token ends its session; unknown tokens still answer 200', async () => {
    const token = await passwordToken(stack, account.email, account.password);
    const revoke = await request(`${stack.authUrl}/tokens/revoke`, { method: 'POST', json: { token: token.refresh_token, token_type_hint: 'refresh_token' } });
    expect(revoke.status).toBe(200);
    expect((await me(stack, token.access_token)).status).toBe(401);
    const unknown = await request(`${stack.authUrl}/tokens/revoke`, { method: 'POST', json: { token: 'not-a-token' } });
    expect(unknown.status).toBe(200);
  });
});

describe('token endpoint rate limit', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // TRUST_PROXY lets the test speak from several client addresses through X-Forwarded-For.
    stack = await startTestStack({ TOKEN_RATE_LIMIT_PER_ACCOUNT: '3', TOKEN_RATE_LIMIT_PER_ACCOUNT_TOTAL: '5', TOKEN_RATE_LIMIT_PER_ADDRESS: '8', TRUST_PROXY: 'loopback' });
  });
  afterAll(async () => stack?.stop());

  const from = (address: string) => ({ 'x-forwarded-for': address });

  it('limits failed attempts per account and address with 429 + Retry-After, without locking the owner out elsewhere', async () => {
    const account = await signUpAndLogin(stack);
    const wrong = { grant_type: 'password', username: account.email, password: 'wrong password' };
    const right = { grant_type: 'password', username: account.email, password: account.password };

    const attempts = [];
    for (let i = 0; i < 3; i++) attempts.push((await tokenRequest(stack, wrong, from('203.0.113.5'))).status);
    expect(attempts).toEqual([400, 400, 400]);
    const limited = await tokenRequest(stack, right, from('203.0.113.5'));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.error).toBe('temporarily_unavailable');
    expect(limited.headers.get('cache-control')).toBe('no-store');

    // The owner, elsewhere, still gets in; successful attempts never count.
    for (let i = 0; i < 4; i++) expect((await tokenRequest(stack, right, from('198.51.100.7'))).status).toBe(200);
  });

  it('limits failed attempts per account from all addresses together, except from addresses the account signed in from', async () => {
    const account = await signUpAndLogin(stack);
    const wrong = { grant_type: 'password', username: account.email, password: 'wrong password' };
    const right = { grant_type: 'password', username: account.email, password: account.password };
    expect((await tokenRequest(stack, right, from('198.51.100.20'))).status, 'the owner signs in from home').toBe(200);

    // Guessing spread over many addresses, each well under its own per-account allowance (3).
    const guesses = [];
    for (let i = 0; i < 5; i++) guesses.push((await tokenRequest(stack, wrong, from(`203.0.113.${10 + i}`))).status);
    expect(guesses).toEqual([400, 400, 400, 400, 400]);

    // The account-wide allowance (5) is spent: a new address is refused, even with the right password.
    const next = await tokenRequest(stack, wrong, from('203.0.113.30'));
    expect(next.status).toBe(429);
    expect(Number(next.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await tokenRequest(stack, right, from('203.0.113.31'))).status).toBe(429);
    // The owner, from an address the account signed in from, is not locked out.
    expect((await tokenRequest(stack, right, from('198.51.100.20'))).status).toBe(200);
    // Another account is not affected.
    const other = await signUpAndLogin(stack);
    expect((await tokenRequest(stack, { grant_type: 'password', username: other.email, password: other.password }, from('203.0.113.32'))).status).toBe(200);
  });

  it.runIf(testBackend() === 'mysql')('counts failures per user, whatever spelling of the e-mail address the database matches to it', async () => {
    const account = await signUpAndLogin(stack);
    const [local, domain] = account.email.split('@') as [string, string];
    // utf8mb4_unicode_ci matches accents and full-width forms to the plain letters: the same user.
    const spellings = [`${local}@${domain.replace('e', 'é')}`, `${local}@${domain.replace('e', 'ｅ')}`, `${local.replace(/[a-z]/, (c) => `${c}\u0301`.normalize('NFC'))}@${domain}`];
    const statuses = [];
    for (const username of spellings) statuses.push((await tokenRequest(stack, { grant_type: 'password', username, password: 'wrong password' }, from('203.0.113.77'))).status);
    expect(statuses).toEqual([400, 400, 400]);
    const right = await tokenRequest(stack, { grant_type: 'password', username: account.email, password: account.password }, from('203.0.113.77'));
    expect(right.status, 'three failures (the limit) under other spellings count for this user').toBe(429);
  });

  it('limits all attempts per address', async () => {
    const statuses = [];
    for (let i = 0; i < 9; i++) {
      statuses.push((await tokenRequest(stack, { grant_type: 'password', username: `other${i}@example.com`, password: 'whatever1' }, from('192.0.2.9'))).status);
    }
    expect(statuses.slice(0, 8)).toEqual([400, 400, 400, 400, 400, 400, 400, 400]);
    expect(statuses[8]).toBe(429);
  });
});
