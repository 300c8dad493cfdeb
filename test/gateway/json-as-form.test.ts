/**
 * `curl -d '{...}'` without a Content-Type sends a URL-encoded form whose only key is the JSON
 * text: the answer says to send Content-Type: application/json, rather than naming the whole
 * JSON string as an unknown field (issue 13 item 4). Nothing is created or changed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer, request, signUpAndLogin, type Account } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let account: Account;
let eventGuid: string;

beforeAll(async () => {
  stack = await startTestStack();
  account = await signUpAndLogin(stack);
  eventGuid = (await request(`${stack.baseUrl}/event`, { method: 'POST', headers: bearer(account.accessToken), json: { name: 'Forms' } })).body.guid;
});
afterAll(async () => stack?.stop());

/** What curl -d sends: the text as is, typed as a form. */
const curlData = (url: string, text: string, method = 'POST') =>
  request(url, { method, headers: bearer(account.accessToken, { 'content-type': 'application/x-www-form-urlencoded' }), body: text });

function expectJsonAsForm(res: Awaited<ReturnType<typeof curlData>>) {
  expect(res.status, res.text).toBe(422);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.body.detail).toContain('Content-Type: application/json');
  expect(res.body.errors).toEqual([{ field: 'Content-Type', message: 'must be application/json for a JSON body' }]);
}

it('creating with JSON text sent as a form: 422 saying to send Content-Type: application/json, nothing created', async () => {
  expectJsonAsForm(await curlData(`${stack.baseUrl}/event/${eventGuid}/ticket`, '{"name":"Early bird","vat_percentage":21}'));
  expectJsonAsForm(await curlData(`${stack.baseUrl}/event`, ' [{"name":"x=y&z"}]'));
  const tickets = await request(`${stack.baseUrl}/event/${eventGuid}/ticket`, { headers: bearer(account.accessToken) });
  expect(tickets.body).toEqual([]);
});

it('updating with JSON text sent as a form: the same 422, nothing changed', async () => {
  const res = await curlData(`${stack.baseUrl}/event/${eventGuid}`, '{"name":"Renamed"}', 'PUT');
  expectJsonAsForm(res);
  expect((await request(`${stack.baseUrl}/event/${eventGuid}`, { headers: bearer(account.accessToken) })).body.name).toBe('Forms');
});

it('the token endpoint answers the same in RFC 6749 form (400 invalid_request)', async () => {
  const res = await request(`${stack.authUrl}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: JSON.stringify({ grant_type: 'password', username: account.email, password: account.password }),
  });
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('invalid_request');
  expect(res.body.error_description).toContain('Content-Type: application/json');
});

it('a real form still works', async () => {
  const res = await request(`${stack.baseUrl}/event/${eventGuid}/ticket`, {
    method: 'POST',
    headers: bearer(account.accessToken),
    body: new URLSearchParams({ name: 'Regular', vat_percentage: '21' }),
  });
  expect(res.status, res.text).toBe(201);
});
