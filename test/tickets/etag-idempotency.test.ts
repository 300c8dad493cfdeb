/**
 * Optimistic concurrency (ETag / If-Match) and retries (Idempotency-Key).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../support/stack.js';
import {
  STRONG_ETAG,
  createEvent,
  createTicket,
  expect422,
  expectProblem,
  getTicket,
  h,
  putTicket,
  readTicket,
  request,
  signUpAndLogin,
  startSuite,
  type JsonResponse,
  type Who,
} from './helpers.js';

let stack: TestStack;
let who: Who;
let eventGuid: string;

beforeAll(async () => {
  ({ stack, who, eventGuid } = await startSuite({ event: { name: 'ETag event' } }));
});

afterAll(() => stack?.stop());

const ticketList = async (event = eventGuid) => (await request(`${stack.baseUrl}/event/${event}/ticket`, { headers: h(who) })).body as Array<{ guid: string; name: string }>;

describe('ETag and If-Match', () => {
  it('the ETag is strong, stable while nothing changes, and changes with the ticket', async () => {
    const t = await createTicket(who, eventGuid);
    const a = await getTicket(who, t.guid);
    const b = await getTicket(who, t.guid);
    expect(a.headers.get('etag')).toMatch(STRONG_ETAG);
    expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    const put = await putTicket(who, t.guid, { description: 'changed' });
    expect(put.status).toBe(200);
    expect(put.headers.get('etag')).toMatch(STRONG_ETAG);
    expect(put.headers.get('etag')).not.toBe(a.headers.get('etag'));
    expect((await getTicket(who, t.guid)).headers.get('etag')).toBe(put.headers.get('etag'));
  });

  it('PUT with a stale If-Match is 412 and changes nothing; with the current one it is 200', async () => {
    const t = await createTicket(who, eventGuid);
    const stale = (await getTicket(who, t.guid)).headers.get('etag')!;
    const first = await putTicket(who, t.guid, { description: 'first writer' });
    expect(first.status).toBe(200);
    const current = first.headers.get('etag')!;
    const conflict = await putTicket(who, t.guid, { description: 'second writer' }, { 'if-match': stale });
    expectProblem(conflict, 412);
    expect((await readTicket(who, t.guid)).description).toBe('first writer');
    const ok = await putTicket(who, t.guid, { description: 'second writer, retried' }, { 'if-match': current });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.description).toBe('second writer, retried');
    const reused = await putTicket(who, t.guid, { description: 'third' }, { 'if-match': current });
    expectProblem(reused, 412);
  });

  it('If-Match: * matches any existing ticket; an unrelated value is 412', async () => {
    const t = await createTicket(who, eventGuid);
    expect((await putTicket(who, t.guid, { description: 'star' }, { 'if-match': '*' })).status).toBe(200);
    expectProblem(await putTicket(who, t.guid, { description: 'nope' }, { 'if-match': '"not-the-etag"' }), 412);
  });

  it('DELETE honours If-Match', async () => {
    const t = await createTicket(who, eventGuid);
    const stale = (await getTicket(who, t.guid)).headers.get('etag')!;
    const current = (await putTicket(who, t.guid, { description: 'moved on' })).headers.get('etag')!;
    const del = (etag: string) => request(`${stack.baseUrl}/ticket/${t.guid}`, { method: 'DELETE', headers: h(who, { 'if-match': etag }) });
    expectProblem(await del(stale), 412);
    expect((await getTicket(who, t.guid)).status).toBe(200);
    expect((await del(current)).status).toBe(204);
    expect((await getTicket(who, t.guid)).status).toBe(404);
  });

  it("If-Match on another company's ticket is 404, never 412 (no hint that it exists)", async () => {
    const t = await createTicket(who, eventGuid);
    const etag = (await getTicket(who, t.guid)).headers.get('etag')!;
    const other = await signUpAndLogin(stack);
    const theirs = { stack, token: other.accessToken };
    for (const ifMatch of [etag, '"stale"', '*']) {
      expectProblem(await putTicket(theirs, t.guid, { description: 'foreign' }, { 'if-match': ifMatch }), 404);
      expectProblem(await request(`${stack.baseUrl}/ticket/${t.guid}`, { method: 'DELETE', headers: h(theirs, { 'if-match': ifMatch }) }), 404);
    }
    expect((await readTicket(who, t.guid)).description).toBeNull();
  });

  it('events have ETags and honour If-Match too', async () => {
    const event = await createEvent(who, { name: 'Event etag' });
    const read = await request(`${stack.baseUrl}/event/${event.guid}`, { headers: h(who) });
    const stale = read.headers.get('etag')!;
    expect(stale).toMatch(STRONG_ETAG);
    const put = await request(`${stack.baseUrl}/event/${event.guid}`, { method: 'PUT', headers: h(who), json: { name: 'Renamed' } });
    expect(put.status).toBe(200);
    expect(put.headers.get('etag')).not.toBe(stale);
    expectProblem(await request(`${stack.baseUrl}/event/${event.guid}`, { method: 'PUT', headers: h(who, { 'if-match': stale }), json: { name: 'Lost update' } }), 412);
    expectProblem(await request(`${stack.baseUrl}/event/${event.guid}`, { method: 'DELETE', headers: h(who, { 'if-match': stale }) }), 412);
    const ok = await request(`${stack.baseUrl}/event/${event.guid}`, { method: 'PUT', headers: h(who, { 'if-match': put.headers.get('etag')! }), json: { name: 'Kept' } });
    expect(ok.status).toBe(200);
    expect(ok.body.name).toBe('Kept');
  });
});

describe('Idempotency-Key', () => {
  const post = (body: unknown, key: string, token = who.token, event = eventGuid): Promise<JsonResponse> =>
    request(`${stack.baseUrl}/event/${event}/ticket`, { method: 'POST', headers: h({ stack, token }, { 'idempotency-key': key }), json: body });

  it('the same key and body twice: the first response again, one ticket', async () => {
    const event = await createEvent(who, { name: 'Idempotent' });
    const key = `key-${Date.now()}-a`;
    const first = await post({ name: 'Once', vat_percentage: 21 }, key, who.token, event.guid);
    const second = await post({ name: 'Once', vat_percentage: 21 }, key, who.token, event.guid);
    expect(first.status, first.text).toBe(201);
    expect(second.status, second.text).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.body.guid).toBe(first.body.guid);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    const tickets = await ticketList(event.guid);
    expect(tickets.map((t) => t.guid)).toEqual([first.body.guid]);
  });

  it('concurrent retries with one key still create one ticket', async () => {
    const event = await createEvent(who, { name: 'Idempotent race' });
    const key = `key-${Date.now()}-race`;
    const results = await Promise.all(Array.from({ length: 6 }, () => post({ name: 'Race', vat_percentage: 21 }, key, who.token, event.guid)));
    const ok = results.filter((r) => r.status === 201);
    for (const r of results) expect(r.status, r.text).toBeLessThan(500);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.body.guid)).size).toBe(1);
    expect((await ticketList(event.guid)).length).toBe(1);
  });

  it('the same key with a different body is 422 naming Idempotency-Key, nothing created', async () => {
    const event = await createEvent(who, { name: 'Idempotent conflict' });
    const key = `key-${Date.now()}-b`;
    expect((await post({ name: 'First', vat_percentage: 21 }, key, who.token, event.guid)).status).toBe(201);
    expect422(await post({ name: 'Second', vat_percentage: 21 }, key, who.token, event.guid), ['Idempotency-Key']);
    expect((await ticketList(event.guid)).map((t) => t.name)).toEqual(['First']);
  });

  it('different keys create different tickets; no key creates every time', async () => {
    const event = await createEvent(who, { name: 'Idempotent keys' });
    const a = await post({ name: 'Same', vat_percentage: 21 }, `k-${Date.now()}-1`, who.token, event.guid);
    const b = await post({ name: 'Same', vat_percentage: 21 }, `k-${Date.now()}-2`, who.token, event.guid);
    expect(a.body.guid).not.toBe(b.body.guid);
    await createTicket(who, event.guid, { name: 'Same', vat_percentage: 21 });
    await createTicket(who, event.guid, { name: 'Same', vat_percentage: 21 });
    expect((await ticketList(event.guid)).length).toBe(4);
  });

  it('the key is per user: another user with the same key is not answered with the first response', async () => {
    const other = await signUpAndLogin(stack);
    const otherEvent = await createEvent({ stack, token: other.accessToken }, { name: 'Other user' });
    const key = `shared-${Date.now()}`;
    const mine = await post({ name: 'Mine', vat_percentage: 21 }, key);
    expect(mine.status).toBe(201);
    const theirs = await post({ name: 'Mine', vat_percentage: 21 }, key, other.accessToken, otherEvent.guid);
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.body.guid).not.toBe(mine.body.guid);
    expect(theirs.body.company_id).toBe(other.companyId);
    // and a replay of my key against my event still gives my response, never theirs
    const replay = await post({ name: 'Mine', vat_percentage: 21 }, key);
    expect(replay.body.guid).toBe(mine.body.guid);
  });

  it('a malformed key is 400', async () => {
    expectProblem(await post({ name: 'x', vat_percentage: 21 }, 'k'.repeat(256)), 400);
    expectProblem(await post({ name: 'x', vat_percentage: 21 }, 'has space'), 400);
    expect((await post({ name: 'x', vat_percentage: 21 }, 'k'.repeat(255))).status).toBe(201);
  });

  it('a failed validation is replayed as the same failure, then a fixed body under a new key works', async () => {
    const key = `key-${Date.now()}-invalid`;
    const first = await post({ name: 'Bad', vat_percentage: 500 }, key);
    expect(first.status).toBe(422);
    const again = await post({ name: 'Bad', vat_percentage: 500 }, key);
    expect(again.status).toBe(422);
    expect((await post({ name: 'Good', vat_percentage: 5 }, `${key}-2`)).status).toBe(201);
  });

  it('POST /event takes an Idempotency-Key too', async () => {
    const key = `event-${Date.now()}`;
    const send = (name: string) => request(`${stack.baseUrl}/event`, { method: 'POST', headers: h(who, { 'idempotency-key': key }), json: { name } });
    const first = await send('Idem event');
    const second = await send('Idem event');
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.guid).toBe(first.body.guid);
    expect422(await send('Other body'), ['Idempotency-Key']);
    const events = (await request(`${stack.baseUrl}/event`, { headers: h(who) })).body as Array<{ guid: string; name: string }>;
    expect(events.filter((e) => e.name === 'Idem event')).toHaveLength(1);
  });
});
