/**
 * Impossible dates and times (docs/ticket-api.md "Bodies and values"): a timestamp whose
 * day does not exist in its month, or whose time is out of range, is a 422 naming the
 * field; it is never rolled over into the next day or month, and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, expect422, h, putTicket, readEvent, readTicket, request, startSuite, updateTicket, type Who } from './helpers.js';
import type { TestStack } from '../support/stack.js';

let stack: TestStack;
let who: Who;
let eventGuid: string;

beforeAll(async () => {
  ({ stack, who, eventGuid } = await startSuite({ event: { name: 'Dates event', start: '2027-04-30T10:00:00Z' } }));
});

afterAll(() => stack?.stop());

describe('impossible dates on tickets', () => {
  it('PUT available_from 2027-02-30 is 422 naming it, and changes nothing', async () => {
    const t = await createTicket(who, eventGuid);
    await updateTicket(who, t.guid, { available_from: '2027-02-28T00:00:00Z', description: 'before' });
    const before = await readTicket(who, t.guid);
    expect422(await putTicket(who, t.guid, { available_from: '2027-02-30T00:00:00Z' }), ['available_from']);
    expect422(await putTicket(who, t.guid, { available_from: '2027-02-30T00:00:00Z', description: 'must not land' }), ['available_from']);
    expect(await readTicket(who, t.guid)).toEqual(before);
  });

  it('other impossible values are refused the same way, each naming its field', async () => {
    const t = await createTicket(who, eventGuid);
    const before = await readTicket(who, t.guid);
    expect422(await putTicket(who, t.guid, { available_until: '2027-04-31T24:00:00Z' }), ['available_until']);
    expect422(await putTicket(who, t.guid, { available_until: '2027-04-30T24:00:00Z' }), ['available_until']);
    expect422(await putTicket(who, t.guid, { available_from: '2027-02-29T12:00:00Z' }), ['available_from']);
    expect422(await putTicket(who, t.guid, { available_from: '2027-03-01T10:60:00Z' }), ['available_from']);
    expect422(await putTicket(who, t.guid, { available_from: '2027-03-01T10:00:00+15:00' }), ['available_from']);
    expect422(await putTicket(who, t.guid, { available_from: '2027-02-30T00:00:00Z', available_until: '2027-13-01T00:00:00Z' }), ['available_from', 'available_until']);
    expect(await readTicket(who, t.guid)).toEqual(before);
  });

  it('at creation too, and no ticket is created', async () => {
    const list = async () => ((await request(`${stack.baseUrl}/event/${eventGuid}/ticket`, { headers: h(who) })).body as unknown[]).length;
    const count = await list();
    const res = await request(`${stack.baseUrl}/event/${eventGuid}/ticket`, {
      method: 'POST',
      headers: h(who),
      json: { name: 'Impossible', vat_percentage: 21, available_from: '2027-02-30T00:00:00Z' },
    });
    expect422(res, ['available_from']);
    expect(await list()).toBe(count);
  });

  it('the real boundary days are accepted and read back as given', async () => {
    const t = await createTicket(who, eventGuid);
    const leap = await updateTicket(who, t.guid, { available_from: '2028-02-29T23:59:59Z', available_until: '2028-04-30T00:00:00+14:00' });
    expect(leap).toMatchObject({ available_from: '2028-02-29T23:59:59+00:00', available_until: '2028-04-29T10:00:00+00:00' });
    expect(await readTicket(who, t.guid)).toMatchObject({ available_from: '2028-02-29T23:59:59+00:00', available_until: '2028-04-29T10:00:00+00:00' });
  });
});

describe('impossible dates on events', () => {
  it('PUT start 2027-04-31 is 422 naming it, and changes nothing', async () => {
    const before = await readEvent(who, eventGuid);
    const res = await request(`${stack.baseUrl}/event/${eventGuid}`, { method: 'PUT', headers: h(who), json: { start: '2027-04-31T10:00:00Z' } });
    expect422(res, ['start']);
    const both = await request(`${stack.baseUrl}/event/${eventGuid}`, {
      method: 'PUT',
      headers: h(who),
      json: { name: 'must not land', start: '2027-04-31T10:00:00Z', end: '2027-02-29T10:00:00Z' },
    });
    expect422(both, ['start', 'end']);
    expect(await readEvent(who, eventGuid)).toEqual(before);
  });

  it('POST /event with an impossible start is 422 naming it', async () => {
    expect422(await request(`${stack.baseUrl}/event`, { method: 'POST', headers: h(who), json: { name: 'Impossible', start: '2027-04-31T10:00:00Z' } }), ['start']);
  });
});
