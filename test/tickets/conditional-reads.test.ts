/**
 * Conditional reads (RFC 9110 13.1.2): If-None-Match naming the current ETag answers 304 with
 * the ETag and no body, on every GET that returns an ETag (events and tickets). fetch sends
 * `Cache-Control: no-cache` with every conditional request, as browsers do: the origin answers
 * the condition all the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/stack.js';
import { createEvent, createTicket, expectProblem, h, putTicket, request, signUpAndLogin, NIL_LIKE_GUID, type Who } from './helpers.js';

let stack: TestStack;
let who: Who;
let eventGuid: string;

beforeAll(async () => {
  stack = await startTestStack();
  who = { stack, token: (await signUpAndLogin(stack)).accessToken };
  eventGuid = (await createEvent(who, { name: 'Conditional event' })).guid;
});
afterAll(async () => stack?.stop());

const read = (path: string, ifNoneMatch?: string, method = 'GET') =>
  request(`${stack.baseUrl}${path}`, { method, headers: h(who, ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch }) });

async function expectNotModified(path: string, ifNoneMatch: string, etag: string) {
  const res = await read(path, ifNoneMatch);
  expect(res.status, `${ifNoneMatch}: ${res.text}`).toBe(304);
  expect(res.headers.get('etag')).toBe(etag);
  expect(res.text).toBe('');
}

describe.each([
  ['ticket', async () => `/ticket/${(await createTicket(who, eventGuid)).guid}`],
  ['event', async () => `/event/${(await createEvent(who, { name: 'Another event' })).guid}`],
])('If-None-Match on GET /%s/{guid}', (_noun, make) => {
  it('the current ETag, strong or weak, alone or in a list, or *: 304 with the ETag and no body', async () => {
    const path = await make();
    const etag = (await read(path)).headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    await expectNotModified(path, etag, etag);
    await expectNotModified(path, `W/${etag}`, etag);
    await expectNotModified(path, `"something-else", ${etag}`, etag);
    await expectNotModified(path, '*', etag);
  });

  it('another ETag: 200 with the object; HEAD answers 304 alike', async () => {
    const path = await make();
    const etag = (await read(path)).headers.get('etag')!;
    const other = await read(path, '"not-the-etag", W/"nor-this"');
    expect(other.status).toBe(200);
    expect(other.headers.get('etag')).toBe(etag);
    expect(other.body.guid).toBe(path.split('/').pop());
    const head = await read(path, etag, 'HEAD');
    expect(head.status).toBe(304);
    expect(head.headers.get('etag')).toBe(etag);
  });

  it('a missing object is 404 even with *', async () => {
    const path = (await make()).replace(/[^/]+$/, NIL_LIKE_GUID);
    expectProblem(await read(path, '*'), 404);
  });
});

it('after a change the old ETag no longer matches: 200 with the new object and ETag', async () => {
  const t = await createTicket(who, eventGuid);
  const old = (await read(`/ticket/${t.guid}`)).headers.get('etag')!;
  const put = await putTicket(who, t.guid, { description: 'changed' });
  const res = await read(`/ticket/${t.guid}`, old);
  expect(res.status).toBe(200);
  expect(res.body.description).toBe('changed');
  expect(res.headers.get('etag')).toBe(put.headers.get('etag'));
  await expectNotModified(`/ticket/${t.guid}`, put.headers.get('etag')!, put.headers.get('etag')!);
});
