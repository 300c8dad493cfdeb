import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, request, signUpAndLogin, uniqueEmail } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

const USER_FIELDS = ['guid', 'default_company_id', 'whitelabel_id', 'name', 'email', 'phone', 'created_at', 'updated_at', 'deleted_at'];
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

describe('sign-up and /users/me', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('signs up a user with its own company and answers 201 with the user object', async () => {
    const email = uniqueEmail('Signup');
    const response = await request(`${stack.authUrl}/users`, {
      method: 'POST',
      json: { name: 'Ann Example', email, password: 'long enough', company_name: 'Ann BV' },
    });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body)).toEqual(USER_FIELDS);
    expect(response.body.email).toBe(email.toLowerCase());
    expect(response.body.guid).toMatch(GUID);
    expect(response.body.default_company_id).toMatch(GUID);
    expect(response.body.whitelabel_id).toMatch(GUID);
    expect(response.body.created_at).toMatch(TIMESTAMP);
    expect(response.body.deleted_at).toBeNull();
    expect(response.body.phone).toBeNull();
    expect(response.text).not.toContain('password');
  });

  it('accepts form bodies too', async () => {
    const form = new URLSearchParams({ name: 'Form User', email: uniqueEmail(), password: 'long enough' });
    const response = await request(`${stack.authUrl}/users`, { method: 'POST', body: form });
    expect(response.status).toBe(201);
  });

  it('refuses a duplicate e-mail (any case) with 409', async () => {
    const email = uniqueEmail();
    const first = await request(`${stack.authUrl}/users`, { method: 'POST', json: { name: 'A', email, password: 'long enough' } });
    expect(first.status).toBe(201);
    const second = await request(`${stack.authUrl}/users`, { method: 'POST', json: { name: 'B', email: email.toUpperCase(), password: 'other password' } });
    expect(second.status).toBe(409);
    expect(second.headers.get('content-type')).toContain('application/problem+json');
  });

  it('lists every invalid field at once with 422', async () => {
    const response = await request(`${stack.authUrl}/users`, { method: 'POST', json: { name: '', email: 'not-an-email', password: 'short' } });
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body).toMatchObject({ type: 'about:blank', status: 422, title: 'Unprocessable Entity' });
    expect(response.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'name', 'password']);
  });

  it('answers /users/me with exactly the spec fields of the token user', async () => {
    const account = await signUpAndLogin(stack);
    const me = await request(`${stack.authUrl}/users/me`, { headers: bearer(account.accessToken) });
    expect(me.status).toBe(200);
    expect(Object.keys(me.body)).toEqual(USER_FIELDS);
    expect(me.body).toEqual(account.user);
  });

  it('answers 401 with WWW-Authenticate and a problem body without a token', async () => {
    const response = await request(`${stack.authUrl}/users/me`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="ticketing"/);
    expect(response.body).toMatchObject({ status: 401, title: 'Unauthorized' });
  });

  it('creates a company that only a new token covers', async () => {
    const account = await signUpAndLogin(stack);
    const created = await request(`${stack.authUrl}/companies`, { method: 'POST', headers: bearer(account.accessToken), json: { name: 'Second BV' } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(['guid', 'name', 'created_at', 'updated_at']);
    const oldToken = await request(`${stack.authUrl}/companies`, { headers: bearer(account.accessToken, { company: created.body.guid }) });
    expect(oldToken.status).toBe(401);
    const listed = await request(`${stack.authUrl}/companies`, { headers: bearer(account.accessToken) });
    expect(listed.body.map((c: { guid: string }) => c.guid)).toEqual([account.companyId]);

    const form = new URLSearchParams({ grant_type: 'password', username: account.email, password: account.password, company_id: '*' });
    const token = await request(`${stack.authUrl}/tokens`, { method: 'POST', body: form });
    const both = await request(`${stack.authUrl}/companies`, { headers: bearer(token.body.access_token) });
    expect(both.body.map((c: { guid: string }) => c.guid).sort()).toEqual([account.companyId, created.body.guid].sort());
  });
});

describe('sign-up switched off', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ SIGNUP_ENABLED: 'false' });
  });
  afterAll(async () => stack?.stop());

  it('refuses sign-up with 403', async () => {
    const response = await request(`${stack.authUrl}/users`, { method: 'POST', json: { name: 'A', email: uniqueEmail(), password: 'long enough' } });
    expect(response.status).toBe(403);
  });
});
