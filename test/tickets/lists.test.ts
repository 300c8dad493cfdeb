/**
 * Lists and paging: creation order, `limit` with `Link: <...>; rel="next"`, cursor walks
 * that give every item exactly once, bad `limit` and `cursor` values.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../support/stack.js';
import { createEvent, createTicket, errorFields, expect422, expectProblem, h, nextLink, request, signUpAndLogin, startSuite, walkPages, type Who } from './helpers.js';

let stack: TestStack;
let who: Who;
let eventGuid: string;
let otherEventGuid: string;
/** Ticket GUIDs of eventGuid, in creation order. */
const created: string[] = [];
const TICKETS = 11;

beforeAll(async () => {
  ({ stack, who, eventGuid } = await startSuite({ event: { name: 'Paged' } }));
  otherEventGuid = (await createEvent(who, { name: 'Other paged' })).guid;
  // Created one after another, mostly within the same second: order must still be creation order.
  for (let i = 0; i < TICKETS; i++) created.push((await createTicket(who, eventGuid, { name: `T${i}`, vat_percentage: 21 })).guid);
  for (let i = 0; i < 3; i++) await createTicket(who, otherEventGuid, { name: `O${i}`, vat_percentage: 21 });
});

afterAll(() => stack?.stop());

const listUrl = (query = '') => `${stack.baseUrl}/event/${eventGuid}/ticket${query}`;
const guids = (body: unknown) => (body as Array<{ guid: string }>).map((t) => t.guid);

describe('GET /event/:guid/ticket', () => {
  it('without paging: the whole list in creation order, no next link', async () => {
    const res = await request(listUrl(), { headers: h(who) });
    expect(res.status).toBe(200);
    expect(guids(res.body)).toEqual(created);
    expect(nextLink(res, stack.baseUrl)).toBeUndefined();
  });

  it('only the tickets of that event', async () => {
    const res = await request(`${stack.baseUrl}/event/${otherEventGuid}/ticket`, { headers: h(who) });
    expect(res.body).toHaveLength(3);
    for (const t of res.body) expect(t.event_id).toBe(otherEventGuid);
  });

  it('limit gives at most that many and a rel="next" Link while more remain', async () => {
    const res = await request(listUrl('?limit=4'), { headers: h(who) });
    expect(res.status).toBe(200);
    expect(guids(res.body)).toEqual(created.slice(0, 4));
    const next = nextLink(res, stack.baseUrl);
    expect(next, `Link: ${res.headers.get('link')}`).toBeDefined();
    const url = new URL(next!);
    expect(url.pathname).toBe(`/event/${eventGuid}/ticket`);
    expect(url.searchParams.get('limit')).toBe('4');
    expect(url.searchParams.get('cursor')).toBeTruthy();
  });

  for (const limit of [1, 2, 3, 4, 5, 10]) {
    it(`walking the cursor with limit=${limit} gives every ticket exactly once, in order`, async () => {
      const { items, pages } = await walkPages(listUrl(`?limit=${limit}`), h(who), stack.baseUrl);
      expect(guids(items)).toEqual(created);
      expect(pages).toBe(Math.ceil(TICKETS / limit));
    });
  }

  it('a limit equal to or above the size: one page, no next link', async () => {
    for (const limit of [TICKETS, TICKETS + 1, 1000]) {
      const res = await request(listUrl(`?limit=${limit}`), { headers: h(who) });
      expect(res.status).toBe(200);
      expect(guids(res.body)).toEqual(created);
      expect(nextLink(res, stack.baseUrl), `limit=${limit}`).toBeUndefined();
    }
  });

  it('pages are full objects', async () => {
    const res = await request(listUrl('?limit=2'), { headers: h(who) });
    expect(Object.keys(res.body[0])).toHaveLength(34);
  });

  for (const bad of ['0', '1001', 'abc', '-1', '1.5', '']) {
    it(`limit=${bad || '(empty)'} is 422 naming limit`, async () => {
      expect422(await request(listUrl(`?limit=${bad}`), { headers: h(who) }), ['limit']);
    });
  }

  it('a tampered cursor is 422 naming cursor', async () => {
    const first = await request(listUrl('?limit=3'), { headers: h(who) });
    const cursor = new URL(nextLink(first, stack.baseUrl)!).searchParams.get('cursor')!;
    const flipped = cursor.slice(0, -2) + (cursor.at(-2) === 'A' ? 'B' : 'A') + cursor.at(-1);
    for (const bad of ['garbage', 'x'.repeat(64), flipped, cursor + 'x', Buffer.from('{"id":1}').toString('base64url')]) {
      const res = await request(listUrl(`?limit=3&cursor=${encodeURIComponent(bad)}`), { headers: h(who) });
      expect422(res, ['cursor']);
    }
  });

  it("another list's cursor is 422 naming cursor", async () => {
    const first = await request(listUrl('?limit=3'), { headers: h(who) });
    const cursor = new URL(nextLink(first, stack.baseUrl)!).searchParams.get('cursor')!;
    const res = await request(`${stack.baseUrl}/event/${otherEventGuid}/ticket?limit=3&cursor=${encodeURIComponent(cursor)}`, { headers: h(who) });
    expect422(res, ['cursor']);
    const events = await request(`${stack.baseUrl}/event?limit=3&cursor=${encodeURIComponent(cursor)}`, { headers: h(who) });
    expect422(events, ['cursor']);
  });

  it('a valid cursor used by another user is no way into their list', async () => {
    const first = await request(listUrl('?limit=3'), { headers: h(who) });
    const next = nextLink(first, stack.baseUrl)!;
    const stranger = await signUpAndLogin(stack);
    const res = await request(next, { headers: h({ stack, token: stranger.accessToken }) });
    expect([404, 422]).toContain(res.status);
    expectProblem(res, res.status);
    expect(res.text).not.toContain(created[3]!);
  });

  it('a ticket created while walking does not duplicate or drop the earlier ones', async () => {
    const event = await createEvent(who, { name: 'Live paging' });
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) mine.push((await createTicket(who, event.guid, { name: `L${i}`, vat_percentage: 21 })).guid);
    const first = await request(`${stack.baseUrl}/event/${event.guid}/ticket?limit=2`, { headers: h(who) });
    mine.push((await createTicket(who, event.guid, { name: 'L5', vat_percentage: 21 })).guid);
    const rest = await walkPages(nextLink(first, stack.baseUrl)!, h(who), stack.baseUrl);
    expect([...guids(first.body), ...guids(rest.items)]).toEqual(mine);
  });
});

describe('GET /event paging', () => {
  it('events in creation order; limit and cursor walk give every event once', async () => {
    const user = await signUpAndLogin(stack);
    const mine = { stack, token: user.accessToken };
    const events: string[] = [];
    for (let i = 0; i < 7; i++) events.push((await createEvent(mine, { name: `E${i}` })).guid);
    const all = await request(`${stack.baseUrl}/event`, { headers: h(mine) });
    expect(guids(all.body)).toEqual(events);
    const { items, pages } = await walkPages(`${stack.baseUrl}/event?limit=3`, h(mine), stack.baseUrl);
    expect(guids(items)).toEqual(events);
    expect(pages).toBe(3);
    for (const bad of ['0', '1001', 'abc']) expect(errorFields(await request(`${stack.baseUrl}/event?limit=${bad}`, { headers: h(mine) }))).toEqual(['limit']);
    expect422(await request(`${stack.baseUrl}/event?limit=2&cursor=nonsense`, { headers: h(mine) }), ['cursor']);
  });
});
