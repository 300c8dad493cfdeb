/**
 * Reads: GET /ticket/:guid, GET /event/:guid/ticket and the PUT response carry exactly the
 * 34 fields of the spec table, with its defaults; status is computed on every read;
 * timestamps are UTC with a numeric offset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../support/stack.js';
import {
  ALL_FIELDS,
  STRONG_ETAG,
  TICKET_DEFAULTS,
  TIMESTAMP,
  createEvent,
  createTicket,
  daysFromNow,
  expectFullTicket,
  getTicket,
  h,
  keysOf,
  readTicket,
  request,
  sorted,
  startSuite,
  updateTicket,
  type Account,
  type Who,
} from './helpers.js';

let stack: TestStack;
let account: Account;
let who: Who;
let eventGuid: string;

beforeAll(async () => {
  ({ stack, account, who, eventGuid } = await startSuite({ event: { name: 'Reads event' } }));
});

afterAll(() => stack?.stop());

describe('full ticket objects', () => {
  it('GET /ticket/:guid: 200, ETag, exactly the 34 fields with the defaults of the table', async () => {
    const created = await createTicket(who, eventGuid, { name: 'Defaults', vat_percentage: 21 });
    const res = await getTicket(who, created.guid);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
    expect(res.headers.get('etag')).toMatch(STRONG_ETAG);
    expect(keysOf(res.body)).toEqual(sorted(ALL_FIELDS));
    expectFullTicket(res.body);
    for (const [field, value] of Object.entries(TICKET_DEFAULTS)) expect(res.body[field], field).toEqual(value);
    expect(res.body.guid).toBe(created.guid);
    expect(res.body.company_id).toBe(account.companyId);
    expect(res.body.event_id).toBe(eventGuid);
    expect(res.body.name).toBe('Defaults');
    expect(res.body.vat_percentage).toBe(21);
    expect(res.body.status).toBe('sold_out');
  });

  it('the JSON keys follow the order of the spec table', async () => {
    const created = await createTicket(who, eventGuid);
    const res = await getTicket(who, created.guid);
    expect(Object.keys(res.body)).toEqual([...ALL_FIELDS]);
  });

  it('GET /event/:guid/ticket: a JSON array of full objects with the defaults', async () => {
    const event = await createEvent(who, { name: 'List fields' });
    const a = await createTicket(who, event.guid, { name: 'A', vat_percentage: 21 });
    const b = await createTicket(who, event.guid, { name: 'B', vat_percentage: '9' });
    const res = await request(`${stack.baseUrl}/event/${event.guid}/ticket`, { headers: h(who) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((t: { guid: string }) => t.guid)).toEqual([a.guid, b.guid]);
    for (const ticket of res.body) {
      expect(keysOf(ticket)).toEqual(sorted(ALL_FIELDS));
      expectFullTicket(ticket);
      for (const [field, value] of Object.entries(TICKET_DEFAULTS)) expect(ticket[field], field).toEqual(value);
      expect(ticket.status).toBe('sold_out');
    }
    expect(res.body[1].vat_percentage).toBe(9);
  });

  it('the PUT response: exactly the 34 fields, ETag', async () => {
    const created = await createTicket(who, eventGuid);
    const res = await request(`${stack.baseUrl}/ticket/${created.guid}`, { method: 'PUT', headers: h(who), json: { description: 'Now described' } });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('etag')).toMatch(STRONG_ETAG);
    expect(keysOf(res.body)).toEqual(sorted(ALL_FIELDS));
    expectFullTicket(res.body);
    expect(res.body.description).toBe('Now described');
    expect(res.body.status).toBe('sold_out');
  });

  it('an empty list is []', async () => {
    const event = await createEvent(who, { name: 'Empty' });
    const res = await request(`${stack.baseUrl}/event/${event.guid}/ticket`, { headers: h(who) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });
});

describe('status is computed on every read, never null', () => {
  it('a new ticket (stock 0) reads as sold_out; setting stock makes it available', async () => {
    const t = await createTicket(who, eventGuid);
    expect((await readTicket(who, t.guid)).status).toBe('sold_out');
    const updated = await updateTicket(who, t.guid, { available_stock: 10 });
    expect(updated.status).toBe('available');
    expect((await readTicket(who, t.guid)).status).toBe('available');
  });

  it('the availability margin counts against the stock', async () => {
    const t = await createTicket(who, eventGuid, { name: 'Margin', vat_percentage: 21, available_stock: 10 });
    expect((await updateTicket(who, t.guid, { availability_margin: 9 })).status).toBe('available');
    expect((await updateTicket(who, t.guid, { availability_margin: 10 })).status).toBe('sold_out');
  });

  it('status_overrule overrides the computed status', async () => {
    const t = await createTicket(who, eventGuid);
    expect((await updateTicket(who, t.guid, { status_overrule: 'available' })).status).toBe('available');
    expect((await readTicket(who, t.guid)).status).toBe('available');
    await updateTicket(who, t.guid, { available_stock: 50, status_overrule: 'sold_out' });
    expect((await readTicket(who, t.guid)).status).toBe('sold_out');
    expect((await updateTicket(who, t.guid, { status_overrule: 'unavailable' })).status).toBe('unavailable');
    expect((await updateTicket(who, t.guid, { status_overrule: 'auto' })).status).toBe('available');
  });

  it('available_from in the future: not_yet_available', async () => {
    const t = await createTicket(who, eventGuid, { name: 'Future', vat_percentage: 21, available_stock: 10 });
    expect((await updateTicket(who, t.guid, { available_from: daysFromNow(3) })).status).toBe('not_yet_available');
    expect((await readTicket(who, t.guid)).status).toBe('not_yet_available');
  });

  it('available_until in the past: no_longer_available', async () => {
    const t = await createTicket(who, eventGuid, { name: 'Past', vat_percentage: 21, available_stock: 10 });
    expect((await updateTicket(who, t.guid, { available_until: daysFromNow(-3) })).status).toBe('no_longer_available');
    expect((await readTicket(who, t.guid)).status).toBe('no_longer_available');
  });

  it('inside the sale window with stock: available; the window beats the stock, the override beats the window', async () => {
    const t = await createTicket(who, eventGuid, { name: 'Window', vat_percentage: 21 });
    const inWindow = await updateTicket(who, t.guid, { available_from: daysFromNow(-1), available_until: daysFromNow(1), available_stock: 3 });
    expect(inWindow.status).toBe('available');
    expect((await updateTicket(who, t.guid, { available_stock: 0, available_from: daysFromNow(2), available_until: daysFromNow(4) })).status).toBe(
      'not_yet_available',
    );
    expect((await updateTicket(who, t.guid, { status_overrule: 'available' })).status).toBe('available');
  });

  it('status in lists is computed too', async () => {
    const event = await createEvent(who, { name: 'Statuses' });
    const a = await createTicket(who, event.guid);
    const b = await createTicket(who, event.guid, { name: 'B', vat_percentage: 21, available_stock: 4 });
    const c = await createTicket(who, event.guid, { name: 'C', vat_percentage: 21, available_stock: 4, available_from: daysFromNow(5) });
    const res = await request(`${stack.baseUrl}/event/${event.guid}/ticket`, { headers: h(who) });
    const byGuid = new Map((res.body as Array<{ guid: string; status: string }>).map((t) => [t.guid, t.status]));
    expect(byGuid.get(a.guid)).toBe('sold_out');
    expect(byGuid.get(b.guid)).toBe('available');
    expect(byGuid.get(c.guid)).toBe('not_yet_available');
  });
});

describe('timestamps', () => {
  it('every timestamp is YYYY-MM-DDTHH:MM:SS+00:00', async () => {
    const t = await createTicket(who, eventGuid);
    const updated = await updateTicket(who, t.guid, { available_from: '2031-01-02T03:04:05Z', available_until: '2031-02-03T04:05:06+00:00' });
    for (const field of ['created_at', 'updated_at', 'available_from', 'available_until']) expect(updated[field], field).toMatch(TIMESTAMP);
    expect(updated.available_from).toBe('2031-01-02T03:04:05+00:00');
    expect(updated.available_until).toBe('2031-02-03T04:05:06+00:00');
  });

  it('a timestamp sent with +02:00 comes back as the same instant in UTC', async () => {
    const t = await createTicket(who, eventGuid);
    const updated = await updateTicket(who, t.guid, { available_from: '2031-06-01T12:00:00+02:00', available_until: '2031-06-02T00:30:00-05:30' });
    expect(updated.available_from).toBe('2031-06-01T10:00:00+00:00');
    expect(updated.available_until).toBe('2031-06-02T06:00:00+00:00');
    const read = await readTicket(who, t.guid);
    expect(read.available_from).toBe('2031-06-01T10:00:00+00:00');
    expect(read.available_until).toBe('2031-06-02T06:00:00+00:00');
  });

  it('event timestamps use the same format and conversion', async () => {
    const event = await createEvent(who, { name: 'Timed', start: '2031-03-01T20:00:00+02:00', end: '2031-03-01T23:30:00+02:00' });
    expect(event.start).toBe('2031-03-01T18:00:00+00:00');
    expect(event.end).toBe('2031-03-01T21:30:00+00:00');
    expect(event.created_at).toMatch(TIMESTAMP);
    expect(event.updated_at).toMatch(TIMESTAMP);
  });
});
