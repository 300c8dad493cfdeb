/**
 * Events CRUD (PRODUCT.md 5) and deletion of tickets and events: 204, then 404 and gone
 * from every list; an event's tickets go with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../support/stack.js';
import {
  EVENT_FIELDS,
  GUID,
  NIL_LIKE_GUID,
  STRONG_ETAG,
  TIMESTAMP,
  createEvent,
  createTicket,
  expect422,
  expectProblem,
  getTicket,
  h,
  keysOf,
  putTicket,
  request,
  sorted,
  startSuite,
  twoCompanyAccount,
  type Account,
  type JsonResponse,
  type Who,
} from './helpers.js';

let stack: TestStack;
let account: Account;
let who: Who;

beforeAll(async () => {
  ({ stack, account, who } = await startSuite());
});

afterAll(() => stack?.stop());

const call = (method: string, path: string, json?: unknown, extra: Record<string, string> = {}): Promise<JsonResponse> =>
  request(`${stack.baseUrl}${path}`, { method, headers: h(who, extra), ...(json !== undefined ? { json } : {}) });

function expectEvent(event: Record<string, unknown>): void {
  expect(keysOf(event)).toEqual(sorted(EVENT_FIELDS));
  expect(event.guid).toMatch(GUID);
  expect(event.status).toBe('normal');
  expect(event.created_at).toMatch(TIMESTAMP);
  expect(event.updated_at).toMatch(TIMESTAMP);
  expect(event.deleted_at).toBeNull();
}

describe('events CRUD', () => {
  it('POST /event: 201, Location, ETag, exactly the event fields', async () => {
    const res = await call('POST', '/event', { name: 'Festival', description: 'Three days', start: '2031-07-01T12:00:00Z', end: '2031-07-03T23:00:00Z' });
    expect(res.status, res.text).toBe(201);
    expectEvent(res.body);
    expect(res.headers.get('location')).toMatch(new RegExp(`/event/${res.body.guid as string}$`));
    expect(res.headers.get('etag')).toMatch(STRONG_ETAG);
    expect(res.body).toMatchObject({
      company_id: account.companyId,
      name: 'Festival',
      description: 'Three days',
      start: '2031-07-01T12:00:00+00:00',
      end: '2031-07-03T23:00:00+00:00',
    });
  });

  it('POST /event: only name is needed; form bodies work too', async () => {
    const minimal = await call('POST', '/event', { name: 'Minimal' });
    expect(minimal.status, minimal.text).toBe(201);
    expect(minimal.body).toMatchObject({ name: 'Minimal', description: null, start: null, end: null, status: 'normal' });
    const form = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: h(who), body: new URLSearchParams({ name: 'Form event', start: '2031-01-01T00:00:00+01:00' }) });
    expect(form.status, form.text).toBe(201);
    expect(form.body).toMatchObject({ name: 'Form event', start: '2030-12-31T23:00:00+00:00' });
    const multipart = new FormData();
    multipart.set('name', 'Multipart event');
    const mp = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: h(who), body: multipart });
    expect(mp.status, mp.text).toBe(201);
    expect(mp.body.name).toBe('Multipart event');
  });

  it('POST /event validation: name required and 1..255, end not before start, offsets required, unknown keys', async () => {
    expect422(await call('POST', '/event', {}), ['name']);
    expect422(await call('POST', '/event', { name: '' }), ['name']);
    expect422(await call('POST', '/event', { name: 'x'.repeat(256) }), ['name']);
    expect(await call('POST', '/event', { name: 'x'.repeat(255) }).then((r) => r.status)).toBe(201);
    expect422(await call('POST', '/event', { name: 'd', description: 'x'.repeat(10_001) }), ['description']);
    const backwards = await call('POST', '/event', { name: 'Backwards', start: '2031-01-02T00:00:00Z', end: '2031-01-01T00:00:00Z' });
    expect(backwards.status).toBe(422);
    expect((backwards.body.errors as Array<{ field: string }>).some((e) => e.field === 'end' || e.field === 'start'), backwards.text).toBe(true);
    expect(await call('POST', '/event', { name: 'Zero length', start: '2031-01-01T00:00:00Z', end: '2031-01-01T01:00:00+01:00' }).then((r) => r.status)).toBe(201);
    expect422(await call('POST', '/event', { name: 'No offset', start: '2031-01-01T00:00:00' }), ['start']);
    expect422(await call('POST', '/event', { name: 'Unknown', venue: 'Ahoy' }), ['venue']);
    expect422(await call('POST', '/event', { description: 'x'.repeat(10_001), venue: 1, end: 'later' }), ['name', 'description', 'venue', 'end']);
  });

  it('GET /event/:guid: 200, ETag, the same object', async () => {
    const created = (await call('POST', '/event', { name: 'Get me' })).body;
    const res = await call('GET', `/event/${created.guid}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(STRONG_ETAG);
    expect(res.body).toEqual(created);
  });

  it('GET /event: the events of the company in creation order', async () => {
    const a = (await call('POST', '/event', { name: 'List A' })).body;
    const b = (await call('POST', '/event', { name: 'List B' })).body;
    const res = await call('GET', '/event');
    expect(res.status).toBe(200);
    const guids = (res.body as Array<{ guid: string }>).map((e) => e.guid);
    expect(guids.indexOf(a.guid)).toBeGreaterThanOrEqual(0);
    expect(guids.indexOf(b.guid)).toBe(guids.indexOf(a.guid) + 1);
    for (const event of res.body) expectEvent(event);
  });

  it('PUT /event/:guid: partial, updated_at moves, server-managed and ignored fields as for tickets', async () => {
    const created = (await call('POST', '/event', { name: 'Put me', description: 'keep', start: '2031-05-01T10:00:00Z' })).body;
    const res = await call('PUT', `/event/${created.guid}`, { name: 'Renamed' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('etag')).toMatch(STRONG_ETAG);
    expectEvent(res.body);
    expect(res.body).toMatchObject({ name: 'Renamed', description: 'keep', start: '2031-05-01T10:00:00+00:00', created_at: created.created_at });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
    const back = await call('PUT', `/event/${created.guid}`, res.body);
    expect(back.status, back.text).toBe(200);
    expect422(await call('PUT', `/event/${created.guid}`, { company_id: NIL_LIKE_GUID }), ['company_id']);
    expect422(await call('PUT', `/event/${created.guid}`, { guid: NIL_LIKE_GUID }), ['guid']);
    expect422(await call('PUT', `/event/${created.guid}`, { created_at: '2001-01-01T00:00:00Z' }), ['created_at']);
    expect422(await call('PUT', `/event/${created.guid}`, { venue: 'x' }), ['venue']);
    expect422(await call('PUT', `/event/${created.guid}`, { end: '2031-04-01T00:00:00Z' }), ['end']);
    const ignored = await call('PUT', `/event/${created.guid}`, { status: 'cancelled', updated_at: '2001-01-01T00:00:00Z', description: null });
    expect(ignored.status, ignored.text).toBe(200);
    expect(ignored.body).toMatchObject({ status: 'normal', description: null });
    expect(ignored.body.updated_at).not.toBe('2001-01-01T00:00:00+00:00');
  });

  it('DELETE /event/:guid: 204, then 404, gone from the list, its tickets gone too', async () => {
    const event = (await call('POST', '/event', { name: 'Delete me' })).body;
    const ticket = await createTicket(who, event.guid);
    const res = await call('DELETE', `/event/${event.guid}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectProblem(await call('GET', `/event/${event.guid}`), 404);
    expectProblem(await call('PUT', `/event/${event.guid}`, { name: 'zombie' }), 404);
    expectProblem(await call('DELETE', `/event/${event.guid}`), 404);
    const list = await call('GET', '/event');
    expect((list.body as Array<{ guid: string }>).map((e) => e.guid)).not.toContain(event.guid);
    expectProblem(await call('GET', `/event/${event.guid}/ticket`), 404);
    expectProblem(await call('POST', `/event/${event.guid}/ticket`, { name: 'late', vat_percentage: 21 }), 404);
    expectProblem(await getTicket(who, ticket.guid), 404);
    const all = await call('GET', '/ticket');
    expect((all.body as Array<{ guid: string }>).map((t) => t.guid)).not.toContain(ticket.guid);
  });

  it('creating an event with a token of two companies and no Company header is 400; with one named it works', async () => {
    const two = await twoCompanyAccount(stack);
    const res = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: h({ stack, token: two.allToken }), json: { name: 'Which company?' } });
    expectProblem(res, 400);
    expect(res.body.detail).toMatch(/company/i);
    const star = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: h({ stack, token: two.allToken }, { company: '*' }), json: { name: 'Star' } });
    expectProblem(star, 400);
    const named = await request(`${stack.baseUrl}/event`, { method: 'POST', headers: h({ stack, token: two.allToken }, { company: two.secondCompanyId }), json: { name: 'Named' } });
    expect(named.status, named.text).toBe(201);
    expect(named.body.company_id).toBe(two.secondCompanyId);
  });
});

describe('ticket deletion', () => {
  it('DELETE /ticket/:guid: 204 without a body, then 404 everywhere and gone from every list', async () => {
    const event = await createEvent(who, { name: 'Ticket deletion' });
    const keep = await createTicket(who, event.guid, { name: 'Keep', vat_percentage: 21 });
    const doomed = await createTicket(who, event.guid, { name: 'Doomed', vat_percentage: 21 });
    const res = await call('DELETE', `/ticket/${doomed.guid}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectProblem(await getTicket(who, doomed.guid), 404);
    expectProblem(await putTicket(who, doomed.guid, { name: 'resurrect' }), 404);
    expectProblem(await call('DELETE', `/ticket/${doomed.guid}`), 404);
    const list = await call('GET', `/event/${event.guid}/ticket`);
    expect((list.body as Array<{ guid: string }>).map((t) => t.guid)).toEqual([keep.guid]);
    const paged = await call('GET', `/event/${event.guid}/ticket?limit=10`);
    expect((paged.body as Array<{ guid: string }>).map((t) => t.guid)).toEqual([keep.guid]);
    const all = await call('GET', '/ticket');
    const allGuids = (all.body as Array<{ guid: string }>).map((t) => t.guid);
    expect(allGuids).toContain(keep.guid);
    expect(allGuids).not.toContain(doomed.guid);
  });

  it('DELETE of an unknown or malformed GUID is 404', async () => {
    expectProblem(await call('DELETE', `/ticket/${NIL_LIKE_GUID}`), 404);
    expectProblem(await call('DELETE', '/ticket/not-a-guid'), 404);
    expectProblem(await call('DELETE', `/event/${NIL_LIKE_GUID}`), 404);
  });
});
