/**
 * Concurrency: parallel PUTs of different fields all survive; parallel creates all land,
 * each once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../support/stack.js';
import { createEvent, createTicket, getTicket, h, putTicket, readTicket, request, signUpAndLogin, startSuite, type Who } from './helpers.js';

let stack: TestStack;
let who: Who;

beforeAll(async () => {
  ({ stack, who } = await startSuite());
});

afterAll(() => stack?.stop());

/** 16 different fields whose new values are valid whatever order the writes land in. */
const CHANGES: Record<string, unknown> = {
  name: 'Concurrent name',
  description: 'Concurrent description',
  min_price: 19.95,
  vat_percentage: 9,
  late_personalization: true,
  status_overrule: 'available',
  barcode_type: 'none',
  class: 'Balcony',
  available_stock: 500,
  increment: 2,
  availability_margin: 7,
  max_orderable_amount_per_order: 12,
  percentage_service_costs_in_ticket: 3.5,
  seats_category_key: 'cat-7',
  hide_without_coupon: true,
  swappable: false,
};

describe('concurrency', () => {
  it('16 parallel PUTs of different fields on one ticket: all 16 values are present after', async () => {
    expect(Object.keys(CHANGES)).toHaveLength(16);
    const event = await createEvent(who, { name: 'Concurrent updates' });
    for (let round = 0; round < 2; round++) {
      const t = await createTicket(who, event.guid, { name: `Round ${round}`, vat_percentage: 21 });
      const results = await Promise.all(Object.entries(CHANGES).map(([field, value]) => putTicket(who, t.guid, { [field]: value })));
      for (const res of results) expect(res.status, res.text.slice(0, 300)).toBe(200);
      const after = await readTicket(who, t.guid);
      for (const [field, value] of Object.entries(CHANGES)) expect(after[field], `round ${round}: ${field}`).toEqual(value);
      // the untouched fields kept their values
      expect(after).toMatchObject({ available_in_cashr: false, combines_products: true, seated: false, min_orderable_amount_per_order: 1, sold_count: 0 });
    }
  });

  it('20 parallel PUTs: each a new ETag; updated_at later than created_at, at most 1 s ahead of the clock, the last one read back', async () => {
    const event = await createEvent(who, { name: 'Concurrent timestamps' });
    const t = await createTicket(who, event.guid);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => putTicket(who, t.guid, { description: `v${i}` })));
    const wallAfter = Date.now();
    const aheadLimit = Math.floor(wallAfter / 1000) * 1000 + 1000;
    for (const res of results) expect(res.status, res.text.slice(0, 300)).toBe(200);
    const etags = results.map((r) => r.headers.get('etag'));
    expect(new Set(etags).size, etags.join(' ')).toBe(20);
    expect(etags).not.toContain(null);
    const stamps = results.map((r) => Date.parse(r.body.updated_at as string));
    for (const stamp of stamps) {
      expect(stamp).toBeGreaterThan(Date.parse(t.created_at));
      expect(stamp, `${new Date(stamp).toISOString()} vs clock ${new Date(wallAfter).toISOString()}`).toBeLessThanOrEqual(aheadLimit);
    }
    // never moved back: the last update's value is the greatest
    const final = await getTicket(who, t.guid);
    expect(Date.parse(final.body.updated_at)).toBe(Math.max(...stamps));
    const last = results.find((r) => r.headers.get('etag') === final.headers.get('etag'));
    expect(last, 'the stored version is one of the 20').toBeDefined();
    expect(last!.body).toMatchObject({ description: final.body.description, updated_at: final.body.updated_at });
  });

  it('30 parallel creates: 30 distinct GUIDs, 30 tickets listed', async () => {
    const event = await createEvent(who, { name: 'Concurrent creates' });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        request(`${stack.baseUrl}/event/${event.guid}/ticket`, { method: 'POST', headers: h(who), json: { name: `Parallel ${i}`, vat_percentage: 21 } }),
      ),
    );
    for (const res of results) expect(res.status, res.text.slice(0, 300)).toBe(201);
    const guids = results.map((r) => r.body.guid as string);
    expect(new Set(guids).size).toBe(30);
    const list = await request(`${stack.baseUrl}/event/${event.guid}/ticket`, { headers: h(who) });
    expect(list.status).toBe(200);
    const listed = (list.body as Array<{ guid: string; name: string }>).map((t) => t.guid);
    expect(listed).toHaveLength(30);
    expect(new Set(listed)).toEqual(new Set(guids));
    const names = (list.body as Array<{ name: string }>).map((t) => t.name).sort();
    expect(names).toEqual(Array.from({ length: 30 }, (_, i) => `Parallel ${i}`).sort());
    const paged = await request(`${stack.baseUrl}/event/${event.guid}/ticket?limit=1000`, { headers: h(who) });
    expect((paged.body as unknown[]).length).toBe(30);
  });

  it('parallel creates across events and companies do not mix up', async () => {
    const other = await signUpAndLogin(stack);
    const otherWho = { stack, token: other.accessToken };
    const [mine, theirs] = await Promise.all([createEvent(who, { name: 'Mine' }), createEvent(otherWho, { name: 'Theirs' })]);
    const jobs = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0 ? createTicket(who, mine.guid, { name: `m${i}`, vat_percentage: 21 }) : createTicket(otherWho, theirs.guid, { name: `t${i}`, vat_percentage: 21 }),
    );
    await Promise.all(jobs);
    const a = (await request(`${stack.baseUrl}/event/${mine.guid}/ticket`, { headers: h(who) })).body as Array<{ name: string; company_id: string }>;
    const b = (await request(`${stack.baseUrl}/event/${theirs.guid}/ticket`, { headers: h(otherWho) })).body as Array<{ name: string; company_id: string }>;
    expect(a).toHaveLength(10);
    expect(b).toHaveLength(10);
    for (const t of a) expect(t.name.startsWith('m') && t.company_id === mine.company_id).toBe(true);
    for (const t of b) expect(t.name.startsWith('t') && t.company_id === theirs.company_id).toBe(true);
  });
});
